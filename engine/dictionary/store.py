"""Where the dictionary lives: one row per internal table in a reserved schema of the internal
DuckDB database, holding the table's definition as JSON (engine/dictionary/model.py).

Why there and not in the metadata store: the rows must change in the same transaction as the
table's DDL (a kill -9 between two stores would leave a table without its definition, or a
definition without its table), and only the internal DuckDB database is transactional with that
DDL. The internal tables themselves live in that database, so the dictionary goes where they go.

Keys are lowercased: DuckDB's identifiers are case-insensitive, so ``T`` and ``t`` are one table;
the definition keeps the declared spelling. The schema name carries drydock's reserved prefix,
which no user statement may name (engine/sql/sql_relations.py), and information_schema and SHOW
DATABASES hide it.
"""

from __future__ import annotations

from typing import Any

from drydock.engine.dictionary import info_rows
from drydock.engine.dictionary.model import TableDef, table_from_json
from drydock.engine.session import INTERNAL

SCHEMA = "__drydock_dictionary"
TABLE = f'{INTERNAL}."{SCHEMA}".tables'
# the DDL that makes the store; idempotent, run once when the engine opens its database
CREATE = (
    f'CREATE SCHEMA IF NOT EXISTS {INTERNAL}."{SCHEMA}"',
    f"CREATE TABLE IF NOT EXISTS {TABLE} (schema_name VARCHAR NOT NULL, "
    "table_name VARCHAR NOT NULL, definition VARCHAR NOT NULL, "
    "PRIMARY KEY (schema_name, table_name))",
    # what information_schema shows of each definition (engine/dictionary/info_rows.py), as JSON
    # lists its views unnest: worked out when the definition is saved, not per query
    *(
        f"ALTER TABLE {TABLE} ADD COLUMN IF NOT EXISTS {kind} VARCHAR"
        for kind in info_rows.ROW_KINDS
    ),
)
_ROW_COLUMNS = ", ".join(info_rows.ROW_KINDS)


def ensure(cursor: Any) -> None:
    for statement in CREATE:
        cursor.execute(statement)
    # definitions saved before their information_schema rows were kept
    stale = cursor.execute(f"SELECT definition FROM {TABLE} WHERE columns_rows IS NULL").fetchall()
    for (definition,) in stale:
        cursor.execute(save_sql(table_from_json(definition)))


def _values(table: TableDef) -> str:
    rows = info_rows.rows_json(table)
    return ", ".join(
        [
            _literal(table.schema.lower()),
            _literal(table.name.lower()),
            _literal(table.to_json()),
            *(_literal(rows[kind]) for kind in info_rows.ROW_KINDS),
        ]
    )


def save_sql(table: TableDef) -> str:
    """The statement that records ``table`` (replacing any earlier definition of that name), to
    run in the DDL's own transaction."""
    return (
        f"INSERT OR REPLACE INTO {TABLE} (schema_name, table_name, definition, {_ROW_COLUMNS}) "
        f"VALUES ({_values(table)})"
    )


def save_new_sql(table: TableDef) -> str:
    """:func:`save_sql` only while DuckDB has no table of that name: run before a CREATE TABLE,
    so ``IF NOT EXISTS`` over an existing table leaves that table's definition alone."""
    return (
        f"INSERT OR REPLACE INTO {TABLE} (schema_name, table_name, definition, {_ROW_COLUMNS}) "
        f"SELECT {_values(table)} WHERE NOT EXISTS (SELECT 1 FROM duckdb_tables() "
        f"WHERE database_name = '{INTERNAL}' AND lower(schema_name) = "
        f"{_literal(table.schema.lower())} AND lower(table_name) = {_literal(table.name.lower())})"
    )


def delete_sql(schema: str, name: str) -> str:
    return (
        f"DELETE FROM {TABLE} WHERE schema_name = {_literal(schema.lower())} "
        f"AND table_name = {_literal(name.lower())}"
    )


def delete_schema_sql(schema: str) -> str:
    """DROP DATABASE: every definition in it."""
    return f"DELETE FROM {TABLE} WHERE schema_name = {_literal(schema.lower())}"


def load(cursor: Any, schema: str, name: str) -> TableDef | None:
    """The definition of ``schema.name``, or None (a table created before the dictionary
    existed, or by CREATE TABLE … AS SELECT: readers fall back to DuckDB's own types)."""
    rows = cursor.execute(
        f"SELECT definition FROM {TABLE} WHERE schema_name = ? AND table_name = ?",
        [schema.lower(), name.lower()],
    ).fetchall()
    return table_from_json(rows[0][0]) if rows else None


def load_schema(cursor: Any, schema: str) -> list[TableDef]:
    rows = cursor.execute(
        f"SELECT definition FROM {TABLE} WHERE schema_name = ? ORDER BY table_name",
        [schema.lower()],
    ).fetchall()
    return [table_from_json(r[0]) for r in rows]


def load_with_foreign_keys(cursor: Any) -> list[TableDef]:
    """Every definition that declares a foreign key (in any schema)."""
    rows = cursor.execute(
        f"SELECT definition FROM {TABLE} WHERE definition NOT LIKE '%\"foreign_keys\":[]%' "
        "ORDER BY schema_name, table_name"
    ).fetchall()
    return [table_from_json(r[0]) for r in rows]


def _literal(text: str) -> str:
    """A DuckDB string literal: standard SQL, where only the quote itself is doubled."""
    return "'" + text.replace("'", "''") + "'"
