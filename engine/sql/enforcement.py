"""Strict MySQL 8 on INSERT / REPLACE / INSERT … SELECT / UPDATE / DELETE of an internal table
whose definition the data dictionary keeps, before DuckDB runs the statement: each value against
its column (engine/sql/enforce_values.py), NOT NULL columns left out (1364), UNIQUE and PRIMARY
keys under the columns' collation (1062), FOREIGN KEYs and their actions
(engine/sql/enforce_foreign_keys.py), CHECK constraints (engine/sql/enforce_checks.py).

Why before: DuckDB aborts a whole explicit transaction on a failed statement
(engine/sql/transactions.py) and MySQL does not; a check made first leaves the transaction as it
was, and the statement changes nothing.

- ``INSERT … VALUES`` of literals and parameters (the ORM path): the values are read from the AST
  and judged in Python; a value non-strict mode (or IGNORE) changes is written back as a literal;
  an expression is evaluated by DuckDB first (one query for the statement); keys and parents are
  probed with one query per key.
- ``INSERT … SELECT`` and ``UPDATE t SET c = expr``: DuckDB finds the rows whose new values may
  break a rule (a filter per column, engine/sql/enforce_sql.py); Python judges those; non-strict
  mode wraps the value in the SQL that clips it. ``INSERT … SELECT``'s rows are then judged
  against keys, foreign keys and checks by DuckDB (engine/sql/enforce_insert_select.py).

A table without a definition (created before the dictionary, or by CREATE TABLE … AS SELECT)
is written as before: DuckDB's own checks only.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Any

import duckdb
from sqlglot import exp

from drydock.engine.dictionary.model import INTEGER_TYPES, ColumnDef, KeyDef, TableDef
from drydock.engine.errors import Errors
from drydock.engine.results import Diagnostic
from drydock.engine.session import INTERNAL
from drydock.engine.sql import (
    enforce_checks,
    enforce_foreign_keys,
    enforce_insert_select,
    enforce_sql,
    runtime_warnings,
)
from drydock.engine.sql.enforce_foreign_keys import Referencing
from drydock.engine.sql.enforce_sql import fold, insensitive, sql_literal
from drydock.engine.sql.enforce_values import Mode, ValueRules, implicit_default
from drydock.engine.sql.identifiers import quoted

ChildrenOf = Callable[[TableDef], Referencing]  # the foreign keys referencing a table
_UNKNOWN = object()  # a value Python does not read from the AST: judged by DuckDB's evaluation


def enforce_insert(
    insert: exp.Insert, table: TableDef, cursor: Any, strict: bool, fk_checks: bool = True
) -> list[Diagnostic]:
    """Check (and, outside strict mode, fix) the rows of ``INSERT … VALUES``; returns the
    warnings. Raises MySQL's error in strict mode (nothing has run). The checks' own queries
    record none of the statement's row warnings (1365 …): the statement raises them when it
    runs, once per row (engine/sql/runtime_warnings.py)."""
    with runtime_warnings.muted(insert):
        return _enforce_insert(insert, table, cursor, strict, fk_checks)


def _enforce_insert(
    insert: exp.Insert, table: TableDef, cursor: Any, strict: bool, fk_checks: bool
) -> list[Diagnostic]:
    source = insert.expression
    if isinstance(source, (exp.Select, exp.SetOperation)):
        return _insert_select(insert, table, cursor, strict, fk_checks)
    if not isinstance(source, exp.Values):
        return []
    columns = _target_columns(insert, table)
    if columns is None:
        return []
    rows = [r for r in source.expressions if isinstance(r, exp.Tuple)]
    ignore = _ignores(insert)
    rules = ValueRules(Mode(strict=strict, ignore=ignore, single_row=len(rows) == 1))
    columns += _without_default(insert, table, rows, rules)
    values = _row_values(rows, cursor)
    for number, (row, row_values) in enumerate(zip(rows, values), start=1):
        for position, column in enumerate(columns):
            if column is None or position >= len(row_values):
                continue
            given = row_values[position]
            if given is _UNKNOWN:
                continue
            node = row.expressions[position]
            stored = rules.value(column, given, number)
            if stored is not given and (stored != given or type(stored) is not type(given)):
                node.replace(_stored_value(node, literal(stored)))
                row_values[position] = stored
    conflict = insert.args.get("conflict") is not None or insert.args.get("alternative") in (
        "REPLACE",
    )
    _conflict_assignments(insert, table, rules)
    kept = list(range(len(rows)))
    if not conflict:  # REPLACE / ON DUPLICATE KEY UPDATE act on a duplicate: DuckDB's keys
        kept = _unique_keys(insert, table, columns, rows, values, cursor, ignore, rules.warnings)
    if fk_checks:
        kept = enforce_foreign_keys.child_insert(
            table, columns, values, kept, cursor, ignore, rules.warnings, _UNKNOWN
        )
    kept = enforce_checks.insert_rows(
        insert, table, _target_names(insert, table), kept, cursor, ignore, rules.warnings
    )
    if len(kept) < len(rows):
        _keep_rows(insert, kept, len(columns))
    return rules.warnings


def enforce_update(
    update: exp.Update,
    table: TableDef,
    cursor: Any,
    strict: bool,
    fk_checks: bool = True,
    referencing: Referencing = (),
) -> list[Diagnostic]:
    """Check the new values of ``UPDATE t SET …`` (single table) before it runs; outside strict
    mode clip them in the assignments. Returns the warnings (the checks' queries record none of
    the statement's row warnings, as :func:`enforce_insert`)."""
    with runtime_warnings.muted(update):
        return _enforce_update(update, table, cursor, strict, fk_checks, referencing)


def _enforce_update(
    update: exp.Update,
    table: TableDef,
    cursor: Any,
    strict: bool,
    fk_checks: bool,
    referencing: Referencing,
) -> list[Diagnostic]:
    if update.args.get("from") or update.args.get("joins"):
        return []
    target = update.this
    if not isinstance(target, exp.Table):
        return []
    assignments: list[tuple[exp.EQ, ColumnDef]] = []
    for assignment in update.expressions:
        if isinstance(assignment, exp.EQ) and isinstance(assignment.this, exp.Column):
            column = table.column(assignment.this.name)
            if column is not None and column.is_mysql_type:
                assignments.append((assignment, column))
    if not assignments:
        return []
    rules = ValueRules(Mode(strict=strict, ignore=bool(update.args.get("ignore"))))
    rows = enforce_sql.suspect_rows(cursor, update, assignments)
    clip: set[str] = set()
    for number, values in rows:
        for (_assignment, column), value in zip(assignments, values):
            before = len(rules.warnings)
            stored = rules.value(column, value, number)
            if stored != value or len(rules.warnings) > before:
                clip.add(column.name.lower())
    for assignment, column in assignments:
        if column.name.lower() in clip:
            enforce_sql.clip(assignment, column)
    _update_unique_keys(update, table, [c for _a, c in assignments], cursor)
    enforce_checks.update_rows(update, table, target.sql(dialect="duckdb"), cursor)
    if fk_checks:
        enforce_foreign_keys.child_update(update, table, cursor)
        _run_first(update, enforce_foreign_keys.parent_update(update, referencing, cursor))
    return rules.warnings


def _insert_select(
    insert: exp.Insert, table: TableDef, cursor: Any, strict: bool, fk_checks: bool
) -> list[Diagnostic]:
    """``INSERT … SELECT``: the source's rows that may break a column's rule are judged in
    Python (strict: the first error); outside strict mode (or IGNORE) the source is wrapped in
    the clipping. Then its rows against the keys, foreign keys and checks
    (engine/sql/enforce_insert_select.py)."""
    columns = _target_columns(insert, table)
    if columns is None:
        return []
    ignore = _ignores(insert)
    rules = ValueRules(Mode(strict=strict, ignore=ignore))
    try:
        suspects = enforce_sql.select_suspects(cursor, insert.expression, columns)
    except duckdb.Error:
        return []  # a source that does not fit the columns: the statement says how
    clip: set[str] = set()
    for number, values in suspects:
        for column, value in zip(columns, values):
            if column is None:
                continue
            before = len(rules.warnings)
            stored = rules.value(column, value, number)
            if stored != value or len(rules.warnings) > before:
                clip.add(column.name.lower())
    if clip:
        insert.set("expression", enforce_sql.clipped_source(insert.expression, columns, clip))
    names = _target_names(insert, table)
    return rules.warnings + enforce_insert_select.enforce(
        insert, table, names, cursor, ignore, fk_checks
    )


def enforce_delete(
    delete: exp.Delete, cursor: Any, referencing: Referencing, children_of: ChildrenOf
) -> None:
    """FOREIGN KEY actions of a DELETE from a parent table (engine/sql/enforce_foreign_keys.py):
    1451, or the children's CASCADE / SET NULL run first in the statement's transaction."""
    if not referencing or delete.args.get("using") or delete.args.get("joins"):
        return
    condition = enforce_foreign_keys.delete_condition(delete)
    with runtime_warnings.muted(delete):
        actions = enforce_foreign_keys.parent_delete(
            None, referencing, condition, cursor, children_of
        )
    _run_first(delete, actions)


def _run_first(statement: exp.Expr, statements: list[str]) -> None:
    """Statements engine/sql/execution.py runs before ``statement``, in its transaction."""
    if statements:
        statement.meta["create_first"] = [*(statement.meta.get("create_first") or []), *statements]


# -- values out of the AST ------------------------------------------------------------------------


def _target_columns(insert: exp.Insert, table: TableDef) -> list[ColumnDef | None] | None:
    named = insert.this.expressions if isinstance(insert.this, exp.Schema) else None
    if named:
        found = [table.column(c.name) for c in named]
    else:
        found = list(table.columns)
    return [c if c is not None and c.is_mysql_type else None for c in found]


def _without_default(
    insert: exp.Insert, table: TableDef, rows: list[exp.Tuple], rules: ValueRules
) -> list[ColumnDef | None]:
    """NOT NULL columns with no DEFAULT that an INSERT naming its columns leaves out: 1364 in
    strict mode; otherwise a warning and the type's implicit default, added to every row (as
    MySQL stores it). Returns the columns added."""
    named = insert.this.expressions if isinstance(insert.this, exp.Schema) else None
    if not named:
        return []
    given = {c.name.lower() for c in named}
    added: list[ColumnDef | None] = []
    for column in table.columns:
        if (
            column.nullable
            or column.default is not None
            or column.auto_increment
            or not column.is_mysql_type
            or column.name.lower() in given
        ):
            continue
        if rules.mode.raises:
            raise Errors.NO_DEFAULT_FOR_FIELD.error(column=column.name)
        rules.warnings.append(Errors.NO_DEFAULT_FOR_FIELD.warning(column=column.name))
        default = implicit_default(column)
        if default is None:
            continue  # a date: MySQL's zero date, which DuckDB has not; DuckDB reports the NULL
        insert.this.append("expressions", exp.to_identifier(column.name, quoted=True))
        for row in rows:
            row.append("expressions", literal(default))
        added.append(column)
    return added


def _conflict_assignments(insert: exp.Insert, table: TableDef, rules: ValueRules) -> None:
    """``ON DUPLICATE KEY UPDATE c = <literal>``: the literal against its column (row 1, as
    MySQL counts it); ``c = VALUES(c)`` takes a row value checked already."""
    conflict = insert.args.get("conflict")
    if not isinstance(conflict, exp.OnConflict):
        return
    for assignment in conflict.expressions or []:
        if not isinstance(assignment, exp.EQ) or not isinstance(assignment.this, exp.Column):
            continue
        column = table.column(assignment.this.name)
        given = _python(assignment.expression)
        if column is None or not column.is_mysql_type or given is _UNKNOWN:
            continue
        stored = rules.value(column, given, 1)
        if stored != given or type(stored) is not type(given):
            assignment.set("expression", literal(stored))


def _ignores(insert: exp.Insert) -> bool:
    """INSERT IGNORE (mysql_dml.complete drops DuckDB's OR IGNORE on a table with no key)."""
    return insert.args.get("alternative") == "IGNORE" or bool(insert.meta.get("ignore"))


def _target_names(insert: exp.Insert, table: TableDef) -> list[str]:
    named = insert.this.expressions if isinstance(insert.this, exp.Schema) else None
    return [c.name for c in named] if named else [c.name for c in table.columns]


def _row_values(rows: list[exp.Tuple], cursor: Any) -> list[list[Any]]:
    """Each row's values as Python values; an expression that is no literal is evaluated by
    DuckDB, all in one query (left _UNKNOWN when it cannot be evaluated alone)."""
    values = [[_python(v) for v in row.expressions] for row in rows]
    pending = [(r, p) for r, row in enumerate(values) for p, v in enumerate(row) if v is _UNKNOWN]
    if not pending:
        return values
    nodes = [rows[r].expressions[p] for r, p in pending]
    if any(isinstance(n, exp.Var) or n.find(exp.Column, exp.Placeholder) for n in nodes):
        return values  # DEFAULT, a column: nothing to evaluate alone
    sql = "SELECT " + ", ".join(n.sql(dialect="duckdb") for n in nodes)
    try:
        evaluated = cursor.execute(sql).fetchall()[0]
    except duckdb.Error:
        return values  # DuckDB reports the error when the statement runs
    for (r, p), value in zip(pending, evaluated):
        values[r][p] = value
    return values


def _python(node: exp.Expr) -> Any:
    if isinstance(node, exp.Null):
        return None
    if isinstance(node, exp.Literal):
        return node.this if node.is_string else _number(node.this)
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal) and not node.this.is_string:
        number = _number(node.this.this)
        return -number if number is not _UNKNOWN else _UNKNOWN
    return _UNKNOWN


