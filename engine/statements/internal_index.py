"""Plain indexes on internal (DuckDB) tables, as ORMs and MySQL scripts create them (MySQL 8.0
manual 15.1.15, 15.1.27):

  CREATE [UNIQUE] INDEX i ON [db.]t (col, …)      DROP INDEX i ON [db.]t

The Lark grammar owns CREATE/DROP INDEX for Lance index jobs; when the table is internal its
handler (engine/statements/index_jobs.py) comes here instead. The statement is built as a
sqlglot AST and runs through the plain-SQL pipeline (engine/statements/sql.py: the table needs
ALTER_PRIV, as Doris asks for index changes); an index lives in its table's database. An index
of another table is never dropped through this table's name: the index must belong to it.
"""

from __future__ import annotations

from sqlglot import exp

from drydock.engine import ast
from drydock.engine.core import Engine
from drydock.engine.errors import Errors
from drydock.engine.session import INTERNAL
from drydock.engine.results import Result
from drydock.engine.session import SessionContext

# A plain index names no USING: with USING it is a Lance index job, which internal tables refuse
# (5101), as Doris does.
PLAIN_METHODS = ("",)


def is_internal(engine: Engine, ctx: SessionContext, parts: tuple[str, ...]) -> bool:
    catalog, _, _ = engine.metadata.split(ctx, parts)
    return catalog.lower() == INTERNAL


def _table(engine: Engine, ctx: SessionContext, parts: tuple[str, ...]) -> exp.Table:
    _, db, table = engine.metadata.split(ctx, parts)
    return exp.table_(exp.to_identifier(table, quoted=True), db=exp.to_identifier(db, quoted=True))


def create(engine: Engine, stmt: ast.CreateIndex, ctx: SessionContext) -> Result:
    from drydock.engine.statements.sql import run_query  # sql.py imports the statement registry

    if stmt.using not in PLAIN_METHODS or stmt.properties or stmt.or_replace:
        raise Errors.NOT_SUPPORTED.error(
            what=f"CREATE INDEX ... USING {stmt.using or '(none)'} "
            "with PROPERTIES or OR REPLACE on an internal table"
        )
    index = exp.Index(
        this=exp.to_identifier(stmt.name, quoted=True),
        table=_table(engine, ctx, stmt.table),
        params=exp.IndexParameters(columns=[exp.column(c, quoted=True) for c in stmt.columns]),
    )
    create_index = exp.Create(this=index, kind="INDEX", exists=stmt.if_not_exists)
    return run_query(engine, create_index, ctx)


def drop(engine: Engine, stmt: ast.DropIndex, ctx: SessionContext) -> Result:
    from drydock.engine.statements.sql import authorize_alter_of

    table = _table(engine, ctx, stmt.table)
    db, name = table.text("db"), table.name
    authorize_alter_of(engine, table, ctx)
    owned = engine.query.fetch(
        "SELECT count(*) FROM duckdb_indexes() WHERE database_name = ? AND schema_name = ? "
        "AND table_name = ? AND index_name = ?",
        [INTERNAL, db, name, stmt.name],
    )
    if not owned or not owned[0][0]:
        if stmt.if_exists:
            return Result.ok()
        raise Errors.CANT_DROP_KEY.error(key=stmt.name)
    ctx.query.drop_index(db, stmt.name)
    return Result.ok()
