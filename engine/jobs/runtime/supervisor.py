"""The in-process supervisor: runs each dispatched job in a fresh, isolated worker process.

- ``submit`` is the single hand-off: a duplicate invocation id is an idempotent OK; a full queue, an
  isolation preflight that failed, a dispatch over its caps or a deadline that leaves too little
  time is a clean rejection that proves "never enqueued" (the budget is checked again at dequeue).
- One long-lived spawner thread starts workers (PDEATHSIG follows the spawning thread) with an
  allow-listed environment (engine/jobs/runtime/worker_env.py), moves each into its own cgroup,
  reads the
  membership back and only then sends the dispatch (the release of the worker's fork barrier).
  Any failure before release kills the child: proof NEVER_LAUNCHED.
- One monitor thread per worker reads its frames (caps and nesting depth checked before anything
  is allocated or parsed) and its stderr (into a bounded file), enforces the wall-clock deadline
  with SIGTERM → grace → SIGKILL, reaps the exact child and checks its cgroup is empty before
  reporting CHILD_REAPED. Whatever goes wrong in the monitor, the worker is killed and its exit is
  still reported, with the reason.
- Every exit is reported with its cause (signal, the cgroup limit the kernel enforced, the wall
  clock, a protocol violation) and logged at WARNING unless it was a clean exit.
- A worker whose cgroup stays non-empty after the reap (stray processes) gets no proof yet: the
  reaper thread re-checks such held workers every second, kills what remains and records
  CHILD_REAPED once the cgroup is empty, so held slots do not stop dispatch until a restart.
"""

from __future__ import annotations

import logging
import os
import queue
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from drydock.engine.support import cpu_sets
from drydock.engine.support.lru import Lru
from drydock.engine.store.config import Config
from drydock.engine.support.config_keys import Key
from drydock.engine.errors import exception_text
from drydock.engine.jobs.control.backend import (
    LOCAL_BACKEND,
    RAY_BACKEND,
    Backend,
    BackendEvents,
    Dispatch,
    NotEnqueued,
    ProtocolError,
    WorkerResult,
    log_name,
)
from drydock.engine.jobs.control.records import JobRecord
from drydock.engine.jobs.runtime.isolation import Isolation, Limits, WorkerCgroup, cpu_limit_seconds
from drydock.engine.jobs.runtime.protocol import (
    HANDSHAKE,
    PROGRESS,
    RESULT,
    FrameBuffer,
    dispatch_frame,
)
from drydock.engine.jobs.control.states import ResultCode, TerminationProof
from drydock.engine.jobs.runtime.stderr_log import BoundedLog
from drydock.engine.jobs.runtime.worker_env import with_ambient_credentials, worker_environment

logger = logging.getLogger(__name__)
MIN_BUDGET_SECONDS = 5.0
HANDSHAKE_TIMEOUT_SECONDS = 60.0
HELD_RECHECK_SECONDS = 1.0
FINISHED_MEMORY = 4096  # finished invocation ids kept for idempotent duplicates and CANCEL answers
MAX_NOTES = 8
STDERR_DRAIN_SECONDS = 2.0
CGROUP_PREFIX = "w-"


class _CancelledBeforeRelease(Exception):
    """CANCEL arrived while the worker waited at its fork barrier: it is killed, never released."""


@dataclass
class _Running:
    dispatch: Dispatch
    process: subprocess.Popen[bytes]
    cgroup: WorkerCgroup | None
    limits: Limits
    stderr: BoundedLog
    kill_at: float
    cancel_requested: bool = False
    monitor: threading.Thread | None = None
    kill_reason: str = ""  # why the supervisor ended it; the first reason wins
    notes: list[str] = field(default_factory=list)  # what else the monitor saw (at most MAX_NOTES)
    ending: str = ""  # how it ended, once reaped


@dataclass
class _Submission:
    dispatch: Dispatch
    deadline_ms: int
    enqueued_at: float = field(default_factory=time.monotonic)


