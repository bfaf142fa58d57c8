"""What a server answers to one statement, in the terms the differential compares: the error
(code and SQLSTATE), the column definitions (name, type code, length, decimals, flags), the rows as
text, the affected rows, the OK packet's info string and the warnings (count and level/code)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import pymysql

# Column definition flags (MySQL's include/mysql_com.h), for a readable rendering.
_FLAG_NAMES = (
    (0x1, "NOT_NULL"),
    (0x2, "PRI_KEY"),
    (0x4, "UNIQUE_KEY"),
    (0x8, "MULTIPLE_KEY"),
    (0x10, "BLOB"),
    (0x20, "UNSIGNED"),
    (0x40, "ZEROFILL"),
    (0x80, "BINARY"),
    (0x100, "ENUM"),
    (0x200, "AUTO_INCREMENT"),
    (0x400, "TIMESTAMP"),
    (0x800, "SET"),
    (0x1000, "NO_DEFAULT_VALUE"),
    (0x2000, "ON_UPDATE_NOW"),
    (0x8000, "NUM"),
)
# PART_KEY (0x4000) is left out: MariaDB sets it on every column of any index, MySQL 8 only
# when asked for field details; the wire carries only these two bytes of flags.
COMPARED_FLAGS = sum(bit for bit, _ in _FLAG_NAMES)


def flag_names(flags: int) -> str:
    return "|".join(name for bit, name in _FLAG_NAMES if flags & bit) or "0"


@dataclass(frozen=True)
class Column:
    name: str
    type_code: int
    length: int
    decimals: int
    flags: int

    def render(self) -> str:
        return (
            f"{self.name!r} type={self.type_code} len={self.length} dec={self.decimals} "
            f"flags={flag_names(self.flags)}"
        )


@dataclass(frozen=True)
class Answer:
    error: tuple[int, str] | None = None  # (code, SQLSTATE)
    columns: tuple[Column, ...] = ()
    rows: tuple[tuple[str | None, ...], ...] = ()
    affected: int = 0
    info: str = ""
    warnings: tuple[tuple[str, int], ...] = ()  # (level, code) of each warning
    message: str = field(default="", compare=False)  # shown, never compared (texts differ)

    def replace(self, **changes: Any) -> Answer:
        return dataclasses.replace(self, **changes)

    def values(self) -> Answer:
        """This answer without its column definitions' types (names kept): what the values test
        compares."""
        return self.replace(columns=tuple(Column(c.name, 0, 0, 0, 0) for c in self.columns))

    def definitions(self) -> tuple[Column, ...]:
        """The column definitions: what the definitions test compares."""
        return self.columns

    def render(self) -> list[str]:
        if self.error is not None:
            return [f"ERROR {self.error[0]} ({self.error[1]}): {self.message}"]
        lines = [f"column {c.render()}" for c in self.columns]
        lines += [f"row {list(r)!r}" for r in self.rows]
        lines.append(f"affected={self.affected} info={self.info!r}")
        lines.append(f"warnings={list(self.warnings)!r}")
        return lines


def _text(value: Any) -> str | None:
    """A value as the text protocol sent it: str for text columns, bytes (shown as hex) for
    binary ones — the connection is opened with no converters, so nothing is reinterpreted."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bytes | bytearray):
        return "0x" + bytes(value).hex()
    return str(value)


def _info(message: bytes | str | None) -> str:
    """The OK packet's info string; pymysql keeps its length-encoded length byte in front."""
    raw = message.encode() if isinstance(message, str) else message or b""
    if raw and raw[0] == len(raw) - 1:
        raw = raw[1:]
    return raw.decode()


def run(conn: pymysql.connections.Connection, sql: str) -> Answer:
    """Send ``sql`` as one COM_QUERY and record the answer."""
    try:
        conn.query(sql)
    except pymysql.err.MySQLError as exc:
        code = exc.args[0] if exc.args and isinstance(exc.args[0], int) else -1
        message = str(exc.args[1]) if len(exc.args) > 1 else str(exc)
        return Answer(error=(code, getattr(exc, "sqlstate", None) or ""), message=message)
    result = conn._result
    assert result is not None
    columns = tuple(
        Column(f.name, f.type_code, f.length, f.scale, f.flags & COMPARED_FLAGS)
        for f in (getattr(result, "fields", None) or ())
    )
    rows = tuple(tuple(_text(v) for v in row) for row in (result.rows or ()))
    info = _info(result.message)
    warnings: tuple[tuple[str, int], ...] = ()
    if result.warning_count:
        conn.query("SHOW WARNINGS")
        shown = conn._result.rows if conn._result else ()
        warnings = tuple((str(level), int(code)) for level, code, _ in shown or ())
        if len(warnings) != result.warning_count:  # the count itself is what is compared
            warnings += (("count", result.warning_count),)
    return Answer(
        columns=columns,
        rows=rows,
        affected=result.affected_rows if not columns else len(rows),
        info=info,
        warnings=warnings,
    )


def connect(host: str, port: int) -> pymysql.connections.Connection:
    """A connection that keeps every value as the text the server sent (no converters)."""
    return pymysql.connect(
        host=host,
        port=port,
        user="root",
        password="",
        autocommit=True,
        conv={},
        connect_timeout=10,
        read_timeout=60,
        write_timeout=60,
        charset="utf8mb4",
    )
