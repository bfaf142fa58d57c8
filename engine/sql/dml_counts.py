"""MySQL's counts for the OK packet of an UPDATE or INSERT on an internal table (MySQL 8.0 manual
15.2.7, 15.2.17; the C API's mysql_info() and mysql_affected_rows()):

- UPDATE: the affected rows are the rows *changed*; a client that set CLIENT_FOUND_ROWS gets the
  rows *matched*; the info string says ``Rows matched: M  Changed: C  Warnings: W``. DuckDB counts
  the rows matched; the rows changed are counted just before the UPDATE, on the same snapshot when
  a transaction is open, by :func:`changed_rows_query` (the matched rows where an assignment
  gives a value IS DISTINCT FROM the old one). An UPDATE with ORDER BY / LIMIT or a join is
  counted as changing every row it matches.
- INSERT with several rows or from a SELECT (also REPLACE, IGNORE, ON DUPLICATE KEY UPDATE):
  ``Records: R  Duplicates: D  Warnings: W``. IGNORE: R rows given, D skipped, affected = the
  rows inserted. REPLACE: affected = R + D, D the old rows deleted or changed in place, which
  engine/sql/replace_rows.py counts (:func:`replace_result`). ON DUPLICATE KEY UPDATE:
  affected = inserted + 2 × changed, + 1 per unchanged duplicate for a client that set
  CLIENT_FOUND_ROWS; its info's Duplicates are the changed rows (all duplicates under
  CLIENT_FOUND_ROWS), as MySQL's sql_insert.cc counts them. For ON DUPLICATE KEY UPDATE the
  table's rows are counted before and after the INSERT, in one transaction
  (:func:`table_count_sql`): inserted = after − before. With VALUES, engine/sql/mysql_dml.py
  gives DuckDB's DO UPDATE a WHERE that skips a duplicate the assignments would not change, so
  DuckDB's count is inserted + changed; from a SELECT source (whose rows are not counted) every
  duplicate counts as changed.
"""

from __future__ import annotations

from sqlglot import exp

from drydock.engine.results import OkInfo, Result
from drydock.engine.sql import mysql_dml
from drydock.engine.sql.runtime_warnings import without_warnings


def changed_rows_query(update: exp.Expr) -> exp.Select | None:
    """``SELECT count(*) FROM t WHERE (<where>) AND (a IS DISTINCT FROM <new a> OR …)`` for a
    single-table UPDATE without ORDER BY / LIMIT; None for other statements. It records none
    of the UPDATE's row warnings (engine/sql/runtime_warnings.py): the UPDATE raises them."""
    if not isinstance(update, exp.Update) or not isinstance(update.this, exp.Table):
        return None
    if any(update.args.get(k) for k in ("from_", "order", "limit", "with_", "returning")):
        return None
    assignments = update.expressions
    if not assignments or not all(
        isinstance(a, exp.EQ) and isinstance(a.this, exp.Column) for a in assignments
    ):
        return None
    changed = exp.or_(
        *[
            exp.NullSafeNEQ(this=a.this.copy(), expression=without_warnings(a.expression))
            for a in assignments
        ]
    )
    where = update.args.get("where")
    if where is not None:
        where = without_warnings(where.this)
    condition = changed if where is None else exp.and_(exp.paren(where), changed)
    return exp.select(exp.Count(this=exp.Star())).from_(update.this.copy()).where(condition)


def table_count_sql(insert: exp.Expr) -> str | None:
    """``SELECT count(*) FROM <target>`` for an INSERT … ON DUPLICATE KEY UPDATE (after
    engine/sql/mysql_dml.py's rewrite), whose inserted rows it tells from the updated ones; None
    for other statements."""
    if not isinstance(insert, exp.Insert) or not _splits(insert):
        return None
    table = mysql_dml.target_table(insert)
    if table is None:
        return None
    target = exp.table_(
        table.name, db=table.text("db") or None, catalog=table.text("catalog") or None
    )
    return exp.select(exp.Count(this=exp.Star())).from_(target).sql(dialect="duckdb")


def _splits(insert: exp.Insert) -> bool:
    conflict = insert.args.get("conflict")
    return isinstance(conflict, exp.OnConflict) and "UPDATE" in str(
        conflict.args.get("action") or ""
    )


def _values_rows(insert: exp.Insert) -> int | None:
    """The rows of ``VALUES (…), (…)``; None for INSERT … SELECT. INSERT IGNORE whose skipped
    rows engine/sql/enforcement.py removed keeps the statement's own count in its meta."""
    if "values_rows" in insert.meta:
        return int(insert.meta["values_rows"])
    source = insert.expression
    return len(source.expressions) if isinstance(source, exp.Values) else None


def _sends_info(insert: exp.Insert) -> bool:
    """MySQL sends the Records line for several VALUES rows or a SELECT source."""
    rows = _values_rows(insert)
    return rows is None or rows > 1


def replace_result(insert: exp.Insert, records: int, deleted: int) -> Result:
    """The OK of a REPLACE (engine/sql/replace_rows.py): affected = the rows given + the old
    rows deleted or changed in place; ``Records: R  Duplicates: D``."""
    return Result.ok(
        affected_rows=records + deleted,
        info=OkInfo(records=records, duplicates=deleted) if _sends_info(insert) else None,
    )


def update_result(matched: int, changed: int | None) -> Result:
    changed = matched if changed is None else min(changed, matched)
    return Result.ok(
        affected_rows=changed,
        info=OkInfo(matched=matched, changed=changed),
        found_rows_affected=matched,
    )


def insert_result(insert: exp.Insert, count: int, before: int | None, after: int | None) -> Result:
    """The OK of an INSERT DuckDB reported ``count`` for (see module docstring)."""
    records, inserted = count, count
    if before is not None and after is not None and _splits(insert):
        inserted = max(after - before, 0)
    elif insert.args.get("alternative") == "IGNORE":
        # INSERT IGNORE … SELECT: the source rows engine/sql/enforce_insert_select.py skipped
        records = _values_rows(insert) or count + int(insert.meta.get("skipped_rows") or 0)
    values_rows = _values_rows(insert)
    skips_unchanged = _skips_unchanged(insert) and values_rows is not None
    if skips_unchanged:
        records = values_rows or count
    duplicates = max(records - inserted, 0)
    found_rows: int | None = None
    info = OkInfo(records=records, duplicates=duplicates)
    if _splits(insert):
        changed = max(count - inserted, 0) if skips_unchanged else duplicates
        affected = inserted + 2 * changed
        found_rows = affected + (duplicates - changed)  # CLIENT_FOUND_ROWS: unchanged count 1
        info = OkInfo(records=records, duplicates=changed, found_duplicates=duplicates)
    else:
        affected = inserted
    return Result.ok(
        affected_rows=affected,
        info=info if _sends_info(insert) else None,
        found_rows_affected=found_rows,
    )


def _skips_unchanged(insert: exp.Insert) -> bool:
    conflict = insert.args.get("conflict")
    return isinstance(conflict, exp.OnConflict) and conflict.args.get("where") is not None
