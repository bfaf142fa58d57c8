"""A TIME column of an internal table (a DuckDB INTERVAL, engine/sql/time_columns.py) where MySQL 8
converts it to another type, answered as MySQL answers:

- numeric context (MySQL 8.0 manual 13.2.8 "Conversion Between Date and Time Types": a TIME in
  numeric context is the number HHMMSS[.fraction]): the operand of ``+ - * / DIV %`` (not of
  ``+ INTERVAL``) and of SUM/AVG is that number, an integer for TIME(0) and DECIMAL(7+n, n) for
  TIME(n) (MySQL's Item::numeric_context_result_type; '-838:59:59' is -8385959, TIME(2)
  '01:00:00.50' is 10000.50); ``-t`` is that number as a DOUBLE (Item_func_num1 types by the
  operand's result type, a string's for a TIME field);
- string context: CAST(… AS CHAR) and CONCAT print exactly n fractional digits for TIME(n)
  ('01:00:00.500' for TIME(3); DuckDB's INTERVAL text drops trailing zeros);
- date context: DATE_FORMAT, CAST(… AS DATE/DATETIME), DATE(), TIMESTAMP(), YEAR()/MONTH()/…,
  DATEDIFF and UNIX_TIMESTAMP read the DATETIME the TIME becomes on the current date (13.2.8:
  the TIME is elapsed time added to CURRENT_DATE, so '100:00:00' is four days on, 04:00:00 and
  '-01:00:00' is yesterday 23:00:00);
- ``t + INTERVAL …`` / DATE_ADD / DATE_SUB whose result leaves -838:59:59..838:59:59 is NULL
  with warning 1441 "Datetime function: time field overflow" (MySQL's
  Item_date_add_interval::get_time_internal; always for an interval of years, quarters or
  months), error 1441 in an INSERT or UPDATE in strict mode.

A column reference (also in parentheses, MIN or MAX) is found a TIME column by name against the
definitions of the internal tables the statement reads (its qualifier, when written, picks the
table); a name that could also be another column of the statement's tables (not a TIME, or a
TIME of another precision) is left as it is, and so is a TIME that is no column of such a table
(a subquery's column, ADDTIME(…), a CASE: README).
"""

from __future__ import annotations

import json
from collections.abc import Callable

import sqlglot
from sqlglot import exp

from drydock.engine.errors import Errors
from drydock.engine.session import INTERNAL
from drydock.engine.sql import exact_division, runtime_warnings, time_columns
from drydock.engine.sql.mysql_json_doc import ERROR_PREFIX
from drydock.engine.sql.table_traits import Traits

TraitsOf = Callable[[exp.Table], Traits]
_ARITHMETIC = (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.IntDiv, exp.Mod)
_DATE_TYPES = tuple(
    getattr(exp.DataType.Type, name)
    for name in ("DATE", "DATETIME", "TIMESTAMP", "TIMESTAMPTZ", "TIMESTAMPNTZ", "TIMESTAMPLTZ")
    if hasattr(exp.DataType.Type, name)
)
_DATE_READERS = (exp.TimeToStr, exp.TsOrDsToTimestamp, exp.TsOrDsToDate, exp.Timestamp)
# the current date at midnight, as NOW() reads the clock (engine/sql/mysql_functions.py)
_TODAY = "date_trunc('day', make_timestamp(epoch_us(now())))"


Columns = dict[str, list[tuple[set[str], int | None]]]


def columns_of(expression: exp.Expr, traits_of: TraitsOf) -> Columns:
    """Column name → (the names that qualify it: table and alias; its fsp when it is a TIME,
    else None) of every column of the internal tables ``expression`` reads."""
    found: Columns = {}
    for table in expression.find_all(exp.Table):
        if table.text("catalog").lower() != INTERNAL:
            continue
        definition = traits_of(table).definition
        if definition is None:
            continue
        names = {table.name.lower(), table.alias_or_name.lower()}
        for column in definition.columns:
            fsp = (column.fsp or 0) if column.data_type == "time" else None
            found.setdefault(column.name.lower(), []).append((names, fsp))
    return found


