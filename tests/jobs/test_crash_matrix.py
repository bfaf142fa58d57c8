"""Crash matrix: kill -9 the server at each dangerous instant, restart it, check every invariant.

A test-only pause point (engine/support/faults.py, enabled by DRYDOCK_FAULT_PAUSE_AT) stops the
server at
the exact instant; the test then SIGKILLs it and restarts it without faults. Invariants checked
after convergence: no admitted job lost; every job in a state the contract allows; no index built
twice for one job; fence holders and quota counts equal to what the surviving records imply; no
worker process of the killed server left running.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pymysql
import pytest

from drydock.engine.jobs.control import states as st
from drydock.engine.jobs.control.manager import JobManager
from tests.conftest import ServerProcess
from tests.support.pg import StoreChoice, store_choice_for
from tests.support.waiting import wait_until

ANN = (
    "PROPERTIES ('index_type' = 'IVF_PQ', 'num_partitions' = '4', 'num_sub_vectors' = '4', "
    "'sample_rate' = '16', 'max_iters' = '5')"
)
TERMINAL = {"COMMITTED", "NOT_COMMITTED", "UNKNOWN"}


def write_dataset(path: Path, rows: int = 1000, dim: int = 8) -> None:
    import lance

    schema = pa.schema(
        [
            pa.field("id", pa.int64(), nullable=False),
            pa.field("emb", pa.list_(pa.float32(), dim), nullable=False),
        ]
    )
    data = np.random.default_rng(1).random(rows * dim, dtype=np.float32)
    lance.write_dataset(
        pa.table(
            {
                "id": pa.array(range(rows), pa.int64()),
                "emb": pa.FixedSizeListArray.from_arrays(pa.array(data), dim),
            },
            schema=schema,
        ),
        str(path),
        mode="overwrite",
    )


class Rig:
    def __init__(self, tmp_path: Path, store: StoreChoice):
        self.tmp = tmp_path
        self.warehouse = tmp_path / "wh"
        write_dataset(self.warehouse / "db" / "t.lance")
        self.marker = tmp_path / "paused.marker"
        self.store = store
        self.server = ServerProcess(data_dir=tmp_path / "data", extra_args=store.args)
        self.client_job_ids: set[str] = set()

    def start(self, **env: str) -> None:
        self.server.env = dict(env)
        self.server.start()

    def start_paused_at(self, point: str, **env: str) -> None:
        self.start(DRYDOCK_FAULT_PAUSE_AT=point, DRYDOCK_FAULT_MARKER=str(self.marker), **env)

    def sql(self, text: str) -> list[tuple[Any, ...]]:
        with self.server.connect() as conn, conn.cursor() as cur:
            cur.execute(text)
            rows = list(cur.fetchall()) if cur.description else []
        if text.lstrip().upper().startswith(("CREATE INDEX", "DROP INDEX", "CREATE OR REPLACE")):
            self.client_job_ids.update(str(r[0]) for r in rows)
        return rows

    def job(self, job_id: str) -> dict[str, Any]:
        with self.server.connect() as conn, conn.cursor(pymysql.cursors.DictCursor) as cur:
            cur.execute(f"SHOW LANCE INDEX JOB {job_id}")
            return cur.fetchone()

    def setup_catalog(self) -> None:
        self.sql(
            f"CREATE CATALOG lc PROPERTIES ('type' = 'lance', 'warehouse' = '{self.warehouse}')"
        )

    def in_background(self, text: str) -> threading.Thread:
        def run() -> None:
            try:
                self.sql(text)
            except pymysql.err.MySQLError:
                pass  # the server is killed under this statement

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        return thread

    def kill_at_marker(self) -> int:
        wait_until(self.marker.exists, 60, "the pause point")
        assert self.server.proc is not None
        pid = self.server.proc.pid
        self.server.kill9()
        self.marker.unlink()
        return pid

    def converge(self, timeout: float = 90.0) -> list[dict[str, Any]]:
        def settled() -> tuple[list[dict[str, Any]]] | None:
            with self.server.connect() as conn, conn.cursor(pymysql.cursors.DictCursor) as cur:
                cur.execute("SHOW LANCE INDEX JOBS")
                rows = list(cur.fetchall())
            done = all(
                r["State"] in TERMINAL
                and r["RefreshState"] in ("NOT_REQUIRED", "DONE")
                and r["PossibleLive"] == "NO"
                for r in rows
            )
            return (rows,) if done else None  # a tuple: an empty job list is settled too

        return wait_until(settled, timeout, "jobs to converge")[0]

    def check_invariants(self, killed_pid: int) -> None:
        rows = self.converge()
        ids = {r["JobId"] for r in rows}
        assert self.client_job_ids <= ids, "a job a client was told about is lost"
        import lance

        dataset = lance.dataset(str(self.warehouse / "db" / "t.lance"))
        names = [i["name"] for i in dataset.list_indices()]
        assert len(names) == len(set(names)), f"an index was built twice: {names}"
        assert not _workers_of(killed_pid), "a worker of the killed server is still running"
        self.server.stop()
        store = self.store.open()
        jobs = JobManager(store)
        records = list(jobs.iter_rows())
        unresolved = [j for j in records if st.is_unresolved(j.facts)]
        _table, _catalog, total = jobs.quota_counts()
        assert total == len(unresolved)
        for job in unresolved:
            assert jobs.fence_holder(job.fence) == job.id
        for job in records:
            assert job.state in st.MutationState
        store.close()


def _workers_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if f"DRYDOCK_WORKER_PARENT={pid}".encode() in environ.split(b"\0"):
            found.append(int(entry.name))
    return found


# The kill points where adoption matters most also run on PostgreSQL (``indirect`` parametrize).
BOTH_STORES = pytest.mark.parametrize("rig", ["sqlite", "postgresql"], indirect=True)


@pytest.fixture
def rig(tmp_path: Path, request: pytest.FixtureRequest) -> Any:
    kind = getattr(request, "param", "sqlite")
    r = Rig(tmp_path, store_choice_for(request, tmp_path / "data", kind))
    yield r
    r.server.kill9()


@BOTH_STORES
def test_kill_after_admission_commit(rig: Rig) -> None:
    rig.start_paused_at("after_admission_commit")
    rig.setup_catalog()
    rig.in_background(f"CREATE INDEX vi ON lc.db.t (emb) USING ANN {ANN}")
    pid = rig.kill_at_marker()
    rig.start()
    rows = rig.converge()
    assert [(r["IndexName"], r["State"]) for r in rows] == [
        ("vi", "COMMITTED")
    ]  # the durable job ran
    rig.check_invariants(pid)


def test_kill_between_prepare_and_mark_running(rig: Rig) -> None:
    """The dispatch is built but RUNNING is not durable: after restart the job is still PENDING,
    owes nothing to an unknown worker, and is dispatched once, normally (issue 13 item 7)."""
    rig.start_paused_at("between_prepare_and_mark_running")
    rig.setup_catalog()
    job_id = rig.sql(f"CREATE INDEX vi ON lc.db.t (emb) USING ANN {ANN}")[0][0]
    pid = rig.kill_at_marker()
    rig.start()  # without the pause point
    rows = rig.converge()
    assert [(r["IndexName"], r["State"]) for r in rows] == [("vi", "COMMITTED")]
    job = rig.job(job_id)
    assert (job["ResultCode"], job["CompletionReason"], job["TerminationProof"]) == (
        "NATIVE_OK",
        "NONE",
        "CHILD_REAPED",
    )
    rig.check_invariants(pid)


@BOTH_STORES
def test_kill_between_mark_running_and_submit(rig: Rig) -> None:
    rig.start_paused_at("between_mark_running_and_submit")
    rig.setup_catalog()
    job_id = rig.sql(f"CREATE INDEX vi ON lc.db.t (emb) USING ANN {ANN}")[0][0]
    pid = rig.kill_at_marker()
    rig.start()
    job = wait_until(
        lambda: (j := rig.job(job_id))["CompletionReason"] == "RECONCILED" and j, 60, "reconcile"
    )
    # nothing was ever sent: the history proves no commit
    assert (job["State"], job["CompletionReason"]) == ("NOT_COMMITTED", "RECONCILED")
    assert job["TerminationProof"] == "BE_PROCESS_EPOCH_GONE"
    rig.check_invariants(pid)


@BOTH_STORES
def test_kill_while_the_worker_builds(rig: Rig) -> None:
    rig.start(DRYDOCK_FAULT_WORKER_MODE="hang")
    rig.setup_catalog()
    job_id = rig.sql(f"CREATE INDEX vi ON lc.db.t (emb) USING ANN {ANN}")[0][0]
    wait_until(
        lambda: rig.job(job_id)["State"] == "RUNNING" and rig.job(job_id)["InvocationId"],
        30,
        "RUNNING",
    )
    assert rig.server.proc is not None
    pid = rig.server.proc.pid
    wait_until(lambda: _workers_of(pid), 30, "the worker process")
    rig.server.kill9()
    rig.start()
    job = wait_until(
        lambda: (j := rig.job(job_id))["CompletionReason"] == "RECONCILED" and j, 60, "reconcile"
    )
    assert (job["State"], job["CompletionReason"]) == ("NOT_COMMITTED", "RECONCILED")
    rig.check_invariants(pid)


def test_kill_after_worker_commit_before_result(rig: Rig) -> None:
    import lance

    rig.start(DRYDOCK_FAULT_WORKER_MODE="hang_after_commit")
    rig.setup_catalog()
    job_id = rig.sql(f"CREATE INDEX vi ON lc.db.t (emb) USING ANN {ANN}")[0][0]
    path = str(rig.warehouse / "db" / "t.lance")
    wait_until(
        lambda: any(i["name"] == "vi" for i in lance.dataset(path).list_indices()), 60, "the commit"
    )
    assert rig.server.proc is not None
    pid = rig.server.proc.pid
    rig.server.kill9()
    rig.start()
    job = wait_until(
        lambda: (j := rig.job(job_id))["CompletionReason"] == "RECONCILED" and j, 60, "reconcile"
    )
    # the pre-assigned uuid is in the history: the outcome is proven, not guessed
    assert (job["State"], job["CompletionReason"]) == ("COMMITTED", "RECONCILED")
    rig.check_invariants(pid)


def test_kill_during_refresh(rig: Rig) -> None:
    rig.start_paused_at("during_refresh")
    rig.setup_catalog()
    job_id = rig.sql("CREATE INDEX bi ON lc.db.t (id) USING BTREE")[0][0]
    pid = rig.kill_at_marker()
    rig.start()
    rig.converge()
    job = rig.job(job_id)
    assert (job["State"], job["RefreshState"]) == ("COMMITTED", "DONE")
    rig.sql(
        "CREATE INDEX bi2 ON lc.db.t (id) USING BTREE"
    )  # the fence was released after the refresh
    rig.check_invariants(pid)


def _unknown_job(rig: Rig) -> str:
    """An UNKNOWN job that evidence cannot settle (it never got an index uuid), written through the
    manager API on the stopped server's data directory."""
    from drydock.engine.core import Engine
    from tests.support.jobfactory import new_job

    rig.server.stop()
    engine = Engine(rig.server.data_dir)
    try:
        catalog = engine.catalogs.get("lc")
        locator = engine.catalogs.connector("lc").dataset_uri("db", "t")
        job = engine.jobs.create(new_job("bi", catalog_id=catalog.id, locator=locator), 8, 64, 256)
        engine.jobs.mark_running(
            job.id,
            invocation_id="lost",
            index_uuid="",
            deadline_ms=1,
            process_epoch="gone",
            backend_id="local",
        )
        engine.jobs.mark_unknown(job.id, "lost track of the worker")
        engine.jobs.record_termination_proof(job.id, st.TerminationProof.CHILD_REAPED)
    finally:
        engine.close()
    return str(job.id)


