"""MySQL's CREATE TABLE as ORMs write it, adapted to DuckDB on the sqlglot AST (MySQL 8.0 manual
15.1.20), after authorization (only the table being created is touched):

- a column's ``CHARACTER SET x`` dropped (its ``COLLATE y`` goes to engine/sql/collation.py):
  DuckDB stores every string as UTF-8, drydock's one character set;
- integer display widths (INT(11)) dropped, as MySQL 8 ignores them; FLOAT(p) is FLOAT for
  p ≤ 24 and DOUBLE above (manual 13.1.4); DOUBLE(m,d)/FLOAT(m,d) lose (m,d), as MySQL
  deprecates them;
- ``KEY``/``INDEX`` lines inside CREATE TABLE are dropped (they speed lookups up in MySQL and
  change no result; DuckDB has no inline index syntax); ``UNIQUE KEY name (…)`` stays a UNIQUE
  constraint;
- ``ON UPDATE CURRENT_TIMESTAMP[(n)]``: DuckDB has no such clause; the column is marked with a
  comment (:data:`ON_UPDATE_MARK`, which information_schema shows as MySQL's EXTRA, never as the
  comment) and engine/sql/mysql_dml.py sets it in every UPDATE that changes another column;
- ``AUTO_INCREMENT``: the column's default becomes ``nextval`` of a sequence of its own, named
  with drydock's reserved prefix (so no SQL can name it) and created just before the table
  (``AUTO_INCREMENT = n`` starts it at n);
- ``FOREIGN KEY`` clauses are dropped: drydock enforces them from the data dictionary with
  their CASCADE / SET NULL actions and FOREIGN_KEY_CHECKS (engine/sql/enforce_foreign_keys.py);
  a column's inline ``REFERENCES`` is dropped as MySQL ignores it; ``MEDIUMINT`` is INTEGER.

The statements to run before (sequences) and after (the ON UPDATE marks) are returned for the
executor (engine/sql/execution.py) to run in the same transaction as the CREATE TABLE; DROP TABLE
drops a table's sequence with it (:func:`sequences_of`).
"""

from __future__ import annotations

import re
import secrets
from typing import Any

from sqlglot import exp

from drydock.engine.dictionary import store as dictionary_store
from drydock.engine.session import INTERNAL
from drydock.engine.errors import Errors
from drydock.engine.sql.identifiers import quoted

SEQUENCE_PREFIX = "__drydock_ai_"
ON_UPDATE_MARK = "__drydock_on_update_current_timestamp"  # + "(n)" for a precision

_INTEGER_TYPES = {
    exp.DataType.Type.TINYINT,
    exp.DataType.Type.SMALLINT,
    exp.DataType.Type.MEDIUMINT,
    exp.DataType.Type.INT,
    exp.DataType.Type.BIGINT,
    exp.DataType.Type.UTINYINT,
    exp.DataType.Type.USMALLINT,
    exp.DataType.Type.UMEDIUMINT,
    exp.DataType.Type.UINT,
    exp.DataType.Type.UBIGINT,
}
_FLOAT_TYPES = {exp.DataType.Type.FLOAT, exp.DataType.Type.DOUBLE}
_SINGLE_PRECISION_BITS = 24


def adapt_create_table(create: exp.Create, schema: str) -> tuple[list[str], list[str]]:
    """Adapt ``create`` in place; returns the statements to run before it (CREATE SEQUENCE)
    and after it (the ON UPDATE marks)."""
    for data_type in create.find_all(exp.DataType):
        storage_type(data_type)
    for charset in list(create.find_all(exp.CharacterSetColumnConstraint)):
        constraint = charset.parent
        if isinstance(constraint, exp.ColumnConstraint):
            constraint.pop()
    body = create.this
    if isinstance(body, exp.Schema):
        body.set(
            "expressions",
            [
                e
                for e in body.expressions
                if not isinstance(e, exp.IndexColumnConstraint) and not _is_foreign_key(e)
            ],
        )
        for reference in list(body.find_all(exp.Reference)):
            if isinstance(reference.parent, exp.ColumnConstraint):
                reference.parent.pop()  # a column's REFERENCES: MySQL parses and ignores it
        for unique in body.find_all(exp.UniqueColumnConstraint):
            inner = unique.this
            if isinstance(inner, exp.Schema) and inner.this is not None:
                inner.set("this", None)  # UNIQUE KEY name (cols): DuckDB names no constraint
    after = _on_update_marks(create, schema)
    return _auto_increment(create, schema), after


