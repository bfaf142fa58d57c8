"""SHOW DATABASES, SHOW [FULL] TABLES, DESC, SHOW [FULL] COLUMNS, SHOW INDEX — for internal and
external catalogs."""

from __future__ import annotations

from typing import Any

from drydock.engine import ast
from drydock.engine.dictionary import info_rows
from drydock.engine.dictionary import store as dictionary_store
from drydock.engine.dictionary.model import table_from_json
from drydock.engine.sql import dotted_names
from drydock.engine.sql.metadata import split_database
from drydock.engine.session import INTERNAL
from drydock.engine.core import Engine
from drydock.engine.errors import Errors
from drydock.engine.support.like import LikePattern
from drydock.engine.results import Diagnostic, Result
from drydock.engine.security.privileges import Privilege
from drydock.engine.session import SessionContext
from drydock.engine.statements.registry import handles


def _filter(rows: list[tuple], like: str | None) -> list[tuple]:
    if like is None:
        return rows
    pattern = LikePattern(like)
    return [r for r in rows if pattern.fullmatch(r[0])]


def _catalog(engine: Engine, name: str | None, ctx: SessionContext) -> str:
    if name is None:
        return ctx.catalog
    return INTERNAL if name.lower() == INTERNAL else engine.catalogs.get(name).name


@handles(ast.ShowDatabases)
def show_databases(engine: Engine, stmt: ast.ShowDatabases, ctx: SessionContext) -> Result:
    catalog = _catalog(engine, stmt.catalog, ctx)
    names = engine.metadata.databases(ctx, catalog)
    warnings: list[Diagnostic] = []
    if catalog == INTERNAL:
        names = sorted([*names, "information_schema"])
        if (
            stmt.catalog is None
        ):  # the other catalogs' databases as catalog.db (engine/sql/dotted_names.py)
            names += dotted_names.external_databases(
                engine.catalogs, ctx, engine.metadata, warnings
            )
    return Result(
        columns=["Database"],
        rows=_filter([(n,) for n in names], stmt.like),
        warnings=warnings,
        show="DATABASES",
    )


@handles(ast.ShowTables)
def show_tables(engine: Engine, stmt: ast.ShowTables, ctx: SessionContext) -> Result:
    if len(stmt.parts) == 2:
        catalog, db = _catalog(engine, stmt.parts[0], ctx), stmt.parts[1]
    elif len(stmt.parts) == 1:
        catalog, db = split_database(engine.catalogs, stmt.parts[0]) or (ctx.catalog, stmt.parts[0])
    elif ctx.database:
        catalog, db = ctx.catalog, ctx.database
    else:
        raise Errors.NO_DB_SELECTED.error()
    tables = engine.metadata.tables(ctx, catalog, db)
    # the name as the client gave it
    column = f"Tables_in_{stmt.parts[0] if len(stmt.parts) == 1 else db}"
    if stmt.full:
        return Result(
            columns=[column, "Table_type"], rows=_filter(list(tables), stmt.like), show="TABLES"
        )
    return Result(
        columns=[column], rows=_filter([(t,) for t, _ in tables], stmt.like), show="TABLES"
    )


FULL_COLUMNS = [
    "Field",
    "Type",
    "Collation",
    "Null",
    "Key",
    "Default",
    "Extra",
    "Privileges",
    "Comment",
]
COLUMNS = ["Field", "Type", "Null", "Key", "Default", "Extra"]
_SHORT = [FULL_COLUMNS.index(c) for c in COLUMNS]


@handles(ast.Describe, columns=COLUMNS)
def describe(engine: Engine, stmt: ast.Describe, ctx: SessionContext) -> Result:
    """DESCRIBE t [pattern] is SHOW COLUMNS FROM t [LIKE pattern] (MySQL manual 15.8.1): the same
    rows. ``DESC t col`` names one column, a pattern too (% and _ match as in LIKE)."""
    return show_columns(engine, ast.ShowColumns(parts=stmt.parts, like=stmt.like), ctx)


@handles(ast.ShowColumns)
def show_columns(engine: Engine, stmt: ast.ShowColumns, ctx: SessionContext) -> Result:
    catalog, db, table = engine.metadata.split(ctx, stmt.parts)
    rows = _filter(engine.metadata.column_rows(ctx, catalog, db, table), stmt.like)
    if stmt.full and catalog.lower() == INTERNAL:
        held = _column_privileges(engine, ctx, db, table)
        rows = [(*r[:7], held, *r[8:]) for r in rows]
    if stmt.full:
        return Result(
            columns=FULL_COLUMNS,
            rows=rows,
            column_types={"Collation": "VARCHAR", "Default": "VARCHAR"},
            show="COLUMNS",
        )
    return Result(
        columns=COLUMNS,
        rows=[tuple(r[i] for i in _SHORT) for r in rows],
        column_types={"Default": "VARCHAR"},
        show="COLUMNS",
    )


