"""The index build worker: one process per job, started by the local supervisor
(``python -m drydock.engine.jobs.worker``).

Fork barrier: arm PDEATHSIG, check the parent, say HANDSHAKE, then block until the DISPATCH frame
arrives — the parent sends it only after moving this process into its cgroup. Then: open the
*pinned* version (never 0) and assert it, recompute the schema contract, build with the
pre-assigned index uuid, verify, and send one typed RESULT. A result code is chosen from what
was observed (exception *class*, a positive existence check), never from message text; an error
this worker cannot classify sends no RESULT at all, and the job converges by proof/deadline.
"""

from __future__ import annotations

import ctypes
import os
import re
import signal
import sys
import time
from typing import Any

from drydock.engine.support import cpu_sets
from drydock.engine.support.url_secrets import mask_text
from drydock.engine.jobs.control.contract import ContractError, field_contract, index_contract
from drydock.engine.jobs.runtime.isolation import apply_worker_rlimits
from drydock.engine.jobs.control.backend import Dispatch, WorkerResult
from drydock.engine.jobs.runtime.protocol import (
    DISPATCH,
    HANDSHAKE,
    PROGRESS,
    encode,
    read_frame,
    result_frame,
    write_frame,
)
from drydock.engine.jobs.control.states import ResultCode

PR_SET_PDEATHSIG = 1
OUT = 1  # frames go to stdout; stray prints are redirected to stderr below


class BuildCancelled(Exception):
    """Raised from the progress callback after SIGUSR1: lance aborts before committing."""


_cancel_requested = False


def _on_cancel(_signum: int, _frame: Any) -> None:
    global _cancel_requested
    _cancel_requested = True


def arm_death_signal(expected_parent: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != expected_parent:  # the parent died before PDEATHSIG was armed
        os._exit(3)


def send(kind: bytes, body: dict[str, Any]) -> None:
    write_frame(OUT, encode(kind, body))


class Progress:
    """lance's progress_callback → small PROGRESS frames (at most ~10 per second), and cancel."""

    def __init__(self) -> None:
        self._last = 0.0

    def __call__(self, event: Any) -> None:
        if _cancel_requested and getattr(event, "event", "") != "complete":
            raise BuildCancelled()
        now = time.monotonic()
        if now - self._last < 0.1 and getattr(event, "event", "") == "progress":
            return
        self._last = now
        send(
            PROGRESS,
            {
                "stage": str(getattr(event, "stage", ""))[:64],
                "event": str(getattr(event, "event", ""))[:16],
                "completed": _int(getattr(event, "completed", None)),
                "total": _int(getattr(event, "total", None)),
            },
        )
        if (
            os.environ.get("DRYDOCK_FAULT_WORKER_MODE") == "hold_progress"
            and getattr(event, "event", "") != "complete"
        ):
            while (
                not _cancel_requested
            ):  # test-only: the callback waits for CANCEL; lance builds on
                time.sleep(0.05)
            raise BuildCancelled()


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) else None


def recomputed_contract(d: Dispatch, dataset: Any) -> dict[str, Any] | None:
    """The contract recomputed from the pinned version; None when it cannot be (field or index gone,
    or the index no longer maps to exactly one top-level column)."""
    try:
        if d.operation == "DROP":
            return index_contract(dataset, d.index_name)[1]
        return field_contract(dataset, d.column)
    except (ContractError, KeyError, ValueError):
        return None


def contract_holds(d: Dispatch, dataset: Any) -> bool:
    """Exactly one field was admitted, and the pinned version still shows exactly that field."""
    fields = d.schema_contract.get("fields")
    if not isinstance(fields, list) or len(fields) != 1:
        return False  # an empty or malformed contract never passes (issue 13: DROP had none)
    return recomputed_contract(d, dataset) == fields[0]


def latest_version(d: Dispatch) -> int | None:
    import lance

    try:
        return int(lance.dataset(d.uri, storage_options=d.storage_options).version)
    except Exception:  # noqa: BLE001 - only used to compare versions; absence proves nothing here
        return None


def open_error_text(d: Dispatch, exc: BaseException) -> str:
    """The pinned open's error as a Message may carry it: the class and the library's text, with
    the storage options' values and any URL credentials masked, clipped."""
    text = f"{type(exc).__name__}: {exc}"
    for value in sorted(d.storage_options.values(), key=len, reverse=True):
        if len(value) >= 3:
            text = text.replace(value, "***")
    text = _RUST_SOURCE.sub("", mask_text(" ".join(text.split())))
    return text if len(text) <= _OPEN_ERROR_CHARS else text[: _OPEN_ERROR_CHARS - 3] + "..."


_RUST_SOURCE = re.compile(r",? \S+\.rs:\d+:\d+")  # lance appends its source locations: noise
_OPEN_ERROR_CHARS = 512  # the durable Message is 1024 bytes; the prefix and verdict need room