def _fsp(column: exp.Column, columns: Columns) -> int | None:
    """The fsp of the TIME column ``column`` names, or None: not a TIME column, or a name that
    could also be another column (of another table, or a TIME of another precision)."""
    entries = columns.get(column.name.lower(), [])
    qualifier = column.table.lower()
    if qualifier:
        entries = [e for e in entries if qualifier in e[0]]
    precisions = {fsp for _names, fsp in entries}
    if len(precisions) != 1:
        return None
    return precisions.pop()


def rewrite(
    expression: exp.Expr, traits_of: TraitsOf, sql_modes: frozenset[str] | set[str] = frozenset()
) -> None:
    """Each TIME column in a context of the module docstring converted as MySQL converts it."""
    found = columns_of(expression, traits_of)
    if not any(fsp is not None for entries in found.values() for _names, fsp in entries):
        return
    fails = _overflow_fails(expression, sql_modes)
    divided = False
    for column in list(expression.find_all(exp.Column)):
        fsp = _fsp(column, found)
        if fsp is None:
            continue
        parent = column.parent
        # (t), MIN(t), MAX(t) are the TIME itself
        while isinstance(parent, (exp.Paren, exp.Min, exp.Max)) and parent.this is column:
            column, parent = parent, parent.parent  # type: ignore[assignment]
        if parent is None:
            continue
        if _interval_arithmetic(parent, column):
            _in_range(parent, fails)
        elif isinstance(parent, exp.Neg):  # Item_func_neg: a TIME (not an exact number) is DOUBLE
            column.replace(duckdb_sql(f"CAST({_number_sql(fsp)} AS DOUBLE)", column))
        elif _numeric_context(parent, column):
            column.replace(duckdb_sql(_number_sql(fsp), column))
            divided = divided or isinstance(parent, exp.Div) or bool(parent.find_ancestor(exp.Div))
        elif fsp and _string_context(parent):
            column.replace(duckdb_sql(_text_sql(fsp), column))
        elif _date_context(parent, column):
            column.replace(duckdb_sql(f"({_TODAY} + {{0}})", column))
    if divided:  # the number is exact: MySQL's DECIMAL division of it (adapt ran before)
        exact_division.rewrite(expression)


def _interval_arithmetic(parent: exp.Expr | None, column: exp.Expr) -> bool:
    if isinstance(parent, (exp.DateAdd, exp.DateSub)):
        return parent.this is column
    return isinstance(parent, (exp.Add, exp.Sub)) and any(
        isinstance(side, exp.Interval) for side in (parent.this, parent.expression)
    )


def _numeric_context(parent: exp.Expr | None, column: exp.Expr) -> bool:
    if isinstance(parent, (exp.Sum, exp.Avg)):
        return parent.this is column
    if isinstance(parent, exp.Distinct):  # SUM(DISTINCT t), AVG(DISTINCT t)
        return isinstance(parent.parent, (exp.Sum, exp.Avg)) and len(parent.expressions) == 1
    return isinstance(parent, _ARITHMETIC)


def _date_context(parent: exp.Expr, column: exp.Expr) -> bool:
    """DATE_FORMAT, CAST AS DATE/DATETIME, DATE(), TIMESTAMP(), YEAR()/MONTH()/… (of DATE()),
    DATEDIFF, UNIX_TIMESTAMP: where MySQL reads the TIME as a DATETIME (its get_date)."""
    if isinstance(parent, (exp.Cast, exp.TryCast)):
        return parent.to.is_type(*_DATE_TYPES)
    if isinstance(parent, exp.DateDiff):
        return True
    return isinstance(parent, _DATE_READERS) and parent.this is column


def _string_context(parent: exp.Expr | None) -> bool:
    if isinstance(parent, exp.Cast):
        return parent.to.this in exp.DataType.TEXT_TYPES
    return isinstance(parent, (exp.Concat, exp.ConcatWs))


