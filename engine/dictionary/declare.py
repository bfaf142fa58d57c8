"""The dictionary's values from MySQL's DDL as sqlglot parses it: a CREATE TABLE's columns, keys,
foreign keys and checks (and, for ALTER TABLE, one column or constraint at a time), named as MySQL
names what the user left unnamed (manual 15.1.20: a key after its first column, ``t_ibfk_N``,
``t_chk_N``, the index InnoDB adds for a foreign key no key supports).

Read the AST before engine/sql/mysql_ddl.py adapts it to DuckDB: that adaptation drops what
DuckDB cannot store (display widths, CHARACTER SET, KEY lines, ON UPDATE).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from sqlglot import exp

from drydock.engine.dictionary.model import (
    CheckDef,
    ColumnDef,
    ForeignKeyDef,
    KeyDef,
    KeyPart,
    TableDef,
)
from drydock.engine.errors import Errors

_T = exp.DataType.Type
# sqlglot type -> (MySQL DATA_TYPE, unsigned)
_SIMPLE: dict[Any, tuple[str, bool]] = {
    _T.TINYINT: ("tinyint", False),
    _T.UTINYINT: ("tinyint", True),
    _T.SMALLINT: ("smallint", False),
    _T.USMALLINT: ("smallint", True),
    _T.MEDIUMINT: ("mediumint", False),
    _T.UMEDIUMINT: ("mediumint", True),
    _T.INT: ("int", False),
    _T.UINT: ("int", True),
    _T.BIGINT: ("bigint", False),
    _T.UBIGINT: ("bigint", True),
    _T.DECIMAL: ("decimal", False),
    _T.UDECIMAL: ("decimal", True),
    _T.FLOAT: ("float", False),
    _T.DOUBLE: ("double", False),
    _T.UDOUBLE: ("double", True),
    _T.CHAR: ("char", False),
    _T.NCHAR: ("char", False),
    _T.VARCHAR: ("varchar", False),
    _T.NVARCHAR: ("varchar", False),
    _T.TINYTEXT: ("tinytext", False),
    _T.TEXT: ("text", False),
    _T.MEDIUMTEXT: ("mediumtext", False),
    _T.LONGTEXT: ("longtext", False),
    _T.BINARY: ("binary", False),
    _T.VARBINARY: ("varbinary", False),
    _T.TINYBLOB: ("tinyblob", False),
    _T.BLOB: ("blob", False),
    _T.MEDIUMBLOB: ("mediumblob", False),
    _T.LONGBLOB: ("longblob", False),
    _T.DATE: ("date", False),
    _T.DATETIME: ("datetime", False),
    _T.TIMESTAMP: ("datetime", False),
    _T.TIMESTAMPTZ: ("timestamp", False),
    _T.TIME: ("time", False),
    _T.YEAR: ("year", False),
    _T.JSON: ("json", False),
    _T.BIT: ("bit", False),
    _T.ENUM: ("enum", False),
    _T.SET: ("set", False),
    _T.GEOMETRY: ("geometry", False),
    _T.BOOLEAN: ("tinyint", False),
    _T.SERIAL: ("bigint", True),
}
_SINGLE_PRECISION_BITS = 24
# TEXT(n) / BLOB(n): the smallest type holding n characters (4 bytes each in utf8mb4) / bytes
_SIZED = {
    "text": ((255, "tinytext"), (65535, "text"), (16777215, "mediumtext"), (None, "longtext")),
    "blob": ((255, "tinyblob"), (65535, "blob"), (16777215, "mediumblob"), (None, "longblob")),
}
_UNIQUE_COLUMN_KINDS = (exp.UniqueColumnConstraint,)


def table_def(create: exp.Create, schema: str) -> TableDef:
    """The definition a MySQL CREATE TABLE declares (not CREATE TABLE … AS SELECT / LIKE, whose
    columns come from elsewhere: the caller reads those from DuckDB)."""
    table = create.find(exp.Table)
    name = table.name if table is not None else ""
    body = create.this
    elements = body.expressions if isinstance(body, exp.Schema) else []
    columns: list[ColumnDef] = []
    keys: list[KeyDef] = []
    foreign_keys: list[ForeignKeyDef] = []
    checks: list[CheckDef] = []
    for element in elements:
        if isinstance(element, exp.ColumnDef):
            column, inline_keys, inline_checks = column_def(element)
            columns.append(column)
            keys.extend(inline_keys)
            checks.extend(inline_checks)
    draft = TableDef(schema=schema, name=name, columns=tuple(columns))
    for element in elements:
        if isinstance(element, exp.ColumnDef):
            continue
        draft = add_constraint(draft, element, keys, foreign_keys, checks)
    # inline checks and keys took placeholder names: name everything in declaration order
    draft = replace(draft, keys=tuple(keys), foreign_keys=tuple(foreign_keys))
    draft = _name_keys(draft)
    draft = replace(draft, checks=tuple(_name_checks(name, checks)))
    draft = _primary_key_not_null(draft)
    return _table_options(create, _foreign_key_indexes(draft))


def column_def(node: exp.ColumnDef) -> tuple[ColumnDef, list[KeyDef], list[CheckDef]]:
    """A column definition and the keys/checks written inline in it (PRIMARY KEY, UNIQUE,
    CHECK; unnamed: :func:`table_def` names them)."""
    kind = node.args.get("kind")
    column = _type(node.name, kind if isinstance(kind, exp.DataType) else None)
    keys: list[KeyDef] = []
    checks: list[CheckDef] = []
    if isinstance(kind, exp.DataType) and kind.this == _T.SERIAL:
        column = replace(column, nullable=False, auto_increment=True)
        keys.append(KeyDef(name="", kind="UNIQUE", parts=(KeyPart(node.name),)))
    for constraint in node.args.get("constraints") or []:
        c = constraint.args.get("kind") if isinstance(constraint, exp.ColumnConstraint) else None
        if isinstance(c, exp.NotNullColumnConstraint):
            column = replace(column, nullable=bool(c.args.get("allow_null")))
        elif isinstance(c, exp.AutoIncrementColumnConstraint):
            column = replace(column, auto_increment=True)
        elif isinstance(c, exp.ZeroFillColumnConstraint):
            column = replace(column, zerofill=True, unsigned=True)
        elif isinstance(c, exp.CommentColumnConstraint):
            column = replace(column, comment=c.this.name if c.this is not None else "")
        elif isinstance(c, exp.CharacterSetColumnConstraint):
            column = replace(column, charset=c.this.name.lower())
        elif isinstance(c, exp.CollateColumnConstraint):
            # the MySQL name, also once engine/sql/collation.py has put DuckDB's in its place
            collation = constraint.meta.get("mysql_collation") or c.meta.get(
                "mysql_collation", c.this.name.lower()
            )
            column = replace(column, collation=collation, charset=collation.split("_")[0])
        elif isinstance(c, exp.DefaultColumnConstraint):
            column = replace(column, default=_default_text(c.this))
        elif isinstance(c, exp.OnUpdateColumnConstraint):
            column = replace(column, on_update=_default_text(c.this))
        elif isinstance(c, exp.PrimaryKeyColumnConstraint):
            column = replace(column, nullable=False)
            keys.append(KeyDef(name="PRIMARY", kind="PRIMARY", parts=(KeyPart(node.name),)))
        elif isinstance(c, _UNIQUE_COLUMN_KINDS):
            keys.append(KeyDef(name="", kind="UNIQUE", parts=(KeyPart(node.name),)))
        elif isinstance(c, exp.CheckColumnConstraint):
            checks.append(CheckDef(name="", expression=_sql(c.this)))
    if not column.is_string:  # CHARACTER SET on a number means nothing to MySQL either
        column = replace(column, charset=None, collation=None)
    return column, keys, checks


def add_constraint(
    table: TableDef,
    element: exp.Expr,
    keys: list[KeyDef],
    foreign_keys: list[ForeignKeyDef],
    checks: list[CheckDef],
) -> TableDef:
    """Append the key, foreign key or check ``element`` (a table-level clause of CREATE TABLE or
    ALTER TABLE … ADD) to the lists; unnamed ones get their MySQL names later."""
    name = ""
    if isinstance(element, exp.Constraint):  # CONSTRAINT name <clause>
        name = element.name
        inner = element.expressions
        for clause in inner:
            add_constraint(table, _with_name(clause, name), keys, foreign_keys, checks)
        return table
    if isinstance(element, exp.PrimaryKey):
        keys.append(KeyDef("PRIMARY", "PRIMARY", _parts(element.expressions)))
    elif isinstance(element, exp.UniqueColumnConstraint):
        inner = element.this
        key_name = inner.this.name if isinstance(inner, exp.Schema) and inner.this else ""
        parts = inner.expressions if isinstance(inner, exp.Schema) else []
        keys.append(
            KeyDef(key_name or element.meta.get("constraint_name", ""), "UNIQUE", _parts(parts))
        )
    elif isinstance(element, exp.IndexColumnConstraint):
        kind = "FULLTEXT" if str(element.args.get("kind") or "").upper() == "FULLTEXT" else "INDEX"
        key_name = element.this.name if element.this is not None else ""
        keys.append(KeyDef(key_name, kind, _parts(element.expressions)))
    elif isinstance(element, exp.ForeignKey):
        foreign_keys.append(_foreign_key(table, element))
    elif isinstance(element, exp.CheckColumnConstraint):
        checks.append(CheckDef(element.meta.get("constraint_name", ""), _sql(element.this)))
    else:
        raise Errors.NOT_SUPPORTED.error(what=f"the table clause {element.sql('mysql')[:60]}")
    return table


def _with_name(clause: exp.Expr, name: str) -> exp.Expr:
    clause.meta["constraint_name"] = name
    return clause


def _foreign_key(table: TableDef, element: exp.ForeignKey) -> ForeignKeyDef:
    reference = element.args.get("reference")
    target = reference.this if isinstance(reference, exp.Reference) else None
    ref_table = target.this if isinstance(target, exp.Schema) else None
    on_delete = on_update = "NO ACTION"
    for option in (reference.args.get("options") if reference is not None else None) or []:
        text = " ".join(str(option).upper().split())
        for prefix in ("ON DELETE ", "ON UPDATE "):
            if text.startswith(prefix):
                action = text[len(prefix) :]
                if prefix == "ON DELETE ":
                    on_delete = action
                else:
                    on_update = action
    index_name = element.this.name if element.this is not None else ""
    return ForeignKeyDef(
        name=element.meta.get("constraint_name", ""),
        columns=tuple(e.name for e in element.expressions),
        ref_schema=(ref_table.text("db") if isinstance(ref_table, exp.Table) else "")
        or table.schema,
        ref_table=ref_table.name if isinstance(ref_table, exp.Table) else "",
        ref_columns=tuple(
            e.name for e in (target.expressions if isinstance(target, exp.Schema) else [])
        ),
        on_delete=on_delete,
        on_update=on_update,
        index_name=index_name,
    )


def _parts(expressions: list[exp.Expr]) -> tuple[KeyPart, ...]:
    parts = []
    for e in expressions:
        descending = False
        if isinstance(e, exp.Ordered):
            descending = bool(e.args.get("desc"))
            e = e.this
        if isinstance(e, exp.ColumnPrefix):
            length = e.expression
            parts.append(
                KeyPart(e.this.name, int(length.name) if length is not None else None, descending)
            )
        else:
            parts.append(KeyPart(e.name, None, descending))
    return tuple(parts)


def _name_keys(table: TableDef) -> TableDef:
    """MySQL names an unnamed key after its first column, then ``col_2``, ``col_3``…"""
    taken = {k.name.lower() for k in table.keys if k.name}
    named = []
    for key in table.keys:
        if not key.name:
            base = key.parts[0].column if key.parts else "key"
            candidate, n = base, 2
            while candidate.lower() in taken or candidate.upper() == "PRIMARY":
                candidate, n = f"{base}_{n}", n + 1
            key = replace(key, name=candidate)
            taken.add(candidate.lower())
        named.append(key)
    # MySQL lists the primary key first, then unique keys, then the others, in declared order
    order = {"PRIMARY": 0, "UNIQUE": 1}
    named.sort(key=lambda k: order.get(k.kind, 2))
    names = _numbered([f.name for f in table.foreign_keys], f"{table.name}_ibfk_")
    fks = tuple(replace(fk, name=n) for fk, n in zip(table.foreign_keys, names))
    return replace(table, keys=tuple(named), foreign_keys=fks)


def _name_checks(table: str, checks: list[CheckDef]) -> list[CheckDef]:
    names = _numbered([c.name for c in checks], f"{table}_chk_")
    return [replace(check, name=n) for check, n in zip(checks, names)]


def _numbered(names: list[str], prefix: str) -> list[str]:
    """The unnamed ("") of ``names`` as MySQL numbers them: ``prefix1``, ``prefix2``, … skipping
    the numbers a given name already takes."""
    used = {n for n in names if n}
    out, counter = [], 0
    for name in names:
        if not name:
            counter += 1
            while f"{prefix}{counter}" in used:
                counter += 1
            name = f"{prefix}{counter}"
        out.append(name)
    return out


def _foreign_key_indexes(table: TableDef) -> TableDef:
    """InnoDB's implicit index for a foreign key whose columns no key begins with (named by the
    constraint, else the FOREIGN KEY's index name, else the first column)."""
    keys = list(table.keys)
    for fk in table.foreign_keys:
        if any(k.columns[: len(fk.columns)] == fk.columns for k in keys):
            continue
        name = fk.name if not fk.name.startswith(f"{table.name}_ibfk_") else ""
        name = name or fk.index_name or fk.columns[0]
        keys.append(KeyDef(name, "INDEX", tuple(KeyPart(c) for c in fk.columns)))
    return replace(table, keys=tuple(keys))


