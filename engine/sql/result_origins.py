"""Where each result column comes from: MySQL's column definitions name the schema, the table
(as aliased in the query), the original table and the original column of every column that is
a plain column reference (JDBC getTableName / getColumnName, SQLAlchemy, BI tools use them).
Expressions have none, as in MySQL; each is kept as a :class:`Computed` (a copy of its MySQL
AST with the tables it can name), from which the server works out MySQL's type of the column
(server/expression_columns.py).

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
    # a GROUP BY column of a grouped query: MySQL sends it from the temporary table that groups
    # the rows, whose field carries the internal GROUP_FLAG (the NUM bit) and no BINARY flag
    group_key: bool = False
    # the GROUP BY columns when an index in that order could group the rows (:func:`define`)
    group_index: tuple[str, ...] = ()


@dataclass(frozen=True)
class Computed:
    """A projection that is an expression, as the query wrote it (a copy taken before adapt()
    rewrites it for DuckDB), with the tables of its FROM clause by lower-case alias (their
    declared definitions added by :func:`define`) and whether the query groups its rows."""

    node: exp.Expr
    tables: dict[str, Origin] = field(compare=False, repr=False)
    grouped: bool = False
    group_index: tuple[str, ...] = ()  # as Origin.group_index


# per projection: an origin, an expression, nothing, or '*' of a table
Plan = list["Origin | Computed | None | str"]


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
    sources: dict[str, Origin] | None = None
    group_index = _index_candidate(expression, single)
    for projection in expression.expressions:
        column = projection.this if isinstance(projection, exp.Alias) else projection
        if isinstance(column, exp.Star):
            out.append("*")
            continue
        if not isinstance(column, exp.Column):
            if sources is None:
                sources = _sources(by_alias, ctx)
            out.append(Computed(column.copy(), sources, _grouped(expression), group_index))
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
                group_key=column.name.lower() in _group_keys(expression),
                group_index=group_index,
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


def _sources(by_alias: dict[str, exp.Expr], ctx: SessionContext) -> dict[str, Origin]:
    out = {}
    for alias, table in by_alias.items():
        origin = _table_origin(table, ctx)
        if origin is not None:
            out[alias] = origin
    return out


def _group_keys(select: exp.Select) -> set[str]:
    group = select.args.get("group")
    if group is None:
        return set()
    return {c.name.lower() for c in group.expressions if isinstance(c, exp.Column)}


def _grouped(select: exp.Select) -> bool:
    return select.args.get("group") is not None


def _index_candidate(select: exp.Select, single: exp.Expr | None) -> tuple[str, ...]:
    """The GROUP BY columns (lower case) when MySQL could group by reading an index in order,
    needing no temporary table: one table, every key a plain column of it, and no ORDER BY other
    than those columns in that order, one direction. () otherwise."""
    group = select.args.get("group")
    if group is None or single is None or not isinstance(single, exp.Table):
        return ()
    alias = single.alias_or_name.lower()
    keys: list[str] = []
    for key in group.expressions:
        if not isinstance(key, exp.Column) or (key.table and key.table.lower() != alias):
            return ()
        keys.append(key.name.lower())
    order = select.args.get("order")
    if order is not None:
        terms = order.expressions
        named = [t.this.name.lower() if isinstance(t.this, exp.Column) else None for t in terms]
        if named != keys or len({bool(t.args.get("desc")) for t in terms}) > 1:
            return ()
    return tuple(keys)


def _groups_by_index(columns: tuple[str, ...], definition: TableDef | None) -> bool:
    """Whether an index of the table starts with exactly ``columns``, in that order and whole
    (MySQL's test_if_order_by_key): MySQL then reads the rows grouped and sends the result
    without a temporary table."""
    if not columns or definition is None:
        return False
    for key in definition.keys:
        parts = key.parts[: len(columns)]
        if key.kind == "FULLTEXT" or any(p.prefix is not None for p in parts):
            continue
        if tuple(p.column.lower() for p in parts) == columns:
            return True
    return False


def computed(
    planned: tuple[Plan, Origin | None] | None, columns: list[str]
) -> list[Computed | None]:
    """The expression behind each result column (by position), None for the others; [] when a
    ``*`` makes the positions uncertain or nothing is an expression."""
    if planned is None or "*" in planned[0] or len(planned[0]) != len(columns):
        return []
    out = [item if isinstance(item, Computed) else None for item in planned[0]]
    return out if any(out) else []


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
        if definition is None:
            return origin
        by_index = origin.group_key and _groups_by_index(origin.group_index, definition)
        return replace(origin, definition=definition, group_key=origin.group_key and not by_index)

    tables_done: dict[int, dict[str, Origin]] = {}

    def with_tables(item: Computed) -> Computed:
        if id(item.tables) not in tables_done:  # the projections share one dict of tables
            tables_done[id(item.tables)] = {a: defined(o) for a, o in item.tables.items()}
        tables = tables_done[id(item.tables)]
        only = next(iter(tables.values())) if len(tables) == 1 else None
        by_index = only is not None and _groups_by_index(item.group_index, only.definition)
        return replace(item, tables=tables, grouped=item.grouped and not by_index)

    return (
        [_each(p, defined, with_tables) for p in projections],
        defined(star) if star is not None else None,
    )


def _each(
    item: Origin | Computed | None | str,
    defined: Callable[[Origin], Origin],
    with_tables: Callable[[Computed], Computed],
) -> Origin | Computed | None | str:
    if isinstance(item, Origin):
        return defined(item)
    return with_tables(item) if isinstance(item, Computed) else item


def attach(result: Result, planned: tuple[Plan, Origin | None] | None) -> None:
    """Record each column's origin on ``result``; a column read unaliased from information_schema
    is labelled in upper case, as MySQL 8's data dictionary names them (``SELECT table_name FROM
    information_schema.tables`` answers a ``TABLE_NAME`` column; JDBC and BI tools read them so)."""
    origins = resolve(planned, result.columns)
    result.column_origins = origins
    result.column_expressions = computed(planned, result.columns)
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
