"""Where each result column comes from: MySQL's column definitions name the schema, the table
(as aliased in the query), the original table and the original column of every column that is
a plain column reference (JDBC getTableName / getColumnName, SQLAlchemy, BI tools use them).
Expressions have none, as in MySQL.

Read from the statement's MySQL AST before drydock adapts it for DuckDB: top-level SELECT only;
``*`` only over one table (with joins the star's expansion order is DuckDB's business). Once the
references are bound, :func:`define` adds the declared definition of each internal table
(engine/dictionary, kept in engine/sql/table_traits.py), from which the server writes MySQL's
type, length, decimals and flags of a column (server/declared_columns.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from sqlglot import exp

from drydock.engine.dictionary.model import TableDef
from drydock.engine.results import Result
from drydock.engine.session import INTERNAL, SessionContext


@dataclass(frozen=True)
class Origin:
    schema: str
    table: str  # the alias the query gives the table, else its name
    org_table: str
    org_name: str
    aliased: bool = False  # the query gave the column a label of its own
    # the table node of the query (bound in place later: its catalog says whether it is internal)
    source: exp.Table | None = field(default=None, compare=False, repr=False)
    # the internal table's declared definition (:func:`define`), None when it has none
    definition: TableDef | None = field(default=None, compare=False, repr=False)


Plan = list["Origin | None | str"]  # per projection: an origin, nothing, or '*' of a table


def plan(expression: exp.Expr, ctx: SessionContext) -> tuple[Plan, Origin | None] | None:
    """Per projection of a top-level SELECT: its origin (``None`` for expressions); the second
    element is the single table a ``*`` expands over. None for any other statement."""
    if not isinstance(expression, exp.Select):
        return None
    tables = _from_tables(expression)
    by_alias = {(t.alias_or_name).lower(): t for t in tables}
    single = tables[0] if len(tables) == 1 else None
    star = _table_origin(single, ctx) if single is not None else None
    out: Plan = []
    for projection in expression.expressions:
        column = projection.this if isinstance(projection, exp.Alias) else projection
        if isinstance(column, exp.Star):
            out.append("*")
            continue
        if not isinstance(column, exp.Column):
            out.append(None)
            continue
        if isinstance(column.this, exp.Star):
            table = by_alias.get(column.table.lower())
            out.append("*" if table is not None and table is single else None)
            continue
        table = by_alias.get(column.table.lower()) if column.table else single
        base = _table_origin(table, ctx) if table is not None else None
        out.append(
            Origin(
                base.schema,
                base.table,
                base.org_table,
                column.name,
                isinstance(projection, exp.Alias),
                source=base.source,
            )
            if base
            else None
        )
    return out, star


def resolve(planned: tuple[Plan, Origin | None] | None, columns: list[str]) -> list[Origin | None]:
    """The origin of each result column (by position), given the planned projections."""
    if planned is None:
        return []
    projections, star = planned
    if "*" in projections and (star is None or projections.count("*") > 1):
        return []  # a star over a join, or several stars: positions cannot be matched safely
    width = len(columns) - (len(projections) - 1) if "*" in projections else len(projections)
    out: list[Origin | None] = []
    for item in projections:
        if item == "*":
            assert star is not None
            start = len(out)
            out.extend(
                Origin(star.schema, star.table, star.org_table, name, definition=star.definition)
                for name in columns[start : start + width]
            )
        else:
            out.append(item if isinstance(item, Origin) else None)
    return out if len(out) == len(columns) else []


def _from_tables(select: exp.Select) -> list[exp.Expr]:
    from_ = select.args.get("from_") or select.args.get("from")
    sources = [from_.this] if from_ is not None else []
    sources += [j.this for j in select.args.get("joins") or []]
    return sources


def _table_origin(source: exp.Expr, ctx: SessionContext) -> Origin | None:
    if not isinstance(source, exp.Table) or not source.name:
        return None
    schema = source.text("db") or ctx.database or ""
    if (
        source.text("catalog")
        and ctx.catalog
        and source.text("catalog").lower() != ctx.catalog.lower()
    ):
        schema = f"{source.text('catalog')}.{schema}"
    return Origin(schema, source.alias_or_name, source.name, "", source=source)


TraitsOf = Callable[[exp.Table], TableDef | None]


def define(
    planned: tuple[Plan, Origin | None] | None, definition_of: TraitsOf
) -> tuple[Plan, Origin | None] | None:
    """``planned`` with each internal table's declared definition, read once per table through
    ``definition_of`` (engine/sql/table_traits.py's cache). Run after the references are bound
    (an internal table's node then names the internal catalog) and before the statement runs
    (a streamed result holds the cursor)."""
    if planned is None:
        return None
    projections, star = planned
    found: dict[int, TableDef | None] = {}

    def defined(origin: Origin) -> Origin:
        table = origin.source
        if table is None or table.text("catalog").lower() != INTERNAL:
            return origin
        if id(table) not in found:
            found[id(table)] = definition_of(table)
        definition = found[id(table)]
        return origin if definition is None else replace(origin, definition=definition)

    return (
        [defined(p) if isinstance(p, Origin) else p for p in projections],
        defined(star) if star is not None else None,
    )


def attach(result: Result, planned: tuple[Plan, Origin | None] | None) -> None:
    """Record each column's origin on ``result``; a column read unaliased from information_schema
    is labelled in upper case, as MySQL 8's data dictionary names them (``SELECT table_name FROM
    information_schema.tables`` answers a ``TABLE_NAME`` column; JDBC and BI tools read them so)."""
    origins = resolve(planned, result.columns)
    result.column_origins = origins
    if not origins:
        return
    for i, (name, origin) in enumerate(zip(list(result.columns), origins)):
        if origin is None or origin.aliased or origin.schema.lower() != "information_schema":
            continue
        label = name.upper()
        if label != name and label not in result.columns:
            result.columns[i] = label
            if name in result.column_types:
                result.column_types[label] = result.column_types.pop(name)
