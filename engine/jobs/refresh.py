"""The refresh obligation: after a known outcome that may have moved external metadata, the
cached metadata of the job's table is refreshed before its fence and quota are released.

DONE only after an actual refresh that re-read the table, or a *positively verified* absence of
the table; a lookup that fails transiently ends FAILED and is retried later (defect 7).
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from engine.faults import pause_point
from engine.jobs import states as st
from engine.jobs.records import JobRecord
from engine.config_keys import Key

if TYPE_CHECKING:
    from engine.core import Engine

logger = logging.getLogger(__name__)


def refresh_job(engine: Engine, job: JobRecord) -> JobRecord | None:
    started = engine.jobs.refresh_started(job.id)
    if started is None:
        return None
    pause_point("during_refresh")
    record = engine.catalogs.by_id(job.catalog_id)
    if record is None:
        return engine.jobs.refresh_finished(job.id, ok=True)  # the catalog is gone: nothing cached
    try:
        engine.catalogs.refresh(record.name, job.db, job.tbl)
        connector = engine.catalogs.connector(record.name)
        # Re-read: either the table is there (its fresh metadata now cached) or it is provably gone.
        connector.table_exists(job.db, job.tbl)
    except Exception as exc:  # noqa: BLE001 - any failure is transient until proven otherwise
        logger.warning("refresh of job %s failed: %s", job.id, type(exc).__name__)
        return engine.jobs.refresh_finished(job.id, ok=False, message=f"metadata refresh failed: {type(exc).__name__}")
    return engine.jobs.refresh_finished(job.id, ok=True)


def due_refreshes(engine: Engine, now: float | None = None) -> list[JobRecord]:
    """REQUIRED jobs, and FAILED ones whose retry throttle has passed, oldest first (FIFO)."""
    now = time.time() if now is None else now
    retry = engine.config.get(Key.LANCE_INDEX_JOB_REFRESH_RETRY_SECOND)
    due = []
    # every live state but PENDING and RUNNING, which owe no refresh (admission sets NOT_REQUIRED)
    for job in engine.jobs.live_jobs(st.MutationState.COMMITTED, st.MutationState.NOT_COMMITTED,
                                     st.MutationState.UNKNOWN):
        if job.refresh_state is st.RefreshState.REQUIRED:
            due.append(job)
        elif job.refresh_state is st.RefreshState.FAILED and (job.refresh_failed_at or 0) + retry <= now:
            due.append(job)
    return due
