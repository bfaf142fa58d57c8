"""One client session: routes each statement to the grammar or the SQL passthrough.

Order for every COM_QUERY text:
1. common client probes (``SELECT 1``, ``SELECT @@version_comment LIMIT 1``, ``SELECT DATABASE()``,
   ``SET NAMES …``) answered directly — no sqlglot;
2. statements the grammar owns (grammar/drydock.lark) → ``Engine.execute``;
3. everything else → sqlglot (MySQL dialect) → mysql-mimic's middlewares (SET, USE, SHOW, …)
   → ``Engine`` SQL passthrough on DuckDB.
User variables (``SET @v = …``, ``@v`` in any passthrough statement) and SQL-level
PREPARE / EXECUTE / DEALLOCATE PREPARE live here too (server/sql_prepared.py): EXECUTE runs the
bound text through this same routing.
Blocking work runs in a worker thread, never on the event loop. The session keeps MySQL's
diagnostics area (SHOW WARNINGS) and the affected-row count for the OK packet.
"""

from __future__ import annotations

import asyncio
import codecs
import decimal
import re
import time
from typing import Any

import sqlglot
from mysql_mimic import ResultColumn, Session
from mysql_mimic.charset import CharacterSet, Collation
from mysql_mimic.errors import MysqlError
from mysql_mimic.intercept import expression_to_value, setitem_kind
from mysql_mimic.results import AllowedResult
from mysql_mimic.schema import like_to_regex, show_statement_to_info_schema_query
from mysql_mimic.session import Query
from mysql_mimic.types import ColumnType
from mysql_mimic.variables import DEFAULT, GlobalVariables, SessionVariables, SYSTEM_VARIABLES
from sqlglot import exp
from sqlglot.errors import ParseError, SqlglotError
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
from server import sql_prepared, tls
from server.prepared import count_placeholders
from server.results import to_wire, typed_result

