"""What the dispatcher and the backends that run builds say to each other.

The dispatcher (control) drives a job; a :class:`Backend` (runtime: the local supervisor of
isolated worker processes, or the Ray backend) runs the build it is handed and reports through
:class:`BackendEvents`. Both sides import this module and nothing of each other: the composition
root (engine/core.py) gives the dispatcher a :data:`BackendFactory`. The messages are plain data
with their JSON shape; how they travel as frames on a worker's pipes is runtime/protocol.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from drydock.engine.jobs.control.records import JobRecord
from drydock.engine.jobs.control.states import ResultCode, TerminationProof

LOCAL_BACKEND = "local"  # a job's backend_id: isolated worker processes on the frontend's host
RAY_BACKEND = "ray"  # a distributed build as Ray tasks; only Ray's state API proves it over
MAX_STORAGE_OPTIONS = 64
MAX_OPTION_KEY_BYTES = 256
MAX_OPTION_VALUE_BYTES = 4096
MAX_RESULT_MESSAGE = 2048
_WORKER_LOG = re.compile(r"job-(\d+)-[0-9a-f]{1,8}\.log")


class ProtocolError(Exception):
    """A message that breaks the protocol: unknown kind, over its cap, truncated, not JSON,
    or a dispatch the worker cannot trust."""


class NotEnqueued(Exception):
    """A clean rejection: the submission provably never reached a worker."""


def check_storage_options(options: dict[str, str]) -> None:
    if not isinstance(options, dict):
        raise ProtocolError("storage options must be an object")
    if len(options) > MAX_STORAGE_OPTIONS:
        raise ProtocolError(f"{len(options)} storage options exceed the cap {MAX_STORAGE_OPTIONS}")
    for key, value in options.items():
        if (
            len(str(key).encode()) > MAX_OPTION_KEY_BYTES
            or len(str(value).encode()) > MAX_OPTION_VALUE_BYTES
        ):
            raise ProtocolError("a storage option key or value exceeds its cap")


@dataclass
class Dispatch:
    """Everything a worker needs. The admission-time bounds travel with it, so a worker never
    builds past what admission accepted even if the configured bounds changed since
    (docs/job-contract.md, "Dispatch")."""

    job_id: int
    invocation_id: str
    operation: str  # CREATE | REPLACE | DROP
    uri: str
    storage_options: dict[str, str]
    admitted_version: int
    index_name: str
    index_uuid: str
    column: str
    spec: dict[str, Any]  # IndexSpec as JSON (using, index_type, params)
    schema_contract: dict[str, Any]
    max_num_partitions: int
    max_num_sub_vectors: int
    wall_clock_seconds: float
    extra: dict[str, Any] = field(default_factory=dict)

    def body(self) -> dict[str, Any]:
        check_storage_options(self.storage_options)
        return asdict(self)

    @staticmethod
    def parse(body: dict[str, Any]) -> Dispatch:
        for bound in ("max_num_partitions", "max_num_sub_vectors"):
            value = body.get(bound)
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ProtocolError(f"dispatch lacks the admission-time bound {bound}")
        try:
            dispatch = Dispatch(**body)
        except TypeError as exc:
            raise ProtocolError(f"malformed dispatch: {exc}") from None
        check_storage_options(dispatch.storage_options)
        version = dispatch.admitted_version
        if not isinstance(version, int) or isinstance(version, bool) or version <= 0:
            raise ProtocolError("dispatch must pin a dataset version > 0")
        return dispatch


@dataclass
class WorkerResult:
    code: ResultCode
    message: str
    external_metadata_advanced: bool
    committed_version: int | None = None

    def body(self) -> dict[str, Any]:
        return {
            "code": self.code.value,
            "message": self.message[:MAX_RESULT_MESSAGE],
            "external_metadata_advanced": self.external_metadata_advanced,
            "committed_version": self.committed_version,
        }

    @staticmethod
    def parse(body: dict[str, Any]) -> WorkerResult | None:
        """None for a code this server does not know: no result is ever guessed."""
        try:
            code = ResultCode(body.get("code"))
        except ValueError:
            return None
        version = body.get("committed_version")
        return WorkerResult(
            code,
            str(body.get("message", ""))[:MAX_RESULT_MESSAGE],
            bool(body.get("external_metadata_advanced")),
            version if isinstance(version, int) else None,
        )


def log_name(job_id: int, invocation_id: str) -> str:
    """A worker's stderr file in the backend's log directory; retention removes it with its job."""
    return f"job-{job_id}-{invocation_id[:8]}.log"


def job_of(name: str) -> int | None:
    """The job id of a worker log file name; None for any other file."""
    match = _WORKER_LOG.fullmatch(name)
    return int(match.group(1)) if match else None


class BackendEvents(Protocol):
    """What a backend reports about an invocation (the dispatcher records it)."""

    def on_spawned(
        self, job_id: int, invocation_id: str, pid: int, start_ticks: int | None, cgroup: str
    ) -> None:
        """A local worker is about to be released: its pid and process start time (clock ticks
        since boot, which tell it from a later process reusing the pid) and its cgroup."""

    def on_progress(self, job_id: int, invocation_id: str, text: str) -> None: ...

    def on_result(self, job_id: int, invocation_id: str, result: WorkerResult) -> None: ...

    def on_exit(
        self, job_id: int, invocation_id: str, proof: TerminationProof | None, detail: str
    ) -> None:
        """The invocation is over; ``proof`` None when nothing yet proves its worker gone."""


class Backend(Protocol):
    """Runs dispatched builds. Every method the dispatcher calls; a backend implements it
    explicitly (subclasses this protocol)."""

    def start(self) -> None: ...

    def stop(self) -> None:
        """Kill this run's workers (their results could not be recorded any more)."""

    def status(self) -> dict[str, Any]:
        """isolation, detail, queue_depth, inflight, held, epoch (and ray_builds for Ray)."""

    def check_dispatch(self, dispatch: Dispatch) -> None:
        """Raise ProtocolError when ``dispatch`` can never be sent (its caps): asked while the
        job is still PENDING, so such a job fails without taking a slot."""

    def submit(self, dispatch: Dispatch, deadline_ms: int) -> None:
        """The single hand-off. A duplicate invocation id is an idempotent OK; NotEnqueued proves
        the dispatch never reached a worker; any other exception is ambiguous."""

    def cancel(self, invocation_id: str) -> bool:
        """Ask for an abort; False when this backend does not hold the invocation."""

    def backend_of(self, dispatch: Dispatch) -> str:
        """LOCAL_BACKEND or RAY_BACKEND: which one runs ``dispatch`` (recorded with the job)."""

    def hold_reason(self, job: JobRecord) -> str | None:
        """Why a PENDING job must wait (e.g. the Ray head is unreachable), or None."""

    def earlier_run_gone(self, job: JobRecord, worker: tuple[int, int | None] | None) -> bool:
        """Whether the run an earlier process epoch started for ``job`` is proven over, killing
        what remains of it on the way (fail closed: False when it cannot be proven now).
        ``worker``: the (pid, start ticks) recorded when a local worker was released."""

    def nodes(self) -> tuple[list[dict[str, Any]], str]:
        """Remote nodes for SHOW BACKENDS (host, alive, CPUs, memory, running tasks) and why
        they cannot be listed; ([], "") for a backend without remote nodes."""


# (events, process epoch) → a new backend; called again when the dispatcher restarts in a new epoch
BackendFactory = Callable[[BackendEvents, str], Backend]
