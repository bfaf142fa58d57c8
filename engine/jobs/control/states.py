"""The Lance index job state machine, as data (docs/job-contract.md, "States"). Pure: no I/O,
no clock.

Two independent axes:
- mutation state  PENDING → RUNNING → {COMMITTED | NOT_COMMITTED | UNKNOWN}   (outcomes terminal)
- refresh state   NOT_REQUIRED | REQUIRED → RUNNING → DONE | FAILED, and FAILED → RUNNING

An outcome is classified only from a typed result code (``classify``); message text is never read.
The manager applies these tables under a lock with a revision check; everything that decides
*whether* a transition is allowed lives here and is tested exhaustively.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from drydock.engine.errors import DrydockError, Errors


class MutationType(str, Enum):
    CREATE = "CREATE"
    REPLACE = "REPLACE"
    DROP = "DROP"


class MutationState(str, Enum):
    PENDING = "PENDING"
    RUNNING = "RUNNING"
    COMMITTED = "COMMITTED"
    NOT_COMMITTED = "NOT_COMMITTED"
    UNKNOWN = "UNKNOWN"


class RefreshState(str, Enum):
    NOT_REQUIRED = "NOT_REQUIRED"
    REQUIRED = "REQUIRED"
    RUNNING = "RUNNING"
    DONE = "DONE"
    FAILED = "FAILED"


class ResultCode(str, Enum):
    PRE_INVOCATION_STALE_ADMISSION = "PRE_INVOCATION_STALE_ADMISSION"
    PRE_INVOCATION_UNSUPPORTED_SCHEMA_CONTRACT = "PRE_INVOCATION_UNSUPPORTED_SCHEMA_CONTRACT"
    PRE_INVOCATION_CREDENTIAL_EXPIRED = "PRE_INVOCATION_CREDENTIAL_EXPIRED"
    PRE_INVOCATION_RESOURCE_REJECTED = "PRE_INVOCATION_RESOURCE_REJECTED"
    NATIVE_OK = "NATIVE_OK"
    NATIVE_COMMIT_CONFLICT = "NATIVE_COMMIT_CONFLICT"
    NATIVE_NOT_FOUND = "NATIVE_NOT_FOUND"
    NATIVE_INVALID_ARGUMENT = "NATIVE_INVALID_ARGUMENT"
    NATIVE_NOT_SUPPORTED = "NATIVE_NOT_SUPPORTED"
    NATIVE_INDEX = "NATIVE_INDEX"
    NATIVE_IO = "NATIVE_IO"
    NATIVE_INTERNAL = "NATIVE_INTERNAL"
    NO_TRUSTED_RESULT = "NO_TRUSTED_RESULT"
    # drydock: CANCEL aborted the build from its progress callback and the worker verified that
    # the pre-assigned index uuid is absent from the dataset — nothing was committed.
    CANCELLED_BEFORE_COMMIT = "CANCELLED_BEFORE_COMMIT"
    # drydock: a distributed (Ray) build failed before its single commit, which only the
    # coordinating frontend performs — so nothing was committed.
    SEGMENT_FAILED_BEFORE_COMMIT = "SEGMENT_FAILED_BEFORE_COMMIT"

    @property
    def pre_invocation(self) -> bool:
        return self.value.startswith("PRE_INVOCATION_")


class TerminationProof(str, Enum):
    NONE = "NONE"
    CHILD_REAPED = "CHILD_REAPED"
    BE_PROCESS_EPOCH_GONE = "BE_PROCESS_EPOCH_GONE"
    NOT_ENQUEUED = "NOT_ENQUEUED"
    NEVER_LAUNCHED = "NEVER_LAUNCHED"
    RAY_TASKS_ENDED = (
        "RAY_TASKS_ENDED"  # drydock: Ray's state API shows every attempt final, its worker dead
    )


class CompletionReason(str, Enum):
    NONE = "NONE"
    IF_CONDITION_NOOP = "IF_CONDITION_NOOP"
    CANCELLED = "CANCELLED"  # drydock: CANCEL before anything was committed
    RECONCILED = "RECONCILED"  # drydock: UNKNOWN settled from the dataset's version history


TERMINAL = frozenset({MutationState.COMMITTED, MutationState.NOT_COMMITTED, MutationState.UNKNOWN})

# Allowed transitions of the mutation axis. RECONCILED (evidence-based resolution, drydock) is the
# only way out of UNKNOWN, and only into a known outcome.
MUTATION_TRANSITIONS: dict[MutationState, frozenset[MutationState]] = {
    MutationState.PENDING: frozenset({MutationState.RUNNING, MutationState.NOT_COMMITTED}),
    MutationState.RUNNING: frozenset(
        {MutationState.COMMITTED, MutationState.NOT_COMMITTED, MutationState.UNKNOWN}
    ),
    MutationState.COMMITTED: frozenset(),
    MutationState.NOT_COMMITTED: frozenset(),
    MutationState.UNKNOWN: frozenset({MutationState.COMMITTED, MutationState.NOT_COMMITTED}),
}

# NOT_REQUIRED → REQUIRED: a known outcome that advanced (or may have advanced) the dataset owes a
# metadata refresh — every successful job takes this edge.
REFRESH_TRANSITIONS: dict[RefreshState, frozenset[RefreshState]] = {
    RefreshState.NOT_REQUIRED: frozenset({RefreshState.REQUIRED}),
    RefreshState.REQUIRED: frozenset({RefreshState.RUNNING}),
    RefreshState.RUNNING: frozenset({RefreshState.DONE, RefreshState.FAILED}),
    RefreshState.DONE: frozenset(),
    RefreshState.FAILED: frozenset({RefreshState.RUNNING}),
}


def mutation_transition_allowed(old: MutationState, new: MutationState) -> bool:
    return new in MUTATION_TRANSITIONS[old]


def refresh_transition_allowed(old: RefreshState, new: RefreshState) -> bool:
    return new in REFRESH_TRANSITIONS[old]


# The refresh axis moves only once the mutation has a known outcome (the refresh is of that
# outcome).
REFRESH_MOVES_IN = frozenset({MutationState.COMMITTED, MutationState.NOT_COMMITTED})

INITIAL = (MutationState.PENDING, RefreshState.NOT_REQUIRED)  # every admitted job starts here


class JobStateError(DrydockError):
    """A move the tables below forbid; nothing was written (5108)."""

    def __init__(self, job_id: int, move: str):
        spec = Errors.LANCE_INDEX_JOB_ILLEGAL_TRANSITION
        super().__init__(spec, spec.template.format(job_id=job_id, move=move))
        self.move = move


def illegal_move(
    state: MutationState,
    refresh: RefreshState,
    new_state: MutationState | None,
    new_refresh: RefreshState | None,
) -> str | None:
    """Why moving a job (``None`` = that axis stays) is illegal, or None when it is allowed.

    Naming an axis's current value is a self-transition, which neither table has."""
    if new_state is not None and not mutation_transition_allowed(state, new_state):
        return f"mutation state {state.value} -> {new_state.value}"
    if new_refresh is None:
        return None
    if not refresh_transition_allowed(refresh, new_refresh):
        return f"refresh state {refresh.value} -> {new_refresh.value}"
    after = new_state or state
    if after not in REFRESH_MOVES_IN:
        return (
            f"refresh state {refresh.value} -> {new_refresh.value} "
            f"while the mutation is {after.value}"
        )
    return None


