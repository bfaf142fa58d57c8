"""Planning an approximate vector search of one SELECT (engine/search/planner.py has the rules).

``plan_vector`` either hands one Lance table reference a nearest-neighbour search (the k rows,
prefiltered, within a distance range) or leaves the statement to be answered exactly with a Note
saying why; what cannot be answered is a typed error.
"""

from __future__ import annotations

from typing import Any, Protocol

import pyarrow as pa
from sqlglot import exp

from drydock.engine.errors import Errors
from drydock.engine.search.indexes import indexes_of, vector_index, vector_indexes
from drydock.engine.search.lance_filter import conjuncts, lance_filter
from drydock.engine.search.table_search import VectorQuery
from drydock.engine.search.select_parts import (
    APPROXIMATE,
    DISTANCE_COLUMN,
    Scope,
    exclude_from_stars,
    field_name,
    limit_of,
    misplaced,
    ordering_key,
)
from drydock.engine.search.table_search import SearchSettings, TableSearch
from drydock.engine.search.vectors import constant_values, query_vector
from drydock.engine.session import INTERNAL


_RANGE_OPERATORS: dict[type[exp.Expr], str] = {
    exp.LT: "<",
    exp.LTE: "<=",
    exp.GT: ">",
    exp.GTE: ">=",
}
_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}


class Planning(Protocol):
    """What plan_vector needs of engine/search/planner.py's planner."""

    settings: SearchSettings
    table_searches: dict[int, TableSearch]

    def reference(self, table: exp.Table) -> Any: ...

    def dataset(self, table: exp.Table) -> Any: ...

    def shown(self, table: exp.Table) -> str: ...

    def note(self, table: str, reason: str) -> None: ...

    def search_of(self, table: exp.Table) -> TableSearch: ...


def plan_vector(planner: Planning, select: exp.Select, scope: Scope, nodes: list[Any]) -> None:
    ordered = ordering_key(select)
    order_call = None
    if ordered is not None and any(ordered[0] is n for n in nodes):
        order_call = ordered[0]
    where = select.args.get("where")
    items = conjuncts(where.this if where is not None else None)
    ranges = {id(item): r for item in items if (r := _range(item)) is not None}
    in_ranges = {id(r[0]) for r in ranges.values()}
    for node in nodes:
        if node is order_call or id(node) in in_ranges or _selected(node, select):
            continue
        raise Errors.SEARCH_MISPLACED.error(detail=misplaced(node))
    if order_call is None and not ranges:
        raise Errors.SEARCH_MISPLACED.error(detail=misplaced(nodes[0]))
    function = (order_call or next(iter(ranges.values()))[0]).name.lower()
    metric = APPROXIMATE[function]
    k = limit_of(select)
    if order_call is not None:
        if select.args.get("limit") is None:
            raise Errors.SEARCH_NEEDS_LIMIT.error(function=function, max_k=planner.settings.max_k)
        if k is not None and k > planner.settings.max_k:
            raise Errors.SEARCH_K_TOO_LARGE.error(k=k, max_k=planner.settings.max_k)
    source = scope.tables[0] if scope.tables else None
    shown = planner.shown(source) if isinstance(source, exp.Table) else "the query"

    def exact(reason: str) -> None:
        planner.note(shown, f"{function}: {reason}; the distances were computed for every row")

    if len(scope.tables) != 1 or not isinstance(source, exp.Table):
        return exact("the query reads more than one relation (search one table in a subquery)")
    if any(select.args.get(a) for a in ("group", "having", "distinct")):
        return exact("the query groups its rows")
    if order_call is None:
        return exact("a distance range without ORDER BY ... LIMIT reads every row")
    if k is None:
        return exact("LIMIT is not a constant")
    descending = ordered is not None and ordered[1]
    if descending != (metric == "dot"):
        return exact(
            f"ORDER BY {function} {'DESC' if descending else 'ASC'} asks for the farthest rows, "
            "and an index finds the nearest"
        )
    keys = {_key(n) for n in nodes}
    if len(keys) > 1:
        return exact("the query uses several different approximate searches")
    dataset = planner.dataset(source)
    if dataset is None:
        ref = planner.reference(source)
        internal = ref is not None and ref.catalog.lower() == INTERNAL
        what = "an internal table" if internal else "not a Lance table"
        return exact(f"{shown} is {what}, which has no vector index")
    located = _column_and_query(order_call, scope, source, dataset.schema, function)
    if located is None:
        return exact("the query vector is not a constant")
    column, vector, _, constant = located
    if planner.table_searches.get(id(source)) is not None:
        return exact("the table is also searched by full text")
    indexes = indexes_of(dataset)
    index = vector_index(indexes, column, metric)
    if index is None:
        others = ", ".join(f"{i.name} ({i.metric})" for i in vector_indexes(indexes, column))
        return exact(
            f"no vector index on `{column}` uses the {metric} metric"
            + (f" (the column has {others})" if others else "")
        )
    pushed: list[str] = []
    for item in items:
        found = ranges.get(id(item))
        if found is not None:
            if _key(found[0]) != _key(order_call):
                return exact("a distance range names another search")
            if not _within(metric, found[1]):
                return exact(
                    "a condition that the distance be beyond a bound is not answered by an "
                    "index (it finds the nearest rows)"
                )
            continue
        if any(item.find_all(exp.Anonymous, exp.MatchAgainst)):
            translated = None
        else:
            translated = lance_filter(item, dataset.schema, scope.field_of(source))
        if translated is None:
            return exact(f"the condition {item.sql('mysql')[:80]} cannot be applied by Lance first")
        pushed.append(translated)
    # the distance is selected or compared (not only ordering): its exact value is computed
    exact_value = any(_selected(n, select) or id(n) in in_ranges for n in nodes)
    for node in nodes:  # the distance of each row found, computed with the search
        node.replace(exp.column(DISTANCE_COLUMN, table=source.alias_or_name))
    exclude_from_stars(select, source, DISTANCE_COLUMN)
    search = planner.search_of(source)
    search.columns = scope.columns_read(source, dataset.schema)
    search.filter = " AND ".join(f"({p})" for p in pushed) or None
    search.vector = VectorQuery(
        column=column,
        vector=vector,
        metric=metric,
        k=k,
        index=index,
        written=tuple(constant_values(constant) or ()),
        distance_column=DISTANCE_COLUMN,
        exact=exact_value,
    )