def test_kill_during_resolve(rig: Rig) -> None:
    rig.start()
    rig.setup_catalog()
    job_id = _unknown_job(rig)
    rig.start_paused_at("during_resolve")
    rig.in_background(f"RESOLVE LANCE INDEX JOB {job_id} AS FORCE_RELEASE COMMENT 'checked'")
    pid = rig.kill_at_marker()
    rig.start()
    job = rig.job(job_id)
    assert job["ForceReleased"] == ""  # the release never committed
    rig.sql(f"RESOLVE LANCE INDEX JOB {job_id} AS FORCE_RELEASE COMMENT 'checked again'")
    assert rig.job(job_id)["ForceReleased"] == "YES"
    rig.check_invariants(pid)


def test_kill_during_gc(rig: Rig) -> None:
    rig.start()
    rig.setup_catalog()
    first = rig.sql("CREATE INDEX b1 ON lc.db.t (id) USING BTREE")[0][0]
    rig.converge()
    rig.server.stop()
    rig.start_paused_at("during_gc")
    rig.sql(
        "ADMIN SET FRONTEND CONFIG ('lance_index_job_keep_max_second' = '1', "
        "'lance_index_job_clean_interval_second' = '1')"
    )
    pid = rig.kill_at_marker()
    rig.start()
    ids = {r[0] for r in rig.sql("SHOW LANCE INDEX JOBS")}
    assert ids in ({first}, set())  # all or nothing: the GC transaction never half-applies
    rig.client_job_ids.clear()  # retention may now legitimately remove the resolved job
    rig.check_invariants(pid)


