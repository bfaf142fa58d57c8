"""mysql-mimic's Connection with its defects closed (reference: mysql-mimic facts §8).

Each override names the defect it closes. tests/wire/test_mimic_defects.py and
tests/wire/test_mimic_defects_sql.py have one test per defect that fails on the unpatched library;
tests/wire/test_upstream_mimic.py shows each defect is still in the installed library.

- failed login / failed COM_CHANGE_USER: the upstream connection answers ERR and keeps serving;
  here it closes. Unknown user and wrong password get the same 1045.
- pre-auth freeze: packets with NUL-terminated strings are parsed by server/wire.py (bounded);
  packets are read by wire.PacketStream (split headers, size limits); a client that has not logged
  in within HANDSHAKE_TIMEOUT_SECONDS is dropped.
- prepared statements: parameters are bound as escaped literals at real placeholder positions
  (never pasted with ``re.sub``); the PREPARE response honours CLIENT_DEPRECATE_EOF.
- the OK/EOF that ends a result set carries affected_rows 0 (Connector/J 2.x crashes otherwise)
  and the statement's warning count; OKs carry the real affected rows and warnings.
- the handshake advertises autocommit; COM_STMT_RESET no longer resets the session.
- KILL QUERY interrupts the running statement and never drops the connection (upstream drops
  an idle one); KILL CONNECTION lets the worker thread stop before the session is closed.
- TLS: upstream's STARTTLS races the ClientHello (it can sit unread in the StreamReader when
  start_tls begins); server/tls.py upgrades without losing it. With ``require_secure_transport``
  a plain-text login gets 3159. Without a certificate CLIENT_SSL is not offered.
- a client that leaves (or is dropped) during login costs one log line, never a traceback.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import os
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any

from mysql_mimic import packets, types
from mysql_mimic.auth import AuthInfo, Forbidden, Success, User
from mysql_mimic.connection import Connection
from mysql_mimic.constants import KillKind
from mysql_mimic.errors import MysqlError
from mysql_mimic.packets import HandshakeResponse41, SSLRequest
from mysql_mimic.prepared import PreparedStatement
from mysql_mimic.stream import ConnectionClosed
from mysql_mimic.types import Capabilities, ServerStatus

from drydock.engine.errors import DrydockError, Errors, sqlstate_of
from drydock.grammar import lexer
from drydock.server import column_meta, tls, wire
from drydock.server.prepared import bind_parameters, count_placeholders
from drydock.server.results import StreamedRows

logger = logging.getLogger(__name__)

_IN_TRANS = int(ServerStatus.SERVER_STATUS_IN_TRANS)
_AUTOCOMMIT = int(ServerStatus.SERVER_STATUS_AUTOCOMMIT)
_NO_BACKSLASH_ESCAPES = int(ServerStatus.SERVER_STATUS_NO_BACKSLASH_ESCAPES)


def _env_seconds(name: str, default: float) -> float:
    try:
        value = float(os.environ.get(name, default))
    except ValueError:
        return default
    return value if value > 0 else default


# A client that has not finished logging in within this time is dropped (tests lower it).
HANDSHAKE_TIMEOUT_SECONDS = _env_seconds("DRYDOCK_HANDSHAKE_TIMEOUT_SECONDS", 10.0)


RESULT_HEADERS_PER_CONNECTION = 64
QUIET_WRITE_SECONDS = 1.0  # the last packet to a connection that is closing (_write_quietly)


class LoginFailed(Exception):
    """Raised after the 1045 was sent: the connection must close."""


class DrydockConnection(Connection):
    def __init__(self, *args: Any, require_secure_transport: bool = False, **kwargs: Any):
        super().__init__(*args, **kwargs)  # ssl=context: upstream then advertises CLIENT_SSL
        self.require_secure_transport = require_secure_transport
        self.status_flags = ServerStatus.SERVER_STATUS_AUTOCOMMIT
        self.busy = False  # a command is being answered (KILL QUERY targets only busy ones)
        self.command_started = time.monotonic()  # start of the current command, or of idling
        self.statement_seq = 0  # commands answered so far; identifies the one a KILL targets
        self.kill_after_statement = False  # KILL CONNECTION waits for the worker thread's statement
        self._headers: dict[Any, list[bytes]] = {}  # encoded result headers (_result_header)
        self._more_results = 0  # SERVER_MORE_RESULTS_EXISTS while a multi-statement query answers
        self._lazy_cursor: _LazyCursor | None = None  # a COM_STMT_FETCH cursor whose rows DuckDB still has

    # -- errors ---------------------------------------------------------------------------------
    def error(self, msg: Any = "", code: int = 1105, sqlstate: str | None = None, **_: Any) -> bytes:
        if isinstance(msg, DrydockError):
            code, sqlstate, msg = msg.code, msg.sqlstate, msg.message
        parts = [b"\xff", int(code).to_bytes(2, "little")]
        if Capabilities.CLIENT_PROTOCOL_41 in self.capabilities or not self.capabilities:
            state = sqlstate or sqlstate_of(int(code))
            parts.append(b"#" + state.encode("ascii"))
        parts.append(str(msg).encode("utf-8", "replace"))
        return b"".join(parts)

    # -- connection phase -------------------------------------------------------------------------
    async def _start(self) -> None:
        try:
            await asyncio.wait_for(self.connection_phase(), HANDSHAKE_TIMEOUT_SECONDS)
            await self.session.init(self)
        except LoginFailed:
            return
        except (ConnectionClosed, asyncio.IncompleteReadError, OSError) as exc:  # resets, TLS, timeout
            logger.info("connection %s ended during login: %s", self.connection_id, _login_end(exc))
            return
        except wire.MalformedPacket as exc:
            logger.info("connection %s refused: bad handshake: %s", self.connection_id, exc)
            await self._write_quietly(self.error(msg=Errors.HANDSHAKE.error(detail=str(exc))))
            return
        except MysqlError as exc:
            await self._write_quietly(self.error(msg=exc.msg, code=exc.code))
            return
        try:
            await self.command_phase()
        except asyncio.CancelledError:
            if self._kill == KillKind.CONNECTION:
                await self._write_quietly(self.error(msg=Errors.SESSION_KILLED.error()))
            else:
                raise
        finally:
            await self.session.close()

    async def _write_quietly(self, packet: bytes) -> None:
        """A last packet before the connection closes. Bounded: a client that stopped reading
        (KILL CONNECTION mid-result) would otherwise keep the connection in drain() forever."""
        try:
            await asyncio.wait_for(self.stream.write(packet), QUIET_WRITE_SECONDS)
        except (ConnectionError, OSError, TimeoutError):
            pass

    async def connection_phase(self) -> None:
        plugin = self.identity_provider.get_default_plugin()
        auth_data, auth_state = await plugin.start()
        assert isinstance(auth_data, bytes)
        self.handshake_auth_data = auth_data
        self.handshake_auth_plugin = plugin.name
        await self.stream.write(packets.make_handshake_v10(
            capabilities=self.server_capabilities, server_charset=self.server_charset,
            server_version=str(self.session.variables.get("version")),
            connection_id=self.connection_id, auth_data=auth_data,
            status_flags=self.status_flags, auth_plugin_name=plugin.name,
        ))
        response = await self._handshake_response()
        self.capabilities = response.capabilities
        self.max_packet_size = response.max_packet_size
        for variable in ("character_set_client", "character_set_connection", "character_set_results"):
            self.session.variables.set(variable, response.client_charset.name)  # as MySQL does
        self.client_plugin_name = response.client_plugin
        self.client_connect_attrs = response.connect_attrs
        self.session.variables.set("external_user", response.username, force=True)
        await self.authenticate(
            auth_state=auth_state, server_plugin=plugin, username=response.username,
            client_plugin_name=response.client_plugin, auth_response=response.auth_response,
            connect_attrs=response.connect_attrs, database=response.database,
        )
        self.stream.reset_seq()

    async def _handshake_response(self) -> HandshakeResponse41:
        """The client's HandshakeResponse41, read over TLS when it sent an SSLRequest first."""
        response = wire.parse_handshake_response(self.server_capabilities, await self.stream.read())
        if isinstance(response, SSLRequest):
            if self.ssl is None:
                raise wire.MalformedPacket("TLS was requested but this server does not offer it")
            await tls.upgrade(self.stream.reader, self.stream.writer, self.ssl, HANDSHAKE_TIMEOUT_SECONDS)
            response = wire.parse_handshake_response(self.server_capabilities, await self.stream.read())
            if isinstance(response, SSLRequest):
                raise wire.MalformedPacket("a second SSLRequest inside TLS")
        elif self.require_secure_transport:
            logger.info("connection %s refused: plain-text login while require_secure_transport is on",
                        self.connection_id)
            await self._write_quietly(self.error(msg=Errors.INSECURE_TRANSPORT.error()))
            raise LoginFailed(response.username)
        return response

    async def authenticate(self, username: str, auth_response: bytes, client_plugin_name: str | None,
                           connect_attrs: dict[str, str], auth_state: Any = None,
                           server_plugin: Any = None, database: str | None = None) -> None:
        """Upstream answers ERR and carries on serving; this raises LoginFailed after the ERR.

        An unknown user is checked against a random password so that it fails exactly like a
        wrong password (same code, same text, same round trips).
        """
        self.session.username = None
        peer = self.stream.writer.get_extra_info("peername")
        host = peer[0] if peer else "localhost"
        user = await self.identity_provider.get_user(username, host)  # type: ignore[call-arg]
        known = user is not None
        if user is None:
            user = User(name=username, auth_string=secrets.token_hex(20), auth_plugin=None)
        decision = await self._run_auth_plugin(user, username, auth_response, client_plugin_name,
                                               connect_attrs, auth_state, server_plugin)
        if known and isinstance(decision, Success):
            self.session.username = decision.authenticated_as
            self.session.account_host = getattr(user, "host", "%")  # type: ignore[attr-defined]
            ctx = getattr(self.session, "ctx", None)
            if ctx is not None:
                ctx.host, ctx.connection_id = host, self.connection_id
            if database:  # checked before the OK, so a bad database fails the login cleanly
                try:
                    await self.session.use(database)
                except (DrydockError, MysqlError) as exc:
                    await self._write_quietly(self.error(msg=exc) if isinstance(exc, DrydockError)
                                              else self.error(msg=exc.msg, code=exc.code))
                    raise LoginFailed(username) from None
            await self.stream.write(self.ok())
            return
        using = "YES" if auth_response else "NO"
        engine = getattr(self.session, "engine", None)
        if engine is not None:  # aggregated per peer, bounded, and logged there (engine/security/audit.py)
            engine.audit.failed_login(user=username, host=host, connection_id=self.connection_id)
        await self._write_quietly(self.error(msg=Errors.ACCESS_DENIED.error(user=username, host=host, using=using)))
        raise LoginFailed(username)

    async def _run_auth_plugin(self, user: User, username: str, auth_response: bytes,
                               client_plugin_name: str | None, connect_attrs: dict[str, str],
                               auth_state: Any, server_plugin: Any) -> Any:
        user_plugin = (self.identity_provider.get_plugin(user.auth_plugin or "")
                       or self.identity_provider.get_default_plugin())
        assert self.handshake_auth_plugin is not None
        info = AuthInfo(username=username, data=auth_response, connect_attrs=connect_attrs, user=user,
                        client_plugin_name=client_plugin_name,
                        handshake_auth_data=self.handshake_auth_data,
                        handshake_plugin_name=self.handshake_auth_plugin)
        if (server_plugin is not None and auth_state is not None
                and server_plugin.client_plugin_name in (None, client_plugin_name)
                and server_plugin.name == user_plugin.name):
            decision = await auth_state.asend(info)
        elif user_plugin.client_plugin_name in (None, client_plugin_name):
            decision, auth_state = await user_plugin.start(info)
        else:
            decision, auth_state = await user_plugin.start()
            if user_plugin.client_plugin_name and isinstance(decision, bytes):
                await self.stream.write(packets.make_auth_switch_request(
                    server_charset=self.server_charset, plugin_name=user_plugin.client_plugin_name,
                    plugin_provided_data=decision))
                info = info.copy(await self.stream.read())
                decision = await auth_state.asend(info)
        rounds = 0
        while not isinstance(decision, (Success, Forbidden)):
            rounds += 1
            if rounds > 8:  # a plugin conversation that never ends is a failed login
                return Forbidden()
            await self.stream.write(packets.make_auth_more_data(decision))
            info = info.copy(await self.stream.read())
            decision = await auth_state.asend(info)
        return decision

    async def handle_change_user(self, data: bytes) -> None:
        change = wire.parse_com_change_user(self.capabilities, self.client_charset, data)
        self.session.variables.set("external_user", change.username, force=True)
        if change.client_charset:
            self.session.variables.set("character_set_client", change.client_charset.name)
        if change.connect_attrs:
            self.client_connect_attrs = change.connect_attrs
        # The session is reset first and the database goes through the same access check as the
        # handshake, COM_INIT_DB and USE (DrydockSession.use), before the OK.
        await self.session.reset()
        self.session.database = None
        try:
            await self.authenticate(username=change.username, auth_response=change.auth_response,
                                    client_plugin_name=change.client_plugin,
                                    connect_attrs=change.connect_attrs, database=change.database or None)
        except LoginFailed:
            raise
        except Exception as exc:  # fail closed: never keep serving after a broken re-login
            logger.exception("COM_CHANGE_USER failed; closing the connection")
            await self._write_quietly(self.error(msg=Errors.INTERNAL.error(detail=f"change user failed: {exc}")))
            raise LoginFailed(change.username) from None

    # -- command phase ------------------------------------------------------------------------------
    async def command_phase(self) -> None:
        handlers = {
            types.Commands.COM_QUERY: self.handle_query,
            types.Commands.COM_STMT_PREPARE: self.handle_stmt_prepare,
            types.Commands.COM_STMT_SEND_LONG_DATA: self.handle_stmt_send_long_data,
            types.Commands.COM_STMT_EXECUTE: self.handle_stmt_execute,
            types.Commands.COM_STMT_FETCH: self.handle_stmt_fetch,
            types.Commands.COM_STMT_RESET: self.handle_stmt_reset,
            types.Commands.COM_STMT_CLOSE: self.handle_stmt_close,
            types.Commands.COM_PING: self.handle_ping,
            types.Commands.COM_CHANGE_USER: self.handle_change_user,
            types.Commands.COM_RESET_CONNECTION: self.handle_reset_connection,
            types.Commands.COM_DEBUG: self.handle_debug,
            types.Commands.COM_INIT_DB: self.handle_init_db,
            types.Commands.COM_FIELD_LIST: self.handle_field_list,
            types.Commands.COM_STATISTICS: self.handle_statistics,
        }
        if isinstance(self.stream, wire.PacketStream):
            self.stream.max_payload = wire.MAX_PAYLOAD  # logged in: MySQL's max_allowed_packet
        while True:
            try:
                data = await self.stream.read()
            except (ConnectionClosed, ConnectionError, asyncio.IncompleteReadError):
                return
            except wire.MalformedPacket as exc:  # the stream cannot be resynchronised: answer, close
                spec = (Errors.NET_PACKET_TOO_LARGE if isinstance(exc, wire.PacketTooLarge)
                        else Errors.NET_PACKETS_OUT_OF_ORDER)
                self.stream.reset_seq()
                await self._write_quietly(self.error(msg=spec.error()))
                return
            if not data or data[0] == types.Commands.COM_QUIT:
                return
            handler = handlers.get(data[0])  # type: ignore[call-overload]
            if self.__dict__.get("_lazy_cursor") is not None and data[0] != types.Commands.COM_STMT_FETCH:
                await self._settle_lazy_cursor(data)
            self.busy = True
            self.command_started = time.monotonic()  # SHOW PROCESSLIST's Time
            self.statement_seq += 1
            try:
                if handler is None:
                    raise Errors.UNKNOWN_COMMAND.error(detail=hex(data[0]))
                await handler(data[1:])
            except LoginFailed:
                return
            except DrydockError as exc:
                await self.stream.write(self.error(msg=exc))
            except MysqlError as exc:
                await self.stream.write(self.error(msg=exc.msg, code=exc.code))
            except wire.MalformedPacket as exc:
                await self.stream.write(self.error(msg=Errors.MALFORMED_PACKET.error(detail=str(exc))))
            except (ConnectionError, OSError):
                return
            except Exception as exc:  # noqa: BLE001 - the last line of defence for one statement
                logger.exception("statement failed")
                await self.stream.write(self.error(
                    msg=Errors.INTERNAL.error(detail=f"internal error: {type(exc).__name__}: {exc}")))
            finally:
                self.busy = False
                self.command_started = time.monotonic()
                self.stream.reset_seq()
            if self.kill_after_statement:  # KILL CONNECTION arrived while a worker thread ran it
                return

    async def _settle_lazy_cursor(self, data: bytes) -> None:
        """Another command while a cursor's rows are still in DuckDB: the session's DuckDB cursor
        is about to serve something else, which the pending result would not survive. Closing,
        resetting or executing again that statement drops the rest (its cursor is closed, as in
        MySQL); anything else reads the rest now (as packets, served to later COM_STMT_FETCHes),
        as the cursor fetch did for every result before."""
        lazy, self._lazy_cursor = self._lazy_cursor, None
        assert lazy is not None
        stmt_id = int.from_bytes(data[1:5], "little") if len(data) >= 5 else -1
        ends_cursor = (types.Commands.COM_STMT_CLOSE, types.Commands.COM_STMT_RESET, types.Commands.COM_STMT_EXECUTE)
        if data[0] in ends_cursor and stmt_id == lazy.stmt_id:
            await lazy.close()
        else:
            await lazy.materialize()

    def kill(self, kind: KillKind = KillKind.CONNECTION) -> None:
        """KILL QUERY interrupts the running statement (its worker thread then fails with 1317
        through the ordinary error path) and never cancels the connection's task: upstream cancels
        it, so a KILL QUERY that lands while the connection is idle, or just as its statement
        finishes, drops the connection.

        KILL CONNECTION interrupts the statement too. While a worker thread runs it, the task is not
        cancelled (the session's DuckDB cursor cannot be closed under a running statement): the
        statement fails with 1317 and the command loop then ends the connection. Otherwise the task
        is cancelled, as upstream does.
        """
        # A streamed result's fetch is awaited so that cancelling the task waits for it
        # (DrydockSession.next_rows): the task is cancelled even while its worker thread runs, so
        # a client that stopped reading is dropped at once, not when it reads again.
        in_thread = (bool(getattr(self.session, "_running_thread_statement", False))
                     and getattr(self.session, "open_stream", None) is None)
        if self.busy:
            self._interrupt_statement(self.statement_seq, tries=50)
        if kind != KillKind.CONNECTION:
            return
        if self.busy and in_thread:
            self.kill_after_statement = True
            return
        super().kill(kind)

    def _interrupt_statement(self, statement: int, tries: int) -> None:
        """Interrupt statement number ``statement`` every 0.1 s until it ends (at most ``tries``
        times): an interrupt that lands after the worker thread started but before DuckDB began
        executing would otherwise be lost."""
        if not self.busy or self.statement_seq != statement or tries <= 0:
            return
        interrupt = getattr(self.session, "interrupt", None)
        if interrupt is not None:
            interrupt()
        try:
            asyncio.get_running_loop().call_later(0.1, self._interrupt_statement, statement, tries - 1)
        except RuntimeError:  # not on the event loop: one interrupt is all we can do
            pass

    # -- OK packets carry the statement's affected rows, generated key and warnings ---------------
    def _statement_ok(self) -> bytes:
        return self.ok(affected_rows=getattr(self.session, "affected_rows", 0),
                       last_insert_id=getattr(self.session, "last_insert_id", 0),
                       warnings=getattr(self.session, "statement_warnings", 0),
                       flags=self.__dict__.get("_more_results", 0))

    @property
    def status_flags(self) -> ServerStatus:
        """The status of every OK/EOF: IN_TRANS while the session's transaction is open,
        AUTOCOMMIT as the session's autocommit variable says (engine/sql/transactions.py), and
        NO_BACKSLASH_ESCAPES while the sql_mode has it (drivers such as mysql-connector and pymysql
        read it to choose how they escape parameters: doubled quotes instead of backslashes)."""
        # on plain ints, one flag member at the end (the packets take only a ServerStatus): each
        # operation on the IntFlag went through the enum machinery, several per statement
        flags = int(self._status_flags) & ~(_IN_TRANS | _AUTOCOMMIT | _NO_BACKSLASH_ESCAPES)
        session = getattr(self, "session", None)
        if getattr(session, "in_transaction", False):
            flags |= _IN_TRANS
        if getattr(session, "autocommit", True):
            flags |= _AUTOCOMMIT
        if not self._text_mode().backslash_escapes:
            flags |= _NO_BACKSLASH_ESCAPES
        return ServerStatus(flags)

    @status_flags.setter
    def status_flags(self, value: int) -> None:
        self._status_flags = value

    def _text_mode(self) -> lexer.TextMode:
        """How the session's sql_mode reads statement text (grammar/lexer.py)."""
        variables = getattr(getattr(self, "session", None), "variables", None)
        if variables is None:
            return lexer.DEFAULT_MODE
        return lexer.text_mode(str(variables.get("sql_mode") or ""))

    def _end_of_rows(self, flags: int = 0) -> bytes:
        """The OK/EOF after result rows: affected_rows is always 0 (Connector/J 2.x reads a
        non-zero value here as a string length and crashes)."""
        return self.ok_or_eof(affected_rows=0, warnings=getattr(self.session, "statement_warnings", 0),
                              flags=flags | self.__dict__.get("_more_results", 0))

    # Statement text is read under the session's sql_mode (NO_BACKSLASH_ESCAPES, ANSI_QUOTES) here,
    # where it arrives, and respelt for the default mode (grammar/lexer.py canonical): everything
    # after (session, grammars, caches, placeholders, audit) reads only the default spelling.
    async def handle_query(self, data: bytes) -> None:
        mode = self._text_mode()
        sql = wire.decode_text(self.client_charset, data, mode)  # invalid bytes: 1835, not an internal error
        if Capabilities.CLIENT_MULTI_STATEMENTS in self.capabilities:
            # in the statements pool: cutting megabytes of text is seconds of Python, which on
            # the event loop would stall every other connection
            spans = await self.session.off_loop(lexer.statement_spans, sql, mode)
            if len(spans) > 1:
                await self._multi_query(sql, spans, mode)
                return
        await self._write_answer(await self.query(await self._canonical(sql, mode), {}))

    async def _canonical(self, sql: str, mode: lexer.TextMode) -> str:
        if mode == lexer.DEFAULT_MODE:
            return sql
        return str(await self.session.off_loop(lexer.canonical, sql, mode))

    async def _write_answer(self, result_set: Any) -> None:
        if not result_set:
            await self.stream.write(self._statement_ok())
            return
        await self.write_text_resultset(result_set)

    async def _multi_query(self, sql: str, spans: list[tuple[int, int]], mode: lexer.TextMode) -> None:
        """CLIENT_MULTI_STATEMENTS: each statement's result in turn, every one but the last with
        SERVER_MORE_RESULTS_EXISTS; an error is the last answer (the rest does not run), as in
        MySQL. Each statement goes through the same path as a single COM_QUERY. A statement that
        changes how text reads (SET sql_mode) changes it for the statements after it, as in MySQL:
        the rest of the text is split again under the new mode."""
        try:
            i = 0
            while i < len(spans):
                start, end = spans[i]
                result_set = await self.query(await self._canonical(sql[start:end], mode), {})
                now = self._text_mode()
                if now != mode:
                    rest = sql[end:]
                    spans = spans[:i + 1] + [(end + a, end + b) for a, b in
                                             await self.session.off_loop(lexer.statement_spans, rest, now)
                                             if lexer.has_statement(rest[a:b], now)]
                    mode = now
                self._more_results = ServerStatus.SERVER_MORE_RESULTS_EXISTS if i < len(spans) - 1 else 0
                await self._write_answer(result_set)
                i += 1
        finally:
            self._more_results = 0

    async def write_text_resultset(self, result_set: Any) -> None:
        self.stream.write_many(self._result_header(result_set.columns))
        if isinstance(result_set.rows, StreamedRows):
            columns = result_set.columns

            async def write(batch: Any) -> None:
                self.stream.write_text_rows(batch, columns)

            await self._send_streamed(result_set.rows, write)
            await self.stream.write(self._end_of_rows(), drain=False)
            await self.stream.drain()
            return
        rows = list(result_set.rows)
        batch = 10_000
        for i in range(0, len(rows), batch):
            self.stream.write_text_rows(rows[i : i + batch], result_set.columns)
            if i + batch < len(rows):
                await asyncio.sleep(0)
        await self.stream.write(self._end_of_rows(), drain=False)
        await self.stream.drain()

    async def _send_streamed(self, rows: StreamedRows, write: Callable[[Any], Awaitable[None]]) -> None:
        """A streamed result's rows (server/results.py), batch by batch: each batch is encoded
        and written, then drain() waits until the socket has taken most of it before the next
        batch is fetched — so a client that stops reading holds the server to about one batch
        and the kernel's socket buffers, never the whole result. An error while fetching (a
        DuckDB error on row 1,000,000, KILL QUERY) propagates after the rows already sent: the
        command loop answers it with an ERR packet, as MySQL does mid-result.

        The next batch is fetched (in the statements pool) while this one is written and
        drained: DuckDB and the client then work at the same time, and at most two batches are
        in the server."""
        pending: asyncio.Future[Any] | None = None
        try:
            batch = rows.first
            while batch:
                pending = asyncio.ensure_future(self.session.next_rows(rows))
                await write(batch)
                await self.stream.drain()
                batch = await pending
                pending = None
        finally:
            if pending is not None:  # the write failed (client gone, KILL): let the fetch end first
                await asyncio.wait([pending])
                if not pending.cancelled():
                    pending.exception()  # retrieved: the write's error is the one that counts
            await self.session.end_stream()

    async def handle_statistics(self, data: bytes) -> None:
        """COM_STATISTICS (``mariadb-admin status``, the CLI's ``status``): one human-readable
        line, not an OK packet."""
        engine = self.session.engine
        uptime = max(int(time.time() - engine.started_at), 1)
        questions = int(getattr(engine, "questions", 0))
        threads = len(self.control) if hasattr(self.control, "__len__") else 1
        text = (f"Uptime: {uptime}  Threads: {threads}  Questions: {questions}  Slow queries: 0  "
                f"Opens: 0  Flush tables: 0  Open tables: 0  Queries per second avg: {questions / uptime:.3f}")
        await self.stream.write(text.encode("utf-8"))

    def _result_header(self, columns: Any) -> list[bytes]:
        """Column count, column definitions (and EOF) of a text result set, encoded once per
        column set and connection: clients repeat the same result shapes."""
        metas = [self._column_meta(c) for c in columns]
        key = (self.capabilities, self.server_charset, self.status_flags,
               tuple((c.name, c.type, c.character_set, m) for c, m in zip(columns, metas)))
        headers = self.__dict__.setdefault("_headers", {})  # also on connections built bare
        header = headers.get(key)
        if header is None:
            header = [packets.make_column_count(capabilities=self.capabilities, column_count=len(columns))]
            header += [column_meta.definition(c, m, self.server_charset) for c, m in zip(columns, metas)]
            if not self.deprecate_eof():
                header.append(self.eof())
            if len(headers) >= RESULT_HEADERS_PER_CONNECTION:
                headers.pop(next(iter(headers)))
            headers[key] = header
        return header

    def _column_meta(self, column: Any) -> column_meta.ColumnMeta | None:
        """The extra fields the session recorded for this column of its last result, if any."""
        pair = getattr(self.session, "result_meta", {}).get(id(column))
        return pair[1] if pair is not None and pair[0] is column else None

    async def handle_init_db(self, data: bytes) -> None:
        await self.session.use(wire.decode_text(self.client_charset, data))
        await self.stream.write(self.ok())

    async def handle_reset_connection(self, data: bytes) -> None:
        await self.session.reset()
        await self.stream.write(self.ok())

    async def handle_field_list(self, data: bytes) -> None:
        field_list = wire.parse_com_field_list(self.client_charset, data)
        sql = f"SHOW COLUMNS FROM `{field_list.table.replace('`', '``')}`"
        result = await self.query(sql=sql, query_attrs={})
        for row in result.rows:
            await self.stream.write(packets.make_column_definition_41(
                server_charset=self.server_charset, table=field_list.table, name=row[0],
                is_com_field_list=True, default=row[4]), drain=False)
        await self.stream.write(self.ok_or_eof())

    # -- prepared statements ------------------------------------------------------------------------
    async def handle_stmt_prepare(self, data: bytes) -> None:
        # read under the sql_mode of the PREPARE, as MySQL parses it then (see handle_query)
        mode = self._text_mode()
        sql = await self._canonical(wire.decode_text(self.client_charset, data, mode), mode)
        stmt_id = next(self.prepared_stmt_seq)
        stmt = PreparedStatement(stmt_id=stmt_id, sql=sql, num_params=count_placeholders(sql))
        describe = getattr(self.session, "describe", None)
        stmt.columns = await describe(sql, stmt.num_params) if describe else []  # type: ignore[attr-defined]
        self.prepared_stmts[stmt_id] = stmt
        for packet in self.com_stmt_prepare_response(stmt):
            await self.stream.write(packet, drain=False)
        await self.stream.drain()

    def com_stmt_prepare_response(self, statement: PreparedStatement) -> Any:
        """COM_STMT_PREPARE_OK, the parameter definitions, then the result's column definitions
        (upstream sends no columns and an EOF even under CLIENT_DEPRECATE_EOF)."""
        columns = getattr(statement, "columns", None) or []
        yield (b"\x00" + statement.stmt_id.to_bytes(4, "little") + len(columns).to_bytes(2, "little")
               + statement.num_params.to_bytes(2, "little") + b"\x00" + b"\x00\x00")
        if statement.num_params:
            for _ in range(statement.num_params):
                yield packets.make_column_definition_41(server_charset=self.server_charset, name="?")
            if not self.deprecate_eof():
                yield self.eof()
        if columns:
            for column, meta in columns:
                yield column_meta.definition(column, meta, self.server_charset)
            if not self.deprecate_eof():
                yield self.eof()

    async def handle_stmt_execute(self, data: bytes) -> None:
        r = wire.Reader(data)
        stmt = self.get_stmt(r.uint(4))
        flags = r.uint(1)
        r.uint(4)  # iteration count, always 1
        values: list[Any] = []
        if stmt.num_params:  # all parameter types, incl. DECIMAL/DATE/DATETIME/TIME (wire.py)
            values, types_sent = wire.parse_execute_params(
                self.client_charset, r, stmt.num_params, stmt.param_buffers,
                getattr(stmt, "param_types", None))
            stmt.param_types = types_sent  # type: ignore[attr-defined]  # reused when not re-sent
        stmt.param_buffers = None
        sql = bind_parameters(stmt.sql, values)
        result_set = await self.query(sql, {})
        if not result_set:
            await self.stream.write(self._statement_ok())
            return
        await self.stream.write(types.uint_len(len(result_set.columns)))
        for column in result_set.columns:
            await self.stream.write(column_meta.definition(column, self._column_meta(column), self.server_charset))
        columns = result_set.columns
        if isinstance(result_set.rows, StreamedRows) and not flags & 0x01:
            if not self.deprecate_eof():
                await self.stream.write(self.eof())

            async def write(batch: Any) -> None:
                for row in batch:
                    await self.stream.write(packets.make_binary_resultrow(row, columns), drain=False)

            await self._send_streamed(result_set.rows, write)
            await self.stream.write(self._end_of_rows())
            return
        if isinstance(result_set.rows, StreamedRows):  # and a cursor: read as COM_STMT_FETCH asks
            self._lazy_cursor = stmt.cursor = _LazyCursor(self, stmt.stmt_id, result_set.rows, columns)
            rows: list[bytes] = []
        else:
            rows = [packets.make_binary_resultrow(row, columns) for row in result_set.rows]
        if flags & 0x01:  # CURSOR_TYPE_READ_ONLY: rows are fetched with COM_STMT_FETCH
            async def cursor() -> Any:
                for row in rows:
                    yield row
            if not isinstance(result_set.rows, StreamedRows):
                stmt.cursor = cursor()
            if not self.deprecate_eof():
                await self.stream.write(self.eof(flags=ServerStatus.SERVER_STATUS_CURSOR_EXISTS))
            else:
                await self.stream.write(self._end_of_rows(flags=ServerStatus.SERVER_STATUS_CURSOR_EXISTS))
            return
        if not self.deprecate_eof():
            await self.stream.write(self.eof())
        for row in rows:
            await self.stream.write(row, drain=False)
        await self.stream.write(self._end_of_rows())

    # COM_STMT_SEND_LONG_DATA and COM_STMT_CLOSE have no response, not even an error (a client
    # would read it as the answer to its next command). Parsed with wire.Reader: upstream's struct
    # reads failed on a short packet with an internal error. Unknown statements are ignored; an
    # EXECUTE of one answers 1243.
    async def handle_stmt_send_long_data(self, data: bytes) -> None:
        r = wire.Reader(data)
        try:
            stmt_id, param_id = r.uint(4), r.uint(2)
        except wire.MalformedPacket as exc:
            logger.info("COM_STMT_SEND_LONG_DATA ignored: %s", exc)
            return
        stmt = self.prepared_stmts.get(stmt_id)
        if stmt is None:
            return
        if stmt.param_buffers is None:
            stmt.param_buffers = {}
        stmt.param_buffers.setdefault(param_id, bytearray()).extend(r.fixed(r.remaining()))

    async def handle_stmt_close(self, data: bytes) -> None:
        try:
            self.prepared_stmts.pop(wire.Reader(data).uint(4), None)
        except wire.MalformedPacket as exc:
            logger.info("COM_STMT_CLOSE ignored: %s", exc)

    async def handle_stmt_fetch(self, data: bytes) -> None:
        """COM_STMT_FETCH: exactly ``num_rows`` rows from the cursor. Upstream pulled one row past
        the count and dropped it (a row lost at every fetch boundary), failed on a short packet with
        struct.error and on a statement without a cursor with AssertionError (internal errors)."""
        r = wire.Reader(data)
        stmt = self.get_stmt(r.uint(4))
        num_rows = r.uint(4)
        if stmt.cursor is None:
            raise Errors.STMT_HAS_NO_OPEN_CURSOR.error(id=stmt.stmt_id)
        count = 0
        while count < num_rows:
            try:
                packet = await stmt.cursor.__anext__()
            except StopAsyncIteration:
                break
            await self.stream.write(packet, drain=False)
            count += 1
            if count % 1000 == 0:  # a large fetch holds the server to what the socket has not taken
                await self.stream.drain()
                await asyncio.sleep(0)
        await self.stream.drain()
        done = count < num_rows
        await self.stream.write(self.ok_or_eof(flags=ServerStatus.SERVER_STATUS_LAST_ROW_SENT if done
                                               else ServerStatus.SERVER_STATUS_CURSOR_EXISTS))

    async def handle_stmt_reset(self, data: bytes) -> None:
        stmt = self.get_stmt(wire.Reader(data).uint(4))
        stmt.param_buffers = None
        stmt.cursor = None
        await self.stream.write(self.ok())  # upstream also reset the whole session here

    def get_stmt(self, stmt_id: int) -> PreparedStatement:
        if stmt_id in self.prepared_stmts:
            return self.prepared_stmts[stmt_id]
        raise Errors.UNKNOWN_STMT_HANDLER.error(id=stmt_id, where="mysqld_stmt_execute")


