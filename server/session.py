"""One client session: wire and session concerns only. Every statement runs through the engine.

For each COM_QUERY text:
1. size bound (``max_statement_bytes``), then grammar/lexer.py gives the statement text (comments,
   semicolons and whitespace around it gone, executable comments opened) — one text for every
   parser, so noise can never move a statement to another handler;
2. two client probes that are answered the same whatever the session (``SELECT 1``,
   ``SELECT @@version_comment LIMIT 1``) are answered here, exactly matched;
3. a short statement of drydock's own grammar is parsed on the event loop (bounded; it saves a
   thread hop) and runs in its statement's pool; otherwise, off the event loop, the Lark grammar
   parses what drydock owns, grammar/sql.py everything else (one parse), and ``Engine.execute``
   authorizes, audits, meters and runs the statement object.
No mysql-mimic middleware answers anything (``self.middlewares`` is empty).
SQL-level PREPARE / EXECUTE / DEALLOCATE PREPARE are session state (server/sql_prepared.py):
EXECUTE runs the bound text through this same path. The session keeps MySQL's diagnostics area
(SHOW WARNINGS) and the affected-row count for the OK packet.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import re
import time
from collections.abc import Callable
from typing import Any

from mysql_mimic import ResultColumn, Session
from mysql_mimic.charset import CharacterSet
from mysql_mimic.errors import MysqlError
from mysql_mimic.results import AllowedResult
from mysql_mimic.types import ColumnType
from mysql_mimic.variables import GlobalVariables, SYSTEM_VARIABLES
from sqlglot import exp

from drydock.engine.statements import execute as execute_statement
from drydock.engine import ast
from drydock.engine.sql import session_limits, transactions
from drydock.engine.core import Engine
from drydock.engine.errors import DrydockError, Errors
from drydock.engine.results import Diagnostic, OkInfo, Result
from drydock.engine.session import INTERNAL, SessionContext
from drydock.engine.search import settings as search_settings
from drydock.engine.sql.session_variables import (
    DUMP_SWITCHES,
    MYSQL_DEFAULT_SQL_MODE,
    ConfiguredSessionVariables,
)
from drydock.grammar import lexer
from drydock.grammar import parser as grammar
from drydock.grammar.owned_prefixes import owns
from drydock.grammar import shapes
from drydock.grammar import sql as sql_grammar
from drydock.server import memory, sql_prepared
from drydock.server.wire import MAX_PAYLOAD
from drydock.server.column_meta import ColumnMeta
from drydock.server.prepared import bind_parameters, count_placeholders
from drydock.server.results import MetaByColumn, StreamedRows, column_metas, to_wire
from drydock.engine.support.config_keys import Key

VERSION = "8.0.33"
VERSION_COMMENT = "drydock 0.1.0"

DRYDOCK_VARIABLES = {
    **SYSTEM_VARIABLES,
    "version": (str, VERSION, False),
    "version_comment": (str, VERSION_COMMENT, False),
    "sql_mode": (str, MYSQL_DEFAULT_SQL_MODE, True),
    "warning_count": (int, 0, False),
    "error_count": (int, 0, False),
    **DUMP_SWITCHES,  # unique_checks, foreign_key_checks, … (engine/sql/session_variables.py)
    **session_limits.VARIABLES,  # sql_safe_updates, max_join_size, … (engine/sql/session_limits.py)
    **search_settings.VARIABLES,  # ivf_nprobe, hnsw_ef_search, … (engine/search/settings.py)
}
GLOBAL_VARIABLES = GlobalVariables(DRYDOCK_VARIABLES)

# Exact texts (after grammar/lexer.py) answered without a parse: their answer never depends on
# the session, so no privilege or state is involved. Typed columns: with bare names,
# mysql-mimic's ensure_result_set would peek the first row through an abandoned generator.
_PROBES: dict[str, tuple[list[tuple[Any, ...]], list[ResultColumn]]] = {
    "select 1": ([(1,)], [ResultColumn("1", ColumnType.LONGLONG)]),
    "select @@version_comment limit 1": (
        [(VERSION_COMMENT,)],
        [ResultColumn("@@version_comment", ColumnType.STRING)],
    ),
}
_SPACES = re.compile(r"\s+")

Pools = dict[str, concurrent.futures.ThreadPoolExecutor]

# name → character set, built once: every answer looks its character_set_results up here (walking
# the enum per statement was ~5% of the server's GIL time under an admission load).
_CHARSETS_BY_NAME: dict[str, CharacterSet] = {c.name: c for c in CharacterSet}


def results_charset(name: Any) -> CharacterSet:
    """The character set a character_set_results value names; utf8mb4 for NULL, '' or an unknown
    name, and for binary (no conversion: values go as stored, in utf8mb4)."""
    if str(name).lower() == "binary":
        return CharacterSet.utf8mb4
    return (
        _CHARSETS_BY_NAME.get(str(name).lower(), CharacterSet.utf8mb4)
        if name
        else CharacterSet.utf8mb4
    )


class DrydockSession(Session):
    username: str | None  # the logged-in account's name (set by server/login.py)
    database: str | None

    def __init__(self, engine: Engine, pools: Pools | None = None):
        super().__init__(variables=ConfiguredSessionVariables(GLOBAL_VARIABLES, engine.config.get))
        self.middlewares: list[Any] = []  # nothing is answered by code drydock does not own
        self.engine = engine
        self.pools = pools or {}
        self.query_session = engine.query_session()
        self.ctx = SessionContext(
            user="",
            host="",
            connection_id=0,
            query=self.query_session,
            variables=self.variables,
            stream_results=True,
        )
        self.account_host = "%"  # host pattern of the logged-in account (set by the connection)
        self.affected_rows = 0  # of the last statement, for its OK packet
        self.ok_info: OkInfo | None = None  # its info string's counts (engine/results.py)
        self.found_rows_affected: int | None = None  # its affected rows under CLIENT_FOUND_ROWS
        self.last_insert_id = 0  # the first AUTO_INCREMENT value the last statement generated
        self.statement_warnings = 0  # warnings the last statement raised, for its OK/EOF packet
        self._running_thread_statement = False
        # column definitions' extra fields (server/column_meta.py)
        self.result_meta: MetaByColumn = {}
        # The rows of the result set being sent, while the rest is still in DuckDB
        # (server/results.py);
        # the connection reads it to the end (next_rows) or ends it (end_stream) before the next
        # command.
        self.open_stream: StreamedRows | None = None
        self._release_after_stream = False  # a large statement's release waits for its stream

    # -- lifecycle ------------------------------------------------------------------------------
    async def opened(
        self, host: str, connection_id: int, tls_cipher: tuple[str, str] | None
    ) -> None:
        """Login is complete (server/connection.py)."""
        self.ctx.host = host
        self.ctx.connection_id = connection_id
        self.ctx.user = self.username or ""
        self.ctx.tls_cipher = tls_cipher

    async def close(self) -> None:
        await super().close()
        self.query_session.close()

    async def reset(self) -> None:
        """COM_RESET_CONNECTION / COM_CHANGE_USER: user variables and SQL-level prepared
        statements go, as in MySQL."""
        await super().reset()
        self.query_session.rollback()  # an open transaction ends with the session state
        self.ctx.user_variables.clear()
        self.ctx.prepared_statements.clear()

    async def use(self, database: str) -> None:
        """The one access check for a session database: the handshake, COM_INIT_DB and
        COM_CHANGE_USER come here, and run exactly what ``USE db`` runs."""
        self._enter()
        await self._in_thread(
            "statements",
            execute_statement,
            self.engine,
            ast.Use(parts=(database,)),
            self.ctx,
            f"USE `{database}`",
        )
        self.database = self.ctx.database

    def interrupt(self) -> None:
        """KILL QUERY: stop the statement running in a worker thread, if any."""
        if self._running_thread_statement:
            self.ctx.cancel.set()  # procedures and other engine work check this cooperatively
            self.query_session.interrupt()
        elif self.open_stream is not None:  # between two batches: the next fetch fails with 1317
            self.ctx.cancel.set()

    async def next_rows(self, rows: StreamedRows) -> Any:
        """The next batch of a streamed result, fetched and converted in the statements pool
        (DuckDB computes the rows as they are fetched); [] at the end. KILL QUERY reaches the
        fetch as it reaches a statement; an error here (DuckDB's, mid-result) is the statement's
        error, in SHOW WARNINGS as any other."""
        self._running_thread_statement = True  # KILL QUERY / KILL CONNECTION interrupt the fetch
        executor = self.pools.get("statements")
        fetch = asyncio.ensure_future(
            asyncio.to_thread(rows.next_batch)
            if executor is None
            else asyncio.get_running_loop().run_in_executor(executor, rows.next_batch)
        )
        try:
            batch = await asyncio.shield(fetch)
            late = rows.stream.late_warnings()  # the batch's row warnings (1365 …)
            self.ctx.diagnostics.extend(late)
            self.statement_warnings += len(late)
            return batch
        except asyncio.CancelledError:  # KILL CONNECTION: the fetch ends (interrupted) before the
            await asyncio.wait([fetch])  # session may close the DuckDB cursor it runs on
            if not fetch.cancelled():
                fetch.exception()
            raise
        except DrydockError as exc:
            self.ctx.diagnostics = [Diagnostic("Error", exc.code, exc.message)]
            raise
        finally:
            self._running_thread_statement = False

    async def end_stream(self) -> None:
        """After the last batch was sent, or when sending stopped early (an error, the client
        left): what DuckDB still holds of the result is dropped, off the event loop."""
        rows, self.open_stream = self.open_stream, None
        release, self._release_after_stream = self._release_after_stream, False
        if rows is None:
            return
        if not rows.stream.done:
            await self.off_loop(rows.close)
        if release:
            await self.off_loop(self._release_large_statement)

    # -- statements -----------------------------------------------------------------------------
    async def handle_query(self, sql: str, attrs: dict[str, str]) -> AllowedResult:
        self._enter()
        if (
            self.open_stream is not None
        ):  # a stream its connection could not finish (never expected)
            await self.end_stream()
        self.affected_rows = 0
        self.ok_info, self.found_rows_affected = None, None
        self.last_insert_id = 0
        self.statement_warnings = 0
        self.result_meta = {}
        # @@warning_count / @@error_count describe the previous statement: read before clearing.
        self.variables.set("warning_count", self.ctx.warning_count(), force=True)
        self.variables.set("error_count", self.ctx.error_count(), force=True)
        try:
            self._check_size(sql)
            probe = _PROBES.get(_SPACES.sub(" ", sql.strip().rstrip(";").strip()).lower())
            if probe is not None:
                self.ctx.diagnostics = []
                self.engine.metrics.statement_seconds.labels("Probe").observe(0.0)
                return probe
            text = lexer.statement_text(sql) if len(sql) <= INLINE_PARSE_MAX_CHARS else None
            owned = grammar.parse(text) if text is not None else None  # None: not drydock's grammar
            if owned is not None:
                return await self._run(owned, sql, attrs)
            large = len(sql) > memory.LARGE_STATEMENT_CHARS
            try:
                # routed once: text (when cut here) is what the grammar just declined
                statement, result = await self._in_thread(
                    "statements", self._parse_and_query, sql, text
                )
                if result is not None:
                    return self._finish(result)
                return await self._run(statement, sql, attrs)
            finally:
                if large and self.open_stream is not None:  # the cursor still sends its rows
                    self._release_after_stream = True
                elif large:
                    statement = None  # type: ignore[assignment]
                    await self._in_thread("statements", self._release_large_statement)
        except DrydockError as exc:
            self.ctx.diagnostics = [Diagnostic("Error", exc.code, exc.message)]
            raise
        except MysqlError as exc:
            self.ctx.diagnostics = [Diagnostic("Error", int(exc.code), str(exc.msg))]
            raise

    async def describe(
        self, sql: str, num_params: int
    ) -> list[tuple[ResultColumn, ColumnMeta | None]]:
        """COM_STMT_PREPARE: the result columns of a prepared query, before it runs (JDBC
        getMetaData()). The query runs once with NULL parameters and its LIMIT set to 0 on its
        AST, through the whole pipeline (so a table the user may not read is not described).
        Anything but a query, or a query that fails, describes no columns; its execution then
        answers as usual."""
        self._enter()
        text = bind_parameters(sql, [None] * num_params)
        try:
            statement = await self._in_thread("statements", parse, text, self._token_budget())
        except (DrydockError, MysqlError):
            return []
        if not (
            isinstance(statement, ast.SqlStatement)
            and isinstance(statement.expression, session_limits.LIMITABLE)
        ):
            return []
        statement.expression.set(
            "limit", exp.Limit(expression=exp.Literal.number(0))
        )  # no rows read
        diagnostics = list(self.ctx.diagnostics)
        try:
            result = await self._in_thread(
                "statements", execute_statement, self.engine, statement, self.ctx, text
            )
        except (DrydockError, MysqlError):
            return []
        finally:
            self.ctx.diagnostics = diagnostics  # a prepare leaves SHOW WARNINGS as it was
        if result.stream is not None:  # LIMIT 0 reads no rows; never leave a result open
            await self.off_loop(result.stream.close)
            result.stream = None
        wire = to_wire(result, self._results_charset())
        if not (isinstance(wire, tuple) and wire[1]):
            return []
        metas = column_metas(wire, result)
        return [(c, metas[id(c)][1] if id(c) in metas else None) for c in wire[1]]

    def _parse_and_query(
        self, sql: str, text: str | None = None
    ) -> tuple[ast.Statement, Result | None]:
        """In the statements pool: the parse, and for plain SQL the statement too (one thread hop
        per query instead of two). Anything else is left to :meth:`_run`. ``text``: the statement
        text, when the event loop already cut it and the grammar declined it."""
        statement = parse(sql, self._token_budget(), text)
        if not isinstance(statement, ast.SqlStatement):
            return statement, None
        self.ctx.diagnostics = []
        try:
            return statement, execute_statement(self.engine, statement, self.ctx, sql)
        finally:
            self.database = self.ctx.database  # USE / SWITCH / DROP CATALOG move the session

    def _enter(self) -> None:
        self.ctx.user = self.username or ""
        self.ctx.account_host = self.account_host
        self.ctx.database = self.database

    def _check_size(self, sql: str) -> None:
        limit = int(self.engine.config.get(Key.MAX_STATEMENT_BYTES))
        if len(sql) > limit or len(sql.encode("utf-8", "surrogatepass")) > limit:
            raise Errors.STATEMENT_TOO_LARGE.error(
                size=len(sql.encode("utf-8", "surrogatepass")), limit=limit
            )

    def _release_large_statement(self) -> None:
        self.query_session.release()
        memory.release_after_large_statement()

    def _token_budget(self) -> int:
        return int(self.engine.config.get(Key.MAX_STATEMENT_TOKENS))

    async def _run(
        self, statement: ast.Statement, sql: str, attrs: dict[str, str]
    ) -> AllowedResult:
        # SHOW WARNINGS keeps the diagnostics area; EXECUTE leaves it to the statement it runs.
        if not isinstance(statement, (ast.ShowDiagnostics, ast.ExecutePrepared)):
            self.ctx.diagnostics = []
        if statement.by_session:  # SQL-level prepared statements: EXECUTE re-enters this routing
            return await self._prepared_sql(statement, attrs)
        try:
            if statement.inline:
                result = execute_statement(self.engine, statement, self.ctx, sql)
            else:
                result = await self._in_thread(
                    statement.pool, execute_statement, self.engine, statement, self.ctx, sql
                )
        finally:
            self.database = self.ctx.database  # USE / SWITCH / DROP CATALOG move the session
        return self._finish(result)

    async def _prepared_sql(self, statement: ast.Statement, attrs: dict[str, str]) -> AllowedResult:
        """PREPARE / EXECUTE / DEALLOCATE PREPARE (server/sql_prepared.py)."""
        if isinstance(statement, ast.ExecutePrepared):
            bound = sql_prepared.bind(self.ctx, statement)
            self._check_size(bound)
            inner = await self._in_thread("statements", parse, bound, self._token_budget())
            if inner.by_session:  # the prepared text is never PREPARE/EXECUTE
                raise Errors.UNSUPPORTED_PS.error()
            return await self._run(inner, bound, attrs)
        if isinstance(statement, ast.Prepare):
            mode = lexer.text_mode(str(self.variables.get("sql_mode") or ""))
            return self._finish(sql_prepared.prepare(self.ctx, statement, check_syntax, mode))
        assert isinstance(statement, ast.DeallocatePrepare)
        return self._finish(sql_prepared.deallocate(self.ctx, statement))

    async def off_loop(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` in the statements pool: CPU work on a client's text (not a statement)."""
        executor = self.pools.get("statements")
        if executor is None:
            return await asyncio.to_thread(fn, *args)
        return await asyncio.get_running_loop().run_in_executor(executor, fn, *args)

    async def _in_thread(self, pool: str, fn: Callable[..., Any], *args: Any) -> Any:
        self.ctx.cancel.clear()
        self._running_thread_statement = True
        try:
            executor = self.pools.get(pool)
            if executor is None:
                return await asyncio.to_thread(fn, *args)
            return await asyncio.get_running_loop().run_in_executor(executor, fn, *args)
        finally:
            self._running_thread_statement = False

    def _finish(self, result: Result) -> AllowedResult:
        self.ctx.diagnostics.extend(result.warnings)
        self.statement_warnings = len(result.warnings)
        self.affected_rows = result.affected_rows
        self.ok_info, self.found_rows_affected = result.info, result.found_rows_affected
        self.last_insert_id = result.last_insert_id
        wire = to_wire(result, self._results_charset(), self._max_value_bytes())
        self.result_meta = column_metas(wire, result)
        if isinstance(wire, tuple) and isinstance(wire[0], StreamedRows):
            self.open_stream = wire[0]
        return wire

    def _max_value_bytes(self) -> int:
        """The longest value a row may carry: the session's max_allowed_packet, at most the
        server's (server/wire.py MAX_PAYLOAD); MySQL's session value is read-only, a SET here
        can only lower it."""
        try:
            value = int(self.variables.get("max_allowed_packet"))
        except (TypeError, ValueError):
            value = MAX_PAYLOAD
        return max(min(value, MAX_PAYLOAD), 1024)

    def _results_charset(self) -> CharacterSet:
        """character_set_results (NULL: no conversion, utf8mb4 as stored)."""
        return results_charset(self.variables.get("character_set_results"))

    # -- the wire's side (server/wire_session.py) ------------------------------------------------
    def client_connected(self, username: str, charset: CharacterSet) -> None:
        for variable in (
            "character_set_client",
            "character_set_connection",
            "character_set_results",
        ):
            self.variables.set(variable, charset.name)  # as MySQL does
        self.variables.set("external_user", username, force=True)

    def client_changed_user(self, username: str, charset: CharacterSet | None) -> None:
        self.variables.set("external_user", username, force=True)
        if charset:
            self.variables.set("character_set_client", charset.name)

    def logged_out(self) -> None:
        self.username = None

    def logged_in(self, username: str, account_host: str, host: str, connection_id: int) -> None:
        self.username = username
        self.account_host = account_host
        self.ctx.host, self.ctx.connection_id = host, connection_id

    def failed_login(self, username: str, host: str, connection_id: int) -> None:
        """Aggregated per peer, bounded, and logged there (engine/security/audit.py)."""
        self.engine.audit.failed_login(user=username, host=host, connection_id=connection_id)

    def uptime_and_questions(self) -> tuple[int, int]:
        return max(int(time.time() - self.engine.started_at), 1), int(self.engine.questions)

    @property
    def client_host(self) -> str:
        """The logged-in client's host ('' before login): SHOW PROCESSLIST."""
        return str(self.ctx.host)

    @property
    def statement_in_thread(self) -> bool:
        """A statement (not a streamed result's fetch) runs in a worker thread: KILL CONNECTION
        then waits for it (server/connection.py)."""
        return self._running_thread_statement and self.open_stream is None

    @property
    def text_mode(self) -> lexer.TextMode:
        return lexer.text_mode(str(self.variables.get("sql_mode") or ""))

    @property
    def server_charset(self) -> CharacterSet:
        return results_charset(self.variables.get("character_set_results"))

    @property
    def client_charset(self) -> CharacterSet:
        return CharacterSet[str(self.variables.get("character_set_client"))]

    @property
    def server_version(self) -> str:
        return str(self.variables.get("version"))

    @property
    def in_transaction(self) -> bool:
        """For the OK packet's SERVER_STATUS_IN_TRANS flag (server/result_writer.py)."""
        return bool(getattr(self.query_session, "in_transaction", False))

    @property
    def autocommit(self) -> bool:
        return transactions.autocommit(self.ctx)

    @property
    def in_internal_catalog(self) -> bool:
        return self.ctx.catalog.lower() == INTERNAL


# Plain-SQL query shapes (grammar/shapes.py): parsed once per shape, bound per execution.
SHAPES = shapes.QueryShapeCache()


# A short statement of drydock's own grammar (CREATE INDEX, SHOW LANCE INDEX JOBS, CALL, ADMIN …)
# is parsed on the event loop, where its handler is dispatched from: a parse of at most this many
# characters is bounded (LALR, linear; ~0.1–0.5 ms), and it saves a thread hop (a round trip
# through the statements pool before the statement's own pool) per statement.
INLINE_PARSE_MAX_CHARS = 1024


def parse(sql: str, max_tokens: int | None = None, text: str | None = None) -> ast.Statement:
    """The statement object of ``sql``: the grammar's when drydock owns the statement, else a
    plain-SQL statement parsed once by grammar/sql.py (within the token budget) — or, for a query
    whose shape was parsed before, that shape bound to this text's literals. ``text`` is
    ``lexer.statement_text(sql)`` when the caller has it already and the grammar has declined it
    (grammar.parse returned None): a statement is routed once."""
    if text is None:
        text = lexer.statement_text(sql)
        statement = grammar.parse(text)
        if statement is not None:
            return statement
    keyed = shapes.shape_of(text)
    known = False
    if keyed is not None:
        known, shape = SHAPES.get(keyed[0])
        if shape is not None:
            sql_grammar.check_budget(shape.tokens, max_tokens)
            return ast.SqlStatement(text=text, expression=shape.bind(keyed[1], text), fresh=True)
    with memory.gc_paused(len(text) > memory.LARGE_STATEMENT_CHARS):
        expression, _ = sql_grammar.parse_counted(text, max_tokens)
    if keyed is not None and not known:
        SHAPES.put(keyed[0], shapes.build(text, keyed[1], expression, sql_grammar.parse_counted))
    return ast.SqlStatement(text=text, expression=expression, fresh=True)


def check_syntax(sql: str) -> None:
    """PREPARE: the 1064 / 1065 that running ``sql`` would raise for its syntax, now. Owned
    statements with placeholders are checked when executed (the grammar has no ``?``)."""
    text = lexer.statement_text(sql)
    if owns(text):
        if not count_placeholders(text):
            grammar.parse(text)
        return
    sql_grammar.parse(text)
