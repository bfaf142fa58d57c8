"""MySQL's column definitions of the information_schema columns clients read, for a result column
selected from one (``SELECT COLUMN_NAME, ORDINAL_POSITION FROM information_schema.COLUMNS``):
drydock answers information_schema from DuckDB views, whose types (VARCHAR, INTEGER) are not the
metadata tables' own. Names are VARCHAR(64) (256 bytes in utf8mb4), NOT NULL without a default;
counts and positions BIGINT UNSIGNED; COLUMN_TYPE and COLUMN_DEFAULT are LONGTEXT. The lengths are
those the differential corpus (tests/differential) records for each column.
"""

from __future__ import annotations

from mysql_mimic.types import ColumnType

from drydock.server.declared_columns import NO_DEFAULT_VALUE, NOT_NULL, UNSIGNED
from drydock.server.mysql_types import MySQLType


def _text(length: int, nullable: bool = False) -> MySQLType:
    return MySQLType(
        ColumnType.VAR_STRING,
        length,
        nullable=nullable,
        binary=False,
        other_flags=NO_DEFAULT_VALUE,
    )


def _long_text(length: int, nullable: bool) -> MySQLType:
    return MySQLType(
        ColumnType.BLOB,
        length,
        nullable=nullable,
        binary=False,
        blob=True,
        other_flags=NO_DEFAULT_VALUE,
    )


def _number(
    type_code: ColumnType, length: int, nullable: bool = False, unsigned: bool = True
) -> MySQLType:
    flags = NO_DEFAULT_VALUE | (0 if nullable else NOT_NULL) | (UNSIGNED if unsigned else 0)
    return MySQLType(
        type_code, length, nullable=nullable, unsigned=unsigned, binary=False, other_flags=flags
    )


NAME = _text(256)  # VARCHAR(64) NOT NULL
NULLABLE_NAME = _text(256, nullable=True)
YES_NO = _text(12)  # VARCHAR(3) NOT NULL
COUNT = _number(ColumnType.LONGLONG, 21, nullable=True)  # BIGINT(21) UNSIGNED

_COMMON = {
    "TABLE_SCHEMA": NAME,
    "TABLE_NAME": NAME,
    "COLUMN_NAME": NAME,
    "CONSTRAINT_SCHEMA": NAME,
    "CONSTRAINT_NAME": NAME,
    "INDEX_SCHEMA": NAME,
    "INDEX_NAME": NAME,
}
METADATA_COLUMNS: dict[str, dict[str, MySQLType]] = {
    "COLUMNS": {
        "ORDINAL_POSITION": _number(ColumnType.LONGLONG, 21),
        "COLUMN_DEFAULT": _long_text(786384, nullable=True),
        "IS_NULLABLE": YES_NO,
        "DATA_TYPE": NAME,
        "CHARACTER_MAXIMUM_LENGTH": COUNT,
        "CHARACTER_OCTET_LENGTH": COUNT,
        "NUMERIC_PRECISION": COUNT,
        "NUMERIC_SCALE": COUNT,
        "DATETIME_PRECISION": COUNT,
        "COLUMN_TYPE": _long_text(786420, nullable=False),
        "COLUMN_KEY": YES_NO,
        "EXTRA": _text(320),
    },
    "STATISTICS": {
        "NON_UNIQUE": _number(ColumnType.LONGLONG, 1, unsigned=False),
        "SEQ_IN_INDEX": _number(ColumnType.LONG, 2),
        "NULLABLE": YES_NO,
        "INDEX_TYPE": _text(64),  # VARCHAR(16) NOT NULL
    },
    "TABLES": {"TABLE_TYPE": NAME},
    "TABLE_CONSTRAINTS": {"CONSTRAINT_TYPE": NAME},
    "KEY_COLUMN_USAGE": {
        "ORDINAL_POSITION": _number(ColumnType.LONGLONG, 10, unsigned=False),
        "REFERENCED_TABLE_SCHEMA": NULLABLE_NAME,
        "REFERENCED_TABLE_NAME": NULLABLE_NAME,
        "REFERENCED_COLUMN_NAME": NULLABLE_NAME,
    },
}


def metadata_column(table: str, column: str) -> MySQLType | None:
    """MySQL's definition of ``column`` of ``information_schema.<table>``, None if not listed."""
    name = column.upper()
    listed = METADATA_COLUMNS.get(table.upper())
    if listed is None:
        return None
    return listed.get(name) or _COMMON.get(name)
