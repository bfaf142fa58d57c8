"""Binding a statement's relations on the session's cursor: internal tables qualified
completely, external tables (and an external catalog's information_schema) pointed at Arrow
objects the catalogs hand out, pinned to one version per reference (FOR ... AS OF or latest).

:class:`ExternalBinding` is a part of engine/sql/query.py's QuerySession, which sets the state it
uses.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

import sqlglot
from sqlglot import exp

from drydock.engine.sql.savepoints import RecordingCursor
from drydock.engine.errors import Errors
from drydock.engine.lakehouse.catalogs.base import TimeTravel
from drydock.engine.results import Result
from drydock.engine.search.direct_answer import direct_result
from drydock.engine.search.planner import Prepared
from drydock.engine.session import INTERNAL, SessionContext
from drydock.engine.sql import info_schema, result_origins
from drydock.engine.sql.adapt import external_info_schema_catalog
from drydock.engine.sql.sql_relations import RESERVED_PREFIX, Reference
from drydock.engine.support.lru import Lru

# External tables stay registered on a session's cursor between statements (registering costs about
# as much as scanning a small table): id(arrow object) → (object, name), least recently used first.
# The connector hands out one object per pinned version, so a REFRESH yields a new object and a new
# registration; an object no longer handed out is simply evicted.
BOUND_EXTERNAL_PER_SESSION = 8
# The rows a search found (engine/search/planner.py) are registered for one statement. Registering
# replaces a view of the same name, while unregistering costs about as much again (~0.5 ms of a
# search's ~5 ms fixed cost, bench/README.md): a small result is registered under a name per
# position in the statement, reused by the next search, and stays until then; a larger one is
# unregistered when the statement ends, so no session keeps many rows alive.
KEPT_FOUND_ROWS = 4096
KEPT_FOUND_PREFIX = f"{RESERVED_PREFIX}kept_found_"
# (catalog, db, table, time travel) → an Arrow object DuckDB can scan
Resolver = Callable[[str, str, str, TimeTravel | None], Any]


def time_travel(table: exp.Table) -> TimeTravel | None:
    version = table.args.get("version")
    if not isinstance(version, exp.Version):
        return None
    value = version.expression
    kind = version.text("this").upper()
    if not isinstance(value, exp.Literal):
        raise Errors.TIME_TRAVEL_INVALID.error(
            detail="FOR ... AS OF needs a literal version, time or tag"
        )
    if kind == "TIMESTAMP":
        return TimeTravel(timestamp=value.name)
    if value.is_string:
        return TimeTravel(tag=value.name)
    return TimeTravel(version=int(value.name))


class ExternalBinding:
    """The binding of QuerySession (engine/sql/query.py), which sets these in its __init__."""

    _cursor: RecordingCursor  # engine/sql/savepoints.py
    # registered Arrow objects by id, each with its name; the oldest is unregistered past the bound
    _bound: Lru[int, tuple[Any, str]]

    def _register(self, arrow_object: Any) -> str:
        """The name ``arrow_object`` is registered under on this cursor (registered if needed).

        Names are random: SQL text can never name them (adapt() refuses the prefix anyway)."""
        hit = self._bound.get(id(arrow_object))
        if hit is not None and hit[0] is arrow_object:
            return hit[1]
        name = f"{RESERVED_PREFIX}ext_{secrets.token_hex(8)}"
        self._cursor.register(name, arrow_object)
        self._bound.put(id(arrow_object), (arrow_object, name))
        return name

    def _bind_references(
        self,
        references: list[Reference],
        resolver: Resolver | None,
        searched: Prepared | None = None,
        registered: list[str] | None = None,
    ) -> set[tuple[str, str]]:
        """Qualify internal references as ``internal.db.t``; point every external one at an Arrow
        object registered on this cursor. The resolver pins one version per table reference
        (FOR VERSION/TIME AS OF or latest), and a table named twice in one statement is resolved
        once, so a statement reads one consistent version of each table. A reference a search
        answered (engine/search/planner.py) reads the rows it found, registered for this
        statement only (``registered``, released by :meth:`_release_registered`); one the
        planner resolved reads that view. Returns the
        internal (db, table) pairs, lower-cased."""
        internal: set[tuple[str, str]] = set()
        pinned: dict[tuple[str, str, str, TimeTravel | None], str] = {}
        for ref in references:
            table = ref.node
            if ref.catalog.lower() == INTERNAL:
                if table.args.get("version") is not None:
                    raise Errors.TIME_TRAVEL_INVALID.error(
                        detail="FOR ... AS OF is only supported on Lance and Paimon tables"
                    )
                table.set("catalog", exp.to_identifier(INTERNAL))
                table.set("db", exp.to_identifier(ref.db))
                internal.add((ref.db.lower(), ref.table.lower()))
                continue
            if resolver is None:
                raise Errors.UNKNOWN_CATALOG.error(name=ref.catalog)
            travel = time_travel(table)
            key = (ref.catalog.lower(), ref.db, ref.relation, travel)
            found = searched.results.get(id(table)) if searched is not None else None
            if found is not None and registered is not None:
                small = found.num_rows <= KEPT_FOUND_ROWS
                prefix = KEPT_FOUND_PREFIX if small else f"{RESERVED_PREFIX}found_"
                name = f"{prefix}{len(registered)}"
                self._cursor.register(name, found)
                registered.append(name)
            else:
                name = pinned.get(key, "")
            if not name:
                view = searched.views.get(id(table)) if searched is not None else None
                if view is None:
                    view = resolver(ref.catalog, ref.db, ref.relation, travel)
                name = pinned[key] = self._register(view)
            if not table.alias:
                table.set("alias", exp.TableAlias(this=exp.to_identifier(table.name)))
            table.set("this", exp.to_identifier(name))
            table.set("db", None)
            table.set("catalog", None)
            table.set("version", None)
        return internal

    def _searched_result(
        self, expression: exp.Expr, searched: Prepared | None, planned: Any
    ) -> Result | None:
        """The result of a search statement formed from the rows found, when nothing is left
        for DuckDB to do (engine/search/direct_answer.py): nothing is registered or run."""
        if searched is None or not searched.results:
            return None
        result = direct_result(expression, searched.results)
        if result is None:
            return None
        result_origins.attach(result, planned)  # as engine/sql/query.py attaches them
        result.warnings.extend(searched.notes)
        result.plan = searched
        return result

    def _release_registered(self, registered: list[str]) -> None:
        """Unregister what a statement registered for itself, but a search's small result,
        whose name the next search re-registers (replacing it) — see KEPT_FOUND_ROWS."""
        for name in registered:
            if not name.startswith(KEPT_FOUND_PREFIX):
                self._cursor.unregister(name)

    def _bind_info_schema(
        self,
        expression: exp.Expr,
        ctx: SessionContext,
        resolver: Resolver | None,
        registered: list[str],
    ) -> None:
        """information_schema.SCHEMATA/TABLES/COLUMNS of an external catalog (left in place by
        engine/sql/adapt.py): rows from the catalog, registered as Arrow, read through a subquery
        with the internal views' exact columns. Registered for this statement only
        (``registered``)."""
        for table in list(expression.find_all(exp.Table)):
            catalog = external_info_schema_catalog(table, ctx)
            if catalog is None:
                continue
            if resolver is None:
                raise Errors.UNKNOWN_CATALOG.error(name=catalog)
            name = table.name.lower()
            source = f"{RESERVED_PREFIX}is_{len(registered)}"
            self._cursor.register(source, resolver(catalog, "information_schema", name, None))
            registered.append(source)
            select = sqlglot.parse_one(
                info_schema.EXTERNAL_SELECT[name].format(source=source), read="duckdb"
            )
            table.replace(
                exp.Subquery(
                    this=select,
                    alias=exp.TableAlias(this=exp.to_identifier(table.alias or table.name)),
                )
            )
