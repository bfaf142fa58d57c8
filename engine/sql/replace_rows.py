"""REPLACE on an internal table as MySQL 8 runs it (manual 15.2.12; sql_insert.cc write_record).

MySQL takes the statement's rows one by one. It tries to insert a row; when a unique key (the
first of the table's unique keys, in MySQL's key order, that holds a duplicate) refuses it, it
deletes the old row and tries again — except when that key is the table's last unique key (and
no foreign key references the table): then it updates the old row in place to the new values,
and a row that does not change is not counted. Affected rows = rows given + rows deleted (or
changed in place); the info string is ``Records: <rows given>  Duplicates: <that second count>
Warnings: 0``. So a REPLACE of an existing row of a table with one unique key counts 2, of an
identical one 1, and a row colliding with two rows through two keys counts 3.

Here (:func:`run`): the statement's rows are first inserted into a temporary table shaped as the
target, with the target's defaults (so columns left out take their defaults, and AUTO_INCREMENT
values are drawn as MySQL draws them); then they are applied in runs of consecutive rows that do
not collide with each other (:func:`_runs`; usually one run): the old rows a run collides with
counted and deleted, its new rows inserted, each run against the table as the runs before left
it. Keys compare exactly, as DuckDB's index does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp

from drydock.engine.dictionary.model import TableDef
from drydock.engine.session import INTERNAL
from drydock.engine.sql import mysql_dml
from drydock.engine.sql.identifiers import quoted

STAGE = "__drydock_replace_rows"
_STAGE_SQL = f"temp.main.{STAGE}"

KeyColumns = tuple[tuple[str, int | None], ...]  # (column, prefix length or None)
# the statements to run before deleting the target's rows where a condition (SQL on alias ``t``)
# holds: the FOREIGN KEY actions of the children (engine/sql/enforce_foreign_keys.py), or 1451
Deleting = Callable[[str, Any], list[str]]


@dataclass(frozen=True)
class ReplacePlan:
    """What a REPLACE needs of its table: its unique keys in MySQL's order (unique keys of NOT
    NULL columns first, the primary key first among them, then in declared order), and whether
    a foreign key references it (MySQL then always deletes, so an unchanged row counts too)."""

    keys: tuple[KeyColumns, ...] = ()
    always_counts: bool = False


@dataclass
class Replaced:
    records: int  # the rows the statement gave
    deleted: int  # the old rows deleted or changed in place
    returned: list[tuple[Any, ...]] = field(default_factory=list)  # RETURNING the AI column


def plan(
    definition: TableDef | None, referenced: bool, cursor: Any, schema: str, table: str
) -> ReplacePlan:
    """The table's :class:`ReplacePlan`: from its data dictionary definition, else from
    DuckDB's constraints (primary key first)."""
    if definition is not None:
        nullable = {c.name.lower(): c.nullable for c in definition.columns}
        ranked = []
        for position, key in enumerate(definition.keys):
            if key.kind not in ("PRIMARY", "UNIQUE"):
                continue
            parts = tuple((p.column, p.prefix) for p in key.parts)
            rank = (
                any(nullable.get(c.lower(), True) for c, _ in parts) and key.kind != "PRIMARY",
                key.kind != "PRIMARY",
                any(prefix is not None for _, prefix in parts),
                position,
            )
            ranked.append((rank, parts))
        return ReplacePlan(tuple(parts for _, parts in sorted(ranked)), referenced)
    rows = cursor.execute(
        "SELECT constraint_type, constraint_column_names FROM duckdb_constraints() "
        "WHERE database_name = ? AND schema_name = ? AND table_name = ? "
        "AND constraint_type IN ('PRIMARY KEY', 'UNIQUE') ORDER BY constraint_index",
        [INTERNAL, schema, table],
    ).fetchall()
    ordered = [r for r in rows if r[0] == "PRIMARY KEY"] + [
        r for r in rows if r[0] != "PRIMARY KEY"
    ]
    return ReplacePlan(tuple(tuple((str(c), None) for c in r[1]) for r in ordered), referenced)