@dataclass(frozen=True)
class Outcome:
    state: MutationState
    refresh: RefreshState
    reason: CompletionReason


_UNKNOWN = Outcome(MutationState.UNKNOWN, RefreshState.NOT_REQUIRED, CompletionReason.NONE)


def classify(
    mutation: MutationType,
    code: ResultCode | None,
    if_exists: bool,
    external_metadata_advanced: bool,
) -> Outcome:
    """The outcome a typed result code proves (docs/job-contract.md, "Classification").
    ``None`` (no trusted result) is UNKNOWN."""
    if code is None:
        return _UNKNOWN
    if code.pre_invocation:
        refresh = RefreshState.REQUIRED if external_metadata_advanced else RefreshState.NOT_REQUIRED
        return Outcome(MutationState.NOT_COMMITTED, refresh, CompletionReason.NONE)
    if code is ResultCode.CANCELLED_BEFORE_COMMIT:
        refresh = RefreshState.REQUIRED if external_metadata_advanced else RefreshState.NOT_REQUIRED
        return Outcome(MutationState.NOT_COMMITTED, refresh, CompletionReason.CANCELLED)
    if code is ResultCode.SEGMENT_FAILED_BEFORE_COMMIT:
        refresh = RefreshState.REQUIRED if external_metadata_advanced else RefreshState.NOT_REQUIRED
        return Outcome(MutationState.NOT_COMMITTED, refresh, CompletionReason.NONE)
    if code is ResultCode.NATIVE_OK:
        return Outcome(MutationState.COMMITTED, RefreshState.REQUIRED, CompletionReason.NONE)
    if code is ResultCode.NATIVE_COMMIT_CONFLICT:
        return Outcome(MutationState.NOT_COMMITTED, RefreshState.REQUIRED, CompletionReason.NONE)
    if code is ResultCode.NATIVE_NOT_FOUND and mutation is MutationType.DROP:
        reason = CompletionReason.IF_CONDITION_NOOP if if_exists else CompletionReason.NONE
        return Outcome(MutationState.NOT_COMMITTED, RefreshState.REQUIRED, reason)
    return _UNKNOWN


