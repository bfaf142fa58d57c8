"""Plain SQL: every statement the Lark grammar does not own, run on DuckDB.

parse (grammar/sql.py) → bind session values (``@@x``, ``@v``, ``DATABASE()``, …) as literals →
resolve the relations it touches (engine/sql/sql_relations.py) → authorize exactly those → execute
the resolved statement (engine/sql/query.py; engine/sql/verdict_cache.py checks DuckDB's own parse
of the final text).
SET, SHOW VARIABLES/STATUS/COLUMNS…, DESCRIBE and BEGIN/COMMIT/ROLLBACK are answered here too:
no statement is answered by code drydock does not own.
"""

from __future__ import annotations

from typing import Any

from mysql_mimic.schema import show_statement_to_info_schema_query
from mysql_mimic.variables import DEFAULT
from sqlglot import exp

from drydock.engine import ast
from drydock.engine.sql import (
    collation,
    division_by_zero,
    dotted_names,
    loose_group_by,
    mysql_dml,
    mysql_functions,
    runtime_warnings,
    session_limits,
    sql_relations,
    statement_info,
    text_cache,
    transactions,
)
from drydock.engine.support.config_keys import Key
from drydock.engine.core import Engine
from drydock.engine.search.settings import session_settings
from drydock.engine.dictionary import changes
from drydock.engine.statements.explain import explain_rows
from drydock.engine.errors import DrydockError, Errors
from drydock.engine.sql.mysql_functions import MYSQL_CALL
from drydock.engine.sql.session_variables import GLOBAL_CONFIG, sql_mode_names
from drydock.engine.session import INTERNAL
from drydock.engine.security.privileges import Privilege, Privileges
from drydock.engine.results import Diagnostic, Result
from drydock.engine.session import SessionContext
from drydock.engine.sql.sql_relations import Reference
from drydock.engine.statements import (
    dump_statements,
    internal_index,
    metadata,
    shared_store,
    variables,
)
from drydock.engine.sql.user_variables import literal_expression, substitute_user_variables
from drydock.grammar.lexer import may_quote_names
from drydock.grammar.sql import RenameTables
from drydock.engine.statements.registry import handles

READS = (exp.Select, exp.Union, exp.Intersect, exp.Except, exp.Values, exp.Subquery)
WRITES = (exp.Insert, exp.Update, exp.Delete, exp.TruncateTable)
DDL = (exp.Create, exp.Drop, exp.Alter)
_DATABASE_KINDS = ("DATABASE", "SCHEMA")
_OBJECT_KINDS = ("TABLE", "VIEW")


def _sql_target(stmt: ast.SqlStatement, ctx: SessionContext) -> str:
    return audit_target(stmt.expression, ctx)  # defined below, read when a statement is audited