def run(
    cursor: Any,
    insert: exp.Insert,
    replace: ReplacePlan,
    key: mysql_dml.AutoIncrement | None,
    deleting: Deleting | None = None,
) -> Replaced:
    """Run the REPLACE ``insert`` (see module docstring) on ``cursor``, inside the caller's
    transaction. ``deleting``: the foreign keys' actions (or refusal) when old rows go."""
    table = mysql_dml.target_table(insert)
    assert table is not None
    target = table.sql(dialect="duckdb")
    columns = _stored_columns(cursor, table)
    names = ", ".join(quoted(c) for c, _ in columns)
    cursor.execute(f"CREATE OR REPLACE TEMP TABLE {STAGE} AS SELECT {names} FROM {target} LIMIT 0")
    try:
        for column, default in columns:
            if default is not None:
                cursor.execute(
                    f"ALTER TABLE {_STAGE_SQL} ALTER COLUMN {quoted(column)} SET DEFAULT {default}"
                )
        staged = insert.copy()
        staged.set("alternative", None)
        staged.set("conflict", None)
        mysql_dml.target_table(staged).replace(  # type: ignore[union-attr]
            exp.table_(STAGE, db="main", catalog="temp")
        )
        returned = cursor.execute(staged.sql(dialect="duckdb")).fetchall()
        records = int(cursor.execute(f"SELECT count(*) FROM {_STAGE_SQL}").fetchall()[0][0])
        if key is None or not key.generates:
            returned = []
        stored = [c for c, _ in columns]
        deleted = _apply_all(cursor, target, names, replace, stored, records, deleting)
    finally:
        cursor.execute(f"DROP TABLE IF EXISTS {_STAGE_SQL}")
    return Replaced(records, deleted, returned)


def _apply_all(
    cursor: Any,
    target: str,
    names: str,
    replace: ReplacePlan,
    columns: list[str],
    records: int,
    deleting: Deleting | None,
) -> int:
    if records == 0:
        return 0
    runs = [None] if records == 1 or not replace.keys else _runs(cursor, target, replace)
    return sum(_apply(cursor, target, names, replace, columns, run, deleting) for run in runs)


def _runs(cursor: Any, target: str, replace: ReplacePlan) -> list[tuple[int, int] | None]:
    """The new rows cut into runs of consecutive rows (first and last stage rowid) in which no
    row shares a key value with another, no two collide with the same old row, and at most one
    shares a key value with a row of an earlier run (which the table holds by then): applying a
    run at once is then what applying its rows one by one does. [None] (all at once) when
    nothing needs cutting."""
    window = "ORDER BY {} ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING"
    # per new row: the last earlier row sharing a key value with it (d), and the last earlier
    # row colliding with an old row it collides with (o)
    earlier = []
    for parts in replace.keys:
        values = ", ".join(_part("s", c, p) for c, p in parts)
        present = " AND ".join(f"{_part('s', c, p)} IS NOT NULL" for c, p in parts)
        earlier.append(
            f"SELECT rowid AS sr, max(rowid) OVER (PARTITION BY {values} "
            f"{window.format('rowid')}) AS d, NULL AS o FROM {_STAGE_SQL} s WHERE {present}"
        )
    pairs = _pairs(target, replace, [], None)
    earlier.append(
        f"SELECT sr, NULL AS d, max(sr) OVER (PARTITION BY tr {window.format('sr')}) AS o "
        f"FROM (SELECT DISTINCT tr, sr FROM ({pairs}))"
    )
    rows = cursor.execute(
        f"SELECT sr, max(d), max(o) FROM ({' UNION ALL '.join(earlier)}) GROUP BY sr "
        "HAVING max(d) IS NOT NULL OR max(o) IS NOT NULL ORDER BY sr"
    ).fetchall()
    if not rows:
        return [None]
    last = int(cursor.execute(f"SELECT max(rowid) FROM {_STAGE_SQL}").fetchall()[0][0])
    runs: list[tuple[int, int] | None] = []
    start, chained = 0, False
    for row, shares, collides in rows:
        row, shares = int(row), -1 if shares is None else int(shares)
        cut = shares >= start or (collides is not None and int(collides) >= start)
        if not cut and shares >= 0:  # shares a key value with a row of an earlier run
            cut, chained = chained, True
        if cut:
            runs.append((start, row - 1))
            start, chained = row, shares >= 0
    runs.append((start, last))
    return runs


