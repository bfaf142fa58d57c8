"""SHOW CREATE TABLE in MySQL's shape, for internal and external (Lance, Paimon) tables.

ORMs and BI tools (SQLAlchemy, pandas, Superset) reflect a table by parsing this text, so it is
written exactly as MySQL 8 writes it: backticked column lines with MySQL type names, NOT NULL /
DEFAULT clauses, then ``PRIMARY KEY (…)`` and ``UNIQUE KEY `name` (…)`` lines, then the table
options. Types and keys come from the MySQL-shaped information_schema (engine/sql/info_schema.py).
"""

from __future__ import annotations

from typing import Any

from drydock.engine import ast
from drydock.engine.lakehouse.catalogs.base import Column
from drydock.engine.core import Engine
from drydock.engine.dictionary import create_text
from drydock.engine.dictionary import store as dictionary_store
from drydock.engine.dictionary.model import table_from_json
from drydock.engine.sql.mysql_ddl import SEQUENCE_PREFIX
from drydock.engine.errors import Errors
from drydock.engine.sql.info_schema import ATTACHED_NAME, external_column_row
from drydock.engine.session import INTERNAL
from drydock.engine.results import Result
from drydock.engine.session import SessionContext
from drydock.engine.statements.registry import handles

TABLE_OPTIONS = "ENGINE={engine} DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci"


@handles(ast.ShowCreateTable)
def show_create_table(engine: Engine, stmt: ast.ShowCreateTable, ctx: SessionContext) -> Result:
    catalog, db, table = engine.metadata.split(
        ctx, stmt.parts
    )  # also `catalog.db`.t (engine/sql/dotted_names.py)
    if not engine.privileges.may_see_table(ctx, catalog, db, table):
        raise Errors.TABLE_ACCESS_DENIED.error(
            priv="SHOW", user=ctx.user, host=ctx.host, table=f"{db}.{table}"
        )
    if catalog.lower() == INTERNAL:
        lines, options = _internal(engine, db, table)
    else:
        lines = _external_lines(engine.metadata.columns(ctx, catalog, db, table))
        options = TABLE_OPTIONS.format(engine=engine.catalogs.get(catalog).type.capitalize())
    ddl = (
        f"CREATE TABLE {quote(table)} (\n"
        + ",\n".join(f"  {line}" for line in lines)
        + f"\n) {options}"
    )
    return Result(columns=["Table", "Create Table"], rows=[(table, ddl)], show="CREATE TABLE")


def quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _internal(engine: Engine, db: str, table: str) -> tuple[list[str], str]:
    """The lines and table options of an internal table: from its definition in the data
    dictionary, else (no definition) from DuckDB's columns and keys."""
    columns = engine.query.fetch(
        f"SELECT column_name, column_type, is_nullable, column_default, extra FROM "
        f"{ATTACHED_NAME}.main.columns "
        "WHERE table_schema = ? AND table_name = ? ORDER BY ordinal_position",
        [db, table],
    )
    if not columns:
        raise Errors.UNKNOWN_TABLE.error(table=f"{db}.{table}")
    duck_lines = [
        (name, _column_line(name, column_type, nullable == "YES", default) + _extra_text(extra))
        for name, column_type, nullable, default, extra in columns
    ]
    rows = engine.query.fetch(
        f"SELECT definition FROM {dictionary_store.TABLE} WHERE schema_name = ? AND table_name = ?",
        [db.lower(), table.lower()],
    )
    if not rows:
        lines = [line for _, line in duck_lines] + _duck_key_lines(engine, db, table)
        return lines, TABLE_OPTIONS.format(engine="DuckDB")
    definition = table_from_json(rows[0][0])
    return create_text.lines(definition, duck_lines), create_text.options(
        definition, _next_auto_increment(engine, db, table)
    )