class _LazyCursor:
    """The rows of a COM_STMT_EXECUTE cursor over a streamed result, as binary row packets: read
    from DuckDB batch by batch as COM_STMT_FETCH asks for them, so a cursor over millions of rows
    holds about one batch. Before any other command the connection reads the rest
    (:meth:`materialize`) or drops it (:meth:`close`). An error while reading is raised to the
    COM_STMT_FETCH that reaches it (after the rows before it)."""

    def __init__(self, conn: DrydockConnection, stmt_id: int, rows: StreamedRows, columns: Any):
        self.conn, self.stmt_id, self.columns = conn, stmt_id, columns
        self.pending: collections.deque[bytes] = collections.deque(self._encode(rows.first))
        self.rows: StreamedRows | None = rows
        self.error: BaseException | None = None

    def _encode(self, batch: Any) -> list[bytes]:
        return [packets.make_binary_resultrow(row, self.columns) for row in batch]

    def __aiter__(self) -> _LazyCursor:
        return self

    async def __anext__(self) -> bytes:
        if not self.pending and self.rows is not None:
            await self._read_batch()
        if self.pending:
            return self.pending.popleft()
        if self.error is not None:
            error, self.error = self.error, None
            raise error
        raise StopAsyncIteration

    async def _read_batch(self) -> None:
        assert self.rows is not None
        try:
            batch = await self.conn.session.next_rows(self.rows)
        except (DrydockError, MysqlError) as exc:
            self.error = exc
            batch = []
        if batch:
            self.pending.extend(self._encode(batch))
        else:
            self.rows = None
            await self.conn.session.end_stream()

    async def materialize(self) -> None:
        while self.rows is not None:
            await self._read_batch()

    async def close(self) -> None:
        self.pending.clear()
        if self.rows is not None:
            self.rows = None
            await self.conn.session.end_stream()


def _login_end(exc: BaseException) -> str:
    """Why a connection ended before login, in a few words (one log line, no traceback)."""
    if isinstance(exc, (ConnectionClosed, asyncio.IncompleteReadError)):
        return "the client closed the connection"
    if isinstance(exc, TimeoutError):
        return f"no login within {HANDSHAKE_TIMEOUT_SECONDS:g} s"
    return f"{type(exc).__name__}: {exc}"

