"""What information_schema shows of a definition, worked out once when the definition is saved.

The store keeps these rows as JSON beside the definition (engine/dictionary/store.py), so that
information_schema's DuckDB views (engine/sql/info_schema.py) only unnest them: COLUMNS over a
thousand tables costs a join, not a thousand Python calls. Every value is spelled as MySQL 8.0
spells it (manual 28.3 "INFORMATION_SCHEMA Tables"); SHOW CREATE TABLE / DESCRIBE read the same
helpers (:func:`default_text`, :func:`column_keys`, :func:`extra`).
"""

from __future__ import annotations

import json
from decimal import Decimal, InvalidOperation
from typing import Any

from sqlglot import exp, parse_one
from sqlglot.errors import ParseError

from drydock.engine.dictionary.check_text import check_clause
from drydock.engine.dictionary.model import (
    INTEGER_MAX,
    ColumnDef,
    KeyDef,
    TableDef,
)

# bytes per character (MySQL's mbmaxlen) of the character sets drydock names
CHARSET_BYTES = {"utf8mb4": 4, "utf8mb3": 3, "utf8": 3, "ucs2": 2, "utf16": 4, "utf32": 4}
# each character set's default collation (SHOW CHARACTER SET, MySQL 8.0)
CHARSET_COLLATION = {
    "utf8mb4": "utf8mb4_0900_ai_ci",
    "utf8mb3": "utf8mb3_general_ci",
    "utf8": "utf8mb3_general_ci",
    "latin1": "latin1_swedish_ci",
    "ascii": "ascii_general_ci",
    "binary": "binary",
}
_NUMERIC_PRECISION = {
    "tinyint": 3,
    "smallint": 5,
    "mediumint": 7,
    "int": 10,
    "bigint": 19,
    "float": 12,
    "double": 22,
}
_FIXED_BYTES = ("tinytext", "text", "mediumtext", "longtext", "json")
_NOW = ("CURRENT_TIMESTAMP", "NOW()", "LOCALTIMESTAMP", "LOCALTIME")


def charset_collation(table: TableDef, column: ColumnDef) -> tuple[str | None, str | None]:
    """CHARACTER_SET_NAME / COLLATION_NAME: a string column's own, else the table's."""
    if not column.is_string:
        return None, None
    charset = column.charset or table.charset
    if column.collation:
        return charset, column.collation
    if charset == table.charset:
        return charset, table.collation
    return charset, CHARSET_COLLATION.get(charset, f"{charset}_general_ci")


def octet_length(table: TableDef, column: ColumnDef) -> int | None:
    length = column.character_maximum_length()
    if length is None or column.data_type in _FIXED_BYTES or not column.is_string:
        return length
    charset, _ = charset_collation(table, column)
    return length * CHARSET_BYTES.get(charset or "", 1)


def numeric_precision_scale(column: ColumnDef) -> tuple[int | None, int | None]:
    t = column.data_type
    if t == "decimal":
        return column.precision, column.scale
    if t in ("float", "double") and column.precision is not None:
        return column.precision, column.scale
    if t == "bit":
        return column.length, None
    if t == "bigint" and column.unsigned:
        return 20, 0
    precision = _NUMERIC_PRECISION.get(t)
    if precision is None:
        return None, None
    return precision, (0 if t in INTEGER_MAX else None)


def datetime_precision(column: ColumnDef) -> int | None:
    return column.fsp or 0 if column.data_type in ("datetime", "timestamp", "time") else None


def is_now(default: str | None) -> bool:
    return default is not None and default.upper().startswith(_NOW)


def default_value(column: ColumnDef) -> str | None:
    """COLUMN_DEFAULT / DESCRIBE's Default: the value as MySQL stores it for the column's type
    (DECIMAL(10,2) DEFAULT 0 shows 0.00), CURRENT_TIMESTAMP[(n)] as is, an expression as its
    text; None when there is none (or DEFAULT NULL)."""
    text = column.default
    if text is None or text.upper() == "NULL" or column.auto_increment:
        return None
    if is_now(text):
        return text
    try:  # the default is MySQL SQL text (engine/dictionary/declare.py): read it as such
        node = parse_one(text, read="mysql")
    except ParseError:
        return text
    if isinstance(node, exp.Paren):  # an expression default (MySQL 8.0.13): its text
        return node.this.sql(dialect="mysql")
    if isinstance(node, exp.Boolean):
        return _typed_default(column, "1" if node.this else "0")
    if isinstance(node, exp.Literal):
        return _typed_default(column, node.name)
    return _typed_default(column, text)


