"""ALTER TABLE on a definition: the table a MySQL ALTER TABLE leaves (manual 15.1.9), as a pure
function of the old definition and the statement's clauses (sqlglot nodes as grammar/sql.py
parses them), with MySQL's errors for what MySQL refuses.

:func:`plan_alter` also says where each new column's values come from (the old column, renamed or
retyped, or none for an added column) and what else the executor must do (a new AUTO_INCREMENT
start); engine/sql/mysql_alter.py carries the plan out on DuckDB. Clauses apply in order, each to
the result of the ones before, as MySQL validates a multi-clause ALTER as one new definition.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import sqlglot
from sqlglot import exp

from drydock.engine.dictionary import declare
from drydock.engine.dictionary import changes
from drydock.engine.dictionary.model import (
    CheckDef,
    ColumnDef,
    ForeignKeyDef,
    KeyDef,
    KeyPart,
    TableDef,
)
from drydock.engine.errors import Errors

# options that change how MySQL carries the ALTER out, never the table (manual 15.1.9)
_ACCEPTED_OPTIONS = (exp.AlgorithmProperty, exp.LockProperty, exp.EngineProperty)
_KEY_ORDER = {"PRIMARY": 0, "UNIQUE": 1}


@dataclass
class AlterPlan:
    table: TableDef
    # new column name (lowercased) -> the old column whose values it takes; absent: a new column
    sources: dict[str, str] = field(default_factory=dict)
    auto_increment_start: int | None = None  # AUTO_INCREMENT = n
    renamed_from: str = ""  # the old table name when RENAME TO changed it

    @property
    def old_name(self) -> str:
        return self.renamed_from or self.table.name


def apply_alter(table: TableDef, clauses: list[exp.Expr]) -> TableDef:
    """The definition ``table`` has after the ALTER TABLE ``clauses`` (actions and options)."""
    return plan_alter(table, clauses).table


def plan_alter(table: TableDef, clauses: list[exp.Expr]) -> AlterPlan:
    plan = AlterPlan(table=table, sources={c.name.lower(): c.name for c in table.columns})
    for clause in clauses:
        _apply(plan, clause)
    _check_auto_increment(plan.table)
    plan.table = replace(
        plan.table, keys=tuple(sorted(plan.table.keys, key=lambda k: _KEY_ORDER.get(k.kind, 2)))
    )
    return plan


def _apply(plan: AlterPlan, clause: exp.Expr) -> None:
    table = plan.table
    if isinstance(clause, exp.ColumnDef):
        plan.table = _add_column(table, clause)
    elif isinstance(clause, exp.ModifyColumn):
        _modify_column(plan, clause)
    elif isinstance(clause, exp.RenameColumn):
        _rename_column(plan, clause.this.name, clause.args["to"].name)
    elif isinstance(clause, exp.AlterColumn):
        plan.table = _alter_column(table, clause)
    elif isinstance(clause, exp.Drop):
        _drop(plan, clause)
    elif isinstance(clause, exp.DropPrimaryKey):
        if table.primary_key is None:
            raise Errors.CANT_DROP_KEY.error(key="PRIMARY")
        plan.table = _drop_key(table, "PRIMARY")
    elif isinstance(clause, exp.AddConstraint):
        plan.table = _add_constraints(table, clause.expressions)
    elif isinstance(clause, exp.RenameIndex):
        plan.table = _rename_key(table, clause.this.name, clause.args["to"].name)
    elif isinstance(clause, exp.AlterRename):
        target = clause.this
        new_name = target.name if isinstance(target, (exp.Table, exp.Identifier)) else ""
        if new_name and new_name != table.name:
            plan.renamed_from = plan.renamed_from or table.name
            plan.table = changes.moved(table, table.schema, new_name)
    elif isinstance(clause, exp.AutoIncrementProperty):
        value = clause.this
        if isinstance(value, exp.Literal) and value.name.isdigit():
            plan.auto_increment_start = int(value.name)
    elif isinstance(clause, exp.SchemaCommentProperty):
        plan.table = replace(table, comment=clause.this.name)
    elif isinstance(clause, exp.CharacterSetProperty):
        plan.table = replace(table, charset=clause.this.name.lower())
    elif isinstance(clause, exp.CollateProperty):
        collation = clause.this.name.lower()
        plan.table = replace(table, collation=collation, charset=collation.split("_")[0])
    elif isinstance(clause, _ACCEPTED_OPTIONS) or type(clause).__name__ == "AlterKeys":
        return
    else:
        raise Errors.NOT_SUPPORTED.error(what=f"ALTER TABLE {clause.sql('mysql')[:60]}")


# -- columns ------------------------------------------------------------------------------------
def _add_column(table: TableDef, node: exp.ColumnDef) -> TableDef:
    column, keys, checks = declare.column_def(node)
    if table.column(column.name) is not None:
        raise Errors.DUP_FIELDNAME.error(column=column.name)
    columns = _placed(list(table.columns), column, node.args.get("position"), table)
    table = replace(table, columns=tuple(columns))
    return _with_inline(table, column.name, keys, checks)


def _modify_column(plan: AlterPlan, clause: exp.ModifyColumn) -> None:
    node = clause.this
    table = plan.table
    old_name = clause.args["rename_from"].name if clause.args.get("rename_from") else node.name
    old = table.column(old_name)
    if old is None:
        raise Errors.BAD_FIELD.error(column=old_name, where=table.name)
    column, keys, checks = declare.column_def(node)
    if column.name.lower() != old.name.lower():
        _rename_column(plan, old.name, column.name)
        table = plan.table
    rest = [c for c in table.columns if c.name.lower() != column.name.lower()]
    position = node.args.get("position")
    if position is None:
        index = [c.name.lower() for c in table.columns].index(column.name.lower())
        rest.insert(index, column)
        columns = rest
    else:
        columns = _placed(rest, column, position, table)
    plan.table = _with_inline(replace(table, columns=tuple(columns)), column.name, keys, checks)
    plan.table = _primary_key_not_null(plan.table)


def _rename_column(plan: AlterPlan, old_name: str, new_name: str) -> None:
    table = plan.table
    old = table.column(old_name)
    if old is None:
        raise Errors.BAD_FIELD.error(column=old_name, where=table.name)
    if old.name.lower() == new_name.lower():
        plan.table = table.with_columns(
            tuple(replace(c, name=new_name) if c is old else c for c in table.columns)
        )
        return
    if table.column(new_name) is not None:
        raise Errors.DUP_FIELDNAME.error(column=new_name)
    _refuse_if_checked(table, old.name)
    source = plan.sources.pop(old.name.lower(), None)
    if source is not None:
        plan.sources[new_name.lower()] = source

    def renamed(name: str) -> str:
        return new_name if name.lower() == old.name.lower() else name

    plan.table = replace(
        table,
        columns=tuple(replace(c, name=new_name) if c is old else c for c in table.columns),
        keys=tuple(
            replace(k, parts=tuple(replace(p, column=renamed(p.column)) for p in k.parts))
            for k in table.keys
        ),
        foreign_keys=tuple(
            replace(f, columns=tuple(renamed(c) for c in f.columns)) for f in table.foreign_keys
        ),
    )


def _alter_column(table: TableDef, clause: exp.AlterColumn) -> TableDef:
    name = clause.this.name
    column = table.column(name)
    if column is None:
        raise Errors.BAD_FIELD.error(column=name, where=table.name)
    if clause.args.get("drop"):
        changed = replace(column, default=None)
    elif clause.args.get("default") is not None:
        changed = replace(column, default=declare._default_text(clause.args["default"]))
    else:
        raise Errors.NOT_SUPPORTED.error(what=f"ALTER TABLE {clause.sql('mysql')[:60]}")
    return table.with_columns(tuple(changed if c is column else c for c in table.columns))


def _drop_column(plan: AlterPlan, name: str) -> None:
    table = plan.table
    column = table.column(name)
    if column is None:
        raise Errors.CANT_DROP_KEY.error(key=name)
    lowered = column.name.lower()
    for fk in table.foreign_keys:
        if lowered in (c.lower() for c in fk.columns):
            raise Errors.FK_COLUMN_CANNOT_DROP.error(column=column.name, name=fk.name)
    # a check on this column alone goes with it; one that reads other columns too refuses (3959)
    checks = tuple(c for c in table.checks if check_columns(c) != {lowered})
    _refuse_if_checked(replace(table, checks=checks), column.name)
    table = replace(table, checks=checks)
    remaining = tuple(c for c in table.columns if c is not column)
    if not remaining:
        raise Errors.CANT_REMOVE_ALL_FIELDS.error()
    keys = []
    for key in table.keys:  # MySQL takes the column out of every key; a key left empty goes
        parts = tuple(p for p in key.parts if p.column.lower() != lowered)
        if parts:
            keys.append(replace(key, parts=parts))
    plan.sources.pop(lowered, None)
    plan.table = replace(table, columns=remaining, keys=tuple(keys))


def _refuse_if_checked(table: TableDef, column: str) -> None:
    for check in table.checks:
        if column.lower() in check_columns(check):
            raise Errors.DEPENDENT_BY_CHECK.error(name=check.name, column=column)


def check_columns(check: CheckDef) -> set[str]:
    """The columns a check's condition reads (lowercased)."""
    try:
        parsed = sqlglot.parse_one(check.expression, read="mysql")
    except sqlglot.errors.SqlglotError:
        return set()
    return {c.name.lower() for c in parsed.find_all(exp.Column)}


