"""What MySQL's information functions say about the previous statement (MySQL 8.0 manual 12.16):
LAST_INSERT_ID(), ROW_COUNT() and FOUND_ROWS(), kept on the session after each statement.

- ROW_COUNT(): the affected rows of a changing statement, -1 after one that returned rows;
- FOUND_ROWS(): the rows the last SELECT returned, or with ``SQL_CALC_FOUND_ROWS`` the rows it
  would have returned without its LIMIT (counted by a second query with the same privileges);
- LAST_INSERT_ID(): the first AUTO_INCREMENT value the last INSERT generated; unchanged by
  statements that generate none.
"""

from __future__ import annotations

from sqlglot import exp

from drydock.engine.results import Result
from drydock.engine.session import SessionContext

_CALC_FOUND_ROWS = "SQL_CALC_FOUND_ROWS"


def record(ctx: SessionContext, result: Result) -> None:
    """After a statement succeeded: remember what the information functions answer next."""
    if result.is_result_set:
        ctx.row_count = -1
        ctx.found_rows = result.found_rows if result.found_rows is not None else len(result.rows)
        if result.stream is not None and result.found_rows is None:  # the count once all are read
            result.stream.on_end.append(lambda rows: setattr(ctx, "found_rows", rows))
    else:
        ctx.row_count = result.affected_rows
    if result.last_insert_id:
        ctx.last_insert_id = result.last_insert_id


def found_rows_query(expression: exp.Expr) -> exp.Expr | None:
    """For ``SELECT SQL_CALC_FOUND_ROWS … LIMIT n``: drop the modifier (in place; DuckDB has
    none) and return ``SELECT count(*) FROM (<the SELECT without LIMIT/OFFSET>)``. None when the
    statement does not ask, or has no LIMIT (then FOUND_ROWS() is simply its row count)."""
    if not isinstance(expression, exp.Select):
        return None
    modifiers = expression.args.get("operation_modifiers") or []
    kept = [m for m in modifiers if m.name.upper() != _CALC_FOUND_ROWS]
    if len(kept) == len(modifiers):
        return None
    expression.set("operation_modifiers", kept or None)
    if not expression.args.get("limit") and not expression.args.get("offset"):
        return None
    unlimited = expression.copy()
    unlimited.set("limit", None)
    unlimited.set("offset", None)
    unlimited.set("order", None)
    return exp.select(exp.Count(this=exp.Star())).from_(
        exp.Subquery(this=unlimited, alias=exp.TableAlias(this=exp.to_identifier("found")))
    )