@handles(ast.SqlStatement, audit=_sql_target)
def run_sql(engine: Engine, stmt: ast.SqlStatement, ctx: SessionContext) -> Result:
    expression = stmt.expression
    if isinstance(expression, exp.Set):
        was_autocommit = transactions.autocommit(ctx)
        result = variables.set_statement(
            expression,
            ctx,
            lambda value: evaluate(engine, value, ctx),
            lambda name, value: _set_global(engine, ctx, name, value),
        )
        transactions.after_set(ctx, was_autocommit)
        return result
    if isinstance(expression, exp.Show):
        return _show(engine, expression, ctx)
    if isinstance(expression, transactions.TRANSACTION_CONTROL):
        return transactions.control(expression, ctx)
    if dump_statements.is_alter_keys(expression):
        return dump_statements.alter_keys(engine, expression, ctx)
    if isinstance(expression, RenameTables):
        return _rename_tables(engine, expression if stmt.fresh else expression.copy(), ctx)
    if _is_internal_index(engine, expression, ctx):
        assert isinstance(expression, exp.Create)
        return internal_index.create_from_sql(engine, expression, ctx)
    if isinstance(expression, exp.Describe) and not isinstance(expression.this, exp.Query):
        # EXPLAIN t is DESCRIBE t (MySQL): the grammar's SHOW COLUMNS answers it
        # (engine/statements/metadata.py)
        table = expression.this
        parts = (
            tuple(p for p in (table.catalog, table.db, table.name) if p)
            if isinstance(table, exp.Table)
            else (table.name,)
        )
        return metadata.show_columns(engine, ast.ShowColumns(parts=parts), ctx)
    try:
        own = expression if stmt.fresh else expression.copy()
        session_limits.apply(own, ctx)  # sql_select_limit / sql_safe_updates, on the AST
        loose_group_by.apply(own, ctx)  # sql_mode without ONLY_FULL_GROUP_BY: ANY_VALUE
        collation.default_like_escape(  # LIKE 'a\_%': MySQL's backslash escape
            own, "NO_BACKSLASH_ESCAPES" not in sql_mode_names(ctx)
        )
        if may_quote_names(stmt.text):  # a dotted database name can only be quoted
            dotted_names.split_table_references(engine.catalogs, own)  # `lc.db`.t → lc.db.t
        skipped: list[Diagnostic] = []  # catalogs the listings below could not reach: warnings
        if "schemata" in stmt.text.lower():  # getCatalogs: external databases as catalog.db
            dotted_names.add_external_schemata(engine.catalogs, engine.metadata, own, ctx, skipped)
        if "information_schema" in stmt.text.lower() and "." in stmt.text:  # getTables('lc.db', …)
            dotted_names.add_external_tables(engine.catalogs, engine.metadata, own, ctx, skipped)
        counting = statement_info.found_rows_query(own)
        ctx.time_limit_ms = session_limits.execution_time_ms(own, ctx, _time_ceiling(engine, ctx))
        try:
            # the client's own query streams its rows (engine/sql/execution.py), unless another
            # query must run on the session's cursor after it (SQL_CALC_FOUND_ROWS)
            result = run_query(engine, own, ctx, stream=ctx.stream_results and counting is None)
            result.warnings.extend(skipped)
            if counting is not None:
                result.found_rows = evaluate_rows(engine, counting, ctx)
        finally:
            ctx.time_limit_ms = (
                0  # armed by then (engine/sql/execution.py); a stream keeps it to its end
            )
        return result
    except RecursionError:  # a statement nested deeper than the tree walkers go
        raise Errors.PARSE.error(detail="line 1:0 the statement is nested too deeply") from None


def _time_ceiling(engine: Engine, ctx: SessionContext) -> int:
    """The global max_execution_time bounds what a user without ADMIN may ask for (0: no
    ceiling)."""
    ceiling = int(engine.config.get(Key.MAX_EXECUTION_TIME))
    if ceiling <= 0 or engine.privileges.has_global(ctx, Privilege.ADMIN):
        return 0
    return ceiling


def _set_global(engine: Engine, ctx: SessionContext, name: str, value: Any) -> None:
    """SET GLOBAL of a variable kept as a frontend config key (engine/sql/session_variables.py):
    needs
    ADMIN, as ADMIN SET FRONTEND CONFIG does, and is stored and published the same way."""
    engine.privileges.require_global(ctx, Privilege.ADMIN)
    field = engine.config.field(GLOBAL_CONFIG[name])
    try:
        engine.config.set(field.name, field.render(field.default if value is DEFAULT else value))
    except DrydockError:
        raise Errors.WRONG_VALUE_FOR_VAR.error(name=name, value=value) from None


def evaluate(engine: Engine, value: exp.Expr, ctx: SessionContext) -> Any:
    """``value`` computed by DuckDB as ``SELECT <value>``, with that SELECT's privileges."""
    result = run_query(engine, exp.select(value.copy().as_("v")), ctx)
    return result.rows[0][0] if result.rows else None


def evaluate_rows(engine: Engine, query: exp.Expr, ctx: SessionContext) -> int:
    """The count a ``SELECT count(*) …`` computes, with that SELECT's own privileges."""
    result = run_query(engine, query, ctx)
    return int(result.rows[0][0]) if result.rows else 0


