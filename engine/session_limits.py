"""Session variables that limit what a statement does, applied on the statement's AST before it
is authorized and run (never on its text):

- ``sql_select_limit``: the most rows a top-level SELECT without its own LIMIT returns (JDBC
  ``Statement.setMaxRows(n)`` sends ``SET SQL_SELECT_LIMIT=n``; ``DEFAULT`` lifts it). Subqueries,
  INSERT … SELECT and SHOW are not limited, as in MySQL.
- ``sql_safe_updates``: UPDATE and DELETE need a WHERE or a LIMIT (``mariadb --safe-updates``
  sets it on connect); otherwise 1175, as MySQL refuses them. (MySQL also demands that the WHERE
  use a key; drydock's internal tables have no index to check, so any WHERE passes.)
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from engine.errors import Errors
from engine.session import SessionContext

UNLIMITED = 18446744073709551615  # MySQL's maximum, the same as no limit
# (type, default, dynamic) in mysql-mimic's schema; MySQL shows "no limit" as its maximum.
VARIABLES: dict[str, tuple[type, Any, bool]] = {
    "sql_select_limit": (int, UNLIMITED, True),
    "sql_safe_updates": (bool, False, True),
    "max_join_size": (int, UNLIMITED, True),
    "sql_big_selects": (bool, True, True),
}
LIMITABLE = (exp.Select, exp.Union, exp.Intersect, exp.Except)


def _variable(ctx: SessionContext, name: str) -> Any:
    if ctx.variables is None:
        return None
    try:
        return ctx.variables.get(name)
    except Exception:  # noqa: BLE001 - a variables object without the name: the limit is off
        return None


def apply(expression: exp.Expr, ctx: SessionContext) -> None:
    """Both limits, in place, on the statement's own copy of its AST."""
    check_safe_update(expression, ctx)
    apply_select_limit(expression, ctx)


def select_limit(ctx: SessionContext) -> int | None:
    value = _variable(ctx, "sql_select_limit")
    if value is None:
        return None
    limit = int(value)
    return None if limit >= UNLIMITED or limit < 0 else limit


def apply_select_limit(expression: exp.Expr, ctx: SessionContext) -> None:
    limit = select_limit(ctx)
    if limit is None or not isinstance(expression, LIMITABLE):
        return
    current = expression.args.get("limit")
    if current is not None and not isinstance(current.expression, exp.Null):
        return  # the statement's own LIMIT wins, as in MySQL
    if isinstance(expression, exp.Select) and expression.args.get("into") is not None:
        return
    expression.set("limit", exp.Limit(expression=exp.Literal.number(limit)))


def check_safe_update(expression: exp.Expr, ctx: SessionContext) -> None:
    if not isinstance(expression, (exp.Update, exp.Delete)) or not _variable(ctx, "sql_safe_updates"):
        return
    if expression.args.get("where") is None and expression.args.get("limit") is None:
        raise Errors.SAFE_UPDATE.error()
