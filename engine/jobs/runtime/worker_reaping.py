"""The end of a local worker: reap the exact child, drain its stderr, say how it ended and why
(signal, the cgroup limit the kernel enforced, the wall clock), then prove nothing it started still
runs before reporting CHILD_REAPED: its cgroup subtree unpopulated (cgroup v2 ``cgroup.events``
``populated 0``; v1: no process in any ``cgroup.procs`` of the subtree) and removed, or without
cgroups (rlimit mode) no live process left in its process group or session. A worker not proven
gone is held, its slot with it, and re-checked every second by the reaper thread until it is.
"""

from __future__ import annotations

import logging
import os
import selectors
import signal
import subprocess
import time

from drydock.engine.errors import exception_text
from drydock.engine.jobs.control.backend import Dispatch
from drydock.engine.jobs.control.states import TerminationProof
from drydock.engine.jobs.runtime.isolation import (
    WorkerCgroup,
    cpu_limit_seconds,
    session_members,
)
from drydock.engine.jobs.runtime.supervisor_state import RunningWorker, SupervisorState, note

logger = logging.getLogger(__name__)
HELD_RECHECK_SECONDS = 1.0
STDERR_DRAIN_SECONDS = 2.0


class WorkerReaper(SupervisorState):
    def _finish(self, worker: RunningWorker) -> None:
        code = self._reap(worker)
        self._drain_stderr(worker)
        worker.ending = self._describe(
            worker, code
        )  # reads the cgroup's counters: before it is removed
        worker.withheld = self._remains(worker, wait=5.0)
        self._report(worker, None if worker.withheld else TerminationProof.CHILD_REAPED)

    def _reap(self, worker: RunningWorker) -> int:
        try:
            return worker.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            note(worker, "still running 30 s after closing its output: SIGKILL")
            self._kill(worker, signal.SIGKILL)
            return worker.process.wait()

    def _describe(self, worker: RunningWorker, code: int) -> str:
        """How the worker ended and why, e.g. ``killed by SIGKILL: cgroup memory limit 40 MiB
        reached``."""
        head = f"exited with code {code}" if code >= 0 else f"killed by {_signal_name(-code)}"
        causes = [worker.kill_reason] if worker.kill_reason else self._limits_hit(worker, code)
        return "; ".join([head + (f": {', '.join(causes)}" if causes else ""), *worker.notes])

    def _limits_hit(self, worker: RunningWorker, code: int) -> list[str]:
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

    def _remains(self, worker: RunningWorker, wait: float) -> str:
        """Kill whatever the (reaped) worker left; "" once nothing of it can still run, else why
        that is not proven yet."""
        if worker.cgroup is None:
            return self._session_remains(worker.process.pid, wait)
        group = worker.cgroup
        self.isolation.kill_all(group)
        deadline = time.monotonic() + wait
        while _populated(group) and time.monotonic() < deadline:
            time.sleep(0.05)
        if _populated(group):
            return "its cgroup is still populated"  # fail closed: something may still run
        if not self.isolation.remove(group, timeout=min(wait, 5.0)):
            return "its cgroup could not be removed"  # a cgroup still there proves nothing
        return ""

    def _session_remains(self, leader: int, wait: float) -> str:
        """rlimit mode: the worker ran in its own session, so what it started (a double fork
        included) stays in its process group or session unless it calls setsid itself."""
        self.isolation.kill_session(leader)
        deadline = time.monotonic() + wait
        while session_members(leader) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = session_members(leader)
        return f"processes {left} remain in its process group or session" if left else ""

    def _report(self, worker: RunningWorker, proof: TerminationProof | None) -> None:
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
            proof.value if proof else f"withheld: {worker.withheld} (re-checked until proven)",
        )
        self._emit_exit(d, proof, worker.ending)

    def _finish_failed(self, worker: RunningWorker, exc: Exception) -> None:
        note(worker, f"supervisor error while finishing: {exception_text(exc)}")
        worker.ending = worker.ending or "; ".join([worker.kill_reason, *worker.notes]).strip("; ")
        worker.withheld = worker.withheld or "the supervisor failed while finishing it"
        with self._lock:
            self._held[worker.dispatch.invocation_id] = worker
        self._retire(worker.dispatch.invocation_id)
        self._emit_exit(worker.dispatch, None, worker.ending)

    def _emit_exit(self, d: Dispatch, proof: TerminationProof | None, detail: str) -> None:
        try:
            self._events.on_exit(d.job_id, d.invocation_id, proof, detail)
        except Exception:  # noqa: BLE001 - the supervisor's bookkeeping is already done
            logger.exception("job %s: recording the worker's exit failed", d.job_id)

    def _drain_stderr(self, worker: RunningWorker) -> None:
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
        """Kill what remains of each held worker; record CHILD_REAPED for those now proven
        gone."""
        with self._lock:
            held = list(self._held.items())
        proven = 0
        for invocation_id, worker in held:
            if worker.process.poll() is None:
                continue
            why = self._remains(worker, wait=0.5)
            if why:
                worker.withheld = why
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
                f"{worker.ending}; {_proven_later(worker)}",
            )
            proven += 1
        return proven


def _proven_later(worker: RunningWorker) -> str:
    if worker.cgroup is None:
        return "processes it left in its session ended later"
    if worker.withheld == "its cgroup could not be removed":
        return "its cgroup was removed later"
    return "processes it left in its cgroup ended later"


def _populated(group: WorkerCgroup) -> bool:
    try:
        return group.populated()
    except OSError:
        return True  # unreadable proves nothing


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
