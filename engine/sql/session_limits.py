"""Session variables that limit what a statement does, applied on the statement's AST before it
is authorized and run (never on its text):

- ``sql_select_limit``: the most rows a top-level SELECT without its own LIMIT returns (JDBC
  ``Statement.setMaxRows(n)`` sends ``SET SQL_SELECT_LIMIT=n``; ``DEFAULT`` lifts it). Subqueries,
  INSERT … SELECT and SHOW are not limited, as in MySQL.
- ``sql_safe_updates``: UPDATE and DELETE need a LIMIT or a WHERE that restricts by a column
  (``mariadb --safe-updates`` sets it on connect); otherwise 1175, as MySQL refuses them. MySQL
  demands a WHERE its optimizer can use a key for; drydock does not know which index DuckDB
  would use, so it asks for the shape such a WHERE has (:func:`_restricts`): a column compared
  with a value, in every branch of an OR. ``WHERE 1=1``, ``WHERE id = id`` or ``… OR true``
  restrict nothing and are refused, as in MySQL.
- A top-level query in parentheses, ``(SELECT …)``, is limited like the query inside it.
- ``max_execution_time`` (ms; 0: none): a top-level SELECT running longer is interrupted with
  3024 (engine/sql/query.py, engine/sql/deadlines.py), as in MySQL only SELECT; the optimizer hint
  ``SELECT /*+ MAX_EXECUTION_TIME(n) */ …`` sets it for one statement. Sessions start with the
  config's ``max_execution_time`` (the global value, server/session.py), which is also a ceiling
  for users without ADMIN (unlike MySQL): a session or a hint may lower it, never lift it.
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from drydock.engine.errors import Errors
from drydock.engine.session import SessionContext

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
    if limit is None:
        return
    while isinstance(expression, exp.Subquery):  # (SELECT …): a LIMIT on any level is its own
        if _has_limit(expression):
            return
        expression = expression.this
    if not isinstance(expression, LIMITABLE) or _has_limit(expression):
        return  # the statement's own LIMIT wins, as in MySQL
    if isinstance(expression, exp.Select) and expression.args.get("into") is not None:
        return
    expression.set("limit", exp.Limit(expression=exp.Literal.number(limit)))


def _has_limit(expression: exp.Expr) -> bool:
    current = expression.args.get("limit")
    return current is not None and not isinstance(current.expression, exp.Null)


def check_safe_update(expression: exp.Expr, ctx: SessionContext) -> None:
    if not isinstance(expression, (exp.Update, exp.Delete)) or not _variable(
        ctx, "sql_safe_updates"
    ):
        return
    if expression.args.get("limit") is not None:
        return
    where = expression.args.get("where")
    if not (isinstance(where, exp.Where) and _restricts(where.this)):
        raise Errors.SAFE_UPDATE.error()


_RESTRICTING = (
    exp.EQ,
    exp.NullSafeEQ,
    exp.GT,
    exp.GTE,
    exp.LT,
    exp.LTE,
    exp.In,
    exp.Between,
    exp.Is,
    exp.Like,
)


def _restricts(condition: exp.Expr) -> bool:
    """Whether ``condition`` can only hold for rows selected by a column's value: a conjunct
    that does, or an OR whose every branch does. A comparison restricts when one side is a bare
    column and the other names no column of the row (a literal, a parameter, a subquery)."""
    if isinstance(condition, exp.Paren):
        return _restricts(condition.this)
    if isinstance(condition, exp.And):
        return _restricts(condition.this) or _restricts(condition.expression)
    if isinstance(condition, exp.Or):
        return _restricts(condition.this) and _restricts(condition.expression)
    if not isinstance(condition, _RESTRICTING):
        return False
    column, others = (
        condition.this,
        [v for k, v in condition.args.items() if k != "this" and v is not None],
    )
    if (
        not isinstance(column, exp.Column)
        and len(others) == 1
        and isinstance(others[0], exp.Column)
    ):
        column, others = others[0], [condition.this]  # 5 = id
    return isinstance(column, exp.Column) and all(_row_free(o) for o in others)


def _row_free(value: Any) -> bool:
    """No column of the row being changed in ``value`` (a subquery's own columns are its own)."""
    values = value if isinstance(value, list) else [value]
    return all(
        not isinstance(node, exp.Column)
        for v in values
        if isinstance(v, exp.Expr)
        for node in v.walk(prune=lambda n: isinstance(n, (exp.Subquery, exp.Select)))
    )


def execution_time_ms(expression: exp.Expr, ctx: SessionContext, ceiling: int = 0) -> int:
    """The time limit of ``expression`` in milliseconds (0: none): only a top-level query has one
    (MySQL: read-only SELECT), its own hint first, else the session's max_execution_time; never
    above ``ceiling`` when that is set (the global value, for users without ADMIN)."""
    if not isinstance(_unwrapped(expression), LIMITABLE):
        return 0
    limit = _requested_time_ms(expression, ctx)
    return limit if ceiling <= 0 or 0 < limit <= ceiling else ceiling


def _unwrapped(expression: exp.Expr) -> exp.Expr:
    while isinstance(expression, exp.Subquery):
        expression = expression.this
    return expression


def _requested_time_ms(expression: exp.Expr, ctx: SessionContext) -> int:
    first = _unwrapped(expression)
    while isinstance(first, (exp.Union, exp.Intersect, exp.Except, exp.Subquery)):
        first = first.this  # a set operation's hint is its first SELECT's, as MySQL reads it
    hinted = _hinted_time(first) if isinstance(first, exp.Select) else None
    if hinted is not None:
        return hinted
    try:
        return max(int(_variable(ctx, "max_execution_time") or 0), 0)
    except (TypeError, ValueError):
        return 0


def _hinted_time(select: exp.Select) -> int | None:
    """``/*+ MAX_EXECUTION_TIME(n) */`` right after SELECT; the last one wins, as in MySQL."""
    hint = select.args.get("hint")
    found = None
    for item in hint.expressions if isinstance(hint, exp.Hint) else []:
        if (
            isinstance(item, exp.Anonymous)
            and str(item.this).upper() == "MAX_EXECUTION_TIME"
            and len(item.expressions) == 1
            and isinstance(item.expressions[0], exp.Literal)
            and not item.expressions[0].is_string
            and item.expressions[0].this.isdigit()
        ):
            found = int(item.expressions[0].this)
    return found
