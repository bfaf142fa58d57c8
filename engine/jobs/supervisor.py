"""The in-process supervisor: runs each dispatched job in a fresh, isolated worker process.

- ``submit`` is the single hand-off: a duplicate invocation id is an idempotent OK; a full queue or
  an isolation preflight that failed is a clean rejection that proves "never enqueued".
- One long-lived spawner thread starts workers (PDEATHSIG follows the spawning thread), moves each
  into its own cgroup, reads the membership back and only then sends the dispatch (the release of
  the worker's fork barrier). Any failure before release kills the child: proof NEVER_LAUNCHED.
- One monitor thread per worker reads its frames (caps checked before allocation), enforces the
  wall-clock deadline with SIGTERM → grace → SIGKILL, reaps the exact child and checks its cgroup is
  empty before reporting CHILD_REAPED.
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
from typing import Any, Protocol

from engine.config import Config
from engine.errors import exception_text
from engine.jobs.isolation import Isolation, Limits, WorkerCgroup
from engine.jobs.protocol import HANDSHAKE, PROGRESS, RESULT, Dispatch, FrameBuffer, ProtocolError, WorkerResult
from engine.jobs.states import ResultCode, TerminationProof

logger = logging.getLogger(__name__)
MIN_BUDGET_SECONDS = 5.0
HANDSHAKE_TIMEOUT_SECONDS = 60.0
CGROUP_PREFIX = "w-"


class NotEnqueued(Exception):
    """A clean rejection: the submission provably never reached a worker."""


class _CancelledBeforeRelease(Exception):
    """CANCEL arrived while the worker waited at its fork barrier: it is killed, never released."""


class SupervisorEvents(Protocol):
    def on_spawned(self, job_id: int, invocation_id: str, pid: int, cgroup: str) -> None: ...
    def on_progress(self, job_id: int, invocation_id: str, text: str) -> None: ...
    def on_result(self, job_id: int, invocation_id: str, result: WorkerResult) -> None: ...
    def on_exit(self, job_id: int, invocation_id: str, proof: TerminationProof | None, detail: str) -> None: ...


@dataclass
class _Running:
    dispatch: Dispatch
    process: subprocess.Popen[bytes]
    cgroup: WorkerCgroup | None
    kill_at: float
    cancel_requested: bool = False
    monitor: threading.Thread | None = None


@dataclass
class _Submission:
    dispatch: Dispatch
    deadline_ms: int
    enqueued_at: float = field(default_factory=time.monotonic)


def cgroup_name(job_id: int, invocation_id: str) -> str:
    return f"{CGROUP_PREFIX}{job_id}-{invocation_id[:8]}"


class Supervisor:
    def __init__(self, config: Config, events: SupervisorEvents, epoch: str, log_dir: Path,
                 clock: Callable[[], float] = time.time):
        self._config = config
        self._events = events
        self.epoch = epoch
        self._log_dir = log_dir
        self._clock = clock
        self.isolation = Isolation(str(config.get("lance_index_worker_isolation")))
        self._queue: queue.Queue[_Submission | None] = queue.Queue()
        self._known: set[str] = set()
        self._cancelled: set[str] = set()
        self._done: set[str] = set()
        self._running: dict[str, _Running] = {}
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._spawner = threading.Thread(target=self._spawn_loop, name="lance-worker-spawner", daemon=True)

    # -- lifecycle --------------------------------------------------------------------------------------
    def start(self) -> None:
        self.isolation.preflight()
        logger.info("index worker isolation: %s (%s)", self.isolation.kind, self.isolation.detail)
        self._log_dir.mkdir(parents=True, exist_ok=True)
        self._spawner.start()

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
        for worker in running:  # let each monitor reap its child, empty its cgroup and record the proof
            if worker.monitor is not None:
                worker.monitor.join(timeout=max(deadline - time.monotonic(), 0))

    @property
    def accepting(self) -> bool:
        return self.isolation.kind != "none"

    def status(self) -> dict[str, Any]:
        with self._lock:
            inflight = len(self._running)
        return {"isolation": self.isolation.kind, "detail": self.isolation.detail, "queue_depth": self._queue.qsize(),
                "inflight": inflight, "epoch": self.epoch}

    # -- submit / cancel -------------------------------------------------------------------------------
    def submit(self, dispatch: Dispatch, deadline_ms: int) -> None:
        with self._lock:
            if dispatch.invocation_id in self._known:
                return  # idempotent duplicate
            if not self.accepting:
                raise NotEnqueued(f"index worker isolation unavailable ({self.isolation.detail})")
            if self._stopping.is_set():
                raise NotEnqueued("supervisor is stopping")
            if self._queue.qsize() >= int(self._config.get("lance_index_worker_queue_capacity")):
                raise NotEnqueued("supervisor queue is full")
            try:
                dispatch.frame()  # caps are checked when enqueueing too
            except ProtocolError as exc:
                raise NotEnqueued(f"dispatch refused before enqueueing: {exc}") from None
            self._known.add(dispatch.invocation_id)
            self._queue.put(_Submission(dispatch, deadline_ms))

    def cancel(self, invocation_id: str) -> bool:
        """Ask for an abort. A submission not yet released to its worker is never launched; a
        released worker aborts from its progress callback (SIGUSR1). False when this supervisor
        does not hold the invocation (unknown, or its worker already ended)."""
        with self._lock:
            if invocation_id not in self._known or invocation_id in self._done:
                return False
            self._cancelled.add(invocation_id)
            worker = self._running.get(invocation_id)
        if worker is not None:
            self._signal_cancel(worker)
        return True

    def _cancel_requested(self, invocation_id: str) -> bool:
        with self._lock:
            return invocation_id in self._cancelled

    @staticmethod
    def _signal_cancel(worker: _Running) -> None:
        worker.cancel_requested = True
        try:
            worker.process.send_signal(signal.SIGUSR1)
        except ProcessLookupError:
            pass

    # -- spawning ---------------------------------------------------------------------------------------
    def _budget(self, submission: _Submission) -> float:
        cfg = self._config
        remaining = submission.deadline_ms / 1000 - self._clock()
        return min(float(cfg.get("lance_index_worker_wallclock_limit_seconds")),
                   remaining - float(cfg.get("lance_index_worker_report_margin_seconds"))
                   - float(cfg.get("lance_index_worker_termination_grace_seconds")))

    def _spawn_loop(self) -> None:
        while not self._stopping.is_set():
            submission = self._queue.get()
            if submission is None:
                return
            try:
                self._spawn(submission)
            except Exception:  # noqa: BLE001 - one bad spawn must not stop the spawner
                logger.exception("spawning worker for job %s failed", submission.dispatch.job_id)

    def _never_launched(self, d: Dispatch, why: str,
                        code: ResultCode = ResultCode.PRE_INVOCATION_RESOURCE_REJECTED) -> None:
        with self._lock:
            self._done.add(d.invocation_id)
        self._events.on_result(d.job_id, d.invocation_id, WorkerResult(code, why, False))
        self._events.on_exit(d.job_id, d.invocation_id, TerminationProof.NEVER_LAUNCHED, why)

    def _spawn(self, submission: _Submission) -> None:
        d = submission.dispatch
        if self._cancel_requested(d.invocation_id):
            self._never_launched(d, "cancelled before the worker was launched", ResultCode.CANCELLED_BEFORE_COMMIT)
            return
        budget = self._budget(submission)
        if budget <= MIN_BUDGET_SECONDS:
            self._never_launched(d, f"not enough time left before the job deadline ({budget:.0f}s)")
            return
        d.wall_clock_seconds = budget
        limits = Limits(int(self._config.get("lance_index_worker_memory_limit_bytes")),
                        int(self._config.get("lance_index_worker_pids_max")), budget)
        group = None
        if self.isolation.kind.startswith("cgroup"):
            try:
                group = self.isolation.create(cgroup_name(d.job_id, d.invocation_id), limits)
            except (OSError, RuntimeError) as exc:
                self._never_launched(d, f"worker cgroup could not be created: {type(exc).__name__}")
                return
        env = {**os.environ, "DRYDOCK_WORKER_PARENT": str(os.getpid()),
               "RAYON_NUM_THREADS": str(self._config.get("lance_index_worker_rayon_threads")),
               "LANCE_IO_THREADS": str(self._config.get("lance_index_worker_io_threads")),
               "MALLOC_ARENA_MAX": "2", "PYTHONUNBUFFERED": "1",
               "DRYDOCK_WORKER_WALL_CLOCK_SECONDS": str(budget)}
        env.update(_fault_env())
        try:
            with open(self._log_dir / f"job-{d.job_id}-{d.invocation_id[:8]}.log", "ab") as log:
                process = subprocess.Popen([sys.executable, "-m", "engine.jobs.worker"], stdin=subprocess.PIPE,
                                           stdout=subprocess.PIPE, stderr=log, env=env, close_fds=True)
        except (OSError, ValueError, subprocess.SubprocessError) as exc:  # no child exists (Popen reaps it)
            if group is not None:
                self.isolation.remove(group)
            self._never_launched(d, f"worker could not be started: {type(exc).__name__}")
            return
        worker = _Running(d, process, group, kill_at=time.monotonic() + budget)
        try:
            self._barrier(worker)
        except Exception as exc:  # noqa: BLE001 - anything before release: kill, prove, reject
            self._kill(worker, signal.SIGKILL)
            process.wait()
            if group is not None:
                self.isolation.kill_all(group)
                self.isolation.remove(group)
            if isinstance(exc, _CancelledBeforeRelease):
                self._never_launched(d, "cancelled before the worker was released", ResultCode.CANCELLED_BEFORE_COMMIT)
            else:
                self._never_launched(d, f"worker failed before release: {exception_text(exc)}")
            return
        with self._lock:
            self._running[d.invocation_id] = worker
            cancelled = d.invocation_id in self._cancelled
        if cancelled:  # CANCEL arrived between the release and this registration
            self._signal_cancel(worker)
        worker.monitor = threading.Thread(target=self._monitor, args=(worker,), daemon=True,
                                          name=f"lance-worker-{d.job_id}")
        worker.monitor.start()

    def _barrier(self, worker: _Running) -> None:
        d, process = worker.dispatch, worker.process
        assert process.stdout is not None and process.stdin is not None
        buffer = FrameBuffer((HANDSHAKE,))
        deadline = time.monotonic() + HANDSHAKE_TIMEOUT_SECONDS
        frames: list[tuple[bytes, dict[str, Any]]] = []
        with selectors.DefaultSelector() as sel:
            sel.register(process.stdout, selectors.EVENT_READ)
            while not frames:
                if time.monotonic() > deadline:
                    raise TimeoutError("no handshake from worker")
                if not sel.select(timeout=0.5):
                    continue
                data = os.read(process.stdout.fileno(), 4096)
                if not data:
                    raise EOFError("worker exited before its handshake")
                frames = buffer.feed(data)
        if frames[0][1].get("pid") != process.pid or buffer.pending:
            raise ProtocolError("handshake does not name the child we started")
        if worker.cgroup is not None:
            self.isolation.move(worker.cgroup, process.pid)
        self._events.on_spawned(d.job_id, d.invocation_id, process.pid, worker.cgroup.name if worker.cgroup else "")
        frame = d.frame()
        if self._cancel_requested(d.invocation_id):
            raise _CancelledBeforeRelease()
        process.stdin.write(frame)  # the release
        process.stdin.close()

    # -- monitoring -------------------------------------------------------------------------------------
    def _monitor(self, worker: _Running) -> None:
        d, process = worker.dispatch, worker.process
        assert process.stdout is not None
        buffer = FrameBuffer((PROGRESS, RESULT))
        got_result = False
        detail = ""
        grace = float(self._config.get("lance_index_worker_termination_grace_seconds"))
        terminated_at: float | None = None
        with selectors.DefaultSelector() as sel:
            sel.register(process.stdout, selectors.EVENT_READ)
            while True:
                now = time.monotonic()
                if now >= worker.kill_at and terminated_at is None:
                    detail = "wall-clock limit reached: SIGTERM"
                    self._kill(worker, signal.SIGTERM)
                    terminated_at = now
                elif terminated_at is not None and now >= terminated_at + grace:
                    detail = "wall-clock limit reached: SIGKILL after grace"
                    self._kill(worker, signal.SIGKILL)
                    terminated_at = float("inf")
                if not sel.select(timeout=0.2):
                    continue
                data = os.read(process.stdout.fileno(), 65536)
                if not data:
                    break
                try:
                    frames = buffer.feed(data)
                except ProtocolError as exc:
                    detail = f"protocol violation: {exc}"
                    self._kill(worker, signal.SIGKILL)
                    break
                for kind, body in frames:
                    if kind == PROGRESS:
                        self._events.on_progress(d.job_id, d.invocation_id, _progress_text(body))
                    elif kind == RESULT and not got_result:
                        result = WorkerResult.parse(body)
                        got_result = True
                        if result is None:
                            detail = "result with an unknown code ignored"
                            continue
                        self._events.on_result(d.job_id, d.invocation_id, result)
                    elif kind == RESULT:
                        detail = "second result frame ignored"
        self._finish(worker, detail)

    def _finish(self, worker: _Running, detail: str) -> None:
        d, process = worker.dispatch, worker.process
        try:
            code = process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._kill(worker, signal.SIGKILL)
            code = process.wait()
        proof: TerminationProof | None = TerminationProof.CHILD_REAPED
        if worker.cgroup is not None:
            self.isolation.kill_all(worker.cgroup)  # stragglers the child left behind
            deadline = time.monotonic() + 5
            while not worker.cgroup.empty() and time.monotonic() < deadline:
                time.sleep(0.05)
            if not worker.cgroup.empty():
                proof = None  # fail closed: something may still run
            else:
                self.isolation.remove(worker.cgroup)
        exit_text = f"exit code {code}" if code >= 0 else f"killed by signal {-code}"
        logger.info("job %s: worker pid %s ended (%s%s); proof %s", d.job_id, process.pid, exit_text,
                    f"; {detail}" if detail else "", proof.value if proof else "none (cgroup not empty)")
        with self._lock:
            self._running.pop(d.invocation_id, None)
            self._done.add(d.invocation_id)
        self._events.on_exit(d.job_id, d.invocation_id, proof, f"{exit_text}; {detail}".strip("; "))

    def _kill(self, worker: _Running, sig: int) -> None:
        try:
            worker.process.send_signal(sig)
        except ProcessLookupError:
            pass
        if sig == signal.SIGKILL and worker.cgroup is not None:
            self.isolation.kill_all(worker.cgroup)


def _progress_text(body: dict[str, Any]) -> str:
    stage, completed, total = body.get("stage", ""), body.get("completed"), body.get("total")
    if isinstance(completed, int) and isinstance(total, int) and total > 0:
        return f"{stage} {completed}/{total} ({100 * completed // total}%)"
    return str(stage)


def _fault_env() -> dict[str, str]:
    """Test-only fault injection for workers (see engine/faults.py); empty unless enabled."""
    return {k: v for k, v in os.environ.items() if k.startswith("DRYDOCK_FAULT_WORKER_")}