# MySQL types DuckDB does not have, stored as the DuckDB type holding every value; the data
# dictionary (engine/dictionary/) keeps the declared type, its range and its members
_STORED_AS = {
    exp.DataType.Type.MEDIUMINT: exp.DataType.Type.INT,
    exp.DataType.Type.UMEDIUMINT: exp.DataType.Type.UINT,
    exp.DataType.Type.YEAR: exp.DataType.Type.SMALLINT,
    exp.DataType.Type.SET: exp.DataType.Type.VARCHAR,
    exp.DataType.Type.BIT: exp.DataType.Type.UBIGINT,  # BIT(n), n <= 64: an unsigned integer
    exp.DataType.Type.UDOUBLE: exp.DataType.Type.DOUBLE,
    exp.DataType.Type.UDECIMAL: exp.DataType.Type.DECIMAL,
    exp.DataType.Type.BINARY: exp.DataType.Type.BLOB,
    exp.DataType.Type.VARBINARY: exp.DataType.Type.BLOB,
}
# DuckDB's widest DECIMAL; MySQL's is 65 digits (README "MySQL compatibility")
DUCKDB_MAX_DECIMAL_DIGITS = 38


def storage_type(data_type: exp.DataType) -> None:
    """Turn a MySQL column type into the DuckDB type that stores it, in place (CREATE TABLE
    here, ALTER TABLE's rebuild through engine/sql/column_types.py)."""
    kind = _STORED_AS.get(data_type.this, data_type.this)
    if kind != data_type.this:
        data_type.set("this", kind)
        if kind != exp.DataType.Type.DECIMAL:
            data_type.set("expressions", [])
    if kind in _INTEGER_TYPES:
        data_type.set("expressions", [])
    elif kind in _FLOAT_TYPES:
        _float_type(data_type)
    elif kind == exp.DataType.Type.DECIMAL:
        _decimal_type(data_type)
    elif kind == exp.DataType.Type.ENUM:
        _enum_type(data_type)
    elif kind == exp.DataType.Type.TIME:
        # MySQL's TIME spans ±838:59:59, DuckDB's one day: an INTERVAL of microseconds holds it
        # (engine/sql/time_columns.py); the dictionary keeps TIME and its fsp
        data_type.set("this", exp.DataType.Type.INTERVAL)
        data_type.set("expressions", [])


def _enum_type(data_type: exp.DataType) -> None:
    """MySQL's ENUM holds '' (index 0, sorted first) besides its members: non-strict mode stores
    it for a non-member (warning 1265). DuckDB's ENUM holds only what it lists, so '' is listed
    first; the dictionary keeps the declared members, and strict mode refuses ''."""
    members = data_type.expressions
    if any(isinstance(m, exp.Literal) and m.is_string and m.name == "" for m in members):
        return
    data_type.set("expressions", [exp.Literal.string(""), *members])


def _decimal_type(data_type: exp.DataType) -> None:
    params = [_int_of(p) for p in data_type.expressions]
    if not params or params[0] <= DUCKDB_MAX_DECIMAL_DIGITS:
        return
    scale = min(params[1] if len(params) > 1 else 0, DUCKDB_MAX_DECIMAL_DIGITS)
    data_type.set(
        "expressions",
        [
            exp.DataTypeParam(this=exp.Literal.number(DUCKDB_MAX_DECIMAL_DIGITS)),
            exp.DataTypeParam(this=exp.Literal.number(scale)),
        ],
    )


def _int_of(param: exp.Expr) -> int:
    literal = param.this if isinstance(param, exp.DataTypeParam) else param
    return int(literal.name) if isinstance(literal, exp.Literal) and literal.name.isdigit() else 0


def _is_foreign_key(element: exp.Expr) -> bool:
    """A FOREIGN KEY clause: drydock enforces it from the data dictionary
    (engine/sql/enforce_foreign_keys.py); DuckDB's own refuses CASCADE / SET NULL and cannot be
    switched off by FOREIGN_KEY_CHECKS."""
    if isinstance(element, exp.ForeignKey):
        return True
    return isinstance(element, exp.Constraint) and any(
        isinstance(e, exp.ForeignKey) for e in element.expressions
    )


def _on_update_marks(create: exp.Create, schema: str) -> list[str]:
    table = create.find(exp.Table)
    marks = []
    for constraint in list(create.find_all(exp.OnUpdateColumnConstraint)):
        parent = constraint.parent
        if not isinstance(parent, exp.ColumnConstraint) or table is None:
            continue
        column = parent.parent
        if not isinstance(column, exp.ColumnDef):
            continue
        value = constraint.this
        if not isinstance(value, exp.CurrentTimestamp):
            raise Errors.NOT_SUPPORTED.error(what="ON UPDATE other than CURRENT_TIMESTAMP")
        precision = value.this.name if isinstance(value.this, exp.Literal) else ""
        mark = ON_UPDATE_MARK + (f"({precision})" if precision else "")
        parent.pop()
        marks.append(
            f"COMMENT ON COLUMN {quoted(schema)}.{quoted(table.name)}.{quoted(column.name)} "
            f"IS '{mark}'"
        )
    return marks


