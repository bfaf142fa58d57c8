"""What every command returns: columns + rows, or an OK with affected rows; plus warnings."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Diagnostic:
    """One row of SHOW WARNINGS: level is 'Note', 'Warning' or 'Error'."""

    level: str
    code: int
    message: str


@dataclass(frozen=True)
class OkInfo:
    """The counts of the info string MySQL's OK packet carries after an UPDATE (``Rows matched: 2
    Changed: 1  Warnings: 0``) or a multi-row INSERT / INSERT … SELECT / REPLACE (``Records: 2
    Duplicates: 0  Warnings: 0``); the warning count is the statement's, added when it is sent."""

    matched: int | None = None  # UPDATE
    changed: int = 0
    records: int | None = None  # INSERT
    duplicates: int = 0
    # ON DUPLICATE KEY UPDATE under CLIENT_FOUND_ROWS: the duplicates touched, changed or not
    # (``duplicates`` then counts the changed ones only, as MySQL's sql_insert.cc)
    found_duplicates: int | None = None

    def text(self, warnings: int, found_rows: bool = False) -> str:
        if self.matched is not None:
            return f"Rows matched: {self.matched}  Changed: {self.changed}  Warnings: {warnings}"
        duplicates = self.duplicates
        if found_rows and self.found_duplicates is not None:
            duplicates = self.found_duplicates
        return f"Records: {self.records}  Duplicates: {duplicates}  Warnings: {warnings}"


@dataclass
class Result:
    columns: list[str] = field(default_factory=list)
    rows: list[tuple[Any, ...]] = field(default_factory=list)
    affected_rows: int = 0
    warnings: list[Diagnostic] = field(default_factory=list)
    # Column types by name, for columns whose type must not be inferred from the first value
    # (e.g. an all-NULL column). Values are mysql_mimic ColumnType names.
    column_types: dict[str, str] = field(default_factory=dict)
    # Per column (by position), where it comes from (engine/sql/result_origins.py Origin), for the
    # schema/table/org_table/org_name of MySQL's column definitions; empty when unknown.
    column_origins: list[Any] = field(default_factory=list)
    # Per column (by position), the expression it is (engine/sql/result_origins.py Computed), for
    # MySQL's type of the column (server/expression_columns.py); empty when none is.
    column_expressions: list[Any] = field(default_factory=list)
    # The first AUTO_INCREMENT value an INSERT generated (the OK packet's last_insert_id), and
    # FOUND_ROWS() of a SELECT SQL_CALC_FOUND_ROWS with a LIMIT (engine/sql/statement_info.py).
    last_insert_id: int = 0
    found_rows: int | None = None
    # The OK packet's info string (None: none is sent), and the affected rows a client that set
    # CLIENT_FOUND_ROWS gets instead of ``affected_rows`` (UPDATE: rows matched, not changed).
    info: OkInfo | None = None
    found_rows_affected: int | None = None
    # A result set larger than its first batch: ``rows`` holds the first batch and the rest is
    # still in the engine, fetched batch by batch while the server sends (engine/sql/execution.py).
    stream: RowStream | None = None
    # EXPLAIN: the searches engine/search/planner.py planned for the statement (its Prepared)
    plan: Any = None
    # The SHOW statement this result answers as MySQL 8 does (COLUMNS, INDEX, TABLES, DATABASES,
    # CREATE TABLE): the server sends MySQL 8's column definitions of it (server/show_columns.py)
    show: str = ""

    @property
    def is_result_set(self) -> bool:
        return bool(self.columns)

    @staticmethod
    def ok(
        affected_rows: int = 0,
        warnings: list[Diagnostic] | None = None,
        last_insert_id: int = 0,
        info: OkInfo | None = None,
        found_rows_affected: int | None = None,
    ) -> Result:
        return Result(
            affected_rows=affected_rows,
            warnings=list(warnings or []),
            last_insert_id=last_insert_id,
            info=info,
            found_rows_affected=found_rows_affected,
        )


class RowStream:
    """The rest of a result set, still in the engine: ``fetch`` returns the next batch (an empty
    list at the end) and blocks, so it runs in a worker thread; ``close`` drops what is left.
    ``rows`` counts every row handed out, the first batch included; ``on_end`` callbacks get
    that count once the last batch has been read (FOUND_ROWS(), engine/sql/statement_info.py)."""

    def __init__(
        self, first_rows: int, fetch: Callable[[], list[tuple[Any, ...]]], close: Callable[[], None]
    ):
        self.rows = first_rows
        self.done = False
        self.on_end: list[Callable[[int], None]] = []
        self._fetch, self._close = fetch, close
        # the statement's row warnings raised by later batches (engine/sql/runtime_warnings.py)
        self._take_warnings: Callable[[], list[Diagnostic]] = list
        self._end_warnings: Callable[[], list[Diagnostic]] = list
        self._held: list[Diagnostic] = []

    def follow_warnings(
        self, take: Callable[[], list[Diagnostic]], end: Callable[[], list[Diagnostic]]
    ) -> None:
        """``take`` answers the warnings recorded since it was last called; ``end`` the rest, and
        stops recording (called once, when the stream is done or closed)."""
        self._take_warnings, self._end_warnings = take, end

    def late_warnings(self) -> list[Diagnostic]:
        """The warnings the batches fetched since the last call raised, for SHOW WARNINGS and
        the EOF packet's count."""
        taken = self._held + self._take_warnings()
        self._held = []
        return taken

    def _stop_warnings(self) -> None:
        end, self._end_warnings, self._take_warnings = self._end_warnings, list, list
        self._held += end()

    def next_batch(self) -> list[tuple[Any, ...]]:
        if self.done:
            return []
        try:
            batch = self._fetch()
        except BaseException:
            self.done = True  # the engine's result is gone with the error
            self._stop_warnings()
            raise
        if not batch:
            self.done = True
            self._stop_warnings()
            for callback in self.on_end:
                callback(self.rows)
        self.rows += len(batch)
        return batch

    def close(self) -> None:
        """Drop the rest (the client went away, or the statement ended early)."""
        if not self.done:
            self.done = True
            self._close()
        self._stop_warnings()
