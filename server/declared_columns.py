"""A result column read straight from an internal table with a declared definition
(engine/dictionary; engine/sql/result_origins.py finds it): its column definition and its values
as MySQL sends them for the declared type, not for the DuckDB type that stores it.

MySQL's definition of a table column (ColumnDefinition41): the type code of the declared type
(TINYINT(1) is TINY, MEDIUMINT INT24, CHAR/ENUM/SET STRING, TEXT/BLOB BLOB), its display length
(characters times the character set's longest character for strings; digits, sign and point for
numbers; 19 + point + fsp for DATETIME), decimals (scale, fsp; 31 for FLOAT/DOUBLE without
(M,D)) and the field's flags: NOT_NULL, PRI_KEY, UNIQUE_KEY / MULTIPLE_KEY on a key's first
column, PART_KEY on every key column, UNSIGNED, ZEROFILL, BINARY for binary strings and
temporals, BLOB, ENUM, SET, AUTO_INCREMENT, TIMESTAMP and ON_UPDATE_NOW, NO_DEFAULT_VALUE.
NUM_FLAG is not sent for a table column (libmysqlclient sets it itself). Compared with MariaDB
10.11, which writes these the same way (tests/wire/test_declared_columns.py).

Values: DATETIME/TIMESTAMP/TIME with their declared fractional digits (none for fsp 0), DECIMAL
with its scale, BIT(n) as the n bits' bytes, YEAR as 4 digits.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from mysql_mimic import ResultColumn
from mysql_mimic.charset import CharacterSet
from mysql_mimic.types import ColumnType

from drydock.engine.dictionary.model import FIXED_LENGTH, ColumnDef, TableDef
from drydock.engine.sql.mysql_json_doc import mysql_text
from drydock.server.column_meta import ColumnMeta

# https://dev.mysql.com/doc/dev/mysql-server/latest/group__group__cs__column__definition__flags.html
NOT_NULL = 1
PRI_KEY = 2
UNIQUE_KEY = 4
MULTIPLE_KEY = 8
BLOB = 16
UNSIGNED = 32
ZEROFILL = 64
BINARY = 128
ENUM = 256
AUTO_INCREMENT = 512
TIMESTAMP = 1024
SET = 2048
NO_DEFAULT_VALUE = 4096
ON_UPDATE_NOW = 8192
PART_KEY = 16384

_TYPES = {
    "tinyint": ColumnType.TINY,
    "smallint": ColumnType.SHORT,
    "mediumint": ColumnType.INT24,
    "int": ColumnType.LONG,
    "bigint": ColumnType.LONGLONG,
    "decimal": ColumnType.NEWDECIMAL,
    "float": ColumnType.FLOAT,
    "double": ColumnType.DOUBLE,
    "char": ColumnType.STRING,
    "binary": ColumnType.STRING,
    "enum": ColumnType.STRING,
    "set": ColumnType.STRING,
    "varchar": ColumnType.VAR_STRING,
    "varbinary": ColumnType.VAR_STRING,
    "tinytext": ColumnType.BLOB,
    "text": ColumnType.BLOB,
    "mediumtext": ColumnType.BLOB,
    "longtext": ColumnType.BLOB,
    "tinyblob": ColumnType.BLOB,
    "blob": ColumnType.BLOB,
    "mediumblob": ColumnType.BLOB,
    "longblob": ColumnType.BLOB,
    "date": ColumnType.DATE,
    "datetime": ColumnType.DATETIME,
    "timestamp": ColumnType.TIMESTAMP,
    "time": ColumnType.TIME,
    "year": ColumnType.YEAR,
    "bit": ColumnType.BIT,
    "json": ColumnType.JSON,
    "geometry": ColumnType.GEOMETRY,
}
# display width of each integer type: (signed, unsigned)
_INTEGER_LENGTHS = {
    "tinyint": (4, 3),
    "smallint": (6, 5),
    "mediumint": (9, 8),
    "int": (11, 10),
    "bigint": (20, 20),
}
_BINARY_STRINGS = ("binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob")
_TEXTS = ("tinytext", "text", "mediumtext", "longtext")
_MAX_LENGTH = 4294967295  # the definition's length is 4 bytes
# a string's length is in the results' character set (MySQL converts it: characters times that
# set's longest character), which drydock sends in utf8mb4 whatever the column's own set
RESULTS_MBMAXLEN = 4
NOT_FIXED_DEC = 31

Convert = Callable[[Any], Any]
TextEncoder = Callable[[ResultColumn, Any], bytes]


@dataclass(frozen=True)
class Declared:
    """How one declared column goes on the wire: everything but the result's label."""

    name: str  # as declared: the definition's org_name, whatever case the query wrote
    type: ColumnType
    charset: CharacterSet  # binary for binary strings and BIT (bytes), else utf8mb4
    length: int
    decimals: int
    flags: int
    convert: Convert | None = None  # the stored value → the value of the declared type
    text_encoder: TextEncoder | None = None  # its text-protocol form, when not str(value)

    def column(self, name: str) -> ResultColumn:
        """The result column; its character set encodes the text form of the values (numbers
        and dates as UTF-8 digits: server/column_meta.py declares them binary, as MySQL)."""
        if self.text_encoder is not None:
            return ResultColumn(name, self.type, self.charset, text_encoder=self.text_encoder)
        return ResultColumn(name, self.type, self.charset)

    def meta(self, schema: str, table: str, org_table: str) -> ColumnMeta:
        return ColumnMeta(
            schema=schema,
            table=table,
            org_table=org_table,
            org_name=self.name,
            length=self.length,
            decimals=self.decimals,
            flags=self.flags,
            declared=True,
        )