def run_query(
    engine: Engine, expression: exp.Expr, ctx: SessionContext, stream: bool = False
) -> Result:
    """Authorize and run one statement on DuckDB; ``expression`` is this call's own copy.
    ``stream``: a large result set may come back as its first batch plus ``Result.stream``."""
    if not _runs_on_duckdb(expression):
        raise Errors.STATEMENT_NOT_ALLOWED.error(what=_kind_text(expression))
    transactions.before_statement(ctx)
    cached = text_cache.lookup(expression, ctx, engine.privileges.revision)  # the shape's text
    answered = text_cache.answer(cached, ctx, stream)
    if answered is not None:
        return answered
    expression = bind_session_values(expression, ctx)
    warnings = runtime_warnings.Collector()  # raised row by row while DuckDB runs it
    try:
        expression = mysql_functions.translate(expression, warnings)
        division_by_zero.guard(
            expression, warnings, division_by_zero.outcome(expression, sql_mode_names(ctx))
        )
        expression = mysql_dml.rewrite(collation.translate(expression))
        references = [] if _is_database_ddl(expression) else sql_relations.resolve(expression, ctx)
        shared_store.refuse_internal_change(engine.store, internal_change(expression, ctx))
        refuse_system_schema_change(expression, ctx)
        authorize(engine.privileges, expression, references, ctx)
        visibility = engine.privileges.visibility(ctx, INTERNAL)

        def scan(catalog: str, db: str, table: str, travel: Any) -> Any:
            return engine.metadata.scan(ctx, catalog, db, table, travel)

        search = session_settings(ctx, int(engine.config.get(Key.VECTOR_SEARCH_MAX_K)))
        result = ctx.query.run(
            expression, ctx, references, visibility, scan, stream=stream, search=search
        )
    except BaseException:
        warnings.collect()
        raise
    if result.stream is None:
        result.warnings.extend(warnings.collect())
    else:  # later batches raise more: the server takes them as it fetches (server/session.py)
        result.warnings.extend(warnings.take())
        result.stream.follow_warnings(warnings.take, warnings.collect)
    if cached is not None:
        text_cache.learn(
            cached,
            ctx,
            lambda probe: run_query(engine, probe, ctx),
            lambda tree: bind_session_values(tree.copy(), ctx) != tree,
        )
    if isinstance(expression, exp.Describe):  # EXPLAIN <query> (engine/statements/explain.py)
        return explain_rows(engine, expression, references, result, ctx)
    return result


def _runs_on_duckdb(expression: exp.Expr) -> bool:
    if isinstance(expression, READS + WRITES):
        return True
    if isinstance(expression, exp.Describe):
        return isinstance(expression.this, exp.Query)
    if isinstance(expression, exp.Create) and _kind(expression) == "INDEX":
        return (
            True  # CREATE [UNIQUE] INDEX on an internal table (engine/statements/internal_index.py)
        )
    if isinstance(expression, (exp.Create, exp.Drop)):
        return _kind(expression) in _DATABASE_KINDS + _OBJECT_KINDS
    if isinstance(expression, exp.Alter):
        return _kind(expression) == "TABLE"
    return False


def _kind(expression: exp.Expr) -> str:
    return str(expression.args.get("kind") or "").upper()


def _kind_text(expression: exp.Expr) -> str:
    words = expression.sql(dialect="mysql").split()[:3]
    return " ".join(words)[:64] or type(expression).__name__


def _is_database_ddl(expression: exp.Expr) -> bool:
    return isinstance(expression, (exp.Create, exp.Drop)) and _kind(expression) in _DATABASE_KINDS


def _rename_tables(engine: Engine, rename: RenameTables, ctx: SessionContext) -> Result:
    """RENAME TABLE a TO b [, …]: each pair an ALTER TABLE … RENAME TO (authorized on its own,
    see :func:`authorize`), all in one transaction, as MySQL renames atomically."""
    own = not transactions.in_transaction(ctx)
    if own:
        ctx.query.begin()
    try:
        for alter in rename.expressions:
            source, target = _rename_names(alter, ctx)
            run_query(engine, alter, ctx)
            # the definition follows (engine/dictionary/changes.py), in the same transaction
            ctx.query.change_definition(
                lambda cursor, s=source, t=target: changes.renamed(cursor, s, t)
            )
    except BaseException:
        if own:
            ctx.query.rollback()
        raise
    if own:
        ctx.query.commit()
    return Result.ok()


def _rename_names(alter: exp.Expr, ctx: SessionContext) -> tuple[tuple[str, str], tuple[str, str]]:
    """(schema, name) before and after one RENAME TABLE pair."""
    source = alter.this
    rename = alter.find(exp.AlterRename)
    target = rename.this if rename is not None else None
    default = ctx.database or "main"
    if not isinstance(source, exp.Table) or not isinstance(target, exp.Table):
        return (default, ""), (default, "")
    before = (source.text("db") or default, source.name)
    return before, (target.text("db") or before[0], target.name)


