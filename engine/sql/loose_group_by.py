"""GROUP BY without ONLY_FULL_GROUP_BY (MySQL 8.0 manual 12.19.3): when the session's sql_mode
lacks it, a selected column that is neither grouped nor inside an aggregate takes any value of its
group, where DuckDB refuses the query (Binder Error). mariadb-dump runs with ``sql_mode = ''``
and sends such a query (its INFORMATION_SCHEMA.FILES lookup selects EXTRA, grouped by five other
columns).

:func:`apply` wraps each such column of a SELECT list in ``ANY_VALUE``. Only plain columns (bare
or aliased) are wrapped; with ONLY_FULL_GROUP_BY on (the default) nothing changes.
"""

from __future__ import annotations

from sqlglot import exp

from drydock.engine.session import SessionContext

_MODE = "ONLY_FULL_GROUP_BY"


def _strict(ctx: SessionContext) -> bool:
    try:
        mode = ctx.variables.get("sql_mode") if ctx.variables is not None else None
    except Exception:  # noqa: BLE001 - a variables object without sql_mode: MySQL's default
        return True
    return mode is None or _MODE in str(mode).upper().split(",")


def apply(expression: exp.Expr, ctx: SessionContext) -> None:
    """In place, on the statement's own AST (see module docstring)."""
    if _strict(ctx):
        return
    for select in expression.find_all(exp.Select):
        group = select.args.get("group")
        if not isinstance(group, exp.Group) or not group.expressions:
            continue
        grouped = {g.sql() for g in group.expressions}
        grouped_names = {g.name.lower() for g in group.expressions if isinstance(g, exp.Column)}
        for projection in select.expressions:
            column = projection.this if isinstance(projection, exp.Alias) else projection
            if not isinstance(column, exp.Column) or isinstance(column.this, exp.Star):
                continue
            if column.sql() in grouped or column.name.lower() in grouped_names:
                continue
            column.replace(exp.AnyValue(this=column.copy()))
