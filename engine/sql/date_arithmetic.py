"""The type MySQL gives date arithmetic (``d + INTERVAL n unit``, DATE_ADD, DATE_SUB), decided
on the client's own tree; engine/sql/mysql_functions.py casts what is a DATE back to DATE."""

from __future__ import annotations

import re
from typing import Any

from sqlglot import exp

from drydock.engine.sql.sql_templates import TS, instantiate


# MySQL 12.7 DATE_ADD(): "If the date argument is a DATE value and your calculations involve
# only YEAR, MONTH, and DAY parts (that is, no time parts), the result is a DATE value" (also
# for `d + INTERVAL n unit`); DuckDB answers a TIMESTAMP. Superset's quarter grain relies on it.
_DATE_UNITS = {"YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "YEAR_MONTH"}
_DATE_FUNCTIONS = {"MAKEDATE", "FROM_DAYS", "CURDATE", "CURRENT_DATE"}


def _is_date(node: Any) -> bool:
    """Whether ``node`` (as the client wrote it) is a DATE by MySQL's typing rules."""
    if isinstance(node, exp.Paren):
        return _is_date(node.this)
    if isinstance(node, (exp.TsOrDsToDate, exp.CurrentDate, exp.LastDay)):
        return True
    if isinstance(node, exp.Cast):
        return node.to.is_type(exp.DataType.Type.DATE)
    if isinstance(node, exp.Anonymous):
        return str(node.name).upper() in _DATE_FUNCTIONS
    if isinstance(node, exp.Literal) and node.is_string:  # '2018-05-01' is read as a DATE
        return re.fullmatch(r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}", node.name) is not None
    return is_date_arithmetic(node)


ARITHMETIC = (exp.DateAdd, exp.DateSub, exp.Add, exp.Sub)


def date_operand(node: Any) -> exp.Expr | None:
    """The operand of date arithmetic with date units only (``x + INTERVAL n DAY``,
    ``DATE_ADD(x, INTERVAL n MONTH)``) whose being a DATE makes the result a DATE, else None."""
    if isinstance(node, (exp.DateAdd, exp.DateSub)):
        return node.this if node.text("unit").upper() in _DATE_UNITS else None
    if isinstance(node, (exp.Add, exp.Sub)):
        sides = [node.this, node.expression]
        intervals = [s for s in sides if isinstance(s, exp.Interval)]
        if len(intervals) != 1 or intervals[0].text("unit").upper() not in _DATE_UNITS:
            return None
        other = sides[1] if sides[0] is intervals[0] else sides[0]
        return other if isinstance(node, exp.Add) or other is node.this else None
    return None


def is_date_arithmetic(node: Any) -> bool:
    operand = date_operand(node)
    return operand is not None and _is_date(operand)


def typed_interval_operand(node: exp.Add | exp.Sub) -> None:
    """'2024-01-01 10:00:00' + INTERVAL 1 SECOND: MySQL reads the string as a DATETIME (12.7
    DATE_ADD); DuckDB has no VARCHAR + INTERVAL. (A date-only string with date units then
    becomes a DATE again: :func:`_is_date_arithmetic`.)"""
    sides = [node.this, node.expression]
    if sum(isinstance(side, exp.Interval) for side in sides) != 1:
        return
    for side in sides:
        if isinstance(side, exp.Literal) and side.is_string:
            side.replace(instantiate(TS, [side.copy()]))


_SYNONYMS = {"ADDDATE": exp.DateAdd, "SUBDATE": exp.DateSub}


def adddate_as_date_add(expression: exp.Expr) -> exp.Expr:
    """ADDDATE / SUBDATE (MySQL 12.7): with an INTERVAL they are DATE_ADD / DATE_SUB; with a
    number, that many days. DuckDB has neither; sqlglot leaves them as unknown calls. Returns
    the expression (or its replacement when it is such a call)."""
    for node in list(expression.find_all(exp.Anonymous)):
        kind = _SYNONYMS.get(str(node.name).upper())
        if kind is None or len(node.expressions) != 2:
            continue
        value, amount = node.expressions
        if isinstance(amount, exp.Interval):
            unit = amount.args.get("unit") or exp.var("DAY")
            amount = amount.this
        else:
            unit = exp.var("DAY")
        call = kind(this=value.copy(), expression=amount.copy(), unit=unit.copy())
        if node is expression:
            return call
        node.replace(call)
    return expression
