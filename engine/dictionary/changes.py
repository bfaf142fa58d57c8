"""The dictionary statements of DDL that changes a definition without declaring one: CREATE TABLE
… LIKE (the source's definition, renamed), RENAME TABLE (the definition moves, and the foreign keys
of the schema's other tables follow it), CREATE/DROP INDEX (a key added or removed). Each
function reads the store on the DDL's own cursor, inside its transaction, and returns the
statements that run there (engine/dictionary/store.py); a table without a definition stays
without one.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from drydock.engine.dictionary import create_text, store
from drydock.engine.dictionary.model import KeyDef, TableDef


def copied(cursor: Any, source: tuple[str, str], target: tuple[str, str]) -> list[str]:
    """CREATE TABLE target LIKE source: MySQL copies the columns, keys and checks, not the
    foreign keys (manual 15.1.20.3); generated check names follow the new table's name."""
    definition = store.load(cursor, *source)
    if definition is None:
        return []
    return [store.save_sql(like_copy(definition, *target))]


def like_copy(definition: TableDef, schema: str, name: str) -> TableDef:
    """What CREATE TABLE name LIKE definition declares: its columns, keys, checks and options,
    no foreign keys; generated check names follow the new name."""
    checks = tuple(
        replace(c, name=_renamed(c.name, definition.name, name, "_chk_")) for c in definition.checks
    )
    return replace(definition, schema=schema, name=name, foreign_keys=(), checks=checks)


def like_create_sql(definition: TableDef, schema: str, name: str) -> str | None:
    """CREATE TABLE … LIKE as the MySQL CREATE TABLE it stands for (create_text.py), so the copy
    is created, declared and enforced as the original was; None when a column has no MySQL type
    (DuckDB's own, FLOAT[3]): the copy is then made from DuckDB's types."""
    copy = like_copy(definition, schema, name)
    if not all(c.is_mysql_type for c in copy.columns):
        return None
    body = ",\n  ".join(create_text.lines(copy, [(c.name, "") for c in copy.columns]))
    options = create_text.options(copy, None).removeprefix(f"ENGINE={copy.engine}").strip()
    return f"CREATE TABLE {create_text.quote(name)} (\n  {body}\n) {options}"


def renamed(cursor: Any, source: tuple[str, str], target: tuple[str, str]) -> list[str]:
    """RENAME TABLE source TO target: the definition under its new name (generated constraint
    names follow it, as in MySQL 8.0), and every foreign key of the old schema that referenced
    it now references the new name."""
    statements = []
    definition = store.load(cursor, *source)
    if definition is not None:
        statements += [store.delete_sql(*source), store.save_sql(moved(definition, *target))]
    return statements + referencing_renamed(cursor, source, target)


def referencing_renamed(cursor: Any, source: tuple[str, str], target: tuple[str, str]) -> list[str]:
    """The definitions (of any schema) whose foreign keys referenced ``source``, now
    referencing ``target``."""
    statements = []
    for other in store.load_with_foreign_keys(cursor):
        if (other.schema.lower(), other.name.lower()) in (
            (source[0].lower(), source[1].lower()),
            (target[0].lower(), target[1].lower()),
        ):
            continue
        fks = tuple(
            replace(fk, ref_schema=target[0], ref_table=target[1])
            if fk.ref_schema.lower() == source[0].lower()
            and fk.ref_table.lower() == source[1].lower()
            else fk
            for fk in other.foreign_keys
        )
        if fks != other.foreign_keys:
            statements.append(store.save_sql(replace(other, foreign_keys=fks)))
    return statements


def moved(definition: TableDef, schema: str, name: str) -> TableDef:
    """``definition`` under a new name: generated constraint names (``t_ibfk_N``, ``t_chk_N``)
    follow it, as in MySQL 8.0."""
    old = definition.name
    fks = tuple(
        replace(
            fk,
            name=_renamed(fk.name, old, name, "_ibfk_"),
            ref_schema=schema if fk.ref_table.lower() == old.lower() else fk.ref_schema,
            ref_table=name if fk.ref_table.lower() == old.lower() else fk.ref_table,
        )
        for fk in definition.foreign_keys
    )
    checks = tuple(replace(c, name=_renamed(c.name, old, name, "_chk_")) for c in definition.checks)
    return replace(definition, schema=schema, name=name, foreign_keys=fks, checks=checks)


def _renamed(constraint: str, old: str, new: str, infix: str) -> str:
    prefix = f"{old}{infix}"
    if constraint.lower().startswith(prefix.lower()) and constraint[len(prefix) :].isdigit():
        return f"{new}{infix}{constraint[len(prefix) :]}"
    return constraint


def with_key(definition: TableDef, key: KeyDef) -> TableDef:
    return replace(definition, keys=(*definition.keys, key))


def without_key(definition: TableDef, name: str) -> TableDef:
    lowered = name.lower()
    return replace(definition, keys=tuple(k for k in definition.keys if k.name.lower() != lowered))
