"""Worker faults with real processes: each ends in the typed outcome the reference prescribes, the
worker is proven gone before its slot is released, and the server keeps serving.

The faults are the worker's own (``DRYDOCK_FAULT_WORKER_MODE``, engine/jobs/worker.py): a memory
hog under a small cgroup limit (the kernel's OOM killer ends it), a hang (wall-clock deadline:
SIGTERM, or SIGKILL after the grace when TERM is ignored), abort / SIGKILL, garbage and oversized
frames on the pipe, a build that waits mid-way for CANCEL; and the server's: ``kill -9`` while
builds run, and a machine without cgroups (``DRYDOCK_FAULT_CGROUP_ROOT``).

No result frame means no trusted result: the job is UNKNOWN until the supervisor reaps the exact
child (CHILD_REAPED); the dataset's version history then proves it NOT_COMMITTED (RECONCILED).
"""

from __future__ import annotations

import datetime as dt
import os
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ServerProcess, make_server
from tests.support.isolation import needs_cgroup_v1, needs_cgroups
from tests.support.lance_fixtures import (
    Warehouse,
    admit,
    create_catalog,
    error_of,
    local_warehouse,
    rows,
    set_config,
    show_job,
    show_jobs,
    vector_table,
    wait_job,
    wait_until,
)

LOST_WORKER = ("NOT_COMMITTED", "RECONCILED", "NO_TRUSTED_RESULT", "CHILD_REAPED", "DONE", "NO")


def outcome(job: dict[str, str]) -> tuple[str, ...]:
    return (
        job["State"],
        job["CompletionReason"],
        job["ResultCode"],
        job["TerminationProof"],
        job["RefreshState"],
        job["PossibleLive"],
    )


def reaped(job: dict[str, str]) -> bool:
    """A known outcome, its refresh done or not owed, and its worker proven gone."""
    return (
        job["State"] in ("COMMITTED", "NOT_COMMITTED")
        and job["RefreshState"] in ("DONE", "NOT_REQUIRED")
        and job["PossibleLive"] == "NO"
    )


Start = Callable[..., tuple[ServerProcess, Warehouse, str]]


@pytest.fixture
def start(tmp_path: Path) -> Iterator[Start]:
    """start(config={...}, config_file=..., **server_env) → (server, warehouse with db.t,
    catalog)."""
    servers: list[ServerProcess] = []

    def _start(
        config: dict[str, Any] | None = None, config_file: str = "", **env: str
    ) -> tuple[ServerProcess, Warehouse, str]:
        args = ["--config", config_file] if config_file else []
        server = make_server(tmp_path, *args, **env).start()
        servers.append(server)
        wh = local_warehouse(tmp_path / "wh")
        for table in ("t", "t2"):
            if not os.path.isdir(wh.uri("db", table)):
                wh.write("db", table, vector_table(300))
        catalog = create_catalog(server, wh)
        set_config(server, **(config or {}))
        return server, wh, catalog

    yield _start
    for server in servers:
        server.stop()


def worker_of(server: ServerProcess, job_id: int) -> tuple[int, str]:
    """(pid, cgroup name) the supervisor recorded when it released the worker."""
    with sqlite3.connect(f"file:{server.data_dir / 'meta.sqlite'}?mode=ro", uri=True) as db:
        row = db.execute(
            "SELECT pid, cgroup FROM lance_index_workers WHERE job_id = ?", (job_id,)
        ).fetchone()
    assert row is not None, f"no worker recorded for job {job_id}"
    return int(row[0]), str(row[1])


def cgroup_dirs(server: ServerProcess, name: str) -> list[Path]:
    [backend] = rows(server, "SHOW BACKENDS")
    assert backend[3] == "cgroup-v1", (
        backend
    )  # this machine and CI delegate cgroup v1 memory + pids
    return [Path(base) / name for base in backend[4].split(" at ", 1)[1].split(", ")]


def process_gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state in ("Z", "X")


def still_serving(server: ServerProcess, catalog: str) -> None:
    assert rows(server, f"SELECT count(*) FROM {catalog}.db.t") == [(300,)]
    backend = rows(server, "SHOW BACKENDS")[0]
    assert (backend[2], backend[6], backend[7]) == ("true", 0, 0)  # alive, no worker, no slot held


def worker_log_lines(server: ServerProcess, job_id: int) -> list[str]:
    return [line for line in server.log_text().splitlines() if f"job {job_id}: worker pid" in line]