def _apply(
    cursor: Any,
    target: str,
    names: str,
    replace: ReplacePlan,
    columns: list[str],
    run: tuple[int, int] | None,
    deleting: Deleting | None,
) -> int:
    """Delete the old rows the new rows (all, or the ``run`` of stage rowids) collide with and
    insert the new rows; returns MySQL's count of the old rows (see module docstring)."""
    counted = 0
    where = "" if run is None else f" WHERE rowid BETWEEN {run[0]} AND {run[1]}"
    if replace.keys:
        pairs = _pairs(target, replace, columns, run)
        last = len(replace.keys)
        kept = "false" if replace.always_counts else f"k = {last} AND same"
        rows = cursor.execute(
            f"SELECT count(*) FILTER (WHERE NOT ({kept})) FROM (SELECT tr, sr, min(k) AS k, "
            f"bool_and(same) AS same FROM ({pairs}) GROUP BY tr, sr)"
        ).fetchall()
        counted = int(rows[0][0] or 0)
        doomed = f"t.rowid IN (SELECT tr FROM ({pairs}))"
        for statement in deleting(doomed, cursor) if deleting is not None and counted else []:
            cursor.execute(statement)  # a child's CASCADE / SET NULL (a refusal raised 1451)
        cursor.execute(f"DELETE FROM {target} AS t WHERE {doomed}")
    cursor.execute(
        f"INSERT INTO {target} ({names}) SELECT {names} FROM {_STAGE_SQL}{where} ORDER BY rowid"
    )
    return counted


def _pairs(
    target: str, replace: ReplacePlan, columns: list[str], run: tuple[int, int] | None
) -> str:
    """(tr: old row's rowid, sr: new row's rowid, k: the key's place, same: the rows are equal)
    for each key on which an old row collides with a new one."""
    same = (
        " AND ".join(f"t.{quoted(c)} IS NOT DISTINCT FROM s.{quoted(c)}" for c in columns)
        or "false"
    )
    only = "" if run is None else f" AND s.rowid BETWEEN {run[0]} AND {run[1]}"
    return " UNION ALL ".join(
        f"SELECT t.rowid AS tr, s.rowid AS sr, {place} AS k, ({same}) AS same "
        f"FROM {target} t JOIN {_STAGE_SQL} s ON "
        + " AND ".join(f"{_part('t', c, p)} = {_part('s', c, p)}" for c, p in parts)
        + only
        for place, parts in enumerate(replace.keys, start=1)
    )


def _part(alias: str, column: str, prefix: int | None) -> str:
    value = f"{alias}.{quoted(column)}"
    return value if prefix is None else f"left(CAST({value} AS VARCHAR), {int(prefix)})"


def _stored_columns(cursor: Any, table: exp.Table) -> list[tuple[str, str | None]]:
    """(column, DuckDB's default expression) of each stored column, in table order."""
    return [
        (str(r[0]), None if r[1] is None else str(r[1]))
        for r in cursor.execute(
            "SELECT column_name, column_default FROM duckdb_columns() WHERE database_name = ? "
            "AND schema_name = ? AND table_name = ? AND NOT is_generated ORDER BY column_index",
            [table.text("catalog") or INTERNAL, table.text("db"), table.name],
        ).fetchall()
    ]
