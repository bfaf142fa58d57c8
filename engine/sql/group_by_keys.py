"""ONLY_FULL_GROUP_BY as MySQL 8 reads it: a column of a table whose PRIMARY KEY (or a UNIQUE key
of NOT NULL columns) is grouped on is functionally dependent on the GROUP BY, so
``SELECT t.id, t.name FROM t GROUP BY t.id`` is valid (MySQL 8.0 manual 12.19.4). DuckDB knows
no keys and refuses it; drydock adds such a table's columns the statement names to the GROUP BY,
which changes no group (each group already has one row of that table's key). A column that
depends on no grouped key stays out, so DuckDB still refuses it, and that refusal is MySQL's 1055
(:func:`not_in_group_by`).

Runs after engine/sql/adapt.py qualified internal tables (catalog ``internal``); ROLLUP, CUBE and
GROUPING SETS are left alone (an added column would add grouping levels).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from sqlglot import exp

from drydock.engine.errors import DrydockError, Errors
from drydock.engine.session import INTERNAL
from drydock.engine.sql.table_traits import Traits

KeysOf = Callable[[exp.Table], Traits]


def complete(expression: exp.Expr, traits_of: KeysOf) -> None:
    """Add to every GROUP BY in ``expression`` the columns functionally dependent on it."""
    for select in list(expression.find_all(exp.Select)):
        group = select.args.get("group")
        if group is None or any(group.args.get(k) for k in ("rollup", "cube", "grouping_sets")):
            continue
        sources = _sources(select)
        internal = {
            alias: traits_of(table)
            for alias, table in sources.items()
            if isinstance(table, exp.Table) and table.text("catalog").lower() == INTERNAL
        }
        if not internal:
            continue
        resolve = _resolver(sources, internal)
        grouped: set[tuple[str, str]] = set()
        for item in group.expressions:
            found = resolve(_grouped_expression(select, item))
            if found is not None:
                grouped.add(found)
        for alias, traits in internal.items():
            names = {c for a, c in grouped if a == alias}
            if any({k.lower() for k in key} <= names for key in traits.keys):
                _add_dependent(select, group, alias, traits, resolve, names)


def _sources(select: exp.Select) -> dict[str, exp.Expr]:
    """The FROM and JOIN items of ``select`` by the name columns qualify them with."""
    items = []
    source = select.args.get("from_") or select.args.get("from")
    if source is not None:
        items.append(source.this)
    items.extend(join.this for join in select.args.get("joins") or [])
    return {str(item.alias_or_name).lower(): item for item in items}


def _resolver(
    sources: dict[str, exp.Expr], internal: dict[str, Traits]
) -> Callable[[Any], tuple[str, str] | None]:
    """(alias, column) of a column reference to an internal table, lower-case; None otherwise.
    An unqualified column resolves only when every source is an internal table and exactly one
    has the column."""
    columns = {alias: {c.lower() for c in traits.columns} for alias, traits in internal.items()}

    def resolve(node: Any) -> tuple[str, str] | None:
        if not isinstance(node, exp.Column) or not node.name:
            return None
        name, table = node.name.lower(), node.table.lower()
        if table:
            return (table, name) if name in columns.get(table, ()) else None
        if len(columns) != len(sources):
            return None
        owners = [alias for alias, names in columns.items() if name in names]
        return (owners[0], name) if len(owners) == 1 else None

    return resolve


def _grouped_expression(select: exp.Select, item: exp.Expr) -> exp.Expr:
    """A GROUP BY item, with a position (GROUP BY 1) or a select alias replaced by what it names."""
    projections = select.expressions
    if isinstance(item, exp.Literal) and item.is_int:
        position = int(item.name)
        if 1 <= position <= len(projections):
            return projections[position - 1].unalias()
    if isinstance(item, exp.Column) and not item.table:
        for projection in projections:
            if isinstance(projection, exp.Alias) and projection.alias.lower() == item.name.lower():
                return projection.this
    return item


def _add_dependent(
    select: exp.Select,
    group: exp.Group,
    alias: str,
    traits: Traits,
    resolve: Callable[[Any], tuple[str, str] | None],
    grouped: set[str],
) -> None:
    named = {c.lower(): c for c in traits.columns}
    parts = [*select.expressions, select.args.get("having"), select.args.get("order")]
    wanted: list[str] = []
    for part in parts:
        if part is None:
            continue
        for column in part.find_all(exp.Column):
            found = resolve(column)
            if found and found[0] == alias and found[1] not in grouped and found[1] not in wanted:
                wanted.append(found[1])
    for name in wanted:
        group.append("expressions", exp.column(named[name], table=alias, quoted=True))
        grouped.add(name)


_NOT_GROUPED = re.compile(
    r'column "(?P<column>[^"]+)" must appear in the GROUP BY clause or must be part of an '
    r"aggregate function"
)


def not_in_group_by(message: str, expression: exp.Expr) -> DrydockError | None:
    """MySQL's 1055 for DuckDB's refusal of a column that is neither grouped nor aggregated,
    naming the select-list expression (1-based) that holds it, as MySQL does."""
    match = _NOT_GROUPED.search(message)
    if match is None:
        return None
    column = match["column"]
    position, clause = 1, "SELECT list"
    select = expression if isinstance(expression, exp.Select) else expression.find(exp.Select)
    if select is not None:
        for i, projection in enumerate(select.expressions, start=1):
            if any(c.name.lower() == column.lower() for c in projection.find_all(exp.Column)):
                position = i
                break
        else:
            clause = "ORDER BY clause" if select.args.get("order") else "HAVING clause"
    return Errors.WRONG_FIELD_WITH_GROUP.error(position=position, clause=clause, column=column)
