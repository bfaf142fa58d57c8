"""Statements: each statement object, the function that executes it, and :func:`execute`.

One module per statement family; every handler has the same shape —
authorize → validate → execute → Result (rows + warnings). :func:`execute` is the one way any
statement runs: its handler, wrapped once in the audit and the statement-duration metric.

May import: `drydock.engine`, `drydock.engine.core`, `drydock.engine.support`, `drydock.engine.store`,
`drydock.engine.security`, `drydock.grammar`, `drydock.engine.lakehouse`, `drydock.engine.sql`,
`drydock.engine.jobs`, `drydock.engine.jobs.control`, `drydock.engine.jobs.runtime`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from drydock.engine import ast
from drydock.engine.errors import DrydockError
from drydock.engine.results import Result
from drydock.engine.security.audit import DENIAL_CODES
from drydock.engine.session import SessionContext
from drydock.engine.sql import statement_info
from drydock.engine.statements.audit_object import audit_object, is_audited, statement_kind
from drydock.engine.statements import (
    admin_config, audit, backends, catalogs, procedures, diagnostics, index_jobs, internal_catalog,
    metadata, server_info, session_control, sql, users)

if TYPE_CHECKING:
    from drydock.engine.core import Engine

Handler = Callable[[Any, Any, Any], Any]

HANDLERS: dict[type[ast.Statement], Handler] = {
    # admin
    ast.AdminSetFrontendConfig: admin_config.admin_set_frontend_config,
    ast.AdminShowFrontendConfig: admin_config.admin_show_frontend_config,
    # session and diagnostics
    ast.ShowDiagnostics: diagnostics.show_diagnostics,
    ast.Kill: session_control.kill,
    # users, roles, privileges
    ast.CreateUser: users.create_user,
    ast.DropUser: users.drop_user,
    ast.AlterUser: users.alter_user,
    ast.SetPassword: users.set_password,
    ast.GrantPrivileges: users.grant_privileges,
    ast.RevokePrivileges: users.revoke_privileges,
    ast.GrantRole: users.grant_role,
    ast.RevokeRole: users.revoke_role,
    ast.CreateRole: users.create_role,
    ast.DropRole: users.drop_role,
    ast.ShowGrants: users.show_grants,
    ast.ShowRoles: users.show_roles,
    # audit, internal catalog
    ast.ShowAudit: audit.show_audit,
    ast.ShowCreateTable: internal_catalog.show_create_table,
    # catalogs and metadata
    ast.CreateCatalog: catalogs.create_catalog,
    ast.DropCatalog: catalogs.drop_catalog,
    ast.AlterCatalogRename: catalogs.alter_catalog_rename,
    ast.AlterCatalogSetProperties: catalogs.alter_catalog_set_properties,
    ast.ShowCatalogs: catalogs.show_catalogs,
    ast.ShowCreateCatalog: catalogs.show_create_catalog,
    ast.Switch: catalogs.switch,
    ast.Use: catalogs.use,
    ast.Refresh: catalogs.refresh,
    ast.ShowDatabases: metadata.show_databases,
    ast.ShowTables: metadata.show_tables,
    ast.Describe: metadata.describe,
    ast.ShowColumns: metadata.show_columns,
    ast.ShowIndex: metadata.show_index,
    # Lance index jobs
    ast.CreateIndex: index_jobs.create_index,
    ast.DropIndex: index_jobs.drop_index,
    ast.ShowLanceIndexJobs: index_jobs.show_lance_index_jobs,
    ast.ShowLanceIndexJob: index_jobs.show_lance_index_job,
    ast.ResolveLanceIndexJob: index_jobs.resolve_lance_index_job,
    ast.CancelLanceIndexJob: index_jobs.cancel_lance_index_job,
    ast.ShowBackends: backends.show_backends,
    ast.ShowFrontends: backends.show_frontends,
    # procedures
    ast.CallProcedure: procedures.call_procedure,
    ast.ShowProcedures: procedures.show_procedures,
    ast.ShowProcedure: procedures.show_procedure,
    # server information for GUI clients
    ast.ShowEngines: server_info.show_engines,
    ast.ShowCharset: server_info.show_charset,
    ast.ShowCollation: server_info.show_collation,
    ast.ShowPlugins: server_info.show_plugins,
    ast.ShowProcesslist: server_info.show_processlist,
    ast.ShowTableStatus: server_info.show_table_status,
    ast.ShowRoutineStatus: server_info.show_routine_status,
    # plain SQL: queries, DML and DDL on DuckDB; SET, SHOW VARIABLES, DESCRIBE, transactions
    ast.SqlStatement: sql.run_sql,
}

# How each statement runs (inline / worker pool / audited) is declared on its class (engine/ast.py).
_ALL = tuple(HANDLERS)
INLINE = tuple(c for c in _ALL if c.inline)
AUDITED = tuple(c for c in _ALL if c.audited)


def execute(engine: Engine, statement: ast.Statement, ctx: SessionContext, text: str = "") -> Result:
    """Run one statement: its handler (authorize → validate → execute), wrapped once in the audit
    (changing and denied statements; ``text`` is what the client sent, masked by the audit log)
    and the statement-duration metric."""
    handler = HANDLERS[type(statement)]
    started = time.monotonic()
    engine.questions += 1
    kind = statement_kind(statement)
    try:
        result = handler(engine, statement, ctx)
    except DrydockError as exc:
        _audit(engine, statement, ctx, kind, started, exc.code, text)
        raise
    finally:
        engine.metrics.statement_seconds.labels(kind).observe(time.monotonic() - started)
    _audit(engine, statement, ctx, kind, started, 0, text)
    statement_info.record(ctx, result)
    return result


def _audit(engine: Engine, statement: ast.Statement, ctx: SessionContext, kind: str, started: float,
           error_code: int, text: str) -> None:
    denied = error_code in DENIAL_CODES
    if not denied and not is_audited(statement):
        return
    engine.audit.record(user=ctx.user, host=ctx.host, connection_id=ctx.connection_id,
                        kind=kind if is_audited(statement) or not denied else "Denied",
                        obj=audit_object(statement, ctx), error_code=error_code, started=started,
                        statement=text or getattr(statement, "text", ""))
