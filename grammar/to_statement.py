"""Parse tree → statement objects (engine/ast.py): the transformer of the grammar's rules.

Each method is named after a rule of drydock.lark and builds that rule's value from its children;
a statement rule's method returns the statement object. grammar/lark_parser.py applies it as the
LALR parser reduces (no tree built) and grammar/parser.py to a tree when that fails.
"""

from __future__ import annotations

import enum
from typing import Any

from lark import Token, Transformer

from drydock.engine import ast
from drydock.grammar.lexer import unquote


def user_variable_name(text: str) -> str:
    """``@name`` / ``@`name``` / ``@'name'`` / ``@"name"`` → name (as written; MySQL compares
    user variable names case-insensitively)."""
    body = text[1:]
    if body[:1] == "`":
        return body[1:-1].replace("``", "`")
    if body[:1] in ("'", '"'):
        return unquote(body)
    return body


class _Quoted(str):
    """A value that was written as a string literal (SHOW ... WHERE must tell them from names)."""


class _Clause(enum.Enum):
    """An optional clause the grammar matched (``if_exists``, ``if_not_exists``).

    Not a str: a statement's flags come from which rules the parse reduced, never from a value. As
    the strings "IF_EXISTS" / "IF_NOT_EXISTS" they equalled a catalog, role or index *named*
    IF_EXISTS: ``DROP CATALOG IF_EXISTS`` came out as DROP CATALOG IF EXISTS, a statement shape
    learnt from ``DROP CATALOG x`` (grammar/statement_shapes.py) did not, and ``CREATE INDEX
    IF_NOT_EXISTS ON t (a) USING ann`` lost its name. Members compare by identity.
    """

    IF_EXISTS = "IF EXISTS"
    IF_NOT_EXISTS = "IF NOT EXISTS"


def _has(items: list[Any], clause: _Clause) -> bool:
    return any(item is clause for item in items)


def _names(items: list[Any]) -> list[str]:
    """The names and strings among a rule's children: neither keyword tokens nor clauses."""
    return [i for i in items if isinstance(i, str) and not isinstance(i, Token)]