def _primary_key_not_null(table: TableDef) -> TableDef:
    primary = table.primary_key
    if primary is None:
        return table
    columns = tuple(
        replace(c, nullable=False) if c.name.lower() in {p.lower() for p in primary.columns} else c
        for c in table.columns
    )
    return replace(table, columns=columns)


def _table_options(create: exp.Create, table: TableDef) -> TableDef:
    properties = create.args.get("properties")
    for prop in properties.expressions if isinstance(properties, exp.Properties) else []:
        if isinstance(prop, exp.SchemaCommentProperty):
            table = replace(table, comment=prop.this.name)
        elif isinstance(prop, exp.CharacterSetProperty):
            table = replace(table, charset=prop.this.name.lower())
        elif isinstance(prop, exp.CollateProperty):
            table = replace(table, collation=prop.this.name.lower())
    return table


def _type(name: str, kind: exp.DataType | None) -> ColumnDef:
    if kind is None:
        raise Errors.NOT_SUPPORTED.error(what=f"column {name} without a type")
    if kind.this not in _SIMPLE or kind.args.get("nested") or kind.args.get("values"):
        # not a MySQL type (DuckDB's FLOAT[3], a LIST, a STRUCT): kept in DuckDB's spelling;
        # readers describe such a column from DuckDB's own type (ColumnDef.is_mysql_type)
        return ColumnDef(name=name, data_type=kind.sql(dialect="duckdb").lower())
    data_type, unsigned = _SIMPLE[kind.this]
    params = [_int_param(p) for p in kind.expressions if not _is_string_literal(p)]
    column = ColumnDef(name=name, data_type=data_type, unsigned=unsigned)
    if kind.this == _T.BOOLEAN:
        return replace(column, length=1)
    if data_type in ("enum", "set"):
        return replace(column, values=tuple(p.name for p in kind.expressions))
    if data_type == "decimal":
        precision = params[0] if params else 10
        return replace(column, precision=precision, scale=params[1] if len(params) > 1 else 0)
    if data_type == "float" and len(params) == 1:
        return replace(
            column, data_type="double" if params[0] > _SINGLE_PRECISION_BITS else "float"
        )
    if data_type in ("float", "double") and len(params) == 2:
        return replace(column, precision=params[0], scale=params[1])
    if data_type in ("char", "binary", "bit"):
        return replace(column, length=params[0] if params else 1)
    if data_type in ("varchar", "varbinary"):
        # no length: DuckDB's spelling (MySQL requires one); described from DuckDB's type
        return replace(column, length=params[0] if params else None)
    if data_type in ("text", "blob") and params:
        per = 4 if data_type == "text" else 1
        sized = next(
            t for limit, t in _SIZED[data_type] if limit is None or params[0] * per <= limit
        )
        return replace(column, data_type=sized)
    if data_type in ("datetime", "timestamp", "time"):
        return replace(column, fsp=params[0] if params else 0)
    if data_type in ("tinyint", "smallint", "mediumint", "int", "bigint") and params:
        return replace(column, length=params[0])
    return column


def _int_param(param: exp.Expr) -> int:
    literal = param.this if isinstance(param, exp.DataTypeParam) else param
    try:
        return int(literal.name)
    except (AttributeError, ValueError):
        raise Errors.NOT_SUPPORTED.error(what=f"the type parameter {param.sql('mysql')}")


def _is_string_literal(param: exp.Expr) -> bool:
    return isinstance(param, exp.Literal) and param.is_string


def _default_text(value: exp.Expr | None) -> str | None:
    if value is None or isinstance(value, exp.Null):
        return None
    if isinstance(value, exp.CurrentTimestamp):
        precision = value.this
        return "CURRENT_TIMESTAMP" + (f"({precision.name})" if precision is not None else "")
    return _sql(value)


def _sql(node: exp.Expr) -> str:
    return node.sql(dialect="mysql")