_MEMO: dict[tuple[int, str], tuple[TableDef, Declared | None]] = {}
_MEMO_SIZE = 4096


def declared(table: TableDef, name: str) -> Declared | None:
    """Column ``name`` of ``table`` on the wire, None when the table declares no such column of
    a MySQL type; worked out once per kept definition (the memo holds the definition, so its id
    is not reused while the entry lives)."""
    key = (id(table), name)
    hit = _MEMO.get(key)
    if hit is not None and hit[0] is table:
        return hit[1]
    column = table.column(name)
    value = _declared(table, column) if column is not None and column.is_mysql_type else None
    if len(_MEMO) >= _MEMO_SIZE:
        _MEMO.clear()
    _MEMO[key] = (table, value)
    return value


def _declared(table: TableDef, column: ColumnDef) -> Declared:
    t = column.data_type
    charset = CharacterSet.binary if t in _BINARY_STRINGS or t == "bit" else CharacterSet.utf8mb4
    convert, encoder = _values(column)
    return Declared(
        name=column.name,
        type=_TYPES[t],
        charset=charset,
        length=min(_length(column), _MAX_LENGTH),
        decimals=_decimals(column),
        flags=_flags(table, column),
        convert=convert,
        text_encoder=encoder,
    )


def _length(column: ColumnDef) -> int:
    t = column.data_type
    if t in _INTEGER_LENGTHS:
        if column.length is not None and (column.zerofill or t == "tinyint"):
            return column.length
        return _INTEGER_LENGTHS[t][column.unsigned]
    if t == "decimal":
        precision, scale = column.precision or 10, column.scale or 0
        return precision + (1 if scale else 0) + (0 if column.unsigned else 1)
    if t in ("float", "double"):
        if column.precision is not None:
            return column.precision
        return 12 if t == "float" else 22
    if t in ("date", "time"):
        return 10 + _fraction_width(column.fsp)
    if t in ("datetime", "timestamp"):
        return 19 + _fraction_width(column.fsp)
    if t == "year":
        return 4
    if t == "bit":
        return column.length or 1
    if t in ("json", "geometry"):
        return _MAX_LENGTH
    characters = column.character_maximum_length() or FIXED_LENGTH.get(t, 0)
    if t in _BINARY_STRINGS:
        return characters
    return characters * RESULTS_MBMAXLEN


def _fraction_width(fsp: int | None) -> int:
    return fsp + 1 if fsp else 0


def _decimals(column: ColumnDef) -> int:
    t = column.data_type
    if t in ("float", "double"):
        return column.scale if column.precision is not None and column.scale is not None else 31
    if t == "decimal":
        return column.scale or 0
    if t in ("datetime", "timestamp", "time"):
        return column.fsp or 0
    return 0


def _flags(table: TableDef, column: ColumnDef) -> int:
    t = column.data_type
    flags = _key_flags(table, column.name.lower())
    if not column.nullable:
        flags |= NOT_NULL
        if column.default is None and not column.auto_increment:
            flags |= NO_DEFAULT_VALUE
    if column.unsigned or t in ("year", "bit"):
        flags |= UNSIGNED
    if column.zerofill or t == "year":
        flags |= ZEROFILL
    if t in _BINARY_STRINGS or t in ("date", "datetime", "timestamp", "time", "json"):
        flags |= BINARY
    if t in _TEXTS or t in _BINARY_STRINGS[2:] or t == "json":
        flags |= BLOB
    if t == "enum":
        flags |= ENUM
    if t == "set":
        flags |= SET
    if column.auto_increment:
        flags |= AUTO_INCREMENT
    if t == "timestamp":
        flags |= UNSIGNED  # MySQL's old TIMESTAMP compatibility flag, which it still sends
        now = (column.default or "").upper().startswith("CURRENT_TIMESTAMP")
        if now or column.on_update:
            flags |= TIMESTAMP
    if column.on_update:
        flags |= ON_UPDATE_NOW
    return flags


def _key_flags(table: TableDef, name: str) -> int:
    """PRI_KEY on the primary key's columns (without one: the first UNIQUE key whose columns
    are all NOT NULL, as MySQL takes it); UNIQUE_KEY / MULTIPLE_KEY on another key's first
    column (UNIQUE_KEY for a one-column unique key); PART_KEY on every key's columns."""
    primary = table.primary_key or next(
        (
            k
            for k in table.keys
            if k.kind == "UNIQUE"
            and all((c := table.column(p)) is not None and not c.nullable for p in k.columns)
        ),
        None,
    )
    flags = 0
    for key in table.keys:
        columns = [c.lower() for c in key.columns]
        if name not in columns:
            continue
        flags |= PART_KEY
        if key is primary:
            flags |= PRI_KEY
        elif columns[0] == name:
            flags |= UNIQUE_KEY if key.unique and len(columns) == 1 else MULTIPLE_KEY
    return flags


