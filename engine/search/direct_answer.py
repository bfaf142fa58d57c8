"""A search statement answered from the rows the search found, without a DuckDB statement.

A statement that only selects columns of the rows found, in the search's order, with nothing
left for DuckDB to compute — ``SELECT cols FROM t [WHERE int_col = n AND …] ORDER BY
l2_distance_approximate(emb, q) LIMIT k`` (or ``inner_product_approximate … DESC``, or a
full-text ``WHERE MATCH … ORDER BY score DESC LIMIT k``) — gets the result DuckDB would give:
the same rows in the same order (the ordering column sorted the same way, stably), the same
values (each column a plain column of types whose Python values DuckDB and Arrow give alike)
and DuckDB's type names for the columns. Registering the found rows and running the statement
costs a few milliseconds per search (bench/README.md); every other statement runs on DuckDB as
before (tests/search/test_search_answers.py compares the answers).
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from sqlglot import exp

from drydock.engine.results import Result
from drydock.engine.search.select_parts import DISTANCE_COLUMN, SCORE_COLUMN, field_name

# Arrow type → the type DuckDB reports for a column scanned from it: only types whose Python
# value DuckDB's fetch and Arrow's to_pylist give alike
_DUCKDB_TYPES = {
    pa.int8(): "TINYINT",
    pa.int16(): "SMALLINT",
    pa.int32(): "INTEGER",
    pa.int64(): "BIGINT",
    pa.uint8(): "UTINYINT",
    pa.uint16(): "USMALLINT",
    pa.uint32(): "UINTEGER",
    pa.uint64(): "UBIGINT",
    pa.float32(): "FLOAT",
    pa.float64(): "DOUBLE",
    pa.bool_(): "BOOLEAN",
    pa.string(): "VARCHAR",
    pa.large_string(): "VARCHAR",
}
# the parts a SELECT may have (each other part — DISTINCT, GROUP BY, a join, OFFSET, … — leaves
# work to DuckDB)
_PARTS = {"expressions", "from", "from_", "where", "order", "limit"}
_HIDDEN = (DISTANCE_COLUMN.lower(), SCORE_COLUMN.lower())


def direct_result(expression: exp.Expr, results: dict[int, Any]) -> Result | None:
    """The result of ``expression`` (adapted, its searches planned: ``results`` are the rows
    found by table node id) when it can be formed from the rows found alone; None otherwise."""
    if not isinstance(expression, exp.Select) or len(results) != 1:
        return None
    if any(value for key, value in expression.args.items() if key not in _PARTS):
        return None
    source = expression.args.get("from_") or expression.args.get("from")
    table = source.this if isinstance(source, exp.From) else None
    found = results.get(id(table)) if isinstance(table, exp.Table) else None
    found = _kept(expression, found) if found is not None else None
    if found is None:
        return None
    k = _limit(expression)
    ordering = _ordering(expression, found)
    if k is None or ordering is None:
        return None
    columns = _columns(expression, found)
    if columns is None:
        return None
    name, direction = ordering
    if found.column(name).null_count:
        return None  # where DuckDB places NULLs is its business
    rows = found.take(pc.sort_indices(found, sort_keys=[(name, direction)])).slice(0, k)
    values = [rows.column(source_name).to_pylist() for _, source_name, _ in columns]
    return Result(
        columns=[shown for shown, _, _ in columns],
        column_types={shown: kind for shown, _, kind in columns},
        rows=list(zip(*values, strict=True)) if values else [],
    )


def _kept(select: exp.Select, found: pa.Table) -> pa.Table | None:
    """The found rows that satisfy WHERE: none but TRUE (what the full-text planning leaves of
    its conditions) and comparisons of an integer column with integer constants, which Arrow
    evaluates as DuckDB does (a NULL compares as unknown: the row goes); None for any other
    condition. The search applied them first already (a prefilter): checked again here as
    DuckDB checks them again."""
    where = select.args.get("where")
    if where is None:
        return found
    keep: Any = None
    items: list[exp.Expr] = [where.this]
    while items:
        item = items.pop()
        if isinstance(item, exp.And):
            items += [item.this, item.expression]
        elif isinstance(item, exp.Paren):
            items.append(item.this)
        elif item != exp.true():
            mask = _integer_condition(item, found)
            if mask is None:
                return None
            keep = mask if keep is None else pc.and_kleene(keep, mask)
    return found if keep is None else found.filter(keep, null_selection_behavior="drop")


_COMPARE: dict[type[exp.Expr], Any] = {
    exp.EQ: pc.equal,
    exp.NEQ: pc.not_equal,
    exp.LT: pc.less,
    exp.LTE: pc.less_equal,
    exp.GT: pc.greater,
    exp.GTE: pc.greater_equal,
}


def _integer_condition(item: exp.Expr, found: pa.Table) -> Any:
    """``col <op> n`` or ``col IN (n, …)`` over an integer column of the found rows: its mask;
    None for anything else."""
    compare = _COMPARE.get(type(item))
    column = item.this
    if compare is not None:
        constants = [item.expression]
    elif isinstance(item, exp.In) and not item.args.get("query") and not item.args.get("field"):
        constants = list(item.expressions)
    else:
        return None
    if not isinstance(column, exp.Column) or not constants:
        return None
    name = field_name(found.schema, column.name)
    if name is None or not pa.types.is_integer(found.schema.field(name).type):
        return None
    values = [_integer(c) for c in constants]
    if any(v is None for v in values):
        return None
    data = found.column(name)
    if compare is not None:
        return compare(data, pa.scalar(values[0], pa.int64()))
    return pc.is_in(data, value_set=pa.array(values, pa.int64()))


def _integer(node: exp.Expr) -> int | None:
    negative = isinstance(node, exp.Neg)
    inner = node.this if negative else node
    if not isinstance(inner, exp.Literal) or not inner.is_int:
        return None
    return -int(inner.name) if negative else int(inner.name)


def _limit(select: exp.Select) -> int | None:
    limit = select.args.get("limit")
    count = limit.expression if isinstance(limit, exp.Limit) else None
    if isinstance(count, exp.Literal) and count.is_int:
        return int(count.name)
    return None


def _ordering(select: exp.Select, found: pa.Table) -> tuple[str, str] | None:
    """(the found column the statement orders by, 'ascending'|'descending'): a single key, the
    distance or the score the search added."""
    order = select.args.get("order")
    if not isinstance(order, exp.Order) or len(order.expressions) != 1:
        return None
    ordered = order.expressions[0]
    key = _aliased(select, ordered.this)
    if not isinstance(key, exp.Column) or key.name.lower() not in _HIDDEN:
        return None
    name = field_name(found.schema, key.name)
    if name is None or found.schema.field(name).type != pa.float64():
        return None
    return name, "descending" if ordered.args.get("desc") else "ascending"


def _aliased(select: exp.Select, key: exp.Expr) -> exp.Expr:
    """What an ORDER BY key names: a select-list alias first (as DuckDB and MySQL bind it)."""
    if isinstance(key, exp.Column) and not key.table:
        for item in select.expressions:
            if isinstance(item, exp.Alias) and item.alias.lower() == key.name.lower():
                return item.this
    return key


def _columns(select: exp.Select, found: pa.Table) -> list[tuple[str, str, str]] | None:
    """Per select item: (the name DuckDB gives the column, the found column it reads, DuckDB's
    type name); None when an item is anything but a plain column of such a type (or the
    distance / score, aliased)."""
    columns: list[tuple[str, str, str]] = []
    for item in select.expressions:
        alias = item.alias if isinstance(item, exp.Alias) else None
        column = item.this if isinstance(item, exp.Alias) else item
        if not isinstance(column, exp.Column) or not isinstance(column.this, exp.Identifier):
            return None
        hidden = column.name.lower() in _HIDDEN
        if hidden and not alias:
            return None
        source_name = field_name(found.schema, column.name)
        kind = _DUCKDB_TYPES.get(found.schema.field(source_name).type) if source_name else None
        if source_name is None or kind is None:
            return None
        columns.append((alias or column.name, source_name, kind))
    shown = [name.lower() for name, _, _ in columns]
    if len(set(shown)) != len(shown):
        return None  # DuckDB's naming of duplicates is its own
    return columns