def _typed_default(column: ColumnDef, value: str) -> str:
    t = column.data_type
    try:
        if t == "decimal":
            return str(Decimal(value).quantize(Decimal(1).scaleb(-(column.scale or 0))))
        if t in INTEGER_MAX:
            return str(int(Decimal(value)))
    except (InvalidOperation, ValueError):
        return value
    if t in ("datetime", "timestamp") and len(value) == 10:
        value += " 00:00:00"
    if t in ("datetime", "timestamp", "time") and column.fsp and "." not in value:
        value += "." + "0" * column.fsp
    return value


def is_generated_default(column: ColumnDef) -> bool:
    """EXTRA's DEFAULT_GENERATED: a CURRENT_TIMESTAMP or an expression default (MySQL 8.0.13)."""
    text = column.default
    if text is None or column.auto_increment:
        return False
    if is_now(text):
        return True
    try:
        return isinstance(parse_one(text, read="mysql"), exp.Paren)
    except ParseError:
        return False


def extra(column: ColumnDef) -> str:
    """information_schema.COLUMNS.EXTRA (and DESCRIBE's Extra) as MySQL 8.0 writes it."""
    words = []
    if column.auto_increment:
        words.append("auto_increment")
    if is_generated_default(column):
        words.append("DEFAULT_GENERATED")
    if column.on_update:
        words.append(f"on update {column.on_update}")
    return " ".join(words)


def effective_primary(table: TableDef) -> KeyDef | None:
    """The PRIMARY KEY, else (as MySQL promotes it) the first UNIQUE key whose columns are all
    NOT NULL and whole (no prefix)."""
    if table.primary_key is not None:
        return table.primary_key
    for key in table.keys:
        if key.kind != "UNIQUE" or any(p.prefix for p in key.parts):
            continue
        columns = [table.column(p.column) for p in key.parts]
        if all(c is not None and not c.nullable for c in columns):
            return key
    return None


def column_keys(table: TableDef) -> dict[str, str]:
    """COLUMN_KEY by lowercased column: PRI for every column of the (effective) primary key, UNI
    for the column of a one-column unique key, MUL for the first column of any other key."""
    keys: dict[str, str] = {}
    primary = effective_primary(table)
    for key in table.keys:
        if key is primary or not key.parts:
            continue
        first = key.parts[0].column.lower()
        mark = "UNI" if key.unique and len(key.parts) == 1 else "MUL"
        if keys.get(first) != "UNI":
            keys[first] = mark
    for part in primary.parts if primary is not None else ():
        keys[part.column.lower()] = "PRI"
    return keys


def column_rows(table: TableDef) -> list[dict[str, Any]]:
    keys = column_keys(table)
    rows = []
    for column in table.columns:
        charset, collation = charset_collation(table, column)
        precision, scale = numeric_precision_scale(column)
        rows.append(
            {
                "column_name": column.name,
                "mysql": column.is_mysql_type,
                "data_type": column.data_type,
                "column_type": column.column_type(),
                "character_maximum_length": column.character_maximum_length(),
                "character_octet_length": octet_length(table, column),
                "numeric_precision": precision,
                "numeric_scale": scale,
                "datetime_precision": datetime_precision(column),
                "character_set_name": charset,
                "collation_name": collation,
                "is_nullable": "YES" if column.nullable else "NO",
                "column_default": default_value(column),
                "column_key": keys.get(column.name.lower(), ""),
                "extra": extra(column),
                "column_comment": column.comment,
            }
        )
    return rows


def ordered_keys(table: TableDef) -> list[KeyDef]:
    """Keys in MySQL's order (sql_table.cc sort_keys): the primary key, unique keys on NOT NULL
    columns, other unique keys, plain keys, FULLTEXT keys; declared order within each."""

    def rank(key: KeyDef) -> int:
        if key.kind == "PRIMARY":
            return 0
        if key.unique:
            nullable = any((c := table.column(p.column)) is None or c.nullable for p in key.parts)
            return 2 if nullable else 1
        return 4 if key.kind == "FULLTEXT" else 3

    return sorted(table.keys, key=rank)