# SQL-level prepared statements, run here: EXECUTE re-enters the session's routing.
_PREPARED_SQL = (ast.Prepare, ast.ExecutePrepared, ast.DeallocatePrepare)

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
        self.tls_cipher: tuple[str, str] | None = None  # (cipher, TLS version) of the connection

    # -- lifecycle ------------------------------------------------------------------------------
    async def init(self, connection: Any) -> None:
        await super().init(connection)
        peer = connection.stream.writer.get_extra_info("peername")
        self.ctx.host = peer[0] if peer else "localhost"
        self.ctx.connection_id = connection.connection_id
        self.ctx.user = self.username or ""
        self.tls_cipher = tls.cipher(connection.stream.writer)

    async def close(self) -> None:
        await super().close()
        self.query_session.close()

    async def reset(self) -> None:
        """COM_RESET_CONNECTION / COM_CHANGE_USER: user variables and SQL-level prepared
        statements go, as in MySQL."""
        await super().reset()
        self.ctx.user_variables.clear()
        self.ctx.prepared_statements.clear()

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
            self.ctx.cancel.set()  # procedures and other engine work check this cooperatively
            self.query_session.interrupt()

    # -- statements -----------------------------------------------------------------------------
    async def handle_query(self, sql: str, attrs: dict[str, str]) -> AllowedResult:
        started = time.monotonic()
        self._audit_kind: str | None = None  # set when the statement changes something
        self._audit_object = ""
        self._audit_statement: str | None = None  # EXECUTE: the bound statement it ran
        self._metric_kind = "Probe"
        try:
            result = await self._handle_query(sql, attrs)
        except (DrydockError, MysqlError) as exc:
            self._audit(sql, started, int(exc.code))
            raise
        finally:
            self.engine.metrics.statement_seconds.labels(self._metric_kind).observe(time.monotonic() - started)
        self._audit(sql, started, 0)
        return result

    def _audit(self, sql: str, started: float, error_code: int) -> None:
        if self._audit_kind is None and error_code not in DENIAL_CODES:
            return
        self.engine.audit.record(user=self.ctx.user, host=self.ctx.host,
                                 connection_id=self.ctx.connection_id,
                                 kind=self._audit_kind or "Denied", obj=self._audit_object,
                                 error_code=error_code, started=started,
                                 statement=self._audit_statement or sql)

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
            self._metric_kind = type(statement).__name__ if statement is not None else "Query"
            # SHOW WARNINGS keeps the diagnostics area; EXECUTE leaves it to the statement it runs.
            if not isinstance(statement, (ast.ShowDiagnostics, ast.ExecutePrepared)):
                self.ctx.diagnostics = []
            if isinstance(statement, _PREPARED_SQL):
                return await self._prepared_sql(statement, attrs)
            if statement is not None:
                if isinstance(statement, AUDITED):
                    self._audit_kind = type(statement).__name__
                    self._audit_object = audit_object(statement, self.ctx)
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

    async def _prepared_sql(self, statement: ast.Statement, attrs: dict[str, str]) -> AllowedResult:
        """PREPARE / EXECUTE / DEALLOCATE PREPARE (server/sql_prepared.py)."""
        if isinstance(statement, ast.ExecutePrepared):
            bound = sql_prepared.bind(self.ctx, statement)
            self._audit_statement = bound
            return await self._handle_query(bound, attrs)  # the prepared text is never PREPARE/EXECUTE
        if isinstance(statement, ast.Prepare):
            return self._finish(sql_prepared.prepare(self.ctx, statement, self._check_syntax))
        assert isinstance(statement, ast.DeallocatePrepare)
        return self._finish(sql_prepared.deallocate(self.ctx, statement))

    def _check_syntax(self, sql: str) -> None:
        """PREPARE: the 1064 / 1065 that running ``sql`` would raise for its syntax, now. Owned
        statements with placeholders are checked when executed (the grammar has no ``?``)."""
        if grammar.owns(sql):
            if not count_placeholders(sql):
                grammar.parse(sql)
            return
        self._parse_passthrough(sql)

    async def _execute(self, statement: ast.Statement) -> Result:
        if isinstance(statement, INLINE):
            return self.engine.execute(statement, self.ctx)
        return await self._in_thread(self.engine.execute, statement, self.ctx)

    async def _in_thread(self, fn: Any, *args: Any) -> Any:
        self.ctx.cancel.clear()
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
        expression = self._parse_passthrough(sql)
        if not isinstance(expression, exp.Set):  # SET: only right-hand sides (_set_middleware)
            expression = sql_prepared.substitute_user_variables(expression, self.ctx)
        q = Query(expression=expression, sql=sql, attrs=attrs,
                  _middlewares=self.middlewares, _query=self.query)
        return typed_result(await q.start())

    @staticmethod
    def _parse_passthrough(sql: str) -> exp.Expression:
        try:
            expressions = [e for e in sqlglot.parse(time_travel_syntax(sql), read="mysql") if e is not None]
        except ParseError as exc:
            raise _parse_error(exc) from None
        except SqlglotError as exc:  # TokenError: an unterminated comment, string or identifier
            raise Errors.PARSE.error(detail=f"line 1:0 {exc}") from None
        except (IndexError, KeyError, ValueError, TypeError, AttributeError, RecursionError):
            # sqlglot's own parser crashes this way on some incomplete statements ('SHOW CREATE')
            raise Errors.PARSE.error(detail="line 1:0 syntax error: the statement is incomplete "
                                            "or not valid SQL") from None
        if not expressions:
            raise Errors.EMPTY_QUERY.error()
        if len(expressions) > 1:
            raise Errors.PARSE.error(
                detail="multiple statements in one query are not supported; send one statement at a time")
        expression = expressions[0]
        if isinstance(expression, exp.Command) and expression.name.upper() == "SET":
            return _set_items_one_by_one(expression)
        return expression

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
    async def _set_middleware(self, q: Query) -> AllowedResult:
        """SET, item by item, in order: ``@user`` variables here (upstream answers 1235), the rest
        as upstream does. Right-hand sides may read user variables (``SET sql_mode = @saved``)."""
        if not isinstance(q.expression, exp.Set):
            return await q.next()
        for item in q.expression.expressions:
            assignment = item.this if isinstance(item, exp.SetItem) else None
            if isinstance(assignment, exp.EQ):
                assignment.set("expression", sql_prepared.substitute_user_variables(assignment.right, self.ctx))
                if sql_prepared.is_user_variable(assignment.left):
                    value = await self._evaluate(assignment.right)
                    sql_prepared.set_user_variable(self.ctx, assignment.left.name, value)
                    continue
            kind = setitem_kind(item)
            if kind == "VARIABLE":
                self._set_variable(item)
            elif kind == "CHARACTER SET":
                self._set_charset(item)
            elif kind == "NAMES":
                self._set_names(item)
            elif kind == "TRANSACTION":
                self._set_transaction(item)
            else:
                raise Errors.NOT_SUPPORTED.error(what=f"SET {kind}")
        return [], []

    async def _evaluate(self, expression: exp.Expression) -> Any:
        """The value of a SET @v right-hand side: a literal as written, anything else computed by
        DuckDB as ``SELECT <expression>`` (with the privileges of a SELECT)."""
        known, value = _literal_value(expression)
        if known:
            return value
        select = exp.select(expression.copy().as_("v"))
        result = await self._in_thread(self._run_passthrough, select)
        return result.rows[0][0] if result.rows else None

    def _set_variable(self, setitem: exp.SetItem) -> None:
        """mysql-mimic rejects computed values (``concat(@@sql_mode, ',X')``, sent by MariaDB
        Connector/J on connect); evaluate them with sqlglot's executor instead. sql_mode is
        normalized as MySQL stores it (see normalize_sql_mode)."""
        assignment = setitem.this
        right = assignment.right
        try:
            value = expression_to_value(right)
        except MysqlError:
            try:
                value = sqlglot_execute(exp.select(right.copy().as_("v"))).rows[0][0]
            except Exception:  # noqa: BLE001 - sqlglot's executor fails in many ways ('SET x = sql_mode')
                raise Errors.WRONG_VALUE_FOR_VAR.error(name=assignment.left.name, value=right.sql()) from None
            assignment.set("expression", exp.Literal.string(value) if isinstance(value, str)
                           else exp.Literal.number(value) if value is not None else exp.null())
        name = assignment.left.name.lower()
        if name == "sql_mode" and value is not DEFAULT:
            assignment.set("expression", exp.Literal.string(normalize_sql_mode(value)))
        elif name in CHARSET_VARIABLES and value is not DEFAULT and value is not None:
            assignment.set("expression", exp.Literal.string(character_set(str(value), name).name))
        elif name in COLLATION_VARIABLES and value is not DEFAULT and value is not None:
            assignment.set("expression", exp.Literal.string(collation(str(value)).name))
        super()._set_variable(setitem)

    def _set_names(self, item: exp.SetItem) -> None:
        """SET NAMES cs [COLLATE co]: names are case-insensitive and checked before anything is
        set (upstream looked them up by exact name: a KeyError, an internal error)."""
        charset_name: Any
        collation_name: Any
        if item.name.upper() == "DEFAULT":
            charset_name = collation_name = DEFAULT
        else:
            charset = character_set(item.name)
            collate = item.text("collate")
            collation_name = collation(collate, charset).name if collate else charset.default_collation.name
            charset_name = charset.name
        for variable in ("character_set_client", "character_set_connection", "character_set_results"):
            self.variables.set(variable, charset_name)
        self.variables.set("collation_connection", collation_name)

    def _set_charset(self, item: exp.SetItem) -> None:
        """SET CHARACTER SET cs: checked like SET NAMES (upstream stored any name, and every later
        statement of the session failed with an internal error)."""
        item = item.copy()
        name = "DEFAULT" if item.name.upper() == "DEFAULT" else character_set(item.name).name
        item.set("this", exp.to_identifier(name))
        super()._set_charset(item)

    async def _static_query_middleware(self, q: Query) -> AllowedResult:
        """Upstream answers a SELECT without FROM with sqlglot's executor, which fails with an
        internal error on what it cannot evaluate (``SELECT sqrt(4)``, CAST AS DECIMAL); those go
        on to DuckDB, as the same SELECT ... FROM DUAL does."""
        select = q.expression
        if isinstance(select, exp.Select) and not any(
                select.args.get(a) for a in set(exp.Select.arg_types) - {"expressions", "limit", "hint"}):
            try:
                result = sqlglot_execute(select.copy())
            except SqlglotError:
                return await q.next()
            return typed_result((result.rows, list(result.columns)))
        return await q.next()

    async def _show(self, expression: exp.Show) -> AllowedResult:
        kind = expression.name.upper()
        if kind in ("VARIABLES", "STATUS"):
            return await super()._show(expression)
        if kind in ("WARNINGS", "ERRORS"):  # the grammar owns these; never reached
            raise Errors.INTERNAL.error(detail="SHOW WARNINGS was not routed to the grammar")
        select = show_statement_to_info_schema_query(expression, self.database)
        return await self.query(select, select.sql(), {})

    def _show_status(self, show: exp.Show) -> AllowedResult:
        """The session's TLS status, as MySQL names it (empty values on a plain connection)."""
        cipher, version = self.tls_cipher or ("", "")
        rows = [("Ssl_cipher", cipher), ("Ssl_version", version)]
        like = show.text("like")
        if like:
            pattern = re.compile(like_to_regex(like).pattern, re.IGNORECASE)  # as MySQL's LIKE here
            rows = [(k, v) for k, v in rows if pattern.match(k)]
        return rows, ["Variable_name", "Value"]

    async def _query_info_schema(self, expression: exp.Expression) -> AllowedResult:
        return await self.query(expression, expression.sql(), {})


