"""What a statement is called and what it acts on, for its audit record and metrics."""

from __future__ import annotations

from sqlglot import exp

from drydock.engine import ast
from drydock.engine.session import SessionContext

# Plain-SQL statements that only read or set session state: not audited unless denied.
_QUIET_SQL = (exp.Select, exp.Union, exp.Intersect, exp.Except, exp.Values, exp.Subquery, exp.Set,
              exp.Show, exp.Describe, exp.Transaction, exp.Commit, exp.Rollback)


def statement_kind(statement: ast.Statement) -> str:
    if isinstance(statement, ast.SqlStatement):
        return type(statement.expression).__name__
    return type(statement).__name__


def is_audited(statement: ast.Statement) -> bool:
    if isinstance(statement, ast.SqlStatement):
        return not isinstance(statement.expression, _QUIET_SQL)
    return statement.audited


def audit_object(statement: ast.Statement, ctx: SessionContext) -> str:
    """What a statement acts on: 'catalog.db.table', "'user'@'host'", a catalog, a job."""
    if isinstance(statement, ast.SqlStatement):
        from drydock.engine.statements.sql import audit_target

        try:
            return audit_target(statement.expression, ctx)
        except Exception:  # noqa: BLE001 - the audit must never fail a statement
            return ""
    parts: tuple[str, ...] = ()
    if isinstance(statement, (ast.CreateIndex, ast.DropIndex)):
        parts = statement.table
    elif isinstance(statement, ast.CallProcedure):
        table = next((a.value for a in statement.arguments if (a.name or "").lower() == "table"), None)
        if table is None and statement.arguments and statement.arguments[0].name is None:
            table = statement.arguments[0].value
        catalog = statement.parts[0] if len(statement.parts) == 3 else ctx.catalog
        return f"{catalog}.{table}" if table else catalog
    elif isinstance(statement, (ast.CreateUser, ast.DropUser, ast.AlterUser)):
        return f"'{statement.user.name}'@'{statement.user.host}'"
    elif isinstance(statement, (ast.CreateCatalog, ast.DropCatalog, ast.AlterCatalogRename,
                                ast.AlterCatalogSetProperties)):
        return statement.name
    elif isinstance(statement, (ast.ResolveLanceIndexJob, ast.CancelLanceIndexJob)):
        return f"job {statement.job_id}"
    elif isinstance(statement, ast.Use):
        return f"{ctx.catalog}.{'.'.join(statement.parts)}"
    if not parts:
        return ""
    if len(parts) == 3:
        return ".".join(parts)
    if len(parts) == 2:
        return f"{ctx.catalog}.{parts[0]}.{parts[1]}"
    return f"{ctx.catalog}.{ctx.database}.{parts[0]}"
