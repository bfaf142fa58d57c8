"""``SELECT count(*) FROM <one external table>`` answered from the table's metadata, without
DuckDB (:func:`count_pushdown`)."""

from __future__ import annotations

from sqlglot import exp

from drydock.engine.errors import Errors
from drydock.engine.results import Result
from drydock.engine.session import INTERNAL, SessionContext
from drydock.engine.sql.duckdb_errors import first_line
from drydock.engine.sql.external_binding import Resolver, time_travel
from drydock.engine.sql.sql_relations import catalog_of


def count_pushdown(
    expression: exp.Expr, ctx: SessionContext, resolver: Resolver | None
) -> Result | None:
    """``SELECT count(*) FROM <one external table>`` (nothing else) answered from the pinned
    version's metadata, as Doris does for external tables (its count push-down): Lance keeps
    row counts (net of deletions) in the manifest, so no column is read. Any other shape, or
    a table object without ``count_rows``, runs on DuckDB as usual."""
    table = _count_star_table(expression, ctx)
    if table is None or resolver is None:
        return None
    db = table.text("db") or ctx.database
    if not db:
        raise Errors.NO_DB_SELECTED.error()
    count_rows = getattr(
        resolver(catalog_of(table, ctx), db, table.name, time_travel(table)),
        "count_rows",
        None,
    )
    if count_rows is None:
        return None
    try:
        rows = int(count_rows())
    except (OSError, ValueError, RuntimeError) as exc:  # what pylance raises for I/O and data
        raise Errors.QUERY_FAILED.error(detail=first_line(exc)) from None
    select = expression.expressions[0]
    name = select.alias if isinstance(select, exp.Alias) else "count_star()"  # DuckDB's name
    return Result(columns=[name], rows=[(rows,)], column_types={name: "BIGINT"})


_COUNT_SELECT_ARGS = {"expressions", "from_"}
_COUNT_TABLE_ARGS = {"this", "db", "catalog", "alias", "version"}


def _count_star_table(expression: exp.Expr, ctx: SessionContext) -> exp.Table | None:
    """The table of ``SELECT count(*) [AS a] FROM [c.][d.]t [AS x] [FOR ... AS OF ...]`` when it
    is an external table and the statement has no other clause, else None."""
    if (
        not isinstance(expression, exp.Select)
        or {k for k, v in expression.args.items() if v} != _COUNT_SELECT_ARGS
    ):
        return None
    if len(expression.expressions) != 1:
        return None
    projection = expression.expressions[0]
    count = projection.this if isinstance(projection, exp.Alias) else projection
    if (
        type(count) is not exp.Count
        or not isinstance(count.this, exp.Star)
        or any(count.this.args.values())
    ):
        return None
    if {k for k, v in count.args.items() if v} - {"this", "big_int"}:
        return None
    source = expression.args["from_"].this
    if not isinstance(source, exp.Table) or not isinstance(source.this, exp.Identifier):
        return None
    if {k for k, v in source.args.items() if v} - _COUNT_TABLE_ARGS or source.alias_column_names:
        return None
    if (
        catalog_of(source, ctx).lower() == INTERNAL
        or source.text("db").lower() == "information_schema"
    ):
        return None
    return source