@needs_cgroup_v1
def test_a_worker_over_its_cgroup_memory_limit_is_oom_killed(start: Start) -> None:
    server, wh, c = start(
        {"lance_index_worker_memory_limit_bytes": 300 * 2**20}, DRYDOCK_FAULT_WORKER_MODE="allocate"
    )
    job_id = admit(server, f"CREATE INDEX m ON {c}.db.t (id) USING BTREE")
    job = wait_job(server, job_id, reaped, timeout=60)
    assert outcome(job) == LOST_WORKER
    # by the kernel: no deadline, no protocol kill
    cause = "killed by SIGKILL: cgroup memory limit 300 MiB reached"
    assert job["Message"] == (
        f"worker ended without a trusted result ({cause}); "
        "complete version history shows no commit of this job"
    )  # settling kept the cause
    [line] = worker_log_lines(server, job_id)
    assert " WARNING " in line, line
    assert f"{cause}; proof CHILD_REAPED" in line
    assert wh.indexes("db", "t") == {}
    still_serving(server, c)


@needs_cgroup_v1
@pytest.mark.parametrize(
    "ignore_term, ending",
    [
        ("0", "killed by SIGTERM: wall-clock limit of 8 s reached"),
        (
            "1",
            "killed by SIGKILL: wall-clock limit of 8 s reached; SIGTERM ignored for the 1 s grace",
        ),
    ],
)
def test_a_hung_worker_gets_sigterm_at_its_deadline_then_sigkill_after_the_grace(
    start: Start, ignore_term: str, ending: str
) -> None:
    config = {
        "lance_index_worker_wallclock_limit_seconds": 8,
        "lance_index_worker_termination_grace_seconds": 1,
        "lance_index_worker_memory_limit_bytes": 2**30,
        "lance_index_worker_pids_max": 77,
        "lance_index_worker_rayon_threads": 1,
        "lance_index_worker_io_threads": 3,
    }
    server, _, c = start(
        config,
        DRYDOCK_FAULT_WORKER_MODE="hang",
        DRYDOCK_FAULT_WORKER_IGNORE_TERM=ignore_term,
        AWS_SECRET_ACCESS_KEY="server-secret",
    )
    job_id = admit(server, f"CREATE INDEX h ON {c}.db.t (id) USING BTREE")
    running = wait_job(
        server, job_id, lambda j: j["State"] == "RUNNING" and j["PossibleLive"] == "YES"
    )
    wait_until(lambda: rows(server, "SHOW BACKENDS")[0][6] == 1, 30, "the worker is released")
    pid, group = worker_of(server, job_id)
    assert group == f"w-{job_id}-{running['InvocationId'][:8]}"
    # isolated: in its own cgroup with the configured limits, rlimits set, threads capped by config
    memory, pids = cgroup_dirs(server, group)
    assert (
        f"{memory.relative_to('/sys/fs/cgroup/memory')}\n"
        in Path(f"/proc/{pid}/cgroup").read_text() + "\n"
    )
    assert (memory / "memory.limit_in_bytes").read_text().strip() == str(2**30)
    assert (pids / "pids.max").read_text().strip() == "77"
    environ = dict(
        kv.split("=", 1) for kv in Path(f"/proc/{pid}/environ").read_text().split("\0") if "=" in kv
    )
    assert (environ["RAYON_NUM_THREADS"], environ["LANCE_IO_THREADS"]) == ("1", "3")
    limits = Path(f"/proc/{pid}/limits").read_text()
    assert any(
        line.startswith("Max core file size") and line.split()[4:6] == ["0", "0"]
        for line in limits.splitlines()
    )
    assert any(
        line.startswith("Max open files") and line.split()[3:5] == ["1024", "1024"]
        for line in limits.splitlines()
    )
    assert any(
        line.startswith("Max cpu time") and line.split()[3] == "32" for line in limits.splitlines()
    )  # 4 × 8 s
    assert any(
        line.startswith("Max address space") and line.split()[3] == str(32 * 2**30)
        for line in limits.splitlines()
    )  # a generous fuse only (docs/job-contract.md)
    assert (
        "AWS_SECRET_ACCESS_KEY" not in environ and "PATH" in environ
    )  # an allow-list, not the server's
    assert (
        error_of(server, f"CREATE INDEX h ON {c}.db.t (id) USING BTREE")[0] == 5100
    )  # fenced while it runs

    job = wait_job(server, job_id, reaped, timeout=30)
    assert outcome(job) == LOST_WORKER
    assert process_gone(pid)
    assert (
        not memory.exists() and not pids.exists()
    )  # CHILD_REAPED only with its cgroup emptied and gone
    [line] = worker_log_lines(server, job_id)
    assert f"{ending}; proof CHILD_REAPED" in line
    still_serving(server, c)