def pinned_open_failed(d: Dispatch, latest: int | None, error: str) -> WorkerResult:
    """The pinned version could not be opened. STALE_ADMISSION only when a read-only open of the
    latest version observed a strictly newer one (the pinned version was superseded); otherwise
    nothing shows the admission is stale — RESOURCE_REJECTED with the saved open error."""
    if latest is not None and latest > d.admitted_version:
        return WorkerResult(
            ResultCode.PRE_INVOCATION_STALE_ADMISSION,
            f"admitted version {d.admitted_version} could not be opened and version {latest} "
            f"exists: {error}",
            True,
        )
    seen = "the latest version could not be opened" if latest is None else f"latest is {latest}"
    return WorkerResult(
        ResultCode.PRE_INVOCATION_RESOURCE_REJECTED,
        f"admitted version {d.admitted_version} could not be opened ({seen}): {error}",
        False,
    )


def _build(d: Dispatch, dataset: Any) -> None:
    spec, params = d.spec, dict(d.spec.get("params", {}))
    if d.operation == "DROP":
        dataset.drop_index(d.index_name)
        return
    replace = d.operation == "REPLACE"
    if spec["using"] == "ANN":
        partitions = params.pop("num_partitions", None)
        sub_vectors = params.pop("num_sub_vectors", None)
        if (partitions or 0) > d.max_num_partitions or (sub_vectors or 0) > d.max_num_sub_vectors:
            raise ValueError("dispatch exceeds its admission-time bounds")
        metric = params.pop("metric", "l2")
        dataset.create_index(
            d.column,
            spec["index_type"],
            name=d.index_name,
            metric=metric,
            replace=replace,
            num_partitions=partitions,
            num_sub_vectors=sub_vectors,
            index_uuid=d.index_uuid,
            progress_callback=Progress(),
            **params,
        )
    else:
        dataset.create_scalar_index(
            d.column,
            spec["index_type"],
            name=d.index_name,
            replace=replace,
            index_uuid=d.index_uuid,
            progress_callback=Progress(),
            **params,  # INVERTED: with_position (engine/jobs/control/validation.py)
        )


def _index_present(d: Dispatch) -> tuple[bool, int | None, int]:
    """(our uuid is an index of the latest version, its indexed rows, latest version)."""
    import lance

    latest = lance.dataset(d.uri, storage_options=d.storage_options)
    for description in latest.describe_indices():
        if description.name == d.index_name:
            uuids = {
                str(i.get("uuid")) for i in latest.list_indices() if i.get("name") == d.index_name
            }
            if d.index_uuid in uuids:
                return True, int(description.num_rows_indexed), int(latest.version)
    return False, None, int(latest.version)


def classify_exception(exc: BaseException) -> ResultCode | None:
    """By class only. None = unknown: send no result."""
    import lance

    conflict = getattr(getattr(lance, "commit", None), "CommitConflictError", None)
    if conflict is not None and isinstance(exc, conflict):
        return ResultCode.NATIVE_COMMIT_CONFLICT
    if isinstance(exc, NotImplementedError):
        return ResultCode.NATIVE_NOT_SUPPORTED
    if isinstance(exc, (KeyError, TypeError, ValueError)):
        return ResultCode.NATIVE_INVALID_ARGUMENT
    if isinstance(exc, OSError):
        return ResultCode.NATIVE_IO
    return None


def _inject_faults() -> None:
    """Test-only faults, enabled by DRYDOCK_FAULT_WORKER_* variables that only tests set."""
    fault = os.environ.get("DRYDOCK_FAULT_WORKER_MODE", "")
    if fault == "hang":
        while True:
            time.sleep(1)
    if (
        fault == "slow_start"
    ):  # builds normally, a few seconds late (a frontend can be paused meanwhile)
        time.sleep(4)
    if fault == "abort":
        os.abort()
    if fault == "sigkill":
        os.kill(os.getpid(), signal.SIGKILL)
    if fault == "garbage":
        os.write(OUT, b"\x00\x00\x00\x05Zjunk")
        time.sleep(30)
    if fault == "nested":  # under the result cap, but deeper than any parser should recurse
        body = b'{"code":' + b"[" * 4000 + b"]" * 4000 + b"}"
        os.write(OUT, (len(body) + 1).to_bytes(4, "big") + b"R" + body)
        time.sleep(30)
    if fault == "stray":  # leaves a process behind in its cgroup, then exits without a result
        import subprocess

        stray = subprocess.Popen(["sleep", "600"], start_new_session=True)
        print(f"stray pid {stray.pid}", file=sys.stderr, flush=True)
        os._exit(0)
    if fault in ("group_stray", "nested_stray"):  # a grandchild left in its group and session
        _leave_grandchild(nested_cgroup=fault == "nested_stray")
    if fault == "stderr_flood":
        sys.stderr.write("first line\n" + "x" * (4 * 2**20) + "\nlast line\n")
        sys.stderr.flush()
        os._exit(0)
    if fault == "environment":
        print(" ".join(sorted(os.environ)), file=sys.stderr, flush=True)
        os._exit(0)
    if fault == "oversized":
        os.write(OUT, (10 * 2**20).to_bytes(4, "big") + b"R")
        time.sleep(30)
    if fault == "allocate":
        hog = []
        while True:  # until the cgroup's memory limit kills us
            hog.append(bytearray(64 * 2**20))
            hog[-1][::4096] = b"x" * len(hog[-1][::4096])


