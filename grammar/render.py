"""Statement objects → canonical drydock SQL: the inverse of grammar/parser.py (and grammar/sql.py).

``render(statement)`` prints text that parses back to an equal statement (tests/
test_grammar_roundtrip.py holds every statement family to that). Canonical means: keywords upper
case, every identifier back-quoted, every string single-quoted with quotes doubled and backslashes
escaped, optional clauses printed only when they carry a value. It is for tests, tools and logs of
statement *shapes*; it never prints a password or a secret property in clear unless asked
(``secrets=True``): otherwise a rendered CREATE USER reads ``IDENTIFIED BY '***'``, which parses,
but to another statement.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from drydock.engine import ast
from drydock.engine.security.redact import SECRET_KEY
from drydock.grammar.sql import DIALECT

MASK = "***"
_NUMBER = re.compile(r"[-+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?")


def ident(name: str) -> str:
    """A back-quoted identifier (any name, keywords included; ````` doubled)."""
    return "`" + name.replace("`", "``") + "`"


def qualified(parts: Iterable[str]) -> str:
    return ".".join(ident(p) for p in parts)


def string(value: str) -> str:
    """A single-quoted literal that grammar/lexer.py ``unquote`` maps back to ``value``."""
    return "'" + value.replace("\\", "\\\\").replace("'", "''") + "'"


def _like(pattern: str | None) -> str:
    return "" if pattern is None else f" LIKE {string(pattern)}"


def _user(user: ast.UserSpec) -> str:
    return f"{string(user.name)}@{string(user.host)}"


def _if(flag: bool, text: str) -> str:
    return f" {text}" if flag else ""


class _Renderer:
    """One method per statement class, named after it; ``secrets`` decides how passwords print."""

    def __init__(self, secrets: bool):
        self.secrets = secrets

    def password(self, value: str) -> str:
        return string(value if self.secrets else MASK)

    def properties(self, pairs: Iterable[tuple[str, str]]) -> str:
        """``("k" = "v", …)``; a value under a secret key (engine/security/redact.py) masked unless
        ``secrets``."""
        return (
            "("
            + ", ".join(
                f"{string(k)} = {self.password(v) if SECRET_KEY.search(k) else string(v)}"
                for k, v in pairs
            )
            + ")"
        )

    # -- admin, diagnostics, session ---------------------------------------------------------------
    def AdminSetFrontendConfig(self, s: ast.AdminSetFrontendConfig) -> str:
        return f"ADMIN SET FRONTEND CONFIG {self.properties(s.pairs)}"

    def AdminShowFrontendConfig(self, s: ast.AdminShowFrontendConfig) -> str:
        return "ADMIN SHOW FRONTEND CONFIG" + _like(s.like)

    def ShowDiagnostics(self, s: ast.ShowDiagnostics) -> str:
        kind = "ERRORS" if s.errors_only else "WARNINGS"
        if s.count_only:
            return f"SHOW COUNT(*) {kind}"
        return f"SHOW {kind}" + ("" if s.limit is None else f" LIMIT {s.offset}, {s.limit}")

    def Kill(self, s: ast.Kill) -> str:
        return f"KILL {'QUERY' if s.query_only else 'CONNECTION'} {s.connection_id}"

    # -- users, roles, privileges
    # ----------------------------------------------------------------------
    def CreateUser(self, s: ast.CreateUser) -> str:
        return (
            f"CREATE USER{_if(s.if_not_exists, 'IF NOT EXISTS')} {_user(s.user)}"
            + (f" IDENTIFIED BY {self.password(s.password)}" if s.password else "")
            + ("" if s.default_role is None else f" DEFAULT ROLE {string(s.default_role)}")
        )

    def DropUser(self, s: ast.DropUser) -> str:
        return f"DROP USER{_if(s.if_exists, 'IF EXISTS')} {_user(s.user)}"

    def AlterUser(self, s: ast.AlterUser) -> str:
        return (
            f"ALTER USER{_if(s.if_exists, 'IF EXISTS')} {_user(s.user)} "
            f"IDENTIFIED BY {self.password(s.password)}"
        )

    def SetPassword(self, s: ast.SetPassword) -> str:
        target = "" if s.user is None else f" FOR {_user(s.user)}"
        return f"SET PASSWORD{target} = {self.password(s.password)}"

    @staticmethod
    def _privileges(verb: str, s: ast.GrantPrivileges | ast.RevokePrivileges, to: str) -> str:
        # the parser keeps privileges upper-cased as words ("SHOW VIEW", "ALL PRIVILEGES", and
        # "GRANT" for GRANT OPTION); printed as they are, each parses to itself
        privileges = ", ".join("GRANT OPTION" if p == "GRANT" else p for p in s.privileges)
        target = ".".join("*" if p is None else ident(p) for p in s.target.parts)
        if s.user is None and s.role is not None:
            grantee = f"ROLE {string(s.role)}"
        else:
            grantee = _user(s.user)  # type: ignore[arg-type]
        return f"{verb} {privileges} ON {target} {to} {grantee}"

    def GrantPrivileges(self, s: ast.GrantPrivileges) -> str:
        return self._privileges("GRANT", s, "TO")

    def RevokePrivileges(self, s: ast.RevokePrivileges) -> str:
        return self._privileges("REVOKE", s, "FROM")

    def GrantRole(self, s: ast.GrantRole) -> str:
        return f"GRANT {', '.join(string(r) for r in s.roles)} TO {_user(s.user)}"

    def RevokeRole(self, s: ast.RevokeRole) -> str:
        return f"REVOKE {', '.join(string(r) for r in s.roles)} FROM {_user(s.user)}"

    def CreateRole(self, s: ast.CreateRole) -> str:
        return f"CREATE ROLE{_if(s.if_not_exists, 'IF NOT EXISTS')} {string(s.name)}"

    def DropRole(self, s: ast.DropRole) -> str:
        return f"DROP ROLE{_if(s.if_exists, 'IF EXISTS')} {string(s.name)}"

    def ShowGrants(self, s: ast.ShowGrants) -> str:
        if s.all_users:
            return "SHOW ALL GRANTS"
        return "SHOW GRANTS" + ("" if s.user is None else f" FOR {_user(s.user)}")

    def ShowRoles(self, s: ast.ShowRoles) -> str:
        return "SHOW ROLES"

    def ShowAudit(self, s: ast.ShowAudit) -> str:
        return f"SHOW AUDIT LIMIT {s.limit}"

    def ShowCreateTable(self, s: ast.ShowCreateTable) -> str:
        return f"SHOW CREATE TABLE {qualified(s.parts)}"

    # -- catalogs and metadata
    # -------------------------------------------------------------------------
    def CreateCatalog(self, s: ast.CreateCatalog) -> str:
        comment = f" COMMENT {string(s.comment)}" if s.comment else ""
        return (
            f"CREATE CATALOG{_if(s.if_not_exists, 'IF NOT EXISTS')} {ident(s.name)}{comment} "
            f"PROPERTIES {self.properties(s.properties)}"
        )

    def DropCatalog(self, s: ast.DropCatalog) -> str:
        return f"DROP CATALOG{_if(s.if_exists, 'IF EXISTS')} {ident(s.name)}"

    def AlterCatalogRename(self, s: ast.AlterCatalogRename) -> str:
        return f"ALTER CATALOG {ident(s.name)} RENAME {ident(s.new_name)}"

    def AlterCatalogSetProperties(self, s: ast.AlterCatalogSetProperties) -> str:
        return f"ALTER CATALOG {ident(s.name)} SET PROPERTIES {self.properties(s.properties)}"

    def ShowCatalogs(self, s: ast.ShowCatalogs) -> str:
        return "SHOW CATALOGS" + _like(s.like)

    def ShowCreateCatalog(self, s: ast.ShowCreateCatalog) -> str:
        return f"SHOW CREATE CATALOG {ident(s.name)}"

    def Switch(self, s: ast.Switch) -> str:
        return f"SWITCH {ident(s.catalog)}"

    def Use(self, s: ast.Use) -> str:
        return f"USE {qualified(s.parts)}"

    def Refresh(self, s: ast.Refresh) -> str:
        return f"REFRESH {s.kind} {qualified(s.parts)}"

    def ShowDatabases(self, s: ast.ShowDatabases) -> str:
        return (
            "SHOW DATABASES"
            + ("" if s.catalog is None else f" FROM {ident(s.catalog)}")
            + _like(s.like)
        )

    def ShowTables(self, s: ast.ShowTables) -> str:
        scope = f" FROM {qualified(s.parts)}" if s.parts else ""
        return f"SHOW{_if(s.full, 'FULL')} TABLES{scope}" + _like(s.like)

    def Describe(self, s: ast.Describe) -> str:
        pattern = "" if s.like is None else f" {string(s.like)}"
        return f"DESCRIBE {qualified(s.parts)}{pattern}"

    def ShowColumns(self, s: ast.ShowColumns) -> str:
        return f"SHOW{_if(s.full, 'FULL')} COLUMNS FROM {qualified(s.parts)}" + _like(s.like)

    def ShowIndex(self, s: ast.ShowIndex) -> str:
        return f"SHOW INDEX FROM {qualified(s.parts)}"

    # -- Lance index jobs
    # --------------------------------------------------------------------------------
    def CreateIndex(self, s: ast.CreateIndex) -> str:
        head = (
            "CREATE OR REPLACE INDEX"
            if s.or_replace
            else f"CREATE INDEX{_if(s.if_not_exists, 'IF NOT EXISTS')}"
        )
        columns = ", ".join(ident(c) for c in s.columns)
        using = f" USING {s.using}" if s.using else ""
        properties = f" PROPERTIES {self.properties(s.properties)}" if s.properties else ""
        return f"{head} {ident(s.name)} ON {qualified(s.table)} ({columns}){using}{properties}"

    def DropIndex(self, s: ast.DropIndex) -> str:
        return f"DROP INDEX{_if(s.if_exists, 'IF EXISTS')} {ident(s.name)} ON {qualified(s.table)}"

    @staticmethod
    def _where(where: ast.WhereClause) -> str:
        def operand(value: str, literal: bool, quoted: bool) -> str:
            if _NUMBER.fullmatch(value) and not quoted:
                return value  # a number (the statement keeps it as text, like a name)
            return string(value) if quoted or literal else ident(value)

        parts = []
        for i, p in enumerate(where.predicates):
            if i:
                parts.append(where.connectives[i - 1])
            # a non-column left side was a literal: a string prints the same value back
            left = operand(p.left, not p.left_is_column, False)
            parts.append(f"{left} {p.op} {operand(p.right, False, p.right_is_string)}")
        return " WHERE " + " ".join(parts)

    def ShowLanceIndexJobs(self, s: ast.ShowLanceIndexJobs) -> str:
        scope = f" FROM {qualified(s.scope)}" if s.scope else ""
        return "SHOW LANCE INDEX JOBS" + scope + ("" if s.where is None else self._where(s.where))

    def ShowLanceIndexJob(self, s: ast.ShowLanceIndexJob) -> str:
        return f"SHOW LANCE INDEX JOB {s.job_id}"

    def ResolveLanceIndexJob(self, s: ast.ResolveLanceIndexJob) -> str:
        return f"RESOLVE LANCE INDEX JOB {s.job_id} AS FORCE_RELEASE COMMENT {string(s.note)}"

    def CancelLanceIndexJob(self, s: ast.CancelLanceIndexJob) -> str:
        return f"CANCEL LANCE INDEX JOB {s.job_id}"

    def ShowBackends(self, s: ast.ShowBackends) -> str:
        return "SHOW BACKENDS"

    def ShowFrontends(self, s: ast.ShowFrontends) -> str:
        return "SHOW FRONTENDS"

    # -- SQL-level prepared statements
    # ---------------------------------------------------------------------
    def Prepare(self, s: ast.Prepare) -> str:
        source = string(s.text) if s.text is not None else "@" + ident(s.from_variable or "")
        return f"PREPARE {ident(s.name)} FROM {source}"

    def ExecutePrepared(self, s: ast.ExecutePrepared) -> str:
        using = " USING " + ", ".join("@" + ident(v) for v in s.using) if s.using else ""
        return f"EXECUTE {ident(s.name)}{using}"

    def DeallocatePrepare(self, s: ast.DeallocatePrepare) -> str:
        return f"DEALLOCATE PREPARE {ident(s.name)}"

    # -- procedures
    # ----------------------------------------------------------------------------------------
    @staticmethod
    def _argument(a: ast.CallArgument) -> str:
        if a.kind == "NULL" or a.value is None:
            value = "NULL"
        elif a.kind == "STRING":
            value = string(a.value)
        elif a.kind == "BOOLEAN":
            value = a.value.upper()
        else:  # NUMBER: the digits as written (INT, SIGNED_INT or DECIMAL)
            value = a.value
        return value if a.name is None else f"{ident(a.name)} => {value}"

    def CallProcedure(self, s: ast.CallProcedure) -> str:
        return f"CALL {qualified(s.parts)}({', '.join(self._argument(a) for a in s.arguments)})"

    def ShowProcedures(self, s: ast.ShowProcedures) -> str:
        return "SHOW PROCEDURES" + ("" if s.catalog is None else f" FROM {ident(s.catalog)}")

    def ShowProcedure(self, s: ast.ShowProcedure) -> str:
        return f"SHOW PROCEDURE {qualified(s.parts)}"

    # -- server information
    # --------------------------------------------------------------------------------
    def ShowEngines(self, s: ast.ShowEngines) -> str:
        return "SHOW ENGINES"

    def ShowCharset(self, s: ast.ShowCharset) -> str:
        return "SHOW CHARACTER SET" + _like(s.like)

    def ShowCollation(self, s: ast.ShowCollation) -> str:
        return "SHOW COLLATION" + _like(s.like)

    def ShowPlugins(self, s: ast.ShowPlugins) -> str:
        return "SHOW PLUGINS"

    def ShowProcesslist(self, s: ast.ShowProcesslist) -> str:
        return f"SHOW{_if(s.full, 'FULL')} PROCESSLIST"

    def ShowTableStatus(self, s: ast.ShowTableStatus) -> str:
        scope = "" if s.parts is None else f" FROM {qualified(s.parts)}"
        return "SHOW TABLE STATUS" + scope + _like(s.like)

    def ShowRoutineStatus(self, s: ast.ShowRoutineStatus) -> str:
        return f"SHOW {'FUNCTION' if s.function else 'PROCEDURE'} STATUS" + _like(s.like)

    # -- what dump tools send
    # ---------------------------------------------------------------------------------------------
    def ShowCreateDatabase(self, s: ast.ShowCreateDatabase) -> str:
        return f"SHOW CREATE DATABASE{_if(s.if_not_exists, 'IF NOT EXISTS')} {ident(s.name)}"

    def ShowTriggers(self, s: ast.ShowTriggers) -> str:
        scope = "" if s.db is None else f" FROM {ident(s.db)}"
        return "SHOW TRIGGERS" + scope + _like(s.like)

    def LockTables(self, s: ast.LockTables) -> str:
        # the lock kinds are accepted and not kept (engine/statements/dump_statements.py)
        return "LOCK TABLES " + ", ".join(f"{qualified(t)} READ" for t in s.tables)

    def UnlockTables(self, s: ast.UnlockTables) -> str:
        return "UNLOCK TABLES"

    def Flush(self, s: ast.Flush) -> str:
        return f"FLUSH {s.what}"

    # -- plain SQL
    # -----------------------------------------------------------------------------------------
    def SqlStatement(self, s: ast.SqlStatement) -> str:
        return str(s.expression.sql(dialect=DIALECT))


def render(statement: ast.Statement, secrets: bool = False) -> str:
    """Canonical drydock SQL for ``statement``; passwords masked unless ``secrets``."""
    method: Callable[[Any], str] | None = getattr(
        _Renderer(secrets), type(statement).__name__, None
    )
    if method is None:
        raise TypeError(f"no rendering for {type(statement).__name__}")
    return method(statement)
