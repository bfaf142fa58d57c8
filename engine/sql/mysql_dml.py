"""MySQL's INSERT variants on DuckDB, rewritten on the sqlglot AST (MySQL 8.0 manual 15.2.7,
15.2.12):

- ``INSERT IGNORE`` → ``INSERT OR IGNORE`` (rows that collide with a key are skipped);
- ``REPLACE [INTO]`` (grammar/sql.py parses it as an INSERT) keeps its form: it runs as MySQL
  runs it, row by row against every unique key (engine/sql/replace_rows.py);
- ``… ON DUPLICATE KEY UPDATE c = VALUES(c)`` → ``… ON CONFLICT DO UPDATE SET c = excluded.c``.

The rewrite (:func:`rewrite`) runs before authorization and changes no relation: the target
still needs LOAD_PRIV (drydock's INSERT/UPDATE/DELETE privilege) and every source SELECT_PRIV.
DuckDB needs a conflict target when a table has more than one unique key; :func:`complete` (at
execution, with the catalog at hand) names the primary key then, as MySQL's REPLACE and ON
DUPLICATE KEY acts first on the primary key.

AUTO_INCREMENT: :func:`auto_increment` finds a column whose default is a drydock sequence
(engine/sql/mysql_ddl.py); an INSERT whose values it generates gets ``RETURNING`` it, so the OK
packet
and LAST_INSERT_ID() carry the first generated value, as in MySQL; explicit values move the
sequence past them (:func:`catch_up`).

ON UPDATE CURRENT_TIMESTAMP (manual 13.2.5): an UPDATE of an internal table sets each such
column (engine/sql/mysql_ddl.py marks them) that it does not assign itself to the current time in
the rows where an assigned column's value changes (:func:`on_update_columns`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import sqlglot
from sqlglot import exp

from drydock.engine.session import INTERNAL
from drydock.engine.sql.identifiers import quoted
from drydock.engine.sql.mysql_ddl import ON_UPDATE_MARK
from drydock.engine.sql.table_traits import Traits


def rewrite(expression: exp.Expr) -> exp.Expr:
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
        conflict = exp.OnConflict(action=exp.var("DO UPDATE"), expressions=assignments)
        if isinstance(expression.expression, exp.Values) and all(
            isinstance(a, exp.EQ) and isinstance(a.this, exp.Column) for a in assignments
        ):
            # MySQL leaves (and counts apart) a duplicate the assignments would not change;
            # DuckDB then counts only the rows it inserted or changed (engine/sql/dml_counts.py)
            changes = [
                exp.NullSafeNEQ(this=a.this.copy(), expression=exp.paren(a.expression.copy()))
                for a in assignments
            ]
            conflict.set("where", exp.Where(this=exp.or_(*changes)))
        expression.set("conflict", conflict)
    return expression


def _column_name(node: exp.Expr) -> str:
    return node.name if isinstance(node, (exp.Column, exp.Identifier)) else node.sql()


def target_table(insert: exp.Insert) -> exp.Table | None:
    node = insert.this
    node = node.this if isinstance(node, exp.Schema) else node
    return node if isinstance(node, exp.Table) else None


def complete(insert: exp.Insert, cursor: Any, schema: str) -> None:
    """Name the primary key as the conflict target when DuckDB needs one (see module docstring)."""
    table = target_table(insert)
    conflict = insert.args.get("conflict")
    ignore = insert.args.get("alternative") == "IGNORE"
    needs_target = isinstance(conflict, exp.OnConflict) and not conflict.args.get("conflict_keys")
    if table is None or not (needs_target or ignore):
        return
    rows = cursor.execute(
        "SELECT constraint_type, constraint_column_names FROM duckdb_constraints() "
        "WHERE database_name = ? AND schema_name = ? AND table_name = ? "
        "AND constraint_type IN ('PRIMARY KEY', 'UNIQUE')",
        [INTERNAL, schema, table.name],
    ).fetchall()
    if ignore:
        if not rows:  # no key to collide with: DuckDB refuses OR IGNORE, MySQL ignores nothing
            insert.set("alternative", None)
            insert.meta["ignore"] = True  # still IGNORE for the value rules (enforcement.py)
        return
    primary = [r[1] for r in rows if r[0] == "PRIMARY KEY"] or (
        [rows[0][1]] if len(rows) == 1 else []
    )
    if not primary:
        return  # no key, or several keys none of them primary: DuckDB's own answer
    keys = [exp.to_identifier(c) for c in primary[0]]
    if isinstance(conflict, exp.OnConflict) and len(rows) > 1:
        conflict.set("conflict_keys", keys)


@dataclass
class AutoIncrement:
    """What an INSERT into a table with an AUTO_INCREMENT column does with it."""

    column: str
    sequence: str  # 'schema.__drydock_ai_…', as the column's default names it
    generates: bool  # some row's value comes from the sequence (the INSERT gets RETURNING)
    explicit: set[int] = field(default_factory=set)  # values the statement gives itself
    explicit_unknown: bool = False  # INSERT … SELECT giving the column: read the table's max


def auto_increment(insert: exp.Insert, traits: Traits) -> AutoIncrement | None:
    """The AUTO_INCREMENT column of an INSERT into an internal table, and which of its values
    the sequence generates. As in MySQL (manual 13.6, "Using AUTO_INCREMENT"), NULL, 0 and
    DEFAULT in that column's place generate the next value (they become DEFAULT here); a value
    given explicitly moves the counter past it (:func:`catch_up`)."""
    if traits.auto_increment is None or insert.args.get("returning") is not None:
        return None
    column, sequence = traits.auto_increment
    key = AutoIncrement(column=column, sequence=sequence, generates=False)
    position = traits.columns.index(column)
    named = insert.this.expressions if isinstance(insert.this, exp.Schema) else None
    if named:
        names = [c.name.lower() for c in named]
        if key.column.lower() not in names:
            key.generates = True  # left out: every row's value is generated
            return key
        position = names.index(key.column.lower())
    source = insert.expression
    if not isinstance(source, exp.Values):
        key.explicit_unknown = True
        return key
    for row in source.expressions:
        values = row.expressions if isinstance(row, exp.Tuple) else []
        if position >= len(values):
            continue
        value = values[position]
        if _asks_for_next_value(value):
            value.replace(exp.var("DEFAULT"))
            key.generates = True
        elif isinstance(value, exp.Literal) and not value.is_string and value.name.isdigit():
            key.explicit.add(int(value.name))
        else:
            key.explicit_unknown = True
    return key


def _asks_for_next_value(value: exp.Expr) -> bool:
    if isinstance(value, exp.Null) or (
        isinstance(value, exp.Var) and value.name.upper() == "DEFAULT"
    ):
        return True
    return isinstance(value, exp.Literal) and not value.is_string and value.name == "0"


def generated_rows(insert: exp.Insert, key: AutoIncrement) -> int:
    """How many rows of ``insert`` take their value from the sequence (after
    :func:`auto_increment` made each such value DEFAULT); 0 for INSERT … SELECT."""
    source = insert.expression
    if not key.generates or not isinstance(source, exp.Values):
        return 0
    named = insert.this.expressions if isinstance(insert.this, exp.Schema) else None
    names = [c.name.lower() for c in named] if named else None
    if names is not None and key.column.lower() not in names:
        return len(source.expressions)
    return sum(
        1
        for row in source.expressions
        if isinstance(row, exp.Tuple)
        and any(isinstance(v, exp.Var) and v.name.upper() == "DEFAULT" for v in row.expressions)
    )


def consume(key: AutoIncrement, cursor: Any, rows: int) -> None:
    """Draw ``rows`` values from the sequence: MySQL's InnoDB (innodb_autoinc_lock_mode 2)
    reserves a multi-row INSERT's values when it writes the first row and keeps them spent when
    the statement fails, so the next INSERT's id leaves a gap."""
    if rows > 0:
        cursor.execute(f"SELECT max(nextval('{key.sequence}')) FROM range({int(rows)})").fetchall()


