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
        if table.text("db").lower() == "information_schema" or table.text("catalog"):
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


def needs(expression: exp.Expression, ctx: SessionContext) -> list[Need] | None:
    """The privileges ``expression`` needs, or None when only ADMIN may run it."""
    if isinstance(expression, READ_STATEMENTS):
        return [Need("SELECT_PRIV", _db_of(t, ctx), t.name) for t in _tables(expression)]
    if isinstance(expression, (exp.Insert, exp.Update, exp.Delete, exp.TruncateTable)):
        if isinstance(expression, exp.TruncateTable):
            targets = [t for e in expression.expressions for t in _tables(e)]
        else:
            target = expression.this
            targets = [target.this if isinstance(target, exp.Schema) else target]
            targets = [t for t in targets if isinstance(t, exp.Table)]
        target_ids = {id(t) for t in targets}
        out = [Need("LOAD_PRIV", _db_of(t, ctx), t.name) for t in targets]
        out += [Need("SELECT_PRIV", _db_of(t, ctx), t.name) for t in _tables(expression)
                if id(t) not in target_ids]
        return out
    if isinstance(expression, (exp.Create, exp.Drop)):
        privilege = "CREATE_PRIV" if isinstance(expression, exp.Create) else "DROP_PRIV"
        kind = str(expression.args.get("kind") or "").upper()
        objects = (expression.args.get("tables") if isinstance(expression, exp.Drop) else None) or [expression.this]
        if kind in ("DATABASE", "SCHEMA"):
            return [Need(privilege, t.name, None) for t in objects]
        if kind in ("TABLE", "VIEW"):
            objects = [o.this if isinstance(o, exp.Schema) else o for o in objects]
            out = [Need(privilege, _db_of(t, ctx), t.name) for t in objects]
            source = expression.args.get("expression")
            if isinstance(source, exp.Expression):
                out += [Need("SELECT_PRIV", _db_of(t, ctx), t.name) for t in _tables(source)]
            return out
        return None
    if isinstance(expression, exp.Alter):
        return [Need("ALTER_PRIV", _db_of(expression.this, ctx), expression.this.name)]
    return None


def authorize(privileges: Privileges, expression: exp.Expression, ctx: SessionContext) -> None:
    required = needs(expression, ctx)
    if required is None:
        privileges.require_global(ctx, "ADMIN_PRIV")
        return
    for need in required:
        if need.table is None:
            privileges.require_db(ctx, need.privilege, INTERNAL, need.db)
        else:
            privileges.require_table(ctx, need.privilege, INTERNAL, need.db, need.table)


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
    return f"{INTERNAL}.{need.db}" + (f".{need.table}" if need.table else "")
