"""The catalog vetoes of the jobs code (engine/jobs/control/catalog_guard.py) refuse exactly what
would strand an unresolved job's fence. (That only engine/core.py, the statements and the server
know the Engine is held by tests/unit/test_layers.py.)"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from drydock.engine.lakehouse.catalogs.manager import CatalogRecord
from drydock.engine.errors import DrydockError
from drydock.engine.jobs.control import states as st
from drydock.engine.jobs.control.catalog_guard import CatalogGuard
from drydock.engine.jobs.control.manager import JobManager
from drydock.engine.store.metastore import MetaStore
from tests.support.jobfactory import new_job


def _record(catalog_id: int, **properties: str) -> CatalogRecord:
    return CatalogRecord(
        id=catalog_id,
        name=f"c{catalog_id}",
        type="lance",
        properties=properties,
        comment="",
        created_at=0.0,
        updated_at=0.0,
        revision=0,
    )


@pytest.fixture
def jobs(tmp_path: Path) -> JobManager:
    return JobManager(MetaStore(tmp_path / "m.sqlite"))


def test_drop_catalog_is_refused_while_a_job_on_it_is_unresolved(jobs: JobManager) -> None:
    job = jobs.create(new_job(catalog_id=1), 8, 64, 256)
    guard = CatalogGuard(jobs)
    with pytest.raises(DrydockError) as refused:
        guard.refuse_drop(_record(1))
    assert (refused.value.code, refused.value.sqlstate) == (1105, "HY000")
    assert f"unresolved Lance index job {job.id}" in str(refused.value) and "DROP CATALOG" in str(
        refused.value
    )
    guard.refuse_drop(_record(2))  # another catalog's job fences nothing here


def test_drop_catalog_is_allowed_once_the_job_is_resolved(jobs: JobManager) -> None:
    job = jobs.create(new_job(catalog_id=1), 8, 64, 256)
    jobs.mark_running(
        job.id,
        invocation_id="i",
        index_uuid="u",
        deadline_ms=int(time.time() * 1000) + 60000,
        process_epoch="e",
        backend_id="b",
    )
    jobs.complete_with_result(job.id, "i", st.ResultCode.NATIVE_OK, "", False)
    jobs.refresh_started(job.id)
    jobs.refresh_finished(job.id, ok=True)
    done = jobs.get(job.id)
    assert done is not None and not st.is_unresolved(done.facts)
    CatalogGuard(jobs).refuse_drop(_record(1))


def test_retargeting_is_refused_but_a_comment_change_is_not(jobs: JobManager) -> None:
    jobs.create(new_job(catalog_id=1), 8, 64, 256)
    guard = CatalogGuard(jobs)
    record = _record(1, type="lance", warehouse="/w")
    guard.refuse_retarget(record, {"type": "lance", "warehouse": "/w", "comment": "new words"})
    with pytest.raises(DrydockError) as refused:
        guard.refuse_retarget(record, {"type": "lance", "warehouse": "/elsewhere"})
    assert refused.value.code == 1105 and "changing its target with ALTER CATALOG" in str(
        refused.value
    )
    guard.refuse_retarget(_record(2, warehouse="/w"), {"warehouse": "/elsewhere"})  # no job there
