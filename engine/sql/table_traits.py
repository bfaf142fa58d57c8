"""What drydock's MySQL adaptations need to know about an internal table, read once and kept:
its AUTO_INCREMENT column (the reserved sequence its default names, engine/sql/mysql_ddl.py) and its
ON UPDATE CURRENT_TIMESTAMP columns (the reserved comment), its keys, and its MySQL definition as
declared (engine/dictionary, None for a table without one) for result column definitions. Reading
duckdb_columns() and the dictionary costs milliseconds, which an INSERT, an UPDATE or a SELECT
should not pay each time.

Every DDL statement and every end of an explicit transaction drops what is kept
(:meth:`TableTraits.changed`); a read that overlapped such a change is not kept (a generation
counter), so a kept entry always describes a committed definition no DDL has changed since.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from typing import Any

from drydock.engine.dictionary import store
from drydock.engine.dictionary.model import ForeignKeyDef, TableDef, table_from_json
from drydock.engine.session import INTERNAL
from drydock.engine.sql.mysql_ddl import ON_UPDATE_MARK, SEQUENCE_PREFIX

_NEXTVAL = re.compile(r"nextval\('([^']*" + SEQUENCE_PREFIX + r"[0-9a-f]+)'\)")
MAX_TABLES = 4096


@dataclass(frozen=True)
class Traits:
    columns: tuple[str, ...] = ()  # in table order
    auto_increment: tuple[str, str] | None = None  # (column, 'schema.sequence')
    on_update: tuple[tuple[str, str], ...] = field(default_factory=tuple)  # (column, mark)
    # the PRIMARY KEY and every UNIQUE key whose columns are all NOT NULL: what a GROUP BY
    # makes the table's other columns functionally dependent on (engine/sql/group_by_keys.py)
    keys: tuple[tuple[str, ...], ...] = ()
    # the declared MySQL definition (engine/dictionary), None for a table without one
    definition: TableDef | None = None
    # the foreign keys of other tables (or its own) that reference it: (child, key)
    referenced_by: tuple[tuple[TableDef, ForeignKeyDef], ...] = ()


class TableTraits:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._generation = 0
        self._items: dict[tuple[str, str], Traits] = {}

    def changed(self) -> None:
        with self._lock:
            self._generation += 1
            self._items.clear()

    @property
    def generation(self) -> int:
        """Counts the changes: equal at two moments when no definition changed in between."""
        with self._lock:
            return self._generation

    def get(
        self, cursor: Any, schema: str, table: str, cache: bool = True, keep: bool | None = None
    ) -> Traits:
        """The traits of internal ``schema.table`` (empty when it has no columns). ``cache`` is
        False inside an explicit transaction, whose reads may see uncommitted definitions.
        ``keep`` (default: ``cache``) False uses what is kept but keeps no new read: a
        transaction's snapshot may be older than what is committed."""
        keep = cache if keep is None else keep
        key = (schema.lower(), table.lower())
        with self._lock:
            hit = self._items.get(key) if cache else None
            generation = self._generation
        if hit is not None:
            return hit
        traits = _read(cursor, schema, table)
        if keep:
            with self._lock:
                if generation == self._generation:
                    if len(self._items) >= MAX_TABLES:
                        self._items.clear()
                    self._items[key] = traits
        return traits


def _read(cursor: Any, schema: str, table: str) -> Traits:
    rows = cursor.execute(
        "SELECT column_name, column_default, comment, is_nullable FROM duckdb_columns() "
        "WHERE database_name = ? "
        "AND schema_name = ? AND table_name = ? ORDER BY column_index",
        [INTERNAL, schema, table],
    ).fetchall()
    auto_increment = None
    on_update = []
    for name, default, comment, _nullable in rows:
        match = _NEXTVAL.search(str(default or ""))
        if match and auto_increment is None:
            auto_increment = (str(name), match.group(1))
        if str(comment or "").startswith(ON_UPDATE_MARK):
            on_update.append((str(name), str(comment)))
    return Traits(
        columns=tuple(str(r[0]) for r in rows),
        auto_increment=auto_increment,
        on_update=tuple(on_update),
        keys=_keys(cursor, schema, table, {str(r[0]).lower() for r in rows if not r[3]}),
        definition=store.load(cursor, schema, table) if rows else None,
        referenced_by=_referenced_by(cursor, schema, table) if rows else (),
    )


def _referenced_by(
    cursor: Any, schema: str, table: str
) -> tuple[tuple[TableDef, ForeignKeyDef], ...]:
    """Every dictionary foreign key whose parent is ``schema.table`` (engine/sql/
    enforce_foreign_keys.py), read from the definitions that have foreign keys."""
    rows = cursor.execute(
        f"SELECT definition FROM {store.TABLE} WHERE definition NOT LIKE '%\"foreign_keys\":[]%'"
    ).fetchall()
    found = []
    for (text,) in rows:
        child = table_from_json(text)
        for fk in child.foreign_keys:
            if (fk.ref_schema.lower(), fk.ref_table.lower()) == (schema.lower(), table.lower()):
                found.append((child, fk))
    return tuple(found)


def _keys(cursor: Any, schema: str, table: str, not_null: set[str]) -> tuple[tuple[str, ...], ...]:
    rows = cursor.execute(
        "SELECT constraint_type, constraint_column_names FROM duckdb_constraints() "
        "WHERE database_name = ? AND schema_name = ? AND table_name = ? "
        "AND constraint_type IN ('PRIMARY KEY', 'UNIQUE')",
        [INTERNAL, schema, table],
    ).fetchall()
    return tuple(
        tuple(str(c) for c in columns)
        for kind, columns in rows
        if kind == "PRIMARY KEY" or all(str(c).lower() in not_null for c in columns)
    )
