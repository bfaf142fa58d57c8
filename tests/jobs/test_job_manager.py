"""The job manager over a real metadata store: transitions, fences, quotas, replay, retention."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from drydock.engine.store.config import Config
from drydock.engine.errors import DrydockError
from drydock.engine.jobs.control import states as st
from drydock.engine.jobs.control.manager import JobManager
from drydock.engine.jobs.control.retention import clean_once
from drydock.engine.store.metastore import MetadataStore
from tests.support.jobfactory import new_job

M, R, C, P = st.MutationState, st.RefreshState, st.ResultCode, st.TerminationProof
LIMITS = (8, 64, 256)


@pytest.fixture
def store(store_opener: Callable[[], MetadataStore]) -> MetadataStore:
    """SQLite and PostgreSQL (tests/support/pg.py): every test here runs against both."""
    return store_opener()


def run(jobs: JobManager, job_id: int, invocation: str = "inv-1") -> None:
    assert (
        jobs.mark_running(
            job_id,
            invocation_id=invocation,
            index_uuid="u-1",
            deadline_ms=int(time.time() * 1000) + 60_000,
            process_epoch="e1",
            backend_id="local",
        )
        is not None
    )


def test_create_is_durable_pending_revision_0_with_monotonic_ids(store: MetadataStore) -> None:
    jobs = JobManager(store)
    a = jobs.create(new_job("a"), *LIMITS)
    b = jobs.create(new_job("b"), *LIMITS)
    assert (a.state, a.revision) == (M.PENDING, 0) and b.id > a.id
    reopened = JobManager(store)
    assert reopened.get(a.id) == a


def test_fence_blocks_the_same_name_until_resolved(store: MetadataStore) -> None:
    jobs = JobManager(store)
    first = jobs.create(new_job("idx"), *LIMITS)
    with pytest.raises(DrydockError) as info:
        jobs.create(new_job("IDX"), *LIMITS)  # names are normalized
    assert info.value.message == (
        f"lance index 'IDX' is fenced by unresolved job {first.id}; "
        "resolve that job (FORCE_RELEASE) before reusing the name"
    )
    jobs.create(new_job("idx", locator="/w/db/other.lance"), *LIMITS)  # another table: no fence
    run(jobs, first.id)
    done = jobs.complete_with_result(first.id, "inv-1", C.NATIVE_OK, "ok", False)
    assert (done.state, done.refresh_state) == (M.COMMITTED, R.REQUIRED)
    with pytest.raises(DrydockError):
        jobs.create(new_job("idx"), *LIMITS)  # still unresolved: refresh owed
    jobs.refresh_started(first.id)
    jobs.refresh_finished(first.id, ok=True)
    jobs.create(new_job("idx"), *LIMITS)


@pytest.mark.parametrize("level", ["table", "catalog", "global"])
def test_each_quota_level(store: MetadataStore, level: str) -> None:
    jobs = JobManager(store)
    limits = {"table": (2, 64, 256), "catalog": (8, 2, 256), "global": (8, 64, 2)}[level]
    jobs.create(new_job("a"), *limits)
    other = {
        "table": {},
        "catalog": {"locator": "/w/db/u.lance"},
        "global": {"locator": "/w/db/u.lance", "catalog_id": 2},
    }[level]
    jobs.create(new_job("b", **other), *limits)
    with pytest.raises(DrydockError) as info:
        jobs.create(new_job("c", **other), *limits)
    assert info.value.message == (
        "unresolved lance index job quota exceeded for index 'c'; "
        "resolve or finish existing jobs first"
    )


def test_non_positive_quota_is_refused_with_5102(store: MetadataStore) -> None:
    with pytest.raises(DrydockError) as info:
        JobManager(store).create(new_job(), 0, 64, 256)
    assert (
        info.value.code == 5102
        and "lance_index_job_max_unresolved_per_table = 0" in info.value.message
    )


def test_stale_or_mismatched_results_change_nothing(store: MetadataStore) -> None:
    jobs = JobManager(store)
    job = jobs.create(new_job(), *LIMITS)
    assert jobs.complete_with_result(job.id, "inv-1", C.NATIVE_OK, "", False) is None  # not RUNNING
    run(jobs, job.id)
    assert jobs.complete_with_result(job.id, "someone-else", C.NATIVE_OK, "", False) is None
    assert jobs.get(job.id).state is M.RUNNING
    assert (
        jobs.mark_running(
            job.id,
            invocation_id="x",
            index_uuid="u",
            deadline_ms=1,
            process_epoch="e",
            backend_id="b",
        )
        is None
    )  # PENDING-only


def test_deadline_makes_unknown_and_keeps_slot_fence_and_quota(store: MetadataStore) -> None:
    jobs = JobManager(store)
    job = jobs.create(new_job(), *LIMITS)
    jobs.mark_running(
        job.id,
        invocation_id="i",
        index_uuid="u",
        deadline_ms=1000,
        process_epoch="e",
        backend_id="b",
    )
    expired = jobs.expire(job.id, now_ms=2000)
    assert (expired.state, expired.result_code) == (M.UNKNOWN, C.NO_TRUSTED_RESULT)
    assert expired.message == "execute deadline expired without a complete trusted result"
    assert jobs.slots_in_use() == 1 and jobs.fence_holder(job.fence) == job.id


def test_force_release_releases_fence_quota_and_slot(store: MetadataStore) -> None:
    jobs = JobManager(store)
    job = jobs.create(new_job(), *LIMITS)
    run(jobs, job.id)
    unknown = jobs.complete_with_result(job.id, "inv-1", C.NATIVE_IO, "boom", False)
    assert unknown.state is M.UNKNOWN
    assert jobs.force_release(job.id, unknown.revision - 1, "root", "n") is None  # stale revision
    released = jobs.force_release(job.id, unknown.revision, "'root'@'%'", "checked by hand")
    assert released.force_released and released.state is M.UNKNOWN  # outcome is not rewritten
    assert jobs.fence_holder(job.fence) is None and jobs.slots_in_use() == 0
    assert jobs.quota_counts()[2] == 0


def test_replay_rebuilds_fences_quotas_and_slots(store: MetadataStore) -> None:
    jobs = JobManager(store)
    a = jobs.create(new_job("a"), *LIMITS)
    b = jobs.create(new_job("b"), *LIMITS)
    run(jobs, b.id)
    c = jobs.create(new_job("c", locator="/w/db/u.lance"), *LIMITS)
    run(jobs, c.id, "inv-c")
    jobs.complete_with_result(c.id, "inv-c", C.NATIVE_OK, "", False)
    jobs.record_termination_proof(c.id, P.CHILD_REAPED)
    jobs.refresh_started(c.id)
    jobs.refresh_finished(c.id, ok=True)
    before = (jobs.quota_counts(), jobs.slots_in_use(), {j.id for j in jobs.live_jobs()})
    replayed = JobManager(store)
    assert (
        replayed.quota_counts(),
        replayed.slots_in_use(),
        {j.id for j in replayed.live_jobs()},
    ) == before
    assert replayed.fence_holder(a.fence) == a.id and replayed.fence_holder(c.fence) is None


def _resolved_job(jobs: JobManager, name: str, proof: P | None) -> int:
    job = jobs.create(new_job(name), *LIMITS)
    run(jobs, job.id, f"inv-{name}")
    jobs.complete_with_result(job.id, f"inv-{name}", C.NATIVE_COMMIT_CONFLICT, "", False)
    jobs.refresh_started(job.id)
    jobs.refresh_finished(job.id, ok=True)
    if proof is not None:
        jobs.record_termination_proof(job.id, proof)
    return job.id


def test_retention_keeps_records_that_hold_a_possible_live_slot(store: MetadataStore) -> None:
    """Defect 1: a resolved record whose worker is not proven gone must survive GC."""
    jobs = JobManager(store)
    config = Config(store)
    config.set("lance_index_job_keep_max_second", "1")
    live = _resolved_job(jobs, "live", proof=None)
    gone = _resolved_job(jobs, "gone", proof=P.CHILD_REAPED)
    pending = jobs.create(new_job("pending"), *LIMITS).id
    assert clean_once(jobs, config, now=time.time() + 10) == 1
    assert jobs.get(gone) is None
    assert jobs.get(live) is not None and jobs.get(pending) is not None


def test_retention_ages_from_the_last_transition(store: MetadataStore) -> None:
    jobs = JobManager(store)
    config = Config(store)
    config.set("lance_index_job_keep_max_second", "100")
    job_id = _resolved_job(jobs, "x", proof=P.CHILD_REAPED)
    store.query("SELECT 1")
    with store.transaction() as db:  # created long ago, last transition just now
        db.execute("UPDATE lance_index_jobs SET created_at = 0 WHERE id = ?", (job_id,))
    assert clean_once(jobs, config) == 0
    assert clean_once(jobs, config, now=time.time() + 101) == 1


def test_retention_drains_a_backlog_larger_than_one_batch_in_one_round(
    store: MetadataStore,
) -> None:
    """Defect 2: cleaning must outpace production — repeated bounded batches in one round."""
    jobs = JobManager(store)
    config = Config(store)
    config.set("lance_index_job_keep_max_second", "1")
    for i in range(25):
        _resolved_job(jobs, f"j{i}", proof=P.CHILD_REAPED)
    assert clean_once(jobs, config, now=time.time() + 10, batch=4) == 25
    assert list(jobs.iter_rows()) == []


def test_ids_are_not_reused_after_retention(store: MetadataStore) -> None:
    jobs = JobManager(store)
    config = Config(store)
    config.set("lance_index_job_keep_max_second", "1")
    last = _resolved_job(jobs, "a", proof=P.CHILD_REAPED)
    clean_once(jobs, config, now=time.time() + 10)
    assert jobs.create(new_job("b"), *LIMITS).id > last


def test_drop_not_found_with_if_exists_is_a_noop_outcome(store: MetadataStore) -> None:
    jobs = JobManager(store)
    job = jobs.create(new_job(operation=st.MutationType.DROP, if_exists=True), *LIMITS)
    run(jobs, job.id)
    done = jobs.complete_with_result(job.id, "inv-1", C.NATIVE_NOT_FOUND, "", False)
    assert (done.state, done.completion_reason) == (
        M.NOT_COMMITTED,
        st.CompletionReason.IF_CONDITION_NOOP,
    )


def test_a_damaged_state_replays_as_unknown(store: MetadataStore) -> None:
    jobs = JobManager(store)
    job = jobs.create(new_job(), *LIMITS)
    with store.transaction() as db:
        db.execute("UPDATE lance_index_jobs SET state = 'GARBAGE' WHERE id = ?", (job.id,))
    replayed = JobManager(store)
    assert replayed.get(job.id).state is M.UNKNOWN and replayed.fence_holder(job.fence) == job.id


def test_live_jobs_by_state_agrees_with_the_full_list_across_transitions(
    store: MetadataStore,
) -> None:
    """The dispatcher's sweeps ask for one state; the per-state index must never lose a job."""
    jobs = JobManager(store)
    ids = [jobs.create(new_job(f"j{i}"), 100, 100, 100).id for i in range(6)]
    run(jobs, ids[1], "inv-1")
    run(jobs, ids[2], "inv-2")
    jobs.complete_with_result(ids[2], "inv-2", C.NATIVE_OK, "", False)  # COMMITTED, refresh owed
    run(jobs, ids[3], "inv-3")
    jobs.mark_unknown(ids[3], "lost")
    jobs.cancel_pending(ids[4])  # resolved and slot-free: leaves the live set

    def check(manager: JobManager) -> None:
        everything = manager.live_jobs()
        assert [j.id for j in everything] == sorted(j.id for j in everything)
        for state in M:
            assert manager.live_jobs(state) == [j for j in everything if j.state is state]
        assert manager.live_jobs(M.RUNNING, M.PENDING) == [
            j for j in everything if j.state in (M.RUNNING, M.PENDING)
        ]

    check(jobs)
    assert [j.id for j in jobs.live_jobs(M.PENDING)] == [ids[0], ids[5]]
    check(JobManager(store))  # replay builds the same index