@needs_cgroups
@pytest.mark.parametrize(
    "mode, ending",
    [
        (
            "abort",
            "killed by SIGABRT: native abort (a failed allocation under the address-space fuse "
            "aborts)",
        ),
        ("sigkill", "killed by SIGKILL"),
        ("garbage", "killed by SIGKILL: protocol violation: unexpected frame kind b'Z'"),
        (
            "oversized",
            "killed by SIGKILL: protocol violation: b'R' frame announces 10485759 bytes, cap is "
            "8192",
        ),
        ("nested", "killed by SIGKILL: protocol violation: frame body nests deeper than 16 levels"),
    ],
)
def test_a_crashing_or_babbling_worker_ends_unknown_then_reconciled(
    start: Start, mode: str, ending: str
) -> None:
    server, wh, c = start(DRYDOCK_FAULT_WORKER_MODE=mode)
    job_id = admit(server, f"CREATE INDEX x ON {c}.db.t (id) USING BTREE")
    job = wait_job(server, job_id, reaped, timeout=60)
    assert outcome(job) == LOST_WORKER
    assert job["Message"] == (
        f"worker ended without a trusted result ({ending}); "
        "complete version history shows no commit of this job"
    )
    [line] = worker_log_lines(server, job_id)
    assert f"{ending}; proof CHILD_REAPED" in line
    assert wh.indexes("db", "t") == {}
    still_serving(server, c)


@needs_cgroups
def test_cancel_aborts_a_running_build_from_its_progress_callback(start: Start) -> None:
    """hold_progress: the worker's progress callback reports the first event of the build, then
    waits for CANCEL and raises. Lance aborts a build whose callback raises while it still runs;
    this one trains 64 IVF partitions on 20k rows (seconds), so it still runs when CANCEL lands."""
    server, wh, c = start(
        {"lance_index_job_max_inflight_per_backend": 1}, DRYDOCK_FAULT_WORKER_MODE="hold_progress"
    )
    wh.write("db", "big", vector_table(20_000))
    slow = (
        'USING ANN PROPERTIES ("index_type" = "IVF_PQ", "num_partitions" = "64", '
        '"num_sub_vectors" = "4")'
    )
    first = admit(server, f"CREATE INDEX a ON {c}.db.big (emb) {slow}")
    live = wait_job(server, first, lambda j: j["State"] == "RUNNING" and j["Progress"] != "")
    assert live["Progress"].startswith("train_ivf")  # live progress of the running build ...
    assert [j["Progress"] for j in show_jobs(server, 'WHERE State = "RUNNING"')] == [
        live["Progress"]
    ]  # ... in both
    second = admit(server, f"CREATE INDEX b ON {c}.db.big (emb) {slow}")
    assert (
        show_job(server, second)["State"] == "PENDING"
    )  # the only slot is held by the waiting build
    for job_id in (first, second):
        wait_job(server, job_id, lambda j: j["State"] == "RUNNING" and j["Progress"] != "")
        server.query(f"CANCEL LANCE INDEX JOB {job_id}")
        job = wait_job(server, job_id, reaped)
        assert (
            job["State"],
            job["CompletionReason"],
            job["ResultCode"],
            job["TerminationProof"],
            job["RefreshState"],
            job["Message"],
        ) == (
            "NOT_COMMITTED",
            "CANCELLED",
            "CANCELLED_BEFORE_COMMIT",
            "CHILD_REAPED",
            "NOT_REQUIRED",
            "cancelled before commit",
        )
        assert error_of(server, f"CANCEL LANCE INDEX JOB {job_id}") == (
            5107,
            f"Lance index job {job_id} cannot be cancelled: it is already NOT_COMMITTED",
        )
    assert wh.indexes("db", "big") == {}
    still_serving(server, c)