def cgroup_name(job_id: int, invocation_id: str) -> str:
    return f"{CGROUP_PREFIX}{job_id}-{invocation_id[:8]}"


def start_ticks(pid: int) -> int | None:
    """The process start time (clock ticks since boot): tells a live worker from a reused pid."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            text = stat.read()
    except OSError:
        return None
    return int(text.rsplit(")", 1)[1].split()[19])


class Supervisor(Backend):
    def __init__(
        self,
        config: Config,
        events: BackendEvents,
        epoch: str,
        log_dir: Path,
        clock: Callable[[], float] = time.time,
    ):
        self._config = config
        self._events = events
        self.epoch = epoch
        self.log_dir = log_dir
        self._clock = clock
        self.isolation = Isolation(str(config.get(Key.LANCE_INDEX_WORKER_ISOLATION)))
        self._queue: queue.Queue[_Submission | None] = queue.Queue()
        self._active: set[str] = set()  # queued or running invocations
        self._cancelled: set[str] = set()  # ⊆ _active
        self._finished: Lru[str, None] = Lru(FINISHED_MEMORY)  # the last invocations that ended
        self._running: dict[str, _Running] = {}
        self._held: dict[
            str, _Running
        ] = {}  # reaped, but stray processes keep the cgroup non-empty
        self._lock = threading.Lock()
        self._stopping = threading.Event()
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
        process gone (killed now if it still runs; proven on a later ask once it is gone)."""
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
        if start_ticks(pid) != ticks:
            return True  # that process is gone (the pid is free or reused)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            return True
        return False

    # -- submit / cancel
    # -------------------------------------------------------------------------------
    def submit(self, dispatch: Dispatch, deadline_ms: int) -> None:
        with self._lock:
            if dispatch.invocation_id in self._active or dispatch.invocation_id in self._finished:
                return  # idempotent duplicate
            self._check_submission(dispatch, deadline_ms)
            self._active.add(dispatch.invocation_id)
            self._queue.put(_Submission(dispatch, deadline_ms))

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
            raise NotEnqueued(_short_budget(budget))
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

    def _cancel_requested(self, invocation_id: str) -> bool:
        with self._lock:
            return invocation_id in self._cancelled

    def _retire(self, invocation_id: str) -> None:
        """The invocation is over: forget it, keeping a bounded memory of finished ids."""
        with self._lock:
            self._active.discard(invocation_id)
            self._cancelled.discard(invocation_id)
            self._running.pop(invocation_id, None)
            self._finished.put(invocation_id, None)

    @staticmethod
    def _signal_cancel(worker: _Running) -> None:
        worker.cancel_requested = True
        try:
            worker.process.send_signal(signal.SIGUSR1)
        except ProcessLookupError:
            pass

    # -- spawning
    # ---------------------------------------------------------------------------------------
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

    def _spawn(self, submission: _Submission) -> None:
        d = submission.dispatch
        if self._cancel_requested(d.invocation_id):
            self._never_launched(
                d, "cancelled before the worker was launched", ResultCode.CANCELLED_BEFORE_COMMIT
            )
            return
        budget = self._budget(submission.deadline_ms)
        if budget <= MIN_BUDGET_SECONDS:  # time passed in the queue
            self._never_launched(d, _short_budget(budget))
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
    ) -> _Running | None:
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
        return _Running(
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

    def _abort_before_release(self, worker: _Running, exc: Exception) -> None:
        d = worker.dispatch
        self._kill(worker, signal.SIGKILL)
        worker.process.wait()
        self._drain_stderr(worker)
        if worker.cgroup is not None:
            self.isolation.kill_all(worker.cgroup)
            self.isolation.remove(worker.cgroup)
        if isinstance(exc, _CancelledBeforeRelease):
            self._never_launched(
                d, "cancelled before the worker was released", ResultCode.CANCELLED_BEFORE_COMMIT
            )
        else:
            self._never_launched(d, f"worker failed before release: {exception_text(exc)}")

    def _barrier(self, worker: _Running) -> None:
        d, process = worker.dispatch, worker.process
        assert process.stdin is not None
        buffer = FrameBuffer((HANDSHAKE,))
        deadline = time.monotonic() + HANDSHAKE_TIMEOUT_SECONDS
        frames: list[tuple[bytes, dict[str, Any]]] = []
        with selectors.DefaultSelector() as sel:
            _register(sel, worker)
            while not frames:
                if time.monotonic() > deadline:
                    raise TimeoutError("no handshake from worker")
                for data in _poll(sel, worker, 0.5):
                    if not data:
                        raise EOFError("worker exited before its handshake")
                    frames += buffer.feed(data)
        if len(frames) != 1 or frames[0][1].get("pid") != process.pid or buffer.pending:
            raise ProtocolError("handshake does not name the child we started")
        if worker.cgroup is not None:
            self.isolation.move(worker.cgroup, process.pid)
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

    # -- monitoring
    # -------------------------------------------------------------------------------------
    def _monitor(self, worker: _Running) -> None:
        """Survives anything: an unexpected error ends the worker, and its exit is still
        reported."""
        try:
            self._watch(worker)
        # e.g. a failing event handler; never leave a worker unwatched
        except Exception as exc:  # noqa: BLE001
            logger.exception(
                "job %s: monitoring worker pid %s failed",
                worker.dispatch.job_id,
                worker.process.pid,
            )
            self._stop_worker(worker, f"supervisor monitor failed: {exception_text(exc)}")
        try:
            self._finish(worker)
        # report without a proof; the reaper re-checks later
        except Exception as exc:  # noqa: BLE001
            logger.exception(
                "job %s: finishing worker pid %s failed", worker.dispatch.job_id, worker.process.pid
            )
            self._finish_failed(worker, exc)

    def _watch(self, worker: _Running) -> None:
        """Frames and stderr until the worker closes its stdout, the wall clock enforced
        meanwhile."""
        buffer = FrameBuffer((PROGRESS, RESULT))
        got_result = False
        grace = float(self._config.get(Key.LANCE_INDEX_WORKER_TERMINATION_GRACE_SECONDS))
        terminated_at: float | None = None
        with selectors.DefaultSelector() as sel:
            _register(sel, worker)
            while True:
                terminated_at = self._enforce_wall_clock(worker, terminated_at, grace)
                for data in _poll(sel, worker, 0.2):
                    if not data:
                        return
                    try:
                        frames = buffer.feed(data)
                    except ProtocolError as exc:
                        self._stop_worker(worker, f"protocol violation: {exc}")
                        return
                    got_result = self._handle(worker, frames, got_result)

    def _enforce_wall_clock(
        self, worker: _Running, terminated_at: float | None, grace: float
    ) -> float | None:
        now = time.monotonic()
        if terminated_at is None and now >= worker.kill_at:
            _set_reason(
                worker, f"wall-clock limit of {worker.limits.wall_clock_seconds:.0f} s reached"
            )
            self._kill(worker, signal.SIGTERM)
            return now
        if terminated_at is not None and now >= terminated_at + grace:
            _note(worker, f"SIGTERM ignored for the {grace:g} s grace")
            self._kill(worker, signal.SIGKILL)
            return float("inf")
        return terminated_at

    def _handle(
        self, worker: _Running, frames: list[tuple[bytes, dict[str, Any]]], got_result: bool
    ) -> bool:
        d = worker.dispatch
        for kind, body in frames:
            if kind == PROGRESS:
                self._events.on_progress(d.job_id, d.invocation_id, _progress_text(body))
            elif kind == RESULT and not got_result:
                got_result = True
                result = WorkerResult.parse(body)
                if result is None:
                    _note(worker, "result with an unknown code ignored")
                    continue
                self._events.on_result(d.job_id, d.invocation_id, result)
            elif kind == RESULT:
                _note(worker, "second result frame ignored")
        return got_result

    def _stop_worker(self, worker: _Running, reason: str) -> None:
        _set_reason(worker, reason)
        self._kill(worker, signal.SIGKILL)

    # -- the end of a worker
    # ------------------------------------------------------------------------------
    def _finish(self, worker: _Running) -> None:
        code = self._reap(worker)
        self._drain_stderr(worker)
        worker.ending = self._describe(
            worker, code
        )  # reads the cgroup's counters: before it is removed
        proof = None
        if worker.cgroup is None or self._cgroup_emptied(worker.cgroup, wait=5.0):
            proof = TerminationProof.CHILD_REAPED
        self._report(worker, proof)

    def _reap(self, worker: _Running) -> int:
        try:
            return worker.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            _note(worker, "still running 30 s after closing its output: SIGKILL")
            self._kill(worker, signal.SIGKILL)
            return worker.process.wait()

    def _describe(self, worker: _Running, code: int) -> str:
        """How the worker ended and why, e.g. ``killed by SIGKILL: cgroup memory limit 40 MiB
        reached``."""
        head = f"exited with code {code}" if code >= 0 else f"killed by {_signal_name(-code)}"
        causes = [worker.kill_reason] if worker.kill_reason else self._limits_hit(worker, code)
        return "; ".join([head + (f": {', '.join(causes)}" if causes else ""), *worker.notes])

    def _limits_hit(self, worker: _Running, code: int) -> list[str]:
        if code == 0:
            return []
        hits = []
        if worker.cgroup is not None:
            try:
                hits = self.isolation.limits_hit(worker.cgroup, worker.limits)
            except OSError as exc:
                hits = [f"cgroup counters unreadable ({type(exc).__name__})"]
        if code == -signal.SIGXCPU:
            hits.append(
                f"CPU time limit of {cpu_limit_seconds(worker.limits.wall_clock_seconds)} s reached"
            )
        if code == -signal.SIGABRT and not hits:
            hits.append("native abort (a failed allocation under the address-space fuse aborts)")
        return hits

    def _cgroup_emptied(self, group: WorkerCgroup, wait: float) -> bool:
        """Kill what remains in ``group``; True, with the cgroup removed, once it is empty."""
        self.isolation.kill_all(group)
        deadline = time.monotonic() + wait
        while not _empty(group) and time.monotonic() < deadline:
            time.sleep(0.05)
        if not _empty(group):
            return False  # fail closed: something may still run
        self.isolation.remove(group)
        return True

    def _report(self, worker: _Running, proof: TerminationProof | None) -> None:
        d = worker.dispatch
        if proof is None:
            with self._lock:
                self._held[d.invocation_id] = worker
        self._retire(d.invocation_id)
        clean = worker.ending == "exited with code 0"
        (logger.info if clean and proof else logger.warning)(
            "job %s: worker pid %s %s; proof %s",
            d.job_id,
            worker.process.pid,
            worker.ending,
            proof.value if proof else "withheld: its cgroup is not empty (re-checked until it is)",
        )
        self._emit_exit(d, proof, worker.ending)

    def _finish_failed(self, worker: _Running, exc: Exception) -> None:
        _note(worker, f"supervisor error while finishing: {exception_text(exc)}")
        worker.ending = worker.ending or "; ".join([worker.kill_reason, *worker.notes]).strip("; ")
        with self._lock:
            self._held[worker.dispatch.invocation_id] = worker
        self._retire(worker.dispatch.invocation_id)
        self._emit_exit(worker.dispatch, None, worker.ending)

    def _emit_exit(self, d: Dispatch, proof: TerminationProof | None, detail: str) -> None:
        try:
            self._events.on_exit(d.job_id, d.invocation_id, proof, detail)
        except Exception:  # noqa: BLE001 - the supervisor's bookkeeping is already done
            logger.exception("job %s: recording the worker's exit failed", d.job_id)

    def _drain_stderr(self, worker: _Running) -> None:
        """The rest of the worker's stderr (bounded in time: strays may hold the pipe), then
        close."""
        stream = worker.process.stderr
        try:
            if stream is not None and not stream.closed:
                deadline = time.monotonic() + STDERR_DRAIN_SECONDS
                with selectors.DefaultSelector() as sel:
                    sel.register(stream, selectors.EVENT_READ)
                    while time.monotonic() < deadline:
                        if not sel.select(timeout=0.1):
                            continue
                        data = os.read(stream.fileno(), 65536)
                        if not data:
                            break
                        worker.stderr.write(data)
        finally:
            worker.stderr.close()
            for pipe in (worker.process.stdout, worker.process.stderr):
                if pipe is not None:
                    pipe.close()

    # -- held workers
    # ----------------------------------------------------------------------------------
    def _reap_loop(self) -> None:
        while not self._stopping.wait(HELD_RECHECK_SECONDS):
            try:
                self.recheck_held()
            except Exception:  # noqa: BLE001 - the reaper must survive a bad round
                logger.exception("re-checking held index workers failed")

    def recheck_held(self) -> int:
        """Kill what remains of each held worker; record CHILD_REAPED for those now gone."""
        with self._lock:
            held = list(self._held.items())
        proven = 0
        for invocation_id, worker in held:
            if worker.process.poll() is None:
                continue
            if worker.cgroup is not None and not self._cgroup_emptied(worker.cgroup, wait=0.5):
                continue
            with self._lock:
                self._held.pop(invocation_id, None)
            logger.warning(
                "job %s: what remained of worker pid %s is gone now; proof CHILD_REAPED",
                worker.dispatch.job_id,
                worker.process.pid,
            )
            self._emit_exit(
                worker.dispatch,
                TerminationProof.CHILD_REAPED,
                f"{worker.ending}; processes it left in its cgroup ended later",
            )
            proven += 1
        return proven

    def _kill(self, worker: _Running, sig: int) -> None:
        try:
            worker.process.send_signal(sig)
        except ProcessLookupError:
            pass
        if sig == signal.SIGKILL and worker.cgroup is not None:
            self.isolation.kill_all(worker.cgroup)


def _register(sel: selectors.BaseSelector, worker: _Running) -> None:
    sel.register(worker.process.stdout, selectors.EVENT_READ, "stdout")  # type: ignore[arg-type]
    sel.register(worker.process.stderr, selectors.EVENT_READ, "stderr")  # type: ignore[arg-type]


def _poll(sel: selectors.BaseSelector, worker: _Running, timeout: float) -> list[bytes]:
    """Chunks read from the worker's stdout (b"" at its end); stderr goes to its bounded log."""
    chunks = []
    for key, _ in sel.select(timeout=timeout):
        data = os.read(key.fd, 65536)
        if key.data == "stdout":
            chunks.append(data)
        elif data:
            worker.stderr.write(data)
        else:
            sel.unregister(key.fileobj)
    return chunks


def _empty(group: WorkerCgroup) -> bool:
    try:
        return group.empty()
    except OSError:
        return False  # unreadable proves nothing


def _set_reason(worker: _Running, reason: str) -> None:
    worker.kill_reason = worker.kill_reason or reason


def _note(worker: _Running, text: str) -> None:
    if text not in worker.notes and len(worker.notes) < MAX_NOTES:
        worker.notes.append(text)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _short_budget(budget: float) -> str:
    return f"not enough time left before the job deadline ({budget:.0f}s)"


def _progress_text(body: dict[str, Any]) -> str:
    stage, completed, total = body.get("stage", ""), body.get("completed"), body.get("total")
    if isinstance(completed, int) and isinstance(total, int) and total > 0:
        return f"{stage} {completed}/{total} ({100 * completed // total}%)"
    return str(stage)
