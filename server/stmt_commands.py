"""The binary protocol's prepared statements: COM_STMT_PREPARE / EXECUTE / FETCH / SEND_LONG_DATA /
RESET / CLOSE, for one connection (server/connection.py dispatches to :class:`StmtCommands`).

mysql-mimic defects closed here (tests/wire/test_mimic_defects*.py, test_upstream_mimic.py):
- parameters are bound as escaped literals at real placeholder positions (server/prepared.py),
  never pasted with ``re.sub``;
- the PREPARE response honours CLIENT_DEPRECATE_EOF and describes the result's columns;
- COM_STMT_FETCH sends exactly the rows asked for (upstream lost one at every fetch boundary);
- COM_STMT_RESET resets the statement, not the whole session;
- short packets are malformed packets (1835), not internal errors.
"""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

from mysql_mimic import packets, types
from mysql_mimic.errors import MysqlError
from mysql_mimic.results import ResultColumn, ResultSet
from mysql_mimic.types import ServerStatus
from mysql_mimic.utils import seq

from drydock.engine.errors import DrydockError, Errors
from drydock.server import column_meta, wire
from drydock.server.binary_rows import BinaryRows
from drydock.server.prepared import bind_parameters, count_placeholders
from drydock.server.result_writer import ResultWriter
from drydock.server.results import StreamedRows
from drydock.server.wire_session import WireSession, canonical, run_query

logger = logging.getLogger(__name__)

MAX_STATEMENT_ID = 2**32
CURSOR_TYPE_READ_ONLY = 0x01
FETCH_DRAIN_ROWS = 1000  # a large fetch holds the server to what the socket has not taken


@dataclass
class PreparedStatement:
    stmt_id: int
    sql: str
    num_params: int
    columns: list[tuple[ResultColumn, column_meta.ColumnMeta | None]] = field(default_factory=list)
    param_types: list[wire.ParamType] | None = None  # the last EXECUTE's: reused when not re-sent
    param_buffers: dict[int, bytearray] | None = None  # COM_STMT_SEND_LONG_DATA
    cursor: AsyncIterator[bytes] | None = None


def prepare_response(writer: ResultWriter, statement: PreparedStatement) -> Iterator[bytes]:
    """COM_STMT_PREPARE_OK, the parameter definitions, then the result's column definitions
    (upstream sends no columns and an EOF even under CLIENT_DEPRECATE_EOF)."""
    columns = statement.columns
    charset = writer.session.server_charset
    yield (
        b"\x00"
        + statement.stmt_id.to_bytes(4, "little")
        + len(columns).to_bytes(2, "little")
        + statement.num_params.to_bytes(2, "little")
        + b"\x00"
        + b"\x00\x00"
    )
    if statement.num_params:
        for _ in range(statement.num_params):
            yield packets.make_column_definition_41(server_charset=charset, name="?")
        if not writer.deprecate_eof():
            yield writer.eof()
    if columns:
        for column, meta in columns:
            yield column_meta.definition(column, meta, charset)
        if not writer.deprecate_eof():
            yield writer.eof()


