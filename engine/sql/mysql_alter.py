"""ALTER TABLE on an internal table with a data dictionary row, carried out on DuckDB (MySQL 8.0
manual 15.1.9).

engine/dictionary/alter.py computes the new definition (and MySQL's errors for what MySQL
refuses); here it becomes DuckDB's table. DuckDB cannot change most things in place (a column's
type, its position, keys, and nothing at all once the table has an index), so the table is
rebuilt: CREATE a new table of the new definition's DuckDB types, INSERT … SELECT the rows in the
new column order (cast), DROP the old table, RENAME the new one, recreate the indexes, the ON
UPDATE marks and the AUTO_INCREMENT sequence, and save the dictionary row — all in one DuckDB
transaction, so a failure anywhere (data that does not fit the new type, duplicates under a new
UNIQUE key) leaves the table and its definition as they were. Views name the table and survive
(DuckDB binds a view's names when it is read). A change DuckDB's table does not see (an INDEX
key, a foreign key, a comment, table options) only saves the definition.

Foreign keys are kept in the dictionary only (their enforcement lives elsewhere).
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass, replace
from typing import Any

import duckdb
import sqlglot
from sqlglot import exp

from drydock.engine.dictionary import changes
from drydock.engine.dictionary import store as dictionary_store
from drydock.engine.dictionary.alter import AlterPlan, plan_alter
from drydock.engine.dictionary.model import (
    BINARY_TYPES,
    FIXED_LENGTH,
    STRING_TYPES,
    ColumnDef,
    TableDef,
)
from drydock.engine.errors import Errors
from drydock.engine.session import INTERNAL
from drydock.engine.sql.collation import duckdb_collation
from drydock.engine.sql.identifiers import quoted
from drydock.engine.sql import alter_in_place
from drydock.engine.sql.column_types import duckdb_sql, duckdb_type, stored_types
from drydock.engine.sql.mysql_ddl import ON_UPDATE_MARK, SEQUENCE_PREFIX

_TEMPORARY_PREFIX = "__drydock_alter_"
_NEXTVAL = re.compile(r"nextval\('([^'.]+)\.(" + SEQUENCE_PREFIX + r"[0-9a-f]+)'\)")
_LENGTH_TYPES = ("char", "varchar", "binary", "varbinary")


@dataclass(frozen=True)
class Outcome:
    records: int  # MySQL's `Records:` — rows copied when a column's type changed, else 0
    info: bool = True  # a bare RENAME TO sends no info string


def alter_target(expression: exp.Expr) -> exp.Table | None:
    """The internal table an ALTER TABLE changes (its relations resolved: catalog and db set)."""
    if not isinstance(expression, exp.Alter) or str(expression.args.get("kind")).upper() != "TABLE":
        return None
    table = expression.this
    if isinstance(table, exp.Table) and table.text("catalog").lower() == INTERNAL:
        return table
    return None


def clauses(alter: exp.Alter) -> list[exp.Expr]:
    return [*(alter.args.get("actions") or []), *(alter.args.get("options") or [])]


def run(cursor: Any, alter: exp.Alter, table: exp.Table) -> Outcome | None:
    """Carry ``alter`` out on ``table`` (inside the caller's transaction); None when the table has
    no definition to alter (created before the dictionary, or by CREATE … AS SELECT: the caller
    runs DuckDB's own ALTER as before)."""
    schema, name = table.text("db"), table.name
    old = dictionary_store.load(cursor, schema, name)
    into = _rename_schema(alter) or schema  # RENAME TO other_db.t: the table moves there
    if old is None:
        if into != schema:
            raise Errors.NOT_SUPPORTED.error(
                what="RENAME TABLE into another database of a table without a MySQL definition "
                "(made by CREATE TABLE ... AS SELECT)"
            )
        return None
    plan = plan_alter(old, clauses(alter))
    if into != schema:
        return _move(cursor, schema, old, plan, into, alter)
    new = plan.table
    moved = plan.renamed_from and plan.renamed_from.lower() != new.name.lower()
    if moved and _exists(cursor, schema, new.name):
        raise Errors.TABLE_EXISTS.error(table=new.name)
    if _shape(old) == _shape(new) and not plan.renamed_from and plan.auto_increment_start is None:
        cursor.execute(dictionary_store.save_sql(new))  # nothing DuckDB's table keeps changed
        return Outcome(records=0)
    _refuse_if_referenced(cursor, schema, old.name)
    in_place = alter_in_place.statements(cursor, schema, old, plan, clauses(alter))
    if in_place is not None:
        for statement in in_place:
            cursor.execute(statement)
        _save(cursor, schema, plan)
        return Outcome(records=0, info=not _renames_only(alter))
    rows = _validate(cursor, schema, old, plan)
    _rebuild(cursor, schema, old, plan)
    retyped = any(
        source.lower() in {c.name.lower() for c in old.columns}
        and duckdb_type(old.column(source) or column) != duckdb_type(column)
        for column in new.columns
        if (source := plan.sources.get(column.name.lower())) is not None
    )
    return Outcome(records=rows if retyped else 0, info=not _renames_only(alter))


def _rename_schema(alter: exp.Alter) -> str:
    """The database RENAME TO names (``other_db.t``), or ""."""
    for action in alter.args.get("actions") or []:
        if isinstance(action, exp.AlterRename) and isinstance(action.this, exp.Table):
            return action.this.text("db")
    return ""


def _move(
    cursor: Any, schema: str, old: TableDef, plan: AlterPlan, into: str, alter: exp.Alter
) -> Outcome:
    """RENAME TABLE db1.t TO db2.t2: DuckDB moves no table between schemas, so it is rebuilt in
    db2 (its rows copied, the old one dropped); the definition moves, foreign keys follow it."""
    found = cursor.execute(
        "SELECT count(*) FROM duckdb_schemas() WHERE database_name = ? AND schema_name = ?",
        [INTERNAL, into],
    ).fetchall()
    if not found[0][0]:
        raise Errors.UNKNOWN_DATABASE.error(db=into)
    if _exists(cursor, into, plan.table.name):
        raise Errors.TABLE_EXISTS.error(table=plan.table.name)
    _refuse_if_referenced(cursor, schema, old.name)
    plan.table = replace(plan.table, schema=into)
    plan.renamed_from = plan.renamed_from or old.name
    _validate(cursor, schema, old, plan)
    _rebuild(cursor, schema, old, plan, into)
    return Outcome(records=0, info=not _renames_only(alter))


def _refuse_if_referenced(cursor: Any, schema: str, name: str) -> None:
    """DuckDB keeps a FOREIGN KEY declared in CREATE TABLE and then alters, drops or renames no
    table that key references: a clear error instead of DuckDB's."""
    rows = cursor.execute(
        "SELECT table_name FROM duckdb_constraints() WHERE database_name = ? AND schema_name = ? "
        "AND constraint_type = 'FOREIGN KEY' AND lower(referenced_table) = lower(?) "
        "AND lower(table_name) <> lower(?)",
        [INTERNAL, schema, name, name],
    ).fetchall()
    if rows:
        raise Errors.NOT_SUPPORTED.error(
            what=f"ALTER TABLE of {name}, which the FOREIGN KEY of table {rows[0][0]} references "
            "(declared in its CREATE TABLE, kept by DuckDB)"
        )


def _renames_only(alter: exp.Alter) -> bool:
    return all(isinstance(c, exp.AlterRename) for c in clauses(alter))


def _save(cursor: Any, schema: str, plan: AlterPlan) -> None:
    """The new definition, in place of the old one (under its old name when renamed; in its new
    database when moved: ``plan.table.schema``)."""
    if plan.renamed_from:
        cursor.execute(dictionary_store.delete_sql(schema, plan.renamed_from))
    cursor.execute(dictionary_store.save_sql(plan.table))
    if plan.renamed_from:  # other tables' foreign keys follow the new name
        for statement in changes.referencing_renamed(
            cursor, (schema, plan.renamed_from), (plan.table.schema, plan.table.name)
        ):
            cursor.execute(statement)


def _shape(table: TableDef) -> tuple[Any, ...]:
    """What DuckDB's own table holds of a definition."""
    return (
        tuple(
            (c.name, duckdb_type(c), c.nullable, c.default, c.auto_increment, c.on_update)
            for c in table.columns
        ),
        tuple((k.kind, k.columns) for k in table.keys if k.unique),
        tuple((c.expression, c.enforced) for c in table.checks),
    )


def _exists(cursor: Any, schema: str, name: str) -> bool:
    rows = cursor.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE database_name = ? AND schema_name = ? "
        "AND lower(table_name) = lower(?)",
        [INTERNAL, schema, name],
    ).fetchall()
    return bool(rows[0][0])


def _qualified(schema: str, name: str) -> str:
    return f"{INTERNAL}.{quoted(schema)}.{quoted(name)}"


# -- data that does not fit (strict mode) ---------------------------------------------------------
def _validate(cursor: Any, schema: str, old: TableDef, plan: AlterPlan) -> int:
    """MySQL's strict-mode errors for rows the new columns cannot hold (1138 a NULL in a NOT NULL
    column, 1265 a string too long, 1264 a number out of range), with MySQL's row number; returns
    the table's row count."""
    source_table = _qualified(schema, old.name)
    for column in plan.table.columns:
        source_name = plan.sources.get(column.name.lower())
        before = old.column(source_name) if source_name else None
        if before is None or before == column:
            continue
        value = quoted(before.name)
        nulls = not column.nullable and before.nullable
        if nulls and _first_row(cursor, source_table, value, f"{value} IS NULL") is not None:
            raise Errors.INVALID_USE_OF_NULL.error()
        bad = _misfit(column, value)
        if bad is not None:
            row = _first_row(cursor, source_table, value, bad)
            if row is not None:
                spec = (
                    Errors.DATA_TRUNCATED
                    if column.is_string or column.data_type in BINARY_TYPES
                    else Errors.COLUMN_OUT_OF_RANGE
                )
                raise spec.error(column=column.name, row=row)
    _refuse_duplicates(cursor, source_table, old, plan)
    rows = cursor.execute(f"SELECT count(*) FROM {source_table}").fetchall()
    return int(rows[0][0])


def _refuse_duplicates(cursor: Any, source_table: str, old: TableDef, plan: AlterPlan) -> None:
    """MySQL's 1062 for a new PRIMARY/UNIQUE key over rows that repeat a value, naming the key as
    MySQL does (``t.uq_a``), before DuckDB would fail (and abort an explicit transaction)."""
    existing = {(k.kind, tuple(c.lower() for c in k.columns)) for k in old.keys if k.unique}
    for key in plan.table.keys:
        if not key.unique:
            continue
        sources = [plan.sources.get(c.lower()) for c in key.columns]
        if any(s is None for s in sources):
            continue  # a new column in the key: DuckDB's own check answers
        if (key.kind, tuple(str(s).lower() for s in sources)) in existing:
            continue
        columns = [quoted(str(s)) for s in sources]
        entry = " || '-' || ".join(f"CAST({c} AS VARCHAR)" for c in columns)
        rows = cursor.execute(
            f"SELECT {entry} FROM {source_table} "
            f"WHERE {' AND '.join(f'{c} IS NOT NULL' for c in columns)} "
            f"GROUP BY {', '.join(columns)} HAVING count(*) > 1 ORDER BY min(rowid) LIMIT 1"
        ).fetchall()
        if rows:
            raise Errors.DUP_ENTRY.error(value=rows[0][0], key=f"{plan.table.name}.{key.name}")


def _misfit(column: ColumnDef, value: str) -> str | None:
    """A DuckDB condition true for a value the column cannot hold, or None."""
    if column.data_type in _LENGTH_TYPES and column.length is not None:
        measure = "octet_length" if column.data_type in BINARY_TYPES else "length"
        cast = "BLOB" if column.data_type in BINARY_TYPES else "VARCHAR"
        return f"{measure}(CAST({value} AS {cast})) > {column.length}"
    if column.data_type in STRING_TYPES and column.data_type in FIXED_LENGTH:
        return f"length(CAST({value} AS VARCHAR)) > {FIXED_LENGTH[column.data_type]}"
    bounds = column.integer_range()
    if bounds is not None:
        number = f"TRY_CAST({value} AS DOUBLE)"
        return f"({number} < {bounds[0]} OR {number} > {bounds[1]})"
    if column.data_type == "decimal" and column.precision is not None:
        limit = 10 ** (column.precision - (column.scale or 0))
        return f"abs(TRY_CAST({value} AS DOUBLE)) >= {limit}"
    return None


def _first_row(cursor: Any, table: str, value: str, condition: str) -> int | None:
    rows = cursor.execute(
        f"SELECT n FROM (SELECT row_number() OVER () AS n, {value} FROM {table}) "
        f"WHERE {condition} ORDER BY n LIMIT 1"
    ).fetchall()
    return int(rows[0][0]) if rows else None


# -- the rebuild -----------------------------------------------------------------------------------
def _rebuild(
    cursor: Any, schema: str, old: TableDef, plan: AlterPlan, into: str | None = None
) -> None:
    """The table rebuilt from ``plan`` (in schema ``into`` when it moves there)."""
    new = plan.table
    into = into or schema
    old_table = _qualified(schema, old.name)
    sequence = _sequence(cursor, schema, old, plan, into)
    temporary = f"{_TEMPORARY_PREFIX}{secrets.token_hex(8)}"
    indexes = _indexes(cursor, schema, old.name)
    types = _types(cursor, schema, old, plan)
    cursor.execute(f"CREATE TABLE {_qualified(into, temporary)} ({_body(new, types, sequence)})")
    targets, values = [], []
    for column in new.columns:
        source = plan.sources.get(column.name.lower())
        if source is not None:
            targets.append(quoted(column.name))
            values.append(f"CAST({quoted(source)} AS {types[column.name.lower()]})")
        elif not column.nullable and column.default is None and not column.auto_increment:
            targets.append(quoted(column.name))  # MySQL fills the type's implicit default
            values.append(f"CAST({_implicit_default(column)} AS {types[column.name.lower()]})")
    if not targets:  # every old column dropped, only new ones with defaults: no way to count rows
        raise Errors.NOT_SUPPORTED.error(what="an ALTER TABLE that keeps none of the columns")
    try:
        cursor.execute(
            f"INSERT INTO {_qualified(into, temporary)} ({', '.join(targets)}) "
            f"SELECT {', '.join(values)} FROM {old_table}"
        )
    except duckdb.ConstraintException as exc:
        violated = _violated_check(new, str(exc))
        if violated is None:
            raise
        raise Errors.CHECK_VIOLATED.error(name=violated) from None
    old_sequence = _current_sequence(cursor, schema, old.name)
    cursor.execute(f"DROP TABLE {old_table}")
    cursor.execute(f"ALTER TABLE {_qualified(into, temporary)} RENAME TO {quoted(new.name)}")
    if old_sequence is not None and _sequence_sql(old_sequence) != sequence:
        cursor.execute(f"DROP SEQUENCE IF EXISTS {_sequence_sql(old_sequence)}")
    for statement in _index_statements(indexes, plan, into):
        cursor.execute(statement)
    for column in new.columns:
        if column.on_update:
            precision = column.on_update[len("CURRENT_TIMESTAMP") :]
            cursor.execute(
                f"COMMENT ON COLUMN {_qualified(into, new.name)}.{quoted(column.name)} "
                f"IS '{ON_UPDATE_MARK}{precision}'"
            )
    _save(cursor, schema, plan)


def _violated_check(table: TableDef, message: str) -> str | None:
    """The check DuckDB's "CHECK constraint failed … with expression CHECK((…))" names (MySQL
    3819 names the constraint; DuckDB only writes its expression)."""
    if "CHECK constraint failed" not in message:
        return None
    written = "".join(message.split("with expression", 1)[-1].split()).lower()
    enforced = [c for c in table.checks if c.enforced]
    for check in enforced:
        if "".join(duckdb_sql(check.expression).split()).lower() in written:
            return check.name
    return enforced[0].name if enforced else None


def _types(cursor: Any, schema: str, old: TableDef, plan: AlterPlan) -> dict[str, str]:
    """Each new column's DuckDB type: a column whose declared type stays keeps DuckDB's own type
    exactly (CREATE TABLE gives BOOLEAN and a bare DECIMAL types of their own), others the
    declaration's."""
    current = stored_types(cursor, schema, old.name)
    types = {}
    for column in plan.table.columns:
        source = plan.sources.get(column.name.lower())
        before = old.column(source) if source else None
        kept = before is not None and duckdb_type(before) == duckdb_type(column)
        if kept and source is not None and source.lower() in current:
            types[column.name.lower()] = current[source.lower()]
        else:
            types[column.name.lower()] = duckdb_type(column)
    return types


def _body(table: TableDef, types: dict[str, str], sequence: str | None) -> str:
    parts = []
    for column in table.columns:
        text = f"{quoted(column.name)} {types[column.name.lower()]}"
        if column.collation and column.is_string:
            text += f" COLLATE {quoted(duckdb_collation(column.collation))}"
        if not column.nullable:
            text += " NOT NULL"
        if column.auto_increment and sequence is not None:
            text += f" DEFAULT nextval('{sequence.replace(chr(34), '')}')"  # as CREATE writes it
        elif column.default is not None:
            text += f" DEFAULT {duckdb_sql(column.default)}"
        parts.append(text)
    for key in table.keys:
        if key.unique:
            columns = ", ".join(quoted(c) for c in key.columns)
            parts.append(("PRIMARY KEY" if key.kind == "PRIMARY" else "UNIQUE") + f" ({columns})")
    for check in table.checks:
        if check.enforced:
            parts.append(f"CONSTRAINT {quoted(check.name)} CHECK ({duckdb_sql(check.expression)})")
    return ", ".join(parts)


def _implicit_default(column: ColumnDef) -> str:
    if column.is_string or column.data_type in BINARY_TYPES:
        return "''" if column.data_type != "enum" or not column.values else f"'{column.values[0]}'"
    if column.data_type in ("date", "datetime", "timestamp"):
        return "'1970-01-01'"
    if column.data_type == "time":
        return "'00:00:00'"
    return "0"


def _current_sequence(cursor: Any, schema: str, table: str) -> tuple[str, str] | None:
    """(schema, name) of the sequence the table's AUTO_INCREMENT column draws from."""
    rows = cursor.execute(
        "SELECT column_default FROM duckdb_columns() WHERE database_name = ? AND schema_name = ? "
        "AND table_name = ? AND column_default LIKE ?",
        [INTERNAL, schema, table, f"%{SEQUENCE_PREFIX}%"],
    ).fetchall()
    for (default,) in rows:
        match = _NEXTVAL.search(str(default))
        if match:
            return match.group(1), match.group(2)
    return None


def _sequence_sql(sequence: tuple[str, str]) -> str:
    return f"{quoted(sequence[0])}.{quoted(sequence[1])}"


def _sequence(cursor: Any, schema: str, old: TableDef, plan: AlterPlan, into: str) -> str | None:
    """The sequence the new AUTO_INCREMENT column draws from: the old one when the column keeps
    its values and no AUTO_INCREMENT = n moves it, else a new one starting past the values (and
    past what the old sequence gave)."""
    column = next((c for c in plan.table.columns if c.auto_increment), None)
    if column is None:
        return None
    source = plan.sources.get(column.name.lower())
    current = _current_sequence(cursor, schema, old.name)
    was_auto = source is not None and (old.column(source) or column).auto_increment
    if current is not None and was_auto and plan.auto_increment_start is None and into == schema:
        return _sequence_sql(current)
    start = 1
    if source is not None:
        rows = cursor.execute(
            f"SELECT max(TRY_CAST({quoted(source)} AS HUGEINT)) FROM {_qualified(schema, old.name)}"
        ).fetchall()
        start = int(rows[0][0] or 0) + 1
    if current is not None and was_auto:
        given = cursor.execute(
            "SELECT last_value FROM duckdb_sequences() WHERE database_name = ? "
            "AND schema_name = ? AND sequence_name = ?",
            [INTERNAL, *current],
        ).fetchall()
        if given and given[0][0] is not None and plan.auto_increment_start is None:
            start = max(start, int(given[0][0]) + 1)
    start = max(start, plan.auto_increment_start or 1)
    name = f"{SEQUENCE_PREFIX}{secrets.token_hex(8)}"
    cursor.execute(f'CREATE SEQUENCE {quoted(into)}."{name}" START {start}')
    return f'{quoted(into)}."{name}"'


def _indexes(cursor: Any, schema: str, table: str) -> list[tuple[str, bool, list[str]]]:
    """DuckDB's own indexes of the table (CREATE INDEX): (name, unique, columns), the columns
    read from DuckDB's text of the index through sqlglot."""
    rows = cursor.execute(
        "SELECT index_name, is_unique, sql FROM duckdb_indexes() "
        "WHERE database_name = ? AND schema_name = ? AND table_name = ?",
        [INTERNAL, schema, table],
    ).fetchall()
    found = []
    for name, unique, text in rows:
        try:
            create = sqlglot.parse_one(str(text or ""), read="duckdb")
        except sqlglot.errors.SqlglotError:
            continue  # an index on expressions: not carried over
        params = create.find(exp.IndexParameters)
        parts = params.args.get("columns") or [] if params is not None else []
        columns = [c.name for c in parts]
        if all(columns):
            found.append((str(name), bool(unique), columns))
    return found


def _index_statements(
    indexes: list[tuple[str, bool, list[str]]], plan: AlterPlan, schema: str
) -> list[str]:
    """The old table's DuckDB indexes on the new one: by the dictionary's key of that name when
    there is one, else on the same columns (renamed); an index that lost a column goes."""
    renamed = {source.lower(): new for new, source in _new_names(plan).items()}
    statements = []
    for name, unique, columns in indexes:
        key = plan.table.key(name)
        if key is not None:
            targets = list(key.columns)
        else:
            targets = [renamed.get(c.lower(), "") for c in columns]
            if not targets or not all(targets):
                continue
        statements.append(
            f"CREATE {'UNIQUE ' if unique else ''}INDEX {quoted(name)} ON "
            f"{_qualified(schema, plan.table.name)} ({', '.join(quoted(c) for c in targets)})"
        )
    return statements


def _new_names(plan: AlterPlan) -> dict[str, str]:
    """new column name (as declared) -> its old column's name."""
    return {
        c.name: plan.sources[c.name.lower()]
        for c in plan.table.columns
        if c.name.lower() in plan.sources
    }
