"""The AUTO_INCREMENT values a refused INSERT spends, as MySQL 8's InnoDB spends them
(innodb_autoinc_lock_mode 2; MySQL 8.0 manual 17.6.1.6): an INSERT … VALUES of n rows reserves
the values of its generated rows when it writes its first row and never gives them back; an
INSERT … SELECT reserves them in intervals of 1, 2, 4 … rows as it writes (:func:`bulk_reserved`
of the rows written before the refusal, the refused one included when it was being written).
So:

- a row refused while it is written — a duplicate key (1062) or a missing parent (1452) —
  spends every value the statement generates (the row's own included);
- a value refused before its row is written (1406, 1264, 1292, 1048, 3819, 1690 …) spends them
  all when that row is the second or a later one, none when it is the first (nothing was
  written yet);
- an error before any row (an unknown column, a privilege, a parse error) spends none.

This holds whichever side refuses: drydock's checks before DuckDB runs the statement
(engine/sql/enforcement.py: the value errors name their row, engine/sql/enforce_insert_select.py
notes the source row it refuses) or DuckDB itself (its constraint and conversion errors name
none: :func:`first_row_fails` evaluates the first row of VALUES alone to tell; for INSERT …
SELECT it is not known, and nothing is spent).
DuckDB's sequences are not transactional (a failed statement keeps what it drew), so the session
reads the sequence before the statement and moves it to ``before + spent`` afterwards, never
back (engine/sql/query.py).
"""

from __future__ import annotations

import re
from typing import Any

import duckdb
from sqlglot import exp

from drydock.engine.errors import DrydockError, Errors
from drydock.engine.sql import mysql_dml
from drydock.engine.sql.column_types import stored_types

# refused while the row is written: the values are reserved already (1451: the old row a
# REPLACE deletes is referenced)
_WRITTEN_ROW_ERRORS = frozenset(
    {Errors.DUP_ENTRY.code, Errors.NO_REFERENCED_ROW.code, Errors.ROW_IS_REFERENCED.code}
)
# SQLSTATE classes of a row's value refused (22: data exception, 23: integrity constraint), and
# the codes of such refusals in other classes (01000, HY000)
_ROW_STATES = ("22", "23")
_ROW_CODES = frozenset(
    {
        Errors.DATA_TRUNCATED.code,
        Errors.CHECK_VIOLATED.code,
        Errors.NO_DEFAULT_FOR_FIELD.code,
        Errors.TRUNCATED_WRONG_VALUE.code,
    }
)
_AT_ROW = re.compile(r"at row ([0-9]+)\s*$")


def spent(insert: exp.Insert, key: mysql_dml.AutoIncrement, exc: DrydockError, cursor: Any) -> int:
    """How many values of ``key``'s sequence InnoDB would have spent on ``insert`` refused with
    ``exc`` (see module docstring)."""
    written = exc.code in _WRITTEN_ROW_ERRORS
    if not (written or exc.sqlstate.startswith(_ROW_STATES) or exc.code in _ROW_CODES):
        return 0  # refused before any row
    at_row = _AT_ROW.search(exc.message)
    row = int(at_row.group(1)) if at_row is not None else insert.meta.get("refused_row")
    if not isinstance(insert.expression, exp.Values):
        if not key.generates or row is None:
            return 0  # DuckDB refused a row of the SELECT: which one is not known
        return bulk_reserved(int(row) if written else int(row) - 1)
    generated = mysql_dml.generated_rows(insert, key)
    if generated == 0 or written:
        return generated
    if row is not None:
        return generated if int(row) >= 2 else 0
    return 0 if first_row_fails(insert, cursor) else generated


# handler::update_auto_increment: a statement whose row count is not known (INSERT … SELECT)
# reserves its values in intervals of 1, 2, 4 … rows, each at most this many
_MAX_INTERVAL = 65536


def bulk_reserved(rows: int) -> int:
    """The values an INSERT … SELECT that wrote ``rows`` rows has reserved: whole intervals of
    1, 2, 4 … (InnoDB keeps an interval's unused values spent)."""
    reserved, interval = 0, 1
    while reserved < rows:
        reserved += interval
        interval = min(interval * 2, _MAX_INTERVAL)
    return reserved


def first_row_fails(insert: exp.Insert, cursor: Any) -> bool:
    """Whether the first VALUES row alone is refused by DuckDB: its values evaluated and cast to
    their columns' types. A single-row INSERT's error is its first row's."""
    source = insert.expression
    if not isinstance(source, exp.Values) or len(source.expressions) < 2:
        return True
    first = source.expressions[0]
    values = first.expressions if isinstance(first, exp.Tuple) else []
    table = mysql_dml.target_table(insert)
    if table is None:
        return True
    types = stored_types(cursor, table.text("db"), table.name, table.text("catalog"))
    named = insert.this.expressions if isinstance(insert.this, exp.Schema) else None
    names = [c.name.lower() for c in named] if named else list(types)
    probes = []
    for name, value in zip(names, values, strict=False):
        if isinstance(value, exp.Var) and value.name.upper() == "DEFAULT":
            continue
        text = value.sql(dialect="duckdb")
        column_type = types.get(name)  # DuckDB's own spelling of the column's type
        probes.append(f"CAST(({text}) AS {column_type})" if column_type else text)
    if not probes:
        return False
    try:
        cursor.execute(f"SELECT {', '.join(probes)}").fetchall()
    except duckdb.Error:
        return True
    return False