def _leave_grandchild(nested_cgroup: bool) -> None:
    """Test-only: start a process that keeps this worker's process group and session (and, with
    ``nested_cgroup``, sits in a cgroup made under this worker's own), then exit."""
    import subprocess
    from pathlib import Path

    stray = subprocess.Popen(
        ["sleep", "600"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    if nested_cgroup:
        root = Path("/sys/fs/cgroup")
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            if controllers in ("memory", "pids"):  # v1
                nested = root / controllers / path.lstrip("/") / "nested"
            elif controllers == "" and (root / "cgroup.controllers").exists():  # v2
                nested = root / path.lstrip("/") / "nested"
            else:
                continue
            nested.mkdir()
            (nested / "cgroup.procs").write_text(str(stray.pid))
    print(f"stray pid {stray.pid}", file=sys.stderr, flush=True)
    os._exit(0)


def execute(d: Dispatch) -> WorkerResult | None:
    import lance

    _inject_faults()

    def advanced() -> bool:
        latest = latest_version(d)
        return latest is not None and latest > d.admitted_version

    try:
        dataset = lance.dataset(
            d.uri, version=d.admitted_version, storage_options=d.storage_options
        )
    except Exception as exc:  # noqa: BLE001 - which pre-invocation code is decided below, not by the text
        return pinned_open_failed(d, latest_version(d), open_error_text(d, exc))
    if int(dataset.version) != d.admitted_version:
        return WorkerResult(
            ResultCode.PRE_INVOCATION_STALE_ADMISSION,
            "pinned open returned another version",
            advanced(),
        )
    if not contract_holds(d, dataset):
        return WorkerResult(
            ResultCode.PRE_INVOCATION_STALE_ADMISSION, "schema contract changed", advanced()
        )
    if d.operation == "DROP":
        latest = lance.dataset(d.uri, storage_options=d.storage_options)
        if d.index_name not in {i["name"] for i in latest.list_indices()}:  # positive check
            return WorkerResult(
                ResultCode.NATIVE_NOT_FOUND, f"index '{d.index_name}' is not present", advanced()
            )
    if _cancel_requested:  # CANCEL before the build began (a DROP has no progress callback)
        return WorkerResult(
            ResultCode.CANCELLED_BEFORE_COMMIT, "cancelled before the build started", advanced()
        )
    try:
        _build(d, dataset)
    except BuildCancelled:
        present, _, _ = _index_present(d)
        if present:
            return WorkerResult(ResultCode.NATIVE_OK, "cancel arrived after the commit", True)
        return WorkerResult(
            ResultCode.CANCELLED_BEFORE_COMMIT, "cancelled before commit", advanced()
        )
    except Exception as exc:  # noqa: BLE001 - mapped by class below
        code = classify_exception(exc)
        if code is None:
            print(f"unclassified build error: {type(exc).__name__}", file=sys.stderr)
            return None
        return WorkerResult(code, f"{type(exc).__name__} during build", advanced())
    if os.environ.get("DRYDOCK_FAULT_WORKER_MODE") == "hang_after_commit":
        while True:  # test-only: committed, result not yet sent
            time.sleep(1)
    if d.operation == "DROP":
        return WorkerResult(ResultCode.NATIVE_OK, "index dropped", True)
    present, rows, version = _index_present(d)
    if not present:
        return None  # the build returned but our uuid is not there: no trusted result
    message = "index built" if rows else "index committed but EMPTY (0 rows indexed)"
    return WorkerResult(ResultCode.NATIVE_OK, message, True, committed_version=version)


def main() -> int:
    global OUT
    parent = int(os.environ.get("DRYDOCK_WORKER_PARENT", "0"))
    arm_death_signal(parent)
    apply_worker_rlimits(float(os.environ.get("DRYDOCK_WORKER_WALL_CLOCK_SECONDS", "3600")))
    cpu_sets.restore_from_environment(os.environ.get(cpu_sets.ENV_WORKER_CPUS))
    OUT = os.dup(1)
    os.dup2(2, 1)  # library prints must never corrupt the frame stream
    signal.signal(signal.SIGUSR1, _on_cancel)
    if os.environ.get("DRYDOCK_FAULT_WORKER_IGNORE_TERM") == "1":  # test-only: only SIGKILL ends it
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    send(HANDSHAKE, {"pid": os.getpid()})
    try:
        _, body = read_frame(sys.stdin.buffer, (DISPATCH,))
        dispatch = Dispatch.parse(body)
    except Exception as exc:  # noqa: BLE001 - a bad dispatch is refused without a result
        print(f"refusing dispatch: {exc}", file=sys.stderr)
        return 2
    result = execute(dispatch)
    if result is not None:
        write_frame(OUT, result_frame(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
