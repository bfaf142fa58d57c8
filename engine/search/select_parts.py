"""The parts of a SELECT a search reads: which function orders it and how, its LIMIT, the
relations it reads directly and which of them a column belongs to, and the error for a search
function where no search can honour it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyarrow as pa
from sqlglot import exp

APPROXIMATE = {"l2_distance_approximate": "l2", "inner_product_approximate": "dot"}
SCORE_COLUMN = "__drydock_score"
DISTANCE_COLUMN = "__drydock_distance"


def misplaced(node: exp.Expr) -> str:
    if isinstance(node, exp.Anonymous):
        exact = node.name.lower().removesuffix("_approximate")
        return (
            f"{node.name.lower()} can only order (ORDER BY ... LIMIT k) or filter "
            f"(WHERE {node.name.lower()}(...) < r) the rows of a query; use {exact} for an "
            "exact value elsewhere"
        )
    word = (
        "MATCH ... AGAINST" if isinstance(node, exp.MatchAgainst) else f"MATCH_{node.text('kind')}"
    )
    return (
        f"{word} can only be a condition of a query's WHERE joined with AND (MATCH ... AGAINST "
        "may also be selected or ordered by when the same MATCH is in WHERE)"
    )


def field_name(schema: pa.Schema, name: str) -> str | None:
    for f in schema:
        if f.name.lower() == name.lower():
            return str(f.name)
    return None


def limit_of(select: exp.Select) -> int | None:
    """LIMIT + OFFSET of ``select`` when both are integer literals (the rows a search must
    find), None without a LIMIT or when they are not literals."""
    limit = select.args.get("limit")
    if not isinstance(limit, exp.Limit):
        return None
    count = limit.expression
    offset_node = select.args.get("offset")
    offset = offset_node.expression if isinstance(offset_node, exp.Offset) else None
    if not (isinstance(count, exp.Literal) and count.is_int):
        return None
    if offset is not None and not (isinstance(offset, exp.Literal) and offset.is_int):
        return None
    return int(count.name) + (int(offset.name) if offset is not None else 0)


def ordering_key(select: exp.Select) -> tuple[exp.Expr, bool] | None:
    """(the first ORDER BY expression, with a select-list alias followed; descending?)."""
    order = select.args.get("order")
    if not isinstance(order, exp.Order) or not order.expressions:
        return None
    first = order.expressions[0]
    key = first.this
    if isinstance(key, exp.Column) and not key.table:
        for item in select.expressions:
            if isinstance(item, exp.Alias) and item.alias.lower() == key.name.lower():
                key = item.this
                break
    if isinstance(key, exp.Literal) and key.is_int:  # ORDER BY 2
        position = int(key.name) - 1
        if 0 <= position < len(select.expressions):
            item = select.expressions[position]
            key = item.this if isinstance(item, exp.Alias) else item
    return key, bool(first.args.get("desc"))


def narrowest(schema: pa.Schema) -> str:
    widths = [
        (f.type.bit_width if pa.types.is_primitive(f.type) else 1 << 16, i)
        for i, f in enumerate(schema)
    ]
    return str(schema.field(min(widths)[1]).name)


class Scope:
    """The relations a SELECT reads directly (FROM and its joins) and which of them a column
    belongs to."""

    def __init__(self, select: exp.Select, dataset_of: Callable[[exp.Table], Any]):
        self.select = select
        self.dataset_of = dataset_of
        self.tables: list[exp.Expr] = []
        self.sides: dict[int, str] = {}
        source = select.args.get("from_")
        if isinstance(source, exp.From):
            self.tables.append(source.this)
            self.sides[id(source.this)] = ""
        joins = select.args.get("joins") or []
        for join in joins:
            self.tables.append(join.this)
            self.sides[id(join.this)] = (join.side or "").upper()
        self.outer_joined = any(self.sides[id(t)] in ("RIGHT", "FULL") for t in self.tables[1:])

    def filterable(self, table: exp.Table) -> bool:
        """A WHERE condition on ``table`` may filter its rows before the join: an inner
        relation, not the NULL-extended side of an outer join."""
        side = self.sides.get(id(table))
        if side is None:
            return False
        if table is self.tables[0]:
            return not self.outer_joined
        return side == ""

    def owner(self, column: exp.Column) -> exp.Table | None:
        qualifier = column.table.lower()
        tables = [t for t in self.tables if isinstance(t, exp.Table)]
        if qualifier:
            named = [t for t in tables if t.alias_or_name.lower() == qualifier]
            return named[0] if len(named) == 1 else None
        if len(self.tables) == 1:
            return tables[0] if tables else None
        having = []
        for table in tables:
            dataset = self.dataset_of(table)
            if dataset is not None and field_name(dataset.schema, column.name) is not None:
                having.append(table)
        return having[0] if len(having) == 1 else None

    def field_of(self, table: exp.Table) -> Callable[[exp.Column], str | None]:
        dataset = self.dataset_of(table)
        schema = dataset.schema

        def field_of_column(column: exp.Column) -> str | None:
            if self.owner(column) is not table:
                return None
            return field_name(schema, column.name)

        return field_of_column

    def columns_read(self, table: exp.Table, schema: pa.Schema) -> list[str] | None:
        """The table's columns the SELECT names (None: every column, for a star)."""
        names: set[str] = set()
        for column in self.select.find_all(exp.Column):
            if isinstance(column.this, exp.Star):
                if not column.table or column.table.lower() == table.alias_or_name.lower():
                    return None
                continue
            if column.table and column.table.lower() != table.alias_or_name.lower():
                continue
            name = field_name(schema, column.name)
            if name is not None:
                names.add(name)
        if any(isinstance(item, exp.Star) for item in self.select.expressions):
            return None
        # DuckDB cannot scan a table without columns (count(*)): read the narrowest one then
        return [f.name for f in schema if f.name in names] or [narrowest(schema)]


def exclude_from_stars(select: exp.Select, table: exp.Table, column: str) -> None:
    """``*`` and ``t.*`` keep showing the table's own columns, not the score DuckDB reads."""
    excluded = [exp.column(column, table=table.alias_or_name)]
    for item in select.expressions:
        if isinstance(item, exp.Star):
            item.set("except_", [*(item.args.get("except_") or []), *excluded])
        elif (
            isinstance(item, exp.Column)
            and isinstance(item.this, exp.Star)
            and item.table.lower() == table.alias_or_name.lower()
        ):
            item.this.set("except_", [*(item.this.args.get("except_") or []), exp.column(column)])
