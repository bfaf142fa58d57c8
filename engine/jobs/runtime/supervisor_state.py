"""The local supervisor's bookkeeping (engine/jobs/runtime/supervisor.py): the invocations it holds
(queued, running, cancelled, finished, held), each running worker's record and what is said of its
end, and reading a worker's pipes. One lock guards the invocation sets.
"""

from __future__ import annotations

import os
import queue
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from drydock.engine.jobs.control.backend import BackendEvents, Dispatch
from drydock.engine.jobs.runtime.isolation import Isolation, Limits, WorkerCgroup
from drydock.engine.jobs.runtime.stderr_log import BoundedLog
from drydock.engine.store.config import Config
from drydock.engine.support.config_keys import Key
from drydock.engine.support.lru import Lru

FINISHED_MEMORY = 4096  # finished invocation ids kept for idempotent duplicates and CANCEL answers
MAX_NOTES = 8
CGROUP_PREFIX = "w-"


@dataclass
class RunningWorker:
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
    withheld: str = ""  # why it is not proven gone yet (held), "" once proven or not yet asked


@dataclass
class Submission:
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


class SupervisorState:
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
        self._queue: queue.Queue[Submission | None] = queue.Queue()
        self._active: set[str] = set()  # queued or running invocations
        self._cancelled: set[str] = set()  # ⊆ _active
        self._finished: Lru[str, None] = Lru(FINISHED_MEMORY)  # the last invocations that ended
        self._running: dict[str, RunningWorker] = {}
        self._held: dict[
            str, RunningWorker
        ] = {}  # reaped, but not proven gone: strays remain or its cgroup is still there
        self._lock = threading.Lock()
        self._stopping = threading.Event()

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
    def _signal_cancel(worker: RunningWorker) -> None:
        worker.cancel_requested = True
        try:
            worker.process.send_signal(signal.SIGUSR1)
        except ProcessLookupError:
            pass

    def _kill(self, worker: RunningWorker, sig: int) -> None:
        try:
            worker.process.send_signal(sig)
        except ProcessLookupError:
            pass
        if sig == signal.SIGKILL and worker.cgroup is not None:
            self.isolation.kill_all(worker.cgroup)
        elif sig == signal.SIGKILL:  # rlimit mode: the worker leads its own session
            self.isolation.kill_session(worker.process.pid)


def register(sel: selectors.BaseSelector, worker: RunningWorker) -> None:
    sel.register(worker.process.stdout, selectors.EVENT_READ, "stdout")  # type: ignore[arg-type]
    sel.register(worker.process.stderr, selectors.EVENT_READ, "stderr")  # type: ignore[arg-type]


def poll(sel: selectors.BaseSelector, worker: RunningWorker, timeout: float) -> list[bytes]:
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


def set_reason(worker: RunningWorker, reason: str) -> None:
    worker.kill_reason = worker.kill_reason or reason


def note(worker: RunningWorker, text: str) -> None:
    if text not in worker.notes and len(worker.notes) < MAX_NOTES:
        worker.notes.append(text)
