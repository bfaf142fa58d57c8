"""The dispatcher round (docs/job-contract.md, Dispatch): deadline sweep → proof sweep → evidence →
refresh → dispatch.

First on an in-process Engine whose ``round()`` the test drives (no background thread unless the
test starts one): NOT_ENQUEUED releases slot and round budget at once (defect 5), ambiguity keeps
the slot, the deadline sweep, an earlier epoch's worker proven gone before its slot is released,
the pause barrier under concurrency (defect 3), and evidence read from real version histories.
Then over the wire with real workers: CREATE / REPLACE / DROP with pre-assigned index uuids, and
the typed outcomes of a worker that finds its admission stale or loses a commit race.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
import sqlite3
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import lance
import pytest

from drydock.engine.support.host import host_id
from drydock.engine.jobs.control import states as st
from drydock.engine.jobs.runtime.supervisor_state import start_ticks
from drydock.engine.jobs.control.manager import DEADLINE_MESSAGE
from drydock.engine.jobs.control.reconcile import evidence
from drydock.engine.jobs.control.records import JobRecord
from drydock.engine.jobs.control.backend import NotEnqueued
from drydock.engine.jobs.control.validation import IndexSpec
from tests.conftest import ServerProcess
from tests.support.jobfactory import new_job
from tests.support.lance_fixtures import (
    ANN_FAST,
    Warehouse,
    admit,
    create_catalog,
    error_of,
    local_warehouse,
    pause,
    resume,
    rows,
    set_config,
    show_job,
    show_jobs,
    vector_table,
    wait_dispatcher_rounds,
    wait_job,
    wait_until,
)

M, R, C, P = st.MutationState, st.RefreshState, st.ResultCode, st.TerminationProof
BTREE = IndexSpec("BTREE", "BTREE", {}).to_json()


# -- an in-process engine
# ---------------------------------------------------------------------------------
@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Any]:
    from drydock.engine.core import Engine

    wh = local_warehouse(tmp_path / "wh")
    wh.write("db", "t", vector_table(300))
    e = Engine(tmp_path / "data")
    e.catalogs.create("lc", {"type": "lance", "warehouse": wh.root}, "", False)
    e.config.set("lance_index_job_max_unresolved_per_table", "100")
    yield e
    e.close()


def pending(engine: Any, name: str, catalog_id: int | None = None, **changes: Any) -> JobRecord:
    record = engine.catalogs.get("lc")
    job = new_job(
        name,
        catalog_id=record.id if catalog_id is None else catalog_id,
        locator=engine.catalogs.connector("lc").dataset_uri("db", "t"),
    )
    return engine.jobs.create(job.replace(**{"properties": BTREE, **changes}), 1000, 1000, 1000)


def run(engine: Any, job: JobRecord, epoch: str, deadline_ms: int | None = None) -> JobRecord:
    return engine.jobs.mark_running(
        job.id,
        invocation_id=uuid.uuid4().hex,
        index_uuid=str(uuid.uuid4()),
        deadline_ms=deadline_ms or int(time.time() * 1000) + 3_600_000,
        process_epoch=epoch,
        backend_id="local",
    )


def test_not_enqueued_releases_the_slot_and_the_round_budget_at_once(engine: Any) -> None:
    """Defect 5: with one slot and one dispatch per round, five provably-never-enqueued jobs all
    settle in ONE round (the supervisor has no isolation, so every submit is a clean rejection)."""
    engine.config.set("lance_index_job_max_inflight_per_backend", "1")
    engine.config.set("lance_index_job_max_dispatch_per_round", "1")
    jobs = [pending(engine, f"i{n}") for n in range(5)]
    assert engine.dispatcher.backend.status()["isolation"] == "none"
    engine.dispatcher.round()
    for job in jobs:
        done = engine.jobs.get(job.id)
        assert (done.state, done.termination_proof, done.result_code, done.refresh_state) == (
            M.NOT_COMMITTED,
            P.NOT_ENQUEUED,
            C.PRE_INVOCATION_RESOURCE_REJECTED,
            R.NOT_REQUIRED,
        )
        assert (
            done.invocation_id and done.index_uuid and done.revision == 2
        )  # RUNNING was durable first
        assert "isolation unavailable" in done.message
    assert engine.jobs.slots_in_use() == 0 and engine.jobs.quota_counts()[2] == 0


class Accepting:
    """Stands in for the backend's submit: records each dispatch and accepts it."""

    def __init__(self) -> None:
        self.sent: list[Any] = []

    def __call__(self, dispatch: Any, deadline_ms: int) -> None:
        self.sent.append(dispatch)