def _number(text: str) -> Any:
    if text.isdigit():
        return int(text)
    try:
        return Decimal(text)
    except InvalidOperation:
        return _UNKNOWN


def _stored_value(node: exp.Expr, value: exp.Expr) -> exp.Expr:
    """``value`` in place of ``node``; a node that raises row warnings (1365 …) is still
    evaluated, once, by the statement, so they are raised as MySQL raises them."""
    if not runtime_warnings.tokens_in(node):
        return value
    evaluated = exp.Is(this=exp.paren(node.copy()), expression=exp.null())
    return exp.Case(ifs=[exp.If(this=evaluated, true=value)], default=value.copy())


def literal(value: Any) -> exp.Expr:
    if value is None:
        return exp.Null()
    if isinstance(value, bool):
        return exp.Boolean(this=value)
    if isinstance(value, (int, float, Decimal)):
        text = str(value)
        return (
            exp.Literal.number(text)
            if not text.startswith("-")
            else exp.Neg(this=exp.Literal.number(text[1:]))
        )
    if isinstance(value, bytes):
        return exp.Literal.string(value.decode(errors="replace"))
    return exp.Literal.string(str(value))


# -- UNIQUE / PRIMARY keys under the columns' collation -------------------------------------------


def _key_of(
    values: list[Any], positions: list[int], folds: list[bool], numeric: list[bool]
) -> tuple[Any, ...] | None:
    key = []
    for position, folded, number in zip(positions, folds, numeric):
        value = values[position] if position < len(values) else _UNKNOWN
        if value is None or value is _UNKNOWN or (isinstance(value, str) and number):
            # NULLs never collide; an unknown value, or text for a number (which fails to
            # convert inside the probe, aborting an explicit transaction), is left to DuckDB
            return None
        key.append(fold(str(value)) if folded else value)
    return tuple(key)


