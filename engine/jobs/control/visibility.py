"""Which Lance index jobs a session may see, and whether a job's target still resolves.

A job whose catalog is gone, whose table no longer resolves, or whose table now points at another
dataset (locator changed) is an *orphan*: only ADMIN may see or resolve it. A job the caller may
not see answers exactly like a missing one (5103), and SHOW omits it silently.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from drydock.engine.security.privileges import Privilege
from drydock.engine.session import SessionContext

if TYPE_CHECKING:
    from drydock.engine.lakehouse.catalogs.manager import CatalogManager
    from drydock.engine.security.privileges import Privileges


class JobLocation(Protocol):
    """What visibility reads of a job: a JobRecord, or a narrow row of SHOW's own columns."""

    @property
    def catalog_id(self) -> int: ...
    @property
    def db(self) -> str: ...
    @property
    def tbl(self) -> str: ...
    @property
    def locator(self) -> str: ...


@dataclass(frozen=True)
class Resolution:
    catalog_name: str  # current name ('' if the catalog is gone)
    orphan: bool
    failed: bool  # the lookup itself failed: neither "present" nor "gone" is proven


def resolve(catalogs: CatalogManager, job: JobLocation, authoritative: bool = False) -> Resolution:
    """``authoritative`` (RESOLVE): drop the table's cached listing first, so that a table deleted
    or re-created outside drydock is judged on what is there now, not on a listing cached for the
    TTL."""
    record = catalogs.by_id(job.catalog_id)
    if record is None:
        return Resolution("", orphan=True, failed=False)
    try:
        if authoritative:
            catalogs.refresh(record.name, job.db, job.tbl)
        connector = catalogs.lance_connector(record.name)
        if not connector.table_exists(job.db, job.tbl):
            return Resolution(record.name, orphan=True, failed=False)
        same = connector.dataset_uri(job.db, job.tbl) == job.locator
        return Resolution(record.name, orphan=not same, failed=False)
    except Exception:  # noqa: BLE001 - an unreachable store proves nothing either way
        return Resolution(record.name, orphan=True, failed=True)


class JobVisibility:
    """Per-statement cache: one resolution per persisted (catalog, db, table, locator).

    ``job`` arguments are JobRecords or any row with the same ``catalog_id``, ``db``, ``tbl`` and
    ``locator`` fields (SHOW LANCE INDEX JOBS reads only the columns it lists)."""

    MAX_SCOPE_PARAMS = 900  # below SQLite's smallest host-parameter limit

    def __init__(
        self,
        catalogs: CatalogManager,
        privileges: Privileges,
        ctx: SessionContext,
        authoritative: bool = False,
    ):
        self._catalogs = catalogs
        self._privileges = privileges
        self._ctx = ctx
        self._authoritative = authoritative
        self._admin = privileges.has(ctx, Privilege.ADMIN)
        self._cache: dict[tuple[int, str, str, str], Resolution] = {}
        self._names: dict[int, str] = {}

    def resolution(self, job: JobLocation) -> Resolution:
        key = (job.catalog_id, job.db, job.tbl, job.locator)
        if key not in self._cache:
            self._cache[key] = resolve(self._catalogs, job, self._authoritative)
        return self._cache[key]

    def catalog_name(self, job: JobLocation) -> str:
        """The catalog's current name ('' if it is gone)."""
        if job.catalog_id not in self._names:
            record = self._catalogs.by_id(job.catalog_id)
            self._names[job.catalog_id] = record.name if record else ""
        return self._names[job.catalog_id]

    def sql_scope(self) -> tuple[str, tuple[object, ...]] | None:
        """A pre-filter on ``lance_index_jobs`` for SHOW: the (catalog, db, table)s the caller holds
        any privilege on, so that a user who may see 1% of the jobs does not load the other 99%.
        A superset of what ``may_see`` accepts (which still decides every row: orphans); None when
        nothing is to be filtered (ADMIN) or the grants are too many to spell out."""
        if self._admin:
            return None
        clauses: list[str] = []
        params: list[object] = []
        for record in self._catalogs.list():
            everything, dbs, tables = self._privileges.visibility(self._ctx, record.name)
            if everything:
                clauses.append("catalog_id = ?")
                params.append(record.id)
                continue
            for db in sorted(dbs):
                clauses.append("(catalog_id = ? AND db = ?)")
                params += [record.id, db]
            for db, tbl in sorted(tables):
                clauses.append("(catalog_id = ? AND db = ? AND tbl = ?)")
                params += [record.id, db, tbl]
        if len(params) > self.MAX_SCOPE_PARAMS:
            return None
        return ("(" + " OR ".join(clauses) + ")" if clauses else "1 = 0"), tuple(params)

    # The privilege is checked before the target is resolved: resolving costs a listing (an
    # authoritative one for RESOLVE), and a caller without any privilege must not cause one.
    def may_see(self, job: JobLocation) -> bool:
        if self._admin:
            return True
        name = self.catalog_name(job)
        if not name or not self._privileges.may_see_table(self._ctx, name, job.db, job.tbl):
            return False
        return not self.resolution(job).orphan

    def may_alter(self, job: JobLocation) -> bool:
        if self._admin:
            return True
        name = self.catalog_name(job)
        if not name or not self._privileges.has(self._ctx, Privilege.ALTER, name, job.db, job.tbl):
            return False
        return not self.resolution(job).orphan
