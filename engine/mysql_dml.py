"""MySQL's INSERT variants on DuckDB, rewritten on the sqlglot AST (MySQL 8.0 manual 15.2.7, 15.2.12):

- ``INSERT IGNORE`` → ``INSERT OR IGNORE`` (rows that collide with a key are skipped);
- ``REPLACE [INTO]`` (grammar/sql.py parses it as an INSERT) → ``INSERT OR REPLACE``;
- ``… ON DUPLICATE KEY UPDATE c = VALUES(c)`` → ``… ON CONFLICT DO UPDATE SET c = excluded.c``.

The rewrite (:func:`rewrite`) runs before authorization and changes no relation: the target
still needs LOAD_PRIV (drydock's INSERT/UPDATE/DELETE privilege) and every source SELECT_PRIV.
DuckDB needs a conflict target when a table has more than one unique key; :func:`complete` (at
execution, with the catalog at hand) names the primary key then, as MySQL's REPLACE and ON
DUPLICATE KEY act first on the primary key.

AUTO_INCREMENT: :func:`generated_key_column` finds a column whose default is a drydock sequence
(engine/mysql_ddl.py); an INSERT that leaves it out gets ``RETURNING`` it, so the OK packet and
LAST_INSERT_ID() carry the first generated value, as in MySQL.
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from engine import info_schema
from engine.mysql_ddl import SEQUENCE_PREFIX


def rewrite(expression: exp.Expression) -> exp.Expression:
    """MySQL INSERT forms → DuckDB's, in place (see module docstring)."""
    if not isinstance(expression, exp.Insert):
        return expression
    if expression.args.get("ignore"):
        expression.set("ignore", None)
        expression.set("alternative", "IGNORE")
    conflict = expression.args.get("conflict")
    if isinstance(conflict, exp.OnConflict) and conflict.args.get("duplicate"):
        assignments = [a.copy() for a in conflict.expressions]
        for assignment in assignments:
            for call in list(assignment.find_all(exp.Anonymous)):
                if str(call.name).upper() == "VALUES" and len(call.expressions) == 1:
                    call.replace(exp.column(_column_name(call.expressions[0]), table="excluded"))
        expression.set("conflict", exp.OnConflict(action=exp.var("DO UPDATE"), expressions=assignments))
    return expression


def _column_name(node: exp.Expression) -> str:
    return node.name if isinstance(node, (exp.Column, exp.Identifier)) else node.sql()


def target_table(insert: exp.Insert) -> exp.Table | None:
    node = insert.this
    node = node.this if isinstance(node, exp.Schema) else node
    return node if isinstance(node, exp.Table) else None


def complete(insert: exp.Insert, cursor: Any, schema: str) -> None:
    """Name the primary key as the conflict target when DuckDB needs one (see module docstring)."""
    table = target_table(insert)
    conflict = insert.args.get("conflict")
    needs_target = insert.args.get("alternative") == "REPLACE" or (
        isinstance(conflict, exp.OnConflict) and not conflict.args.get("conflict_keys"))
    if table is None or not needs_target:
        return
    rows = cursor.execute(
        "SELECT constraint_type, constraint_column_names FROM duckdb_constraints() "
        "WHERE database_name = ? AND schema_name = ? AND table_name = ? "
        "AND constraint_type IN ('PRIMARY KEY', 'UNIQUE')",
        [info_schema.INTERNAL, schema, table.name]).fetchall()
    if len(rows) < 2:
        return  # zero or one key: DuckDB picks it itself
    primary = [r[1] for r in rows if r[0] == "PRIMARY KEY"]
    if not primary:
        return
    keys = [exp.to_identifier(c) for c in primary[0]]
    if insert.args.get("alternative") == "REPLACE":
        columns = _insert_columns(insert, cursor, schema, table.name)
        insert.set("alternative", None)
        insert.set("conflict", exp.OnConflict(
            action=exp.var("DO UPDATE"), conflict_keys=keys,
            expressions=[exp.EQ(this=exp.column(c), expression=exp.column(c, table="excluded"))
                         for c in columns if c not in primary[0]]))
    elif isinstance(conflict, exp.OnConflict):
        conflict.set("conflict_keys", keys)


def _insert_columns(insert: exp.Insert, cursor: Any, schema: str, table: str) -> list[str]:
    if isinstance(insert.this, exp.Schema) and insert.this.expressions:
        return [c.name for c in insert.this.expressions]
    return [r[0] for r in cursor.execute(
        "SELECT column_name FROM duckdb_columns() WHERE database_name = ? AND schema_name = ? "
        "AND table_name = ? ORDER BY column_index", [info_schema.INTERNAL, schema, table]).fetchall()]


def generated_key_column(insert: exp.Insert, cursor: Any, schema: str) -> str | None:
    """The AUTO_INCREMENT column an INSERT into an internal table leaves to its sequence, else None."""
    table = target_table(insert)
    if table is None or insert.args.get("returning") is not None:
        return None
    rows = cursor.execute(
        "SELECT column_name FROM duckdb_columns() WHERE database_name = ? AND schema_name = ? "
        "AND table_name = ? AND column_default LIKE ?",
        [info_schema.INTERNAL, schema, table.name, f"%nextval(%{SEQUENCE_PREFIX}%"]).fetchall()
    if not rows:
        return None
    column = str(rows[0][0])
    named = insert.this.expressions if isinstance(insert.this, exp.Schema) else None
    if not named or any(c.name.lower() == column.lower() for c in named):
        return None  # the statement gives the column's values itself
    return column