def _placed(
    columns: list[ColumnDef], column: ColumnDef, position: exp.Expr | None, table: TableDef
) -> list[ColumnDef]:
    """``column`` put where ``FIRST`` / ``AFTER c`` says (at the end without either)."""
    if not isinstance(position, exp.ColumnPosition):
        return [*columns, column]
    if str(position.args.get("position") or "").upper() == "FIRST":
        return [column, *columns]
    after = position.this.name if position.this is not None else ""
    names = [c.name.lower() for c in columns]
    if after.lower() not in names:
        raise Errors.BAD_FIELD.error(column=after, where=table.name)
    index = names.index(after.lower()) + 1
    return [*columns[:index], column, *columns[index:]]


def _with_inline(
    table: TableDef, column: str, keys: list[KeyDef], checks: list[CheckDef]
) -> TableDef:
    """A column definition's own PRIMARY KEY / UNIQUE / CHECK, added as table constraints."""
    for key in keys:
        table = _add_key(table, key)
    for check in checks:
        table = _add_check(table, check)
    return table


# -- keys, foreign keys, checks -------------------------------------------------------------------
def _add_constraints(table: TableDef, elements: list[exp.Expr]) -> TableDef:
    for element in elements:
        keys: list[KeyDef] = []
        foreign_keys: list[ForeignKeyDef] = []
        checks: list[CheckDef] = []
        declare.add_constraint(table, element, keys, foreign_keys, checks)
        for key in keys:
            table = _add_key(table, key)
        for fk in foreign_keys:
            table = _add_foreign_key(table, fk)
        check_node = element.find(exp.CheckColumnConstraint)
        enforced = check_node is None or check_node.args.get("enforced") is not False
        for check in checks:
            table = _add_check(table, replace(check, enforced=enforced))
    return table