class ResolveVerdict(str, Enum):
    """What RESOLVE … AS FORCE_RELEASE does to a job it found in a given state."""

    RELEASE = "RELEASE"  # UNKNOWN, not yet released: write the release
    ALREADY_RELEASED = "ALREADY_RELEASED"  # a release already landed: the idempotent success
    NOT_UNKNOWN = "NOT_UNKNOWN"  # any other state: 5104


def resolve_verdict(state: MutationState, force_released: bool) -> ResolveVerdict:
    """The same for the first RESOLVE and for every one that raced it: a release that already
    landed (by this statement's retry or a concurrent one) answers the idempotent success, never
    "changed concurrently"."""
    if state is not MutationState.UNKNOWN:
        return ResolveVerdict.NOT_UNKNOWN
    return ResolveVerdict.ALREADY_RELEASED if force_released else ResolveVerdict.RELEASE


@dataclass(frozen=True)
class JobFacts:
    """The fields the derived predicates read."""

    state: MutationState
    refresh: RefreshState
    force_released: bool
    possible_live_owned: bool
    termination_proof: TerminationProof


def is_unresolved(job: JobFacts) -> bool:
    """Holds the fence and the quota: no outcome yet, an UNKNOWN not force-released, or a known
    outcome whose refresh is still owed."""
    if job.state in (MutationState.PENDING, MutationState.RUNNING):
        return True
    if job.state is MutationState.UNKNOWN:
        return not job.force_released
    return job.refresh in (RefreshState.REQUIRED, RefreshState.RUNNING, RefreshState.FAILED)


def holds_possible_live_slot(job: JobFacts) -> bool:
    """A worker may still be running: released only by a termination proof or FORCE_RELEASE."""
    return (
        job.possible_live_owned
        and job.termination_proof is TerminationProof.NONE
        and not job.force_released
    )


def gc_eligible(job: JobFacts) -> bool:
    """Retention may delete only resolved records whose worker is proven gone (a record deleted
    while its worker may run would lose the slot that still guards it)."""
    return not is_unresolved(job) and not holds_possible_live_slot(job)