@needs_cgroup_v1
def test_kill_9_while_builds_run_then_restart_converges_every_job(start: Start) -> None:
    server, wh, c = start(DRYDOCK_FAULT_WORKER_MODE="hang")
    a = admit(server, f"CREATE INDEX ia ON {c}.db.t (id) USING BTREE")
    b = admit(server, f"CREATE INDEX ib ON {c}.db.t2 (id) USING BTREE")
    pending = admit(server, f"CREATE INDEX ic ON {c}.db.t (name) USING BTREE")
    for job_id in (a, b):
        wait_job(server, job_id, lambda j: j["State"] == "RUNNING")
    wait_until(lambda: rows(server, "SHOW BACKENDS")[0][6] == 2, 30, "both workers released")
    assert show_job(server, pending)["State"] == "PENDING"  # both slots (max inflight 2) are held
    workers = {job_id: worker_of(server, job_id) for job_id in (a, b)}
    groups = [d for _, group in workers.values() for d in cgroup_dirs(server, group)]
    assert all(d.is_dir() for d in groups)

    server.kill9()
    wait_until(
        lambda: all(process_gone(pid) for pid, _ in workers.values()),
        30,
        "PDEATHSIG ended the workers",
    )
    # while the server is down another writer appends to t2 and cleans up old versions: job b's
    # version history now has a gap, so its outcome cannot be proven from it
    wh.write("db", "t2", vector_table(5), mode="append")
    wh.write("db", "t2", vector_table(5), mode="append")
    wh.dataset("db", "t2").cleanup_old_versions(older_than=dt.timedelta(0))

    server.env = {}  # the restarted server runs healthy workers
    server.start()
    job = wait_job(server, a, reaped)
    assert outcome(job) == (
        "NOT_COMMITTED",
        "RECONCILED",
        "NO_TRUSTED_RESULT",
        "BE_PROCESS_EPOCH_GONE",
        "DONE",
        "NO",
    )
    assert (
        wait_job(server, pending, reaped)["State"] == "COMMITTED"
    )  # dispatched by the new process
    job = show_job(server, b)  # proven gone in the same round as a, and looked at again since
    assert outcome(job) == (
        "UNKNOWN",
        "NONE",
        "NO_TRUSTED_RESULT",
        "BE_PROCESS_EPOCH_GONE",
        "NOT_REQUIRED",
        "NO",
    )
    assert job["Message"] == "server restarted while the job was running"
    assert not any(d.exists() for d in groups)  # the old workers' cgroups were emptied and removed

    assert error_of(server, f"CREATE INDEX ib ON {c}.db.t2 (id) USING BTREE") == (
        5100,
        f"lance index 'ib' is fenced by unresolved job {b}; resolve that job (FORCE_RELEASE) "
        f"before reusing the name",
    )
    server.query(
        f"RESOLVE LANCE INDEX JOB {b} AS FORCE_RELEASE COMMENT 'worker proven gone; history has a "
        f"gap'"
    )
    for sql in (
        f"CREATE INDEX ib ON {c}.db.t2 (id) USING BTREE",
        f"CREATE INDEX ia ON {c}.db.t (id) USING BTREE",
    ):
        assert wait_job(server, admit(server, sql), reaped)["State"] == "COMMITTED"
    names = sorted(
        i["name"] for table in ("t", "t2") for i in wh.dataset("db", table).list_indices()
    )
    assert names == ["ia", "ib", "ic"]  # every index exactly once
    assert all(process_gone(pid) for pid, _ in workers.values())
    still_serving(server, c)


def test_without_cgroups_work_is_refused_unless_rlimit_isolation_is_configured(
    start: Start, tmp_path: Path
) -> None:
    no_cgroups = tmp_path / "no-cgroups"
    no_cgroups.mkdir()
    server, wh, c = start(DRYDOCK_FAULT_CGROUP_ROOT=str(no_cgroups))
    assert rows(server, "SHOW BACKENDS")[0][3] == "none"
    job = wait_job(server, admit(server, f"CREATE INDEX r ON {c}.db.t (id) USING BTREE"), reaped)
    assert outcome(job) == (
        "NOT_COMMITTED",
        "NONE",
        "PRE_INVOCATION_RESOURCE_REJECTED",
        "NOT_ENQUEUED",
        "NOT_REQUIRED",
        "NO",
    )
    assert job["Message"].startswith(
        "index worker isolation unavailable: cgroup-v2: no unified hierarchy at "
    )
    assert job["Message"].endswith(
        "set lance_index_worker_isolation = rlimit to run workers with rlimits only"
    )
    server.stop()

    config = tmp_path / "drydock.toml"
    config.write_text('[frontend]\nlance_index_worker_isolation = "rlimit"\n')
    server, wh, c = start(config_file=str(config), DRYDOCK_FAULT_CGROUP_ROOT=str(no_cgroups))
    assert rows(server, "SHOW BACKENDS")[0][3] == "rlimit"  # the fallback is explicit and visible
    job = wait_job(server, admit(server, f"CREATE INDEX r ON {c}.db.t (id) USING BTREE"), reaped)
    assert (job["State"], job["TerminationProof"]) == ("COMMITTED", "CHILD_REAPED")
    assert wh.indexes("db", "t") == {"r": "BTree"}
