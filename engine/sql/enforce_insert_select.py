"""The rows of ``INSERT … SELECT`` against the target's keys, foreign keys and checks, as strict
MySQL 8 judges them row by row (engine/sql/enforcement.py judges their values first): 1062 for
a key another row already has (in the table, or an earlier row of the source; strings under
the column's collation), 1452 for a child row without its parent (``FOREIGN_KEY_CHECKS = 1``),
3819 for a check found FALSE. The first failing row's error is raised before DuckDB runs the
statement, so an explicit transaction survives it; under IGNORE those rows (by their number in
the source's reading order) are left out of it, with a warning each.

Each rule is a condition DuckDB evaluates over the source numbered in reading order
(``R(n, v0, v1, …)``, materialized once per query); a key or foreign key whose columns are not
all given takes defaults for the rest and is left to DuckDB, as for ``INSERT … VALUES``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import duckdb
import sqlglot
from sqlglot import exp

from drydock.engine.dictionary.model import TableDef
from drydock.engine.errors import Errors, ErrorSpec
from drydock.engine.results import Diagnostic
from drydock.engine.session import INTERNAL
from drydock.engine.sql import enforce_checks, enforce_foreign_keys
from drydock.engine.sql.column_types import stored_types
from drydock.engine.sql.enforce_sql import SUSPECT_ROWS, insensitive
from drydock.engine.sql.identifiers import quoted


@dataclass(frozen=True)
class _Rule:
    condition: str  # true for a row of the numbered source (aliased s) that breaks the rule
    spec: ErrorSpec
    arguments: dict[str, str]
    shown: str = "NULL"  # SQL of the duplicate key an error names as ``value`` (keys only)
    names_value: bool = False

    def error_arguments(self, shown: str) -> dict[str, str]:
        return {**self.arguments, "value": shown} if self.names_value else self.arguments


def enforce(
    insert: exp.Insert,
    table: TableDef,
    names: list[str],
    cursor: Any,
    ignore: bool,
    fk_checks: bool,
) -> list[Diagnostic]:
    """Raise the first failing row's error; under IGNORE, drop failing rows from the source and
    return their warnings. ``names``: the target column of each source column."""
    rules = _rules(insert, table, [n.lower() for n in names], fk_checks)
    if not rules:
        return []
    values = ", ".join(f"v{i}" for i in range(len(names)))
    source = insert.expression.sql(dialect="duckdb")
    # each value as the column stores it (TRY_CAST: a value that does not convert is the
    # statement's own error, and no probe may fail inside an explicit transaction)
    stored = stored_types(cursor, table.schema, table.name)
    typed = ", ".join(
        f"TRY_CAST(v{i} AS {stored[n.lower()]}) AS v{i}" if n.lower() in stored else f"v{i}"
        for i, n in enumerate(names)
    )
    numbered = (
        f"WITH R AS MATERIALIZED (SELECT row_number() OVER () AS n, {typed} FROM ({source}) "
        f"AS src({values}))"
    )
    cases = " ".join(f"WHEN {r.condition} THEN {i}" for i, r in enumerate(rules))
    shown = " ".join(f"WHEN {i} THEN {r.shown}" for i, r in enumerate(rules))
    sql = (
        f"{numbered} SELECT n, rule, CASE rule {shown} END FROM (SELECT *, CASE {cases} END "
        f"AS rule FROM R AS s) AS s WHERE rule IS NOT NULL ORDER BY n "
        f"LIMIT {1 if not ignore else SUSPECT_ROWS}"
    )
    try:
        failing = cursor.execute(sql).fetchall()
    except duckdb.Error:
        return []  # a source that does not fit the columns, or a value DuckDB cannot compare
    if not failing:
        return []
    if not ignore:
        rule = rules[int(failing[0][1])]
        insert.meta["refused_row"] = int(failing[0][0])  # its AUTO_INCREMENT values spent
        raise rule.spec.error(**rule.error_arguments(str(failing[0][2])))
    warnings = []
    for _n, number, text in failing:
        rule = rules[int(number)]
        warnings.append(rule.spec.warning(**rule.error_arguments(str(text))))
    insert.meta["skipped_rows"] = len(failing)  # the OK's Records (engine/sql/dml_counts.py)
    skipped = ", ".join(str(int(row[0])) for row in failing)
    insert.set(
        "expression",
        sqlglot.parse_one(
            f"SELECT {values} FROM (SELECT row_number() OVER () AS n, * FROM ({source}) "
            f"AS src({values})) AS s WHERE n NOT IN ({skipped})",
            read="duckdb",
        ),
    )
    return warnings


def _rules(insert: exp.Insert, table: TableDef, names: list[str], fk_checks: bool) -> list[_Rule]:
    position = {name: i for i, name in enumerate(names)}
    rules = _check_rules(table, position)
    conflict = insert.args.get("conflict") is not None or insert.args.get("alternative") in (
        "REPLACE",
    )
    if not conflict:  # REPLACE / ON DUPLICATE KEY UPDATE act on a duplicate: DuckDB's keys
        rules += _key_rules(table, position)
    if fk_checks:
        rules += _foreign_key_rules(table, position)
    return rules


def _norm(sql: str, folded: bool) -> str:
    return f"lower(strip_accents(CAST({sql} AS VARCHAR)))" if folded else f"({sql})"


def _check_rules(table: TableDef, position: dict[str, int]) -> list[_Rule]:
    rules = []
    for check in table.checks:
        node = enforce_checks.parsed(check)
        if not check.enforced or node is None:
            continue
        columns = list(node.find_all(exp.Column))
        if not all(c.name.lower() in position for c in columns):
            continue  # a column left to its default: DuckDB's own CHECK decides
        node = node.copy()
        for column in list(node.find_all(exp.Column)):
            column.replace(exp.column(f"v{position[column.name.lower()]}", table="s"))
        condition = f"coalesce(NOT ({node.sql(dialect='duckdb')}), FALSE)"
        rules.append(_Rule(condition, Errors.CHECK_VIOLATED, {"name": check.name}))
    return rules


def _key_rules(table: TableDef, position: dict[str, int]) -> list[_Rule]:
    rules = []
    target = f"{INTERNAL}.{quoted(table.schema)}.{quoted(table.name)}"
    for key in table.keys:
        if not key.unique or not all(c.lower() in position for c in key.columns):
            continue
        parts = []
        for name in key.columns:
            column = table.column(name)
            folded = column is not None and insensitive(column, table)
            parts.append((quoted(name), f"s.v{position[name.lower()]}", folded))
        given = " AND ".join(f"{v} IS NOT NULL" for _c, v, _f in parts)
        stored = " AND ".join(f"{_norm('t.' + c, f)} = {_norm(v, f)}" for c, v, f in parts)
        earlier = " AND ".join(
            f"{_norm(v.replace('s.', 'e.'), f)} = {_norm(v, f)}" for _c, v, f in parts
        )
        condition = (
            f"({given} AND (EXISTS (SELECT 1 FROM {target} AS t WHERE {stored}) OR EXISTS "
            f"(SELECT 1 FROM R AS e WHERE e.n < s.n AND {earlier})))"
        )
        shown = "concat_ws('-', " + ", ".join(f"CAST({v} AS VARCHAR)" for _c, v, _f in parts) + ")"
        where = {"key": f"{table.name}.{key.name}"}
        rules.append(_Rule(condition, Errors.DUP_ENTRY, where, shown, names_value=True))
    return rules


def _foreign_key_rules(table: TableDef, position: dict[str, int]) -> list[_Rule]:
    rules = []
    for fk in table.foreign_keys:
        if not all(c.lower() in position for c in fk.columns):
            continue  # a column left out takes its default: NULL in practice, never checked
        parent = enforce_foreign_keys.table_sql(fk.ref_schema, fk.ref_table)
        parts = []
        for name, ref in zip(fk.columns, fk.ref_columns):
            column = table.column(name)
            folded = column is not None and insensitive(column, table)
            parts.append((quoted(ref), f"s.v{position[name.lower()]}", folded, ref.lower()))
        given = " AND ".join(f"{v} IS NOT NULL" for _r, v, _f, _l in parts)
        found = " AND ".join(f"{_norm('p.' + r, f)} = {_norm(v, f)}" for r, v, f, _l in parts)
        condition = f"({given} AND NOT EXISTS (SELECT 1 FROM {parent} AS p WHERE {found})"
        same = (fk.ref_schema.lower(), fk.ref_table.lower()) == (
            table.schema.lower(),
            table.name.lower(),
        )
        if same and all(low in position for _r, _v, _f, low in parts):
            # a parent row an earlier row of the statement inserts
            earlier = " AND ".join(
                f"{_norm('e.v' + str(position[low]), f)} = {_norm(v, f)}" for _r, v, f, low in parts
            )
            condition += f" AND NOT EXISTS (SELECT 1 FROM R AS e WHERE e.n <= s.n AND {earlier})"
        detail = {"detail": enforce_foreign_keys.detail(table, fk)}
        rules.append(_Rule(condition + ")", Errors.NO_REFERENCED_ROW, detail))
    return rules