class StmtCommands:
    """One connection's prepared statements and the commands on them."""

    def __init__(self, session: WireSession, writer: ResultWriter) -> None:
        self.session = session
        self.writer = writer
        self.stream = writer.stream
        self.statements: dict[int, PreparedStatement] = {}
        self._ids = seq(MAX_STATEMENT_ID)
        self._lazy_cursor: LazyCursor | None = None  # a cursor whose rows DuckDB still has

    def get(self, stmt_id: int) -> PreparedStatement:
        if stmt_id in self.statements:
            return self.statements[stmt_id]
        raise Errors.UNKNOWN_STMT_HANDLER.error(id=stmt_id, where="mysqld_stmt_execute")

    async def prepare(self, data: bytes) -> None:
        # read under the sql_mode of the PREPARE, as MySQL parses it then (connection.handle_query)
        mode = self.session.text_mode
        text = wire.decode_text(self.session.client_charset, data, mode)
        sql = await canonical(self.session, text, mode)
        stmt = PreparedStatement(
            stmt_id=next(self._ids), sql=sql, num_params=count_placeholders(sql)
        )
        stmt.columns = await self.session.describe(sql, stmt.num_params)
        response = list(prepare_response(self.writer, stmt))  # whole before any is written
        self.statements[stmt.stmt_id] = stmt
        for packet in response:
            await self.stream.write(packet, drain=False)
        await self.stream.drain()

    async def execute(self, data: bytes) -> None:
        r = wire.Reader(data)
        stmt = self.get(r.uint(4))
        flags = r.uint(1)
        r.uint(4)  # iteration count, always 1
        values: list[Any] = []
        if stmt.num_params:  # all parameter types, incl. DECIMAL/DATE/DATETIME/TIME (wire.py)
            values, stmt.param_types = wire.parse_execute_params(
                self.session.client_charset,
                r,
                stmt.num_params,
                stmt.param_buffers,
                stmt.param_types,
            )
        stmt.param_buffers = None
        result_set = await run_query(self.session, bind_parameters(stmt.sql, values))
        if not result_set:
            await self.stream.write(self.writer.statement_ok())
            return
        columns = list(result_set.columns)
        encoder = BinaryRows(columns, [self.writer.column_meta(c) for c in columns])
        streamed = isinstance(result_set.rows, StreamedRows)
        # the header and the first rows are encoded before anything is written: a value that
        # cannot be sent answers a plain ERR, never definitions followed by an ERR for their EOF
        try:
            header = self._column_header(columns)
            first = encoder.encode(result_set.rows.first if streamed else list(result_set.rows))
        except Exception:
            if streamed:
                await self.session.end_stream()
            raise
        for packet in header:
            await self.stream.write(packet, drain=False)
        if flags & CURSOR_TYPE_READ_ONLY:  # rows are fetched with COM_STMT_FETCH
            stmt.cursor = self._open_cursor(stmt, result_set, encoder, first)
            flag = ServerStatus.SERVER_STATUS_CURSOR_EXISTS
            await self.stream.write(
                self.writer.eof(flags=flag)
                if not self.writer.deprecate_eof()
                else self.writer.end_of_rows(flags=flag)
            )
            return
        if not self.writer.deprecate_eof():
            await self.stream.write(self.writer.eof())
        for packet in first:
            await self.stream.write(packet, drain=False)
        if streamed:
            await self._stream_rest(result_set.rows, encoder)
        await self.stream.write(self.writer.end_of_rows())

    def _column_header(self, columns: list[ResultColumn]) -> list[bytes]:
        charset = self.session.server_charset
        header = [types.uint_len(len(columns))]
        header += [
            column_meta.definition(column, self.writer.column_meta(column), charset)
            for column in columns
        ]
        return header

    async def _stream_rest(self, rows: StreamedRows, encoder: BinaryRows) -> None:
        """The batches after the first (already sent); an error in one is an ERR in place of a
        row, after the rows before it, as MySQL answers an error mid-result."""

        async def write(batch: Any) -> None:
            if batch is rows.first:
                return
            for packet in encoder.encode(batch):
                await self.stream.write(packet, drain=False)

        await self.writer.send_streamed(rows, write)

    def _open_cursor(
        self,
        stmt: PreparedStatement,
        result_set: ResultSet,
        encoder: BinaryRows,
        first: list[bytes],
    ) -> AsyncIterator[bytes]:
        """A streamed result is read as COM_STMT_FETCH asks (LazyCursor); others are encoded now."""
        if isinstance(result_set.rows, StreamedRows):
            self._lazy_cursor = LazyCursor(
                self.session, stmt.stmt_id, result_set.rows, encoder, first
            )
            return self._lazy_cursor

        async def cursor() -> AsyncIterator[bytes]:
            for row in first:
                yield row

        return cursor()

    # COM_STMT_SEND_LONG_DATA and COM_STMT_CLOSE have no response, not even an error (a client
    # would read it as the answer to its next command). Parsed with wire.Reader: upstream's struct
    # reads failed on a short packet with an internal error. Unknown statements are ignored; an
    # EXECUTE of one answers 1243.
    async def send_long_data(self, data: bytes) -> None:
        r = wire.Reader(data)
        try:
            stmt_id, param_id = r.uint(4), r.uint(2)
        except wire.MalformedPacket as exc:
            logger.info("COM_STMT_SEND_LONG_DATA ignored: %s", exc)
            return
        stmt = self.statements.get(stmt_id)
        if stmt is None:
            return
        if stmt.param_buffers is None:
            stmt.param_buffers = {}
        stmt.param_buffers.setdefault(param_id, bytearray()).extend(r.fixed(r.remaining()))

    async def close(self, data: bytes) -> None:
        try:
            self.statements.pop(wire.Reader(data).uint(4), None)
        except wire.MalformedPacket as exc:
            logger.info("COM_STMT_CLOSE ignored: %s", exc)

    async def fetch(self, data: bytes) -> None:
        """COM_STMT_FETCH: exactly ``num_rows`` rows from the cursor. Upstream pulled one row past
        the count and dropped it (a row lost at every fetch boundary), failed on a short packet with
        struct.error and on a statement without a cursor with AssertionError (internal errors)."""
        r = wire.Reader(data)
        stmt = self.get(r.uint(4))
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
            if count % FETCH_DRAIN_ROWS == 0:
                await self.stream.drain()
                await asyncio.sleep(0)
        await self.stream.drain()
        done = count < num_rows
        status = (
            ServerStatus.SERVER_STATUS_LAST_ROW_SENT
            if done
            else ServerStatus.SERVER_STATUS_CURSOR_EXISTS
        )
        await self.stream.write(self.writer.ok_or_eof(flags=status))

    async def reset(self, data: bytes) -> None:
        stmt = self.get(wire.Reader(data).uint(4))
        stmt.param_buffers = None
        stmt.cursor = None
        await self.stream.write(self.writer.ok())  # upstream also reset the whole session here

    async def before_command(self, data: bytes) -> None:
        """Another command while a cursor's rows are still in DuckDB: the session's DuckDB cursor
        is about to serve something else, which the pending result would not survive. Closing,
        resetting or executing again that statement drops the rest (its cursor is closed, as in
        MySQL); anything else reads the rest now (as packets, served to later COM_STMT_FETCHes),
        as the cursor fetch did for every result before."""
        if self._lazy_cursor is None or data[0] == types.Commands.COM_STMT_FETCH:
            return
        lazy, self._lazy_cursor = self._lazy_cursor, None
        stmt_id = int.from_bytes(data[1:5], "little") if len(data) >= 5 else -1
        ends_cursor = (
            types.Commands.COM_STMT_CLOSE,
            types.Commands.COM_STMT_RESET,
            types.Commands.COM_STMT_EXECUTE,
        )
        if data[0] in ends_cursor and stmt_id == lazy.stmt_id:
            await lazy.close()
        else:
            await lazy.materialize()