def first_generated(key: AutoIncrement, returned: list[tuple[Any, ...]]) -> int:
    """LAST_INSERT_ID of the statement: the first value the sequence gave (RETURNING order)."""
    for (value,) in returned:
        if value is not None and int(value) not in key.explicit:
            return int(value)
    return 0


# Explicit values far above the counter are caught up to by drawing from the sequence (DuckDB
# can neither set nor replace a sequence a column depends on); past this many draws the counter
# is left behind and the statement warns (later generated values may then collide).
MAX_CATCH_UP = 10_000_000


def catch_up(key: AutoIncrement, cursor: Any, table: exp.Table) -> int | None:
    """Move the sequence past the largest explicit value (MySQL moves its counter the same
    way). Returns the gap it refused to cross (for a warning), else None."""
    if not key.explicit and not key.explicit_unknown:
        return None
    highest = max(key.explicit) if key.explicit else 0
    if key.explicit_unknown:
        rows = cursor.execute(
            f"SELECT max({quoted(key.column)}) FROM {table.sql(dialect='duckdb')}"
        ).fetchall()
        highest = max(highest, int(rows[0][0] or 0))
    schema, name = key.sequence.split(".", 1)
    rows = cursor.execute(
        "SELECT last_value, start_value FROM duckdb_sequences() WHERE database_name = ? "
        "AND schema_name = ? AND sequence_name = ?",
        [INTERNAL, schema, name],
    ).fetchall()
    if not rows:
        return None
    last = rows[0][0] if rows[0][0] is not None else int(rows[0][1]) - 1
    gap = highest - int(last)
    if gap <= 0:
        return None
    if gap > MAX_CATCH_UP:
        return gap
    cursor.execute(f"SELECT max(nextval('{key.sequence}')) FROM range({gap})").fetchall()
    return None


def on_update_columns(update: exp.Update, traits: Traits) -> None:
    """Add ``c = CASE WHEN <another column changes> THEN <now> ELSE c END`` for each ON UPDATE
    CURRENT_TIMESTAMP column ``c`` of the internal table ``update`` changes, unless the statement
    assigns ``c`` itself."""
    rows = traits.on_update
    assignments = [
        a for a in update.expressions if isinstance(a, exp.EQ) and isinstance(a.this, exp.Column)
    ]
    assigned = {a.this.name.lower() for a in assignments}
    if not rows or not assignments:
        return
    changed = exp.or_(
        *[exp.NullSafeNEQ(this=a.this.copy(), expression=a.expression.copy()) for a in assignments]
    )
    for column, mark in rows:
        if str(column).lower() in assigned:
            continue
        precision = str(mark)[len(ON_UPDATE_MARK) :].strip("()") or "0"
        step = 10 ** (6 - min(int(precision) if precision.isdigit() else 0, 6))
        now = sqlglot.parse_one(
            f"make_timestamp(epoch_us(now()) // {step} * {step})", read="duckdb"
        )
        value = exp.Case(
            ifs=[exp.If(this=changed.copy(), true=now)],
            default=exp.column(str(column), quoted=True),
        )
        update.append(
            "expressions", exp.EQ(this=exp.column(str(column), quoted=True), expression=value)
        )