def refuse(*_: Any) -> None:
    raise NotEnqueued("supervisor queue is full")


def due_now(engine: Any, job: JobRecord) -> None:
    """Skip the retry backoff (seconds) so the next round prepares the job again."""
    engine.dispatcher._retry_at[job.id] = 0.0


def test_a_dispatch_that_fails_to_build_stays_pending_says_why_and_is_retried(engine: Any) -> None:
    """Issue 13 item 7: the dispatch is built before the durable RUNNING mark."""
    job = pending(engine, "flaky")
    real, failures = engine.catalogs.connector, [OSError("credentials service unreachable")]

    def flaky(name: str) -> Any:
        if failures:
            raise failures.pop()
        return real(name)

    engine.catalogs.connector = flaky
    engine.dispatcher.backend.submit = accepted = Accepting()
    engine.dispatcher.round()
    held = engine.jobs.get(job.id)
    assert (held.state, held.invocation_id, held.index_uuid, held.possible_live_owned) == (
        M.PENDING,
        "",
        "",
        False,
    )
    assert (held.dispatch_attempts, held.revision) == (1, 1)
    assert held.message == (
        "dispatch preparation failed (attempt 1): OSError; the job stays PENDING and is retried "
        "in 1 s (for up to 600 s after the first failure)"
    )  # the class, never library text
    assert engine.jobs.fence_holder(held.fence) == job.id and not accepted.sent
    engine.dispatcher.round()  # the backoff has not passed: nothing happens, nothing is written
    assert engine.jobs.get(job.id).revision == 1
    due_now(engine, held)
    engine.dispatcher.round()
    running = engine.jobs.get(job.id)
    assert (running.state, running.message) == (M.RUNNING, "")  # the stale reason is cleared first
    [dispatch] = accepted.sent
    assert (dispatch.invocation_id, dispatch.index_uuid) == (
        running.invocation_id,
        running.index_uuid,
    )


def test_dispatch_preparation_is_retried_within_the_configured_window(engine: Any) -> None:
    """Issue 27: retries span the window (default ten minutes: past the old 5 attempts, ~15 s),
    with capped exponential backoff; the window is a frontend config key."""
    engine.dispatcher.backend.submit = accepted = Accepting()
    broken = pending(engine, "broken", properties="{}")  # a damaged record: the spec cannot be read
    for attempt, delay in [(1, 1), (2, 2), (3, 4), (4, 8), (5, 16), (6, 32), (7, 60), (8, 60)]:
        engine.dispatcher.round()
        job = engine.jobs.get(broken.id)
        assert (job.state, job.dispatch_attempts) == (M.PENDING, attempt)
        assert job.message == (
            f"dispatch preparation failed (attempt {attempt}): KeyError; the job stays PENDING "
            f"and is retried in {delay} s (for up to 600 s after the first failure)"
        )
        due_now(engine, job)
    # a shorter window: 1+2+4+8+16+32+60+60 = 183 s already waited, the next 60 s would pass 200
    engine.config.set("lance_index_job_dispatch_retry_window_second", "200")
    engine.dispatcher.round()
    done = engine.jobs.get(broken.id)
    assert (
        done.state,
        done.result_code,
        done.refresh_state,
        done.termination_proof,
        done.invocation_id,
    ) == (M.NOT_COMMITTED, C.PRE_INVOCATION_RESOURCE_REJECTED, R.NOT_REQUIRED, P.NONE, "")
    assert done.message == "dispatch could not be prepared (9 attempts): KeyError"
    assert (
        not st.holds_possible_live_slot(done.facts) and engine.jobs.fence_holder(done.fence) is None
    )
    assert not accepted.sent


def test_a_job_whose_catalog_is_gone_is_not_committed_without_running(engine: Any) -> None:
    orphan = pending(engine, "orphan", 999)  # catalog ids are never reused: no retry can help
    engine.dispatcher.round()
    done = engine.jobs.get(orphan.id)
    assert (done.state, done.invocation_id, done.possible_live_owned) == (
        M.NOT_COMMITTED,
        "",
        False,
    )
    assert (
        done.message
        == "dispatch could not be prepared (1 attempt): the job's catalog no longer exists"
    )


