"""Expressions reading a TIME column of an internal table, answered as MySQL answers them: its
comparisons (MySQL 8.0 manual 14.3 "Type Conversion in Expression Evaluation": the other operand
is converted to TIME), HOUR/MINUTE/SECOND (of the magnitude: HOUR('-12:30:00') is 12),
CAST(… AS TIME(n)) (rounded to n digits) and ADDTIME/SUBTIME/TIMEDIFF (INTERVAL arithmetic, a
TIME as MySQL types them; the macros of engine/sql/mysql_datetime.py read text and timestamps).

The column is a DuckDB INTERVAL (engine/sql/time_columns.py). DuckDB casts a string to an
INTERVAL by its own reading, which agrees with MySQL's for '[-]H:MM[:SS[.f]]' but not for
'HHMMSS' ('123000' is 123000 seconds to DuckDB, 12:30:00 to MySQL) nor 'D HH:MM:SS', and it
refuses a number or a DuckDB TIME (Binder Error). So each literal compared (=, <>, <, <=, >, >=,
<=>, BETWEEN, IN) with an operand DuckDB types INTERVAL is read here as MySQL reads it, and a
TIME operand becomes the INTERVAL since midnight.

The operand types are asked of DuckDB as for exact AVG (engine/sql/exact_avg.py: one DESCRIBE of
``SELECT <the operands> FROM <the same FROM>``), only for statements reading an internal table
that has a declared TIME column (its traits, engine/sql/table_traits.py, are kept).

The column in numeric context (arithmetic, SUM, AVG), string context (CAST AS CHAR, CONCAT),
date context (DATE_FORMAT) and ``+ INTERVAL`` is converted as MySQL converts it first
(engine/sql/time_contexts.py). TIME_TO_SEC of a TIME(n) column drops the fraction (README,
"Internal tables").
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from sqlglot import exp

from drydock.engine.session import INTERNAL
from drydock.engine.sql import time_columns, time_contexts
from drydock.engine.sql.exact_avg import Probe, probe_select
from drydock.engine.sql.table_traits import Traits
from drydock.engine.sql.time_contexts import duckdb_sql

TraitsOf = Callable[[exp.Table], Traits]
_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ)
_UNREAD = object()


def _has_time_column(expression: exp.Expr, traits_of: TraitsOf) -> bool:
    for table in expression.find_all(exp.Table):
        if table.text("catalog").lower() != INTERNAL:
            continue
        definition = traits_of(table).definition
        if definition is not None and any(c.data_type == "time" for c in definition.columns):
            return True
    return False


def _literal(node: exp.Expr) -> Any:
    """The Python value of a literal operand (string, number, negative number), else _UNREAD."""
    if isinstance(node, exp.Paren):
        return _literal(node.this)
    if isinstance(node, exp.Literal):
        return node.this if node.is_string else Decimal(node.this)
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal) and not node.this.is_string:
        return -Decimal(node.this.this)
    return _UNREAD


def _groups(expression: exp.Expr) -> list[list[exp.Expr]]:
    """The operands compared together by each comparison that holds a non-literal."""
    groups = []
    for node in expression.find_all(*_COMPARISONS, exp.Between, exp.In):
        if isinstance(node, exp.Between):
            operands = [node.this, node.args["low"], node.args["high"]]
        elif isinstance(node, exp.In):
            if node.args.get("query") is not None or node.args.get("unnest") is not None:
                continue
            operands = [node.this, *node.expressions]
        else:
            operands = [node.this, node.expression]
        if any(o is not None and _literal(o) is _UNREAD for o in operands):
            groups.append([o for o in operands if o is not None])
    return groups


def _functions(expression: exp.Expr) -> list[tuple[exp.Expr, list[exp.Expr]]]:
    """(call, its operands) of the calls that read a TIME otherwise than DuckDB reads an
    INTERVAL: HOUR/MINUTE/SECOND, CAST(… AS TIME), ADDTIME/SUBTIME/TIMEDIFF (their macros)."""
    found: list[tuple[exp.Expr, list[exp.Expr]]] = []
    for node in expression.find_all(exp.Hour, exp.Minute, exp.Second, exp.Cast, exp.Anonymous):
        if isinstance(node, exp.Cast):
            if node.to.is_type(exp.DataType.Type.TIME) and _literal(node.this) is _UNREAD:
                found.append((node, [node.this]))
        elif isinstance(node, exp.Anonymous):
            if node.name.lower() in _TIME_MACROS and isinstance(node.parent, exp.Dot):
                found.append((node, list(node.expressions[:2])))
        else:
            found.append((node, [node.this]))
    return found


def rewrite(
    expression: exp.Expr,
    traits_of: TraitsOf,
    probe: Probe,
    sql_modes: frozenset[str] | set[str] = frozenset(),
) -> None:
    """The comparisons and calls of the module docstring made MySQL's, in place (``sql_modes``:
    the session's, which decide whether an overflow warns or fails)."""
    if not _has_time_column(expression, traits_of):
        return
    time_contexts.rewrite(expression, traits_of, sql_modes)  # before the probes
    groups = _groups(expression)
    calls = _functions(expression)
    # per SELECT, aggregates probed grouped and other operands not (a WHERE operand need not be
    # a GROUP BY key)
    by_select: dict[tuple[int, bool], tuple[exp.Select, list[exp.Expr]]] = {}
    target = _target(expression)
    for operand in [o for g in groups for o in g] + [o for _c, os in calls for o in os]:
        select = operand.find_ancestor(exp.Select) or target
        if _literal(operand) is _UNREAD and select is not None:
            grouped = operand.find(exp.AggFunc) is not None
            by_select.setdefault((id(select), grouped), (select, []))[1].append(operand)
    types: dict[int, str] = {}
    for (_id, grouped), (select, operands) in reversed(list(by_select.items())):
        found = probe(probe_select(select, operands, "__drydock_time", grouped=grouped))
        if found is not None and len(found) == len(operands):
            types.update((id(o), t.upper()) for o, t in zip(operands, found))
    for call, operands in calls:  # before the comparisons replace operands
        if any(types.get(id(o)) == "INTERVAL" for o in operands):
            _call(call, operands)
    for group in groups:
        if not any(types.get(id(o)) == "INTERVAL" for o in group):
            continue
        for operand in group:
            _as_time(operand, types.get(id(operand)))