def _unique_keys(
    insert: exp.Insert,
    table: TableDef,
    columns: list[ColumnDef | None],
    rows: list[exp.Tuple],
    values: list[list[Any]],
    cursor: Any,
    ignore: bool,
    warnings: list[Diagnostic],
) -> list[int]:
    """The rows to insert (all, or fewer under IGNORE): 1062 for a row whose key another row
    (of the table or of the statement) has, comparing strings under the column's collation."""
    names = [c.name.lower() if c is not None else "" for c in columns]
    kept = list(range(len(rows)))
    for key in table.keys:
        if not key.unique or not all(c.lower() in names for c in key.columns):
            continue
        positions = [names.index(c.lower()) for c in key.columns]
        key_columns = [table.column(c) for c in key.columns]
        folds = [c is not None and insensitive(c, table) for c in key_columns]
        numeric = [
            c is not None and (c.data_type in INTEGER_TYPES or c.data_type == "decimal")
            for c in key_columns
        ]
        wanted = {i: _key_of(values[i], positions, folds, numeric) for i in kept}
        existing = _existing_keys(cursor, table, key, folds, [k for k in wanted.values() if k])
        seen: set[tuple[Any, ...]] = set()
        survivors = []
        for i in kept:
            k = wanted[i]
            if k is not None and (k in existing or k in seen):
                shown = "-".join(str(values[i][p]) for p in positions)
                if not ignore:
                    raise Errors.DUP_ENTRY.error(value=shown, key=f"{table.name}.{key.name}")
                warnings.append(
                    Errors.DUP_ENTRY.warning(value=shown, key=f"{table.name}.{key.name}")
                )
                continue
            if k is not None:
                seen.add(k)
            survivors.append(i)
        kept = survivors
    return kept


