"""What GUI clients ask a server about itself: SHOW ENGINES, CHARSET, COLLATION, PLUGINS,
[FULL] PROCESSLIST, TABLE STATUS and PROCEDURE/FUNCTION STATUS, with MySQL 8's columns.

drydock has no stored routines (procedures are catalog-routed, SHOW PROCEDURES lists them), so
SHOW PROCEDURE/FUNCTION STATUS answer MySQL's columns and no rows, as a MySQL server without
routines does.
"""

from __future__ import annotations

from mysql_mimic.charset import CharacterSet, Collation

from drydock.engine import ast
from drydock.engine.core import Engine
from drydock.engine.errors import Errors
from drydock.engine.sql.info_schema import ATTACHED_NAME
from drydock.engine.session import INTERNAL
from drydock.engine.support.like import like
from drydock.engine.results import Result
from drydock.engine.session import SessionContext
from drydock.engine.security.privileges import Privilege
from drydock.engine.statements.registry import handles

ENGINE_COLUMNS = ["Engine", "Support", "Comment", "Transactions", "XA", "Savepoints"]
ENGINES = [
    ("DuckDB", "DEFAULT", "drydock's internal catalog (DuckDB)", "YES", "NO", "YES"),
    ("Lance", "YES", "Lance datasets (external catalogs, read-only through SQL)", "NO", "NO", "NO"),
    ("Paimon", "YES", "Paimon tables (external catalogs, read-only through SQL)", "NO", "NO", "NO"),
]
PLUGIN_COLUMNS = ["Name", "Status", "Type", "Library", "License"]
PLUGINS = [
    ("mysql_native_password", "ACTIVE", "AUTHENTICATION", None, "Apache-2.0"),
    ("DuckDB", "ACTIVE", "STORAGE ENGINE", None, "MIT"),
]
PROCESS_COLUMNS = ["Id", "User", "Host", "db", "Command", "Time", "State", "Info"]
TABLE_STATUS_COLUMNS = [
    "Name",
    "Engine",
    "Version",
    "Row_format",
    "Rows",
    "Avg_row_length",
    "Data_length",
    "Max_data_length",
    "Index_length",
    "Data_free",
    "Auto_increment",
    "Create_time",
    "Update_time",
    "Check_time",
    "Collation",
    "Checksum",
    "Create_options",
    "Comment",
]
ROUTINE_COLUMNS = [
    "Db",
    "Name",
    "Type",
    "Definer",
    "Modified",
    "Created",
    "Security_type",
    "Comment",
    "character_set_client",
    "collation_connection",
    "Database Collation",
]


def _text_types(columns: list[str]) -> dict[str, str]:
    return {c: "VARCHAR" for c in columns}


@handles(ast.ShowEngines, columns=ENGINE_COLUMNS)
def show_engines(engine: Engine, stmt: ast.ShowEngines, ctx: SessionContext) -> Result:
    return Result(
        columns=ENGINE_COLUMNS, rows=list(ENGINES), column_types=_text_types(ENGINE_COLUMNS)
    )


@handles(ast.ShowPlugins, columns=PLUGIN_COLUMNS)
def show_plugins(engine: Engine, stmt: ast.ShowPlugins, ctx: SessionContext) -> Result:
    return Result(
        columns=PLUGIN_COLUMNS, rows=list(PLUGINS), column_types=_text_types(PLUGIN_COLUMNS)
    )


@handles(ast.ShowCharset)
def show_charset(engine: Engine, stmt: ast.ShowCharset, ctx: SessionContext) -> Result:
    rows = [
        (c.name, c.name, c.default_collation.name, 4 if c.name.startswith("utf8mb4") else 1)
        for c in CharacterSet
        if stmt.like is None or like(c.name, stmt.like)
    ]
    columns = ["Charset", "Description", "Default collation", "Maxlen"]
    return Result(columns=columns, rows=sorted(rows), column_types={"Maxlen": "BIGINT"})


@handles(ast.ShowCollation)
def show_collation(engine: Engine, stmt: ast.ShowCollation, ctx: SessionContext) -> Result:
    rows = []
    for collation in Collation:
        if stmt.like is not None and not like(collation.name, stmt.like):
            continue
        default = "Yes" if collation.charset.default_collation == collation else ""
        pad = "NO PAD" if "0900" in collation.name else "PAD SPACE"
        rows.append(
            (collation.name, collation.charset.name, int(collation.value), default, "Yes", 0, pad)
        )
    columns = ["Collation", "Charset", "Id", "Default", "Compiled", "Sortlen", "Pad_attribute"]
    return Result(
        columns=columns, rows=sorted(rows), column_types={"Id": "BIGINT", "Sortlen": "BIGINT"}
    )


