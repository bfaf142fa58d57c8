"""The SQL side of engine/sql/enforcement.py for statements whose values DuckDB computes (UPDATE
… SET c = expr): which rows may break a column's rule (a filter DuckDB runs, so only those rows
reach Python), the clipping non-strict mode applies in the assignment, and key collisions of
the new values under the collation.
"""

from __future__ import annotations

import unicodedata
from decimal import Decimal
from typing import Any

import sqlglot
from sqlglot import exp

from drydock.engine.dictionary.model import (
    BINARY_TYPES,
    INTEGER_TYPES,
    STRING_TYPES,
    ColumnDef,
    KeyDef,
    TableDef,
)
from drydock.engine.sql import time_columns
from drydock.engine.sql.enforce_values import implicit_default
from drydock.engine.sql.identifiers import quoted
from drydock.engine.sql.mysql_casts import CLAMP


def insensitive(column: ColumnDef, table: TableDef) -> bool:
    """Whether the column compares case-insensitively (a ``_ci`` collation, the default)."""
    if column.data_type not in STRING_TYPES and column.data_type not in ("enum", "set"):
        return False
    return (column.collation or table.collation or "").lower().endswith("_ci")


def fold(text: str) -> str:
    """The comparison form of a string under utf8mb4_0900_ai_ci: accents and case dropped (as
    DuckDB's ``lower(strip_accents(…))`` does for the stored rows)."""
    decomposed = unicodedata.normalize("NFD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


# rows a statement reads back to judge in Python at most; a strict statement stops at the first
SUSPECT_ROWS = 10_000


def _string(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def sql_literal(value: Any) -> str:
    """A Python value as DuckDB literal text (standard strings: only the quote is doubled),
    written directly: sqlglot's generator costs ~0.2 ms a value, a 1,000-row probe 600 ms."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, Decimal)):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, bytes):
        return _string(value.decode(errors="replace"))
    return _string(str(value))


def suspect(column: ColumnDef, value: str) -> str | None:
    """A DuckDB condition true when ``value`` (SQL) may break ``column``'s rules, or None."""
    kind = column.data_type
    checks = []
    if not column.nullable and not column.auto_increment:
        checks.append(f"({value}) IS NULL")
    limit = column.character_maximum_length()
    if kind in STRING_TYPES and limit is not None:
        checks.append(f"length(CAST({value} AS VARCHAR)) > {limit}")
    elif kind in BINARY_TYPES and limit is not None:
        checks.append(f"octet_length(CAST({value} AS BLOB)) > {limit}")
    elif kind == "enum":
        members = ", ".join(_string(m) for m in column.values)
        checks.append(f"CAST({value} AS VARCHAR) NOT IN ({members})")
    elif kind == "set":
        members = ", ".join(_string(m) for m in column.values)
        checks.append(f"NOT list_has_all([{members}], string_split(CAST({value} AS VARCHAR), ','))")
    elif kind in INTEGER_TYPES and (bounds := column.integer_range()) is not None:
        low, high = bounds
        checks.append(f"NOT coalesce(TRY_CAST({value} AS HUGEINT) BETWEEN {low} AND {high}, TRUE)")
    elif kind == "decimal" and column.precision is not None:
        scale = column.scale or 0
        top = 10 ** (column.precision - scale)
        checks.append(f"abs(TRY_CAST({value} AS DOUBLE)) >= {top} - 0.5 / {10**scale}")
        if column.unsigned:
            checks.append(f"TRY_CAST({value} AS DOUBLE) < 0")
    elif kind == "time":
        checks.append(time_columns.suspect_sql(value, column.fsp or 0))
    return " OR ".join(f"coalesce({c}, FALSE)" for c in checks) if checks else None


def suspect_rows(
    cursor: Any, update: exp.Update, assignments: list[tuple[exp.EQ, ColumnDef]]
) -> list[tuple[int, tuple[Any, ...]]]:
    """(row number, new values) of the rows ``update`` changes whose new values may break a
    rule, in the order DuckDB reads them."""
    values = [a.expression.sql(dialect="duckdb") for a, _c in assignments]
    conditions = [
        condition
        for i, (_a, column) in enumerate(assignments)
        if (condition := suspect(column, f"v{i}")) is not None
    ]
    if not conditions:
        return []
    where = update.args.get("where")
    where_sql = f" WHERE {where.this.sql(dialect='duckdb')}" if where is not None else ""
    selected = ", ".join(f"{v} AS v{i}" for i, v in enumerate(values))
    numbered = (
        f"SELECT row_number() OVER () AS n, {selected} "
        f"FROM {update.this.sql(dialect='duckdb')}{where_sql}"
    )
    return _first_suspects(cursor, numbered, conditions)


def clip(assignment: exp.EQ, column: ColumnDef) -> None:
    """Wrap the assigned value in what non-strict MySQL stores for it."""
    value = assignment.expression.sql(dialect="duckdb")
    kind = column.data_type
    limit = column.character_maximum_length()
    if kind in STRING_TYPES and limit is not None:
        value = f"left(CAST({value} AS VARCHAR), {limit})"
    elif kind in INTEGER_TYPES and (bounds := column.integer_range()) is not None:
        value = f"{CLAMP}(TRY_CAST({value} AS HUGEINT), {bounds[0]}, {bounds[1]})"
    elif kind == "decimal" and column.precision is not None:
        scale = column.scale or 0
        top = f"{10 ** (column.precision - scale)} - {1 / 10**scale}"
        low = "0" if column.unsigned else f"-({top})"
        value = f"{CLAMP}(CAST({value} AS DOUBLE), {low}, {top})"
    elif kind == "time":
        value = time_columns.stored_sql(value, column.fsp or 0)
    elif kind == "enum":
        cases = " ".join(f"WHEN {_string(m.lower())} THEN {_string(m)}" for m in column.values)
        # a non-member is '' (index 0); NULL stays NULL
        value = (
            f"CASE WHEN ({value}) IS NULL THEN NULL ELSE "
            f"CASE lower(CAST({value} AS VARCHAR)) {cases} ELSE '' END END"
        )
    if not column.nullable and not column.auto_increment:
        default = implicit_default(column)
        if default is not None:
            literal = str(default) if isinstance(default, int) else _string(str(default))
            value = f"coalesce({value}, {literal})"
    assignment.set("expression", sqlglot.parse_one(value, read="duckdb"))


def update_collision(cursor: Any, update: exp.Update, table: TableDef, key: KeyDef) -> str | None:
    """The new key (as MySQL shows it, parts joined by '-') that two rows would share after
    ``update``, comparing strings under the collation; None when none."""
    assigned = {
        a.this.name.lower(): a.expression.sql(dialect="duckdb")
        for a in update.expressions
        if isinstance(a, exp.EQ) and isinstance(a.this, exp.Column)
    }
    old, new, shown = [], [], []
    for name in key.columns:
        column = table.column(name)
        folded = column is not None and insensitive(column, table)
        current = quoted(name)
        after = assigned.get(name.lower(), current)

        def norm(sql: str, folded: bool = folded) -> str:
            return f"lower(strip_accents(CAST({sql} AS VARCHAR)))" if folded else f"({sql})"

        old.append(norm(current))
        new.append(norm(after))
        shown.append(f"CAST({after} AS VARCHAR)")
    where = update.args.get("where")
    condition = where.this.sql(dialect="duckdb") if where is not None else "TRUE"
    target = update.this.sql(dialect="duckdb")
    keys = ", ".join(f"k{i}" for i in range(len(old)))
    sql = (
        f"SELECT max(shown) FROM (SELECT {', '.join(f'{o} AS k{i}' for i, o in enumerate(old))}, "
        f"NULL::VARCHAR AS shown FROM {target} WHERE NOT coalesce(({condition}), FALSE) "
        f"UNION ALL SELECT {', '.join(f'{n} AS k{i}' for i, n in enumerate(new))}, "
        f"concat_ws('-', {', '.join(shown)}) FROM {target} WHERE {condition}) "
        f"WHERE {' AND '.join(f'k{i} IS NOT NULL' for i in range(len(old)))} "
        f"GROUP BY {keys} HAVING count(*) > 1 LIMIT 1"
    )
    rows = cursor.execute(sql).fetchall()
    return str(rows[0][0]) if rows and rows[0][0] is not None else None


def select_suspects(
    cursor: Any, source: exp.Expr, columns: list[ColumnDef | None]
) -> list[tuple[int, tuple[Any, ...]]]:
    """(row number, values) of the rows of ``INSERT … SELECT``'s source that may break a rule
    of their target column (``columns`` in the source's order; None: not judged)."""
    names = [f"v{i}" for i in range(len(columns))]
    conditions = [
        condition
        for name, column in zip(names, columns)
        if column is not None and (condition := suspect(column, name)) is not None
    ]
    if not conditions:
        return []
    numbered = (
        f"SELECT row_number() OVER () AS n, * FROM ({source.sql(dialect='duckdb')})"
        f" AS s({', '.join(names)})"
    )
    return _first_suspects(cursor, numbered, conditions)


def _first_suspects(
    cursor: Any, numbered: str, conditions: list[str]
) -> list[tuple[int, tuple[Any, ...]]]:
    """(n, values) of the first rows of ``numbered`` (a query of ``n`` and ``v0, v1, …``) that
    meet any of ``conditions``, in reading order."""
    sql = (
        f"SELECT * FROM ({numbered}) WHERE "
        + " OR ".join(f"({c})" for c in conditions)
        + f" ORDER BY n LIMIT {SUSPECT_ROWS}"
    )
    return [(int(r[0]), tuple(r[1:])) for r in cursor.execute(sql).fetchall()]


def clipped_source(
    source: exp.Expr, columns: list[ColumnDef | None], clip_names: set[str]
) -> exp.Expr:
    """``SELECT clip(v0), … FROM (source) AS s(v0, …)``: the source with the columns named in
    ``clip_names`` clipped as non-strict MySQL stores them."""
    names = [f"v{i}" for i in range(len(columns))]
    projections = []
    for name, column in zip(names, columns):
        if column is not None and column.name.lower() in clip_names:
            assignment = exp.EQ(this=exp.column(column.name), expression=exp.column(name))
            clip(assignment, column)
            projections.append(assignment.expression.sql(dialect="duckdb"))
        else:
            projections.append(name)
    return sqlglot.parse_one(
        f"SELECT {', '.join(projections)} FROM ({source.sql(dialect='duckdb')}) "
        f"AS s({', '.join(names)})",
        read="duckdb",
    )
