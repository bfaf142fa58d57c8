"""The Lance index job manager: every durable transition, applied under one lock.

Each transition is one SQLite transaction that compare-and-sets the record's revision; the
in-memory view (fences, quota counts, possible-live slots of *live* jobs) is updated only after
that commit, and is rebuilt from the store at start-up (``replay``). Whether a transition is
allowed is decided by engine/jobs/control/states.py: ``_transition`` checks both of its tables (and
the
cross-axis rule) before writing, and raises ``JobStateError`` for a forbidden move.

Resolved records stay in the store (SHOW reads them there) until retention removes them.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from drydock.engine.errors import DrydockError, Errors, exception_text
from drydock.engine.support.faults import pause_point
from drydock.engine.store.frontends import NotLeader
from drydock.engine.support.host import host_id
from drydock.engine.jobs.control import states as st
from drydock.engine.jobs.control.group_commit import GroupCommit, Request
from drydock.engine.jobs.control.quotas import require_positive_quotas
from drydock.engine.jobs.control.records import (
    INSERT_SQL,
    FenceKey,
    JobRecord,
    clip,
    from_row,
    insert_values,
    to_columns,
    with_id,
)
from drydock.engine.store.metastore import MetadataStore, StaleRevision, StoreConnection

logger = logging.getLogger(__name__)

# SQL mirror of "not gc_eligible" (is_unresolved OR holds_possible_live_slot): the rows replay
# must load. tests/jobs/test_job_states.py checks it agrees with states.py on every combination.
LIVE_ROWS_SQL = """(
    state IN ('PENDING', 'RUNNING')
    OR (state = 'UNKNOWN' AND force_released = 0)
    OR (state IN ('COMMITTED', 'NOT_COMMITTED')
        AND refresh_state IN ('REQUIRED', 'RUNNING', 'FAILED'))
    OR (possible_live_owned = 1 AND termination_proof = 'NONE' AND force_released = 0)
    OR state NOT IN ('PENDING', 'RUNNING', 'COMMITTED', 'NOT_COMMITTED', 'UNKNOWN')
)"""

FORCE_RELEASE_WARNING = (
    "the old worker may still overwrite, remove, or reintroduce the index name; "
    "the mutation outcome remains UNKNOWN"
)
DEADLINE_MESSAGE = "execute deadline expired without a complete trusted result"


class _NothingToWrite(Exception):
    """The latest row, read inside the transaction, no longer calls for the change."""


class JobInsert(NamedTuple):
    """An admitted job waiting for its group-committed insert, with the quotas it is checked by."""

    job: JobRecord
    limits: tuple[int, int, int]  # unresolved-job quota: per table, per catalog, global


class JobManager:
    def __init__(self, store: MetadataStore):
        self._store = store
        self._lock = threading.RLock()
        self._live: dict[int, JobRecord] = {}  # unresolved or slot-holding jobs
        self._live_sorted: list[JobRecord] | None = None  # live_jobs() until _live changes
        self._live_ids_by_state: dict[st.MutationState, set[int]] = {}  # live_jobs(*states)
        self._fences: dict[FenceKey, int] = {}
        self._quota_table: Counter[tuple[int, str]] = Counter()
        self._quota_catalog: Counter[int] = Counter()
        self._quota_global = 0
        self._slots: set[int] = set()
        self._progress: dict[int, str] = {}
        self.listeners: list[Callable[[JobRecord], None]] = []  # told after every transition
        # Set by the engine when a lease elects the dispatcher: checks, inside a transition's own
        # transaction, that this frontend still holds the lease epoch (raises NotLeader).
        self.fence: Callable[[StoreConnection], None] | None = None
        self.frontend_name = ""  # recorded with each worker (engine/store/frontends.py)
        self._seen_seq = 0  # the last change sequence number applied to the in-memory view
        self._progress_written: dict[int, float] = {}  # job id → when its progress was last stored
        self._admissions: GroupCommit[JobInsert, JobRecord] = GroupCommit(self._write_admissions)
        self.replay()

    # -- replay and the in-memory view ------------------------------------------------------------
    def replay(self) -> int:
        seq = self._store.query_one("SELECT value FROM change_counters WHERE name = 'jobs'")
        rows = self._store.query(
            f"SELECT * FROM lance_index_jobs WHERE {LIVE_ROWS_SQL} ORDER BY id"
        )
        with self._lock:
            # rows committed between the two reads are applied again by the next catch-up: harmless
            self._seen_seq = int(seq["value"]) if seq else 0
            self._live.clear()
            self._live_sorted = None
            self._live_ids_by_state.clear()
            self._fences.clear()
            self._quota_table.clear()
            self._quota_catalog.clear()
            self._quota_global = 0
            self._slots.clear()
            for row in rows:
                self._index(from_row(row))
        return len(rows)

    def _index(self, job: JobRecord) -> None:
        facts = job.facts
        if st.is_unresolved(facts):
            self._fences[job.fence] = job.id
            self._quota_table[(job.catalog_id, job.locator)] += 1
            self._quota_catalog[job.catalog_id] += 1
            self._quota_global += 1
        if st.holds_possible_live_slot(facts):
            self._slots.add(job.id)
        if not st.gc_eligible(facts):
            self._live[job.id] = job
            self._live_sorted = None
            self._live_ids_by_state.setdefault(job.state, set()).add(job.id)

    def _unindex(self, job: JobRecord) -> None:
        if st.is_unresolved(job.facts):
            if self._fences.get(job.fence) == job.id:
                del self._fences[job.fence]
            # counts clamp at zero: a release the rebuilt counts never saw must not go negative
            key = (job.catalog_id, job.locator)
            self._quota_table[key] = max(self._quota_table[key] - 1, 0)
            self._quota_catalog[job.catalog_id] = max(self._quota_catalog[job.catalog_id] - 1, 0)
            self._quota_global = max(self._quota_global - 1, 0)
        self._slots.discard(job.id)
        if self._live.pop(job.id, None) is not None:
            self._live_sorted = None
            self._live_ids_by_state.get(job.state, set()).discard(job.id)

    # -- catching up with other frontends ----------------------------------------------------------
    # Every write transaction on a shared store takes the next number of the 'jobs' change counter
    # and stamps the rows it writes with it. Writers are serialised store-wide, so numbers commit in
    # order: a frontend that applied everything up to N is current once it applies the rows stamped
    # above N. Inside a write transaction that makes every admission and transition decide on the
    # latest rows, whichever frontend wrote them; outside, reads on a shared store catch up first.
    def sync(self) -> int:
        """Apply other frontends' committed changes to the in-memory view; how many rows changed."""
        if not self._store.shared:
            return 0  # the store is this process's own: the view is always current
        with self._lock:
            row = self._store.query_one("SELECT value FROM change_counters WHERE name = 'jobs'")
            if row is None or int(row["value"]) <= self._seen_seq:
                return 0
            return self._apply_since(self._store.query, int(row["value"]))

    def _apply_since(self, read: Callable[..., list[Any]], upto: int) -> int:
        rows = read(
            "SELECT * FROM lance_index_jobs WHERE change_seq > ? ORDER BY change_seq",
            (self._seen_seq,),
        )
        for row in rows:
            job = from_row(row)
            old = self._live.get(job.id)
            if old is not None:
                self._unindex(old)
            self._index(job)
            upto = max(upto, int(row["change_seq"]))
        self._seen_seq = upto
        return len(rows)

    def _next_seq(self, db: StoreConnection) -> int:
        """Inside a write transaction (under the lock): this write's number, after catching up.

        A store no other frontend writes (SQLite) has nobody to catch up with and nobody who reads
        the numbers: its writes take none (one statement fewer per admission) and carry the last
        number, which the counter still holds. Catch-up reads only rows past that number, and
        replay loads every live row whatever its number, so nothing is ever missed or re-read."""
        if not self._store.shared:
            return self._seen_seq
        seq = int(
            db.execute(
                "UPDATE change_counters SET value = value + 1 WHERE name = 'jobs' RETURNING value"
            ).fetchone()[0]
        )
        if seq - 1 > self._seen_seq:
            self._apply_since(lambda sql, params: db.execute(sql, params).fetchall(), seq - 1)
        return seq

    # -- reads ------------------------------------------------------------------------------------
    def get(self, job_id: int) -> JobRecord | None:
        self.sync()
        return self._get(job_id)

    def _get(self, job_id: int) -> JobRecord | None:
        with self._lock:
            live = self._live.get(job_id)
        if live is not None:
            return live
        if (
            not 0 <= job_id < 1 << 63
        ):  # ids are SQLite INTEGERs: a larger number is no job (not an OverflowError)
            return None
        row = self._store.query_one("SELECT * FROM lance_index_jobs WHERE id = ?", (job_id,))
        return from_row(row) if row else None

    def live_jobs(self, *states: st.MutationState) -> list[JobRecord]:
        """Unresolved or slot-holding jobs in id order; only those in ``states`` when given.

        A dispatcher round asks several times and every admission wakes a round: the full list is
        sorted once per change of the live set, and a sweep that needs, say, RUNNING jobs does not
        walk thousands of PENDING ones (admission with the dispatcher paused)."""
        self.sync()
        with self._lock:
            if states:
                ids = sorted(
                    i for state in set(states) for i in self._live_ids_by_state.get(state, ())
                )
                return [self._live[i] for i in ids]
            if self._live_sorted is None:
                self._live_sorted = [self._live[k] for k in sorted(self._live)]
            return list(self._live_sorted)

    def iter_rows(self, where: str = "", params: tuple[Any, ...] = ()) -> Iterator[JobRecord]:
        sql = (
            "SELECT * FROM lance_index_jobs" + (f" WHERE {where}" if where else "") + " ORDER BY id"
        )
        for row in self._store.query(sql, params):
            yield from_row(row)

    def fence_holder(self, fence: FenceKey) -> int | None:
        self.sync()
        with self._lock:
            return self._fences.get(fence)

    def unresolved_in_catalog(self, catalog_id: int) -> int | None:
        self.sync()
        with self._lock:
            ids = [
                j.id
                for j in self._live.values()
                if j.catalog_id == catalog_id and st.is_unresolved(j.facts)
            ]
        return min(ids) if ids else None

    def unresolved_on_table(self, catalog_id: int, locator: str) -> int | None:
        self.sync()
        with self._lock:
            ids = [
                j.id
                for j in self._live.values()
                if j.catalog_id == catalog_id and j.locator == locator and st.is_unresolved(j.facts)
            ]
        return min(ids) if ids else None

    def slots_in_use(self) -> int:
        self.sync()
        with self._lock:
            return len(self._slots)

    def quota_counts(self) -> tuple[dict[tuple[int, str], int], dict[int, int], int]:
        self.sync()
        with self._lock:
            return (dict(+self._quota_table), dict(+self._quota_catalog), self._quota_global)

    def progress(self, job_id: int) -> str:
        with self._lock:
            text = self._progress.get(job_id)
        if text is not None or not self._store.shared:
            return text or ""
        row = self._store.query_one(
            "SELECT text FROM lance_index_job_progress WHERE job_id = ?", (job_id,)
        )
        return str(row["text"]) if row else ""  # the leader's, stored for the other frontends

    def set_progress(self, job_id: int, text: str) -> None:
        with self._lock:
            self._progress[job_id] = text
            if (
                not self._store.shared
                or time.monotonic() - self._progress_written.get(job_id, 0.0) < 1.0
            ):
                return  # other frontends see progress at most a second old; SQLite has no others
            self._progress_written[job_id] = time.monotonic()
            if len(self._progress_written) > 4096:  # bounded: the oldest entries go
                for stale in sorted(self._progress_written, key=self._progress_written.__getitem__)[
                    :1024
                ]:
                    del self._progress_written[stale]
        with self._store.transaction() as db:
            db.execute(
                "INSERT INTO lance_index_job_progress (job_id, text, updated_at) VALUES (?, ?, ?) "
                "ON CONFLICT(job_id) DO UPDATE SET text = excluded.text, updated_at = "
                "excluded.updated_at",
                (job_id, text, time.time()),
            )

    # -- admission
    # ----------------------------------------------------------------------------------
    def create(
        self, job: JobRecord, table_limit: int, catalog_limit: int, global_limit: int
    ) -> JobRecord:
        """Fence and three-level quota check, then one durable insert in state PENDING.

        Admissions waiting at the same moment are group-committed (one transaction, one fsync);
        this returns only once this job's row is durable."""
        limits = require_positive_quotas((table_limit, catalog_limit, global_limit))
        if (job.state, job.refresh_state) != st.INITIAL:
            raise st.JobStateError(
                job.id, f"admission in state {job.state.value}/{job.refresh_state.value}"
            )
        # Refuse early when the view is free; while a batch is being written (the lock is held over
        # its
        # fsync) skip to the queue instead: the writer checks every row again, in order, and waiting
        # here would let each batch leave only one admission behind it (a convoy of batches of one).
        if self._lock.acquire(blocking=False):
            try:
                self.sync()
                self._check_admission(job, limits)
            finally:
                self._lock.release()
        job = self._admissions.submit(JobInsert(job, limits))
        pause_point("after_admission_commit")
        self._notify(job)
        return job

    def _check_admission(self, job: JobRecord, limits: tuple[int, int, int]) -> None:
        holder = self._fences.get(job.fence)
        if holder is not None:
            raise Errors.LANCE_INDEX_FENCED.error(index=job.index_name, job_id=holder)
        table_limit, catalog_limit, global_limit = limits
        if (
            self._quota_table[(job.catalog_id, job.locator)] >= table_limit
            or self._quota_catalog[job.catalog_id] >= catalog_limit
            or self._quota_global >= global_limit
        ):
            raise Errors.LANCE_INDEX_QUOTA.error(index=job.index_name)

    def _write_admissions(self, batch: list[Request[JobInsert, JobRecord]]) -> None:
        """The group commit's writer: the batch in one transaction; if that transaction fails, each
        row in its own, so a failing row fails only its own client."""
        with self._lock:
            try:
                self._insert_batch(batch)
                return
            except Exception:  # retried row by row below; each row gets its own error
                logger.warning(
                    "group commit of %d admissions failed; writing them one by one",
                    len(batch),
                    exc_info=True,
                )
            for request in batch:
                request.result = request.error = None
                try:
                    self._insert_batch([request])
                # this row's error, answered to its client only
                except Exception as exc:  # noqa: BLE001
                    request.error = Errors.INTERNAL.error(
                        detail=f"admission not written: {exception_text(exc)}"
                    )

    def _insert_batch(self, batch: list[Request[JobInsert, JobRecord]]) -> None:
        """Under the lock: check and insert each row in order (a refused row gets its own error),
        commit once. Rows are indexed as they are inserted so that later rows of the batch see their
        fences and quota; nobody can look before the commit (the lock is held), and a failed commit
        takes them out again."""
        inserted: list[JobRecord] = []
        try:
            with self._store.transaction() as db:
                seq = self._next_seq(
                    db
                )  # the fences and quotas other frontends took are in the view now
                for request in batch:
                    request.result = self._insert_one(db, request, seq)
                    if request.result is not None:
                        inserted.append(request.result)
        except BaseException:
            for job in inserted:
                self._unindex(job)
            raise
        self._seen_seq = seq

    def _insert_one(
        self, db: StoreConnection, request: Request[JobInsert, JobRecord], seq: int
    ) -> JobRecord | None:
        job, limits = request.item
        try:
            self._check_admission(job, limits)
        except DrydockError as exc:
            request.error = exc
            return None
        # RETURNING: PostgreSQL has no lastrowid
        cursor = db.execute(INSERT_SQL + " RETURNING id", (*insert_values(job), seq))
        job = with_id(job, int(cursor.fetchone()[0]))
        self._index(job)
        return job

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

    def _notify(self, job: JobRecord) -> None:
        for listener in list(self.listeners):
            try:
                listener(job)
            except Exception:  # noqa: BLE001 - a listener must never undo a durable transition
                logger.exception("job listener failed")

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

    # -- worker processes
    # ------------------------------------------------------------------------------
    def record_worker(
        self,
        job_id: int,
        invocation_id: str,
        pid: int,
        start_ticks: int | None,
        cgroup: str,
        epoch: str,
    ) -> None:
        """The worker's record, written at its fork barrier, before it is released. Fenced: a
        frontend
        that lost the lease meanwhile raises NotLeader here and the worker is killed unreleased, so
        "no record" keeps proving "never released" to the new leader."""
        with self._store.transaction() as db:
            if self.fence is not None:
                self.fence(db)
            db.execute(
                "INSERT INTO lance_index_workers (job_id, invocation_id, pid, start_ticks, cgroup, "
                "epoch, "
                "host, frontend) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(job_id, "
                "invocation_id) DO UPDATE "
                "SET pid = excluded.pid, start_ticks = excluded.start_ticks, cgroup = "
                "excluded.cgroup, "
                "epoch = excluded.epoch, host = excluded.host, frontend = excluded.frontend",
                (
                    job_id,
                    invocation_id,
                    pid,
                    start_ticks,
                    cgroup,
                    epoch,
                    host_id(),
                    self.frontend_name,
                ),
            )

    def worker_of(self, job_id: int, invocation_id: str) -> tuple[int, int | None] | None:
        row = self._store.query_one(
            "SELECT pid, start_ticks FROM lance_index_workers WHERE job_id = ? "
            "AND invocation_id = ?",
            (job_id, invocation_id),
        )
        return (int(row["pid"]), row["start_ticks"]) if row else None

    def worker_frontend(self, job_id: int, invocation_id: str) -> str | None:
        """The frontend whose dispatcher spawned the worker ('' before migration 8); None: no
        worker."""
        row = self._store.query_one(
            "SELECT frontend FROM lance_index_workers WHERE job_id = ? AND invocation_id = ?",
            (job_id, invocation_id),
        )
        return None if row is None else str(row["frontend"])

    def worker_host(self, job_id: int, invocation_id: str) -> str | None:
        """The host the worker was recorded on ('' = this host, before migration 7); None: no
        worker."""
        row = self._store.query_one(
            "SELECT host FROM lance_index_workers WHERE job_id = ? AND invocation_id = ?",
            (job_id, invocation_id),
        )
        return None if row is None else str(row["host"])

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