def _is_internal_index(engine: Engine, expression: exp.Expr, ctx: SessionContext) -> bool:
    """CREATE [UNIQUE] INDEX on an internal table (engine/statements/internal_index.py)."""
    if not (isinstance(expression, exp.Create) and _kind(expression) == "INDEX"):
        return False
    index = expression.this
    table = index.args.get("table") if isinstance(index, exp.Index) else None
    if not isinstance(table, exp.Table):
        return False
    return internal_index.is_internal(engine, ctx, internal_index.table_parts(table))


# -- session values ---------------------------------------------------------------------------
def bind_session_values(expression: exp.Expr, ctx: SessionContext) -> exp.Expr:
    """``@v``, ``@@x`` and the information functions → literals (never evaluated as code)."""
    expression = substitute_user_variables(expression, ctx)

    def replace(node: exp.Expr) -> exp.Expr:
        value = _session_value(node, ctx)
        if value is _NOT_SESSION_VALUE:
            return node
        literal = literal_expression(value)
        if isinstance(node, exp.Anonymous) and str(node.name).lower() in _STATEMENT_INFO:
            # typed as the client's call (BIGINT UNSIGNED(21) for LAST_INSERT_ID()), not as the
            # literal it became (server/expression_columns.py)
            literal.meta[MYSQL_CALL] = node
        return literal

    return expression.transform(replace, copy=False)


_NOT_SESSION_VALUE = object()
_USER_FUNCTIONS = ("user", "session_user", "system_user")
# MySQL 12.16 information functions about the session's previous statements (engine/session.py)
_STATEMENT_INFO = {
    "last_insert_id": "last_insert_id",
    "row_count": "row_count",
    "found_rows": "found_rows",
}


def _session_value(node: exp.Expr, ctx: SessionContext) -> Any:
    if isinstance(node, exp.SessionParameter):
        scope = (node.text("kind") or "SESSION").upper()
        name = node.name.lower()
        if scope == "GLOBAL" and hasattr(ctx.variables, "global_value"):
            return ctx.variables.global_value(name)  # engine/sql/session_variables.py GLOBAL_CONFIG
        if scope == "GLOBAL" or ctx.variables is None:
            return ctx.variables.get(name) if ctx.variables is not None else None
        try:
            return ctx.variables.get(name)
        except Exception:  # noqa: BLE001 - mysql-mimic raises its own error for unknown names
            raise Errors.UNKNOWN_SYSTEM_VARIABLE.error(name=name) from None
    if isinstance(node, exp.CurrentSchema):
        return ctx.database
    if isinstance(node, exp.CurrentUser):
        return f"{ctx.user}@{ctx.account_host}"
    if isinstance(node, exp.CurrentVersion):
        return ctx.variables.get("version") if ctx.variables is not None else None
    if isinstance(node, exp.Anonymous):
        name = str(node.name).lower()
        if name in _USER_FUNCTIONS:
            return f"{ctx.user}@{ctx.host}"
        if name == "connection_id":
            return ctx.connection_id
        if name in _STATEMENT_INFO and not node.expressions:
            return getattr(ctx, _STATEMENT_INFO[name])
        if name == "version":
            return ctx.variables.get("version") if ctx.variables is not None else None
    return _NOT_SESSION_VALUE


# -- SHOW -----------------------------------------------------------------------------------------
def _show(engine: Engine, show: exp.Show, ctx: SessionContext) -> Result:
    kind = show.name.upper()
    if kind in ("VARIABLES", "STATUS"):
        shown = (
            variables.show_variables(show, ctx)
            if kind == "VARIABLES"
            else variables.show_status(show, ctx)
        )
        where = show.args.get("where")
        return shown if where is None else run_query(engine, variables.filtered(shown, where), ctx)
    select = show_statement_to_info_schema_query(show, ctx.database)
    return run_query(engine, select, ctx)