@handles(ast.ShowProcesslist, columns=PROCESS_COLUMNS)
def show_processlist(engine: Engine, stmt: ast.ShowProcesslist, ctx: SessionContext) -> Result:
    """Every connection for ADMIN, one's own for everyone else (MySQL's PROCESS privilege)."""
    registry = engine.connections
    processes = registry.processes() if registry is not None else []
    sees_all = engine.privileges.has_global(ctx, Privilege.ADMIN)
    rows = [
        (p.id, p.user, p.host, p.db, p.command, p.seconds, p.state, p.info if stmt.full else None)
        for p in processes
        if sees_all or p.user == ctx.user
    ]
    return Result(
        columns=PROCESS_COLUMNS,
        rows=rows,
        column_types={
            "Id": "BIGINT",
            "Time": "BIGINT",
            "db": "VARCHAR",
            "Info": "VARCHAR",
            "User": "VARCHAR",
            "Host": "VARCHAR",
            "Command": "VARCHAR",
            "State": "VARCHAR",
        },
    )


@handles(ast.ShowTableStatus, columns=TABLE_STATUS_COLUMNS)
def show_table_status(engine: Engine, stmt: ast.ShowTableStatus, ctx: SessionContext) -> Result:
    catalog, db = _catalog_db(stmt.parts, ctx)
    if catalog.lower() != INTERNAL:
        tables = (
            engine.metadata.tables(ctx, catalog, db) if hasattr(engine.metadata, "tables") else []
        )
        rows = [
            _status_row(name, catalog.capitalize(), None)
            for name, *_ in tables
            if stmt.like is None or like(name, stmt.like)
        ]
        return Result(columns=TABLE_STATUS_COLUMNS, rows=rows, column_types=_status_types())
    if not engine.privileges.may_see_db(ctx, INTERNAL, db):
        raise Errors.DB_ACCESS_DENIED.error(user=ctx.user, host=ctx.host, db=db)
    listed = engine.query.fetch(
        f"SELECT table_name, table_type, table_rows, table_comment FROM "
        f"{ATTACHED_NAME}.main.tables "
        "WHERE table_schema = ? ORDER BY table_name",
        [db],
    )
    rows = [
        _status_row(name, "DuckDB" if kind == "BASE TABLE" else None, table_rows, comment)
        for name, kind, table_rows, comment in listed
        if engine.privileges.may_see_table(ctx, INTERNAL, db, name)
        and (stmt.like is None or like(name, stmt.like))
    ]
    return Result(columns=TABLE_STATUS_COLUMNS, rows=rows, column_types=_status_types())


def _catalog_db(parts: tuple[str, ...] | None, ctx: SessionContext) -> tuple[str, str]:
    if parts and len(parts) >= 2:
        return parts[0], parts[1]
    db = parts[0] if parts else ctx.database
    if not db:
        raise Errors.NO_DB_SELECTED.error()
    return ctx.catalog, db


def _status_row(
    name: str, engine_name: str | None, rows: object, comment: str = ""
) -> tuple[object, ...]:
    view = engine_name is None
    return (
        name,
        engine_name,
        None if view else 10,
        None if view else "Dynamic",
        rows,
        0,
        0,
        0,
        0,
        0,
        None,
        None,
        None,
        None,
        None if view else "utf8mb4_0900_ai_ci",
        None,
        "",
        "VIEW" if view else (comment or ""),
    )


def _status_types() -> dict[str, str]:
    types = _text_types(TABLE_STATUS_COLUMNS)
    for column in (
        "Version",
        "Rows",
        "Avg_row_length",
        "Data_length",
        "Max_data_length",
        "Index_length",
        "Data_free",
        "Auto_increment",
        "Checksum",
    ):
        types[column] = "BIGINT"
    for column in ("Create_time", "Update_time", "Check_time"):
        types[column] = "TIMESTAMP"
    return types


@handles(ast.ShowRoutineStatus, columns=ROUTINE_COLUMNS)
def show_routine_status(engine: Engine, stmt: ast.ShowRoutineStatus, ctx: SessionContext) -> Result:
    return Result(columns=ROUTINE_COLUMNS, rows=[], column_types=_text_types(ROUTINE_COLUMNS))
