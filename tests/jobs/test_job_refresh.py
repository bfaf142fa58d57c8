"""Defect 7: a refresh whose table lookup failed transiently must not be marked DONE; nor one whose
catalog is gone (issue 27: fail-closed)."""

from __future__ import annotations

import time
from pathlib import Path

from drydock.engine.lakehouse.catalogs.manager import CatalogRecord
from drydock.engine.store.config import Config
from drydock.engine.support.config_keys import Key
from drydock.engine.jobs.control import states as st
from drydock.engine.jobs.control.manager import JobManager
from drydock.engine.jobs.control.records import JobRecord
from drydock.engine.jobs.control.refresh import due_refreshes, refresh_job
from drydock.engine.store.metastore import MetaStore
from tests.support.jobfactory import new_job


class FlakyConnector:
    def __init__(self) -> None:
        self.fail = True
        self.refreshed: list[tuple[str, str | None, str | None]] = []

    def table_exists(self, db: str, table: str) -> bool:
        if self.fail:
            raise OSError("object store unreachable")
        return True


class FakeCatalogs:
    """The catalogs as refresh reads them (engine.jobs.control.refresh.RefreshCatalogs): catalog 1
    is "lc"."""

    def __init__(self, connector: FlakyConnector) -> None:
        self.connector_obj = connector

    def by_id(self, catalog_id: int) -> CatalogRecord | None:
        return (
            CatalogRecord(
                id=1,
                name="lc",
                type="lance",
                properties={},
                comment="",
                created_at=0.0,
                updated_at=0.0,
                revision=0,
            )
            if catalog_id == 1
            else None
        )

    def refresh(self, name: str, db: str | None = None, table: str | None = None) -> None:
        self.connector_obj.refreshed.append((name, db, table))

    def connector(self, name: str) -> FlakyConnector:
        return self.connector_obj


def _get(jobs: JobManager, job_id: int) -> JobRecord:
    job = jobs.get(job_id)
    assert job is not None
    return job


def _committed_job(jobs: JobManager, catalog_id: int = 1) -> int:
    job = jobs.create(new_job(catalog_id=catalog_id), 8, 64, 256)
    jobs.mark_running(
        job.id,
        invocation_id="i",
        index_uuid="u",
        deadline_ms=int(time.time() * 1000) + 60000,
        process_epoch="e",
        backend_id="b",
    )
    jobs.complete_with_result(job.id, "i", st.ResultCode.NATIVE_OK, "", False)
    return job.id


def test_transient_lookup_failure_is_failed_not_done_and_keeps_the_fence(tmp_path: Path) -> None:
    store = MetaStore(tmp_path / "m.sqlite")
    jobs = JobManager(store)
    connector = FlakyConnector()
    catalogs, config = FakeCatalogs(connector), Config(store)
    job_id = _committed_job(jobs)
    failed = refresh_job(jobs, catalogs, _get(jobs, job_id))
    assert failed is not None and failed.refresh_state is st.RefreshState.FAILED
    assert jobs.fence_holder(failed.fence) == job_id  # fence and quota still held
    # FAILED retries wait for lance_index_job_refresh_retry_second
    assert due_refreshes(jobs, config) == []
    later = time.time() + config.get(Key.LANCE_INDEX_JOB_REFRESH_RETRY_SECOND) + 1
    assert [j.id for j in due_refreshes(jobs, config, now=later)] == [job_id]
    connector.fail = False
    done = refresh_job(jobs, catalogs, _get(jobs, job_id))
    assert (
        done is not None
        and done.refresh_state is st.RefreshState.DONE
        and jobs.fence_holder(done.fence) is None
    )
    assert connector.refreshed == [("lc", "db", "t"), ("lc", "db", "t")]


def test_a_gone_catalog_ends_failed_and_keeps_the_fence(tmp_path: Path) -> None:
    """Issue 27: the reference fails closed — no refresh ran, so the refresh is FAILED, not DONE,
    and the fence stays held (FAILED retries later)."""
    store = MetaStore(tmp_path / "m.sqlite")
    jobs = JobManager(store)
    connector = FlakyConnector()
    job_id = _committed_job(jobs, catalog_id=2)
    failed = refresh_job(jobs, FakeCatalogs(connector), _get(jobs, job_id))
    assert failed is not None and failed.refresh_state is st.RefreshState.FAILED
    assert failed.message == "metadata refresh failed: catalog id 2 no longer exists"
    assert jobs.fence_holder(failed.fence) == job_id
    assert connector.refreshed == []
