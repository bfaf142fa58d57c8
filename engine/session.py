"""Per-connection state the engine needs: who is asking, where, and the diagnostics area."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Protocol

from drydock.engine.results import Diagnostic

# The internal catalog: DuckDB's tables (the database of that name in internal.duckdb), where a
# session starts; its id in the catalogs table is 0.
INTERNAL = "internal"


@dataclass(frozen=True)
class Process:
    """One live connection, as SHOW PROCESSLIST lists it."""

    id: int
    user: str
    host: str
    db: str | None
    command: str  # "Query" while a command is answered, else "Sleep"
    seconds: int  # in the current command (or idle) so far
    state: str
    info: str | None


class ConnectionRegistry(Protocol):
    """What the engine may ask of the server about live connections (KILL, SHOW PROCESSLIST)."""

    def owner_of(self, connection_id: int) -> str | None: ...

    def kill(self, connection_id: int, query_only: bool) -> None: ...

    def processes(self) -> list[Process]: ...


@dataclass
class SessionContext:
    user: str
    host: str
    connection_id: int
    account_host: str = "%"  # host pattern of the account this session logged in as
    database: str | None = None
    catalog: str = INTERNAL
    # MySQL's diagnostics area: the conditions of the last statement that was not itself a
    # diagnostic statement (SHOW WARNINGS / SHOW ERRORS / SHOW COUNT(*) ...).
    diagnostics: list[Diagnostic] = field(default_factory=list)
    # Set by KILL QUERY; long-running engine work (procedures) checks it cooperatively.
    cancel: threading.Event = field(default_factory=threading.Event)
    # MySQL user variables (@name; names are case-insensitive, keys lower-cased) and the SQL-level
    # prepared statements of PREPARE name FROM ... (name lower-cased → statement text).
    user_variables: dict[str, Any] = field(default_factory=dict)
    prepared_statements: dict[str, str] = field(default_factory=dict)
    # The session's own DuckDB handle (engine/sql/query.py QuerySession) and its system variables
    # (name → value, with get/set/list), both set by the server when the session starts.
    query: Any = None
    variables: Any = None
    # (cipher, TLS version) of the connection, None for plain text (SHOW STATUS LIKE 'Ssl_%')
    tls_cipher: tuple[str, str] | None = None
    # What LAST_INSERT_ID(), ROW_COUNT() and FOUND_ROWS() answer: about the previous statements
    # (engine/sql/statement_info.py keeps them).
    last_insert_id: int = 0
    row_count: int = -1
    found_rows: int = 0
    # max_execution_time of the statement running now (ms, 0: none): set for a SELECT by
    # engine/statements/sql.py, applied by engine/sql/execution.py
    time_limit_ms: int = 0
    # The client's result sets may be streamed (engine/sql/execution.py): set by the wire server,
    # whose connection reads Result.stream to the end; other callers get every row in Result.rows.
    stream_results: bool = False

    @property
    def identity(self) -> str:
        return f"'{self.user}'@'{self.host}'"

    def warning_count(self) -> int:
        return len(self.diagnostics)

    def error_count(self) -> int:
        return sum(1 for d in self.diagnostics if d.level == "Error")
