"""Admission's durable insert: a new job's fence and three-level quota checked against the
in-memory view (engine/jobs/control/job_view.py) and its row written in state PENDING; the
admissions waiting at the same moment are group-committed (engine/jobs/control/group_commit.py)
under the job manager's lock.
"""

from __future__ import annotations

import logging
from typing import NamedTuple

from drydock.engine.errors import DrydockError, Errors, exception_text
from drydock.engine.jobs.control import states as st
from drydock.engine.jobs.control.group_commit import GroupCommit, Request
from drydock.engine.jobs.control.job_view import JobView
from drydock.engine.jobs.control.quotas import require_positive_quotas
from drydock.engine.jobs.control.records import INSERT_SQL, JobRecord, insert_values, with_id
from drydock.engine.store.metastore import MetadataStore, StoreConnection
from drydock.engine.support.faults import pause_point

logger = logging.getLogger(__name__)


class JobInsert(NamedTuple):
    """An admitted job waiting for its group-committed insert, with the quotas it is checked by."""

    job: JobRecord
    limits: tuple[int, int, int]  # unresolved-job quota: per table, per catalog, global


class JobInserts(JobView):
    def __init__(self, store: MetadataStore):
        super().__init__(store)
        self._admissions: GroupCommit[JobInsert, JobRecord] = GroupCommit(self._write_admissions)

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