def _key(call: exp.Expr) -> tuple[object, ...]:
    """What makes two calls the same search: the function and its arguments (literals by their
    text: generating SQL for a 128-number literal costs more than the rest of the planning)."""
    return (call.name.lower(), *(_argument_key(a) for a in call.expressions))


def _argument_key(node: exp.Expr) -> object:
    if isinstance(node, exp.Literal):
        return ("literal", node.is_string, node.name)
    if isinstance(node, exp.Column):
        return ("column", node.table.lower(), node.name.lower())
    return node.sql("mysql").lower()


def _selected(node: exp.Expr, select: exp.Select) -> bool:
    """``node`` is in an item of the select list (``round(f(col, q), 4) AS d`` too): its value is
    computed exactly for each row found."""
    while node.parent is not None and node.parent is not select:
        node = node.parent
    return any(node is item for item in select.expressions)


def _range(item: exp.Expr) -> tuple[exp.Anonymous, str, float] | None:
    """``f(col, q) < r`` (either side) → (the call, the operator with the call on the left, r)."""
    operator = _RANGE_OPERATORS.get(type(item))
    if operator is None:
        return None
    for call, bound, op in (
        (item.this, item.expression, operator),
        (item.expression, item.this, _FLIPPED[operator]),
    ):
        if isinstance(call, exp.Anonymous) and call.name.lower() in APPROXIMATE:
            value = _number(bound)
            return None if value is None else (call, op, value)
    return None


def _number(node: exp.Expr) -> float | None:
    negative = isinstance(node, exp.Neg)
    inner = node.this if negative else node
    if not isinstance(inner, exp.Literal) or inner.is_string:
        return None
    try:
        value = float(inner.name)
    except ValueError:
        return None
    return -value if negative else value


def _within(metric: str, operator: str) -> bool:
    """``f(col, q) <op> r`` keeps the rows nearer than a bound. Those rows are a prefix of the
    nearest rows, so the k nearest found by the index, checked exactly by DuckDB (the condition
    stays in WHERE), answer it; Lance's own distance_range would test its quantized distance and
    drop rows near the bound."""
    nearer = operator in ("<", "<=")
    return nearer if metric == "l2" else not nearer  # a larger inner product is nearer


def _column_and_query(
    call: exp.Expr, scope: Scope, table: exp.Table, schema: pa.Schema, function: str
) -> tuple[str, Any, exp.Column, exp.Expr] | None:
    """(the vector column's field name, the query vector, the column and constant nodes) of
    ``call``, either argument order;
    None when no argument is a constant vector. A column that is no vector is a typed error."""
    arguments = list(call.expressions)
    if len(arguments) != 2:
        raise Errors.SEARCH_ARGUMENT.error(where=function, detail="it takes two vectors")
    for column, constant in (arguments, arguments[::-1]):
        if not isinstance(column, exp.Column) or scope.owner(column) is not table:
            continue
        name = field_name(schema, column.name)
        if name is None:
            return None  # DuckDB names the unknown column (1054)
        kind = schema.field(name).type
        if not pa.types.is_fixed_size_list(kind) or not pa.types.is_floating(kind.value_type):
            if pa.types.is_list(kind) or pa.types.is_large_list(kind):
                return None  # a list of any length: no index; DuckDB computes it
            raise Errors.SEARCH_ARGUMENT.error(
                where=function,
                detail=f"`{name}` is not a vector column (a fixed-size list of floats): {kind}",
            )
        vector = query_vector(constant, kind.list_size)
        return None if vector is None else (name, vector, column, constant)
    return None