def test_kill_during_a_procedure_that_deletes_files(rig: Rig) -> None:
    """expire_snapshots killed before its delete: afterwards every retained version and tag still
    opens with its rows, and a second call completes."""
    import lance

    path = str(rig.warehouse / "db" / "t.lance")
    dataset = lance.dataset(path)
    for _ in range(3):
        dataset.insert(dataset.to_table(limit=10))
    dataset = lance.dataset(path)
    dataset.tags.create("keep_v2", 2)
    expected = {
        "keep_v2": lance.dataset(path, version=2).count_rows(),
        "latest": dataset.count_rows(),
    }
    rig.start_paused_at("during_procedure_delete")
    rig.setup_catalog()
    rig.in_background("CALL lc.sys.expire_snapshots(table => 'db.t', retain_max => 1)")
    pid = rig.kill_at_marker()
    rig.start()

    def intact() -> None:
        fresh = lance.dataset(path)
        assert fresh.count_rows() == expected["latest"]
        assert (
            lance.dataset(path, version=fresh.tags.get_version("keep_v2")).count_rows()
            == expected["keep_v2"]
        )

    intact()
    rig.sql("CALL lc.sys.expire_snapshots(table => 'db.t', retain_max => 1)")
    intact()  # the tagged version survives the completed expiry too
    versions = [v["version"] for v in lance.dataset(path).versions()]
    assert 2 in versions and versions[-1] == lance.dataset(path).latest_version
    rig.check_invariants(pid)