def test_from_row_round_trips_every_field_and_fails_safe_on_a_damaged_state(
    store: MetadataStore,
) -> None:
    from drydock.engine.jobs.control.records import from_row

    jobs = JobManager(store)
    job = jobs.create(new_job(), *LIMITS)
    run(jobs, job.id)
    done = jobs.complete_with_result(job.id, "inv-1", C.NATIVE_OK, "built", True)
    row = store.query_one("SELECT * FROM lance_index_jobs WHERE id = ?", (job.id,))
    assert (
        from_row(row) == done
        and hash(from_row(row)) == hash(done)
        and from_row(row).facts == done.facts
    )
    with store.transaction() as db:
        db.execute("UPDATE lance_index_jobs SET state = '' WHERE id = ?", (job.id,))
    damaged = store.query_one("SELECT * FROM lance_index_jobs WHERE id = ?", (job.id,))
    assert from_row(damaged).state is M.UNKNOWN
    with store.transaction() as db:
        db.execute(
            "UPDATE lance_index_jobs SET state = 'COMMITTED', refresh_state = 'BOGUS' WHERE id = ?",
            (job.id,),
        )
    with pytest.raises(ValueError):
        from_row(store.query_one("SELECT * FROM lance_index_jobs WHERE id = ?", (job.id,)))