_TIME_MACROS = ("mysql_addtime", "mysql_timediff")
_SECS = "mysql_is.main.mysql_time_secs"
_US = f"to_microseconds(CAST(round({_SECS}({{}}) * 1000000) AS BIGINT))"


def _call(call: exp.Expr, operands: list[exp.Expr]) -> None:
    """A call reading a TIME (an INTERVAL) as MySQL does: HOUR/MINUTE/SECOND of its magnitude,
    CAST AS TIME(n) rounded to n digits, ADDTIME/SUBTIME/TIMEDIFF as INTERVAL arithmetic (a
    TIME, as MySQL types them)."""
    if isinstance(call, (exp.Hour, exp.Minute, exp.Second)):
        value = operands[0]
        call.set(
            "this", duckdb_sql("CASE WHEN {0} < INTERVAL 0 SECOND THEN -{0} ELSE {0} END", value)
        )
    elif isinstance(call, exp.Cast):
        fsp = call.to.expressions[0].name if call.to.expressions else "0"
        step = 10 ** (6 - int(fsp)) if fsp.isdigit() and int(fsp) <= 6 else 1_000_000
        call.replace(duckdb_sql(f"{time_columns.TIME_STORE_MACRO}({{0}}, {step})", operands[0]))
    elif call.name.lower() == "mysql_addtime":
        sign = call.expressions[2].sql(dialect="duckdb")
        us = f"to_microseconds(CAST(round({sign} * {_SECS}({{1}}) * 1000000) AS BIGINT))"
        _replace_macro(call, duckdb_sql(f"({{0}} + {us})", *operands))
    else:  # mysql_timediff
        us = f"CAST(round(({_SECS}({{0}}) - {_SECS}({{1}})) * 1000000) AS BIGINT)"
        _replace_macro(call, duckdb_sql(f"to_microseconds({us})", *operands))


def _replace_macro(call: exp.Expr, by: exp.Expr) -> None:
    """Replace ``mysql_is.main.<call>`` (the call under its schema's Dot)."""
    if call.parent is not None:
        call.parent.replace(by)


def _target(expression: exp.Expr) -> exp.Select | None:
    """For the WHERE of an UPDATE or DELETE of one table: a SELECT from that table, which types
    its operands."""
    if isinstance(expression, (exp.Update, exp.Delete)) and isinstance(expression.this, exp.Table):
        return exp.Select(from_=exp.From(this=expression.this.copy()))
    return None


def _as_time(operand: exp.Expr, duck_type: str | None) -> None:
    """An operand compared with a TIME column, as MySQL converts it to TIME."""
    if duck_type == "TIME":
        since_midnight = exp.Anonymous(this="epoch_us", expressions=[operand.copy()])
        operand.replace(exp.Anonymous(this="to_microseconds", expressions=[since_midnight]))
        return
    value = _literal(operand)
    if value is _UNREAD:
        return
    parsed = time_columns.parse(value, 6)
    if parsed is None or parsed.microseconds is None:
        return  # not a time: DuckDB's conversion error says so
    # not clipped: '900:00:00' is above every TIME (MariaDB 10.11 compares so)
    text = time_columns.text(parsed.microseconds)
    operand.replace(exp.cast(exp.Literal.string(text), "INTERVAL"))