def _next_auto_increment(engine: Engine, db: str, table: str) -> int | None:
    """The value the table's AUTO_INCREMENT sequence (engine/sql/mysql_ddl.py) gives next."""
    rows = engine.query.fetch(
        "SELECT coalesce(s.last_value + s.increment_by, s.start_value) "
        "FROM duckdb_columns() AS c JOIN duckdb_sequences() AS s "
        "ON c.column_default LIKE '%' || s.sequence_name || '%' "
        "AND s.database_name = c.database_name "
        "WHERE c.database_name = ? AND c.schema_name = ? AND c.table_name = ? "
        "AND s.sequence_name LIKE ?",
        [INTERNAL, db, table, f"{SEQUENCE_PREFIX}%"],
    )
    return int(rows[0][0]) if rows and rows[0][0] is not None else None


def _duck_key_lines(engine: Engine, db: str, table: str) -> list[str]:
    lines = []
    keys = engine.query.fetch(
        f"SELECT constraint_name, list(column_name ORDER BY ordinal_position) "
        f"FROM {ATTACHED_NAME}.main.key_column_usage WHERE table_schema = ? AND table_name = ? "
        "GROUP BY constraint_name ORDER BY constraint_name <> 'PRIMARY', constraint_name",
        [db, table],
    )
    for name, key_columns in keys:
        columns_text = ",".join(quote(c) for c in key_columns)
        lines.append(
            f"PRIMARY KEY ({columns_text})"
            if name == "PRIMARY"
            else f"UNIQUE KEY {quote(name)} ({columns_text})"
        )
    return lines


def _extra_text(extra: str | None) -> str:
    """information_schema's EXTRA as SHOW CREATE TABLE writes it (AUTO_INCREMENT, ON UPDATE …)."""
    text = (extra or "").replace("DEFAULT_GENERATED", "").strip()
    if text == "auto_increment":
        return " AUTO_INCREMENT"
    return f" {text.replace('on update', 'ON UPDATE')}" if text.startswith("on update") else ""


def _external_lines(columns: list[Column]) -> list[str]:
    """Column types as information_schema.COLUMNS.COLUMN_TYPE shows them (vectors are text)."""
    lines = [_column_line(c.name, _external_type(c), c.nullable, None) for c in columns]
    primary = [c.name for c in columns if c.key == "PRI"]
    if primary:
        lines.append(f"PRIMARY KEY ({','.join(quote(c) for c in primary)})")
    return lines


def _external_type(column: Column) -> str:
    if column.mysql_type.lower() in ("text", "json", "blob"):
        return column.mysql_type.lower()  # lists, structs, vectors: shown as text, as results are
    return str(
        external_column_row(
            "",
            "",
            0,
            column.name,
            column.type,
            column.mysql_type,
            column.nullable,
            column.key,
            column.comment,
        )[6]
    )


def _column_line(name: str, column_type: str, nullable: bool, default: Any) -> str:
    """One column as MySQL prints it: ``name type [NOT NULL] [DEFAULT …]``."""
    parts = [quote(name), column_type]
    if not nullable:
        parts.append("NOT NULL")
    if default is not None:
        parts.append(f"DEFAULT {_default_text(str(default))}")
    elif nullable and not column_type.endswith(("blob", "text", "json")):
        parts.append("DEFAULT NULL")
    return " ".join(parts)


def _default_text(default: str) -> str:
    """DuckDB's default expression text → MySQL's: literals quoted, CURRENT_TIMESTAMP as is."""
    text = default.strip()
    if text.upper() in (
        "CURRENT_TIMESTAMP",
        "NOW()",
        "CURRENT_TIMESTAMP()",
        "GET_CURRENT_TIMESTAMP()",
    ):
        return "CURRENT_TIMESTAMP"
    if text.upper() == "NULL":
        return "NULL"
    if text.lower() in ("true", "false"):  # MySQL stores booleans as tinyint(1)
        return "'1'" if text.lower() == "true" else "'0'"
    if text.startswith("'") and text.endswith("'"):
        return text
    if "::" in text:  # a cast DuckDB added: 'x'::VARCHAR
        text = text.split("::", 1)[0].strip("'")
    return "'" + text.replace("'", "''") + "'"