def duckdb_sql(template: str, *operands: exp.Expr) -> exp.Expr:
    """``template`` (DuckDB SQL) with ``{i}`` the i-th operand's DuckDB text, parsed."""
    return sqlglot.parse_one(
        template.format(*(o.sql(dialect="duckdb") for o in operands)), read="duckdb"
    )


def _number_sql(fsp: int) -> str:
    """The TIME {0} as MySQL's number HHMMSS[.f]: BIGINT for fsp 0, else DECIMAL(7+fsp, fsp)."""
    us = "epoch_us({0})"
    magnitude = f"abs({us})"
    hhmmss = (
        f"({magnitude} // 3600000000 * 10000 + {magnitude} // 60000000 % 60 * 100"
        f" + {magnitude} // 1000000 % 60)"
    )
    if not fsp:
        return f"CAST(sign({us}) * {hhmmss} AS BIGINT)"
    whole = f"CAST(sign({us}) * ({hhmmss} * 1000000 + {magnitude} % 1000000) AS DECIMAL(18, 0))"
    return f"CAST({whole} * 0.000001 AS DECIMAL({7 + fsp}, {fsp}))"


def _text_sql(fsp: int) -> str:
    """The TIME(fsp) {0} as MySQL prints it, with exactly fsp fractional digits (DuckDB's text
    of the INTERVAL, [-]HH:MM:SS[.f], has the fraction without trailing zeros)."""
    shown = "CAST({0} AS VARCHAR)"
    width = f"CAST(strpos({shown}, '.') + {fsp} AS INTEGER)"
    return (
        f"CASE WHEN contains({shown}, '.') THEN rpad({shown}, {width}, '0')"
        f" ELSE {shown} || '.{'0' * fsp}' END"
    )


def _overflow_fails(statement: exp.Expr, sql_modes: frozenset[str] | set[str]) -> bool:
    """Whether warning 1441 is an error here: an INSERT or UPDATE (not IGNORE) in strict mode
    (MySQL's Strict_error_handler turns ER_DATETIME_FUNCTION_OVERFLOW into an error)."""
    strict = bool({"STRICT_TRANS_TABLES", "STRICT_ALL_TABLES"} & set(sql_modes))
    changes = isinstance(statement, (exp.Insert, exp.Update)) and not statement.args.get("ignore")
    return strict and changes


def _months(node: exp.Expr) -> bool:
    """Whether the interval of ``node`` counts years, quarters or months."""
    if isinstance(node, (exp.DateAdd, exp.DateSub)):
        unit = node.text("unit")
    else:
        unit = next(
            (s.text("unit") for s in (node.this, node.expression) if isinstance(s, exp.Interval)),
            "",
        )
    return any(part in unit.upper() for part in ("YEAR", "QUARTER", "MONTH"))


def _in_range(node: exp.Expr, fails: bool) -> None:
    """``node`` (TIME arithmetic with an interval) NULL where it leaves TIME's range, with
    MySQL's warning 1441 for each such row, or its error 1441 where the statement must fail."""
    value = node.copy()
    if _months(node):  # MySQL's get_time_internal: a TIME has no month to add to
        outside = duckdb_sql("({0}) IS NOT NULL", value)
    else:
        outside = duckdb_sql(f"abs(epoch_us({{0}})) > {time_columns.MAX_MICROSECONDS}", value)
    spec = Errors.DATETIME_FUNCTION_OVERFLOW
    outcome: exp.Expr = exp.Null()
    warnings = runtime_warnings.current()
    if fails:
        text = f"{ERROR_PREFIX}DATETIME_FUNCTION_OVERFLOW {json.dumps({'field': 'time'})}"
        outcome = exp.Anonymous(this="error", expressions=[exp.Literal.string(text)])
    elif warnings is not None:
        outside = warnings.warn_if(outside, spec, exp.Literal.string(spec.text(field="time")))
    node.replace(exp.Case(ifs=[exp.If(this=outside, true=outcome)], default=exp.Paren(this=value)))
