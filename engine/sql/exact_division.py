"""``/`` on exact numbers as MySQL computes it (MySQL 8.0 manual 14.6.1, 14.24.5): when both
operands are exact (integers, DECIMAL) the quotient is a DECIMAL whose scale is the dividend's
plus div_precision_increment (4): ``1 / 3`` = 0.3333, ``1.0 / 3`` = 0.33333, ``2 / 1`` = 2.0000.
DuckDB divides as DOUBLE (0.3333333333333333, 2.0). An approximate operand (a DOUBLE, an
``e`` literal, a string) keeps the DOUBLE division.

MySQL keeps a quotient internally to the next multiple of 9 digits of scale (truncated) and
rounds (half away from zero) only the value it returns, so ``1 / (1 / 3)`` = 3.0000, not
3.0003: each exact ``/`` here is integer arithmetic on HUGEINT unscaled values at that internal
scale, and the outermost exact arithmetic holding one is rounded to its MySQL scale.

Operand types come from the client's tree (number literals, CASTs, arithmetic of them); an
operand whose type the tree does not tell (a column) leaves the division to DuckDB.
"""

from __future__ import annotations

import re

from sqlglot import exp

from drydock.engine.sql.sql_templates import instantiate

INCREMENT = 4  # MySQL's div_precision_increment default
# meta key: the client's expression a rewritten node stands for, for typing its result column
# (server/expression_columns.py); engine/sql/mysql_functions.py marks its rewrites with it too
MYSQL_CALL = "mysql_call"
_WORD = 9  # MySQL's decimal digits per word: the internal scale is a multiple of it
_MAX_SCALE = 30  # MySQL's DECIMAL_MAX_SCALE
_WIDTH = 38  # DuckDB's widest DECIMAL
_EXACT_NUMBER = re.compile(r"\d+(?:\.(\d*))?|\.(\d+)")
_INTEGER_TYPES = (
    exp.DataType.Type.TINYINT,
    exp.DataType.Type.SMALLINT,
    exp.DataType.Type.INT,
    exp.DataType.Type.BIGINT,
    exp.DataType.Type.UBIGINT,
)
_ARITHMETIC = (exp.Add, exp.Sub, exp.Mul, exp.Div)
# a table's own expressions (DEFAULT, CHECK, generated columns) are stored as written
STORED = (exp.Schema, exp.ColumnDef, exp.ColumnConstraint, exp.Alter)


def _internal(scale: int) -> int:
    return min(-(-scale // _WORD) * _WORD, _MAX_SCALE)


def scale_of(node: exp.Expr) -> int | None:
    """The scale MySQL gives ``node`` when it is exact, else None (approximate or unknown)."""
    if isinstance(node, (exp.Paren, exp.Neg)):
        return scale_of(node.this)
    if isinstance(node, exp.Literal):
        if node.is_string:
            return None
        match = _EXACT_NUMBER.fullmatch(node.name)
        return len(match[1] or match[2] or "") if match else None
    if isinstance(node, exp.Cast):
        if node.to.is_type(*_INTEGER_TYPES):
            return 0
        if node.to.is_type(exp.DataType.Type.DECIMAL):
            params = node.to.expressions
            return int(params[1].name) if len(params) == 2 else 0
        return None
    if isinstance(node, _ARITHMETIC):
        left, right = scale_of(node.this), scale_of(node.expression)
        if left is None or right is None:
            return None
        if isinstance(node, exp.Div):
            return min(left + INCREMENT, _MAX_SCALE)
        if isinstance(node, exp.Mul):
            return min(left + right, _MAX_SCALE)
        return max(left, right)
    return None


def _held_scale(node: exp.Expr) -> int:
    """The scale an exact operand is held at once rewritten (a quotient: its internal one)."""
    if isinstance(node, exp.Paren):
        return _held_scale(node.this)
    scale = scale_of(node)
    assert scale is not None
    if isinstance(node, exp.Div):
        return _internal(scale)
    if isinstance(node, _ARITHMETIC):
        left, right = _held_scale(node.this), _held_scale(node.expression)
        return left + right if isinstance(node, exp.Mul) else max(left, right)
    return scale


def _unscaled(node: exp.Expr, scale: int) -> exp.Expr:
    return instantiate(f"CAST({{0}} * {10**scale} AS HUGEINT)", [node])


def _quotient(div: exp.Div, sa: int, sb: int, k: int) -> exp.Expr:
    """``div`` (dividend held at scale sa, divisor at sb) at internal scale k:
    trunc(A · 10^(sb + k - sa) / B) / 10^k as a DECIMAL."""
    numerator = instantiate(
        f"({{0}} * CAST({10 ** (sb + k - sa)} AS HUGEINT))", [_unscaled(div.this, sa)]
    )
    truncated = exp.IntDiv(this=numerator, expression=_unscaled(div.expression, sb))
    unit = "0." + "0" * (k - 1) + "1"  # DECIMAL × DECIMAL stays exact; DECIMAL / n is DOUBLE
    return instantiate(
        f"CAST(CAST({{0}} AS DECIMAL({_WIDTH}, 0)) * {unit} AS DECIMAL({_WIDTH}, {k}))",
        [exp.Paren(this=truncated)],
    )


def _top(div: exp.Div) -> exp.Expr:
    """The outermost exact arithmetic around ``div``: where MySQL rounds to the scale."""
    top: exp.Expr = div
    while isinstance(top.parent, (*_ARITHMETIC, exp.Paren, exp.Neg)):
        if scale_of(top.parent) is None:
            break
        top = top.parent
    return top


def rewrite(expression: exp.Expr) -> exp.Expr:
    """Every ``/`` of exact operands in ``expression`` made MySQL's, in place (the expression
    itself is returned, or its replacement when it is such a division)."""
    divisions = [
        n
        for n in expression.walk(bfs=False)
        if isinstance(n, exp.Div) and scale_of(n) is not None and not n.find_ancestor(*STORED)
    ]
    if not divisions:
        return expression
    # decided on the client's tree before any division in it is rewritten
    plans = [
        (div, _held_scale(div.this), _held_scale(div.expression), _internal(scale_of(div) or 0))
        for div in divisions
    ]
    tops: dict[int, tuple[exp.Expr, int]] = {}
    written: dict[int, exp.Expr] = {}  # each top as the client wrote it, for typing
    for div in divisions:
        top = _top(div)
        tops.setdefault(id(top), (top, scale_of(top) or 0))
        written.setdefault(id(top), top.copy())
    for div, sa, sb, k in reversed(plans):  # innermost first
        replacement = _quotient(div, sa, sb, k)
        if id(div) in tops:
            tops[id(replacement)] = (replacement, tops.pop(id(div))[1])
            written[id(replacement)] = written.pop(id(div))
        div.replace(replacement)
    result = expression
    for key, (top, scale) in tops.items():
        rounded = exp.Cast(
            this=exp.Anonymous(this="round", expressions=[exp.Literal.number(scale)]),
            to=exp.DataType.build(f"DECIMAL({_WIDTH}, {scale})", dialect="duckdb"),
        )
        rounded.meta[MYSQL_CALL] = written[key]
        if top is expression or (expression.parent is None and top.parent is None):
            result = rounded
        else:
            top.replace(rounded)
        rounded.this.set("expressions", [top, exp.Literal.number(scale)])
    return result