# -- privileges -------------------------------------------------------------------------------
def authorize(
    privileges: Privileges, expression: exp.Expr, references: list[Reference], ctx: SessionContext
) -> None:
    """Each reference needs SELECT_PRIV unless it is the statement's target, which needs the
    privilege of the statement kind; database DDL needs it on the database."""
    if _is_database_ddl(expression):
        privilege = Privilege.CREATE if isinstance(expression, exp.Create) else Privilege.DROP
        for node in _objects(expression):
            catalog, db = database_named(node, ctx)
            if catalog.lower() != INTERNAL:
                raise Errors.READ_ONLY_CATALOG.error(catalog=catalog)
            privileges.require_db(ctx, privilege, INTERNAL, db)
        return
    target_privilege, targets = _targets(expression)
    renamed_to = _authorize_rename(privileges, expression, references, ctx)
    for reference in references:
        if reference.node is renamed_to:
            continue  # a new name, not a relation read: CREATE+LOAD were checked above
        privilege = target_privilege if id(reference.node) in targets else Privilege.SELECT
        if reference.system and privilege != Privilege.SELECT:
            raise Errors.SYSTEM_TABLE_READ_ONLY.error(
                table=f"{reference.catalog}.{reference.db}.{reference.relation}"
            )
        if reference.catalog.lower() != INTERNAL and privilege != Privilege.SELECT:
            raise Errors.READ_ONLY_CATALOG.error(catalog=reference.catalog)
        privileges.require_table(ctx, privilege, reference.catalog, reference.db, reference.table)


def database_named(node: exp.Expr, ctx: SessionContext) -> tuple[str, str]:
    """(catalog, database) a CREATE / DROP DATABASE | SCHEMA names. sqlglot files the name in
    different slots: ``DATABASE [c.]x`` as ``this`` (a catalog in ``db``), ``SCHEMA [c.]x`` as
    ``db`` (a catalog in ``catalog``); the last slot given is the database."""
    if not isinstance(node, exp.Table):
        return ctx.catalog, node.name
    slots = [node.args.get(k) for k in ("catalog", "db", "this")]
    given = [str(s.name) if isinstance(s, exp.Expr) else str(s) for s in slots if s is not None]
    if not given:
        return ctx.catalog, ""
    catalog = given[-2] if len(given) > 1 else ""
    if not catalog:
        return ctx.catalog, given[-1]
    return (INTERNAL if catalog.lower() == INTERNAL else catalog), given[-1]


def _authorize_rename(
    privileges: Privileges, expression: exp.Expr, references: list[Reference], ctx: SessionContext
) -> exp.Expr | None:
    """ALTER TABLE … RENAME TO / RENAME TABLE need what MySQL asks (manual 15.1.36): ALTER and
    DROP on the old table, CREATE and INSERT (LOAD) on the new name, in its database (another
    internal database moves the table: engine/sql/mysql_alter.py)."""
    if not isinstance(expression, exp.Alter):
        return None
    renames = [a for a in expression.args.get("actions") or [] if isinstance(a, exp.AlterRename)]
    if not renames:
        return None
    old = next((r for r in references if r.node is expression.this), None)
    if old is None:
        raise Errors.RELATIONS_UNKNOWN.error(detail="the table to rename was not resolved")
    new = renames[0].this
    new_db = (new.text("db") if isinstance(new, exp.Table) else "") or old.db
    new_catalog = new.text("catalog") if isinstance(new, exp.Table) else ""
    if new_catalog and new_catalog.lower() != INTERNAL:
        raise Errors.NOT_SUPPORTED.error(what="RENAME TABLE into another catalog")
    if old.catalog.lower() != INTERNAL:
        raise Errors.READ_ONLY_CATALOG.error(catalog=old.catalog)
    privileges.require_table(ctx, Privilege.DROP, old.catalog, old.db, old.table)
    for privilege in (Privilege.CREATE, Privilege.LOAD):
        privileges.require_table(ctx, privilege, INTERNAL, new_db, new.name)
    return new


def _objects(expression: exp.Expr) -> list[exp.Expr]:
    tables = expression.args.get("tables") if isinstance(expression, exp.Drop) else None
    objects = list(tables or [expression.this])
    return [o.this if isinstance(o, exp.Schema) else o for o in objects]


