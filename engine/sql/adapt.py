"""MySQL AST → the AST drydock runs on DuckDB, in place (:func:`adapt`): ``FROM DUAL`` dropped,
``information_schema`` pointed at the MySQL-shaped views (filtered to the rows the user may see),
``CREATE/DROP DATABASE`` mapped to DuckDB schemas, a CREATE TABLE's MySQL forms rewritten
(engine/sql/mysql_ddl.py), SELECT modifiers that change no result (``SQL_NO_CACHE``, which dumps
send as ``/*!40001 SQL_NO_CACHE */``, ``HIGH_PRIORITY``, …) dropped: DuckDB has none."""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from drydock.engine.dictionary import changes, declare
from drydock.engine.dictionary import store as dictionary_store
from drydock.engine.session import INTERNAL, SessionContext
from drydock.engine.sql import info_schema, info_schema_dictionary, mysql_ddl

# (sees everything, visible databases, visible (database, table) pairs) — Privileges.visibility
Visibility = tuple[bool, set[str], set[tuple[str, str]]]


def external_info_schema_catalog(table: exp.Table, ctx: SessionContext) -> str | None:
    """The external catalog whose information_schema.SCHEMATA/TABLES/COLUMNS ``table`` reads
    (``[c.]information_schema.t``, c defaulting to the session's catalog), or None."""
    if (
        table.text("db").lower() != "information_schema"
        or table.name.lower() not in info_schema.EXTERNAL
    ):
        return None
    catalog = table.text("catalog") or ctx.catalog
    if catalog.lower() in (INTERNAL, info_schema.ATTACHED_NAME):
        return None
    return catalog


# information_schema tables whose rows name databases/tables, and the columns that do.
_FILTERED = {
    "schemata": ("schema_name", None),
    "tables": ("table_schema", "table_name"),
    "columns": ("table_schema", "table_name"),
    "statistics": ("table_schema", "table_name"),
    "key_column_usage": ("table_schema", "table_name"),
    "table_constraints": ("table_schema", "table_name"),
    "referential_constraints": ("constraint_schema", "table_name"),
    # CHECK_CONSTRAINTS names no table: filtered on the view that does (engine/sql/info_schema.py)
    "check_constraints": ("constraint_schema", "table_name"),
}


def _visible_rows(name: str, visibility: Visibility) -> exp.Expr:
    """``(SELECT * FROM mysql_is.main.<name> WHERE <the rows this user may see>)``."""
    sees_all, dbs, tables = visibility
    source = exp.select("*").from_(exp.table_(name, db="main", catalog=info_schema.ATTACHED_NAME))
    if sees_all:
        return source
    if name in info_schema_dictionary.BY_TABLE:
        columns, hidden = info_schema_dictionary.BY_TABLE[name]
        source = exp.select(*columns).from_(
            exp.table_(hidden, db="main", catalog=info_schema.ATTACHED_NAME)
        )
    db_col, table_col = _FILTERED[name]
    terms = [f"{db_col} = 'information_schema'"]
    if dbs:
        terms.append(f"{db_col} IN ({', '.join(_sql_string(d) for d in sorted(dbs))})")
    for db, table in sorted(tables):
        if table_col is None:
            terms.append(f"{db_col} = {_sql_string(db)}")
        else:
            terms.append(f"({db_col} = {_sql_string(db)} AND {table_col} = {_sql_string(table)})")
    return source.where(" OR ".join(terms), dialect="duckdb")


# MySQL 8.0 manual 15.2.13: modifiers about the query cache, priority and the optimizer's buffers
_NO_RESULT_MODIFIERS = frozenset(
    {
        "SQL_NO_CACHE",
        "SQL_CACHE",
        "HIGH_PRIORITY",
        "SQL_SMALL_RESULT",
        "SQL_BIG_RESULT",
        "SQL_BUFFER_RESULT",
    }
)


def _drop_no_result_modifiers(expression: exp.Expr) -> None:
    for select in expression.find_all(exp.Select):
        modifiers = select.args.get("operation_modifiers")
        if modifiers:
            kept = [m for m in modifiers if m.name.upper() not in _NO_RESULT_MODIFIERS]
            select.set("operation_modifiers", kept or None)
    for order in list(expression.find_all(exp.Order)):
        _drop_constant_order(order)


