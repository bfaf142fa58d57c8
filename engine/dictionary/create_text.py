"""SHOW CREATE TABLE's text of a definition, line by line as MySQL 8.0 writes it: each column
(type, CHARACTER SET / COLLATE where they differ from the table's, NOT NULL, DEFAULT, ON UPDATE,
AUTO_INCREMENT, COMMENT), then PRIMARY KEY, UNIQUE KEY, KEY and FULLTEXT KEY lines (prefixes,
DESC), CONSTRAINT … FOREIGN KEY and CONSTRAINT … CHECK lines, then the table options.
"""

from __future__ import annotations

from drydock.engine.dictionary import info_rows
from drydock.engine.dictionary.check_text import check_clause
from drydock.engine.dictionary.model import (
    BINARY_TYPES,
    ColumnDef,
    ForeignKeyDef,
    KeyDef,
    TableDef,
)

# types MySQL never writes DEFAULT NULL for (they take no literal default)
_NO_DEFAULT_NULL = (*BINARY_TYPES[2:], "tinytext", "text", "mediumtext", "longtext", "json")
_KEY_WORDS = {"PRIMARY": "PRIMARY KEY", "UNIQUE": "UNIQUE KEY", "INDEX": "KEY"}


def quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def string_literal(text: str) -> str:
    """A string as SHOW CREATE TABLE quotes it (backslash escapes, as MySQL's
    append_unescaped)."""
    escaped = (
        text.replace("\\", "\\\\")
        .replace("'", "\\'")
        .replace("\n", "\\n")
        .replace("\r", "\\r")
        .replace("\0", "\\0")
    )
    return f"'{escaped}'"


def column_line(table: TableDef, column: ColumnDef) -> str:
    parts = [quote(column.name), column.column_type()]
    charset, collation = info_rows.charset_collation(table, column)
    if charset is not None and charset != table.charset:
        parts.append(f"CHARACTER SET {charset}")
    inherited = collation == table.collation and charset == table.charset
    if collation not in (None, info_rows.CHARSET_COLLATION.get(charset or "")) and not inherited:
        parts.append(f"COLLATE {collation}")
    if not column.nullable:
        parts.append("NOT NULL")
    elif column.data_type == "timestamp":
        parts.append("NULL")  # MySQL names a nullable TIMESTAMP's NULL
    default = default_clause(column)
    if default:
        parts.append(default)
    if column.on_update:
        parts.append(f"ON UPDATE {column.on_update}")
    if column.auto_increment:
        parts.append("AUTO_INCREMENT")
    if column.comment:
        parts.append(f"COMMENT {string_literal(column.comment)}")
    return " ".join(parts)


def default_clause(column: ColumnDef) -> str:
    if column.auto_increment:
        return ""
    value = info_rows.default_value(column)
    if value is None:
        if column.nullable and column.data_type not in _NO_DEFAULT_NULL:
            return "DEFAULT NULL"
        return ""
    if info_rows.is_now(value):
        return f"DEFAULT {value}"
    if info_rows.is_generated_default(column):
        return f"DEFAULT ({value})"
    return f"DEFAULT {string_literal(value)}"


def key_line(key: KeyDef) -> str:
    parts = ",".join(
        quote(p.column) + (f"({p.prefix})" if p.prefix else "") + (" DESC" if p.descending else "")
        for p in key.parts
    )
    word = _KEY_WORDS.get(key.kind, f"{key.kind} KEY")
    name = "" if key.kind == "PRIMARY" else f"{quote(key.name)} "
    comment = f" COMMENT {string_literal(key.comment)}" if key.comment else ""
    return f"{word} {name}({parts}){comment}"


def foreign_key_line(table: TableDef, fk: ForeignKeyDef) -> str:
    target = quote(fk.ref_table)
    if fk.ref_schema and fk.ref_schema.lower() != table.schema.lower():
        target = f"{quote(fk.ref_schema)}.{target}"
    text = (
        f"CONSTRAINT {quote(fk.name)} FOREIGN KEY ({', '.join(quote(c) for c in fk.columns)}) "
        f"REFERENCES {target} ({', '.join(quote(c) for c in fk.ref_columns)})"
    )
    if fk.on_delete != "NO ACTION":
        text += f" ON DELETE {fk.on_delete}"
    if fk.on_update != "NO ACTION":
        text += f" ON UPDATE {fk.on_update}"
    return text


def lines(table: TableDef, duck_columns: list[tuple[str, str]]) -> list[str]:
    """Every line between the parentheses. ``duck_columns``: (name, line from DuckDB's type) of
    the table's columns in DuckDB's order; a column the definition describes with a MySQL type
    is written from the definition, any other (FLOAT[3]) from DuckDB."""
    out = []
    for name, duck_line in duck_columns:
        column = table.column(name)
        out.append(
            column_line(table, column) if column is not None and column.is_mysql_type else duck_line
        )
    out += [key_line(k) for k in info_rows.ordered_keys(table)]
    out += [foreign_key_line(table, fk) for fk in table.foreign_keys]
    for check in table.checks:
        enforced = "" if check.enforced else " /*!80016 NOT ENFORCED */"
        out.append(
            f"CONSTRAINT {quote(check.name)} CHECK ({check_clause(check.expression)}){enforced}"
        )
    return out


def options(table: TableDef, auto_increment: int | None) -> str:
    text = f"ENGINE={table.engine}"
    if auto_increment is not None and auto_increment > 1:
        text += f" AUTO_INCREMENT={auto_increment}"
    text += f" DEFAULT CHARSET={table.charset}"
    if table.collation != info_rows.CHARSET_COLLATION.get(table.charset) or table.charset == (
        "utf8mb4"
    ):
        text += f" COLLATE={table.collation}"
    if table.comment:
        text += f" COMMENT={string_literal(table.comment)}"
    return text