class LazyCursor:
    """The rows of a COM_STMT_EXECUTE cursor over a streamed result, as binary row packets: read
    from DuckDB batch by batch as COM_STMT_FETCH asks for them, so a cursor over millions of rows
    holds about one batch. Before any other command the connection reads the rest
    (:meth:`materialize`) or drops it (:meth:`close`). An error while reading is raised to the
    COM_STMT_FETCH that reaches it (after the rows before it)."""

    def __init__(
        self,
        session: WireSession,
        stmt_id: int,
        rows: StreamedRows,
        encoder: BinaryRows,
        first: list[bytes],
    ):
        self.session, self.stmt_id, self.encoder = session, stmt_id, encoder
        self.pending: collections.deque[bytes] = collections.deque(first)
        self.rows: StreamedRows | None = rows
        self.error: BaseException | None = None

    def __aiter__(self) -> LazyCursor:
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
            batch = await self.session.next_rows(self.rows)
            encoded = self.encoder.encode(batch)
        except (DrydockError, MysqlError) as exc:
            self.error = exc
            batch = []
        if batch:
            self.pending.extend(encoded)
        else:
            self.rows = None
            await self.session.end_stream()

    async def materialize(self) -> None:
        while self.rows is not None:
            await self._read_batch()

    async def close(self) -> None:
        self.pending.clear()
        if self.rows is not None:
            self.rows = None
            await self.session.end_stream()
