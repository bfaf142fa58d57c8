"""Supervisor building blocks without a server: the pipe protocol's caps, Dispatch.parse bounds,
exception classification by class, the isolation preflight on this machine, and submit/cancel
of the in-process supervisor (bounded queue, idempotent duplicates, NOT_ENQUEUED, NEVER_LAUNCHED).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import threading
import time
import uuid
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import lance
import numpy as np
import pyarrow as pa
import pytest

from drydock.engine.store.config import Config
from drydock.engine.jobs.runtime import isolation as iso
from drydock.engine.jobs.control.backend import (
    LOCAL_BACKEND,
    RAY_BACKEND,
    Backend,
    Dispatch,
    NotEnqueued,
    ProtocolError,
    WorkerResult,
)
from drydock.engine.jobs.runtime.protocol import (
    CAPS,
    DISPATCH,
    HANDSHAKE,
    PROGRESS,
    RESULT,
    FrameBuffer,
    dispatch_frame,
    encode,
    read_frame,
    result_frame,
)
from drydock.engine.jobs.control.states import ResultCode, TerminationProof
from drydock.engine.jobs.runtime.ray_backend import RayBackend
from drydock.engine.jobs.runtime.supervisor import Supervisor
from drydock.engine.jobs.runtime.supervisor_state import start_ticks
from drydock.engine.jobs.worker import classify_exception
from drydock.engine.store.metastore import MetaStore
from tests.support.isolation import cgroups_unavailable
from tests.support.jobfactory import new_job


def body_of_size(size: int) -> bytes:
    """A JSON object of exactly ``size`` bytes."""
    frame = b'{"p":""}'
    return frame[:-2] + b"x" * (size - len(frame)) + frame[-2:]


def raw_frame(kind: bytes, body: bytes) -> bytes:
    return (len(body) + 1).to_bytes(4, "big") + kind + body


def make_dispatch(**changes: Any) -> Dispatch:
    return Dispatch(
        **{
            "job_id": 7,
            "invocation_id": uuid.uuid4().hex,
            "operation": "CREATE",
            "uri": "/nowhere/t.lance",
            "storage_options": {},
            "admitted_version": 1,
            "index_name": "idx",
            "index_uuid": str(uuid.uuid4()),
            "column": "emb",
            "spec": {
                "using": "ANN",
                "index_type": "IVF_PQ",
                "params": {"num_partitions": 4, "num_sub_vectors": 4},
            },
            "schema_contract": {"version": 1, "fields": []},
            "max_num_partitions": 4096,
            "max_num_sub_vectors": 256,
            "wall_clock_seconds": 60.0,
            **changes,
        }
    )


# -- FrameBuffer (the parent's reader)
# ----------------------------------------------------------------
def test_frames_split_anywhere_are_reassembled_in_order() -> None:
    stream = encode(PROGRESS, {"stage": "train_ivf", "completed": 1, "total": 5}) + result_frame(
        WorkerResult(ResultCode.NATIVE_OK, "index built", True, committed_version=3)
    )
    buffer = FrameBuffer((PROGRESS, RESULT))
    frames = []
    for i in range(len(stream)):
        frames += buffer.feed(stream[i : i + 1])
    assert [kind for kind, _ in frames] == [PROGRESS, RESULT]
    assert frames[0][1]["stage"] == "train_ivf" and frames[1][1]["code"] == "NATIVE_OK"
    assert buffer.pending == 0


@pytest.mark.parametrize("kind", [DISPATCH, HANDSHAKE, PROGRESS, RESULT])
def test_each_kind_accepts_exactly_its_cap_and_rejects_one_byte_more(kind: bytes) -> None:
    cap = CAPS[kind]
    [(got, body)] = FrameBuffer((kind,)).feed(raw_frame(kind, body_of_size(cap)))
    assert got == kind and len(body["p"]) == cap - len(b'{"p":""}')
    header = (cap + 2).to_bytes(4, "big") + kind  # announces cap + 1 body bytes
    with pytest.raises(ProtocolError, match="cap"):
        FrameBuffer((kind,)).feed(header)  # refused from the header alone: nothing is allocated
    with pytest.raises(ProtocolError):
        encode(kind, json.loads(body_of_size(cap + 1)))  # and the sender refuses to build it


def test_a_10_mib_announcement_is_refused_before_any_body_byte() -> None:
    buffer = FrameBuffer((PROGRESS, RESULT))
    with pytest.raises(ProtocolError, match="10485759 bytes, cap is 8192"):
        buffer.feed((10 * 2**20).to_bytes(4, "big") + RESULT)
    assert buffer.pending <= 5


@pytest.mark.parametrize(
    "data, allowed",
    [
        (raw_frame(b"Z", b"{}"), (PROGRESS, RESULT)),  # unknown kind
        (raw_frame(DISPATCH, b"{}"), (PROGRESS, RESULT)),  # a kind this direction never carries
        (raw_frame(HANDSHAKE, b"{}"), (PROGRESS, RESULT)),  # a second handshake after the barrier
        (
            (0).to_bytes(4, "big") + RESULT,
            (RESULT,),
        ),  # a length that does not even cover the kind byte
        (raw_frame(RESULT, b"not json"), (RESULT,)),
        (raw_frame(RESULT, b"[1, 2]"), (RESULT,)),  # JSON, but not an object
        (raw_frame(RESULT, b'{"a": "\xff"}'), (RESULT,)),  # not UTF-8
    ],
)
def test_frames_that_break_the_protocol_are_rejected(
    data: bytes, allowed: tuple[bytes, ...]
) -> None:
    with pytest.raises(ProtocolError):
        FrameBuffer(allowed).feed(data)


def test_the_workers_reader_checks_the_cap_before_reading_the_body() -> None:
    header_only = io.BytesIO((CAPS[DISPATCH] + 2).to_bytes(4, "big") + DISPATCH)
    with pytest.raises(
        ProtocolError, match="cap is 524288"
    ):  # not EOFError: the body was never read
        read_frame(header_only, (DISPATCH,))
    with pytest.raises(ProtocolError, match="unexpected frame kind"):
        read_frame(io.BytesIO(raw_frame(RESULT, b"{}")), (DISPATCH,))
    with pytest.raises(EOFError):
        read_frame(io.BytesIO(raw_frame(DISPATCH, b'{"a": 1}')[:-1]), (DISPATCH,))


# -- Dispatch.parse (the worker refuses a dispatch it cannot trust)
# ------------------------------------
def test_a_dispatch_survives_the_pipe_unchanged() -> None:
    sent = make_dispatch(storage_options={"aws_region": "us-east-1"})
    kind, body = read_frame(io.BytesIO(dispatch_frame(sent)), (DISPATCH,))
    assert kind == DISPATCH and Dispatch.parse(body) == sent


@pytest.mark.parametrize("bound", ["max_num_partitions", "max_num_sub_vectors"])
@pytest.mark.parametrize("value", ["missing", 0, -1, "16", 1.5, True, None])
def test_a_dispatch_without_its_admission_time_bounds_is_refused(bound: str, value: Any) -> None:
    body = asdict(make_dispatch())
    if value == "missing":
        del body[bound]
    else:
        body[bound] = value
    with pytest.raises(ProtocolError, match=f"lacks the admission-time bound {bound}"):
        Dispatch.parse(body)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"admitted_version": 0}, "pin a dataset version > 0"),  # version 0 would open the latest
        ({"admitted_version": "3"}, "pin a dataset version > 0"),
        ({"surprise": 1}, "malformed dispatch"),
        ({"storage_options": ["a"]}, "storage options must be an object"),
        (
            {"storage_options": {f"k{i}": "v" for i in range(65)}},
            "65 storage options exceed the cap 64",
        ),
        ({"storage_options": {"k" * 257: "v"}}, "exceeds its cap"),
        ({"storage_options": {"k": "v" * 4097}}, "exceeds its cap"),
        ({"storage_options": {"k": "é" * 2049}}, "exceeds its cap"),  # bytes, not characters
    ],
)
def test_dispatch_parse_bounds(change: dict[str, Any], message: str) -> None:
    body = {**asdict(make_dispatch()), **change}
    with pytest.raises(ProtocolError, match=message):
        Dispatch.parse(body)


def test_storage_options_exactly_at_their_caps_are_accepted() -> None:
    options = {f"{i:0>256}": "v" * 4096 for i in range(64)}
    assert Dispatch.parse(asdict(make_dispatch(storage_options=options))).storage_options == options
    body = asdict(make_dispatch())
    del body["invocation_id"]
    with pytest.raises(ProtocolError, match="malformed dispatch"):
        Dispatch.parse(body)


def test_a_dispatch_over_512_kib_is_refused_by_the_sender() -> None:
    big = make_dispatch(schema_contract={"version": 1, "fields": [{"name": "x" * CAPS[DISPATCH]}]})
    with pytest.raises(ProtocolError, match="exceeds its cap 524288"):
        dispatch_frame(big)


def test_a_result_with_a_code_this_server_does_not_know_is_no_result() -> None:
    assert WorkerResult.parse({"code": "NATIVE_MAYBE", "message": "x"}) is None
    assert WorkerResult.parse({"message": "no code"}) is None
    parsed = WorkerResult.parse(
        {
            "code": "NATIVE_COMMIT_CONFLICT",
            "message": "m" * 5000,
            "external_metadata_advanced": 1,
            "committed_version": "7",
        }
    )
    assert parsed == WorkerResult(ResultCode.NATIVE_COMMIT_CONFLICT, "m" * 2048, True, None)


# -- classify_exception: by class, never by text
# --------------------------------------------------------
def _vectors(path: Path, rows: int = 600, dim: int = 8) -> lance.LanceDataset:
    values = np.random.default_rng(0).random(rows * dim).astype("float32")
    return lance.write_dataset(
        pa.table(
            {
                "id": pa.array(range(rows), pa.int64()),
                "emb": pa.FixedSizeListArray.from_arrays(pa.array(values), dim),
            }
        ),
        path,
    )


def _raised(call: Any) -> BaseException:
    try:
        call()
    except BaseException as exc:  # noqa: BLE001 - the test inspects what was raised
        return exc
    raise AssertionError("expected an exception")


def test_exceptions_lance_really_raises_map_by_class(tmp_path: Path) -> None:
    uri = tmp_path / "t.lance"
    stale = _vectors(uri)
    lance.dataset(uri).create_scalar_index("id", "BTREE", name="b")
    conflict = _raised(
        lambda: stale.create_scalar_index(
            "id", "BTREE", name="b", replace=False, index_uuid=str(uuid.uuid4())
        )
    )
    assert type(conflict).__name__ == "CommitConflictError"
    assert classify_exception(conflict) is ResultCode.NATIVE_COMMIT_CONFLICT
    ds = lance.dataset(uri)
    assert (
        classify_exception(
            _raised(lambda: ds.create_index("nope", "IVF_PQ", num_partitions=2, num_sub_vectors=2))
        )
        is ResultCode.NATIVE_INVALID_ARGUMENT
    )
    assert (
        classify_exception(
            _raised(lambda: ds.create_index("emb", "IVF_PQ", num_partitions=2, num_sub_vectors=3))
        )
        is ResultCode.NATIVE_INVALID_ARGUMENT
    )
    assert (
        classify_exception(_raised(lambda: ds.create_index("emb", "HNSW_FOO")))
        is ResultCode.NATIVE_NOT_SUPPORTED
    )
    assert (
        classify_exception(_raised(lambda: ds.drop_index("nope"))) is None
    )  # RuntimeError: unknown → no result


def test_message_text_never_decides_the_code() -> None:
    conflict_class = lance.commit.CommitConflictError
    assert classify_exception(conflict_class("disk full")) is ResultCode.NATIVE_COMMIT_CONFLICT
    assert (
        classify_exception(OSError("Retryable commit conflict for version 8"))
        is ResultCode.NATIVE_IO
    )
    assert classify_exception(RuntimeError("CommitConflictError: preempted")) is None
    assert classify_exception(ValueError("commit conflict")) is ResultCode.NATIVE_INVALID_ARGUMENT
    assert (
        classify_exception(NotImplementedError("x")) is ResultCode.NATIVE_NOT_SUPPORTED
    )  # before RuntimeError
    assert classify_exception(MemoryError()) is None


# -- isolation preflight on this machine
# ---------------------------------------------------------------


@pytest.fixture
def cgroup_isolation() -> Any:
    reason = cgroups_unavailable()
    if reason:
        pytest.skip(reason)
    isolation = iso.Isolation("cgroup", parent_name=f"drydock-unit-{os.getpid()}")
    yield isolation
    for base in isolation._bases:
        for child in base.iterdir() if base.exists() else []:
            if child.is_dir():
                child.rmdir()
        if base.exists():
            base.rmdir()


def test_preflight_passes_here_and_a_worker_cgroup_enforces_what_was_written(
    cgroup_isolation: Any,
) -> None:
    isolation = cgroup_isolation
    assert isolation.preflight() in ("cgroup-v1", "cgroup-v2"), isolation.detail
    bases = isolation._bases
    assert all(
        b.is_dir() and not list(b.glob("preflight-*")) for b in bases
    )  # the probe cleaned up
    group = isolation.create("w-1-abcdef01", iso.Limits(300 * 2**20 + 123, 32, 10))
    if isolation.kind == "cgroup-v1":
        memory, pids = group.dirs
        assert (memory / "memory.limit_in_bytes").read_text().strip() == str(
            300 * 2**20
        )  # page-rounded
        assert (pids / "pids.max").read_text().strip() == "32"
    child = subprocess.Popen(["sleep", "60"])
    try:
        isolation.move(group, child.pid)
        assert (
            f"/{isolation.parent_name}/w-1-abcdef01"
            in Path(f"/proc/{child.pid}/cgroup").read_text()
        )
        assert group.procs() == [child.pid] and group.populated()
        isolation.kill_all(group)
        assert child.wait(timeout=10) == -9
    finally:
        child.kill()
        child.wait()
    assert not group.populated()
    assert [g.name for g in isolation.find("w-1-")] == ["w-1-abcdef01"]
    assert isolation.remove(group)
    assert not any(d.exists() for d in group.dirs)


def test_a_dead_pid_cannot_be_moved_in(cgroup_isolation: Any) -> None:
    isolation = cgroup_isolation
    isolation.preflight()
    group = isolation.create("w-2-abcdef02", iso.Limits(2**28, 16, 5))
    child = subprocess.Popen(["true"])
    child.wait()
    with pytest.raises(OSError):
        isolation.move(group, child.pid)  # the supervisor turns this into NEVER_LAUNCHED
    assert isolation.remove(group)


@pytest.mark.parametrize("setting, kind", [("rlimit", "rlimit"), ("cgroup", "none")])
def test_without_cgroups_only_an_explicit_rlimit_setting_runs_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, setting: str, kind: str
) -> None:
    monkeypatch.setattr(iso, "CGROUP_ROOT", tmp_path)  # a machine with no cgroup file system
    assert iso.Isolation(setting).preflight() == kind


# -- Supervisor.submit / cancel
# --------------------------------------------------------------------------
class Events:
    def __init__(self) -> None:
        self.calls: list[tuple[str, int, str, Any]] = []
        self.exited = threading.Event()

    def on_spawned(
        self, job_id: int, invocation_id: str, pid: int, start_ticks: int | None, cgroup: str
    ) -> None:
        self.calls.append(("spawned", job_id, invocation_id, pid))

    def on_progress(self, job_id: int, invocation_id: str, text: str) -> None:
        self.calls.append(("progress", job_id, invocation_id, text))

    def on_result(self, job_id: int, invocation_id: str, result: WorkerResult) -> None:
        self.calls.append(("result", job_id, invocation_id, result.code))

    def on_exit(
        self, job_id: int, invocation_id: str, proof: TerminationProof | None, detail: str
    ) -> None:
        self.calls.append(("exit", job_id, invocation_id, proof))
        if sum(1 for c in self.calls if c[0] == "exit") >= 2:
            self.exited.set()


@pytest.fixture
def rlimit_supervisor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setattr(iso, "CGROUP_ROOT", tmp_path / "no-cgroups")
    config = Config(
        MetaStore(tmp_path / "meta.sqlite"),
        file_values={
            "lance_index_worker_isolation": "rlimit",
            "lance_index_worker_queue_capacity": 2,
        },
    )
    events = Events()
    supervisor = Supervisor(config, events, "epoch-1", tmp_path / "workers")
    yield supervisor, events
    supervisor.stop()


def test_a_supervisor_without_isolation_proves_never_enqueued(tmp_path: Path) -> None:
    supervisor = Supervisor(Config(MetaStore(tmp_path / "m.sqlite")), Events(), "e", tmp_path / "w")
    assert supervisor.isolation.kind == "none"  # no preflight has passed
    with pytest.raises(NotEnqueued, match="isolation unavailable"):
        supervisor.submit(make_dispatch(), int(time.time() * 1000) + 60_000)


def test_bounded_queue_idempotent_duplicates_and_over_cap_dispatches(
    rlimit_supervisor: Any,
) -> None:
    supervisor, _ = rlimit_supervisor
    assert supervisor.isolation.preflight() == "rlimit"
    deadline = int(time.time() * 1000) + 3_600_000
    with pytest.raises(
        NotEnqueued, match="refused before enqueueing"
    ):  # a clean rejection, not ambiguous
        supervisor.submit(make_dispatch(storage_options={"k": "v" * 5000}), deadline)
    first, second = make_dispatch(), make_dispatch()
    supervisor.submit(first, deadline)
    supervisor.submit(first, deadline)  # a duplicate invocation id is an idempotent OK
    supervisor.submit(second, deadline)
    with pytest.raises(NotEnqueued, match="queue is full"):
        supervisor.submit(make_dispatch(), deadline)
    supervisor.submit(second, deadline)  # still idempotent when full
    assert supervisor.status()["queue_depth"] == 2


def test_cancel_before_launch_and_a_budget_too_small_never_exec_a_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(iso, "CGROUP_ROOT", tmp_path / "no-cgroups")
    now = [time.time()]
    config = Config(
        MetaStore(tmp_path / "meta.sqlite"), file_values={"lance_index_worker_isolation": "rlimit"}
    )
    events = Events()
    supervisor = Supervisor(config, events, "epoch-1", tmp_path / "workers", clock=lambda: now[0])
    supervisor.isolation.preflight()
    cancelled, short = make_dispatch(job_id=1), make_dispatch(job_id=2)
    deadline_ms = int(now[0] * 1000) + 420_000  # 420 s − margin 400 − grace 10 = 10 s of budget
    supervisor.submit(cancelled, deadline_ms)
    supervisor.submit(short, deadline_ms)
    with pytest.raises(NotEnqueued, match="not enough time left"):  # checked when enqueueing too
        supervisor.submit(make_dispatch(job_id=3), deadline_ms - 6_000)
    assert supervisor.cancel(cancelled.invocation_id)
    assert not supervisor.cancel("no-such-invocation")
    now[0] += 6  # the budget runs out while the submission waits in the queue
    supervisor.start()
    try:
        assert events.exited.wait(timeout=30)
    finally:
        supervisor.stop()
    assert sorted(events.calls) == sorted(
        [
            ("result", 1, cancelled.invocation_id, ResultCode.CANCELLED_BEFORE_COMMIT),
            ("exit", 1, cancelled.invocation_id, TerminationProof.NEVER_LAUNCHED),
            ("result", 2, short.invocation_id, ResultCode.PRE_INVOCATION_RESOURCE_REJECTED),
            ("exit", 2, short.invocation_id, TerminationProof.NEVER_LAUNCHED),
        ]
    )
    assert not list((tmp_path / "workers").glob("job-*.log"))  # no worker process was ever started
    assert not supervisor.cancel(cancelled.invocation_id)  # over: nothing left to cancel


# -- the Backend contract (engine/jobs/control/backend.py) -----------------------------------------
BACKEND_METHODS = sorted(
    name for name, value in vars(Backend).items() if callable(value) and not name.startswith("_")
)


@pytest.mark.parametrize("backend", [Supervisor, RayBackend], ids=lambda b: b.__name__)
def test_each_backend_implements_every_method_the_dispatcher_calls(backend: type) -> None:
    """A method left to the protocol's own body would answer None: e.g. a hold_reason that never
    holds, or a proof that never comes."""
    assert "earlier_run_gone" in BACKEND_METHODS and "hold_reason" in BACKEND_METHODS
    assert Backend in backend.__mro__
    inherited = [
        name for name in BACKEND_METHODS if getattr(backend, name) is getattr(Backend, name)
    ]
    assert inherited == []


def test_the_local_supervisor_proves_an_earlier_epochs_local_worker_gone_but_never_a_ray_run(
    tmp_path: Path,
) -> None:
    supervisor = Supervisor(Config(MetaStore(tmp_path / "m.sqlite")), Events(), "e", tmp_path / "w")
    local = replace(new_job(), id=1, invocation_id="inv-local", backend_id=LOCAL_BACKEND)
    assert supervisor.earlier_run_gone(local, None)  # never released: it never got its dispatch
    assert not supervisor.earlier_run_gone(replace(local, backend_id=RAY_BACKEND), None)
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        recorded = (sleeper.pid, start_ticks(sleeper.pid))
        assert not supervisor.earlier_run_gone(local, recorded)  # alive: killed now, not yet proven
        assert sleeper.wait(timeout=10) == -9
        assert supervisor.earlier_run_gone(local, recorded)
        assert supervisor.earlier_run_gone(local, (sleeper.pid, 1))  # another process's start time
    finally:
        sleeper.kill()
        sleeper.wait()
