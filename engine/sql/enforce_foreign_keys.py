"""FOREIGN KEYs of internal tables, as InnoDB enforces them (MySQL 8.0 manual 15.1.20.5), from the
data dictionary's definitions: DuckDB gets no FOREIGN KEY clause (it refuses CASCADE and SET
NULL, and cannot switch its checks off), so drydock checks and acts before the statement runs:

- a child row (INSERT … VALUES, UPDATE of its key columns) whose non-NULL key has no parent row:
  1452 (INSERT IGNORE skips the row with a warning);
- DELETE of a parent row a child references: 1451 for RESTRICT / NO ACTION; CASCADE deletes the
  children first (and theirs, up to MySQL's 15 levels), SET NULL clears their keys;
- UPDATE of a referenced parent key: 1451 for RESTRICT / NO ACTION; CASCADE and SET NULL carry
  the change to the children (one level);
- ``SET FOREIGN_KEY_CHECKS = 0``: none of it, as in MySQL.

Actions are SQL statements run before the statement, in its transaction
(engine/sql/execution.py ``_run_statement``). Strings compare under the collation (a ``_ci``
column: case and accents ignored), as the keys do.
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from drydock.engine.dictionary.model import ColumnDef, ForeignKeyDef, TableDef
from drydock.engine.errors import Errors
from drydock.engine.results import Diagnostic
from drydock.engine.session import INTERNAL
from drydock.engine.sql.enforce_sql import fold, insensitive, sql_literal
from drydock.engine.sql.identifiers import quoted

MAX_CASCADE_DEPTH = 15  # InnoDB's limit on nested cascades
Referencing = tuple[tuple[TableDef, ForeignKeyDef], ...]  # (child, its foreign key)


def table_sql(schema: str, name: str) -> str:
    return f"{INTERNAL}.{quoted(schema)}.{quoted(name)}"


def detail(child: TableDef, fk: ForeignKeyDef) -> str:
    """The parenthesised part of MySQL's 1451/1452 message."""
    columns = ", ".join(f"`{c}`" for c in fk.columns)
    refs = ", ".join(f"`{c}`" for c in fk.ref_columns)
    # a parent in another database is named with it, as SHOW CREATE TABLE names it
    parent = f"`{fk.ref_table}`"
    if fk.ref_schema and fk.ref_schema.lower() != child.schema.lower():
        parent = f"`{fk.ref_schema}`.{parent}"
    text = (
        f"`{child.schema}`.`{child.name}`, CONSTRAINT `{fk.name}` FOREIGN KEY ({columns}) "
        f"REFERENCES {parent} ({refs})"
    )
    for clause, action in (("ON DELETE", fk.on_delete), ("ON UPDATE", fk.on_update)):
        if action in ("CASCADE", "SET NULL"):
            text += f" {clause} {action}"
    return text


def _folded(child: TableDef, fk: ForeignKeyDef) -> list[bool]:
    found = [child.column(c) for c in fk.columns]
    return [c is not None and insensitive(c, child) for c in found]


def _norm(sql: str, folded: bool) -> str:
    return f"lower(strip_accents(CAST({sql} AS VARCHAR)))" if folded else sql


# -- child side -----------------------------------------------------------------------------------


def child_insert(
    table: TableDef,
    columns: list[ColumnDef | None],
    values: list[list[Any]],
    kept: list[int],
    cursor: Any,
    ignore: bool,
    warnings: list[Diagnostic],
    unknown: object,
) -> list[int]:
    """The rows of an INSERT … VALUES whose foreign keys find their parent (IGNORE: the others
    skipped with a warning; else 1452)."""
    names = [c.name.lower() if c is not None else "" for c in columns]
    for fk in table.foreign_keys:
        if not all(c.lower() in names for c in fk.columns):
            continue  # a column left out takes its default: NULL in practice, never checked
        positions = [names.index(c.lower()) for c in fk.columns]
        folds = _folded(table, fk)
        keys: dict[int, tuple[Any, ...]] = {}
        for i in kept:
            row = [values[i][p] for p in positions]
            if any(v is None or v is unknown for v in row):
                continue
            keys[i] = tuple(fold(str(v)) if f else v for v, f in zip(row, folds))
        missing = _missing_parents(cursor, fk, folds, set(keys.values()))
        if missing and _same_table(table, fk):  # a parent row the statement inserts itself
            ref_positions = [names.index(c.lower()) for c in fk.ref_columns if c.lower() in names]
            if len(ref_positions) == len(fk.ref_columns):
                own = {
                    tuple(
                        fold(str(values[i][p])) if f else values[i][p]
                        for p, f in zip(ref_positions, folds)
                    )
                    for i in kept
                }
                missing -= own
        survivors = []
        for i in kept:
            if keys.get(i) in missing:
                if not ignore:
                    raise Errors.NO_REFERENCED_ROW.error(detail=detail(table, fk))
                warnings.append(Errors.NO_REFERENCED_ROW.warning(detail=detail(table, fk)))
                continue
            survivors.append(i)
        kept = survivors
    return kept


