"""The job state machine, exhaustively: transitions, classification, derived predicates, and the
SQL mirror that replay and retention use."""

from __future__ import annotations

import itertools
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from drydock.engine.jobs.control import states as st
from drydock.engine.jobs.control.job_view import LIVE_ROWS_SQL
from drydock.engine.jobs.control.manager import JobManager
from drydock.engine.jobs.control.records import to_columns
from drydock.engine.store.metastore import MetaStore
from tests.support.jobfactory import new_job

M, R, C = st.MutationState, st.RefreshState, st.ResultCode

EXPECTED_MUTATION = {
    (M.PENDING, M.RUNNING),
    (M.PENDING, M.NOT_COMMITTED),
    (M.RUNNING, M.COMMITTED),
    (M.RUNNING, M.NOT_COMMITTED),
    (M.RUNNING, M.UNKNOWN),
    (M.UNKNOWN, M.COMMITTED),
    (M.UNKNOWN, M.NOT_COMMITTED),
}
EXPECTED_REFRESH = {
    (R.NOT_REQUIRED, R.REQUIRED),
    (R.REQUIRED, R.RUNNING),
    (R.RUNNING, R.DONE),
    (R.RUNNING, R.FAILED),
    (R.FAILED, R.RUNNING),
}


@pytest.mark.parametrize("old,new", list(itertools.product(M, M)))
def test_every_mutation_transition(old: st.MutationState, new: st.MutationState) -> None:
    assert st.mutation_transition_allowed(old, new) is ((old, new) in EXPECTED_MUTATION)


@pytest.mark.parametrize("old,new", list(itertools.product(R, R)))
def test_every_refresh_transition(old: st.RefreshState, new: st.RefreshState) -> None:
    assert st.refresh_transition_allowed(old, new) is ((old, new) in EXPECTED_REFRESH)


def seeded(path: Path, state: st.MutationState, refresh: st.RefreshState) -> int:
    """A job written straight into the store in (state, refresh), as replay would find it."""
    store = MetaStore(path)
    columns = to_columns(new_job().replace(state=state, refresh_state=refresh))
    del columns["id"]
    with store.transaction() as db:
        cursor = db.execute(
            f"INSERT INTO lance_index_jobs ({', '.join(columns)}) "
            f"VALUES ({', '.join('?' for _ in columns)})",
            tuple(columns.values()),
        )
    store.close()
    return int(cursor.lastrowid)  # type: ignore[arg-type]


def durable(path: Path, job_id: int) -> tuple[st.MutationState, st.RefreshState, int]:
    job = JobManager(MetaStore(path)).get(job_id)
    assert job is not None
    return job.state, job.refresh_state, job.revision


def apply_through_manager(path: Path, job_id: int, changes: dict[str, Any]) -> None:
    JobManager(MetaStore(path))._transition(job_id, None, lambda job: dict(changes))


@pytest.mark.parametrize("old,new", list(itertools.product(M, M)))
def test_every_mutation_transition_through_the_manager(
    tmp_path: Path, old: st.MutationState, new: st.MutationState
) -> None:
    """Legal moves are durable (a fresh manager over the same file sees them); illegal ones raise
    5108 and change nothing, not even the revision."""
    path = tmp_path / "meta.sqlite"
    job_id = seeded(path, old, R.NOT_REQUIRED)
    if (old, new) in EXPECTED_MUTATION:
        apply_through_manager(path, job_id, {"state": new})
        assert durable(path, job_id) == (new, R.NOT_REQUIRED, 1)
        return
    with pytest.raises(st.JobStateError) as info:
        apply_through_manager(path, job_id, {"state": new})
    assert info.value.code == 5108
    assert durable(path, job_id) == (old, R.NOT_REQUIRED, 0)


@pytest.mark.parametrize("old,new", list(itertools.product(R, R)))
def test_every_refresh_transition_through_the_manager(
    tmp_path: Path, old: st.RefreshState, new: st.RefreshState
) -> None:
    path = tmp_path / "meta.sqlite"
    job_id = seeded(path, M.COMMITTED, old)  # the refresh axis moves after a known outcome
    if (old, new) in EXPECTED_REFRESH:
        apply_through_manager(path, job_id, {"refresh_state": new})
        assert durable(path, job_id) == (M.COMMITTED, new, 1)
        return
    with pytest.raises(st.JobStateError) as info:
        apply_through_manager(path, job_id, {"refresh_state": new})
    assert info.value.code == 5108
    assert durable(path, job_id) == (M.COMMITTED, old, 0)


@pytest.mark.parametrize("state", [M.PENDING, M.RUNNING, M.UNKNOWN])
def test_refresh_never_moves_before_a_known_outcome(
    tmp_path: Path, state: st.MutationState
) -> None:
    path = tmp_path / "meta.sqlite"
    job_id = seeded(path, state, R.NOT_REQUIRED)
    with pytest.raises(st.JobStateError):
        apply_through_manager(path, job_id, {"refresh_state": R.REQUIRED})
    assert durable(path, job_id) == (state, R.NOT_REQUIRED, 0)


def test_a_successful_job_takes_not_required_to_required_through_the_manager(
    tmp_path: Path,
) -> None:
    path = tmp_path / "meta.sqlite"
    jobs = JobManager(MetaStore(path))
    job = jobs.create(new_job(), 8, 64, 256)
    jobs.mark_running(
        job.id,
        invocation_id="i",
        index_uuid="u",
        deadline_ms=1 << 50,
        process_epoch="e",
        backend_id="local",
    )
    done = jobs.complete_with_result(job.id, "i", C.NATIVE_OK, "ok", True)
    assert done is not None and (done.state, done.refresh_state) == (M.COMMITTED, R.REQUIRED)
    assert durable(path, job.id) == (M.COMMITTED, R.REQUIRED, 2)