class ToStatement(Transformer[Token, Any]):
    # lexical
    def string(self, items: list[Token]) -> str:
        return _Quoted(unquote(str(items[0])))

    def literal(self, items: list[Any]) -> str:
        return (
            items[0]
            if isinstance(items[0], str) and not isinstance(items[0], Token)
            else str(items[0])
        )

    def identifier(self, items: list[Any]) -> str:
        text = str(items[0])
        return text[1:-1].replace("``", "`") if text.startswith("`") else text

    def non_reserved(self, items: list[Token]) -> Token:
        return items[0]

    def start(self, items: list[Any]) -> ast.Statement:
        return items[0]

    # admin
    def config_pair(self, items: list[Any]) -> tuple[str, str]:
        key, value = [i for i in items if not (isinstance(i, Token) and i.type == "EQ")]
        return (key, value)

    def admin_set_frontend_config(self, items: list[Any]) -> ast.AdminSetFrontendConfig:
        return ast.AdminSetFrontendConfig(tuple(i for i in items if isinstance(i, tuple)))

    def admin_show_frontend_config(self, items: list[Any]) -> ast.AdminShowFrontendConfig:
        like = items[-1] if len(items) == 6 else None
        return ast.AdminShowFrontendConfig(like=like)

    # diagnostics
    def limit_clause(self, items: list[Token]) -> tuple[int, int]:
        numbers = [int(t) for t in items if t.type == "INT"]
        return (0, numbers[0]) if len(numbers) == 1 else (numbers[0], numbers[1])

    def _diag(self, items: list[Any], errors_only: bool) -> ast.ShowDiagnostics:
        limit = next((i for i in items if isinstance(i, tuple)), None)
        if limit is None:
            return ast.ShowDiagnostics(errors_only=errors_only)
        return ast.ShowDiagnostics(errors_only=errors_only, offset=limit[0], limit=limit[1])

    def show_warnings(self, items: list[Any]) -> ast.ShowDiagnostics:
        return self._diag(items, errors_only=False)

    def show_errors(self, items: list[Any]) -> ast.ShowDiagnostics:
        return self._diag(items, errors_only=True)

    def show_count_warnings(self, items: list[Any]) -> ast.ShowDiagnostics:
        return ast.ShowDiagnostics(errors_only=False, count_only=True)

    def show_count_errors(self, items: list[Any]) -> ast.ShowDiagnostics:
        return ast.ShowDiagnostics(errors_only=True, count_only=True)

    # users and roles
    def name(self, items: list[Any]) -> str:
        return items[0] if not isinstance(items[0], Token) else str(items[0])

    def host(self, items: list[Any]) -> str:
        return str(items[0])

    def user_identity(self, items: list[Any]) -> ast.UserSpec:
        return ast.UserSpec(items[0], items[1] if len(items) > 1 else "%")

    def if_not_exists(self, items: list[Any]) -> _Clause:
        return _Clause.IF_NOT_EXISTS

    def if_exists(self, items: list[Any]) -> _Clause:
        return _Clause.IF_EXISTS

    def identified_by(self, items: list[Any]) -> tuple[str, str]:
        return ("PASSWORD", items[-1])

    def default_role(self, items: list[Any]) -> tuple[str, str]:
        return ("ROLE", items[-1])

    def password_value(self, items: list[Any]) -> tuple[str, str]:
        return ("PASSWORD", next(i for i in items if not isinstance(i, Token)))

    @staticmethod
    def _tagged(items: list[Any], tag: str) -> Any:
        return next((i[1] for i in items if isinstance(i, tuple) and i[0] == tag), None)

    def create_user(self, items: list[Any]) -> ast.CreateUser:
        user = next(i for i in items if isinstance(i, ast.UserSpec))
        return ast.CreateUser(
            user=user,
            password=self._tagged(items, "PASSWORD") or "",
            if_not_exists=_has(items, _Clause.IF_NOT_EXISTS),
            default_role=self._tagged(items, "ROLE"),
        )

    def drop_user(self, items: list[Any]) -> ast.DropUser:
        user = next(i for i in items if isinstance(i, ast.UserSpec))
        return ast.DropUser(user=user, if_exists=_has(items, _Clause.IF_EXISTS))

    def alter_user(self, items: list[Any]) -> ast.AlterUser:
        user = next(i for i in items if isinstance(i, ast.UserSpec))
        return ast.AlterUser(
            user=user,
            password=self._tagged(items, "PASSWORD"),
            if_exists=_has(items, _Clause.IF_EXISTS),
        )

    def set_password(self, items: list[Any]) -> ast.SetPassword:
        user = next((i for i in items if isinstance(i, ast.UserSpec)), None)
        return ast.SetPassword(user=user, password=self._tagged(items, "PASSWORD"))

    def create_role(self, items: list[Any]) -> ast.CreateRole:
        return ast.CreateRole(name=items[-1], if_not_exists=_has(items, _Clause.IF_NOT_EXISTS))

    def drop_role(self, items: list[Any]) -> ast.DropRole:
        return ast.DropRole(name=items[-1], if_exists=_has(items, _Clause.IF_EXISTS))

    def show_roles(self, items: list[Any]) -> ast.ShowRoles:
        return ast.ShowRoles()

    # privileges
    def privilege(self, items: list[Token]) -> str:
        words = [str(t).upper() for t in items]
        return "GRANT" if words == ["GRANT", "OPTION"] else " ".join(words)

    def privilege_list(self, items: list[str]) -> tuple[str, ...]:
        return tuple(items)

    def role_list(self, items: list[str]) -> tuple[str, ...]:
        return tuple(items)

    def target_part(self, items: list[Any]) -> str | None:
        return items[0] if items else None  # None: the bare wildcard; `*` backticked is a name

    def privilege_target(self, items: list[str]) -> ast.PrivilegeTarget:
        return ast.PrivilegeTarget(tuple(items))

    def grantee(self, items: list[Any]) -> tuple[str, Any]:
        return ("ROLE", items[-1]) if len(items) == 2 else ("USER", items[0])

    def _privileges(self, items: list[Any], cls: Any) -> Any:
        privileges, target, (kind, who) = items[1], items[3], items[5]
        if kind == "ROLE":
            return cls(privileges=privileges, target=target, role=who)
        return cls(privileges=privileges, target=target, user=who)

    def grant_privileges(self, items: list[Any]) -> ast.GrantPrivileges:
        return self._privileges(items, ast.GrantPrivileges)

    def revoke_privileges(self, items: list[Any]) -> ast.RevokePrivileges:
        return self._privileges(items, ast.RevokePrivileges)

    def grant_role(self, items: list[Any]) -> ast.GrantRole:
        return ast.GrantRole(roles=items[1], user=items[3])

    def revoke_role(self, items: list[Any]) -> ast.RevokeRole:
        return ast.RevokeRole(roles=items[1], user=items[3])

    def show_grants(self, items: list[Any]) -> ast.ShowGrants:
        user = next((i for i in items if isinstance(i, ast.UserSpec)), None)
        all_users = any(isinstance(i, Token) and i.type == "ALL" for i in items)
        return ast.ShowGrants(user=user, all_users=all_users)

    # audit, internal catalog
    def show_audit(self, items: list[Any]) -> ast.ShowAudit:
        numbers = [int(t) for t in items if isinstance(t, Token) and t.type == "INT"]
        return ast.ShowAudit(limit=numbers[0]) if numbers else ast.ShowAudit()

    def qualified_name(self, items: list[str]) -> tuple[str, ...]:
        return tuple(items)

    def show_create_table(self, items: list[Any]) -> ast.ShowCreateTable:
        return ast.ShowCreateTable(parts=items[-1])

    # catalogs and metadata
    @staticmethod
    def _like(items: list[Any]) -> str | None:
        for i, item in enumerate(items):
            if isinstance(item, Token) and item.type == "LIKE":
                return items[i + 1]
        return None

    @staticmethod
    def _keyword(items: list[Any], *types: str) -> bool:
        return any(isinstance(i, Token) and i.type in types for i in items)

    def property_list(self, items: list[Any]) -> tuple[tuple[str, str], ...]:
        return tuple(items)

    def create_catalog(self, items: list[Any]) -> ast.CreateCatalog:
        names = _names(items)
        comment = ""
        for i, item in enumerate(items):
            if isinstance(item, Token) and item.type == "COMMENT":
                comment = items[i + 1]
        return ast.CreateCatalog(
            name=names[0],
            properties=items[-1],
            comment=comment,
            if_not_exists=_has(items, _Clause.IF_NOT_EXISTS),
        )

    def drop_catalog(self, items: list[Any]) -> ast.DropCatalog:
        return ast.DropCatalog(name=items[-1], if_exists=_has(items, _Clause.IF_EXISTS))

    def alter_catalog_rename(self, items: list[Any]) -> ast.AlterCatalogRename:
        return ast.AlterCatalogRename(name=items[2], new_name=items[4])

    def alter_catalog_set_properties(self, items: list[Any]) -> ast.AlterCatalogSetProperties:
        return ast.AlterCatalogSetProperties(name=items[2], properties=items[-1])

    def show_catalogs(self, items: list[Any]) -> ast.ShowCatalogs:
        return ast.ShowCatalogs(like=self._like(items))

    def show_create_catalog(self, items: list[Any]) -> ast.ShowCreateCatalog:
        return ast.ShowCreateCatalog(name=items[-1])

    def switch(self, items: list[Any]) -> ast.Switch:
        return ast.Switch(catalog=items[-1])

    def use(self, items: list[Any]) -> ast.Use:
        return ast.Use(parts=items[-1])

    def refresh(self, items: list[Any]) -> ast.Refresh:
        return ast.Refresh(kind=str(items[1]).upper(), parts=items[-1])

    def show_databases(self, items: list[Any]) -> ast.ShowDatabases:
        catalog = None
        for i, item in enumerate(items):
            if isinstance(item, Token) and item.type == "FROM":
                catalog = items[i + 1]
        return ast.ShowDatabases(catalog=catalog, like=self._like(items))

    def show_tables(self, items: list[Any]) -> ast.ShowTables:
        parts = next((i for i in items if isinstance(i, tuple)), ())
        return ast.ShowTables(
            parts=parts, like=self._like(items), full=self._keyword(items, "FULL")
        )

    def describe(self, items: list[Any]) -> ast.Describe:
        names = [i for i in items if isinstance(i, tuple)]
        pattern = items[-1] if not isinstance(items[-1], tuple) else None
        return ast.Describe(parts=names[0], like=pattern)

    def show_columns(self, items: list[Any]) -> ast.ShowColumns:
        names = [i for i in items if isinstance(i, tuple)]
        # FROM t FROM db (either may be qualified): the database part of the table comes from the
        # second
        parts = names[0] if len(names) == 1 else (*names[1], names[0][-1])
        return ast.ShowColumns(
            parts=parts, full=self._keyword(items, "FULL"), like=self._like(items)
        )

    def show_index(self, items: list[Any]) -> ast.ShowIndex:
        names = [i for i in items if isinstance(i, tuple)]
        # FROM t FROM db, as SHOW COLUMNS: the database comes from the second
        return ast.ShowIndex(parts=names[0] if len(names) == 1 else (*names[1], names[0][-1]))

    # what dump tools send
    def show_create_database(self, items: list[Any]) -> ast.ShowCreateDatabase:
        return ast.ShowCreateDatabase(
            name=items[-1], if_not_exists=_has(items, _Clause.IF_NOT_EXISTS)
        )

    def show_triggers(self, items: list[Any]) -> ast.ShowTriggers:
        db = None
        for i, item in enumerate(items):
            if isinstance(item, Token) and item.type in ("FROM", "IN"):
                db = items[i + 1]
        return ast.ShowTriggers(db=db, like=self._like(items))

    def lock_item(self, items: list[Any]) -> tuple[str, ...]:
        return items[0]

    def lock_tables(self, items: list[Any]) -> ast.LockTables:
        return ast.LockTables(tables=tuple(i for i in items if isinstance(i, tuple)))

    def unlock_tables(self, items: list[Any]) -> ast.UnlockTables:
        return ast.UnlockTables()

    def flush(self, items: list[Any]) -> ast.Flush:
        kinds = [i.type for i in items if isinstance(i, Token)]
        what = next((k for k in ("PRIVILEGES", "LOGS") if k in kinds), "TABLES")
        return ast.Flush(what=what)

    # Lance index jobs
    def index_columns(self, items: list[str]) -> tuple[str, ...]:
        return tuple(items)

    def index_properties(self, items: list[Any]) -> tuple[tuple[str, str], ...]:
        return items[-1]

    def create_index(self, items: list[Any]) -> ast.CreateIndex:
        or_replace = self._keyword(items, "REPLACE")
        names = _names(items)
        tuples = [i for i in items if isinstance(i, tuple)]
        table, columns = tuples[0], tuples[1]
        properties = tuples[2] if len(tuples) > 2 else ()
        using = (
            names[1].upper() if len(names) > 1 else ""
        )  # none: a plain index on an internal table
        return ast.CreateIndex(
            name=names[0],
            table=table,
            columns=columns,
            using=using,
            properties=properties,
            or_replace=or_replace,
            if_not_exists=_has(items, _Clause.IF_NOT_EXISTS),
        )

    def drop_index(self, items: list[Any]) -> ast.DropIndex:
        names = _names(items)
        return ast.DropIndex(
            name=names[0], table=items[-1], if_exists=_has(items, _Clause.IF_EXISTS)
        )

    def operand(self, items: list[Any]) -> tuple[str, str]:
        item = items[0]
        if isinstance(item, Token):
            return ("NUMBER", str(item))
        kind = "STRING" if isinstance(item, _Quoted) else "IDENT"
        return (kind, item)

    def comparison(self, items: list[Any]) -> ast.Predicate:
        (lkind, left), op, (rkind, right) = items[0], str(items[1]).upper(), items[2]
        return ast.Predicate(
            left=left,
            op=op,
            right=right,
            left_is_column=lkind == "IDENT",
            right_is_string=rkind == "STRING",
        )

    def where_connective(self, items: list[Token]) -> str:
        return str(items[0]).upper()

    def where_expr(self, items: list[Any]) -> ast.WhereClause:
        return ast.WhereClause(
            predicates=tuple(i for i in items if isinstance(i, ast.Predicate)),
            connectives=tuple(i for i in items if isinstance(i, str)),
        )

    def show_lance_index_jobs(self, items: list[Any]) -> ast.ShowLanceIndexJobs:
        scope = next((i for i in items if isinstance(i, tuple)), ())
        where = next((i for i in items if isinstance(i, ast.WhereClause)), None)
        return ast.ShowLanceIndexJobs(scope=scope, where=where)

    @staticmethod
    def _job_id(items: list[Any]) -> int:
        return int(next(i for i in items if isinstance(i, Token) and i.type == "INT"))

    def show_lance_index_job(self, items: list[Any]) -> ast.ShowLanceIndexJob:
        return ast.ShowLanceIndexJob(job_id=self._job_id(items))

    def resolve_lance_index_job(self, items: list[Any]) -> ast.ResolveLanceIndexJob:
        return ast.ResolveLanceIndexJob(job_id=self._job_id(items), note=items[-1])

    def cancel_lance_index_job(self, items: list[Any]) -> ast.CancelLanceIndexJob:
        return ast.CancelLanceIndexJob(job_id=self._job_id(items))

    def show_backends(self, items: list[Any]) -> ast.ShowBackends:
        return ast.ShowBackends()

    def show_frontends(self, items: list[Any]) -> ast.ShowFrontends:
        return ast.ShowFrontends()

    # procedures
    def call_value(self, items: list[Any]) -> tuple[str | None, str]:
        item = items[0]
        if isinstance(item, _Quoted):
            return str(item), "STRING"
        if item.type in ("TRUE", "FALSE"):
            return str(item).lower(), "BOOLEAN"
        if item.type == "NULL":
            return None, "NULL"
        return str(item), "NUMBER"

    def call_argument(self, items: list[Any]) -> ast.CallArgument:
        value, kind = items[-1]
        name = str(items[0]) if len(items) == 3 else None
        return ast.CallArgument(name=name, value=value, kind=kind)

    def call_procedure(self, items: list[Any]) -> ast.CallProcedure:
        parts = next(i for i in items if isinstance(i, tuple))
        return ast.CallProcedure(
            parts=parts, arguments=tuple(i for i in items if isinstance(i, ast.CallArgument))
        )

    def show_procedures(self, items: list[Any]) -> ast.ShowProcedures:
        names = _names(items)
        return ast.ShowProcedures(catalog=names[0] if names else None)

    def show_procedure(self, items: list[Any]) -> ast.ShowProcedure:
        return ast.ShowProcedure(parts=items[-1])

    # server information
    def show_engines(self, items: list[Any]) -> ast.ShowEngines:
        return ast.ShowEngines()

    def show_charset(self, items: list[Any]) -> ast.ShowCharset:
        return ast.ShowCharset(like=self._like(items))

    def show_collation(self, items: list[Any]) -> ast.ShowCollation:
        return ast.ShowCollation(like=self._like(items))

    def show_plugins(self, items: list[Any]) -> ast.ShowPlugins:
        return ast.ShowPlugins()

    def show_processlist(self, items: list[Any]) -> ast.ShowProcesslist:
        return ast.ShowProcesslist(full=self._keyword(items, "FULL"))

    def show_table_status(self, items: list[Any]) -> ast.ShowTableStatus:
        parts = next((i for i in items if isinstance(i, tuple)), None)
        return ast.ShowTableStatus(parts=parts, like=self._like(items))

    def show_routine_status(self, items: list[Any]) -> ast.ShowRoutineStatus:
        return ast.ShowRoutineStatus(
            function=self._keyword(items, "FUNCTION"), like=self._like(items)
        )

    # SQL-level prepared statements
    def user_variable(self, items: list[Token]) -> tuple[str, str]:
        return ("USER_VARIABLE", user_variable_name(str(items[0])))

    def prepare(self, items: list[Any]) -> ast.Prepare:
        name, source = items[1], items[-1]
        if isinstance(source, tuple):
            return ast.Prepare(name=name, from_variable=source[1])
        return ast.Prepare(name=name, text=str(source))

    def execute_prepared(self, items: list[Any]) -> ast.ExecutePrepared:
        return ast.ExecutePrepared(
            name=items[1], using=tuple(i[1] for i in items if isinstance(i, tuple))
        )

    def deallocate_prepare(self, items: list[Any]) -> ast.DeallocatePrepare:
        return ast.DeallocatePrepare(name=items[-1])

    # session
    def kill_kind(self, items: list[Token]) -> str:
        return str(items[0]).upper()

    def kill(self, items: list[Any]) -> ast.Kill:
        kind = next(
            (i for i in items if isinstance(i, str) and not isinstance(i, Token)), "CONNECTION"
        )
        number = next(i for i in items if isinstance(i, Token) and i.type == "INT")
        return ast.Kill(connection_id=int(number), query_only=kind == "QUERY")
