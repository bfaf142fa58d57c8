"""One view of databases, tables and columns across the internal and external catalogs.

Every listing is filtered by what the session may see; a database or table the user may not see
answers exactly like a missing one.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from drydock.engine.lakehouse.catalogs.base import Column, TimeTravel, split_system_name
from drydock.engine.session import INTERNAL
from drydock.engine.errors import DrydockError, Errors, exception_text
from drydock.engine.session import SessionContext

if TYPE_CHECKING:
    from drydock.engine.lakehouse.catalogs.manager import CatalogManager
    from drydock.engine.security.privileges import Privileges
    from drydock.engine.sql.query import QueryEngine


def split_database(catalogs: CatalogManager, name: str) -> tuple[str, str] | None:
    """``catalog.db`` as one database name (engine/sql/dotted_names.py): (catalog, db) when ``name``
    is ``catalog.db`` of an existing catalog, else None."""
    if "." not in name:
        return None
    catalog, db = name.split(".", 1)
    if not db:
        return None
    if catalog.lower() == INTERNAL:
        return INTERNAL, db
    record = catalogs.find(catalog)
    return (record.name, db) if record is not None else None


class Metadata:
    def __init__(
        self, catalogs: CatalogManager, query: QueryEngine, privileges: Privileges, data_dir: Path
    ):
        self._catalogs = catalogs
        self._query = query
        self._privileges = privileges
        self._data_dir = data_dir  # scrubbed from library error texts (exception_text)

    def _external(self, catalog: str):  # type: ignore[no-untyped-def]
        return self._catalogs.connector(catalog)

    def _guard(self, catalog: str, fn, *args):  # type: ignore[no-untyped-def]
        """Run a connector call; library errors become a clear catalog error without secrets."""
        connector = self._external(catalog)
        try:
            return fn(connector, *args)
        except DrydockError:
            raise
        except Exception as exc:  # noqa: BLE001 - any library failure becomes one typed error
            from drydock.engine.security.redact import redact_text

            detail = redact_text(exception_text(exc, self._data_dir), connector.secrets())
            raise Errors.CATALOG_ACCESS_FAILED.error(name=catalog, detail=detail) from None

    # -- listings --------------------------------------------------------------------------------
    def databases(self, ctx: SessionContext, catalog: str) -> list[str]:
        if catalog.lower() == INTERNAL:
            names = self._query.databases()
        elif not self._privileges.sees_catalog(ctx, catalog):
            # nothing in it is visible: never ask the catalog (its endpoint may hang for a minute,
            # and every BI connect lists every catalog)
            return []
        else:
            names = self._guard(catalog, lambda c: c.list_databases())
        return [d for d in sorted(names) if self._privileges.may_see_db(ctx, catalog, d)]

    def prefetch_databases(self, ctx: SessionContext, catalog: str) -> None:
        """Start listing an external catalog's databases, if the user may see anything in it;
        never waits, never fails (databases() reports)."""
        if catalog.lower() == INTERNAL or not self._privileges.sees_catalog(ctx, catalog):
            return
        try:
            self._external(catalog).prefetch_databases()
        except Exception:  # noqa: BLE001 - databases() meets the same failure and reports it
            return

    def tables(self, ctx: SessionContext, catalog: str, db: str) -> list[tuple[str, str]]:
        self.require_database(ctx, catalog, db)
        if catalog.lower() == INTERNAL:
            rows = self._query.tables(db)
        else:
            rows = [(t, "BASE TABLE") for t in self._guard(catalog, lambda c: c.list_tables(db))]
        return [r for r in sorted(rows) if self._privileges.may_see_table(ctx, catalog, db, r[0])]

    def columns(self, ctx: SessionContext, catalog: str, db: str, table: str) -> list[Column]:
        self.require_table(ctx, catalog, db, table)
        if catalog.lower() == INTERNAL:
            return [
                Column(name, ctype, nullable == "YES")
                for name, ctype, nullable, _ in self._query.columns(db, table)
            ]
        return self._guard(catalog, lambda c: c.columns(db, table))

    def column_rows(
        self, ctx: SessionContext, catalog: str, db: str, table: str
    ) -> list[tuple[Any, ...]]:
        """The rows of SHOW FULL COLUMNS (Field, Type, Collation, Null, Key, Default, Extra,
        Privileges, Comment) in the table's column order; DESCRIBE and SHOW COLUMNS show a part."""
        self.require_table(ctx, catalog, db, table)
        if catalog.lower() == INTERNAL:
            return [
                (*r[:5], mysql_default(r[5]), *r[6:]) for r in self._query.column_details(db, table)
            ]
        return [
            (
                c.name,
                c.type,
                None,
                "YES" if c.nullable else "NO",
                c.key,
                None,
                "",
                "select",
                c.comment,
            )
            for c in self._guard(catalog, lambda connector: connector.columns(db, table))
        ]

    def scan(
        self, ctx: SessionContext, catalog: str, db: str, table: str, travel: TimeTravel | None
    ) -> Any:
        """The Arrow object of an external table, pinned to one version, for DuckDB to scan.

        ``information_schema.<t>`` of an external catalog is answered here too (the query layer
        asks for it like for any table): its rows are the catalog's metadata the user may see.
        """
        if db.lower() == "information_schema" and catalog.lower() != INTERNAL:
            return self.information_schema(ctx, catalog, table.lower())
        # require_table() in one connector call: this runs for every table of every SELECT.
        # ``t$snapshots`` (a system table or branch of t) is seen and read exactly like t.
        base, suffix = split_system_name(table)
        missing = Errors.UNKNOWN_EXTERNAL_TABLE.error(table=f"{db}.{table}", catalog=catalog)
        if not self._privileges.may_see_table(ctx, catalog, db, base):
            raise missing

        def read(connector: Any) -> Any:
            if not connector.table_exists(db, base):
                raise missing
            if suffix:
                return connector.system_scan(db, base, suffix, travel)
            return connector.scan(db, table, travel)

        return self._guard(catalog, read)

    def information_schema(self, ctx: SessionContext, catalog: str, name: str) -> Any:
        """Raw rows of information_schema.SCHEMATA/TABLES/COLUMNS of an external catalog (Arrow),
        built from the listings above, so that the visibility filter applies exactly as in SHOW."""
        from drydock.engine.sql import info_schema

        rows: list[tuple[object, ...]] = []
        databases = self.databases(ctx, catalog)
        if name == "schemata":
            rows = [("information_schema",), *((d,) for d in databases)]
        elif name == "tables":
            engine = self._catalogs.get(catalog).type.capitalize()
            rows = [
                (db, t, "BASE TABLE", engine, "")
                for db in databases
                for t, _ in self.tables(ctx, catalog, db)
            ]
        elif name == "columns":
            for db in databases:
                for t, _ in self.tables(ctx, catalog, db):
                    rows += [
                        info_schema.external_column_row(
                            db, t, i, c.name, c.type, c.mysql_type, c.nullable, c.key, c.comment
                        )
                        for i, c in enumerate(self.columns(ctx, catalog, db, t), start=1)
                    ]
        else:
            raise Errors.INTERNAL.error(
                detail=f"information_schema.{name} is not built from a catalog"
            )
        return info_schema.external_table(name, rows)

    # -- existence (invisible = missing) ----------------------------------------------------------
    def require_database(self, ctx: SessionContext, catalog: str, db: str) -> None:
        missing = (
            Errors.UNKNOWN_DATABASE.error(db=db)
            if catalog.lower() == INTERNAL
            else Errors.UNKNOWN_EXTERNAL_DATABASE.error(db=db, catalog=catalog)
        )
        if not self._privileges.may_see_db(ctx, catalog, db):
            if catalog.lower() == INTERNAL:
                raise Errors.DB_ACCESS_DENIED.error(user=ctx.user, host=ctx.host, db=db)
            raise missing
        if catalog.lower() == INTERNAL:
            exists = db in self._query.databases()
        else:
            exists = db in self._guard(catalog, lambda c: c.list_databases())
        if not exists:
            raise missing

    def require_table(self, ctx: SessionContext, catalog: str, db: str, table: str) -> None:
        internal = catalog.lower() == INTERNAL
        if not self._privileges.may_see_table(ctx, catalog, db, table):
            raise _missing_table(internal, catalog, db, table)
        if internal:
            exists = any(t == table for t, _ in self._query.tables(db))
        else:
            exists = self._guard(catalog, lambda c: c.table_exists(db, table))
        if not exists:
            raise _missing_table(internal, catalog, db, table)

    def split(self, ctx: SessionContext, parts: tuple[str, ...]) -> tuple[str, str, str]:
        """[[catalog.]db.]table → (catalog, db, table) in the session's catalog and database."""
        if len(parts) == 3:
            catalog = (
                INTERNAL if parts[0].lower() == INTERNAL else self._catalogs.get(parts[0]).name
            )
            return catalog, parts[1], parts[2]
        if len(parts) == 2:
            catalog, db = split_database(self._catalogs, parts[0]) or (ctx.catalog, parts[0])
            return catalog, db, parts[1]
        if not ctx.database:
            raise Errors.NO_DB_SELECTED.error()
        return ctx.catalog, ctx.database, parts[0]


_QUOTED_DEFAULT = re.compile(r"'((?:[^']|'')*)'")
_NOW = frozenset({"current_timestamp", "now()", "get_current_timestamp()", "current_timestamp()"})


def mysql_default(duck: str | None) -> str | None:
    """A column default as MySQL shows it (``x``, ``5``, ``CURRENT_TIMESTAMP``, NULL), from the
    expression text DuckDB keeps (``'x'``, ``5``, ``current_timestamp``, ``NULL``)."""
    if duck is None or duck.upper() == "NULL":
        return None
    quoted = _QUOTED_DEFAULT.fullmatch(duck)
    if quoted:
        return quoted.group(1).replace("''", "'")
    lowered = duck.lower()
    if lowered in _NOW:
        return "CURRENT_TIMESTAMP"
    if lowered in ("true", "false"):
        return "1" if lowered == "true" else "0"
    return duck


def _missing_table(internal: bool, catalog: str, db: str, table: str) -> DrydockError:
    """Built only when raised (every admission asks require_table; the table is there)."""
    if internal:
        return Errors.UNKNOWN_TABLE.error(table=f"{db}.{table}")
    return Errors.UNKNOWN_EXTERNAL_TABLE.error(table=f"{db}.{table}", catalog=catalog)
