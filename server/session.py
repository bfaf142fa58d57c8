"""One client session: routes each statement to the grammar or the SQL passthrough.

Order for every COM_QUERY text:
1. common client probes (``SELECT 1``, ``SELECT @@version_comment LIMIT 1``, ``SELECT DATABASE()``,
   ``SET NAMES …``) answered directly — no sqlglot;
2. statements the grammar owns (grammar/drydock.lark) → ``Engine.execute``;
3. everything else → sqlglot (MySQL dialect) → mysql-mimic's middlewares (SET, USE, SHOW, …)
   → ``Engine`` SQL passthrough on DuckDB.
Blocking work runs in a worker thread, never on the event loop. The session keeps MySQL's
diagnostics area (SHOW WARNINGS) and the affected-row count for the OK packet.
"""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any

import sqlglot
from mysql_mimic import ResultColumn, Session
from mysql_mimic.errors import MysqlError
from mysql_mimic.intercept import expression_to_value
from mysql_mimic.results import AllowedResult
from mysql_mimic.schema import show_statement_to_info_schema_query
from mysql_mimic.session import Query
from mysql_mimic.types import ColumnType
from mysql_mimic.variables import GlobalVariables, SessionVariables, SYSTEM_VARIABLES
from sqlglot import exp
from sqlglot.errors import ParseError
from sqlglot.executor import execute as sqlglot_execute

from engine import ast, query_privileges
from engine.audit import DENIAL_CODES
from engine.core import Engine
from engine.info_schema import INTERNAL
from engine.query_privileges import READ_STATEMENTS
from engine.errors import DrydockError, Errors
from engine.catalogs.base import TimeTravel
from engine.results import Diagnostic, Result
from engine.session import SessionContext
from engine.statements import AUDITED, INLINE
from grammar import parser as grammar
from server.results import to_wire

VERSION = "8.0.33"
VERSION_COMMENT = "drydock 0.1.0"
MYSQL_DEFAULT_SQL_MODE = (
    "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,"
    "ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"
)

DRYDOCK_VARIABLES = {
    **SYSTEM_VARIABLES,
    "version": (str, VERSION, False),
    "version_comment": (str, VERSION_COMMENT, False),
    "sql_mode": (str, MYSQL_DEFAULT_SQL_MODE, True),
    "warning_count": (int, 0, False),
    "error_count": (int, 0, False),
}
GLOBAL_VARIABLES = GlobalVariables(DRYDOCK_VARIABLES)

_PROBES = [
    (re.compile(r"\s*select\s+1\s*;?\s*", re.I), "one"),
    (re.compile(r"\s*select\s+@@version_comment(\s+limit\s+1)?\s*;?\s*", re.I), "version_comment"),
    (re.compile(r"\s*select\s+database\(\s*\)\s*;?\s*", re.I), "database"),
    (re.compile(r"\s*set\s+names\s+'?(\w+)'?(?:\s+collate\s+'?(\w+)'?)?\s*;?\s*", re.I), "set_names"),
]

# Typed columns (the types mysql-mimic would infer): with bare names, ensure_result_set peeks the
# first row through an async generator it then abandons, and its finalizer costs every probe a
# call_soon_threadsafe (self-pipe write) plus an extra event-loop turn (bench/bench_wire.py).
_ONE_COLUMNS = [ResultColumn("1", ColumnType.LONGLONG)]
_VERSION_COMMENT_COLUMNS = [ResultColumn("@@version_comment", ColumnType.STRING)]


