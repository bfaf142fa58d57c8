"""Defect 7: a refresh whose table lookup failed transiently must not be marked DONE."""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from engine.config import Config
from engine.jobs import states as st
from engine.jobs.manager import JobManager
from engine.jobs.refresh import due_refreshes, refresh_job
from engine.metastore import MetaStore
from tests.jobfactory import new_job


class FlakyConnector:
    def __init__(self) -> None:
        self.fail = True
        self.refreshed: list[tuple[Any, ...]] = []

    def table_exists(self, db: str, table: str) -> bool:
        if self.fail:
            raise OSError("object store unreachable")
        return True


class FakeCatalogs:
    def __init__(self, connector: FlakyConnector) -> None:
        self.connector_obj = connector

    def by_id(self, catalog_id: int) -> Any:
        return SimpleNamespace(name="lc") if catalog_id == 1 else None

    def refresh(self, name: str, db: str | None = None, table: str | None = None) -> None:
        self.connector_obj.refreshed.append((name, db, table))

    def connector(self, name: str) -> FlakyConnector:
        return self.connector_obj


def _committed_job(jobs: JobManager, catalog_id: int = 1) -> int:
    job = jobs.create(new_job(catalog_id=catalog_id), 8, 64, 256)
    jobs.mark_running(job.id, invocation_id="i", index_uuid="u", deadline_ms=int(time.time() * 1000) + 60000,
                      process_epoch="e", backend_id="b")
    jobs.complete_with_result(job.id, "i", st.ResultCode.NATIVE_OK, "", False)
    return job.id


def test_transient_lookup_failure_is_failed_not_done_and_keeps_the_fence(tmp_path: Path) -> None:
    store = MetaStore(tmp_path / "m.sqlite")
    jobs = JobManager(store)
    connector = FlakyConnector()
    engine = SimpleNamespace(jobs=jobs, catalogs=FakeCatalogs(connector), config=Config(store))
    job_id = _committed_job(jobs)
    failed = refresh_job(engine, jobs.get(job_id))  # type: ignore[arg-type]
    assert failed.refresh_state is st.RefreshState.FAILED
    assert jobs.fence_holder(failed.fence) == job_id  # fence and quota still held
    # FAILED retries wait for lance_index_job_refresh_retry_second
    assert due_refreshes(engine) == []  # type: ignore[arg-type]
    later = time.time() + engine.config.get("lance_index_job_refresh_retry_second") + 1
    assert [j.id for j in due_refreshes(engine, now=later)] == [job_id]  # type: ignore[arg-type]
    connector.fail = False
    done = refresh_job(engine, jobs.get(job_id))  # type: ignore[arg-type]
    assert done.refresh_state is st.RefreshState.DONE and jobs.fence_holder(done.fence) is None
    assert connector.refreshed == [("lc", "db", "t"), ("lc", "db", "t")]


def test_a_gone_catalog_is_a_verified_absence(tmp_path: Path) -> None:
    store = MetaStore(tmp_path / "m.sqlite")
    jobs = JobManager(store)
    engine = SimpleNamespace(jobs=jobs, catalogs=FakeCatalogs(FlakyConnector()), config=Config(store))
    job_id = _committed_job(jobs, catalog_id=2)
    assert refresh_job(engine, jobs.get(job_id)).refresh_state is st.RefreshState.DONE  # type: ignore[arg-type]
