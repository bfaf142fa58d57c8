"""The Lance index job manager: every durable transition, applied under one lock.

Each transition is one SQLite transaction that compare-and-sets the record's revision; the
in-memory view (fences, quota counts, possible-live slots of *live* jobs) is updated only after
that commit, and is rebuilt from the store at start-up (``replay``). Whether a transition is
allowed is decided by engine/jobs/control/states.py: ``_transition`` checks both of its tables (and
the cross-axis rule) before writing, and raises ``JobStateError`` for a forbidden move.

``JobManager`` is built in layers, one concern a module: the view, its catch-up with other
frontends and the reads (engine/jobs/control/job_view.py, which owns the lock); admission's
group-committed insert (engine/jobs/control/job_inserts.py); the worker records
(engine/jobs/control/worker_records.py); the transitions and retention's removal here.

Resolved records stay in the store (SHOW reads them there) until retention removes them.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from drydock.engine.jobs.control import states as st
from drydock.engine.jobs.control.job_inserts import JobInserts
from drydock.engine.jobs.control.job_view import LIVE_ROWS_SQL
from drydock.engine.jobs.control.records import JobRecord, clip, from_row, to_columns
from drydock.engine.jobs.control.worker_records import WorkerRecords
from drydock.engine.store.frontends import NotLeader
from drydock.engine.store.metastore import MetadataStore, StaleRevision, StoreConnection
from drydock.engine.support.faults import pause_point

logger = logging.getLogger(__name__)

FORCE_RELEASE_WARNING = (
    "the old worker may still overwrite, remove, or reintroduce the index name; "
    "the mutation outcome remains UNKNOWN"
)
DEADLINE_MESSAGE = "execute deadline expired without a complete trusted result"


class _NothingToWrite(Exception):
    """The latest row, read inside the transaction, no longer calls for the change."""


class JobManager(WorkerRecords, JobInserts):
    def __init__(self, store: MetadataStore):
        super().__init__(store)
        # Set by the engine when a lease elects the dispatcher: checks, inside a transition's own
        # transaction, that this frontend still holds the lease epoch (raises NotLeader).
        self.fence: Callable[[StoreConnection], None] | None = None
        self.frontend_name = ""  # recorded with each worker (engine/store/frontends.py)
        self.replay()

    # -- transitions
    # --------------------------------------------------------------------------------
    def _transition(
        self,
        job_id: int,
        expected_revision: int | None,
        change: Callable[[JobRecord], dict[str, Any] | None],
        *,
        fenced: bool = True,
    ) -> JobRecord | None:
        """Load, let ``change`` decide (None = not applicable), check the move against states.py,
        CAS, reindex. Returns the new record; an illegal move raises and writes nothing.

        ``fenced``: a dispatcher's move, written only while this frontend holds the lease epoch
        (a user's CANCEL or FORCE_RELEASE and a termination proof are not: any frontend may)."""
        with self._lock:
            self.sync()
            decided = self._decide(job_id, expected_revision, change)
            if decided is None:
                return None  # nothing to write: no transaction (note_pending asks every round)
            _check_move(*decided)  # an illegal move raises before anything is written
            try:
                with self._store.transaction() as db:
                    seq = self._next_seq(db)
                    if fenced and self.fence is not None:
                        self.fence(db)
                    decided = self._decide(job_id, expected_revision, change)  # on the latest row
                    if decided is None:
                        raise _NothingToWrite
                    current, changes = decided
                    _check_move(current, changes)
                    changes["updated_at"] = time.time()
                    updated = current.replace(**changes, revision=current.revision + 1)
                    durable = to_columns(updated, only=changes)
                    durable["change_seq"] = seq
                    self._store.compare_and_set(
                        db, "lance_index_jobs", {"id": job_id}, current.revision, durable
                    )
            except _NothingToWrite:
                return None
            except NotLeader as exc:
                logger.warning("job %s: transition refused: %s", job_id, exc)
                return None
            except StaleRevision:
                logger.warning("job %s changed concurrently; transition skipped", job_id)
                return None
            self._seen_seq = seq
            self._unindex(current)
            self._index(updated)
        self._notify(updated)
        return updated

    def _decide(
        self,
        job_id: int,
        expected_revision: int | None,
        change: Callable[[JobRecord], dict[str, Any] | None],
    ) -> tuple[JobRecord, dict[str, Any]] | None:
        current = self._get(job_id)
        if current is None or (
            expected_revision is not None and current.revision != expected_revision
        ):
            return None
        changes = change(current)
        return None if changes is None else (current, changes)

    def mark_running(
        self,
        job_id: int,
        *,
        invocation_id: str,
        index_uuid: str,
        deadline_ms: int,
        process_epoch: str,
        backend_id: str,
        expected_revision: int | None = None,
    ) -> JobRecord | None:
        """PENDING → RUNNING; takes the possible-live slot. Durable before anything is sent."""

        def change(job: JobRecord) -> dict[str, Any] | None:
            if job.state is not st.MutationState.PENDING:
                return None
            return {
                "state": st.MutationState.RUNNING,
                "invocation_id": invocation_id[:256],
                "index_uuid": index_uuid,
                "deadline_ms": deadline_ms,
                "process_epoch": process_epoch,
                "backend_id": backend_id,
                "possible_live_owned": True,
            }

        return self._transition(job_id, expected_revision, change)

    def complete_with_result(
        self,
        job_id: int,
        invocation_id: str,
        code: st.ResultCode | None,
        message: str,
        external_metadata_advanced: bool,
    ) -> JobRecord | None:
        """RUNNING-only, matching invocation; a stale or mismatched result is logged and ignored."""

        def change(job: JobRecord) -> dict[str, Any] | None:
            if job.state is not st.MutationState.RUNNING or job.invocation_id != invocation_id:
                logger.info(
                    "stale result for job %s (state %s, invocation %s) ignored",
                    job_id,
                    job.state.value,
                    invocation_id,
                )
                return None
            outcome = st.classify(job.operation, code, job.if_exists, external_metadata_advanced)
            return {
                **_moves(job, outcome.state, outcome.refresh),
                "completion_reason": outcome.reason,
                "result_code": code,
                "message": clip(message),
                "external_metadata_advanced": external_metadata_advanced,
            }

        return self._transition(job_id, None, change)

    def expire(self, job_id: int, now_ms: int) -> JobRecord | None:
        """Deadline sweep: RUNNING past its deadline → UNKNOWN; slot, fence and quota stay held."""

        def change(job: JobRecord) -> dict[str, Any] | None:
            if (
                job.state is not st.MutationState.RUNNING
                or job.deadline_ms is None
                or job.deadline_ms > now_ms
            ):
                return None
            return {
                **_moves(job, st.MutationState.UNKNOWN, st.RefreshState.NOT_REQUIRED),
                "result_code": st.ResultCode.NO_TRUSTED_RESULT,
                "message": DEADLINE_MESSAGE,
            }

        return self._transition(job_id, None, change)

    def mark_unknown(self, job_id: int, message: str) -> JobRecord | None:
        """An ambiguous dispatch or a lost worker: RUNNING → UNKNOWN (slot kept)."""

        def change(job: JobRecord) -> dict[str, Any] | None:
            if job.state is not st.MutationState.RUNNING:
                return None
            return {
                **_moves(job, st.MutationState.UNKNOWN, st.RefreshState.NOT_REQUIRED),
                "result_code": st.ResultCode.NO_TRUSTED_RESULT,
                "message": clip(message),
            }

        return self._transition(job_id, None, change)

    def not_enqueued(self, job_id: int, invocation_id: str, message: str) -> JobRecord | None:
        """A rejection proving the request never reached a worker: NOT_COMMITTED + NOT_ENQUEUED."""

        def change(job: JobRecord) -> dict[str, Any] | None:
            if job.state is not st.MutationState.RUNNING or job.invocation_id != invocation_id:
                return None
            return {
                **_moves(job, st.MutationState.NOT_COMMITTED, st.RefreshState.NOT_REQUIRED),
                "result_code": st.ResultCode.PRE_INVOCATION_RESOURCE_REJECTED,
                "message": clip(message),
                "termination_proof": st.TerminationProof.NOT_ENQUEUED,
                "external_metadata_advanced": False,
            }

        return self._transition(job_id, None, change)

    def cancel_pending(self, job_id: int) -> JobRecord | None:
        def change(job: JobRecord) -> dict[str, Any] | None:
            if job.state is not st.MutationState.PENDING:
                return None
            return {
                **_moves(job, st.MutationState.NOT_COMMITTED, st.RefreshState.NOT_REQUIRED),
                "completion_reason": st.CompletionReason.CANCELLED,
                "message": "cancelled before dispatch",
            }

        return self._transition(job_id, None, change, fenced=False)

    def note_pending(
        self, job_id: int, message: str, failed_attempt: bool = False
    ) -> JobRecord | None:
        """Why a PENDING job waits (shown as its Message); counts a failed dispatch preparation.
        Nothing is written when neither the message nor the count would change."""

        def change(job: JobRecord) -> dict[str, Any] | None:
            text = clip(message)
            if job.state is not st.MutationState.PENDING or (
                job.message == text and not failed_attempt
            ):
                return None
            changes: dict[str, Any] = {"message": text}
            if failed_attempt:
                changes["dispatch_attempts"] = job.dispatch_attempts + 1
            return changes

        return self._transition(job_id, None, change)

    def reject_pending(self, job_id: int, message: str) -> JobRecord | None:
        """PENDING → NOT_COMMITTED: the dispatch could not be prepared; nothing was ever sent."""

        def change(job: JobRecord) -> dict[str, Any] | None:
            if job.state is not st.MutationState.PENDING:
                return None
            # the refresh state stays NOT_REQUIRED (nothing was sent, nothing to refresh): naming
            # it again would be an illegal self-move for the state machine
            return {
                "state": st.MutationState.NOT_COMMITTED,
                "result_code": st.ResultCode.PRE_INVOCATION_RESOURCE_REJECTED,
                "message": clip(message),
                "external_metadata_advanced": False,
            }

        return self._transition(job_id, None, change)

    def record_termination_proof(
        self, job_id: int, proof: st.TerminationProof, invocation_id: str | None = None
    ) -> JobRecord | None:
        def change(job: JobRecord) -> dict[str, Any] | None:
            if not job.possible_live_owned or job.termination_proof is not st.TerminationProof.NONE:
                return None
            if invocation_id is not None and job.invocation_id != invocation_id:
                return None
            return {"termination_proof": proof}

        return self._transition(job_id, None, change, fenced=False)

    def refresh_started(self, job_id: int) -> JobRecord | None:
        def change(job: JobRecord) -> dict[str, Any] | None:
            if not st.refresh_transition_allowed(job.refresh_state, st.RefreshState.RUNNING):
                return None
            return {"refresh_state": st.RefreshState.RUNNING}

        return self._transition(job_id, None, change)

    def refresh_interrupted(self, job_id: int) -> JobRecord | None:
        """A refresh left RUNNING by an earlier process: FAILED, due for retry at once (refresh is
        idempotent; without this the fence would be held forever)."""

        def change(job: JobRecord) -> dict[str, Any] | None:
            if job.refresh_state is not st.RefreshState.RUNNING:
                return None
            return {
                "refresh_state": st.RefreshState.FAILED,
                "refresh_failed_at": 0.0,
                "message": clip(job.message or "metadata refresh interrupted by a restart"),
            }

        return self._transition(job_id, None, change)

    def refresh_finished(self, job_id: int, ok: bool, message: str = "") -> JobRecord | None:
        def change(job: JobRecord) -> dict[str, Any] | None:
            if job.refresh_state is not st.RefreshState.RUNNING:
                return None
            if ok:
                return {"refresh_state": st.RefreshState.DONE}
            return {
                "refresh_state": st.RefreshState.FAILED,
                "refresh_failed_at": time.time(),
                "message": clip(message or job.message),
            }

        return self._transition(job_id, None, change)

    def force_release(
        self, job_id: int, expected_revision: int, actor: str, note: str
    ) -> JobRecord | None:
        def change(job: JobRecord) -> dict[str, Any] | None:
            if job.state is not st.MutationState.UNKNOWN or job.force_released:
                return None
            return {
                "force_released": True,
                "force_actor": actor,
                "force_time": time.time(),
                "force_note": note,
                "force_warning": FORCE_RELEASE_WARNING,
            }

        return self._transition(job_id, expected_revision, change, fenced=False)

    def reconcile(self, job_id: int, committed: bool, message: str) -> JobRecord | None:
        """Evidence settled an UNKNOWN job whose worker is proven gone (drydock, issue 6)."""

        def change(job: JobRecord) -> dict[str, Any] | None:
            if job.state is not st.MutationState.UNKNOWN or job.force_released:
                return None
            if st.holds_possible_live_slot(job.facts):
                return None
            state = st.MutationState.COMMITTED if committed else st.MutationState.NOT_COMMITTED
            return {
                **_moves(job, state, st.RefreshState.REQUIRED),
                "completion_reason": st.CompletionReason.RECONCILED,
                "message": clip(message),
            }

        return self._transition(job_id, None, change)

    # -- retention
    # ------------------------------------------------------------------------------------
    def remove_resolved_older_than(self, cutoff: float, batch: int = 1024) -> int:
        """Delete up to ``batch`` GC-eligible records whose last transition is before ``cutoff``."""
        rows = self._store.query(
            f"SELECT * FROM lance_index_jobs WHERE NOT {LIVE_ROWS_SQL} AND updated_at < ? ORDER BY "
            f"id LIMIT ?",
            (cutoff, batch),
        )
        doomed = [from_row(r) for r in rows]
        doomed = [j for j in doomed if st.gc_eligible(j.facts)]  # states.py has the last word
        if not doomed:
            return 0
        with self._lock, self._store.transaction() as db:
            for job in doomed:
                db.execute(
                    "DELETE FROM lance_index_jobs WHERE id = ? AND revision = ?",
                    (job.id, job.revision),
                )
                db.execute("DELETE FROM lance_index_workers WHERE job_id = ?", (job.id,))
            pause_point("during_gc")
            for job in doomed:
                self._progress.pop(job.id, None)
        return len(doomed)


def _moves(job: JobRecord, state: st.MutationState, refresh: st.RefreshState) -> dict[str, Any]:
    """The axes that actually move to (``state``, ``refresh``): an axis already there is left out
    (naming it would be a self-transition, which the tables forbid)."""
    moves: dict[str, Any] = {}
    if state is not job.state:
        moves["state"] = state
    if refresh is not job.refresh_state:
        moves["refresh_state"] = refresh
    return moves


def _check_move(job: JobRecord, changes: dict[str, Any]) -> None:
    why = st.illegal_move(
        job.state, job.refresh_state, changes.get("state"), changes.get("refresh_state")
    )
    if why is not None:
        raise st.JobStateError(job.id, why)
