"""The supervisor with real worker processes and no server: what a misbehaving worker cannot do.

Each worker is the real ``python -m engine.jobs.worker`` with a test-only fault
(``DRYDOCK_FAULT_WORKER_MODE``, engine/jobs/worker.py): a deeply nested reply, a memory hog under a
real cgroup limit, a stray process left in its cgroup, a stderr flood, a dump of its environment.
"""

from __future__ import annotations

import io
import os
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from drydock.engine.store.config import Config
from drydock.engine.jobs.runtime import isolation as iso
from drydock.engine.jobs.runtime import supervisor_state, worker_reaping
from drydock.engine.jobs.control.manager import JobManager
from drydock.engine.jobs.control.backend import (
    Dispatch,
    NotEnqueued,
    ProtocolError,
    WorkerResult,
    log_name,
)
from drydock.engine.jobs.runtime.protocol import DISPATCH, RESULT, FrameBuffer, read_frame
from drydock.engine.jobs.control.retention import clean_once
from drydock.engine.jobs.control.states import TerminationProof
from drydock.engine.jobs.runtime.stderr_log import HEAD_BYTES, TAIL_BYTES
from drydock.engine.jobs.runtime.supervisor import Supervisor
from drydock.engine.jobs.runtime.worker_env import with_ambient_credentials
from drydock.engine.store.metastore import MetaStore
from tests.support.jobfactory import new_job
from tests.support.isolation import cgroups_unavailable
from tests.support.waiting import wait_until


def raw_frame(kind: bytes, body: bytes) -> bytes:
    return (len(body) + 1).to_bytes(4, "big") + kind + body


def nested(depth: int) -> bytes:
    """A JSON object whose deepest value sits ``depth`` levels down."""
    return b'{"code":' + b"[" * (depth - 1) + b"]" * (depth - 1) + b"}"


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
            "column": "id",
            "spec": {"using": "INVERTED", "index_type": "BTREE", "params": {}},
            "schema_contract": {"version": 1, "fields": []},
            "max_num_partitions": 4096,
            "max_num_sub_vectors": 256,
            "wall_clock_seconds": 60.0,
            **changes,
        }
    )


# -- the frame parser: nesting is capped before json recurses
# --------------------------------------------
def test_a_deeply_nested_frame_under_its_size_cap_is_a_protocol_error_not_a_recursion_error() -> (
    None
):
    body = nested(4000)
    assert len(body) < 8192  # under the result cap: only the depth check stands in the way
    with pytest.raises(ProtocolError, match="nests deeper than 16 levels"):
        FrameBuffer((RESULT,)).feed(raw_frame(RESULT, body))
    with pytest.raises(ProtocolError, match="nests deeper than 16 levels"):
        read_frame(io.BytesIO(raw_frame(DISPATCH, body)), (DISPATCH,))  # the worker's reader too


def test_nesting_up_to_the_cap_parses_and_brackets_inside_strings_do_not_count() -> None:
    """The cap is the reference's 16 (issue 27): 16 levels parse, 17 are refused."""
    [(_, body)] = FrameBuffer((RESULT,)).feed(raw_frame(RESULT, nested(16)))
    assert "code" in body
    with pytest.raises(ProtocolError, match="nests deeper than 16 levels"):
        FrameBuffer((RESULT,)).feed(raw_frame(RESULT, nested(17)))
    text = b'{"message": "[[[[{{{{ \\" [[[[" , "n": [[1]]}'
    [(_, body)] = FrameBuffer((RESULT,)).feed(
        raw_frame(RESULT, b'{"m":"' + b"[" * 5000 + b'\\"{"}')
    )
    assert body["m"].startswith("[[[")
    assert FrameBuffer((RESULT,)).feed(raw_frame(RESULT, text))[0][1]["n"] == [[1]]


