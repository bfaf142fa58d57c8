"""Which privileges a passthrough statement needs, read from its sqlglot AST.

Every table a statement touches is checked: read tables need SELECT_PRIV, the target of
INSERT/UPDATE/DELETE/TRUNCATE needs LOAD_PRIV, CREATE/DROP/ALTER need CREATE/DROP/ALTER_PRIV on
the table (or, for databases, on the database). Statement kinds drydock does not model need
ADMIN_PRIV. information_schema is readable by everyone and filtered by what each user may see.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from engine.errors import Errors
from engine.info_schema import INTERNAL
from engine.privileges import Privileges
from engine.session import SessionContext

READ_STATEMENTS = (exp.Select, exp.Union, exp.Intersect, exp.Except, exp.Values)


@dataclass(frozen=True)
class Need:
    privilege: str
    db: str
    table: str | None  # None: database level
    catalog: str = INTERNAL


def _cte_names(expression: exp.Expression) -> set[str]:
    return {cte.alias_or_name.lower() for cte in expression.find_all(exp.CTE)}


def _tables(expression: exp.Expression) -> list[exp.Table]:
    ctes = _cte_names(expression)
    out = []
    for table in expression.find_all(exp.Table):
        if not isinstance(table.this, exp.Identifier):
            continue  # table functions such as range(): no catalog object behind them
        if not table.text("db") and table.name.lower() in ctes:
            continue
        if table.text("db").lower() == "information_schema":
            continue
        if table.text("catalog").lower() == "mysql_is":
            continue
        if not table.text("db") and table.name.upper() == "DUAL":
            continue
        out.append(table)
    return out


def _db_of(table: exp.Table, ctx: SessionContext) -> str:
    db = table.text("db") or ctx.database
    if not db:
        raise Errors.NO_DB_SELECTED.error()
    return db


def catalog_of(table: exp.Table, ctx: SessionContext) -> str:
    """The catalog a table reference names: explicit, else the session's current catalog."""
    named = table.text("catalog")
    if named:
        return INTERNAL if named.lower() == INTERNAL else named
    return ctx.catalog


def _need(privilege: str, table: exp.Table, ctx: SessionContext) -> Need:
    return Need(privilege, _db_of(table, ctx), table.name, catalog_of(table, ctx))


def external_tables(expression: exp.Expression, ctx: SessionContext) -> list[exp.Table]:
    """Table references that live in an external (non-internal) catalog."""
    return [t for t in _tables(expression) if catalog_of(t, ctx).lower() != INTERNAL]


def needs(expression: exp.Expression, ctx: SessionContext) -> list[Need] | None:
    """The privileges ``expression`` needs, or None when only ADMIN may run it."""
    if isinstance(expression, READ_STATEMENTS):
        return [_need("SELECT_PRIV", t, ctx) for t in _tables(expression)]
    if isinstance(expression, (exp.Insert, exp.Update, exp.Delete, exp.TruncateTable)):
        if isinstance(expression, exp.TruncateTable):
            targets = [t for e in expression.expressions for t in _tables(e)]
        else:
            target = expression.this
            targets = [target.this if isinstance(target, exp.Schema) else target]
            targets = [t for t in targets if isinstance(t, exp.Table)]
        target_ids = {id(t) for t in targets}
        out = [_need("LOAD_PRIV", t, ctx) for t in targets]
        out += [_need("SELECT_PRIV", t, ctx) for t in _tables(expression)
                if id(t) not in target_ids]
        return out
    if isinstance(expression, (exp.Create, exp.Drop)):
        privilege = "CREATE_PRIV" if isinstance(expression, exp.Create) else "DROP_PRIV"
        kind = str(expression.args.get("kind") or "").upper()
        objects = (expression.args.get("tables") if isinstance(expression, exp.Drop) else None) or [expression.this]
        if kind in ("DATABASE", "SCHEMA"):
            return [Need(privilege, t.name, None, catalog_of(t, ctx) if t.text("db") else ctx.catalog)
                    for t in objects]
        if kind in ("TABLE", "VIEW"):
            objects = [o.this if isinstance(o, exp.Schema) else o for o in objects]
            out = [_need(privilege, t, ctx) for t in objects]
            source = expression.args.get("expression")
            if isinstance(source, exp.Expression):
                out += [_need("SELECT_PRIV", t, ctx) for t in _tables(source)]
            return out
        return None
    if isinstance(expression, exp.Alter):
        return [_need("ALTER_PRIV", expression.this, ctx)]
    return None


def authorize(privileges: Privileges, expression: exp.Expression, ctx: SessionContext) -> None:
    required = needs(expression, ctx)
    if required is None:
        privileges.require_global(ctx, "ADMIN_PRIV")
        return
    for need in required:
        if need.catalog.lower() != INTERNAL and need.privilege != "SELECT_PRIV":
            raise Errors.READ_ONLY_CATALOG.error(catalog=need.catalog)
        if need.table is None:
            privileges.require_db(ctx, need.privilege, need.catalog, need.db)
        else:
            privileges.require_table(ctx, need.privilege, need.catalog, need.db, need.table)


def target_of(expression: exp.Expression, ctx: SessionContext) -> str:
    """A short description of the object a statement acts on, for the audit log."""
    try:
        required = needs(expression, ctx) or []
    except Exception:  # noqa: BLE001 - the audit must never fail a statement
        return ""
    primary = [n for n in required if n.privilege != "SELECT_PRIV"] or required
    if not primary:
        return ""
    need = primary[0]
    return f"{need.catalog}.{need.db}" + (f".{need.table}" if need.table else "")
