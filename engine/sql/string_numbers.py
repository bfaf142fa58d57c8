"""A string in arithmetic is a number, as MySQL reads it (manual 14.3 "Type Conversion in
Expression Evaluation": a string operand of an arithmetic operator converts to a floating-point
number, its longest numeric prefix). DuckDB refuses ``'42' + 1`` ("Could not choose a best
candidate function") and answers ``'4.5' * 2`` as 10, casting the string to the other side's
INTEGER. Drivers that bind every parameter as a string (PHP PDO's ``execute([42])``) send exactly
these literals, so each string literal operand of ``+ - * / DIV %`` becomes the DOUBLE MySQL
computes from it. A string added to an INTERVAL is a DATETIME instead
(engine/sql/mysql_functions.py).
"""

from __future__ import annotations

import re

from sqlglot import exp

_OPERATORS = (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod, exp.IntDiv)
# MySQL's string-to-double: optional space and sign, digits with an optional fraction, an
# optional exponent; whatever follows is ignored (with a warning in MySQL), no prefix is 0
_NUMERIC_PREFIX = re.compile(r"\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)")


def string_value(text: str) -> float:
    match = _NUMERIC_PREFIX.match(text)
    if match is None:
        return 0.0
    try:
        return float(match.group(1))
    except OverflowError:  # pragma: no cover - float() returns inf rather than raising
        return 0.0


def numeric_operands(expression: exp.Expr) -> None:
    """Replace, in place, each string literal operand of an arithmetic operator by its DOUBLE."""
    for node in list(expression.find_all(*_OPERATORS)):
        sides = [node.this, node.expression]
        if any(isinstance(side, exp.Interval) for side in sides):
            continue
        strings = [s for s in sides if isinstance(s, exp.Literal) and s.is_string]
        for side in strings:
            value = string_value(side.name)
            side.replace(
                exp.Cast(this=exp.Literal.number(repr(value)), to=exp.DataType.build("DOUBLE"))
            )
        if strings and isinstance(node, exp.IntDiv):
            # DuckDB's // on a DOUBLE divides exactly; MySQL's DIV drops the fraction
            quotient = exp.Div(this=node.this.copy(), expression=node.expression.copy())
            node.replace(
                exp.Cast(
                    this=exp.Anonymous(this="trunc", expressions=[quotient]),
                    to=exp.DataType.build("BIGINT"),
                )
            )
