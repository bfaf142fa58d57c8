"""WHERE conditions Lance can apply itself, as the filter text its scanner reads.

A search hands Lance the conditions of its table so that they filter *before* the nearest rows or
the best full-text matches are chosen (prefilter: k rows come back whenever k rows match), and
Lance's scalar indexes answer them. Only conditions whose meaning is the same in Lance as in
drydock are translated: comparisons, IN, BETWEEN and IS [NOT] NULL of numeric columns with
numeric literals, joined by AND / OR / NOT. Strings are never translated — drydock compares them
under a case- and accent-insensitive collation, Lance byte by byte — nor are dates, casts or
functions. A condition that cannot be translated makes the caller search exactly instead.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import pyarrow as pa
from sqlglot import exp

from drydock.engine.lakehouse.catalogs.lance_scan import lance_name

_COMPARISONS: dict[type[exp.Expr], tuple[str, str]] = {
    # node → (operator, operator with the sides swapped)
    exp.EQ: ("=", "="),
    exp.NEQ: ("!=", "!="),
    exp.GT: (">", "<"),
    exp.GTE: (">=", "<="),
    exp.LT: ("<", ">"),
    exp.LTE: ("<=", ">="),
}

# a Column node of the searched table → its top-level field name, or None when it is not one
ColumnOf = Callable[[exp.Column], str | None]


def lance_filter(condition: exp.Expr, schema: pa.Schema, column_of: ColumnOf) -> str | None:
    """``condition`` as Lance filter text, or None when any part of it has no exact translation."""
    return _Translator(schema, column_of).visit(condition)


def conjuncts(condition: exp.Expr | None) -> list[exp.Expr]:
    """The conditions ``condition`` joins with AND (parentheses looked through)."""
    if condition is None:
        return []
    node = condition.unnest() if isinstance(condition, exp.Paren) else condition
    if isinstance(node, exp.And):
        return conjuncts(node.this) + conjuncts(node.expression)
    return [node]


class _Translator:
    def __init__(self, schema: pa.Schema, column_of: ColumnOf):
        self._schema = schema
        self._column_of = column_of

    def visit(self, node: exp.Expr) -> str | None:
        if isinstance(node, exp.Paren):
            inner = self.visit(node.this)
            return None if inner is None else f"({inner})"
        if isinstance(node, (exp.And, exp.Or)):
            left, right = self.visit(node.this), self.visit(node.expression)
            if left is None or right is None:
                return None
            word = "AND" if isinstance(node, exp.And) else "OR"
            return f"({left}) {word} ({right})"
        if isinstance(node, exp.Not):
            inner = self.visit(node.this)
            return None if inner is None else f"NOT ({inner})"
        if type(node) in _COMPARISONS:
            return self._comparison(node)
        if isinstance(node, exp.In):
            return self._in(node)
        if isinstance(node, exp.Between):
            return self._between(node)
        if isinstance(node, exp.Is):
            return self._is_null(node)
        return None

    def _field(self, node: exp.Expr) -> tuple[str, pa.DataType] | None:
        if not isinstance(node, exp.Column) or isinstance(node.this, exp.Star):
            return None
        name = self._column_of(node)
        if name is None or self._schema.get_field_index(name) < 0:
            return None
        kind = self._schema.field(name).type
        if not (pa.types.is_integer(kind) or pa.types.is_floating(kind)):
            return None
        return name, kind

    def _number(self, node: exp.Expr, kind: pa.DataType) -> str | None:
        negative = isinstance(node, exp.Neg)
        if negative:
            node = node.this
        if not isinstance(node, exp.Literal) or node.is_string:
            return None
        text = node.name
        try:
            value: int | float = int(text) if pa.types.is_integer(kind) else float(text)
        except ValueError:
            return None  # 1.5 against an integer column: the casts differ, leave it to drydock
        if isinstance(value, float) and not math.isfinite(value):
            return None
        value = -value if negative else value
        if pa.types.is_integer(kind) and not _fits(value, kind):
            return None
        return repr(value)

    def _comparison(self, node: exp.Expr) -> str | None:
        operator, swapped = _COMPARISONS[type(node)]
        for column, literal, op in (
            (node.this, node.expression, operator),
            (node.expression, node.this, swapped),
        ):
            field = self._field(column)
            if field is None:
                continue
            value = self._number(literal, field[1])
            return None if value is None else f"{lance_name(field[0])} {op} {value}"
        return None

    def _in(self, node: exp.In) -> str | None:
        field = self._field(node.this)
        items = node.expressions
        if field is None or not items or node.args.get("query") is not None:
            return None
        values = [self._number(item, field[1]) for item in items]
        if any(v is None for v in values):
            return None  # NULL in the list makes "no match" unknown; leave it to drydock
        return f"{lance_name(field[0])} IN ({', '.join(str(v) for v in values)})"

    def _between(self, node: exp.Between) -> str | None:
        field = self._field(node.this)
        if field is None:
            return None
        low, high = (
            self._number(node.args["low"], field[1]),
            self._number(node.args["high"], field[1]),
        )
        if low is None or high is None:
            return None
        return f"{lance_name(field[0])} BETWEEN {low} AND {high}"

    def _is_null(self, node: exp.Is) -> str | None:
        if not isinstance(node.expression, exp.Null):
            return None
        field = self._field(node.this)
        return None if field is None else f"{lance_name(field[0])} IS NULL"


def _fits(value: float, kind: pa.DataType) -> bool:
    bits = kind.bit_width
    if pa.types.is_signed_integer(kind):
        return -(1 << (bits - 1)) <= value < (1 << (bits - 1))
    return 0 <= value < (1 << bits)