# -- character sets ---------------------------------------------------------------------------------
CHARSET_VARIABLES = ("character_set_client", "character_set_results", "character_set_connection",
                     "character_set_database", "character_set_server")
COLLATION_VARIABLES = ("collation_connection", "collation_database", "collation_server")
# As in MySQL, the client character set must be ASCII-compatible (1231 for these).
_NOT_CLIENT_CHARSETS = ("ucs2", "utf16", "utf16le", "utf32")


def character_set(name: str, variable: str = "character_set_client") -> CharacterSet:
    """A character set by name, case-insensitively: 1115 when unknown; 1231 when the wire cannot
    use it for ``variable`` (no Python codec, or not ASCII-compatible for the client)."""
    found = next((c for c in CharacterSet if c.name == name.lower()), None)
    if found is None:
        raise Errors.UNKNOWN_CHARACTER_SET.error(name=name)
    if variable in ("character_set_client", "character_set_results"):
        try:
            codecs.lookup(found.codec)
        except LookupError:
            raise Errors.WRONG_VALUE_FOR_VAR.error(name=variable, value=name) from None
        if variable == "character_set_client" and found.name in _NOT_CLIENT_CHARSETS:
            raise Errors.WRONG_VALUE_FOR_VAR.error(name=variable, value=name)
    return found