def test_committed_and_not_committed_are_terminal() -> None:
    assert not st.MUTATION_TRANSITIONS[M.COMMITTED] and not st.MUTATION_TRANSITIONS[M.NOT_COMMITTED]


def expected_outcome(
    mutation: st.MutationType, code: st.ResultCode | None, if_exists: bool, ema: bool
) -> tuple[st.MutationState, st.RefreshState, st.CompletionReason]:
    """The classification table (docs/job-contract.md), written out independently of classify()."""
    none = st.CompletionReason.NONE
    if code is None:
        return M.UNKNOWN, R.NOT_REQUIRED, none
    if code is C.CANCELLED_BEFORE_COMMIT:
        return (
            M.NOT_COMMITTED,
            (R.REQUIRED if ema else R.NOT_REQUIRED),
            st.CompletionReason.CANCELLED,
        )
    if code.value.startswith("PRE_INVOCATION_"):
        return M.NOT_COMMITTED, (R.REQUIRED if ema else R.NOT_REQUIRED), none
    if (
        code is C.SEGMENT_FAILED_BEFORE_COMMIT
    ):  # drydock's Ray build: only the coordinator commits, it did not
        return M.NOT_COMMITTED, (R.REQUIRED if ema else R.NOT_REQUIRED), none
    if code is C.NATIVE_OK:
        return M.COMMITTED, R.REQUIRED, none
    if code is C.NATIVE_COMMIT_CONFLICT:
        return M.NOT_COMMITTED, R.REQUIRED, none
    if code is C.NATIVE_NOT_FOUND and mutation is st.MutationType.DROP:
        return (
            M.NOT_COMMITTED,
            R.REQUIRED,
            (st.CompletionReason.IF_CONDITION_NOOP if if_exists else none),
        )
    return M.UNKNOWN, R.NOT_REQUIRED, none


@pytest.mark.parametrize(
    "mutation,code,if_exists,ema",
    list(itertools.product(st.MutationType, [*C, None], [False, True], [False, True])),
)
def test_classification_table(
    mutation: st.MutationType, code: st.ResultCode | None, if_exists: bool, ema: bool
) -> None:
    outcome = st.classify(mutation, code, if_exists, ema)
    assert (outcome.state, outcome.refresh, outcome.reason) == expected_outcome(
        mutation, code, if_exists, ema
    )


@pytest.mark.parametrize("state,released", list(itertools.product(M, [False, True])))
def test_resolve_verdict_table(state: st.MutationState, released: bool) -> None:
    """Every (state, force_released): a release that already landed is the idempotent success, so
    RESOLVEs that raced one another all answer it (issue 27)."""
    expected = (
        st.ResolveVerdict.NOT_UNKNOWN
        if state is not M.UNKNOWN
        else (st.ResolveVerdict.ALREADY_RELEASED if released else st.ResolveVerdict.RELEASE)
    )
    assert st.resolve_verdict(state, released) is expected


ALL_FACTS = [
    st.JobFacts(m, r, fr, plo, tp)
    for m, r, fr, plo, tp in itertools.product(
        M, R, [False, True], [False, True], st.TerminationProof
    )
]


@pytest.mark.parametrize("facts", ALL_FACTS)
def test_derived_predicates(facts: st.JobFacts) -> None:
    unresolved = (
        facts.state in (M.PENDING, M.RUNNING)
        or (facts.state is M.UNKNOWN and not facts.force_released)
        or (
            facts.state in (M.COMMITTED, M.NOT_COMMITTED)
            and facts.refresh in (R.REQUIRED, R.RUNNING, R.FAILED)
        )
    )
    slot = (
        facts.possible_live_owned
        and facts.termination_proof is st.TerminationProof.NONE
        and not facts.force_released
    )
    assert st.is_unresolved(facts) is unresolved
    assert st.holds_possible_live_slot(facts) is slot
    # defect 1: a resolved record that still holds a possible-live slot is never GC-eligible
    assert st.gc_eligible(facts) is (not unresolved and not slot)


def test_live_rows_sql_agrees_with_the_predicates() -> None:
    db = sqlite3.connect(":memory:")
    db.execute(
        "CREATE TABLE lance_index_jobs (id INTEGER, state TEXT, refresh_state TEXT, force_released "
        "INT, "
        "possible_live_owned INT, termination_proof TEXT)"
    )
    for i, f in enumerate(ALL_FACTS):
        db.execute(
            "INSERT INTO lance_index_jobs VALUES (?, ?, ?, ?, ?, ?)",
            (
                i,
                f.state.value,
                f.refresh.value,
                int(f.force_released),
                int(f.possible_live_owned),
                f.termination_proof.value,
            ),
        )
    db.execute("INSERT INTO lance_index_jobs VALUES (-1, 'GARBAGE', 'DONE', 1, 0, 'NONE')")
    live = {r[0] for r in db.execute(f"SELECT id FROM lance_index_jobs WHERE {LIVE_ROWS_SQL}")}
    assert live == {i for i, f in enumerate(ALL_FACTS) if not st.gc_eligible(f)} | {-1}
