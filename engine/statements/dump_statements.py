"""What dump tools (mariadb-dump, mysqldump) send besides queries, answered as MySQL 8 answers:

- SHOW CREATE DATABASE db: MySQL's two columns and text (utf8mb4, drydock's one character set);
- SHOW TRIGGERS [FROM db] [LIKE 'p']: MySQL's columns and no rows (drydock has no triggers);
- LOCK TABLES … / UNLOCK TABLES and FLUSH TABLES [WITH READ LOCK]: accepted, and they lock
  nothing. LOCK TABLES checks that each table exists and is visible (1146 otherwise), as MySQL
  does. A consistent dump of several tables needs ``--single-transaction``, whose
  ``START TRANSACTION WITH CONSISTENT SNAPSHOT`` is a DuckDB transaction: one snapshot for all
  its reads (README "Dumps");
- FLUSH PRIVILEGES / LOGS: nothing to do (grants apply at once; no logs to rotate);
- ALTER TABLE t DISABLE KEYS / ENABLE KEYS: a Note 1031, as MySQL answers for an engine without
  the switch (InnoDB). (MariaDB 10.11 answers InnoDB without the Note.)
"""

from __future__ import annotations

from sqlglot import exp

from drydock.engine import ast
from drydock.engine.core import Engine
from drydock.engine.errors import Errors
from drydock.engine.results import Result
from drydock.engine.security.privileges import Privilege
from drydock.engine.session import INTERNAL, SessionContext
from drydock.engine.statements.registry import handles
from drydock.grammar.sql import AlterKeys

CREATE_DATABASE_COLUMNS = ["Database", "Create Database"]
# MySQL 8.0's text for a database with the server's default character set and collation
_CREATE_DATABASE = (
    "CREATE DATABASE {if_not_exists}`{name}` /*!40100 DEFAULT CHARACTER SET utf8mb4 "
    "COLLATE utf8mb4_0900_ai_ci */ /*!80016 DEFAULT ENCRYPTION='N' */"
)
TRIGGER_COLUMNS = [
    "Trigger",
    "Event",
    "Table",
    "Statement",
    "Timing",
    "Created",
    "sql_mode",
    "Definer",
    "character_set_client",
    "collation_connection",
    "Database Collation",
]


@handles(ast.ShowCreateDatabase, columns=CREATE_DATABASE_COLUMNS)
def show_create_database(
    engine: Engine, stmt: ast.ShowCreateDatabase, ctx: SessionContext
) -> Result:
    engine.metadata.require_database(ctx, ctx.catalog, stmt.name)
    text = _CREATE_DATABASE.format(
        name=stmt.name.replace("`", "``"),
        if_not_exists="/*!32312 IF NOT EXISTS*/ " if stmt.if_not_exists else "",
    )
    return Result(
        columns=CREATE_DATABASE_COLUMNS,
        rows=[(stmt.name, text)],
        column_types=dict.fromkeys(CREATE_DATABASE_COLUMNS, "VARCHAR"),
    )


@handles(ast.ShowTriggers, columns=TRIGGER_COLUMNS)
def show_triggers(engine: Engine, stmt: ast.ShowTriggers, ctx: SessionContext) -> Result:
    db = stmt.db or ctx.database
    if not db:
        raise Errors.NO_DB_SELECTED.error()
    engine.metadata.require_database(ctx, ctx.catalog, db)
    return Result(
        columns=TRIGGER_COLUMNS,
        rows=[],
        column_types={**dict.fromkeys(TRIGGER_COLUMNS, "VARCHAR"), "Created": "TIMESTAMP"},
    )


@handles(ast.LockTables)
def lock_tables(engine: Engine, stmt: ast.LockTables, ctx: SessionContext) -> Result:
    for parts in stmt.tables:
        catalog, db, table = engine.metadata.split(ctx, parts)
        engine.metadata.require_table(ctx, catalog, db, table)
    return Result.ok()


@handles(ast.UnlockTables)
def unlock_tables(engine: Engine, stmt: ast.UnlockTables, ctx: SessionContext) -> Result:
    return Result.ok()


@handles(ast.Flush)
def flush(engine: Engine, stmt: ast.Flush, ctx: SessionContext) -> Result:
    return Result.ok()


def alter_keys(engine: Engine, alter: exp.Alter, ctx: SessionContext) -> Result:
    """ALTER TABLE t DISABLE|ENABLE KEYS (grammar/sql.py AlterKeys): ALTER privilege on an
    existing internal table, then the Note MySQL gives for InnoDB."""
    table = alter.this
    db = table.text("db") or ctx.database
    catalog = table.text("catalog") or ctx.catalog
    if not db:
        raise Errors.NO_DB_SELECTED.error()
    if catalog.lower() != INTERNAL:
        raise Errors.READ_ONLY_CATALOG.error(catalog=catalog)
    engine.privileges.require_table(ctx, Privilege.ALTER, INTERNAL, db, table.name)
    engine.metadata.require_table(ctx, INTERNAL, db, table.name)
    return Result.ok(warnings=[Errors.ENGINE_OPTION_IGNORED.note(table=table.name)])


def is_alter_keys(expression: exp.Expr) -> bool:
    actions = expression.args.get("actions") if isinstance(expression, exp.Alter) else None
    return bool(actions) and all(isinstance(a, AlterKeys) for a in actions or [])