def collation(name: str, charset: CharacterSet | None = None) -> Collation:
    """A collation by name, case-insensitively (1273 when unknown), of ``charset`` if given (1253)."""
    found = next((c for c in Collation if c.name == name.lower()), None)
    if found is None:
        raise Errors.UNKNOWN_COLLATION.error(name=name)
    if charset is not None and found.charset != charset:
        raise Errors.COLLATION_CHARSET_MISMATCH.error(collation=name, charset=charset.name)
    return found


# MySQL 8.0's sql_mode names in bit order (sys_vars.cc sql_mode_names, unused bits left out): a
# stored sql_mode always reads back in this order, whatever order it was set in.
SQL_MODES = (
    "REAL_AS_FLOAT", "PIPES_AS_CONCAT", "ANSI_QUOTES", "IGNORE_SPACE", "ONLY_FULL_GROUP_BY",
    "NO_UNSIGNED_SUBTRACTION", "NO_DIR_IN_CREATE", "ANSI", "NO_AUTO_VALUE_ON_ZERO",
    "NO_BACKSLASH_ESCAPES", "STRICT_TRANS_TABLES", "STRICT_ALL_TABLES", "NO_ZERO_IN_DATE",
    "NO_ZERO_DATE", "ALLOW_INVALID_DATES", "ERROR_FOR_DIVISION_BY_ZERO", "TRADITIONAL",
    "HIGH_NOT_PRECEDENCE", "NO_ENGINE_SUBSTITUTION", "PAD_CHAR_TO_FULL_LENGTH",
    "TIME_TRUNCATE_FRACTIONAL",
)
_SQL_MODE_BITS = {name: bit for name, bit in zip(SQL_MODES, (0, 1, 2, 3, 5, 6, 7, 18, 19, 20, 21, 22, 23,
                                                             24, 25, 26, 27, 29, 30, 31, 32))}