# -- values ----------------------------------------------------------------------------------------
def _values(column: ColumnDef) -> tuple[Convert | None, TextEncoder | None]:
    t = column.data_type
    if t in ("datetime", "timestamp"):
        return _datetime_value(column.fsp or 0), _datetime_text(column.fsp or 0)
    if t == "time":
        return _time_value(column.fsp or 0), _time_text(column.fsp or 0)
    if t == "decimal":
        return _decimal_value(column.scale or 0), None
    if t == "bit":
        return _bit_value(column.length or 1), None
    if t == "year":
        return _integer, None
    if t in _BINARY_STRINGS:
        return _bytes, None
    if t == "json":
        return _json, None
    if column.is_string:
        return _text, None
    return None, None


def _json(v: Any) -> Any:
    """As MySQL prints JSON (``{"a": 1, "b": [1, 2]}``), not DuckDB's compact text."""
    return mysql_text(v) if isinstance(v, str) else v


def _integer(v: Any) -> Any:
    return None if v is None else int(v)


def _bytes(v: Any) -> Any:
    return v.encode("utf-8") if isinstance(v, str) else v


def _text(v: Any) -> Any:
    return v if v is None or isinstance(v, (str, bytes)) else str(v)


def _decimal_value(scale: int) -> Convert:
    def convert(v: Any) -> Any:
        if v is None or isinstance(v, str):
            return v
        return f"{Decimal(v):.{scale}f}"

    return convert


def _bit_value(bits: int) -> Convert:
    """BIT(n) as MySQL sends it: the value's (n + 7) // 8 bytes, big-endian (the column may hold
    it as a text of binary digits or as a number)."""
    size = (bits + 7) // 8

    def convert(v: Any) -> Any:
        if v is None or isinstance(v, bytes):
            return v
        try:
            number = int(v, 2) if isinstance(v, str) else int(v)
            return number.to_bytes(size, "big")
        except (ValueError, OverflowError):  # not bits: sent as stored
            return v

    return convert


def _rounding(microseconds: int, fsp: int) -> dt.timedelta:
    """What makes ``microseconds`` a multiple of the fsp's step, rounded half up as MySQL
    stores a longer fraction (DuckDB keeps all 6 digits whatever the declared fsp)."""
    step = 10 ** (6 - fsp)
    below = microseconds % step
    return dt.timedelta(microseconds=(step - below) if below * 2 >= step else -below)


def _datetime_value(fsp: int) -> Convert:
    def convert(v: Any) -> Any:
        if not isinstance(v, dt.datetime):
            return v
        if v.tzinfo is not None:
            v = v.astimezone(dt.UTC).replace(tzinfo=None)
        return v + _rounding(v.microsecond, fsp) if fsp < 6 else v

    return convert


def _datetime_text(fsp: int) -> TextEncoder:
    def encode(column: ResultColumn, v: Any) -> bytes:
        if not isinstance(v, dt.datetime):
            return str(v).encode("ascii", "replace")
        text = f"{v.year:04d}-{v.month:02d}-{v.day:02d} {v.hour:02d}:{v.minute:02d}:{v.second:02d}"
        if fsp:
            text += "." + f"{v.microsecond:06d}"[:fsp]
        return text.encode("ascii")

    return encode


def _time_value(fsp: int) -> Convert:
    def convert(v: Any) -> Any:
        if isinstance(v, dt.time):
            v = dt.timedelta(
                hours=v.hour, minutes=v.minute, seconds=v.second, microseconds=v.microsecond
            )
        if not isinstance(v, dt.timedelta):
            return v
        if fsp == 6:
            return v
        magnitude = abs(v)
        rounded = magnitude + _rounding(magnitude.microseconds, fsp)
        return -rounded if v < dt.timedelta(0) else rounded

    return convert


def _time_text(fsp: int) -> TextEncoder:
    return lambda column, v: time_text(column, v, fsp)


def time_text(column: ResultColumn, value: Any, fsp: int | None = None) -> bytes:
    """A TIME in the text protocol as MySQL writes it: [-]HH:MM:SS, hours past 24 (str() of a
    timedelta says '-1 day, 23:00:00'), then ``fsp`` fractional digits — or, for a TIME of no
    declared precision, six when there is a fraction."""
    if not isinstance(value, dt.timedelta):
        return str(value).encode("ascii", "replace")
    sign = "-" if value < dt.timedelta(0) else ""
    magnitude = -value if sign else value
    hours, rest = divmod(magnitude.days * 86400 + magnitude.seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    text = f"{sign}{hours:02d}:{minutes:02d}:{seconds:02d}"
    digits = (6 if magnitude.microseconds else 0) if fsp is None else fsp
    if digits:
        text += "." + f"{magnitude.microseconds:06d}"[:digits]
    return text.encode("ascii")