def _existing_keys(
    cursor: Any, table: TableDef, key: KeyDef, folds: list[bool], wanted: list[tuple[Any, ...]]
) -> set[tuple[Any, ...]]:
    if not wanted:
        return set()
    probes = [
        f"lower(strip_accents(CAST({quoted(c)} AS VARCHAR)))" if f else quoted(c)
        for c, f in zip(key.columns, folds)
    ]
    target = f"{INTERNAL}.{quoted(table.schema)}.{quoted(table.name)}"
    if len(probes) == 1:  # one column: an IN list, which DuckDB answers from its index
        listed = ", ".join(sql_literal(k[0]) for k in set(wanted))
        sql = f"SELECT DISTINCT {probes[0]} FROM {target} WHERE {probes[0]} IN ({listed})"
    else:
        keys = [f"k{i}" for i in range(len(probes))]
        rows_sql = ", ".join("(" + ", ".join(sql_literal(v) for v in k) + ")" for k in set(wanted))
        on = " AND ".join(f"{p} = v.{k}" for p, k in zip(probes, keys))
        sql = (
            f"SELECT DISTINCT {', '.join('v.' + k for k in keys)} FROM {target} "
            f"JOIN (VALUES {rows_sql}) AS v({', '.join(keys)}) ON {on}"
        )
    try:
        found = cursor.execute(sql).fetchall()
    except duckdb.Error:
        return set()  # a value DuckDB cannot compare: its own index decides
    return {tuple(r) for r in found}