def statistics_rows(table: TableDef) -> list[dict[str, Any]]:
    """information_schema.STATISTICS / SHOW INDEX: one row per key part, keys in table order."""
    rows = []
    for key in ordered_keys(table):
        for seq, part in enumerate(key.parts, start=1):
            column = table.column(part.column)
            fulltext = key.kind == "FULLTEXT"
            rows.append(
                {
                    "index_name": key.name,
                    "non_unique": 0 if key.unique else 1,
                    "seq_in_index": seq,
                    "column_name": column.name if column is not None else part.column,
                    "collation": None if fulltext else ("D" if part.descending else "A"),
                    "sub_part": part.prefix,
                    "nullable": "YES" if column is not None and column.nullable else "",
                    "index_type": "FULLTEXT" if fulltext else "BTREE",
                    "index_comment": key.comment,
                }
            )
    return rows


def constraint_rows(table: TableDef) -> list[dict[str, Any]]:
    """TABLE_CONSTRAINTS: keys that are constraints (PRIMARY KEY, UNIQUE), then FOREIGN KEYs and
    CHECKs."""
    rows = [
        {
            "constraint_name": k.name,
            "constraint_type": "PRIMARY KEY" if k.kind == "PRIMARY" else "UNIQUE",
            "enforced": "YES",
        }
        for k in table.keys
        if k.unique
    ]
    rows += [
        {"constraint_name": f.name, "constraint_type": "FOREIGN KEY", "enforced": "YES"}
        for f in table.foreign_keys
    ]
    rows += [
        {
            "constraint_name": c.name,
            "constraint_type": "CHECK",
            "enforced": "YES" if c.enforced else "NO",
        }
        for c in table.checks
    ]
    return rows


def key_column_rows(table: TableDef) -> list[dict[str, Any]]:
    """KEY_COLUMN_USAGE: the columns of PRIMARY KEY / UNIQUE keys and of FOREIGN KEYs (with the
    columns they reference)."""
    rows: list[dict[str, Any]] = []
    for key in ordered_keys(table):
        if not key.unique:
            continue
        for position, part in enumerate(key.parts, start=1):
            rows.append(
                {
                    "constraint_name": key.name,
                    "column_name": part.column,
                    "ordinal_position": position,
                    "position_in_unique_constraint": None,
                    "referenced_table_schema": None,
                    "referenced_table_name": None,
                    "referenced_column_name": None,
                }
            )
    for fk in table.foreign_keys:
        for position, (column, ref) in enumerate(zip(fk.columns, fk.ref_columns), start=1):
            rows.append(
                {
                    "constraint_name": fk.name,
                    "column_name": column,
                    "ordinal_position": position,
                    "position_in_unique_constraint": position,
                    "referenced_table_schema": fk.ref_schema,
                    "referenced_table_name": fk.ref_table,
                    "referenced_column_name": ref,
                }
            )
    return rows


def referential_rows(table: TableDef) -> list[dict[str, Any]]:
    return [
        {
            "constraint_name": fk.name,
            "unique_constraint_schema": fk.ref_schema,
            "referenced_table_name": fk.ref_table,
            "referenced_columns": ",".join(c.lower() for c in fk.ref_columns),
            "update_rule": fk.on_update,
            "delete_rule": fk.on_delete,
        }
        for fk in table.foreign_keys
    ]


def check_rows(table: TableDef) -> list[dict[str, Any]]:
    return [
        {"constraint_name": c.name, "check_clause": check_clause(c.expression)}
        for c in table.checks
    ]


# the store's columns, each a JSON list of one kind of row (engine/dictionary/store.py)
ROW_KINDS = {
    "columns_rows": column_rows,
    "statistics_rows": statistics_rows,
    "constraint_rows": constraint_rows,
    "key_column_rows": key_column_rows,
    "referential_rows": referential_rows,
    "check_rows": check_rows,
}


def rows_json(table: TableDef) -> dict[str, str]:
    return {
        name: json.dumps(make(table), separators=(",", ":")) for name, make in ROW_KINDS.items()
    }
