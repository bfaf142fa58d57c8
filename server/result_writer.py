"""The packets a connection answers with: OK / EOF / ERR and text result sets
(server/connection.py).

mysql-mimic defects closed here (tests/wire/test_upstream_mimic.py pins each):
- the OK/EOF that ends a result set carries affected_rows 0 (Connector/J 2.x crashes otherwise)
  and the statement's warning count; OKs carry the real affected rows and warnings;
- every OK/EOF carries the session's autocommit, transaction and NO_BACKSLASH_ESCAPES state
  (upstream's handshake even says autocommit is off);
- upstream's make_ok writes no info string: :func:`with_info` appends MySQL's (``Rows matched: 1
  Changed: 1  Warnings: 0``), which mysql2's changedRows and PHP's mysqli->info read;
- under CLIENT_SESSION_TRACK (offered, as MySQL's server does) an OK after the session's database
  changed carries the SESSION_TRACK_SCHEMA state change: Connector/J 3 answers getCatalog() from
  it instead of asking ``SELECT DATABASE()``;
- affected rows honour CLIENT_FOUND_ROWS: a client that sets it gets an UPDATE's rows matched
  (engine/results.py Result.found_rows_affected), others the rows changed, as in MySQL.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from mysql_mimic import packets
from mysql_mimic.errors import MysqlError
from mysql_mimic.results import ResultColumn, ResultSet
from mysql_mimic.types import Capabilities, ServerStatus

from drydock.engine.errors import DrydockError, sqlstate_of
from drydock.server import column_meta, wire
from drydock.server.results import StreamedRows
from drydock.server.wire_session import WireSession

_IN_TRANS = int(ServerStatus.SERVER_STATUS_IN_TRANS)
_AUTOCOMMIT = int(ServerStatus.SERVER_STATUS_AUTOCOMMIT)
_NO_BACKSLASH_ESCAPES = int(ServerStatus.SERVER_STATUS_NO_BACKSLASH_ESCAPES)
_SESSION_STATE_CHANGED = int(ServerStatus.SERVER_SESSION_STATE_CHANGED)
_SESSION_TRACK_SCHEMA = 1  # the state-change type of a new current database

RESULT_HEADERS_PER_CONNECTION = 64
QUIET_WRITE_SECONDS = 1.0  # the last packet to a connection that is closing (write_quietly)
TEXT_ROWS_PER_WRITE = 10_000


def with_info(ok_packet: bytes, info: str, capabilities: Capabilities) -> bytes:
    """An OK packet (protocol 4.1) with its human-readable info string at the end, length-encoded
    with or without CLIENT_SESSION_TRACK: MySQL's server writes it so (net_send_ok stores it with
    net_store_data), and libmysqlclient / libmariadb read a length first (the protocol
    documentation's string<EOF> would be misread: the mariadb CLI reports 2027). Drivers that
    follow the server's offer (Node mysql2) read it length-encoded because the handshake offers
    CLIENT_SESSION_TRACK (server/app.py CAPABILITIES), as MySQL's does."""
    if not info or Capabilities.CLIENT_PROTOCOL_41 not in capabilities:
        return ok_packet
    text = info.encode("utf-8")
    return ok_packet + packets.uint_len(len(text)) + text


class ResultWriter:
    """One connection's answers. ``capabilities`` are the client's (set at login);
    ``more_results`` is SERVER_MORE_RESULTS_EXISTS while a multi-statement query answers."""

    def __init__(self, stream: wire.PacketStream, session: WireSession) -> None:
        self.stream = stream
        self.session = session
        self.capabilities = Capabilities(0)
        # upstream's handshake says autocommit is off; the session's state decides (status_flags)
        self.base_status = int(ServerStatus.SERVER_STATUS_AUTOCOMMIT)
        self.more_results = 0
        self._headers: dict[Any, list[bytes]] = {}  # encoded result headers (result_header)
        # the database the client last heard of (the login's, then each schema state change)
        self.reported_database: str | None = None

    # -- status and small packets ----------------------------------------------------------------
    @property
    def status_flags(self) -> ServerStatus:
        """The status of every OK/EOF: IN_TRANS while the session's transaction is open,
        AUTOCOMMIT as the session's autocommit variable says (engine/sql/transactions.py), and
        NO_BACKSLASH_ESCAPES while the sql_mode has it (drivers such as mysql-connector and pymysql
        read it to choose how they escape parameters: doubled quotes instead of backslashes)."""
        # on plain ints, one flag member at the end (the packets take only a ServerStatus): each
        # operation on the IntFlag went through the enum machinery, several per statement
        flags = self.base_status & ~(_IN_TRANS | _AUTOCOMMIT | _NO_BACKSLASH_ESCAPES)
        if self.session.in_transaction:
            flags |= _IN_TRANS
        if self.session.autocommit:
            flags |= _AUTOCOMMIT
        if not self.session.text_mode.backslash_escapes:
            flags |= _NO_BACKSLASH_ESCAPES
        return ServerStatus(flags)

    def deprecate_eof(self) -> bool:
        return Capabilities.CLIENT_DEPRECATE_EOF in self.capabilities

    def ok(
        self,
        affected_rows: int = 0,
        last_insert_id: int = 0,
        warnings: int = 0,
        flags: int = 0,
        eof: bool = False,
    ) -> bytes:
        return packets.make_ok(
            self.capabilities,
            self.status_flags,
            eof=eof,
            affected_rows=affected_rows,
            last_insert_id=last_insert_id,
            warnings=warnings,
            flags=flags,
        )

    def eof(self, warnings: int = 0, flags: int = 0) -> bytes:
        return packets.make_eof(
            self.capabilities, self.status_flags, warnings=warnings, flags=flags
        )

    def ok_or_eof(self, warnings: int = 0, flags: int = 0) -> bytes:
        if self.deprecate_eof():
            return self.ok(eof=True, warnings=warnings, flags=flags)
        return self.eof(warnings=warnings, flags=flags)

    def error(
        self, msg: DrydockError | str, code: int = 1105, sqlstate: str | None = None
    ) -> bytes:
        if isinstance(msg, DrydockError):
            code, sqlstate, msg = msg.code, msg.sqlstate, msg.message
        parts = [b"\xff", int(code).to_bytes(2, "little")]
        if Capabilities.CLIENT_PROTOCOL_41 in self.capabilities or not self.capabilities:
            state = sqlstate or sqlstate_of(int(code))
            parts.append(b"#" + state.encode("ascii"))
        parts.append(str(msg).encode("utf-8", "replace"))
        return b"".join(parts)

    def error_of(self, exc: DrydockError | MysqlError) -> bytes:
        if isinstance(exc, DrydockError):
            return self.error(exc)
        return self.error(str(exc.msg), int(exc.code))

    def statement_ok(self) -> bytes:
        """The OK of a statement without rows: its affected rows (rows matched for a client that
        set CLIENT_FOUND_ROWS), generated key, warnings and info string."""
        session = self.session
        affected = session.affected_rows
        found_rows = Capabilities.CLIENT_FOUND_ROWS in self.capabilities
        if session.found_rows_affected is not None and found_rows:
            affected = session.found_rows_affected
        state = self.schema_change()
        packet = self.ok(
            affected_rows=affected,
            last_insert_id=session.last_insert_id,
            warnings=session.statement_warnings,
            flags=self.more_results | (_SESSION_STATE_CHANGED if state else 0),
        )
        info = session.ok_info
        text = "" if info is None else info.text(session.statement_warnings, found_rows)
        if state:  # the info string (maybe empty) comes before the session state, always
            return packet + packets.str_len(text.encode("utf-8")) + state
        return with_info(packet, text, self.capabilities)

    def database_ok(self) -> bytes:
        """The OK of COM_INIT_DB: with the schema state change for a client that tracks it."""
        state = self.schema_change()
        if not state:
            return self.ok()
        return self.ok(flags=_SESSION_STATE_CHANGED) + packets.str_len(b"") + state

    def schema_change(self) -> bytes:
        """The session-state block announcing the session's database, when the client set
        CLIENT_SESSION_TRACK and the database changed since it last heard (USE, COM_INIT_DB, DROP
        DATABASE of the current one: empty name); empty otherwise."""
        database = self.session.database
        if (
            Capabilities.CLIENT_SESSION_TRACK not in self.capabilities
            or database == self.reported_database
        ):
            return b""
        self.reported_database = database
        entry = packets.str_len(packets.str_len((database or "").encode("utf-8")))
        return packets.str_len(bytes([_SESSION_TRACK_SCHEMA]) + entry)

    def end_of_rows(self, flags: int = 0) -> bytes:
        """The OK/EOF after result rows: affected_rows is always 0 (Connector/J 2.x reads a
        non-zero value here as a string length and crashes)."""
        return self.ok_or_eof(
            warnings=self.session.statement_warnings, flags=flags | self.more_results
        )

    async def write_quietly(self, packet: bytes) -> None:
        """A last packet before the connection closes. Bounded: a client that stopped reading
        (KILL CONNECTION mid-result) would otherwise keep the connection in drain() forever."""
        try:
            await asyncio.wait_for(self.stream.write(packet), QUIET_WRITE_SECONDS)
        except (ConnectionError, OSError, TimeoutError):
            pass

    # -- column definitions ----------------------------------------------------------------------
    def column_meta(self, column: ResultColumn) -> column_meta.ColumnMeta | None:
        """The extra fields the session recorded for this column of its last result, if any."""
        pair = self.session.result_meta.get(id(column))
        return pair[1] if pair is not None and pair[0] is column else None

    def result_header(self, columns: list[ResultColumn]) -> list[bytes]:
        """Column count, column definitions (and EOF) of a text result set, encoded once per
        column set and connection: clients repeat the same result shapes."""
        metas = [self.column_meta(c) for c in columns]
        charset = self.session.server_charset
        key = (
            self.capabilities,
            charset,
            self.status_flags,
            tuple((c.name, c.type, c.character_set, m) for c, m in zip(columns, metas)),
        )
        header = self._headers.get(key)
        if header is None:
            header = [
                packets.make_column_count(capabilities=self.capabilities, column_count=len(columns))
            ]
            header += [column_meta.definition(c, m, charset) for c, m in zip(columns, metas)]
            if not self.deprecate_eof():
                header.append(self.eof())
            if len(self._headers) >= RESULT_HEADERS_PER_CONNECTION:
                self._headers.pop(next(iter(self._headers)))
            self._headers[key] = header
        return header

    # -- result sets -----------------------------------------------------------------------------
    async def write_answer(self, result_set: ResultSet) -> None:
        """A COM_QUERY's answer: an OK, or its result set."""
        if not result_set:
            await self.stream.write(self.statement_ok())
            return
        await self.write_text_resultset(result_set)

    async def write_text_resultset(self, result_set: ResultSet) -> None:
        self.stream.write_many(self.result_header(result_set.columns))
        if isinstance(result_set.rows, StreamedRows):
            columns = result_set.columns

            async def write(batch: Any) -> None:
                self.stream.write_text_rows(batch, columns)

            await self.send_streamed(result_set.rows, write)
            await self.stream.write(self.end_of_rows(), drain=False)
            await self.stream.drain()
            return
        rows = list(result_set.rows)
        for i in range(0, len(rows), TEXT_ROWS_PER_WRITE):
            self.stream.write_text_rows(rows[i : i + TEXT_ROWS_PER_WRITE], result_set.columns)
            if i + TEXT_ROWS_PER_WRITE < len(rows):
                await asyncio.sleep(0)
        await self.stream.write(self.end_of_rows(), drain=False)
        await self.stream.drain()

    async def send_streamed(
        self, rows: StreamedRows, write: Callable[[Any], Awaitable[None]]
    ) -> None:
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