def _keep_rows(insert: exp.Insert, kept: list[int], width: int) -> None:
    """INSERT IGNORE without the rows it skips; none left: a source of no rows."""
    source = insert.expression
    rows = [r for r in source.expressions if isinstance(r, exp.Tuple)]
    insert.meta["values_rows"] = len(source.expressions)  # the OK's Records (dml_counts.py)
    if kept:
        source.set("expressions", [rows[i] for i in kept])
        return
    nulls = ", ".join("NULL" for _ in range(max(width, 1)))
    insert.set("expression", exp.maybe_parse(f"SELECT {nulls} WHERE FALSE", dialect="duckdb"))


def _update_unique_keys(
    update: exp.Update, table: TableDef, assigned: list[ColumnDef], cursor: Any
) -> None:
    """1062 when the updated rows' new keys collide, under the collation, with each other or
    with the rows the UPDATE leaves alone (binary keys too: found before DuckDB's index would
    abort an explicit transaction)."""
    names = {c.name.lower() for c in assigned}
    for key in table.keys:
        if not key.unique or not names & {c.lower() for c in key.columns}:
            continue
        duplicate = enforce_sql.update_collision(cursor, update, table, key)
        if duplicate is not None:
            raise Errors.DUP_ENTRY.error(value=duplicate, key=f"{table.name}.{key.name}")