def test_an_ambiguous_submit_is_unknown_and_keeps_its_slot(engine: Any) -> None:
    engine.config.set("lance_index_job_max_inflight_per_backend", "1")

    def lost(*_: Any) -> None:
        raise ConnectionResetError("the hand-off broke half-way")

    engine.dispatcher.backend.submit = lost
    ambiguous, waiting = pending(engine, "ambiguous"), pending(engine, "waiting")
    engine.dispatcher.round()
    unknown = engine.jobs.get(ambiguous.id)
    assert (unknown.state, unknown.result_code, unknown.termination_proof) == (
        M.UNKNOWN,
        C.NO_TRUSTED_RESULT,
        P.NONE,
    )
    assert unknown.message == "dispatch failed: ConnectionResetError"
    assert (
        st.holds_possible_live_slot(unknown.facts)
        and engine.jobs.fence_holder(unknown.fence) == ambiguous.id
    )
    engine.dispatcher.round()  # the kept slot is the only one: nothing else may start
    assert engine.jobs.get(waiting.id).state is M.PENDING


def test_the_dispatch_carries_the_bounds_stored_at_admission(engine: Any) -> None:
    """Issue 13 item 1: lowering lance_index_max_num_* after admission changes nothing for the
    job."""
    engine.dispatcher.backend.submit = accepted = Accepting()
    spec = IndexSpec(
        "ANN", "IVF_PQ", {"metric": "l2", "num_partitions": 16, "num_sub_vectors": 4}
    ).to_json()
    job = pending(engine, "v", properties=spec, max_num_partitions=4096, max_num_sub_vectors=256)
    engine.config.set("lance_index_max_num_partitions", "8")
    engine.config.set("lance_index_max_num_sub_vectors", "2")
    engine.dispatcher.round()
    [dispatch] = accepted.sent
    assert (dispatch.max_num_partitions, dispatch.max_num_sub_vectors) == (4096, 256)
    assert engine.jobs.get(job.id).state is M.RUNNING


