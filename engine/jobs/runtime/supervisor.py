"""The in-process supervisor: runs each dispatched job in a fresh, isolated worker process.

- ``submit`` is the single hand-off: a duplicate invocation id is an idempotent OK; a full queue, an
  isolation preflight that failed, a dispatch over its caps or a deadline that leaves too little
  time is a clean rejection that proves "never enqueued" (the budget is checked again at dequeue).
- One long-lived spawner thread (engine/jobs/runtime/worker_spawn.py) starts workers (PDEATHSIG
  follows the spawning thread) with an allow-listed environment (engine/jobs/runtime/worker_env.py),
  moves each into its own cgroup, reads the membership back and only then sends the dispatch (the
  release of the worker's fork barrier). Any failure before release kills the child: proof
  NEVER_LAUNCHED.
- One monitor thread per worker (engine/jobs/runtime/worker_monitor.py) reads its frames (caps and
  nesting depth checked before anything is allocated or parsed) and its stderr (into a bounded
  file), enforces the wall-clock deadline with SIGTERM → grace → SIGKILL, reaps the exact child and
  proves nothing it started still runs (its cgroup subtree unpopulated and removed; with rlimits
  only, its process group and session empty) before reporting CHILD_REAPED
  (engine/jobs/runtime/worker_reaping.py).
  Whatever goes wrong in the monitor, the worker is killed and its exit is still reported, with the
  reason.
- Every exit is reported with its cause (signal, the cgroup limit the kernel enforced, the wall
  clock, a protocol violation) and logged at WARNING unless it was a clean exit.
- A worker not proven gone after the reap (stray processes, a cgroup the kernel would not remove)
  gets no proof yet: the reaper thread re-checks such held workers every second, kills what
  remains and records CHILD_REAPED once the proof holds, so held slots do not stop dispatch until a
  restart.

``Supervisor`` is built in layers, one concern a module: the bookkeeping of invocations and
workers (engine/jobs/runtime/supervisor_state.py), the end of a worker, the monitor, the spawner,
and here the ``Backend`` itself: lifecycle, submit, cancel, proving an earlier run gone.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from drydock.engine.jobs.control.backend import (
    LOCAL_BACKEND,
    RAY_BACKEND,
    Backend,
    BackendEvents,
    Dispatch,
    NotEnqueued,
    ProtocolError,
)
from drydock.engine.jobs.control.records import JobRecord
from drydock.engine.jobs.runtime.isolation import session_members
from drydock.engine.jobs.runtime.protocol import dispatch_frame
from drydock.engine.jobs.runtime.supervisor_state import Submission, cgroup_name, start_ticks
from drydock.engine.jobs.runtime.worker_env import with_ambient_credentials
from drydock.engine.jobs.runtime.worker_spawn import (
    MIN_BUDGET_SECONDS,
    WorkerSpawner,
    short_budget,
)
from drydock.engine.store.config import Config
from drydock.engine.support.config_keys import Key

logger = logging.getLogger(__name__)


class Supervisor(WorkerSpawner, Backend):
    def __init__(
        self,
        config: Config,
        events: BackendEvents,
        epoch: str,
        log_dir: Path,
        clock: Callable[[], float] = time.time,
    ):
        super().__init__(config, events, epoch, log_dir, clock)
        self._spawner = threading.Thread(
            target=self._spawn_loop, name="lance-worker-spawner", daemon=True
        )
        self._reaper = threading.Thread(
            target=self._reap_loop, name="lance-worker-reaper", daemon=True
        )

    # -- lifecycle
    # --------------------------------------------------------------------------------------
    def start(self) -> None:
        self.isolation.preflight()
        log = logger.info if self.accepting else logger.warning
        log("index worker isolation: %s (%s)", self.isolation.kind, self.isolation.detail)
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self._spawner.start()
        self._reaper.start()

    def stop(self) -> None:
        self._stopping.set()
        self._queue.put(None)
        with self._lock:
            running = list(self._running.values())
        for worker in running:
            self._kill(worker, signal.SIGKILL)
        if self._spawner.is_alive():
            self._spawner.join(timeout=10)
        deadline = time.monotonic() + 10
        for (
            worker
        ) in running:  # let each monitor reap its child, empty its cgroup and record the proof
            if worker.monitor is not None:
                worker.monitor.join(timeout=max(deadline - time.monotonic(), 0))
        if self._reaper.is_alive():
            self._reaper.join(timeout=10)
        self.recheck_held()

    @property
    def accepting(self) -> bool:
        return self.isolation.kind != "none"

    def status(self) -> dict[str, Any]:
        with self._lock:
            inflight, held = len(self._running), len(self._held)
        return {
            "isolation": self.isolation.kind,
            "detail": self.isolation.detail,
            "queue_depth": self._queue.qsize(),
            "inflight": inflight,
            "held": held,
            "epoch": self.epoch,
        }

    def check_dispatch(self, dispatch: Dispatch) -> None:
        dispatch_frame(dispatch)

    def backend_of(self, dispatch: Dispatch) -> str:
        return LOCAL_BACKEND

    def hold_reason(self, job: JobRecord) -> str | None:
        return None  # local workers need nothing remote: a job waits only for a free slot

    def nodes(self) -> tuple[list[dict[str, Any]], str]:
        return [], ""

    def earlier_run_gone(self, job: JobRecord, worker: tuple[int, int | None] | None) -> bool:
        """An earlier epoch's local worker: its cgroup emptied and removed, and its recorded
        process gone with nothing left in its process group or session (killed now if anything
        still runs; proven on a later ask once it is gone)."""
        if job.backend_id == RAY_BACKEND:
            return False  # only Ray's state API can prove a Ray run over
        if self.isolation.kind.startswith("cgroup"):
            for group in self.isolation.find(cgroup_name(job.id, job.invocation_id)):
                self.isolation.kill_all(group)
                if not self.isolation.remove(group, timeout=2):
                    return False
        if worker is None:
            return True  # never released: a worker without a record never received its dispatch
        pid, ticks = worker
        now = start_ticks(pid)
        if now is not None and now != ticks:
            return True  # the pid was handed out again: nothing kept its group or session alive
        if now is None and not session_members(pid):
            return True  # gone, and nothing left in its process group or session
        # alive, or gone with strays in its group or session (they keep its number from reuse)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.isolation.kill_session(pid)
        return False

    # -- submit / cancel
    # -------------------------------------------------------------------------------
    def submit(self, dispatch: Dispatch, deadline_ms: int) -> None:
        with self._lock:
            if dispatch.invocation_id in self._active or dispatch.invocation_id in self._finished:
                return  # idempotent duplicate
            self._check_submission(dispatch, deadline_ms)
            self._active.add(dispatch.invocation_id)
            self._queue.put(Submission(dispatch, deadline_ms))

    def _check_submission(self, dispatch: Dispatch, deadline_ms: int) -> None:
        """What the spawner checks again at dequeue is checked here first: a rejection now proves
        NOT_ENQUEUED instead of costing a slot until the spawner gets to it."""
        if not self.accepting:
            raise NotEnqueued(f"index worker isolation unavailable: {self.isolation.detail}")
        if self._stopping.is_set():
            raise NotEnqueued("supervisor is stopping")
        if self._queue.qsize() >= int(self._config.get(Key.LANCE_INDEX_WORKER_QUEUE_CAPACITY)):
            raise NotEnqueued("supervisor queue is full")
        budget = self._budget(deadline_ms)
        if budget <= MIN_BUDGET_SECONDS:
            raise NotEnqueued(short_budget(budget))
        dispatch.storage_options = with_ambient_credentials(
            dispatch.uri, dispatch.storage_options, os.environ
        )
        try:
            dispatch_frame(dispatch)  # the payload caps
        except ProtocolError as exc:
            raise NotEnqueued(f"dispatch refused before enqueueing: {exc}") from None

    def cancel(self, invocation_id: str) -> bool:
        """Ask for an abort. A submission not yet released to its worker is never launched; a
        released worker aborts from its progress callback (SIGUSR1). False when this supervisor
        does not hold the invocation (unknown, or its worker already ended)."""
        with self._lock:
            if invocation_id not in self._active:
                return False
            self._cancelled.add(invocation_id)
            worker = self._running.get(invocation_id)
        if worker is not None:
            self._signal_cancel(worker)
        return True
