"""Table of contents: each statement object and the function that executes it.

One module per statement family; every handler has the same shape —
authorize → validate → execute → Result (rows + warnings).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine import ast
from engine.statements import (admin_config, audit, backends, catalogs, procedures, diagnostics, index_jobs, internal_catalog,
                               metadata, server_info, session_control, sql, users)

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