def test_records_admitted_before_migration_6_get_bounds_their_own_values_satisfy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The validated values were within the bounds of their admission, so they are a safe bound; a
    value the build does not use takes the reference default."""
    from drydock.engine.store import metastore
    from drydock.engine.jobs.control.records import to_columns

    path = tmp_path / "meta.sqlite"
    monkeypatch.setattr(metastore, "MIGRATIONS", [m for m in metastore.MIGRATIONS if m[0] < 6])
    old = metastore.MetaStore(path)
    ann = IndexSpec("ANN", "IVF_FLAT", {"metric": "l2", "num_partitions": 16}).to_json()
    for name, props in (("v", ann), ("s", BTREE), ("bad", "not json")):
        columns = {
            k: v
            for k, v in to_columns(new_job(name).replace(properties=props)).items()
            if k not in ("id", "max_num_partitions", "max_num_sub_vectors", "dispatch_attempts")
        }
        with old.transaction() as db:
            db.execute(
                f"INSERT INTO lance_index_jobs ({', '.join(columns)}) VALUES "
                f"({', '.join('?' * len(columns))})",
                tuple(columns.values()),
            )
    old.close()
    monkeypatch.undo()
    store = metastore.MetaStore(path)
    got = store.query(
        "SELECT index_name, max_num_partitions, max_num_sub_vectors, dispatch_attempts "
        "FROM lance_index_jobs ORDER BY id"
    )
    assert [tuple(r) for r in got] == [
        ("v", 16, 256, 0),
        ("s", 4096, 256, 0),
        ("bad", 4096, 256, 0),
    ]
    store.close()


def test_a_local_job_waits_pending_while_local_mutation_is_off(engine: Any) -> None:
    """Issue 13 item 2 (in process); test_local_mutation_switch_off_holds_an_admitted_job_pending
    runs it with a real server and worker."""
    engine.dispatcher.backend.submit = accepted = Accepting()
    job = pending(engine, "local")
    engine.config.set("enable_lance_index_local_file_mutation", "false")
    for _ in range(3):
        engine.dispatcher.round()
    held = engine.jobs.get(job.id)
    assert (held.state, held.revision, held.dispatch_attempts) == (
        M.PENDING,
        1,
        0,
    )  # the reason is written once
    assert held.message == (
        "waiting: enable_lance_index_local_file_mutation = false; this local dataset is "
        "not changed while it is off"
    )
    assert not accepted.sent
    engine.config.set("enable_lance_index_local_file_mutation", "true")
    engine.dispatcher.round()
    assert (engine.jobs.get(job.id).state, engine.jobs.get(job.id).message) == (M.RUNNING, "")
    assert len(accepted.sent) == 1


def test_the_deadline_sweep_makes_unknown_and_keeps_slot_fence_and_quota(engine: Any) -> None:
    engine.config.set("lance_index_job_max_inflight_per_backend", "1")
    expired = run(
        engine, pending(engine, "old"), engine.dispatcher.epoch, int(time.time() * 1000) - 1
    )
    waiting = pending(engine, "next")
    engine.dispatcher.round()
    job = engine.jobs.get(expired.id)
    assert (job.state, job.result_code, job.message, job.termination_proof) == (
        M.UNKNOWN,
        C.NO_TRUSTED_RESULT,
        DEADLINE_MESSAGE,
        P.NONE,
    )
    assert st.holds_possible_live_slot(job.facts) and engine.jobs.fence_holder(job.fence) == job.id
    assert engine.jobs.get(waiting.id).state is M.PENDING  # a deadline never frees capacity


def test_an_earlier_epochs_worker_is_proven_gone_before_its_slot_is_released(engine: Any) -> None:
    job = run(engine, pending(engine, "lost"), "an-earlier-epoch")
    worker = subprocess.Popen(
        ["sleep", "60"]
    )  # stands in for the old server's still-running worker
    try:
        engine.jobs.record_worker(
            job.id, job.invocation_id, worker.pid, start_ticks(worker.pid), "", "an-earlier-epoch"
        )
        engine.dispatcher._adopt_earlier_epochs()
        engine.dispatcher.round()
        held = engine.jobs.get(job.id)
        assert (held.state, held.message) == (
            M.UNKNOWN,
            "server restarted while the job was running",
        )
        assert worker.wait(timeout=10) == -9  # killed by the proof sweep ...
        assert st.holds_possible_live_slot(
            held.facts
        )  # ... but not yet proven gone (it was a zombie)
    finally:
        worker.kill()
        worker.wait()
    engine.dispatcher.round()  # reaped now: proof, then evidence and refresh in the same round
    done = engine.jobs.get(job.id)
    assert (done.termination_proof, done.state, done.completion_reason, done.refresh_state) == (
        P.BE_PROCESS_EPOCH_GONE,
        M.NOT_COMMITTED,
        st.CompletionReason.RECONCILED,
        R.DONE,
    )
    assert engine.jobs.fence_holder(done.fence) is None
    audit = [
        json.loads(line) for line in (engine.data_dir / "audit.jsonl").read_text().splitlines()
    ]
    assert any(
        r["kind"] == "ReconcileLanceIndexJob"
        and f"job {job.id}: NOT_COMMITTED (RECONCILED)" == r["statement"]
        for r in audit
    )


def test_a_worker_recorded_on_another_host_is_never_proven_gone_from_here(engine: Any) -> None:
    """A store shared by frontends on several hosts: the old worker's pid is absent here, which
    proves nothing about the host it ran on. The slot stays held; recorded on this host, the same
    record is proven gone at once."""
    job = run(engine, pending(engine, "elsewhere"), "an-earlier-epoch")
    exited = subprocess.Popen(["true"])
    exited.wait()
    engine.jobs.record_worker(job.id, job.invocation_id, exited.pid, 12345, "", "an-earlier-epoch")
    with engine.store.transaction() as db:
        db.execute(
            "UPDATE lance_index_workers SET host = 'machine:another-host' WHERE job_id = ?",
            (job.id,),
        )
    assert engine.jobs.worker_host(job.id, job.invocation_id) == "machine:another-host"
    engine.dispatcher._adopt_earlier_epochs()
    engine.dispatcher.round()
    engine.dispatcher.round()
    held = engine.jobs.get(job.id)
    assert (held.state, held.termination_proof) == (M.UNKNOWN, P.NONE)
    assert st.holds_possible_live_slot(held.facts)
    with engine.store.transaction() as db:
        db.execute("UPDATE lance_index_workers SET host = ? WHERE job_id = ?", (host_id(), job.id))
    engine.dispatcher.round()
    assert engine.jobs.get(job.id).termination_proof is P.BE_PROCESS_EPOCH_GONE


def test_pause_is_a_hard_barrier_even_in_the_middle_of_a_round(engine: Any) -> None:
    """Defect 3, with the real dispatcher thread: once "SET paused = true" has returned, no job is
    marked RUNNING — not the rest of a round already under way, not a job admitted afterwards."""
    engine.config.set("lance_index_job_dispatcher_paused", "true")
    engine.dispatcher.start()
    engine.dispatcher.backend.submit = refuse  # a RUNNING job refused at once: no worker runs
    backlog = [pending(engine, f"j{n}").id for n in range(200)]
    paused = threading.Event()
    violations: list[int] = []

    def watch(job: JobRecord) -> None:
        if job.state is M.RUNNING and paused.is_set():
            violations.append(job.id)

    engine.jobs.listeners.append(watch)
    engine.config.set("lance_index_job_dispatcher_paused", "false")
    wait_until(
        lambda: engine.jobs.get(backlog[0]).state is not M.PENDING,
        30,
        "the backlog starts draining",
        interval=0.001,
    )
    engine.config.set(
        "lance_index_job_dispatcher_paused", "true"
    )  # a round is draining the backlog now
    paused.set()
    held = pending(engine, "held")
    # the positive signal: a whole round began and finished after the admission
    seen = engine.dispatcher.rounds
    for target in (seen + 1, seen + 2):  # the first to finish may have begun before the admission
        engine.dispatcher.wake()
        wait_until(
            lambda target=target: engine.dispatcher.rounds >= target,
            30,
            "a dispatcher round while paused",
        )
    assert not violations
    assert engine.jobs.get(held.id).state is M.PENDING
    paused.clear()
    engine.config.set("lance_index_job_dispatcher_paused", "false")
    wait_until(
        lambda: engine.jobs.get(held.id).state is not M.PENDING, 60, "the held job is dispatched"
    )
    assert all(engine.jobs.get(j).state is M.NOT_COMMITTED for j in [*backlog, held.id])


# -- evidence from real version histories
# ---------------------------------------------------------------------
def history(tmp_path: Path, commit: str | None, then_drop: bool = False, gap: bool = False) -> str:
    uri = str(tmp_path / "e.lance")
    lance.write_dataset(vector_table(300), uri)  # v1: the admitted version
    if commit:
        lance.dataset(uri).create_scalar_index("id", "BTREE", name="b", index_uuid=commit)
    lance.write_dataset(vector_table(10), uri, mode="append")  # another writer
    if then_drop:
        lance.dataset(uri).drop_index("b")
    if gap:  # versions between the admitted one and the latest are cleaned up
        lance.write_dataset(vector_table(10), uri, mode="append")
        lance.dataset(uri).cleanup_old_versions(older_than=dt.timedelta(0))
    return uri


@pytest.mark.parametrize(
    "committed, then_drop, gap, verdict",
    [
        (True, False, False, True),  # our uuid was committed
        (True, False, True, True),  # and is in the latest manifest: gaps do not matter
        (True, True, False, True),  # committed, later dropped by someone: the chain still shows it
        (False, False, False, False),  # complete chain, never there: provably not committed
        (False, False, True, None),  # a gap could have held it: cannot tell
        (True, True, True, None),  # dropped and its commit cleaned away: cannot tell
    ],
)
def test_evidence_from_the_version_history(
    tmp_path: Path, committed: bool, then_drop: bool, gap: bool, verdict: bool | None
) -> None:
    ours = str(uuid.uuid4())
    uri = history(tmp_path, ours if committed else None, then_drop, gap)
    job = new_job("b", locator=uri).replace(index_uuid=ours, admitted_version=1)
    assert evidence(job, lance.dataset(uri), {}) is verdict


def test_drop_evidence_is_only_negative(tmp_path: Path) -> None:
    uri = history(tmp_path, str(uuid.uuid4()))
    job = new_job("b", locator=uri, operation=st.MutationType.DROP).replace(admitted_version=2)
    assert evidence(job, lance.dataset(uri), {}) is False  # the same index is still there
    lance.dataset(uri).drop_index("b")
    assert evidence(job, lance.dataset(uri), {}) is None  # gone: by this job or by anyone


# -- over the wire, real workers
# -----------------------------------------------------------------------------
def test_an_admission_wakes_the_dispatcher_only_when_it_could_dispatch(engine: Any) -> None:
    """While paused, an admission burst would wake one empty round per job; a change that is not
    a PENDING job (a cancel), and resuming, still wake it."""
    wake = engine.dispatcher._wake  # noqa: SLF001 - the wake-up itself is what is tested
    engine.config.set("lance_index_job_dispatcher_paused", "true")
    wake.clear()
    held = pending(engine, "held_while_paused")
    assert not wake.is_set()
    engine.jobs.cancel_pending(held.id)
    assert wake.is_set()
    wake.clear()
    engine.config.set("lance_index_job_dispatcher_paused", "false")
    assert wake.is_set()
    wake.clear()
    pending(engine, "admitted_while_running")
    assert wake.is_set()


@pytest.fixture(scope="module")
def wire(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[ServerProcess, Warehouse, str]]:
    root = tmp_path_factory.mktemp("dispatch")
    server = ServerProcess(data_dir=root / "data").start()
    wh = local_warehouse(root / "wh")
    for table in ("t", "contract", "gone", "race", "vanish", "bounds", "held", "redrop"):
        wh.write("db", table, vector_table(300))
    for table in ("vanish", "redrop"):
        wh.dataset("db", table).create_scalar_index("id", "BTREE", name="x")
    catalog = create_catalog(server, wh)
    yield server, wh, catalog
    server.stop()


def stored(server: ServerProcess, job_id: int, column: str) -> Any:
    with sqlite3.connect(f"file:{server.data_dir / 'meta.sqlite'}?mode=ro", uri=True) as db:
        return db.execute(
            f"SELECT {column} FROM lance_index_jobs WHERE id = ?", (job_id,)
        ).fetchone()[0]


def uuids(wh: Warehouse, table: str, name: str) -> set[str]:
    return {str(i["uuid"]) for i in wh.dataset("db", table).list_indices() if i["name"] == name}


def reaped(job: dict[str, str]) -> bool:
    """A known outcome, its refresh done or not owed, and its worker proven gone."""
    return (
        job["State"] in ("COMMITTED", "NOT_COMMITTED")
        and job["RefreshState"] in ("DONE", "NOT_REQUIRED")
        and job["PossibleLive"] == "NO"
    )


def test_create_replace_drop_run_in_workers_with_pre_assigned_uuids(wire: Any) -> None:
    server, wh, c = wire
    [backend] = rows(server, "SHOW BACKENDS")
    epoch = backend[-1]
    ann = (
        'PROPERTIES ("index_type" = "IVF_PQ", "num_partitions" = "4", "num_sub_vectors" = "4", '
        f"{ANN_FAST})"
    )
    before_ms = int(time.time() * 1000)
    job = wait_job(
        server, admit(server, f"CREATE INDEX v ON {c}.db.t (emb) USING ANN {ann}"), reaped
    )
    assert (
        job["State"],
        job["RefreshState"],
        job["ResultCode"],
        job["TerminationProof"],
        job["Operation"],
        job["ExternalMetadataAdvanced"],
        job["CompletionReason"],
    ) == ("COMMITTED", "DONE", "NATIVE_OK", "CHILD_REAPED", "CREATE", "YES", "NONE")
    assert (
        job["BeProcessEpoch"] == epoch
        and job["BackendId"] == "local"
        and len(job["InvocationId"]) == 32
    )
    assert before_ms + 3_600_000 <= int(job["DeadlineMs"]) <= int(time.time() * 1000) + 3_600_000
    assert job["Progress"]  # the build's own progress events arrived
    first = stored(server, int(job["JobId"]), "index_uuid")
    assert uuids(wh, "t", "v") == {first}  # built with the uuid the dispatcher pre-assigned
    assert [r[2] for r in rows(server, f"SHOW INDEX FROM {c}.db.t")] == [
        "v"
    ]  # the refresh re-read the table

    job = wait_job(
        server,
        admit(server, f"CREATE OR REPLACE INDEX v ON {c}.db.t (emb) USING ANN {ann}"),
        reaped,
    )
    assert (job["Operation"], job["State"], job["RefreshState"]) == ("REPLACE", "COMMITTED", "DONE")
    second = stored(server, int(job["JobId"]), "index_uuid")
    assert second != first and uuids(wh, "t", "v") == {second}

    job = wait_job(server, admit(server, f"CREATE INDEX s ON {c}.db.t (id) USING BTREE"), reaped)
    assert job["State"] == "COMMITTED" and uuids(wh, "t", "s") == {
        stored(server, int(job["JobId"]), "index_uuid")
    }
    job = wait_job(server, admit(server, f"DROP INDEX v ON {c}.db.t"), reaped)
    assert (job["Operation"], job["State"], job["ResultCode"]) == ("DROP", "COMMITTED", "NATIVE_OK")
    assert uuids(wh, "t", "v") == set() and [
        r[2] for r in rows(server, f"SHOW INDEX FROM {c}.db.t")
    ] == ["s"]


def test_stale_admissions_and_lost_races_end_in_their_typed_outcomes(wire: Any) -> None:
    """Admitted while paused; then an external writer changes the dataset; then the worker runs."""
    server, wh, c = wire
    pause(server)
    try:
        contract = admit(
            server,
            f"CREATE INDEX k ON {c}.db.contract (emb) USING ANN PROPERTIES ("
            f'"index_type" = "IVF_PQ", "num_partitions" = "4", "num_sub_vectors" = "4")',
        )
        gone = admit(server, f"CREATE INDEX g ON {c}.db.gone (id) USING BTREE")
        race = admit(server, f"CREATE INDEX r ON {c}.db.race (id) USING BTREE")
        vanish = admit(server, f"DROP INDEX IF EXISTS x ON {c}.db.vanish")
        assert all(
            show_job(server, j)["State"] == "PENDING" for j in (contract, gone, race, vanish)
        )
        # the table is re-created at the same place: version 1 again, with another vector dimension
        shutil.rmtree(wh.uri("db", "contract"))
        wh.write("db", "contract", vector_table(300, dim=8))
        # the pinned version is cleaned away after newer ones were written
        wh.write("db", "gone", vector_table(5), mode="append")
        wh.dataset("db", "gone").cleanup_old_versions(older_than=dt.timedelta(0))
        # another writer builds the same index name first
        wh.dataset("db", "race").create_scalar_index("id", "BTREE", name="r")
        external = uuids(wh, "race", "r")
        # another writer drops the index the job was admitted to drop
        wh.dataset("db", "vanish").drop_index("x")
    finally:
        resume(server)
    expected = {
        contract: ("NOT_COMMITTED", "PRE_INVOCATION_STALE_ADMISSION", "NO", "NOT_REQUIRED", "NONE"),
        gone: ("NOT_COMMITTED", "PRE_INVOCATION_STALE_ADMISSION", "YES", "DONE", "NONE"),
        race: ("NOT_COMMITTED", "NATIVE_COMMIT_CONFLICT", "YES", "DONE", "NONE"),
        vanish: ("NOT_COMMITTED", "NATIVE_NOT_FOUND", "YES", "DONE", "IF_CONDITION_NOOP"),
    }
    for job_id, outcome in expected.items():
        job = wait_job(server, job_id, reaped)
        assert (
            job["State"],
            job["ResultCode"],
            job["ExternalMetadataAdvanced"],
            job["RefreshState"],
            job["CompletionReason"],
        ) == outcome, job
        assert job["TerminationProof"] == "CHILD_REAPED"
    assert uuids(wh, "race", "r") == external  # the loser committed nothing
    assert wh.indexes("db", "contract") == {} and wh.indexes("db", "gone") == {}


def test_pause_holds_pending_jobs_and_shows_in_show_backends(wire: Any) -> None:
    server, wh, c = wire
    pause(server)
    try:
        assert rows(server, "SHOW BACKENDS")[0][9] == "true"
        held = admit(server, f"CREATE INDEX p ON {c}.db.t (id) USING BITMAP")
        dropped = admit(server, f"CREATE INDEX q ON {c}.db.t (id) USING BITMAP")
        wait_dispatcher_rounds(
            server
        )  # the admissions woke the dispatcher; a paused one must not act on them
        job = show_job(server, held)
        assert (job["State"], job["InvocationId"], job["PossibleLive"], job["Revision"]) == (
            "PENDING",
            "",
            "NO",
            "0",
        )
        server.query(f"CANCEL LANCE INDEX JOB {dropped}")  # PENDING → NOT_COMMITTED at once
        job = show_job(server, dropped)
        assert (
            job["State"],
            job["CompletionReason"],
            job["RefreshState"],
            job["InvocationId"],
        ) == ("NOT_COMMITTED", "CANCELLED", "NOT_REQUIRED", "")
    finally:
        resume(server)
    assert rows(server, "SHOW BACKENDS")[0][9] == "false"
    assert wait_job(server, held, reaped)["State"] == "COMMITTED"
    assert show_job(server, dropped)["InvocationId"] == ""  # never dispatched
    assert "q" not in {i["name"] for i in wh.dataset("db", "t").list_indices()}
    assert error_of(server, f"CANCEL LANCE INDEX JOB {held}") == (
        5107,
        f"Lance index job {held} cannot be cancelled: it is already COMMITTED",
    )


def test_a_job_runs_with_the_bounds_it_was_admitted_under(wire: Any) -> None:
    """Issue 13 item 1: admitted with num_partitions = 16 under the default max (4096); the max is
    then lowered to 8. The worker must enforce the admission-time bound, not today's config (on the
    old code: RUNNING → UNKNOWN, NATIVE_INVALID_ARGUMENT)."""
    server, wh, c = wire
    pause(server)
    try:
        job_id = admit(
            server,
            f'CREATE INDEX b ON {c}.db.bounds (emb) USING ANN PROPERTIES ("index_type" = '
            f'"IVF_PQ", "num_partitions" = "16", "num_sub_vectors" = "4", {ANN_FAST})',
        )
        set_config(server, lance_index_max_num_partitions=8, lance_index_max_num_sub_vectors=2)
    finally:
        resume(server)
    try:
        job = wait_job(server, job_id, reaped)
    finally:
        set_config(server, lance_index_max_num_partitions=4096, lance_index_max_num_sub_vectors=256)
    assert (job["State"], job["ResultCode"]) == ("COMMITTED", "NATIVE_OK"), job
    assert uuids(wh, "bounds", "b") == {stored(server, job_id, "index_uuid")}
    assert (
        stored(server, job_id, "max_num_partitions"),
        stored(server, job_id, "max_num_sub_vectors"),
    ) == (4096, 256)


def test_local_mutation_switch_off_holds_an_admitted_job_pending(wire: Any) -> None:
    """Issue 13 item 2: a job admitted while the switch was on is not dispatched once it is off; it
    waits PENDING, SHOW says why, the dataset is untouched; switched back on, it runs."""
    server, wh, c = wire
    pause(server)
    try:
        job_id = admit(server, f"CREATE INDEX h ON {c}.db.held (id) USING BTREE")
        set_config(server, enable_lance_index_local_file_mutation=False)
    finally:
        resume(server)
    try:
        # resuming woke the dispatcher; it must hold the job, not send it. The positive signal: the
        # dispatcher wrote why it holds the job (the same step that declines to send it)
        wait_until(
            lambda: show_job(server, job_id)["Message"].startswith("waiting:"),
            30,
            "the dispatcher notes the held job",
        )
        wait_dispatcher_rounds(server)  # and another look later still holds it
        [listed] = [j for j in show_jobs(server, f'FROM {c}.db WHERE TableName = "held"')]
        assert (listed["JobId"], listed["State"], listed["PossibleLive"]) == (
            str(job_id),
            "PENDING",
            "NO",
        )
        assert listed["Message"] == (
            "waiting: enable_lance_index_local_file_mutation = false; this local "
            "dataset is not changed while it is off"
        )
        assert show_job(server, job_id)["InvocationId"] == "" and wh.indexes("db", "held") == {}
    finally:
        set_config(server, enable_lance_index_local_file_mutation=True)
    job = wait_job(server, job_id, reaped)
    assert (job["State"], job["ResultCode"]) == ("COMMITTED", "NATIVE_OK")
    assert uuids(wh, "held", "h") == {stored(server, job_id, "index_uuid")}


def test_drop_carries_a_schema_contract_the_worker_recomputes(wire: Any) -> None:
    """Issue 13 item 3: DROP captures the indexed column's field id and type from the index
    metadata; the table is then re-created at the same place (same version numbers) with an index
    of that name on another column: the worker refuses, nothing is dropped."""
    server, wh, c = wire
    pause(server)
    try:
        job_id = admit(server, f"DROP INDEX x ON {c}.db.redrop")
        contract = json.loads(stored(server, job_id, "schema_contract"))
        assert contract == {
            "version": 1,
            "fields": [{"fieldId": 0, "name": "id", "type": "int64", "nullable": True}],
        }
        assert (
            show_job(server, job_id)["SchemaContractVersion"],
            show_job(server, job_id)["ColumnName"],
        ) == ("1", "id")
        shutil.rmtree(wh.uri("db", "redrop"))
        wh.write("db", "redrop", vector_table(300))
        wh.dataset("db", "redrop").create_scalar_index("name", "BTREE", name="x")
        external = uuids(wh, "redrop", "x")
    finally:
        resume(server)
    job = wait_job(server, job_id, reaped)
    assert (job["State"], job["ResultCode"], job["Message"]) == (
        "NOT_COMMITTED",
        "PRE_INVOCATION_STALE_ADMISSION",
        "schema contract changed",
    ), job
    assert uuids(wh, "redrop", "x") == external  # the other column's index survived