def _same_table(table: TableDef, fk: ForeignKeyDef) -> bool:
    return (fk.ref_schema.lower(), fk.ref_table.lower()) == (
        table.schema.lower(),
        table.name.lower(),
    )


def _missing_parents(
    cursor: Any, fk: ForeignKeyDef, folds: list[bool], keys: set[tuple[Any, ...]]
) -> set[tuple[Any, ...]]:
    if not keys:
        return set()
    parent = table_sql(fk.ref_schema, fk.ref_table)
    if len(fk.columns) == 1 and not folds[0]:  # an IN list: DuckDB answers it from its index
        column = quoted(fk.ref_columns[0])
        listed = ", ".join(sql_literal(k[0]) for k in keys)
        sql = f"SELECT DISTINCT {column} FROM {parent} WHERE {column} IN ({listed})"
        found = {(r[0],) for r in cursor.execute(sql).fetchall()}
        return {k for k in keys if k not in found}
    names = [f"k{i}" for i in range(len(fk.columns))]
    rows = ", ".join("(" + ", ".join(sql_literal(v) for v in key) + ")" for key in keys)
    match = " AND ".join(
        f"{_norm('p.' + quoted(r), f)} = v.{n}" for r, f, n in zip(fk.ref_columns, folds, names)
    )
    sql = (
        f"SELECT DISTINCT {', '.join('v.' + n for n in names)} FROM (VALUES {rows}) AS "
        f"v({', '.join(names)}) WHERE NOT EXISTS (SELECT 1 FROM "
        f"{table_sql(fk.ref_schema, fk.ref_table)} AS p WHERE {match})"
    )
    return {tuple(r) for r in cursor.execute(sql).fetchall()}


def child_update(update: exp.Update, table: TableDef, cursor: Any) -> None:
    """1452 when ``update`` gives a row a foreign key no parent row has."""
    assigned = _assigned(update, "c")
    for fk in table.foreign_keys:
        if not {c.lower() for c in fk.columns} & set(assigned):
            continue
        folds = _folded(table, fk)
        new = [assigned.get(c.lower(), f"c.{quoted(c)}") for c in fk.columns]
        match = " AND ".join(
            f"{_norm('p.' + quoted(r), f)} = {_norm(n, f)}"
            for r, f, n in zip(fk.ref_columns, folds, new)
        )
        not_null = " AND ".join(f"({n}) IS NOT NULL" for n in new)
        sql = (
            f"SELECT 1 FROM {update.this.sql(dialect='duckdb')} AS c WHERE "
            f"{_where(update, 'c')} AND {not_null} AND NOT EXISTS (SELECT 1 FROM "
            f"{table_sql(fk.ref_schema, fk.ref_table)} AS p WHERE {match}) LIMIT 1"
        )
        if cursor.execute(sql).fetchall():
            raise Errors.NO_REFERENCED_ROW.error(detail=detail(table, fk))


def _qualified(node: exp.Expr, alias: str, table: exp.Expr | None = None) -> str:
    """``node`` with the statement's own columns (unqualified, or qualified by its table's
    name) qualified by ``alias`` instead."""
    names = {table.name.lower(), table.alias_or_name.lower()} if table is not None else set()
    copy = node.copy()
    for column in list(copy.find_all(exp.Column)):
        if not column.table or column.table.lower() in names:
            for part in ("catalog", "db"):
                column.set(part, None)
            column.set("table", exp.to_identifier(alias))
    return copy.sql(dialect="duckdb")


def _assigned(update: exp.Update, alias: str) -> dict[str, str]:
    return {
        a.this.name.lower(): _qualified(a.expression, alias, update.this)
        for a in update.expressions
        if isinstance(a, exp.EQ) and isinstance(a.this, exp.Column)
    }


def _where(statement: exp.Expr, alias: str) -> str:
    where = statement.args.get("where")
    if where is None:
        return "TRUE"
    return f"coalesce(({_qualified(where.this, alias, statement.this)}), FALSE)"