def _add_key(table: TableDef, key: KeyDef) -> TableDef:
    for part in key.parts:
        if table.column(part.column) is None:
            raise Errors.KEY_COLUMN_MISSING.error(column=part.column)
    if key.kind == "PRIMARY":
        if table.primary_key is not None:
            raise Errors.MULTIPLE_PRI_KEY.error()
        key = replace(key, name="PRIMARY")
        table = replace(table, keys=(*table.keys, key))
        return _primary_key_not_null(table)
    name = key.name
    if not name:
        base = key.parts[0].column if key.parts else "key"
        name, n = base, 2
        while table.key(name) is not None or name.upper() == "PRIMARY":
            name, n = f"{base}_{n}", n + 1
    elif table.key(name) is not None or name.upper() == "PRIMARY":
        raise Errors.DUP_KEYNAME.error(key=name)
    return replace(table, keys=(*table.keys, replace(key, name=name)))


def _add_foreign_key(table: TableDef, fk: ForeignKeyDef) -> TableDef:
    for column in fk.columns:
        if table.column(column) is None:
            raise Errors.KEY_COLUMN_MISSING.error(column=column)
    names = {f.name.lower() for f in table.foreign_keys}
    if fk.name:
        if fk.name.lower() in names:
            raise Errors.FK_DUP_NAME.error(name=fk.name)
    else:
        prefix = f"{table.name}_ibfk_"
        numbers = [
            int(n[len(prefix) :])
            for n in names
            if n.startswith(prefix.lower()) and n[len(prefix) :].isdigit()
        ]
        fk = replace(fk, name=f"{table.name}_ibfk_{max(numbers, default=0) + 1}")
    table = replace(table, foreign_keys=(*table.foreign_keys, fk))
    if any(k.columns[: len(fk.columns)] == fk.columns for k in table.keys):
        return table
    # InnoDB's implicit index (declare._foreign_key_indexes names it the same way)
    index = fk.name if not fk.name.startswith(f"{table.name}_ibfk_") else ""
    index = index or fk.index_name or fk.columns[0]
    if table.key(index) is not None:
        raise Errors.DUP_KEYNAME.error(key=index)
    return replace(
        table, keys=(*table.keys, KeyDef(index, "INDEX", tuple(map(KeyPart, fk.columns))))
    )


