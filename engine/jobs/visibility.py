"""Which Lance index jobs a session may see, and whether a job's target still resolves.

A job whose catalog is gone, whose table no longer resolves, or whose table now points at another
dataset (locator changed) is an *orphan*: only ADMIN may see or resolve it. A job the caller may
not see answers exactly like a missing one (5103), and SHOW omits it silently.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.jobs.records import JobRecord
from engine.session import SessionContext

if TYPE_CHECKING:
    from engine.core import Engine


@dataclass(frozen=True)
class Resolution:
    catalog_name: str  # current name ('' if the catalog is gone)
    orphan: bool
    failed: bool  # the lookup itself failed: neither "present" nor "gone" is proven


def resolve(engine: Engine, job: JobRecord) -> Resolution:
    record = engine.catalogs.by_id(job.catalog_id)
    if record is None:
        return Resolution("", orphan=True, failed=False)
    try:
        connector = engine.catalogs.connector(record.name)
        if not connector.table_exists(job.db, job.tbl):
            return Resolution(record.name, orphan=True, failed=False)
        same = connector.dataset_uri(job.db, job.tbl) == job.locator
        return Resolution(record.name, orphan=not same, failed=False)
    except Exception:  # noqa: BLE001 - an unreachable store proves nothing either way
        return Resolution(record.name, orphan=True, failed=True)


class JobVisibility:
    """Per-statement cache: one resolution per persisted (catalog, db, table, locator)."""

    def __init__(self, engine: Engine, ctx: SessionContext):
        self._engine = engine
        self._ctx = ctx
        self._admin = engine.privileges.has(ctx, "ADMIN_PRIV")
        self._cache: dict[tuple[int, str, str, str], Resolution] = {}

    def resolution(self, job: JobRecord) -> Resolution:
        key = (job.catalog_id, job.db, job.tbl, job.locator)
        if key not in self._cache:
            self._cache[key] = resolve(self._engine, job)
        return self._cache[key]

    def catalog_name(self, job: JobRecord) -> str:
        record = self._engine.catalogs.by_id(job.catalog_id)
        return record.name if record else ""

    def may_see(self, job: JobRecord) -> bool:
        if self._admin:
            return True
        res = self.resolution(job)
        if res.orphan:
            return False
        return self._engine.privileges.may_see_table(self._ctx, res.catalog_name, job.db, job.tbl)

    def may_alter(self, job: JobRecord) -> bool:
        if self._admin:
            return True
        res = self.resolution(job)
        if res.orphan:
            return False
        return self._engine.privileges.has(self._ctx, "ALTER_PRIV", res.catalog_name, job.db, job.tbl)