# -- parent side ----------------------------------------------------------------------------------


def parent_delete(
    parent: TableDef | None,
    referencing: Referencing,
    condition: str,
    cursor: Any,
    children_of: Any,
    depth: int = 0,
) -> list[str]:
    """The statements to run before deleting the rows of ``parent`` where ``condition`` (SQL on
    alias ``t``): children's CASCADE deletes (deepest first) and SET NULL updates; 1451 for a
    RESTRICT / NO ACTION child that references one of those rows."""
    before: list[str] = []
    if depth >= MAX_CASCADE_DEPTH:
        return before
    for child, fk in referencing:
        doomed = _referencing_rows(child, fk, condition)
        target = table_sql(child.schema, child.name)
        if fk.on_delete == "CASCADE":
            before.extend(
                parent_delete(child, children_of(child), doomed, cursor, children_of, depth + 1)
            )
            before.append(f"DELETE FROM {target} AS t WHERE {doomed}")
        else:
            before.extend(_set_null_or_refuse(fk.on_delete, child, fk, doomed, cursor))
    return before


def _set_null_or_refuse(
    action: str, child: TableDef, fk: ForeignKeyDef, doomed: str, cursor: Any
) -> list[str]:
    """A child's SET NULL update of the ``doomed`` rows (SQL on alias ``t``); for RESTRICT / NO
    ACTION none, or 1451 when such a row exists."""
    target = table_sql(child.schema, child.name)
    if action == "SET NULL":
        sets = ", ".join(f"{quoted(c)} = NULL" for c in fk.columns)
        return [f"UPDATE {target} AS t SET {sets} WHERE {doomed}"]
    if cursor.execute(f"SELECT 1 FROM {target} AS t WHERE {doomed} LIMIT 1").fetchall():
        raise Errors.ROW_IS_REFERENCED.error(detail=detail(child, fk))
    return []


def _referencing_rows(child: TableDef, fk: ForeignKeyDef, parent_condition: str) -> str:
    """SQL on alias ``t`` (the child): its rows whose key matches a parent row where
    ``parent_condition`` (SQL on alias ``t``, the parent) holds."""
    folds = _folded(child, fk)
    keys = ", ".join(_norm(f"t.{quoted(c)}", f) for c, f in zip(fk.columns, folds))
    refs = ", ".join(_norm(f"t.{quoted(r)}", f) for r, f in zip(fk.ref_columns, folds))
    parent = table_sql(fk.ref_schema, fk.ref_table)
    inner = f"SELECT {refs} FROM {parent} AS t WHERE {parent_condition}"
    return f"({keys}) IN ({inner})"


def parent_update(update: exp.Update, referencing: Referencing, cursor: Any) -> list[str]:
    """The statements to run before ``update`` changes referenced keys of its table: CASCADE /
    SET NULL on the children; 1451 for a RESTRICT / NO ACTION child still referencing an old
    key."""
    assigned = _assigned(update, "t")
    before: list[str] = []
    for child, fk in referencing:
        if not {c.lower() for c in fk.ref_columns} & set(assigned):
            continue
        new = [assigned.get(r.lower(), f"t.{quoted(r)}") for r in fk.ref_columns]
        changes = " OR ".join(
            f"({n}) IS DISTINCT FROM t.{quoted(r)}" for n, r in zip(new, fk.ref_columns)
        )
        condition = f"{_where(update, 't')} AND ({changes})"
        doomed = _referencing_rows(child, fk, condition)
        target = table_sql(child.schema, child.name)
        if fk.on_update == "CASCADE":
            old = ", ".join(f"t.{quoted(r)} AS o{i}" for i, r in enumerate(fk.ref_columns))
            values = ", ".join(f"{n} AS n{i}" for i, n in enumerate(new))
            parent = update.this.sql(dialect="duckdb")
            sets = ", ".join(f"{quoted(c)} = m.n{i}" for i, c in enumerate(fk.columns))
            match = " AND ".join(f"c.{quoted(c)} = m.o{i}" for i, c in enumerate(fk.columns))
            before.append(
                f"UPDATE {target} AS c SET {sets} FROM (SELECT {old}, {values} FROM {parent} "
                f"AS t WHERE {condition}) AS m WHERE {match}"
            )
        else:
            before.extend(_set_null_or_refuse(fk.on_update, child, fk, doomed, cursor))
    return before


def delete_condition(delete: exp.Delete) -> str:
    return _where(delete, "t")
