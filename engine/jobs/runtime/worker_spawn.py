"""The local supervisor's spawner thread: the time budget, the worker's cgroup, the process
started in its own session with an allow-listed environment (engine/jobs/runtime/worker_env.py),
its handshake, the move into its cgroup (without cgroups: a check that it leads its session), the
worker record, and only then the dispatch (the release of the worker's fork barrier). Any failure
before release kills the child: proof NEVER_LAUNCHED.
"""

from __future__ import annotations

import logging
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from typing import Any

from drydock.engine.errors import exception_text
from drydock.engine.jobs.control.backend import Dispatch, ProtocolError, WorkerResult, log_name
from drydock.engine.jobs.control.states import ResultCode, TerminationProof
from drydock.engine.jobs.runtime.isolation import Limits, WorkerCgroup
from drydock.engine.jobs.runtime.protocol import HANDSHAKE, FrameBuffer, dispatch_frame
from drydock.engine.jobs.runtime.stderr_log import BoundedLog
from drydock.engine.jobs.runtime.supervisor_state import (
    RunningWorker,
    Submission,
    cgroup_name,
    poll,
    register,
    start_ticks,
)
from drydock.engine.jobs.runtime.worker_env import worker_environment
from drydock.engine.jobs.runtime.worker_monitor import WorkerMonitor
from drydock.engine.support import cpu_sets
from drydock.engine.support.config_keys import Key

logger = logging.getLogger(__name__)
MIN_BUDGET_SECONDS = 5.0
HANDSHAKE_TIMEOUT_SECONDS = 60.0


class _CancelledBeforeRelease(Exception):
    """CANCEL arrived while the worker waited at its fork barrier: it is killed, never released."""


