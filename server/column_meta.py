"""MySQL column definitions as MySQL sends them (protocol ColumnDefinition41).

mysql-mimic writes every column with length 256, decimals 0, no table and type VARCHAR (15) for
strings. MySQL never sends 15 in a result: strings are VAR_STRING (253), fixed CHAR is STRING
(254), TEXT/BLOB are BLOB (252); mysql-connector's C extension refuses 15 in prepared statements.
Drivers read the rest too: JDBC getScale() is ``decimals``, getPrecision()/getColumnDisplaySize()
come from ``length``, getTableName()/getColumnName() from ``table``/``org_name``, isSigned() from
the UNSIGNED flag. ResultColumn is a compiled class (no subclassing, no new attributes), so the
extra fields travel beside it as :class:`ColumnMeta`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mysql_mimic import ResultColumn, packets
from mysql_mimic.charset import CharacterSet
from mysql_mimic.types import ColumnDefinition, ColumnType

# https://dev.mysql.com/doc/dev/mysql-server/latest/group__group__cs__column__definition__flags.html
BLOB_FLAG = 16
UNSIGNED_FLAG = 32
BINARY_FLAG = 128
NUM_FLAG = 32768

NOT_FIXED_DEC = 31  # MySQL's decimals for DOUBLE/FLOAT and strings of unknown scale

# Display lengths MySQL sends for each type (characters; strings are multiplied by mbmaxlen)
_LENGTHS = {
    ColumnType.TINY: 4,
    ColumnType.SHORT: 6,
    ColumnType.INT24: 9,
    ColumnType.LONG: 11,
    ColumnType.LONGLONG: 20,
    ColumnType.FLOAT: 12,
    ColumnType.DOUBLE: 22,
    ColumnType.DATE: 10,
    ColumnType.TIME: 10,
    ColumnType.DATETIME: 19,
    ColumnType.TIMESTAMP: 19,
    ColumnType.YEAR: 4,
    ColumnType.JSON: 4294967295,
    ColumnType.BLOB: 65535,
    ColumnType.NULL: 0,
}
_NUMERIC = {
    ColumnType.TINY,
    ColumnType.SHORT,
    ColumnType.INT24,
    ColumnType.LONG,
    ColumnType.LONGLONG,
    ColumnType.FLOAT,
    ColumnType.DOUBLE,
    ColumnType.NEWDECIMAL,
    ColumnType.DECIMAL,
    ColumnType.YEAR,
}
# Text columns whose declared length DuckDB does not keep: MySQL's longest VARCHAR (65535 bytes)
UNKNOWN_TEXT_LENGTH = 65535
_UNSIGNED_LENGTHS = {"UTINYINT": 3, "USMALLINT": 5, "UINTEGER": 10, "UBIGINT": 20}
_DECIMAL = re.compile(r"DECIMAL\((\d+),\s*(\d+)\)", re.IGNORECASE)


@dataclass(frozen=True)
class ColumnMeta:
    """What a column definition carries besides name, type and character set."""

    schema: str = ""
    table: str = ""
    org_table: str = ""
    org_name: str = ""
    length: int | None = None
    decimals: int | None = None
    flags: int = 0
    # a declared table column (server/declared_columns.py): flags, length and character set are
    # complete as given
    declared: bool = False


def wire_type(column_type: ColumnType) -> ColumnType:
    """The type code MySQL itself would send: never VARCHAR (15) in a result."""
    return ColumnType.VAR_STRING if column_type == ColumnType.VARCHAR else column_type


def from_duck_type(duck_type: str) -> ColumnMeta:
    """Length, decimals and flags of a DuckDB type name ('DECIMAL(10,2)', 'UINTEGER', …)."""
    t = duck_type.upper()
    decimal = _DECIMAL.fullmatch(t)
    if decimal:
        precision, scale = int(decimal.group(1)), int(decimal.group(2))
        return ColumnMeta(length=precision + (1 if scale else 0) + 1, decimals=scale)
    if t in ("HUGEINT", "UHUGEINT"):
        return ColumnMeta(length=40, decimals=0, flags=UNSIGNED_FLAG if t.startswith("U") else 0)
    if t in _UNSIGNED_LENGTHS:
        return ColumnMeta(length=_UNSIGNED_LENGTHS[t], flags=UNSIGNED_FLAG)
    if t.startswith("TIMESTAMP"):  # DuckDB keeps microseconds unless the type says less
        fsp = 0 if t == "TIMESTAMP_S" else 3 if t == "TIMESTAMP_MS" else 6
        return temporal(ColumnType.DATETIME, fsp)
    if t in ("TIME", "INTERVAL"):
        return temporal(ColumnType.TIME, 6)
    return ColumnMeta()


def temporal(column_type: ColumnType, fsp: int) -> ColumnMeta:
    """A DATETIME or TIME of ``fsp`` fractional digits: MySQL's length counts the point too."""
    base = 19 if column_type == ColumnType.DATETIME else 10
    return ColumnMeta(length=base + (fsp + 1 if fsp else 0), decimals=fsp)