# -- a supervisor running real workers
# ---------------------------------------------------------------------
class Events:
    def __init__(self, fail_on_result: bool = False) -> None:
        self.calls: list[tuple[str, int, Any, str]] = []
        self.fail_on_result = fail_on_result
        self._changed = threading.Condition()

    def _add(self, call: tuple[str, int, Any, str]) -> None:
        with self._changed:
            self.calls.append(call)
            self._changed.notify_all()

    def on_spawned(
        self, job_id: int, invocation_id: str, pid: int, start_ticks: int | None, cgroup: str
    ) -> None:
        self._add(("spawned", job_id, pid, cgroup))

    def on_progress(self, job_id: int, invocation_id: str, text: str) -> None:
        self._add(("progress", job_id, None, text))

    def on_result(self, job_id: int, invocation_id: str, result: WorkerResult) -> None:
        if self.fail_on_result:
            raise RuntimeError("the metadata store is unavailable")
        self._add(("result", job_id, result.code, result.message))

    def on_exit(
        self, job_id: int, invocation_id: str, proof: TerminationProof | None, detail: str
    ) -> None:
        self._add(("exit", job_id, proof, detail))

    def exits(
        self, count: int = 1, timeout: float = 60
    ) -> list[tuple[TerminationProof | None, str]]:
        with self._changed:
            assert self._changed.wait_for(lambda: len(self._exits()) >= count, timeout), self.calls
            return self._exits()

    def _exits(self) -> list[tuple[TerminationProof | None, str]]:
        return [(c[2], c[3]) for c in self.calls if c[0] == "exit"]


def _config(tmp_path: Path, **values: Any) -> Config:
    return Config(
        MetaStore(tmp_path / "meta.sqlite"),
        file_values={"lance_index_worker_termination_grace_seconds": 1, **values},
    )


@pytest.fixture
def rlimit_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """run(mode, events=None) → (supervisor, events, dispatch) with rlimit isolation, worker
    started."""
    monkeypatch.setattr(iso, "CGROUP_ROOT", tmp_path / "no-cgroups")
    started: list[Supervisor] = []

    def run(mode: str, events: Events | None = None) -> tuple[Supervisor, Events, Dispatch]:
        monkeypatch.setenv("DRYDOCK_FAULT_WORKER_MODE", mode)
        events = events or Events()
        supervisor = Supervisor(
            _config(tmp_path, lance_index_worker_isolation="rlimit"),
            events,
            "e",
            tmp_path / "workers",
        )
        supervisor.start()
        started.append(supervisor)
        dispatch = make_dispatch()
        supervisor.submit(dispatch, int(time.time() * 1000) + 3_600_000)
        return supervisor, events, dispatch

    yield run
    for supervisor in started:
        supervisor.stop()


@pytest.fixture
def cgroup_supervisor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """make(mode, **config) → (supervisor, events) on real cgroups under a test-private parent."""
    reason = cgroups_unavailable()
    if reason:
        pytest.skip(reason)
    made: list[Supervisor] = []

    def make(mode: str, **config: Any) -> tuple[Supervisor, Events]:
        monkeypatch.setenv("DRYDOCK_FAULT_WORKER_MODE", mode)
        events = Events()
        supervisor = Supervisor(_config(tmp_path, **config), events, "e", tmp_path / "workers")
        supervisor.isolation = iso.Isolation("cgroup", parent_name=f"drydock-unit-{os.getpid()}")
        supervisor.start()
        assert supervisor.isolation.kind.startswith("cgroup"), supervisor.isolation.detail
        made.append(supervisor)
        return supervisor, events

    yield make
    for supervisor in made:
        supervisor.stop()
        for base in supervisor.isolation._bases:
            for d, _, _ in os.walk(base, topdown=False):  # nested cgroups first
                Path(d).rmdir()


def test_a_worker_replying_with_a_deeply_nested_frame_is_killed_and_its_exit_reported(
    rlimit_run: Any,
) -> None:
    """On main the monitor thread died of RecursionError: no exit was ever reported, the slot
    held."""
    supervisor, events, _ = rlimit_run("nested")
    [(proof, detail)] = events.exits(timeout=30)
    assert proof is TerminationProof.CHILD_REAPED
    assert detail == "killed by SIGKILL: protocol violation: frame body nests deeper than 16 levels"
    assert supervisor.status()["inflight"] == 0