def _targets(expression: exp.Expr) -> tuple[Privilege, set[int]]:
    """The privilege a statement's target needs and the ids of its target table nodes."""
    if isinstance(expression, exp.TruncateTable):
        return Privilege.LOAD, {
            id(t) for e in expression.expressions for t in e.find_all(exp.Table)
        }
    if isinstance(expression, (exp.Insert, exp.Update, exp.Delete)):
        nodes = [expression.this] + list(expression.args.get("tables") or [])
        nodes = [n.this if isinstance(n, exp.Schema) else n for n in nodes]
        return Privilege.LOAD, {id(n) for n in nodes if isinstance(n, exp.Table)}
    if isinstance(expression, exp.Create) and isinstance(expression.this, exp.Index):
        return Privilege.ALTER, {id(expression.this.args.get("table"))}
    if isinstance(expression, exp.Create):
        return Privilege.CREATE, {id(n) for n in _objects(expression)}
    if isinstance(expression, exp.Drop):
        return Privilege.DROP, {id(n) for n in _objects(expression)}
    if isinstance(expression, exp.Alter):
        return Privilege.ALTER, {id(expression.this)}
    return Privilege.SELECT, set()


_VERBS: dict[type, str] = {
    exp.Insert: "INSERT INTO",  # REPLACE and ON DUPLICATE KEY UPDATE too (engine/sql/mysql_dml.py)
    exp.Update: "UPDATE",
    exp.Delete: "DELETE FROM",
    exp.TruncateTable: "TRUNCATE TABLE",
    exp.Create: "CREATE",
    exp.Drop: "DROP",
    exp.Alter: "ALTER",  # RENAME TABLE is an ALTER TABLE … RENAME TO per pair
}


def internal_change(expression: exp.Expr, ctx: SessionContext) -> str:
    """The internal table or database a statement creates, changes or fills, as ``CREATE TABLE
    db.t`` ('' when none): what engine/statements/shared_store.py refuses on a shared store. A
    TEMPORARY table is one session's, so it is none."""
    verb = _VERBS.get(type(expression), type(expression).__name__.upper())
    if _is_database_ddl(expression):
        for node in _objects(expression):
            catalog, db = database_named(node, ctx)
            if catalog.lower() == INTERNAL:
                return f"{verb} {_kind(expression)} {db}"
        return ""
    if expression.find(exp.TemporaryProperty) is not None or expression.args.get("temporary"):
        return ""
    _, targets = _targets(expression)
    # the target nodes themselves, not the references: a table made in information_schema is
    # no reference (drydock answers that schema) but would be this frontend's alone all the same
    for node in expression.find_all(exp.Table):
        if id(node) in targets and sql_relations.catalog_of(node, ctx).lower() == INTERNAL:
            kind = f" {_kind(expression)}" if isinstance(expression, DDL) else ""
            return f"{verb}{kind} {node.text('db') or ctx.database or ''}.{node.name}"
    return ""


# Schemas that are read-only in MySQL for every user, root included (1044); drydock answers
# information_schema itself and has no performance_schema, so a table there could only be a stray.
SYSTEM_SCHEMAS = frozenset({"information_schema", "performance_schema"})


def refuse_system_schema_change(expression: exp.Expr, ctx: SessionContext) -> None:
    """1044 when a statement would create, change or fill a table in a system schema — named or
    the session's current database — or create or drop a system schema itself."""
    if _is_database_ddl(expression):
        names = [database_named(node, ctx)[1] for node in _objects(expression)]
    else:
        _, targets = _targets(expression)
        names = [
            node.text("db") or ctx.database or ""
            for node in expression.find_all(exp.Table)
            if id(node) in targets and sql_relations.catalog_of(node, ctx).lower() == INTERNAL
        ]
    for name in names:
        if name.lower() in SYSTEM_SCHEMAS:
            raise Errors.DB_ACCESS_DENIED.error(user=ctx.user, host=ctx.host, db=name)


def audit_target(expression: exp.Expr, ctx: SessionContext) -> str:
    """The object a changing statement acts on, for its audit record."""
    if isinstance(expression, RenameTables) and expression.expressions:
        expression = expression.expressions[0]  # RENAME TABLE a TO b, …: the first table renamed
    nodes = _objects(expression) if isinstance(expression, DDL) else [expression.this]
    node = nodes[0] if nodes else None
    if not isinstance(node, exp.Table):
        return ""
    if _is_database_ddl(expression):
        return ".".join(database_named(node, ctx))
    catalog = sql_relations.catalog_of(node, ctx)
    return f"{catalog}.{node.text('db') or ctx.database or ''}.{node.name}"