class WorkerSpawner(WorkerMonitor):
    def _budget(self, deadline_ms: int) -> float:
        cfg = self._config
        remaining = deadline_ms / 1000 - self._clock()
        return min(
            float(cfg.get(Key.LANCE_INDEX_WORKER_WALLCLOCK_LIMIT_SECONDS)),
            remaining
            - float(cfg.get(Key.LANCE_INDEX_WORKER_REPORT_MARGIN_SECONDS))
            - float(cfg.get(Key.LANCE_INDEX_WORKER_TERMINATION_GRACE_SECONDS)),
        )

    def _spawn_loop(self) -> None:
        while not self._stopping.is_set():
            submission = self._queue.get()
            if submission is None:
                return
            try:
                self._spawn(submission)
            except Exception:  # noqa: BLE001 - one bad spawn must not stop the spawner
                logger.exception("spawning worker for job %s failed", submission.dispatch.job_id)

    def _never_launched(
        self, d: Dispatch, why: str, code: ResultCode = ResultCode.PRE_INVOCATION_RESOURCE_REJECTED
    ) -> None:
        self._retire(d.invocation_id)
        logger.warning("job %s: worker never launched: %s", d.job_id, why)
        self._events.on_result(d.job_id, d.invocation_id, WorkerResult(code, why, False))
        self._events.on_exit(d.job_id, d.invocation_id, TerminationProof.NEVER_LAUNCHED, why)

    def _spawn(self, submission: Submission) -> None:
        d = submission.dispatch
        if self._cancel_requested(d.invocation_id):
            self._never_launched(
                d, "cancelled before the worker was launched", ResultCode.CANCELLED_BEFORE_COMMIT
            )
            return
        budget = self._budget(submission.deadline_ms)
        if budget <= MIN_BUDGET_SECONDS:  # time passed in the queue
            self._never_launched(d, short_budget(budget))
            return
        d.wall_clock_seconds = budget
        limits = Limits(
            int(self._config.get(Key.LANCE_INDEX_WORKER_MEMORY_LIMIT_BYTES)),
            int(self._config.get(Key.LANCE_INDEX_WORKER_PIDS_MAX)),
            budget,
        )
        group = None
        if self.isolation.kind.startswith("cgroup"):
            try:
                group = self.isolation.create(cgroup_name(d.job_id, d.invocation_id), limits)
            except (OSError, RuntimeError) as exc:
                self._never_launched(d, f"worker cgroup could not be created: {type(exc).__name__}")
                return
        worker = self._start_process(d, group, limits)
        if worker is None:
            return
        try:
            self._barrier(worker)
        except Exception as exc:  # noqa: BLE001 - anything before release: kill, prove, reject
            self._abort_before_release(worker, exc)
            return
        with self._lock:
            self._running[d.invocation_id] = worker
            cancelled = d.invocation_id in self._cancelled
        if cancelled:  # CANCEL arrived between the release and this registration
            self._signal_cancel(worker)
        worker.monitor = threading.Thread(
            target=self._monitor, args=(worker,), daemon=True, name=f"lance-worker-{d.job_id}"
        )
        worker.monitor.start()

    def _start_process(
        self, d: Dispatch, group: WorkerCgroup | None, limits: Limits
    ) -> RunningWorker | None:
        log: BoundedLog | None = None
        try:
            log = BoundedLog(self.log_dir / log_name(d.job_id, d.invocation_id))
            process = subprocess.Popen(
                [sys.executable, "-m", "drydock.engine.jobs.worker"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=self._environment(limits.wall_clock_seconds),
                close_fds=True,
                # its own session (pgid = sid = its pid): without cgroups, what it starts is
                # found and killed by its group or session (engine/jobs/runtime/isolation.py)
                start_new_session=True,
            )
        except (
            OSError,
            ValueError,
            subprocess.SubprocessError,
        ) as exc:  # no child exists (Popen reaps it)
            if log is not None:
                log.close()
            if group is not None:
                self.isolation.remove(group)
            self._never_launched(d, f"worker could not be started: {type(exc).__name__}")
            return None
        return RunningWorker(
            d, process, group, limits, log, kill_at=time.monotonic() + limits.wall_clock_seconds
        )

    def _environment(self, budget: float) -> dict[str, str]:
        return worker_environment(
            os.environ,
            {
                "DRYDOCK_WORKER_PARENT": str(os.getpid()),
                "DRYDOCK_WORKER_WALL_CLOCK_SECONDS": str(budget),
                "RAYON_NUM_THREADS": str(self._config.get(Key.LANCE_INDEX_WORKER_RAYON_THREADS)),
                "LANCE_IO_THREADS": str(self._config.get(Key.LANCE_INDEX_WORKER_IO_THREADS)),
                "MALLOC_ARENA_MAX": "2",
                "PYTHONUNBUFFERED": "1",
                # this thread may be on the Python threads' one CPU (server/thread_placement.py)
                cpu_sets.ENV_WORKER_CPUS: cpu_sets.encode(cpu_sets.PROCESS_CPUS),
            },
        )

    def _abort_before_release(self, worker: RunningWorker, exc: Exception) -> None:
        d = worker.dispatch
        self._kill(worker, signal.SIGKILL)
        worker.process.wait()
        self._drain_stderr(worker)
        if worker.cgroup is not None:
            self.isolation.kill_all(worker.cgroup)
            if not self.isolation.remove(worker.cgroup):
                logger.warning("job %s: cgroup %s left behind", d.job_id, worker.cgroup.name)
        if isinstance(exc, _CancelledBeforeRelease):
            self._never_launched(
                d, "cancelled before the worker was released", ResultCode.CANCELLED_BEFORE_COMMIT
            )
        else:
            self._never_launched(d, f"worker failed before release: {exception_text(exc)}")

    def _barrier(self, worker: RunningWorker) -> None:
        d, process = worker.dispatch, worker.process
        assert process.stdin is not None
        buffer = FrameBuffer((HANDSHAKE,))
        deadline = time.monotonic() + HANDSHAKE_TIMEOUT_SECONDS
        frames: list[tuple[bytes, dict[str, Any]]] = []
        with selectors.DefaultSelector() as sel:
            register(sel, worker)
            while not frames:
                if time.monotonic() > deadline:
                    raise TimeoutError("no handshake from worker")
                for data in poll(sel, worker, 0.5):
                    if not data:
                        raise EOFError("worker exited before its handshake")
                    frames += buffer.feed(data)
        if len(frames) != 1 or frames[0][1].get("pid") != process.pid or buffer.pending:
            raise ProtocolError("handshake does not name the child we started")
        if worker.cgroup is not None:
            self.isolation.move(worker.cgroup, process.pid)
        elif os.getsid(process.pid) != process.pid:  # the rlimit-mode proof counts on it
            raise RuntimeError("worker does not lead its own session")
        self._events.on_spawned(
            d.job_id,
            d.invocation_id,
            process.pid,
            start_ticks(process.pid),
            worker.cgroup.name if worker.cgroup else "",
        )
        frame = dispatch_frame(d)
        if self._cancel_requested(d.invocation_id):
            raise _CancelledBeforeRelease()
        process.stdin.write(frame)  # the release
        process.stdin.close()


def short_budget(budget: float) -> str:
    return f"not enough time left before the job deadline ({budget:.0f}s)"