def test_the_monitor_survives_a_failing_event_handler(rlimit_run: Any) -> None:
    """A worker that answers normally (the dataset does not exist: RESOURCE_REJECTED) while
    recording its result fails: the worker is still ended, reaped and reported, with the reason."""
    supervisor, events, _ = rlimit_run("", Events(fail_on_result=True))
    [(proof, detail)] = events.exits(timeout=60)
    assert proof is TerminationProof.CHILD_REAPED
    assert "supervisor monitor failed: RuntimeError: the metadata store is unavailable" in detail
    assert supervisor.status()["inflight"] == 0


def test_an_oom_kill_names_the_cgroup_memory_limit(cgroup_supervisor: Any) -> None:
    supervisor, events = cgroup_supervisor(
        "allocate", lance_index_worker_memory_limit_bytes=200 * 2**20
    )
    supervisor.submit(make_dispatch(), int(time.time() * 1000) + 3_600_000)
    [(proof, detail)] = events.exits(timeout=60)
    assert (proof, detail) == (
        TerminationProof.CHILD_REAPED,
        "killed by SIGKILL: cgroup memory limit 200 MiB reached",
    )


def test_a_held_slot_is_proven_once_the_stray_processes_in_its_cgroup_are_gone(
    cgroup_supervisor: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker exits but leaves a process in its cgroup that the supervisor cannot kill yet (as
    a process in uninterruptible sleep): no proof. Once it can be killed, the reaper kills it and
    records CHILD_REAPED; on main nothing ever looked again, so the slot stayed held until
    restart."""
    supervisor, events = cgroup_supervisor("stray")
    unkillable = threading.Event()
    unkillable.set()
    kill_all = supervisor.isolation.kill_all
    spared: list[int] = []

    def kill_all_but_strays(group: iso.WorkerCgroup) -> None:
        if unkillable.is_set():
            spared.extend(group.procs())
            return
        kill_all(group)

    monkeypatch.setattr(supervisor.isolation, "kill_all", kill_all_but_strays)
    dispatch = make_dispatch()
    supervisor.submit(dispatch, int(time.time() * 1000) + 3_600_000)
    [(proof, detail)] = events.exits(timeout=60)
    assert (proof, detail) == (None, "exited with code 0")
    assert supervisor.status()["held"] == 1 and supervisor.status()["inflight"] == 0
    group = supervisor._held[dispatch.invocation_id].cgroup
    [stray] = group.procs()
    # the positive signal: the reaper re-checked the held worker (twice: the first re-check to end
    # may have begun before the stray was left) and still found it there
    rechecks: list[int] = []
    recheck_held = supervisor.recheck_held

    def counted_recheck() -> int:
        proven = recheck_held()
        rechecks.append(proven)
        return proven

    monkeypatch.setattr(supervisor, "recheck_held", counted_recheck)
    wait_until(
        lambda: len(rechecks) >= 2,
        10 * worker_reaping.HELD_RECHECK_SECONDS,
        "two re-checks of the held worker",
    )
    assert (
        rechecks[:2] == [0, 0] and len(events.exits()) == 1
    )  # still there: still no proof (fail closed)

    unkillable.clear()
    proven = events.exits(2, timeout=30)[1]
    assert proven == (
        TerminationProof.CHILD_REAPED,
        "exited with code 0; processes it left in its cgroup ended later",
    )
    assert (
        not Path(f"/proc/{stray}").exists()
        or Path(f"/proc/{stray}/stat").read_text().split()[2] == "Z"
    )
    assert not any(d.exists() for d in group.dirs) and supervisor.status()["held"] == 0
    assert stray in spared


# -- what the worker inherits and what it leaves behind
# ------------------------------------------------------
def test_the_worker_gets_an_allow_listed_environment(
    rlimit_run: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "server-secret")
    monkeypatch.setenv("DRYDOCK_ROOT_PASSWORD", "hunter2")
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    monkeypatch.setenv("PYTHONPATH", "/opt/extra")
    _, events, dispatch = rlimit_run("environment")
    events.exits(timeout=30)
    names = set(
        (tmp_path / "workers" / log_name(dispatch.job_id, dispatch.invocation_id))
        .read_text()
        .split()
    )
    assert {
        "PATH",
        "LC_ALL",
        "PYTHONPATH",
        "RAYON_NUM_THREADS",
        "LANCE_IO_THREADS",
        "MALLOC_ARENA_MAX",
        "DRYDOCK_WORKER_PARENT",
        "DRYDOCK_WORKER_WALL_CLOCK_SECONDS",
        "DRYDOCK_WORKER_CPUS",
    } <= names
    assert not names & {"AWS_SECRET_ACCESS_KEY", "DRYDOCK_ROOT_PASSWORD"}


def test_ambient_credentials_travel_in_the_dispatch_not_the_environment() -> None:
    env = {"AWS_ACCESS_KEY_ID": "AK", "AWS_SECRET_ACCESS_KEY": "SK", "AWS_REGION": "eu-west-1"}
    assert with_ambient_credentials("s3://b/t.lance", {"aws_region": "us-east-1"}, env) == {
        "aws_access_key_id": "AK",
        "aws_secret_access_key": "SK",
        "aws_region": "us-east-1",
    }  # the catalog's win
    assert with_ambient_credentials("/local/t.lance", {}, env) == {}


def test_a_stderr_flood_is_kept_to_its_head_and_tail(rlimit_run: Any, tmp_path: Path) -> None:
    _, events, dispatch = rlimit_run("stderr_flood")
    events.exits(timeout=30)
    log = (tmp_path / "workers" / log_name(dispatch.job_id, dispatch.invocation_id)).read_bytes()
    assert len(log) < HEAD_BYTES + TAIL_BYTES + 100  # of 4 MiB written
    assert log.startswith(b"first line\n") and log.endswith(b"last line\n")
    assert b"bytes of worker stderr omitted]" in log


def test_retention_removes_a_workers_stderr_file_with_its_job(tmp_path: Path) -> None:
    store = MetaStore(tmp_path / "meta.sqlite")
    jobs, config = JobManager(store), Config(store)
    config.set("lance_index_job_keep_max_second", "1")
    gone = jobs.create(new_job("gone"), 8, 64, 256)
    kept = jobs.create(new_job("kept", locator="/w/db/u.lance"), 8, 64, 256)
    jobs.cancel_pending(gone.id)  # resolved, no slot: eligible once older than the keep window
    logs = tmp_path / "workers"
    logs.mkdir()
    for job_id in (gone.id, kept.id):
        path = logs / log_name(job_id, uuid.uuid4().hex)
        path.write_text("stderr")
        os.utime(path, (time.time() - 60, time.time() - 60))
    (logs / "unrelated.txt").write_text("x")
    assert clean_once(jobs, config, now=time.time() + 10, log_dir=logs) == 1
    assert sorted(p.name.split("-")[1] for p in logs.glob("job-*.log")) == [str(kept.id)]
    assert (logs / "unrelated.txt").exists()


# -- bounds
# ------------------------------------------------------------------------------------------------
def test_isolation_unavailable_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(iso, "CGROUP_ROOT", tmp_path)
    supervisor = Supervisor(_config(tmp_path), Events(), "e", tmp_path / "w")
    supervisor.isolation.preflight()
    with pytest.raises(NotEnqueued) as raised:
        supervisor.submit(make_dispatch(), int(time.time() * 1000) + 3_600_000)
    assert str(raised.value) == (
        f"index worker isolation unavailable: cgroup-v2: no unified hierarchy at {tmp_path}; "
        f"cgroup-v1: no memory "
        f"hierarchy at {tmp_path / 'memory'}; set lance_index_worker_isolation = rlimit to run "
        f"workers with rlimits only"
    )


def test_finished_invocations_are_remembered_up_to_a_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(supervisor_state, "FINISHED_MEMORY", 3)
    supervisor = Supervisor(_config(tmp_path), Events(), "e", tmp_path / "w")
    for i in range(10):
        supervisor._retire(f"inv-{i}")
    assert list(supervisor._finished) == ["inv-7", "inv-8", "inv-9"]
    assert not supervisor._active and not supervisor._cancelled


def test_the_address_space_fuse_is_32_gib() -> None:
    assert (
        iso.AS_FUSE_BYTES == 32 * 2**30
    )  # generous: tight RLIMIT_AS makes lance abort (docs/job-contract.md)
