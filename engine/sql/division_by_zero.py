"""Division by zero as MySQL answers it (MySQL 8.0 manual 7.1.11 ERROR_FOR_DIVISION_BY_ZERO,
14.6.1): ``x / 0``, ``x DIV 0`` and ``x MOD 0`` are NULL; with ERROR_FOR_DIVISION_BY_ZERO in
sql_mode each row that divides a non-NULL value by zero adds warning 1365 "Division by 0", and
an INSERT (not INSERT IGNORE) or UPDATE in strict mode fails with error 1365 instead. DuckDB
answers NULL (``/`` and ``%`` through sqlglot's NULLIF) or raises its own error (``//``) and
never warns.

Each divisor that is not a non-zero number literal becomes
``CASE WHEN d = 0 [AND x IS NOT NULL AND <warning>] THEN NULL ELSE d END``
(engine/sql/runtime_warnings.py), or ``CASE WHEN d = 0 THEN error(<1365>) ELSE d END`` where the
statement must fail.

On a table the data dictionary declares, strict checks evaluate an INSERT's or UPDATE's new
values before DuckDB writes them (engine/sql/enforcement.py); they run muted
(engine/sql/runtime_warnings.py), so each row's warning is raised once, by the statement.
"""

from __future__ import annotations

import enum
import json

from sqlglot import exp

from drydock.engine.errors import Errors
from drydock.engine.sql.mysql_json_doc import ERROR_PREFIX
from drydock.engine.sql.runtime_warnings import Collector

_DIVISIONS = (exp.Div, exp.IntDiv, exp.Mod)
# a table's own expressions (DEFAULT, CHECK, generated columns) are stored, not run now
_STORED = (exp.Schema, exp.ColumnDef, exp.ColumnConstraint, exp.Alter)


def _non_zero_literal(node: exp.Expr) -> bool:
    if isinstance(node, exp.Paren):
        return _non_zero_literal(node.this)
    if isinstance(node, exp.Neg):
        return _non_zero_literal(node.this)
    if isinstance(node, exp.Literal) and not node.is_string:
        try:
            return float(node.name) != 0
        except ValueError:
            return False
    return False


class Outcome(enum.Enum):
    """What dividing by zero does in a statement, by sql_mode."""

    NULL = "null"  # NULL, nothing said
    WARN = "warn"  # NULL and warning 1365
    FAIL = "fail"  # error 1365


def outcome(statement: exp.Expr, sql_modes: set[str]) -> Outcome:
    if "ERROR_FOR_DIVISION_BY_ZERO" not in sql_modes:
        return Outcome.NULL
    strict = bool({"STRICT_TRANS_TABLES", "STRICT_ALL_TABLES"} & sql_modes)
    changes = isinstance(statement, exp.Update) or (
        isinstance(statement, exp.Insert) and not statement.args.get("ignore")
    )
    return Outcome.FAIL if strict and changes else Outcome.WARN


def guard(expression: exp.Expr, warnings: Collector, outcome: Outcome) -> None:
    """Every division in ``expression`` as MySQL's (module docstring), in place."""
    divisions = [n for n in expression.walk(bfs=False) if isinstance(n, _DIVISIONS)]
    for node in reversed(divisions):  # innermost first: a guarded divisor is copied whole
        divisor = node.expression
        if divisor is None or _non_zero_literal(divisor) or node.find_ancestor(*_STORED):
            continue
        zero = exp.EQ(this=divisor.copy(), expression=exp.Literal.number(0))
        if outcome is Outcome.FAIL:
            text = f"{ERROR_PREFIX}DIVISION_BY_ZERO {json.dumps({})}"
            refused = exp.Anonymous(this="error", expressions=[exp.Literal.string(text)])
            guarded = exp.Case(ifs=[exp.If(this=zero, true=refused)], default=divisor.copy())
        elif outcome is Outcome.WARN:
            dividend = exp.Not(this=exp.Is(this=node.this.copy(), expression=exp.null()))
            warned = warnings.warn_if(
                exp.And(this=zero, expression=dividend),
                Errors.DIVISION_BY_ZERO,
                exp.Literal.string(Errors.DIVISION_BY_ZERO.text()),
            )
            guarded = exp.Case(ifs=[exp.If(this=warned, true=exp.null())], default=divisor.copy())
        else:
            guarded = exp.Case(ifs=[exp.If(this=zero, true=exp.null())], default=divisor.copy())
        divisor.replace(guarded)
        # sqlglot writes a "safe" division as x / NULLIF(d, 0), and DuckDB's NULLIF evaluates d
        # twice (the warning would be recorded twice); the guarded divisor is never 0
        node.set("safe", None)
