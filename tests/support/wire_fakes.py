"""Test-side builders for the wire's parts (server/result_writer.py, server/stmt_commands.py): a
session that implements server/wire_session.py's WireSession with fixed answers, and a stream that
records what is written. The product code has no hooks for these: they go through the real
constructors."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mysql_mimic import packets
from mysql_mimic.auth import SimpleIdentityProvider
from mysql_mimic.charset import CharacterSet
from mysql_mimic.results import AllowedResult, ResultColumn
from mysql_mimic.types import Capabilities

from drydock.grammar import lexer
from drydock.server.column_meta import ColumnMeta
from drydock.server.connection import DrydockConnection
from drydock.server.result_writer import ResultWriter
from drydock.server.results import MetaByColumn, StreamedRows

CAPABILITIES_41 = Capabilities.CLIENT_PROTOCOL_41


@dataclass
class FakeSession:
    """A WireSession with fixed state; a statement's answer is looked up in ``answers``."""

    in_transaction: bool = False
    autocommit: bool = True
    affected_rows: int = 0
    ok_info: Any = None
    found_rows_affected: int | None = None
    last_insert_id: int = 0
    statement_warnings: int = 0
    sql_mode: str = ""
    username: str | None = None
    database: str | None = None
    result_meta: MetaByColumn = field(default_factory=dict)
    server_charset: CharacterSet = CharacterSet.utf8mb4
    client_charset: CharacterSet = CharacterSet.utf8mb4
    server_version: str = "8.0.33"
    client_host: str = ""
    statement_in_thread: bool = False
    interrupts: int = 0
    answers: dict[str, AllowedResult] = field(default_factory=dict)  # sql → its result
    queries: list[str] = field(default_factory=list)  # every text handle_query was given

    @property
    def text_mode(self) -> lexer.TextMode:
        return lexer.text_mode(self.sql_mode)

    def client_connected(self, username: str, charset: CharacterSet) -> None:
        self.username, self.client_charset = username, charset

    def client_changed_user(self, username: str, charset: CharacterSet | None) -> None:
        self.username = username

    def logged_out(self) -> None:
        self.username = None

    def logged_in(self, username: str, account_host: str, host: str, connection_id: int) -> None:
        self.username, self.client_host = username, host

    def failed_login(self, username: str, host: str, connection_id: int) -> None:
        pass

    async def opened(
        self, host: str, connection_id: int, tls_cipher: tuple[str, str] | None
    ) -> None:
        pass

    async def close(self) -> None:
        pass

    async def reset(self) -> None:
        pass

    async def use(self, database: str) -> None:
        self.database = database

    async def handle_query(self, sql: str, attrs: dict[str, str]) -> AllowedResult:
        self.queries.append(sql)
        return self.answers[sql]

    async def describe(
        self, sql: str, num_params: int
    ) -> list[tuple[ResultColumn, ColumnMeta | None]]:
        return []

    async def off_loop(self, fn: Callable[..., Any], *args: Any) -> Any:
        return fn(*args)

    async def next_rows(self, rows: StreamedRows) -> Any:
        return rows.next_batch()

    async def end_stream(self) -> None:
        pass

    def interrupt(self) -> None:
        self.interrupts += 1

    def uptime_and_questions(self) -> tuple[int, int]:
        return 1, 0


class RecordingStream:
    """Keeps every packet written, in order (no socket)."""

    def __init__(self) -> None:
        self.packets: list[bytes] = []

    def write_many(self, pkts: list[bytes]) -> None:
        self.packets.extend(pkts)

    def write_text_rows(self, rows: Any, columns: Any) -> None:
        self.packets.extend(packets.make_text_resultset_row(r, columns) for r in rows)

    async def write(self, data: bytes, drain: bool = True) -> None:
        self.packets.append(data)

    async def drain(self) -> None:
        pass


def result_writer(
    capabilities: Capabilities,
    session: FakeSession | None = None,
    stream: RecordingStream | None = None,
) -> ResultWriter:
    """A ResultWriter for a client with ``capabilities``, over a recording stream."""
    stream = stream or RecordingStream()
    writer = ResultWriter(stream, session or FakeSession())  # type: ignore[arg-type]
    writer.capabilities = capabilities
    return writer


def connection(
    session: FakeSession | None = None,
    capabilities: Capabilities = CAPABILITIES_41,
    stream: RecordingStream | None = None,
) -> DrydockConnection:
    """A DrydockConnection (its real constructor) whose client logged in with ``capabilities``."""
    conn = DrydockConnection(
        stream=stream or RecordingStream(),  # type: ignore[arg-type]
        session=session or FakeSession(),
        connections=[],
        identity_provider=SimpleIdentityProvider(),
        server_capabilities=Capabilities(0),
    )
    conn.writer.capabilities = capabilities
    return conn