def _float_type(data_type: exp.DataType) -> None:
    params = data_type.expressions
    if data_type.this == exp.DataType.Type.FLOAT and len(params) == 1:
        literal = params[0].this if isinstance(params[0], exp.DataTypeParam) else params[0]
        bits = (
            int(literal.name) if isinstance(literal, exp.Literal) and literal.name.isdigit() else 0
        )
        if bits > _SINGLE_PRECISION_BITS:
            data_type.set("this", exp.DataType.Type.DOUBLE)
    data_type.set("expressions", [])


def _auto_increment(create: exp.Create, schema: str) -> list[str]:
    columns = [
        c
        for c in create.find_all(exp.ColumnDef)
        if any(
            isinstance(k.args.get("kind"), exp.AutoIncrementColumnConstraint)
            for k in c.args.get("constraints") or []
        )
    ]
    if not columns:
        return []
    if len(columns) > 1:  # MySQL 1075
        raise Errors.NOT_SUPPORTED.error(what="more than one AUTO_INCREMENT column in a table")
    if create.expression is not None:
        raise Errors.NOT_SUPPORTED.error(what="AUTO_INCREMENT in CREATE TABLE ... AS SELECT")
    start = _table_auto_increment(create)
    sequence = f"{SEQUENCE_PREFIX}{secrets.token_hex(8)}"
    qualified = f"{schema}.{sequence}"
    column = columns[0]
    constraints = []
    for constraint in column.args.get("constraints") or []:
        if isinstance(constraint.args.get("kind"), exp.AutoIncrementColumnConstraint):
            continue
        if isinstance(constraint.args.get("kind"), exp.DefaultColumnConstraint):
            raise Errors.NOT_SUPPORTED.error(what="a DEFAULT on an AUTO_INCREMENT column")
        constraints.append(constraint)
    default = exp.DefaultColumnConstraint(
        this=exp.Anonymous(this="nextval", expressions=[exp.Literal.string(qualified)])
    )
    constraints.append(exp.ColumnConstraint(kind=default))
    column.set("constraints", constraints)
    return [f'CREATE SEQUENCE {quoted(schema)}."{sequence}" START {start}']


def _table_auto_increment(create: exp.Create) -> int:
    properties = create.args.get("properties")
    if not isinstance(properties, exp.Properties):
        return 1
    for prop in properties.expressions:
        if isinstance(prop, exp.AutoIncrementProperty):
            value = prop.this
            properties.set("expressions", [p for p in properties.expressions if p is not prop])
            if isinstance(value, exp.Literal) and value.name.isdigit() and int(value.name) > 0:
                return int(value.name)
    return 1


_NEXTVAL = re.compile(r"nextval\('([^'.]+)\.(" + SEQUENCE_PREFIX + r"[0-9a-f]+)'\)")


def definitions_dropped(drop: exp.Drop) -> list[str]:
    """The data dictionary rows (engine/dictionary/store.py) a DROP TABLE / DROP DATABASE takes
    with it, deleted in the same transaction."""
    kind = str(drop.args.get("kind") or "").upper()
    if kind in ("SCHEMA", "DATABASE"):
        return [
            dictionary_store.delete_schema_sql(target.name)
            for target in drop.args.get("tables") or [drop.this]
            if isinstance(target, exp.Table)
        ]
    if kind != "TABLE":
        return []
    return [
        dictionary_store.delete_sql(table.text("db"), table.name)
        for table in drop.args.get("tables") or [drop.this]
        if isinstance(table, exp.Table) and table.text("catalog").lower() == INTERNAL
    ]


def sequences_of(cursor: Any, drop: exp.Drop) -> list[str]:
    """``DROP SEQUENCE`` statements for the AUTO_INCREMENT sequences of the internal tables a
    DROP TABLE names (qualified by the executor as ``internal.db.t``)."""
    if str(drop.args.get("kind") or "").upper() != "TABLE":
        return []
    statements = []
    for table in drop.args.get("tables") or [drop.this]:
        if not isinstance(table, exp.Table) or table.text("catalog").lower() != INTERNAL:
            continue
        rows = cursor.execute(
            "SELECT column_default FROM duckdb_columns() WHERE database_name = ? AND schema_name = "
            "? "
            "AND table_name = ? AND column_default LIKE ?",
            [INTERNAL, table.text("db"), table.name, f"%{SEQUENCE_PREFIX}%"],
        ).fetchall()
        for (default,) in rows:
            match = _NEXTVAL.search(str(default))
            if match:
                statements.append(
                    f'DROP SEQUENCE IF EXISTS {quoted(match.group(1))}."{match.group(2)}"'
                )
    return statements
