"""The type MySQL gives date arithmetic (``d + INTERVAL n unit``, DATE_ADD, DATE_SUB), decided
on the client's own tree; engine/sql/mysql_functions.py casts what is a DATE back to DATE.

Compound units (``INTERVAL '1-2' YEAR_MONTH``, ``'1 2:03' DAY_MINUTE``, ``'3:4.5'
MINUTE_MICROSECOND``; MySQL 8.0 manual 14.7 "Temporal Intervals"), which DuckDB lacks, become
one amount of their smallest unit (14 MONTH, 1563 MINUTE, 184500000 MICROSECOND), read as
MySQL's get_interval_info reads the text: an optional leading '-' for the whole value, then
numbers separated by any non-digits; fewer numbers than the unit's fields fill its smallest
fields ('5' DAY_HOUR is 5 hours); the last number of a ``*_MICROSECOND`` unit shorter than 6
digits is a fraction ('.5' is 500000 µs); text left over (more numbers than fields) is NULL.
"""

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
    found = _temporal_operand(node)
    return found[0] if found is not None and found[1] in _DATE_UNITS else None


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


def _temporal_operand(node: Any) -> tuple[exp.Expr, str] | None:
    """(the value side, the interval's unit in upper case) of date arithmetic: DATE_ADD's first
    argument, the side of ``+`` (or the left side of ``-``) that is not the one INTERVAL; None
    for anything else."""
    if isinstance(node, (exp.DateAdd, exp.DateSub)):
        return node.this, node.text("unit").upper()
    if isinstance(node, (exp.Add, exp.Sub)):
        sides = [node.this, node.expression]
        intervals = [s for s in sides if isinstance(s, exp.Interval)]
        if len(intervals) != 1:
            return None
        other = sides[1] if sides[0] is intervals[0] else sides[0]
        if isinstance(node, exp.Sub) and other is not node.this:
            return None
        return other, intervals[0].text("unit").upper()
    return None


def is_string_result(node: Any) -> bool:
    """Date arithmetic on a string literal, as a select-list item: MySQL's Item_date_add_interval
    answers a VARCHAR then (the string could hold any temporal), which clients read as text."""
    found = _temporal_operand(node)
    if found is None or not (isinstance(found[0], exp.Literal) and found[0].is_string):
        return False
    item = node.parent if isinstance(node.parent, exp.Alias) else node
    return isinstance(item.parent, exp.Select) and item.arg_key == "expressions"


# MySQL's text of a DATETIME result computed as a string: six fractional digits when there is a
# fraction, none otherwise (Item_date_add_interval::val_str)
DATETIME_TEXT = (
    "regexp_replace(strftime(CAST({0} AS TIMESTAMP), '%Y-%m-%d %H:%M:%S.%f'), '\\.000000$', '')"
)

_SYNONYMS = {"ADDDATE": exp.DateAdd, "SUBDATE": exp.DateSub}

_US = 1_000_000
# compound unit → (its smallest unit, each field's size in that unit)
_COMPOUND_UNITS: dict[str, tuple[str, tuple[int, ...]]] = {
    "YEAR_MONTH": ("MONTH", (12, 1)),
    "DAY_HOUR": ("HOUR", (24, 1)),
    "DAY_MINUTE": ("MINUTE", (1440, 60, 1)),
    "DAY_SECOND": ("SECOND", (86400, 3600, 60, 1)),
    "HOUR_MINUTE": ("MINUTE", (60, 1)),
    "HOUR_SECOND": ("SECOND", (3600, 60, 1)),
    "MINUTE_SECOND": ("SECOND", (60, 1)),
    "DAY_MICROSECOND": ("MICROSECOND", (86400 * _US, 3600 * _US, 60 * _US, _US, 1)),
    "HOUR_MICROSECOND": ("MICROSECOND", (3600 * _US, 60 * _US, _US, 1)),
    "MINUTE_MICROSECOND": ("MICROSECOND", (60 * _US, _US, 1)),
    "SECOND_MICROSECOND": ("MICROSECOND", (_US, 1)),
}


def compound_amount(text: str, unit: str) -> int | None:
    """``text`` of a compound ``unit`` as an amount of its smallest unit (module docstring);
    None where MySQL answers NULL."""
    smallest, sizes = _COMPOUND_UNITS[unit]
    text = text.lstrip()
    negative = text.startswith("-")
    numbers = re.findall(r"[0-9]+", text[1:] if negative else text)
    if len(numbers) > len(sizes):
        return None
    fields = [0] * (len(sizes) - len(numbers)) + [int(n) for n in numbers]
    if smallest == "MICROSECOND" and numbers and len(numbers[-1]) < 6:
        fields[-1] *= 10 ** (6 - len(numbers[-1]))
    amount = sum(value * size for value, size in zip(fields, sizes))
    return -amount if negative else amount


def _simple_interval(amount: exp.Expr, unit: exp.Expr | None) -> tuple[exp.Expr, exp.Var] | None:
    """(amount, unit) of a compound-unit interval in its smallest unit, else None."""
    name = unit.name.upper() if isinstance(unit, (exp.Var, exp.Identifier)) else ""
    if name not in _COMPOUND_UNITS or not isinstance(amount, exp.Literal):
        return None
    value = compound_amount(amount.name, name)
    number = exp.null() if value is None else exp.Literal.number(value)
    return number, exp.var(_COMPOUND_UNITS[name][0])


def _compound_units(expression: exp.Expr) -> None:
    """Every compound-unit interval with a literal amount in its smallest unit, in place."""
    for node in list(expression.find_all(exp.DateAdd, exp.DateSub, exp.Interval)):
        amount = node.this if isinstance(node, exp.Interval) else node.expression
        simple = _simple_interval(amount, node.args.get("unit"))
        if simple is not None:
            amount.replace(simple[0])
            node.set("unit", simple[1])


def adddate_as_date_add(expression: exp.Expr) -> exp.Expr:
    """ADDDATE / SUBDATE (MySQL 12.7): with an INTERVAL they are DATE_ADD / DATE_SUB; with a
    number, that many days. DuckDB has neither; sqlglot leaves them as unknown calls. Returns
    the expression (or its replacement when it is such a call). Compound interval units become
    their smallest unit (module docstring)."""
    expression = _adddate_as_date_add(expression)
    _compound_units(expression)
    return expression


def _adddate_as_date_add(expression: exp.Expr) -> exp.Expr:
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