class DrydockSession(Session):
    def __init__(self, engine: Engine):
        super().__init__(variables=SessionVariables(GLOBAL_VARIABLES))
        self.engine = engine
        self.ctx = SessionContext(user="", host="", connection_id=0)
        self.query_session = engine.query_session()
        self.account_host = "%"  # host pattern of the logged-in account (set by the connection)
        self.affected_rows = 0  # of the last statement, for its OK packet
        self.statement_warnings = 0  # warnings the last statement raised, for its OK/EOF packet
        self._running_thread_statement = False

    # -- lifecycle ------------------------------------------------------------------------------
    async def init(self, connection: Any) -> None:
        await super().init(connection)
        peer = connection.stream.writer.get_extra_info("peername")
        self.ctx.host = peer[0] if peer else "localhost"
        self.ctx.connection_id = connection.connection_id
        self.ctx.user = self.username or ""

    async def close(self) -> None:
        await super().close()
        self.query_session.close()

    async def use(self, database: str) -> None:
        """COM_INIT_DB and the database given at login: the same rules as ``USE db``."""
        self.ctx.user, self.ctx.account_host = self.username or "", self.account_host
        started = time.monotonic()
        try:
            await self._in_thread(self.engine.execute, ast.Use(parts=(database,)), self.ctx)
        except DrydockError as exc:
            if exc.code in DENIAL_CODES:
                self.engine.audit.record(user=self.ctx.user, host=self.ctx.host,
                                         connection_id=self.ctx.connection_id, kind="Use",
                                         obj=f"{self.ctx.catalog}.{database}", error_code=exc.code,
                                         started=started, statement=f"USE `{database}`")
            raise
        self.database = self.ctx.database

    def interrupt(self) -> None:
        """KILL QUERY: stop the statement running in a worker thread, if any."""
        if self._running_thread_statement:
            self.query_session.interrupt()

    # -- statements -----------------------------------------------------------------------------
    async def handle_query(self, sql: str, attrs: dict[str, str]) -> AllowedResult:
        started = time.monotonic()
        self._audit_kind: str | None = None  # set when the statement changes something
        self._audit_object = ""
        try:
            result = await self._handle_query(sql, attrs)
        except (DrydockError, MysqlError) as exc:
            self._audit(sql, started, int(exc.code))
            raise
        self._audit(sql, started, 0)
        return result

    def _audit(self, sql: str, started: float, error_code: int) -> None:
        if self._audit_kind is None and error_code not in DENIAL_CODES:
            return
        self.engine.audit.record(user=self.ctx.user, host=self.ctx.host,
                                 connection_id=self.ctx.connection_id,
                                 kind=self._audit_kind or "Denied", obj=self._audit_object,
                                 error_code=error_code, started=started, statement=sql)

    async def _handle_query(self, sql: str, attrs: dict[str, str]) -> AllowedResult:
        self.ctx.user = self.username or ""
        self.ctx.account_host = self.account_host
        self.ctx.database = self.database
        self.affected_rows = 0
        self.statement_warnings = 0
        # @@warning_count / @@error_count describe the previous statement: read before clearing.
        self.variables.set("warning_count", self.ctx.warning_count(), force=True)
        self.variables.set("error_count", self.ctx.error_count(), force=True)
        probe = self._probe(sql)
        if probe is not None:
            self.ctx.diagnostics = []
            return probe
        try:
            statement = grammar.parse(sql)
            if not isinstance(statement, ast.ShowDiagnostics):
                self.ctx.diagnostics = []
            if statement is not None:
                if isinstance(statement, AUDITED):
                    self._audit_kind = type(statement).__name__
                try:
                    return self._finish(await self._execute(statement))
                finally:
                    self.database = self.ctx.database  # USE / SWITCH / DROP CATALOG move the session
            return await self._passthrough(sql, attrs)
        except DrydockError as exc:
            self.ctx.diagnostics = [Diagnostic("Error", exc.code, exc.message)]
            raise
        except MysqlError as exc:
            self.ctx.diagnostics = [Diagnostic("Error", int(exc.code), str(exc.msg))]
            raise

    async def _execute(self, statement: ast.Statement) -> Result:
        if isinstance(statement, INLINE):
            return self.engine.execute(statement, self.ctx)
        return await self._in_thread(self.engine.execute, statement, self.ctx)

    async def _in_thread(self, fn: Any, *args: Any) -> Any:
        self._running_thread_statement = True
        try:
            return await asyncio.to_thread(fn, *args)
        finally:
            self._running_thread_statement = False

    def _finish(self, result: Result) -> AllowedResult:
        self.ctx.diagnostics.extend(result.warnings)
        self.statement_warnings = len(result.warnings)
        self.affected_rows = result.affected_rows
        return to_wire(result)

    async def _passthrough(self, sql: str, attrs: dict[str, str]) -> AllowedResult:
        try:
            expressions = [e for e in sqlglot.parse(time_travel_syntax(sql), read="mysql") if e is not None]
        except ParseError as exc:
            raise _parse_error(exc) from None
        if not expressions:
            raise Errors.EMPTY_QUERY.error()
        if len(expressions) > 1:
            raise Errors.PARSE.error(
                detail="multiple statements in one query are not supported; send one statement at a time")
        q = Query(expression=expressions[0], sql=sql, attrs=attrs,
                  _middlewares=self.middlewares, _query=self.query)
        return await q.start()

    async def query(self, expression: exp.Expression, sql: str, attrs: dict[str, str]) -> AllowedResult:
        """The end of mysql-mimic's middleware chain: authorize, then run on DuckDB."""
        if not isinstance(expression, READ_STATEMENTS):
            self._audit_kind = type(expression).__name__
            self._audit_object = query_privileges.target_of(expression, self.ctx)
        return self._finish(await self._in_thread(self._run_passthrough, expression))

    def _run_passthrough(self, expression: exp.Expression) -> Result:
        privileges = self.engine.privileges
        query_privileges.authorize(privileges, expression, self.ctx)
        visibility = privileges.visibility(self.ctx, INTERNAL)
        return self.query_session.run(expression, self.ctx, visibility, self._scan_external)

    def _scan_external(self, catalog: str, db: str, table: str, travel: TimeTravel | None) -> Any:
        return self.engine.metadata.scan(self.ctx, catalog, db, table, travel)

    # -- probes -------------------------------------------------------------------------------
    def _probe(self, sql: str) -> AllowedResult | None:
        for pattern, kind in _PROBES:
            m = pattern.fullmatch(sql)
            if not m:
                continue
            if kind == "one":
                return [(1,)], _ONE_COLUMNS
            if kind == "version_comment":
                return [(VERSION_COMMENT,)], _VERSION_COMMENT_COLUMNS
            if kind == "database":
                return [(self.database,)], [ResultColumn(
                    "DATABASE()", ColumnType.NULL if self.database is None else ColumnType.STRING)]
            if kind == "set_names":
                charset, collation = m.group(1), m.group(2)
                item = exp.SetItem(this=exp.to_identifier(charset), kind="NAMES")
                if collation:
                    item.set("collate", exp.to_identifier(collation))
                self._set_names(item)
                return [], []
        return None

    # -- mysql-mimic middleware overrides ----------------------------------------------------------
    def _set_variable(self, setitem: exp.SetItem) -> None:
        """mysql-mimic rejects computed values (``concat(@@sql_mode, ',X')``, sent by MariaDB
        Connector/J on connect); evaluate them with sqlglot's executor instead."""
        assignment = setitem.this
        right = assignment.right
        try:
            expression_to_value(right)
        except MysqlError:
            value = sqlglot_execute(exp.select(right.copy().as_("v"))).rows[0][0]
            assignment.set("expression", exp.Literal.string(value) if isinstance(value, str)
                           else exp.Literal.number(value) if value is not None else exp.null())
        super()._set_variable(setitem)

    async def _show(self, expression: exp.Show) -> AllowedResult:
        kind = expression.name.upper()
        if kind in ("VARIABLES", "STATUS"):
            return await super()._show(expression)
        if kind in ("WARNINGS", "ERRORS"):  # the grammar owns these; never reached
            raise Errors.INTERNAL.error(detail="SHOW WARNINGS was not routed to the grammar")
        select = show_statement_to_info_schema_query(expression, self.database)
        return await self.query(select, select.sql(), {})

    async def _query_info_schema(self, expression: exp.Expression) -> AllowedResult:
        return await self.query(expression, expression.sql(), {})


_FOR_TIME = re.compile(r"\bFOR\s+TIME\s+AS\s+OF\b", re.I)
_AT_TAG = re.compile(r"@tag\s*\(\s*('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")\s*\)", re.I)


def time_travel_syntax(sql: str) -> str:
    """Doris' time travel spellings → the ones sqlglot parses: ``FOR TIME AS OF`` becomes
    ``FOR TIMESTAMP AS OF``, ``t@tag('x')`` becomes ``t FOR VERSION AS OF 'x'``."""
    if "@" not in sql and "time" not in sql.lower():
        return sql
    sql = _FOR_TIME.sub("FOR TIMESTAMP AS OF", sql)
    return _AT_TAG.sub(lambda m: f" FOR VERSION AS OF {m.group(1)}", sql)


def _parse_error(exc: ParseError) -> DrydockError:
    err = exc.errors[0] if exc.errors else {}
    description = str(err.get("description") or "syntax error")
    line = err.get("line") or 1
    col = max(int(err.get("col") or 1) - 1, 0)
    highlight = err.get("highlight") or ""
    near = f" near '{highlight}'" if highlight else ""
    return Errors.PARSE.error(detail=f"line {line}:{col} {description}{near}")
