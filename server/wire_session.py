"""What the wire (server/connection.py and its parts) asks of its session: the whole interface,
typed. server/session.py's DrydockSession is the one implementation; tests may bring their own."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from mysql_mimic.charset import CharacterSet
from mysql_mimic.results import AllowedResult, ResultColumn, ResultSet, ensure_result_set

from drydock.engine.results import OkInfo
from drydock.grammar import lexer
from drydock.grammar.lexer import TextMode
from drydock.server.column_meta import ColumnMeta
from drydock.server.results import MetaByColumn, StreamedRows


class WireSession(Protocol):
    # -- who is connected -------------------------------------------------------------------------
    username: str | None
    database: str | None

    # -- the last statement, for its OK / EOF packet ---------------------------------------------
    affected_rows: int
    ok_info: OkInfo | None  # the info string's counts (engine/results.py)
    found_rows_affected: int | None  # affected rows for a client that set CLIENT_FOUND_ROWS
    last_insert_id: int
    statement_warnings: int
    result_meta: MetaByColumn  # column definitions' extra fields (server/column_meta.py)

    @property
    def in_transaction(self) -> bool: ...

    @property
    def autocommit(self) -> bool: ...

    @property
    def text_mode(self) -> TextMode:
        """How the session's sql_mode reads statement text (grammar/lexer.py)."""

    @property
    def server_charset(self) -> CharacterSet:
        """character_set_results: the character set of column definitions and messages."""

    @property
    def client_charset(self) -> CharacterSet:
        """character_set_client: how statement text arrives."""

    @property
    def server_version(self) -> str: ...

    @property
    def client_host(self) -> str:
        """The logged-in client's host ('' before login)."""

    @property
    def statement_in_thread(self) -> bool:
        """A statement (not a streamed result's fetch) runs in a worker thread."""

    # -- login ------------------------------------------------------------------------------------
    def client_connected(self, username: str, charset: CharacterSet) -> None:
        """The handshake response's user and character set (client, connection and results)."""

    def client_changed_user(self, username: str, charset: CharacterSet | None) -> None: ...

    def logged_out(self) -> None: ...

    def logged_in(
        self, username: str, account_host: str, host: str, connection_id: int
    ) -> None: ...

    def failed_login(self, username: str, host: str, connection_id: int) -> None: ...

    async def opened(
        self, host: str, connection_id: int, tls_cipher: tuple[str, str] | None
    ) -> None:
        """Login is complete: the session starts serving statements."""

    async def close(self) -> None: ...

    async def reset(self) -> None: ...

    async def use(self, database: str) -> None: ...

    # -- statements -------------------------------------------------------------------------------
    async def handle_query(self, sql: str, attrs: dict[str, str]) -> AllowedResult: ...

    async def describe(
        self, sql: str, num_params: int
    ) -> list[tuple[ResultColumn, ColumnMeta | None]]: ...

    async def off_loop(self, fn: Callable[..., Any], *args: Any) -> Any: ...

    async def next_rows(self, rows: StreamedRows) -> Any: ...

    async def end_stream(self) -> None: ...

    def interrupt(self) -> None: ...

    def uptime_and_questions(self) -> tuple[int, int]:
        """Seconds the server has run (at least 1) and statements it has run: COM_STATISTICS."""


async def run_query(session: WireSession, sql: str) -> ResultSet:
    """``sql``'s answer as a result set (an empty one for a statement without rows)."""
    return await ensure_result_set(await session.handle_query(sql, {}))


async def canonical(session: WireSession, sql: str, mode: TextMode) -> str:
    """``sql`` respelt for the default text mode (grammar/lexer.py canonical), off the event
    loop."""
    if mode == lexer.DEFAULT_MODE:
        return sql
    return str(await session.off_loop(lexer.canonical, sql, mode))
