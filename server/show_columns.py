"""MySQL 8's column definitions of SHOW results. MySQL 8 answers SHOW [FULL] COLUMNS, DESCRIBE,
SHOW INDEX, SHOW [FULL] TABLES and SHOW DATABASES by a query over its information_schema views
(sql/dd/impl/system_views), so each SHOW column is the view column it is drawn from: a
data-dictionary column (its declared type; NOT NULL without a default sets NO_DEFAULT_VALUE) or an
expression over one (its resolved type). Text is utf8mb3 in the dictionary and sent in utf8mb4:
MySQL's length is characters × 4, TEXT/BLOB lengths bytes × 4. SHOW CREATE TABLE is built by
sql_show.cc from two strings: `Table` of 64 characters and `Create Table` of max(text bytes, 1024).
docs/upstream-facts.md ("MySQL 8 SHOW column definitions") lists the sources.
"""

from __future__ import annotations

from mysql_mimic.types import ColumnType

from drydock.server.declared_columns import NO_DEFAULT_VALUE
from drydock.server.mysql_types import MAX_LENGTH, NOT_FIXED_DEC, MySQLType

ENUM_FLAG = 0x100
NUM_FLAG = 0x8000  # numeric columns of a dictionary table (as drydock's declared columns)


def _varchar(chars: int, nullable: bool = False, flags: int = 0) -> MySQLType:
    """A dictionary table's VARCHAR column."""
    return MySQLType(
        ColumnType.VAR_STRING, chars * 4, nullable=nullable, binary=False, other_flags=flags
    )


def _string(chars: int, nullable: bool = False) -> MySQLType:
    """A string expression (IF, CASE, IFNULL, a function): decimals NOT_FIXED_DEC."""
    return MySQLType(
        ColumnType.VAR_STRING, chars * 4, NOT_FIXED_DEC, nullable=nullable, binary=False
    )


def _text(length: int, nullable: bool, flags: int = 0, decimals: int = 0) -> MySQLType:
    return MySQLType(
        ColumnType.BLOB,
        length,
        decimals,
        nullable=nullable,
        binary=False,
        blob=True,
        other_flags=flags,
    )


def _enum(chars: int) -> MySQLType:
    return MySQLType(
        ColumnType.STRING,
        chars * 4,
        nullable=False,
        binary=False,
        other_flags=ENUM_FLAG | NO_DEFAULT_VALUE,
    )


NAME = _varchar(64, flags=NO_DEFAULT_VALUE)  # a dictionary name: VARCHAR(64) NOT NULL
_YES_NO = _string(3)  # IF(…, 'YES', 'NO')
_BIGINT = MySQLType(ColumnType.LONGLONG, 21)  # an internal function's BIGINT, nullable

SHOW_COLUMNS: dict[str, dict[str, MySQLType]] = {
    # information_schema.COLUMNS over mysql.columns
    "COLUMNS": {
        "Field": NAME,  # col.name
        "Type": _text(16777215 * 4, False, NO_DEFAULT_VALUE),  # col.column_type_utf8 MEDIUMTEXT
        "Collation": _string(64, nullable=True),  # CASE … coll.name
        "Null": _YES_NO,
        "Key": _enum(3),  # col.column_key ENUM('','PRI','UNI','MUL')
        "Default": _text(65535 * 4, True),  # col.default_value_utf8 TEXT
        "Extra": _string(256),  # INTERNAL_GET_DD_COLUMN_EXTRA: VARCHAR(256) NOT NULL
        "Privileges": _string(154, nullable=True),  # GET_DD_COLUMN_PRIVILEGES: 14 × 11
        "Comment": _string(2048),  # IFNULL(col.comment, '')
    },
    # information_schema.SHOW_STATISTICS over mysql.indexes / index_column_usage / columns
    "INDEX": {
        "Table": NAME,
        "Non_unique": MySQLType(ColumnType.LONGLONG, 1, nullable=False),  # IF(…, 0, 1)
        "Key_name": NAME,  # idx.name
        "Seq_in_index": MySQLType(  # icu.ordinal_position INT UNSIGNED NOT NULL
            ColumnType.LONG,
            10,
            nullable=False,
            unsigned=True,
            other_flags=NO_DEFAULT_VALUE | NUM_FLAG,
        ),
        "Column_name": _string(64, nullable=True),  # IF(col.hidden = 'SQL', NULL, col.name)
        "Collation": _string(1, nullable=True),  # CASE … 'A' / 'D' / NULL
        "Cardinality": _BIGINT,  # INTERNAL_INDEX_COLUMN_CARDINALITY
        "Sub_part": _BIGINT,  # GET_DD_INDEX_SUB_PART_LENGTH
        "Packed": MySQLType(ColumnType.NULL, 0),  # NULL
        "Null": _YES_NO,  # IF(col.is_nullable = 1, 'YES', '')
        "Index_type": _string(11),  # CASE … idx.algorithm
        "Comment": _string(8),  # IF(…, '', IF(…, 'disabled', ''))
        "Index_comment": _varchar(2048, flags=NO_DEFAULT_VALUE),  # idx.comment
        "Visible": _YES_NO,  # IF(idx.is_visible, 'YES', 'NO')
        "Expression": _text(
            MAX_LENGTH, True, decimals=NOT_FIXED_DEC
        ),  # IF(…, col.generation_expression_utf8, NULL)
    },
    # information_schema.TABLES over mysql.tables
    "TABLES": {
        "Tables_in_": NAME,  # tbl.name (the column is named Tables_in_<db>)
        "Table_type": _enum(11),  # tbl.type ENUM('BASE TABLE','VIEW','SYSTEM VIEW')
    },
    # information_schema.SCHEMATA over mysql.schemata
    "DATABASES": {"Database": NAME},
    # sql_show.cc: Item_empty_string("Table", NAME_CHAR_LEN); the Create Table length is set
    # from the statement's text by :func:`show_column`
    "CREATE TABLE": {"Table": _string(64), "Create Table": _string(1024)},
}


def show_column(show: str, name: str, rows: list[tuple] | None = None) -> MySQLType | None:
    """MySQL 8's definition of the column ``name`` of the SHOW result ``show`` (a key of
    :data:`SHOW_COLUMNS`); None when not listed. ``rows`` sizes SHOW CREATE TABLE's text."""
    listed = SHOW_COLUMNS.get(show)
    if listed is None:
        return None
    if show == "TABLES" and name.startswith("Tables_in_"):
        name = "Tables_in_"
    if show == "CREATE TABLE" and name == "Create Table":
        longest = max((len(str(r[1]).encode()) for r in rows or () if len(r) > 1), default=0)
        return _string(max(longest, 1024))
    return listed.get(name)