def _add_check(table: TableDef, check: CheckDef) -> TableDef:
    names = {c.name.lower() for c in table.checks}
    if check.name:
        if check.name.lower() in names:
            raise Errors.CHECK_DUP_NAME.error(name=check.name)
    else:
        n = 1
        while f"{table.name}_chk_{n}".lower() in names:
            n += 1
        check = replace(check, name=f"{table.name}_chk_{n}")
    return replace(table, checks=(*table.checks, check))


def _drop(plan: AlterPlan, clause: exp.Drop) -> None:
    kind = str(clause.args.get("kind") or "COLUMN").upper()
    for target in clause.args.get("tables") or [clause.this]:
        name = target.name if target is not None else ""
        table = plan.table
        if kind == "COLUMN":
            if clause.args.get("exists") and table.column(name) is None:
                continue
            _drop_column(plan, name)
        elif kind == "INDEX":
            if table.key(name) is None:
                raise Errors.CANT_DROP_KEY.error(key=name)
            plan.table = _drop_key(table, name)
        elif kind == "FOREIGN KEY":
            if not any(f.name.lower() == name.lower() for f in table.foreign_keys):
                raise Errors.CANT_DROP_KEY.error(key=name)
            plan.table = _without_foreign_key(table, name)
        elif kind == "CHECK":
            if not any(c.name.lower() == name.lower() for c in table.checks):
                raise Errors.CHECK_NOT_FOUND.error(name=name)
            plan.table = _without_check(table, name)
        elif kind == "CONSTRAINT":
            plan.table = _drop_constraint(table, name)
        else:
            raise Errors.NOT_SUPPORTED.error(what=f"ALTER TABLE DROP {kind}")


def _drop_constraint(table: TableDef, name: str) -> TableDef:
    """DROP CONSTRAINT s: the key, foreign key or check named s (MySQL 8.0.19)."""
    if any(f.name.lower() == name.lower() for f in table.foreign_keys):
        return _without_foreign_key(table, name)
    if any(c.name.lower() == name.lower() for c in table.checks):
        return _without_check(table, name)
    key = table.key(name)
    if key is not None and key.unique:
        return _drop_key(table, key.name)
    raise Errors.CONSTRAINT_NOT_FOUND.error(name=name)


def _drop_key(table: TableDef, name: str) -> TableDef:
    key = table.key(name)
    assert key is not None
    rest = tuple(k for k in table.keys if k is not key)
    for fk in table.foreign_keys:  # the key a foreign key needs, unless another serves it
        served = key.columns[: len(fk.columns)] == fk.columns
        if served and not any(k.columns[: len(fk.columns)] == fk.columns for k in rest):
            raise Errors.DROP_INDEX_FK.error(key=key.name)
    return replace(table, keys=rest)


def _rename_key(table: TableDef, old: str, new: str) -> TableDef:
    key = table.key(old)
    if key is None or key.kind == "PRIMARY":
        raise Errors.KEY_DOES_NOT_EXIST.error(key=old, table=table.name)
    if old.lower() != new.lower() and (table.key(new) is not None or new.upper() == "PRIMARY"):
        raise Errors.DUP_KEYNAME.error(key=new)
    return replace(table, keys=tuple(replace(k, name=new) if k is key else k for k in table.keys))


def _without_foreign_key(table: TableDef, name: str) -> TableDef:
    kept = tuple(f for f in table.foreign_keys if f.name.lower() != name.lower())
    return replace(table, foreign_keys=kept)


def _without_check(table: TableDef, name: str) -> TableDef:
    return replace(table, checks=tuple(c for c in table.checks if c.name.lower() != name.lower()))


def _primary_key_not_null(table: TableDef) -> TableDef:
    primary = table.primary_key
    if primary is None:
        return table
    names = {c.lower() for c in primary.columns}
    return table.with_columns(
        tuple(replace(c, nullable=False) if c.name.lower() in names else c for c in table.columns)
    )


def _check_auto_increment(table: TableDef) -> None:
    """MySQL 1075: one AUTO_INCREMENT column at most, and a key must begin with it."""
    auto = [c for c in table.columns if c.auto_increment]
    if len(auto) > 1:
        raise Errors.WRONG_AUTO_KEY.error()
    if auto and not any(
        k.parts and k.parts[0].column.lower() == auto[0].name.lower() for k in table.keys
    ):
        raise Errors.WRONG_AUTO_KEY.error()
