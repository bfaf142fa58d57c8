"""Indexes on internal (DuckDB) tables, as ORMs and MySQL scripts create them (MySQL 8.0
manual 15.1.15, 15.1.27):

  CREATE [UNIQUE|FULLTEXT] INDEX i ON [db.]t (col[(n)] [DESC], …)      DROP INDEX i ON [db.]t

The Lark grammar owns CREATE/DROP INDEX for Lance index jobs; when the table is internal its
handler (engine/statements/index_jobs.py) comes here instead, as does the plain-SQL pipeline's
CREATE UNIQUE INDEX (engine/statements/sql.py). The table needs ALTER_PRIV, as Doris asks for
index changes.

A table with a definition in the data dictionary gets the key in it, in the DDL's own
transaction: that is what SHOW INDEX / SHOW CREATE TABLE / information_schema answer from. Only a
UNIQUE index also becomes a DuckDB index, which enforces it; a plain KEY is a MySQL access path
DuckDB does not need, and a FULLTEXT key (``CREATE FULLTEXT INDEX``) is recorded only: MATCH …
AGAINST on an internal table answers 1191 (only Lance tables have text indexes). A table
without a definition keeps what it had before the dictionary: a DuckDB index of every kind. An
index of another table is never dropped through this table's name: the index must belong to it.
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from drydock.engine import ast
from drydock.engine.core import Engine
from drydock.engine.dictionary import changes
from drydock.engine.dictionary import store as dictionary_store
from drydock.engine.dictionary.model import KeyDef, KeyPart
from drydock.engine.errors import Errors
from drydock.engine.results import OkInfo, Result
from drydock.engine.security.privileges import Privilege
from drydock.engine.session import INTERNAL, SessionContext
from drydock.engine.sql.identifiers import quoted
from drydock.engine.statements import shared_store

# A plain index names no USING: with USING it is a Lance index job, which internal tables refuse
# (5101), as Doris does.
PLAIN_METHODS = ("",)
# MySQL's OK of CREATE / DROP INDEX (an ALTER TABLE that copies no rows)
_NO_RECORDS = OkInfo(records=0)


def is_internal(engine: Engine, ctx: SessionContext, parts: tuple[str, ...]) -> bool:
    catalog, _, _ = engine.metadata.split(ctx, parts)
    return catalog.lower() == INTERNAL


def _table(engine: Engine, ctx: SessionContext, parts: tuple[str, ...]) -> exp.Table:
    _, db, table = engine.metadata.split(ctx, parts)
    return exp.table_(exp.to_identifier(table, quoted=True), db=exp.to_identifier(db, quoted=True))


def table_parts(table: exp.Table) -> tuple[str, ...]:
    return tuple(p for p in (table.catalog, table.db, table.name) if p)


def create(engine: Engine, stmt: ast.CreateIndex, ctx: SessionContext) -> Result:
    """CREATE INDEX i ON t (a, b) as the grammar reads it: a plain key."""
    if stmt.using not in PLAIN_METHODS or stmt.properties or stmt.or_replace:
        raise Errors.NOT_SUPPORTED.error(
            what=f"CREATE INDEX ... USING {stmt.using or '(none)'} "
            "with PROPERTIES or OR REPLACE on an internal table"
        )
    key = KeyDef(stmt.name, "INDEX", tuple(KeyPart(c) for c in stmt.columns))
    return _create(engine, ctx, _table(engine, ctx, stmt.table), key, stmt.if_not_exists)


def create_from_sql(engine: Engine, create: exp.Create, ctx: SessionContext) -> Result:
    """CREATE [UNIQUE] INDEX as the SQL parser reads it (prefixes, DESC)."""
    index = create.this
    target = index.args.get("table") if isinstance(index, exp.Index) else None
    params = index.args.get("params") if isinstance(index, exp.Index) else None
    if not isinstance(target, exp.Table) or not isinstance(params, exp.IndexParameters):
        raise Errors.NOT_SUPPORTED.error(what=create.sql(dialect="mysql")[:60])
    kind = "UNIQUE" if create.args.get("unique") else "INDEX"
    if create.meta.get("fulltext"):  # CREATE FULLTEXT INDEX (grammar/sql.py)
        kind = "FULLTEXT"
    key = KeyDef(index.name, kind, tuple(_part(c) for c in params.args.get("columns") or []))
    table = _table(engine, ctx, table_parts(target))
    return _create(engine, ctx, table, key, bool(create.args.get("exists")))


def _part(column: exp.Expr) -> KeyPart:
    descending = isinstance(column, exp.Ordered) and bool(column.args.get("desc"))
    node = column.this if isinstance(column, exp.Ordered) else column
    if isinstance(node, exp.Anonymous) and len(node.expressions) == 1:  # name(10): a prefix
        return KeyPart(node.name, int(node.expressions[0].name), descending)
    return KeyPart(node.name, None, descending)


def _create(
    engine: Engine, ctx: SessionContext, table: exp.Table, key: KeyDef, if_not_exists: bool
) -> Result:
    _authorize_alter_of(engine, table, ctx, "CREATE INDEX")
    db, name = table.text("db"), table.name

    def build(cursor: Any) -> list[str]:
        definition = dictionary_store.load(cursor, db, name)
        duck = _duck_index_sql(db, name, key, if_not_exists)
        if definition is None:  # no definition: a DuckDB index, as before the dictionary
            if key.kind == "FULLTEXT":
                raise Errors.NOT_SUPPORTED.error(
                    what="CREATE FULLTEXT INDEX on a table without a MySQL definition "
                    "(made by CREATE TABLE ... AS SELECT)"
                )
            return [duck]
        if definition.key(key.name) is not None or _duck_index_exists(cursor, db, name, key.name):
            if if_not_exists:
                return []
            raise Errors.DUP_KEYNAME.error(key=key.name)
        for part in key.parts:
            if definition.column(part.column) is None:
                raise Errors.KEY_COLUMN_MISSING.error(column=part.column)
        statements = [dictionary_store.save_sql(changes.with_key(definition, key))]
        return [duck, *statements] if key.unique else statements

    ctx.query.change_definition(build)
    return Result.ok(info=_NO_RECORDS)


def _authorize_alter_of(engine: Engine, table: exp.Table, ctx: SessionContext, verb: str) -> None:
    """Not on a shared store (5300), ALTER_PRIV on internal ``db.table``, then that it exists
    (1146)."""
    db, name = table.text("db"), table.name
    shared_store.refuse_internal_change(engine.store, f"{verb} on {db}.{name}")
    engine.privileges.require_table(ctx, Privilege.ALTER, INTERNAL, db, name)
    if not ctx.query.table_exists(db, name):
        raise Errors.UNKNOWN_TABLE.error(table=f"{db}.{name}")


def _duck_index_sql(db: str, table: str, key: KeyDef, if_not_exists: bool) -> str:
    unique = "UNIQUE " if key.unique else ""
    exists = "IF NOT EXISTS " if if_not_exists else ""
    columns = ", ".join(quoted(p.column) for p in key.parts)
    return (
        f"CREATE {unique}INDEX {exists}{quoted(key.name)} ON "
        f"{INTERNAL}.{quoted(db)}.{quoted(table)} ({columns})"
    )


def _duck_index_exists(cursor: Any, db: str, table: str, index: str) -> bool:
    rows = cursor.execute(
        "SELECT count(*) FROM duckdb_indexes() WHERE database_name = ? AND schema_name = ? "
        "AND table_name = ? AND lower(index_name) = lower(?)",
        [INTERNAL, db, table, index],
    ).fetchall()
    return bool(rows and rows[0][0])


def drop(engine: Engine, stmt: ast.DropIndex, ctx: SessionContext) -> Result:
    table = _table(engine, ctx, stmt.table)
    db, name = table.text("db"), table.name
    _authorize_alter_of(engine, table, ctx, "DROP INDEX")

    def build(cursor: Any) -> list[str]:
        definition = dictionary_store.load(cursor, db, name)
        key = definition.key(stmt.name) if definition is not None else None
        duck = _duck_index_exists(cursor, db, name, stmt.name)
        drop_duck = [f"DROP INDEX {INTERNAL}.{quoted(db)}.{quoted(stmt.name)}"] if duck else []
        if definition is None or key is None:
            if duck:  # an index from before the dictionary
                return drop_duck
            if stmt.if_exists:
                return []
            raise Errors.CANT_DROP_KEY.error(key=stmt.name)
        if key.unique and not duck:  # PRIMARY KEY / UNIQUE of CREATE TABLE: DuckDB constraints
            raise Errors.NOT_SUPPORTED.error(
                what=f"DROP INDEX {stmt.name}: DuckDB keeps a PRIMARY KEY or a UNIQUE key "
                "declared in CREATE TABLE as a constraint it cannot drop"
            )
        return [*drop_duck, dictionary_store.save_sql(changes.without_key(definition, stmt.name))]

    ctx.query.change_definition(build)
    return Result.ok(info=_NO_RECORDS)
