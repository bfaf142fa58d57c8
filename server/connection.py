"""One MySQL client connection: drydock's own protocol loop, on mysql-mimic's packet encoders.

mysql-mimic's Connection is not used: it answered failed logins and kept serving, dropped idle
connections on KILL QUERY, reset the session on COM_STMT_RESET, lost rows at fetch boundaries and
more (tests/wire/test_upstream_mimic.py pins each defect in the installed library;
tests/wire/test_mimic_defects*.py show drydock answers correctly). The parts:

- server/login.py: handshake, TLS, authentication, COM_CHANGE_USER;
- server/result_writer.py: OK / EOF / ERR packets and text result sets, streamed with backpressure;
- server/stmt_commands.py: COM_STMT_* and their cursors;
- this module: the command loop, KILL, COM_QUERY (multi-statements) and the small commands.

The session is reached only through server/wire_session.py's WireSession.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
import time
from collections.abc import Awaitable, Callable, Sized

from mysql_mimic import types
from mysql_mimic.auth import IdentityProvider
from mysql_mimic.constants import KillKind
from mysql_mimic.errors import MysqlError
from mysql_mimic.stream import ConnectionClosed
from mysql_mimic.types import Capabilities, ServerStatus

from drydock.engine.errors import DrydockError, Errors
from drydock.grammar import lexer
from drydock.server import column_meta, tls, wire
from drydock.server.login import HANDSHAKE_TIMEOUT_SECONDS, Login, LoginFailed, peer_host
from drydock.server.result_writer import ResultWriter
from drydock.server.stmt_commands import StmtCommands
from drydock.server.wire_session import WireSession, canonical, run_query

logger = logging.getLogger(__name__)

Handler = Callable[[bytes], Awaitable[None]]
MORE_RESULTS = int(ServerStatus.SERVER_MORE_RESULTS_EXISTS)
MULTI_STATEMENTS_ON, MULTI_STATEMENTS_OFF = 0, 1  # COM_SET_OPTION's options
KILL_RETRIES = 50  # KILL QUERY re-interrupts every 0.1 s for up to 5 s (_interrupt_statement)


class DrydockConnection:
    def __init__(
        self,
        stream: wire.PacketStream,
        session: WireSession,
        connections: Sized,
        identity_provider: IdentityProvider,
        server_capabilities: Capabilities,
        ssl_context: ssl.SSLContext | None = None,
        require_secure_transport: bool = False,
    ):
        self.stream = stream
        self.session = session
        self.connections = connections  # the server's live connections (COM_STATISTICS' Threads)
        self.writer = ResultWriter(stream, session)
        self.login = Login(
            stream,
            session,
            self.writer,
            identity_provider,
            server_capabilities,
            ssl_context,
            require_secure_transport,
        )
        self.stmts = StmtCommands(session, self.writer)
        self.connection_id = 0  # set by the server before start()
        self.busy = False  # a command is being answered (KILL QUERY targets only busy ones)
        self.command_started = time.monotonic()  # start of the current command, or of idling
        self.statement_seq = 0  # commands answered so far; identifies the one a KILL targets
        self.kill_after_statement = False  # KILL CONNECTION waits for the worker thread's statement
        self._kill: KillKind | None = None
        self._task: asyncio.Task[None] | None = None
        self._handlers: dict[int, Handler] = {
            types.Commands.COM_QUERY: self.handle_query,
            types.Commands.COM_STMT_PREPARE: self.stmts.prepare,
            types.Commands.COM_STMT_SEND_LONG_DATA: self.stmts.send_long_data,
            types.Commands.COM_STMT_EXECUTE: self.stmts.execute,
            types.Commands.COM_STMT_FETCH: self.stmts.fetch,
            types.Commands.COM_STMT_RESET: self.stmts.reset,
            types.Commands.COM_STMT_CLOSE: self.stmts.close,
            types.Commands.COM_PING: self.handle_ok,
            types.Commands.COM_CHANGE_USER: self.handle_change_user,
            types.Commands.COM_RESET_CONNECTION: self.handle_reset_connection,
            types.Commands.COM_DEBUG: self.handle_ok,
            types.Commands.COM_INIT_DB: self.handle_init_db,
            types.Commands.COM_FIELD_LIST: self.handle_field_list,
            types.Commands.COM_STATISTICS: self.handle_statistics,
            types.Commands.COM_SET_OPTION: self.handle_set_option,
        }

    async def start(self) -> None:
        """Serve the connection until it ends. KILL CONNECTION cancels the inner task."""
        self._task = asyncio.create_task(self._serve())
        try:
            await self._task
        finally:
            self._task = None

    async def _serve(self) -> None:
        if not await self._log_in():
            return
        try:
            await self.command_phase()
        except asyncio.CancelledError:
            if self._kill == KillKind.CONNECTION:
                await self.writer.write_quietly(self.writer.error(Errors.SESSION_KILLED.error()))
            else:
                raise
        finally:
            await self.session.close()

    async def _log_in(self) -> bool:
        """The login, bounded by HANDSHAKE_TIMEOUT_SECONDS; False when the connection must end
        (a client that leaves or is dropped during login costs one log line, never a traceback)."""
        try:
            await asyncio.wait_for(
                self.login.handshake(self.connection_id), HANDSHAKE_TIMEOUT_SECONDS
            )
            await self.session.opened(
                peer_host(self.stream), self.connection_id, tls.cipher(self.stream.writer)
            )
            return True
        except LoginFailed:
            return False
        except (ConnectionClosed, asyncio.IncompleteReadError, OSError) as exc:  # reset/TLS/timeout
            logger.info("connection %s ended during login: %s", self.connection_id, _login_end(exc))
        except wire.MalformedPacket as exc:
            logger.info("connection %s refused: bad handshake: %s", self.connection_id, exc)
            error = Errors.HANDSHAKE.error(detail=str(exc))
            await self.writer.write_quietly(self.writer.error(error))
        except MysqlError as exc:
            await self.writer.write_quietly(self.writer.error_of(exc))
        return False

    # -- command phase -----------------------------------------------------------------------------
    async def command_phase(self) -> None:
        self.stream.max_payload = wire.MAX_PAYLOAD  # logged in: MySQL's max_allowed_packet
        while True:
            try:
                data = await self.stream.read()
            except (ConnectionClosed, ConnectionError, asyncio.IncompleteReadError):
                return
            except wire.MalformedPacket as exc:  # the stream cannot resynchronise: answer, close
                spec = (
                    Errors.NET_PACKET_TOO_LARGE
                    if isinstance(exc, wire.PacketTooLarge)
                    else Errors.NET_PACKETS_OUT_OF_ORDER
                )
                self.stream.reset_seq()
                await self.writer.write_quietly(self.writer.error(spec.error()))
                return
            if not data or data[0] == types.Commands.COM_QUIT:
                return
            await self.stmts.before_command(data)
            if not await self._answer(data):
                return
            if self.kill_after_statement:  # KILL CONNECTION arrived while a worker thread ran it
                return

    async def _answer(self, data: bytes) -> bool:
        """One command and its answer (an ERR for any error); False when the connection must end."""
        handler = self._handlers.get(data[0])
        self.busy = True
        self.command_started = time.monotonic()  # SHOW PROCESSLIST's Time
        self.statement_seq += 1
        try:
            if handler is None:
                raise Errors.UNKNOWN_COMMAND.error(detail=hex(data[0]))
            await handler(data[1:])
        except LoginFailed:
            return False
        except (DrydockError, MysqlError) as exc:
            await self.stream.write(self.writer.error_of(exc))
        except wire.MalformedPacket as exc:
            error = Errors.MALFORMED_PACKET.error(detail=str(exc))
            await self.stream.write(self.writer.error(error))
        except (ConnectionError, OSError):
            return False
        except Exception as exc:  # noqa: BLE001 - the last line of defence for one statement
            logger.exception("statement failed")
            await self.stream.write(
                self.writer.error(
                    Errors.INTERNAL.error(detail=f"internal error: {type(exc).__name__}: {exc}")
                )
            )
        finally:
            self.busy = False
            self.command_started = time.monotonic()
            self.stream.reset_seq()
        return True

    # -- KILL --------------------------------------------------------------------------------------
    def kill(self, kind: KillKind = KillKind.CONNECTION) -> None:
        """KILL QUERY interrupts the running statement (its worker thread then fails with 1317
        through the ordinary error path) and never cancels the connection's task: upstream cancels
        it, so a KILL QUERY that lands while the connection is idle, or just as its statement
        finishes, drops the connection.

        KILL CONNECTION interrupts the statement too. While a worker thread runs it, the task is not
        cancelled (the session's DuckDB cursor cannot be closed under a running statement): the
        statement fails with 1317 and the command loop then ends the connection. Otherwise the task
        is cancelled.
        """
        # A streamed result's fetch is awaited so that cancelling the task waits for it
        # (DrydockSession.next_rows): the task is cancelled even while its worker thread runs, so
        # a client that stopped reading is dropped at once, not when it reads again.
        in_thread = self.session.statement_in_thread
        if self.busy:
            self._interrupt_statement(self.statement_seq, tries=KILL_RETRIES)
        if kind != KillKind.CONNECTION:
            return
        if self.busy and in_thread:
            self.kill_after_statement = True
            return
        if self._task is not None:
            self._kill = kind
            self._task.cancel()

    def _interrupt_statement(self, statement: int, tries: int) -> None:
        """Interrupt statement number ``statement`` every 0.1 s until it ends (at most ``tries``
        times): an interrupt that lands after the worker thread started but before DuckDB began
        executing would otherwise be lost."""
        if not self.busy or self.statement_seq != statement or tries <= 0:
            return
        self.session.interrupt()
        try:
            asyncio.get_running_loop().call_later(
                0.1, self._interrupt_statement, statement, tries - 1
            )
        except RuntimeError:  # not on the event loop: one interrupt is all we can do
            pass

    # -- COM_QUERY ---------------------------------------------------------------------------------
    # Statement text is read under the session's sql_mode (NO_BACKSLASH_ESCAPES, ANSI_QUOTES) here,
    # where it arrives, and respelt for the default mode (grammar/lexer.py canonical): everything
    # after (session, grammars, caches, placeholders, audit) reads only the default spelling.
    async def handle_query(self, data: bytes) -> None:
        mode = self.session.text_mode
        sql = wire.decode_text(self.session.client_charset, data, mode)  # invalid bytes: 1835
        if Capabilities.CLIENT_MULTI_STATEMENTS in self.writer.capabilities:
            # in the statements pool: cutting megabytes of text is seconds of Python, which on
            # the event loop would stall every other connection
            spans = await self.session.off_loop(lexer.statement_spans, sql, mode)
            if len(spans) > 1:
                await self._multi_query(sql, spans, mode)
                return
        text = await canonical(self.session, sql, mode)
        await self.writer.write_answer(await run_query(self.session, text))

    async def _multi_query(
        self, sql: str, spans: list[tuple[int, int]], mode: lexer.TextMode
    ) -> None:
        """CLIENT_MULTI_STATEMENTS: each statement's result in turn, every one but the last with
        SERVER_MORE_RESULTS_EXISTS; an error is the last answer (the rest does not run), as in
        MySQL. Each statement goes through the same path as a single COM_QUERY. A statement that
        changes how text reads (SET sql_mode) changes it for the statements after it, as in MySQL:
        the rest of the text is split again under the new mode."""
        try:
            i = 0
            while i < len(spans):
                start, end = spans[i]
                text = await canonical(self.session, sql[start:end], mode)
                result_set = await run_query(self.session, text)
                now = self.session.text_mode
                if now != mode:
                    rest = sql[end:]
                    cut = await self.session.off_loop(lexer.statement_spans, rest, now)
                    spans = spans[: i + 1] + [
                        (end + a, end + b) for a, b in cut if lexer.has_statement(rest[a:b], now)
                    ]
                    mode = now
                more = i < len(spans) - 1
                self.writer.more_results = MORE_RESULTS if more else 0
                await self.writer.write_answer(result_set)
                i += 1
        finally:
            self.writer.more_results = 0

    # -- the other commands ------------------------------------------------------------------------
    async def handle_ok(self, data: bytes) -> None:
        """COM_PING, COM_DEBUG: an OK."""
        await self.stream.write(self.writer.ok())

    async def handle_set_option(self, data: bytes) -> None:
        """COM_SET_OPTION (mysqli::multi_query, mysql_set_server_option): option 0 turns
        multi-statements on for this connection, 1 off; answered with an EOF (an OK under
        CLIENT_DEPRECATE_EOF), as MySQL does. Another option or a short packet is 1047."""
        option = int.from_bytes(data[:2], "little") if len(data) >= 2 else -1
        if option not in (MULTI_STATEMENTS_ON, MULTI_STATEMENTS_OFF):
            raise Errors.UNKNOWN_COMMAND.error(detail=f"COM_SET_OPTION {option}")
        if option == MULTI_STATEMENTS_ON:
            self.writer.capabilities |= Capabilities.CLIENT_MULTI_STATEMENTS
        else:
            self.writer.capabilities &= ~Capabilities.CLIENT_MULTI_STATEMENTS
        await self.stream.write(self.writer.ok_or_eof())

    async def handle_change_user(self, data: bytes) -> None:
        await self.login.change_user(data, self.connection_id)

    async def handle_statistics(self, data: bytes) -> None:
        """COM_STATISTICS (``mariadb-admin status``, the CLI's ``status``): one human-readable
        line, not an OK packet."""
        uptime, questions = self.session.uptime_and_questions()
        text = (
            f"Uptime: {uptime}  Threads: {len(self.connections)}  Questions: {questions}  "
            f"Slow queries: 0  Opens: 0  Flush tables: 0  Open tables: 0  "
            f"Queries per second avg: {questions / uptime:.3f}"
        )
        await self.stream.write(text.encode("utf-8"))

    async def handle_init_db(self, data: bytes) -> None:
        await self.session.use(wire.decode_text(self.session.client_charset, data))
        await self.stream.write(self.writer.database_ok())

    async def handle_reset_connection(self, data: bytes) -> None:
        await self.session.reset()
        await self.stream.write(self.writer.ok())

    async def handle_field_list(self, data: bytes) -> None:
        """COM_FIELD_LIST (the mysql CLI's auto-rehash): each column's definition as a SELECT of
        the table sends it (types, lengths and flags from the data dictionary, server/
        column_meta.py), followed by its default as SHOW COLUMNS shows it."""
        field_list = wire.parse_com_field_list(self.session.client_charset, data)
        table = "`" + field_list.table.replace("`", "``") + "`"
        shown = await run_query(self.session, f"SHOW COLUMNS FROM {table}")
        defaults = {str(row[0]).lower(): row[4] for row in shown.rows}
        probe = await run_query(self.session, f"SELECT * FROM {table} LIMIT 0")
        charset = self.session.server_charset
        for column in probe.columns:
            default = defaults.get(column.name.lower())
            tail = (
                types.uint_len(0)
                if default is None
                else types.uint_len(len(encoded := charset.encode(str(default))))
                + types.str_len(encoded)
            )  # the default values of COM_FIELD_LIST, as mysql-mimic writes them
            definition = column_meta.definition(column, self.writer.column_meta(column), charset)
            await self.stream.write(definition + tail, drain=False)
        await self.stream.write(self.writer.ok_or_eof())


def _login_end(exc: BaseException) -> str:
    """Why a connection ended before login, in a few words (one log line, no traceback)."""
    if isinstance(exc, (ConnectionClosed, asyncio.IncompleteReadError)):
        return "the client closed the connection"
    if isinstance(exc, TimeoutError):
        return f"no login within {HANDSHAKE_TIMEOUT_SECONDS:g} s"
    return f"{type(exc).__name__}: {exc}"
