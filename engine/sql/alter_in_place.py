"""The ALTER TABLE clauses DuckDB carries out in place, without copying the rows (MySQL's INSTANT
/ INPLACE changes): RENAME TO, ADD COLUMN at the end (nullable, no key), DROP COLUMN (of a table
without PRIMARY/UNIQUE keys, in no check), RENAME COLUMN (in no key), ALTER COLUMN SET/DROP
DEFAULT, and the clauses only the data dictionary keeps (INDEX keys, foreign keys, comments, table
options).

DuckDB refuses every ALTER once the table has an index of its own (CREATE INDEX): such a table,
and any other clause, is rebuilt (engine/sql/mysql_alter.py).
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from drydock.engine.dictionary.alter import AlterPlan, check_columns
from drydock.engine.dictionary.model import TableDef
from drydock.engine.session import INTERNAL
from drydock.engine.sql.identifiers import quoted
from drydock.engine.sql.column_types import duckdb_sql, duckdb_type

# clauses whose whole effect is on the definition: DuckDB's table does not change
_DEFINITION_ONLY = (
    exp.AlgorithmProperty,
    exp.LockProperty,
    exp.EngineProperty,
    exp.CharacterSetProperty,
    exp.CollateProperty,
    exp.SchemaCommentProperty,
    exp.RenameIndex,
)


def statements(
    cursor: Any, schema: str, old: TableDef, plan: AlterPlan, clauses: list[exp.Expr]
) -> list[str] | None:
    """DuckDB's ALTERs doing what ``clauses`` do to ``old``, or None when the table must be
    rebuilt."""
    if plan.auto_increment_start is not None or _has_indexes(cursor, schema, old.name):
        return None
    table = f"{INTERNAL}.{quoted(schema)}.{quoted(old.name)}"
    in_keys = {p.column.lower() for k in old.keys if k.unique for p in k.parts}
    out: list[str] = []
    for clause in clauses:
        sql = _statement(clause, table, old, plan, in_keys)
        if sql is None:
            return None
        out.extend(sql)
    return out


def _statement(
    clause: exp.Expr, table: str, old: TableDef, plan: AlterPlan, in_keys: set[str]
) -> list[str] | None:
    if isinstance(clause, _DEFINITION_ONLY) or type(clause).__name__ == "AlterKeys":
        return []
    if isinstance(clause, exp.AddConstraint):
        kinds = [e for e in clause.expressions if not isinstance(e, exp.IndexColumnConstraint)]
        foreign = all(isinstance(e, exp.ForeignKey) or _is_named_fk(e) for e in kinds)
        return [] if foreign else None
    if isinstance(clause, exp.Drop):
        return _drop(clause, table, old, in_keys)
    if isinstance(clause, exp.AlterRename):
        return [f"ALTER TABLE {table} RENAME TO {quoted(plan.table.name)}"]
    if isinstance(clause, exp.RenameColumn):
        name = clause.this.name
        if name.lower() in in_keys or old.column(name) is None:
            return None
        to = clause.args["to"].name
        return [f"ALTER TABLE {table} RENAME COLUMN {quoted(name)} TO {quoted(to)}"]
    if isinstance(clause, exp.AlterColumn):
        return _alter_column(clause, table, plan)
    if isinstance(clause, exp.ColumnDef):
        return _add_column(clause, table, plan)
    return None


def _is_named_fk(element: exp.Expr) -> bool:
    return isinstance(element, exp.Constraint) and all(
        isinstance(e, exp.ForeignKey) for e in element.expressions
    )


def _drop(clause: exp.Drop, table: str, old: TableDef, in_keys: set[str]) -> list[str] | None:
    kind = str(clause.args.get("kind") or "COLUMN").upper()
    if kind in ("FOREIGN KEY",):
        return []
    if kind == "INDEX":
        keys = [old.key(t.name) for t in clause.args.get("tables") or []]
        return None if any(k is not None and k.unique for k in keys) else []
    if kind != "COLUMN":
        return None
    out = []
    for target in clause.args.get("tables") or []:
        column = old.column(target.name)
        if column is None:
            continue  # DROP COLUMN IF EXISTS of a missing column (apply_alter refused the rest)
        checked = any(column.name.lower() in check_columns(c) for c in old.checks)
        # any PRIMARY/UNIQUE key: DuckDB's index of it refuses the drop of a column before its
        # own ("an index depends on a column after it"), so such a table is rebuilt
        if in_keys or column.auto_increment or checked:
            return None
        out.append(f"ALTER TABLE {table} DROP COLUMN {quoted(column.name)}")
    return out


def _alter_column(clause: exp.AlterColumn, table: str, plan: AlterPlan) -> list[str] | None:
    column = plan.table.column(clause.this.name)
    if column is None or column.auto_increment:
        return None
    prefix = f"ALTER TABLE {table} ALTER COLUMN {quoted(column.name)}"
    if column.default is None:
        return [f"{prefix} DROP DEFAULT"]
    return [f"{prefix} SET DEFAULT {duckdb_sql(column.default)}"]


def _add_column(clause: exp.ColumnDef, table: str, plan: AlterPlan) -> list[str] | None:
    column = plan.table.column(clause.name)
    if (
        column is None
        or clause.args.get("position") is not None
        or not column.nullable
        or column.auto_increment
        or column.on_update
        or (column.collation and column.is_string)
        or any(column.name.lower() in {c.lower() for c in k.columns} for k in plan.table.keys)
        or any(
            isinstance(c.args.get("kind"), exp.CheckColumnConstraint) for c in _constraints(clause)
        )
    ):
        return None
    text = f"ALTER TABLE {table} ADD COLUMN {quoted(column.name)} {duckdb_type(column)}"
    if column.default is not None:
        text += f" DEFAULT {duckdb_sql(column.default)}"
    return [text]


def _constraints(clause: exp.ColumnDef) -> list[exp.Expr]:
    return list(clause.args.get("constraints") or [])


def _has_indexes(cursor: Any, schema: str, table: str) -> bool:
    rows = cursor.execute(
        "SELECT count(*) FROM duckdb_indexes() WHERE database_name = ? AND schema_name = ? "
        "AND table_name = ?",
        [INTERNAL, schema, table],
    ).fetchall()
    return bool(rows[0][0])
