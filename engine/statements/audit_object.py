"""What a statement is called and what it acts on, for its audit record and metrics."""

from __future__ import annotations

from sqlglot import exp

from drydock.engine import ast
from drydock.engine.session import SessionContext
from drydock.engine.statements.registry import HANDLERS
from drydock.grammar.sql import ReleaseSavepoint, Savepoint

# Plain-SQL statements that only read or set session state: not audited unless denied.
_QUIET_SQL = (
    exp.Select,
    exp.Union,
    exp.Intersect,
    exp.Except,
    exp.Values,
    exp.Subquery,
    exp.Set,
    exp.Show,
    exp.Describe,
    exp.Transaction,
    exp.Commit,
    exp.Rollback,
    Savepoint,
    ReleaseSavepoint,
)


def statement_kind(statement: ast.Statement) -> str:
    if isinstance(statement, ast.SqlStatement):
        return type(statement.expression).__name__
    return type(statement).__name__


def is_audited(statement: ast.Statement) -> bool:
    if isinstance(statement, ast.SqlStatement):
        return not isinstance(statement.expression, _QUIET_SQL)
    return statement.audited


def audit_object(statement: ast.Statement, ctx: SessionContext) -> str:
    """What a statement acts on: its class's registered audit target
    (engine/statements/registry.py), or nothing."""
    registration = HANDLERS.get(type(statement))
    target = registration.audit_target if registration is not None else None
    if target is None:
        return ""
    try:
        return target(statement, ctx)
    except Exception:  # noqa: BLE001 - the audit must never fail a statement
        return ""