def definition(
    column: ResultColumn, meta: ColumnMeta | None, server_charset: CharacterSet
) -> bytes:
    """One ColumnDefinition41 packet, as MySQL fills it."""
    meta = meta or ColumnMeta()
    column_type = wire_type(column.type)
    binary = column.character_set == CharacterSet.binary
    flags = meta.flags if meta.declared else meta.flags | _implied_flags(column_type, binary)
    length = (
        meta.length
        if meta.length is not None
        else _default_length(column_type, column.character_set)
    )
    decimals = meta.decimals if meta.decimals is not None else _default_decimals(column_type)
    # numbers, dates and blobs are in the binary character set in MySQL's definitions
    if meta.declared:  # strings and blobs in their own set; numbers, dates and JSON in binary
        text = column_type in (ColumnType.STRING, ColumnType.VAR_STRING, ColumnType.BLOB)
        charset = column.character_set if text else CharacterSet.binary
    else:
        charset = column.character_set if column_type in _TEXT or binary else CharacterSet.binary
    return packets.make_column_definition_41(
        server_charset=server_charset,
        schema=meta.schema,
        table=meta.table,
        org_table=meta.org_table,
        name=column.name,
        org_name=meta.org_name or (column.name if meta.org_table else ""),
        character_set=charset,
        column_length=length,
        column_type=column_type,
        flags=ColumnDefinition(flags),
        decimals=decimals,
    )


def _implied_flags(column_type: ColumnType, binary: bool) -> int:
    """The flags MySQL gives an expression of this type."""
    flags = 0
    if column_type in _NUMERIC:
        flags |= NUM_FLAG | BINARY_FLAG
    if column_type == ColumnType.BLOB:
        flags |= BLOB_FLAG | (BINARY_FLAG if binary else 0)
    if column_type in (ColumnType.DATE, ColumnType.TIME, ColumnType.DATETIME):
        flags |= BINARY_FLAG
    return flags


_TEXT = {
    ColumnType.VAR_STRING,
    ColumnType.STRING,
    ColumnType.BLOB,
    ColumnType.JSON,
    ColumnType.ENUM,
    ColumnType.SET,
}


def _default_length(column_type: ColumnType, charset: CharacterSet) -> int:
    if column_type in (ColumnType.VAR_STRING, ColumnType.STRING):
        return UNKNOWN_TEXT_LENGTH * (1 if charset == CharacterSet.binary else 4)
    if column_type == ColumnType.NEWDECIMAL:
        return 67  # DECIMAL(65,30) with sign and point, when the scale is unknown
    return _LENGTHS.get(column_type, 256)


def _default_decimals(column_type: ColumnType) -> int:
    return NOT_FIXED_DEC if column_type in (ColumnType.FLOAT, ColumnType.DOUBLE) else 0
