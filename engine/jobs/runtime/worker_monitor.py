"""A local worker's monitor thread: reads its frames (caps and nesting depth checked before
anything is allocated or parsed) and its stderr (into a bounded file), enforces the wall-clock
deadline with SIGTERM → grace → SIGKILL and, whatever goes wrong, still ends the worker and reports
its exit (engine/jobs/runtime/worker_reaping.py).
"""

from __future__ import annotations

import logging
import selectors
import signal
import time
from typing import Any

from drydock.engine.errors import exception_text
from drydock.engine.jobs.control.backend import ProtocolError, WorkerResult
from drydock.engine.jobs.runtime.protocol import PROGRESS, RESULT, FrameBuffer
from drydock.engine.jobs.runtime.supervisor_state import (
    RunningWorker,
    note,
    poll,
    register,
    set_reason,
)
from drydock.engine.jobs.runtime.worker_reaping import WorkerReaper
from drydock.engine.support.config_keys import Key

logger = logging.getLogger(__name__)


class WorkerMonitor(WorkerReaper):
    def _monitor(self, worker: RunningWorker) -> None:
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

    def _watch(self, worker: RunningWorker) -> None:
        """Frames and stderr until the worker closes its stdout, the wall clock enforced
        meanwhile."""
        buffer = FrameBuffer((PROGRESS, RESULT))
        got_result = False
        grace = float(self._config.get(Key.LANCE_INDEX_WORKER_TERMINATION_GRACE_SECONDS))
        terminated_at: float | None = None
        with selectors.DefaultSelector() as sel:
            register(sel, worker)
            while True:
                terminated_at = self._enforce_wall_clock(worker, terminated_at, grace)
                for data in poll(sel, worker, 0.2):
                    if not data:
                        return
                    try:
                        frames = buffer.feed(data)
                    except ProtocolError as exc:
                        self._stop_worker(worker, f"protocol violation: {exc}")
                        return
                    got_result = self._handle(worker, frames, got_result)

    def _enforce_wall_clock(
        self, worker: RunningWorker, terminated_at: float | None, grace: float
    ) -> float | None:
        now = time.monotonic()
        if terminated_at is None and now >= worker.kill_at:
            set_reason(
                worker, f"wall-clock limit of {worker.limits.wall_clock_seconds:.0f} s reached"
            )
            self._kill(worker, signal.SIGTERM)
            return now
        if terminated_at is not None and now >= terminated_at + grace:
            note(worker, f"SIGTERM ignored for the {grace:g} s grace")
            self._kill(worker, signal.SIGKILL)
            return float("inf")
        return terminated_at

    def _handle(
        self, worker: RunningWorker, frames: list[tuple[bytes, dict[str, Any]]], got_result: bool
    ) -> bool:
        d = worker.dispatch
        for kind, body in frames:
            if kind == PROGRESS:
                self._events.on_progress(d.job_id, d.invocation_id, _progress_text(body))
            elif kind == RESULT and not got_result:
                got_result = True
                result = WorkerResult.parse(body)
                if result is None:
                    note(worker, "result with an unknown code ignored")
                    continue
                self._events.on_result(d.job_id, d.invocation_id, result)
            elif kind == RESULT:
                note(worker, "second result frame ignored")
        return got_result

    def _stop_worker(self, worker: RunningWorker, reason: str) -> None:
        set_reason(worker, reason)
        self._kill(worker, signal.SIGKILL)


def _progress_text(body: dict[str, Any]) -> str:
    stage, completed, total = body.get("stage", ""), body.get("completed"), body.get("total")
    if isinstance(completed, int) and isinstance(total, int) and total > 0:
        return f"{stage} {completed}/{total} ({100 * completed // total}%)"
    return str(stage)
