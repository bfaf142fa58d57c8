"""The refresh obligation: after a known outcome that may have moved external metadata, the
cached metadata of the job's table is refreshed before its fence and quota are released.

DONE only after an actual refresh that re-read the table, or a *positively verified* absence of
the table; a lookup that fails transiently ends FAILED and is retried later (DONE on a failed
lookup would release the fence on a guess). A job whose catalog is gone ends FAILED too, as the
reference does (fail-closed): nothing re-read the table, so nothing proves its metadata current.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Protocol

from drydock.engine.support.faults import pause_point
from drydock.engine.jobs.control import states as st
from drydock.engine.jobs.control.records import JobRecord
from drydock.engine.support.config_keys import Key

if TYPE_CHECKING:
    from drydock.engine.lakehouse.catalogs.manager import CatalogRecord
    from drydock.engine.store.config import Config
    from drydock.engine.jobs.control.manager import JobManager

logger = logging.getLogger(__name__)


class TableLookup(Protocol):
    def table_exists(self, db: str, table: str) -> bool: ...


class RefreshCatalogs(Protocol):
    """What the refresh reads of the catalogs: engine.lakehouse.catalogs.manager.CatalogManager."""

    def by_id(self, catalog_id: int) -> CatalogRecord | None: ...
    def refresh(self, name: str, db: str | None = None, table: str | None = None) -> None: ...
    def connector(self, name: str) -> TableLookup: ...


def refresh_job(jobs: JobManager, catalogs: RefreshCatalogs, job: JobRecord) -> JobRecord | None:
    started = jobs.refresh_started(job.id)
    if started is None:
        return None
    pause_point("during_refresh")
    record = catalogs.by_id(job.catalog_id)
    if record is None:  # fail-closed: no refresh ran, so none is claimed
        return jobs.refresh_finished(
            job.id,
            ok=False,
            message=f"metadata refresh failed: catalog id {job.catalog_id} no longer exists",
        )
    try:
        catalogs.refresh(record.name, job.db, job.tbl)
        connector = catalogs.connector(record.name)
        # Re-read: either the table is there (its fresh metadata now cached) or it is provably gone.
        connector.table_exists(job.db, job.tbl)
    except Exception as exc:  # noqa: BLE001 - any failure is transient until proven otherwise
        logger.warning("refresh of job %s failed: %s", job.id, type(exc).__name__)
        return jobs.refresh_finished(
            job.id, ok=False, message=f"metadata refresh failed: {type(exc).__name__}"
        )
    return jobs.refresh_finished(job.id, ok=True)


def due_refreshes(jobs: JobManager, config: Config, now: float | None = None) -> list[JobRecord]:
    """REQUIRED jobs, and FAILED ones whose retry throttle has passed, oldest first (FIFO)."""
    now = time.time() if now is None else now
    retry = config.get(Key.LANCE_INDEX_JOB_REFRESH_RETRY_SECOND)
    due = []
    # every live state but PENDING and RUNNING, which owe no refresh (admission sets NOT_REQUIRED)
    for job in jobs.live_jobs(
        st.MutationState.COMMITTED, st.MutationState.NOT_COMMITTED, st.MutationState.UNKNOWN
    ):
        if job.refresh_state is st.RefreshState.REQUIRED:
            due.append(job)
        elif (
            job.refresh_state is st.RefreshState.FAILED
            and (job.refresh_failed_at or 0) + retry <= now
        ):
            due.append(job)
    return due