# Combination modes turn on their members and, as in MySQL, stay in the value themselves.
_SQL_MODE_COMBINATIONS = {
    "ANSI": ("REAL_AS_FLOAT", "PIPES_AS_CONCAT", "ANSI_QUOTES", "IGNORE_SPACE", "ONLY_FULL_GROUP_BY"),
    "TRADITIONAL": ("STRICT_TRANS_TABLES", "STRICT_ALL_TABLES", "NO_ZERO_IN_DATE", "NO_ZERO_DATE",
                    "ERROR_FOR_DIVISION_BY_ZERO", "NO_ENGINE_SUBSTITUTION"),
}


def normalize_sql_mode(value: Any) -> str:
    """A value for sql_mode → the value MySQL stores: items trimmed and upper-cased, empty items
    and duplicates dropped, combination modes expanded, canonical (bit) order. A number is a bit
    mask. An unknown mode, NULL or a boolean is 1231, as in MySQL."""
    if value is None or isinstance(value, bool) or isinstance(value, float):
        raise Errors.WRONG_VALUE_FOR_VAR.error(name="sql_mode", value="NULL" if value is None else value)
    if isinstance(value, int):
        names = [n for n, bit in _SQL_MODE_BITS.items() if value >> bit & 1]
        if value < 0 or sum(1 << _SQL_MODE_BITS[n] for n in names) != value:
            raise Errors.WRONG_VALUE_FOR_VAR.error(name="sql_mode", value=value)
    else:
        names = [item.strip().upper() for item in str(value).split(",")]
        names = [n for n in names if n]
        for name in names:
            if name not in _SQL_MODE_BITS:
                raise Errors.WRONG_VALUE_FOR_VAR.error(name="sql_mode", value=name)
    modes = set(names)
    for name in names:
        modes.update(_SQL_MODE_COMBINATIONS.get(name, ()))
    return ",".join(m for m in SQL_MODES if m in modes)


def _set_items_one_by_one(command: exp.Command) -> exp.Expression:
    """sqlglot gives up on ``SET @a = (SELECT ...), @b = 2`` (a subquery before a comma) and
    returns a Command; parsed item by item, it is an ordinary SET. Anything else stays a Command."""
    items: list[exp.Expression] = []
    for text in _top_level_items(command.text("expression")):
        try:
            parsed = sqlglot.parse_one(f"SET {text}", read="mysql")
        except ParseError:
            return command
        if not isinstance(parsed, exp.Set):
            return command
        items.extend(parsed.expressions)
    return exp.Set(expressions=items) if items else command


def _top_level_items(text: str) -> list[str]:
    """``text`` split at the commas outside parentheses and quotes."""
    items, depth, start, i, n = [], 0, 0, 0, len(text)
    while i < n:
        ch = text[i]
        if ch in "'\"`":
            i += 1
            while i < n and text[i] != ch:
                i += 2 if text[i] == "\\" and ch != "`" else 1
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
        i += 1
    items.append(text[start:])
    return [item.strip() for item in items]


def _literal_value(expression: exp.Expression) -> tuple[bool, Any]:
    """(True, value) when ``expression`` is a plain literal; MySQL's types: an integer, a decimal
    (1.5), a double (1e3), a string or NULL."""
    node, sign = expression, 1
    if isinstance(node, exp.Neg):
        node, sign = node.this, -1
    if isinstance(node, exp.Literal) and not node.is_string:
        text = node.this
        try:
            if re.fullmatch(r"[0-9]+", text):
                return True, sign * int(text)
            if re.fullmatch(r"[0-9]*\.[0-9]*", text):
                return True, sign * decimal.Decimal(text)
            return True, sign * float(text)
        except (ValueError, decimal.InvalidOperation):
            return False, None
    if sign == -1:
        return False, None
    if isinstance(node, exp.Literal):
        return True, node.this
    if isinstance(node, exp.Null):
        return True, None
    if isinstance(node, exp.Boolean):
        return True, int(bool(node.this))
    return False, None


def audit_object(statement: ast.Statement, ctx: SessionContext) -> str:
    """What an owned statement acts on, for its audit record."""
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
    if not parts:
        return ""
    if len(parts) == 3:
        return ".".join(parts)
    if len(parts) == 2:
        return f"{ctx.catalog}.{parts[0]}.{parts[1]}"
    return f"{ctx.catalog}.{ctx.database}.{parts[0]}"


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
