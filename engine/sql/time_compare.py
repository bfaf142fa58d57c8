"""Comparisons with a TIME column of an internal table, as MySQL compares them (MySQL 8.0 manual
14.3 "Type Conversion in Expression Evaluation": the other operand is converted to TIME).

The column is a DuckDB INTERVAL (engine/sql/time_columns.py). DuckDB casts a string to an
INTERVAL by its own reading, which agrees with MySQL's for '[-]H:MM[:SS[.f]]' but not for
'HHMMSS' ('123000' is 123000 seconds to DuckDB, 12:30:00 to MySQL) nor 'D HH:MM:SS', and it
refuses a number or a DuckDB TIME (Binder Error). So each literal compared (=, <>, <, <=, >, >=,
<=>, BETWEEN, IN) with an operand DuckDB types INTERVAL is read here as MySQL reads it, and a
TIME operand becomes the INTERVAL since midnight.

The operand types are asked of DuckDB as for exact AVG (engine/sql/exact_avg.py: one DESCRIBE of
``SELECT <the operands> FROM <the same FROM>``), only for statements reading an internal table
that has a declared TIME column (its traits, engine/sql/table_traits.py, are kept).
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from sqlglot import exp

from drydock.engine.session import INTERNAL
from drydock.engine.sql import time_columns
from drydock.engine.sql.exact_avg import Probe, probe_select
from drydock.engine.sql.table_traits import Traits

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


def rewrite(expression: exp.Expr, traits_of: TraitsOf, probe: Probe) -> None:
    """The comparisons of the module docstring made MySQL's, in place."""
    if not _has_time_column(expression, traits_of):
        return
    groups = _groups(expression)
    # per SELECT, aggregates probed grouped and other operands not (a WHERE operand need not be
    # a GROUP BY key)
    by_select: dict[tuple[int, bool], tuple[exp.Select, list[exp.Expr]]] = {}
    target = _target(expression)
    for group in groups:
        for operand in group:
            select = operand.find_ancestor(exp.Select) or target
            if _literal(operand) is _UNREAD and select is not None:
                grouped = operand.find(exp.AggFunc) is not None
                by_select.setdefault((id(select), grouped), (select, []))[1].append(operand)
    types: dict[int, str] = {}
    for (_id, grouped), (select, operands) in reversed(list(by_select.items())):
        found = probe(probe_select(select, operands, "__drydock_time", grouped=grouped))
        if found is not None and len(found) == len(operands):
            types.update((id(o), t.upper()) for o, t in zip(operands, found))
    for group in groups:
        if not any(types.get(id(o)) == "INTERVAL" for o in group):
            continue
        for operand in group:
            _as_time(operand, types.get(id(operand)))


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