INDEX_COLUMNS = [
    "Table",
    "Non_unique",
    "Key_name",
    "Seq_in_index",
    "Column_name",
    "Index_type",
    "Index_uuid",
    "Indexed_rows",
    "Unindexed_rows",
]


# MySQL's column privileges (SHOW FULL COLUMNS' Privileges) and the drydock privilege that
# grants each on an internal table: LOAD_PRIV writes rows, ALTER_PRIV changes the definition
# (foreign keys included, what MySQL's REFERENCES is for)
_COLUMN_PRIVILEGES = (
    ("select", Privilege.SELECT),
    ("insert", Privilege.LOAD),
    ("update", Privilege.LOAD),
    ("references", Privilege.ALTER),
)


def _column_privileges(engine: Engine, ctx: SessionContext, db: str, table: str) -> str:
    """The Privileges column as MySQL shows it to this user ("select,insert,update,references"
    for one holding every privilege on the table)."""
    return ",".join(
        name
        for name, privilege in _COLUMN_PRIVILEGES
        if engine.privileges.has(ctx, privilege, INTERNAL, db, table)
    )


def _internal_index_rows(engine: Engine, db: str, table: str) -> list[tuple[Any, ...]]:
    definition = engine.query.fetch(
        f"SELECT d.definition, t.estimated_size FROM {dictionary_store.TABLE} AS d "
        "JOIN duckdb_tables() AS t ON t.database_name = ? AND lower(t.schema_name) = "
        "d.schema_name AND lower(t.table_name) = d.table_name "
        "WHERE d.schema_name = ? AND d.table_name = ?",
        [INTERNAL, db.lower(), table.lower()],
    )
    if not definition:  # no definition: DuckDB's PRIMARY KEY / UNIQUE constraints
        return [
            tuple(r)
            for r in engine.query.fetch(
                'SELECT ?, non_unique, index_name, seq_in_index, column_name, "collation", '
                "cardinality, sub_part::BIGINT, packed, nullable, index_type, comment, "
                "index_comment, is_visible, expression FROM mysql_is.main.statistics "
                "WHERE table_schema = ? AND table_name = ? "
                "ORDER BY index_name <> 'PRIMARY', index_name, seq_in_index",
                [table, db, table],
            )
        ]
    return [
        (
            table,
            r["non_unique"],
            r["index_name"],
            r["seq_in_index"],
            r["column_name"],
            r["collation"],
            definition[0][1],  # as information_schema.STATISTICS.CARDINALITY
            r["sub_part"],
            None,
            r["nullable"],
            r["index_type"],
            "",
            r["index_comment"],
            "YES",
            None,
        )
        for r in info_rows.statistics_rows(table_from_json(definition[0][0]))
    ]


# SHOW INDEX of an internal table: MySQL 8.0's columns, one row per key part
MYSQL_INDEX_COLUMNS = [
    "Table",
    "Non_unique",
    "Key_name",
    "Seq_in_index",
    "Column_name",
    "Collation",
    "Cardinality",
    "Sub_part",
    "Packed",
    "Null",
    "Index_type",
    "Comment",
    "Index_comment",
    "Visible",
    "Expression",
]


@handles(ast.ShowIndex)
def show_index(engine: Engine, stmt: ast.ShowIndex, ctx: SessionContext) -> Result:
    """SHOW INDEX / SHOW KEYS: an internal table's keys as MySQL lists them; an external table's
    Lance indexes (name, column, type, uuid, rows covered)."""
    catalog, db, table = engine.metadata.split(ctx, stmt.parts)
    engine.metadata.require_table(ctx, catalog, db, table)
    if catalog == INTERNAL:
        return Result(
            columns=MYSQL_INDEX_COLUMNS,
            rows=_internal_index_rows(engine, db, table),
            column_types={
                "Non_unique": "INTEGER",
                "Seq_in_index": "INTEGER",
                "Cardinality": "BIGINT",
                "Sub_part": "BIGINT",
                "Expression": "VARCHAR",
            },
            show="INDEX",
        )
    indexes = engine.metadata._guard(catalog, lambda c: c.indexes(db, table))  # noqa: SLF001
    rows = [
        (table, 1, i.name, 1, i.column, i.type, i.uuid, i.indexed_rows, i.unindexed_rows)
        for i in indexes
    ]
    return Result(columns=INDEX_COLUMNS, rows=rows)