def _drop_constant_order(order: exp.Order) -> None:
    """``ORDER BY NULL`` (Django's way to ask MySQL not to sort a GROUP BY) and ``ORDER BY 'x'``
    order nothing in MySQL; DuckDB refuses them ("ORDER BY non-integer literal"). An integer
    literal is a position and stays."""
    kept = [
        o
        for o in order.expressions
        if not (
            isinstance(o.this, exp.Null) or (isinstance(o.this, exp.Literal) and o.this.is_string)
        )
    ]
    if len(kept) == len(order.expressions):
        return
    if kept:
        order.set("expressions", kept)
    else:
        order.pop()


def _copy_definition(
    create: exp.Create, like: exp.LikeProperty, ctx: SessionContext, schema: str, name: str
) -> None:
    """CREATE TABLE … LIKE: the source's definition, copied in the CREATE's own transaction
    (engine/dictionary/changes.py); IF NOT EXISTS over an existing table leaves its own."""
    source = like.this
    if not isinstance(source, exp.Table):
        return
    if create.args.get("exists") and ctx.query.table_exists(schema, name):
        return
    origin = (source.text("db") or ctx.database or "main", source.name)
    create.meta["definition_change"] = lambda cursor: changes.copied(cursor, origin, (schema, name))


def _sql_string(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def adapt(
    expression: exp.Expr, ctx: SessionContext, visibility: Visibility | None = None
) -> exp.Expr:
    """MySQL AST → the AST drydock runs on DuckDB (see module docstring), in place."""
    _drop_no_result_modifiers(expression)
    if (
        isinstance(expression, (exp.Create, exp.Drop))
        and expression.args.get("kind", "").upper() == "DATABASE"
    ):
        expression.set("kind", "SCHEMA")
        if isinstance(expression, exp.Drop):
            expression.set("cascade", True)  # MySQL's DROP DATABASE drops the tables in it
    if (
        isinstance(expression, exp.Create)
        and str(expression.args.get("kind", "")).upper() == "TABLE"
    ):
        table = expression.find(exp.Table)
        schema = (table.text("db") if table is not None else "") or ctx.database or "main"
        # the declaration, read before the adaptation drops what DuckDB cannot store
        declared = (
            declare.table_def(expression, schema)
            if isinstance(expression.this, exp.Schema) and expression.expression is None
            else None
        )
        first, after = mysql_ddl.adapt_create_table(expression, schema)
        if declared is not None:  # recorded in the CREATE's own transaction
            first = [dictionary_store.save_new_sql(declared), *first]
        like = expression.find(exp.LikeProperty)
        if declared is None and isinstance(like, exp.LikeProperty) and table is not None:
            _copy_definition(expression, like, ctx, schema, table.name)
        expression.meta["create_first"], expression.meta["create_after"] = first, after
    # a CREATE / DROP DATABASE names a database, not a table: never pointed at information_schema
    names_a_database = (
        isinstance(expression, (exp.Create, exp.Drop))
        and str(expression.args.get("kind", "")).upper() == "SCHEMA"
    )
    in_info_schema = (ctx.database or "").lower() == "information_schema" and not names_a_database
    if ctx.catalog.lower() != INTERNAL:
        # DATABASE() is the session's database in its external catalog; DuckDB's CURRENT_SCHEMA()
        # would answer the internal schema the cursor happens to be on (JDBC's getTables uses it).
        for node in list(expression.find_all(exp.CurrentSchema)):
            node.replace(exp.Literal.string(ctx.database) if ctx.database else exp.null())
    for table in list(expression.find_all(exp.Table)):
        db = table.text("db").lower()
        name = table.name
        if (
            isinstance(expression, exp.Select)
            and not db
            and name.upper() == "DUAL"
            and not table.args.get("catalog")
        ):
            _drop_dual(table)
            continue
        if db == "information_schema" or (
            in_info_schema and not db and not table.args.get("catalog")
        ):
            if external_info_schema_catalog(table, ctx) is not None:
                # answered from the external catalog's metadata (engine/sql/external_binding.py)
                continue
            if visibility is not None and name.lower() in _FILTERED:
                alias = table.alias or name
                table.replace(
                    exp.Subquery(
                        this=_visible_rows(name.lower(), visibility),
                        alias=exp.TableAlias(this=exp.to_identifier(alias)),
                    )
                )
                continue
            table.set("catalog", exp.to_identifier(info_schema.ATTACHED_NAME))
            table.set("db", exp.to_identifier("main"))
            table.set("this", exp.to_identifier(name.lower()))
    return expression


def _drop_dual(table: exp.Table) -> None:
    parent: Any = table.parent
    if isinstance(parent, exp.From):
        select = parent.parent
        if isinstance(select, exp.Select):
            select.set("from_", None)
