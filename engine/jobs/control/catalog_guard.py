"""Catalog changes that would strand an unresolved index job's fence are refused: DROP CATALOG and
an ALTER CATALOG that changes where its tables live (docs/job-contract.md, "Admission").

The catalog manager knows nothing about jobs; engine/core.py hangs these vetoes on its
``before_drop`` and ``before_retarget`` hooks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from drydock.engine.errors import Errors
from drydock.engine.lakehouse.catalogs.lance_fs import SHARED_FILESYSTEM

if TYPE_CHECKING:
    from drydock.engine.lakehouse.catalogs.manager import CatalogRecord
    from drydock.engine.jobs.control.manager import JobManager


class CatalogGuard:
    def __init__(self, jobs: JobManager):
        self._jobs = jobs

    def refuse_drop(self, record: CatalogRecord) -> None:
        """DROP CATALOG while a job on it is unresolved."""
        job_id = self._jobs.unresolved_in_catalog(record.id)
        if job_id is not None:
            raise Errors.CATALOG_BUSY.error(name=record.name, job_id=job_id, op="DROP CATALOG")

    def refuse_retarget(self, record: CatalogRecord, merged: dict[str, str]) -> None:
        """ALTER CATALOG … SET PROPERTIES that changes where the catalog points (anything but its
        comment, or whether its warehouse is a shared file system, which a held local job waits for)
        while a job on it is unresolved: the job's locator would name another dataset."""
        target_keys = {
            k
            for k in set(record.properties) | set(merged)
            if record.properties.get(k) != merged.get(k) and k not in ("comment", SHARED_FILESYSTEM)
        }
        if not target_keys:
            return
        job_id = self._jobs.unresolved_in_catalog(record.id)
        if job_id is not None:
            raise Errors.CATALOG_BUSY.error(
                name=record.name, job_id=job_id, op="changing its target with ALTER CATALOG"
            )
