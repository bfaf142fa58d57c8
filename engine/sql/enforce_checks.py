"""CHECK constraints of internal tables (MySQL 8.0 manual 15.1.20.6), from the data dictionary:
a row whose check is FALSE (NULL passes) is 3819 "Check constraint 'name' is violated.", in any
sql_mode; INSERT IGNORE skips the row with that warning.

Checked before the statement runs (so an explicit transaction survives, as in MySQL) for
``INSERT … VALUES`` naming every column a check reads and for single-table UPDATE; anything else
meets DuckDB's own CHECK, whose error engine/sql/duckdb_errors.py answers as 3819 with the name
:func:`names` gives it.
"""

from __future__ import annotations

from typing import Any

import sqlglot
from sqlglot import exp

from drydock.engine.dictionary.model import CheckDef, TableDef
from drydock.engine.errors import Errors
from drydock.engine.results import Diagnostic
from drydock.grammar.sql import DrydockMySQL


def parsed(check: CheckDef) -> exp.Expr | None:
    try:
        return sqlglot.parse_one(check.expression, read=DrydockMySQL)
    except sqlglot.errors.ParseError:
        return None


def _columns(node: exp.Expr) -> set[str]:
    return {c.name.lower() for c in node.find_all(exp.Column)}


def names(table: TableDef) -> tuple[tuple[str, str], ...]:
    """(name, the condition as DuckDB prints it, without spaces and parentheses) of each
    enforced check: what the DuckDB error's expression is matched against."""
    found = []
    for check in table.checks:
        node = parsed(check)
        if check.enforced and node is not None:
            found.append((check.name, _bare(node.sql(dialect="duckdb"))))
    return tuple(found)


# what two printings of one condition may differ in: spacing, parentheses, identifier quoting
_LAYOUT = str.maketrans("", "", ' \t\n()"')


def _bare(text: str) -> str:
    return text.translate(_LAYOUT).lower()


def violated(checks: tuple[tuple[str, str], ...], expression: str) -> str:
    """The name of the check whose DuckDB text is ``expression`` (the only one, when there is
    one), else DuckDB's text."""
    wanted = _bare(expression)
    for name, text in checks:
        if text == wanted:
            return name
    return checks[0][0] if len(checks) == 1 else expression


def insert_rows(
    insert: exp.Insert,
    table: TableDef,
    names_given: list[str],
    kept: list[int],
    cursor: Any,
    ignore: bool,
    warnings: list[Diagnostic],
) -> list[int]:
    """The kept rows of ``INSERT … VALUES`` that pass every check it can judge."""
    source = insert.expression
    rows = [r for r in source.expressions if isinstance(r, exp.Tuple)]
    if not kept or not any(c.enforced for c in table.checks):
        return kept
    if any(r.find(exp.Var, exp.Placeholder) for r in rows):
        return kept  # DEFAULT or a parameter: DuckDB's own CHECK decides
    given = [n.lower() for n in names_given]
    tuples = ", ".join(rows[i].sql(dialect="duckdb") for i in kept)
    columns = ", ".join(f'"{n}"' for n in given)
    for check in table.checks:
        node = parsed(check)
        if not check.enforced or node is None or not _columns(node) <= set(given):
            continue
        condition = node.sql(dialect="duckdb")
        sql = (
            f"SELECT n FROM (SELECT row_number() OVER () AS n, * FROM (VALUES {tuples}) AS "
            f"v({columns})) WHERE coalesce(NOT ({condition}), FALSE) ORDER BY n"
        )
        failing = {kept[int(r[0]) - 1] for r in cursor.execute(sql).fetchall()}
        if failing and not ignore:
            raise Errors.CHECK_VIOLATED.error(name=check.name)
        for _ in failing:
            warnings.append(Errors.CHECK_VIOLATED.warning(name=check.name))
        kept = [i for i in kept if i not in failing]
        tuples = ", ".join(rows[i].sql(dialect="duckdb") for i in kept)
        if not kept:
            break
    return kept


def update_rows(update: exp.Update, table: TableDef, target_sql: str, cursor: Any) -> None:
    """3819 when ``update`` gives a row values one of the table's checks finds FALSE."""
    assigned = {
        a.this.name.lower(): a.expression
        for a in update.expressions
        if isinstance(a, exp.EQ) and isinstance(a.this, exp.Column)
    }
    where = update.args.get("where")
    condition_sql = f"coalesce(({where.this.sql(dialect='duckdb')}), FALSE)" if where else "TRUE"
    for check in table.checks:
        node = parsed(check)
        if not check.enforced or node is None or not _columns(node) & set(assigned):
            continue
        for column in list(node.find_all(exp.Column)):
            new = assigned.get(column.name.lower())
            if new is not None:
                column.replace(exp.Paren(this=new.copy()))
        sql = (
            f"SELECT 1 FROM {target_sql} WHERE {condition_sql} AND "
            f"coalesce(NOT ({node.sql(dialect='duckdb')}), FALSE) LIMIT 1"
        )
        if cursor.execute(sql).fetchall():
            raise Errors.CHECK_VIOLATED.error(name=check.name)
