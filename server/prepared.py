"""Server-side prepared statements: find the real ``?`` placeholders and bind values safely.

mysql-mimic pastes ``f"'{value}'"`` into the text with ``re.sub``: a quote in a value ends the
literal (SQL injection) and a backslash breaks the substitution. Here placeholders are located by a
scanner that skips string literals, quoted identifiers and comments, and each value is rendered as
a MySQL literal with every quote and backslash escaped.
"""

from __future__ import annotations

from typing import Any

from engine.errors import Errors
from engine.user_variables import literal


def placeholder_positions(sql: str) -> list[int]:
    positions: list[int] = []
    i, n = 0, len(sql)
    while i < n:
        ch = sql[i]
        if ch in "'\"`":
            i = _skip_quoted(sql, i, ch)
            continue
        if ch == "#" or (ch == "-" and sql.startswith("-- ", i)) or sql.startswith("--\n", i):
            end = sql.find("\n", i)
            i = n if end < 0 else end + 1
            continue
        if ch == "/" and sql.startswith("/*", i):
            end = sql.find("*/", i + 2)
            i = n if end < 0 else end + 2
            continue
        if ch == "?":
            positions.append(i)
        i += 1
    return positions


def _skip_quoted(sql: str, start: int, quote: str) -> int:
    i, n = start + 1, len(sql)
    while i < n:
        ch = sql[i]
        if ch == "\\" and quote != "`":
            i += 2
            continue
        if ch == quote:
            if i + 1 < n and sql[i + 1] == quote:  # doubled quote inside the literal
                i += 2
                continue
            return i + 1
        i += 1
    return n


def count_placeholders(sql: str) -> int:
    return len(placeholder_positions(sql))


def bind_parameters(sql: str, values: list[Any]) -> str:
    positions = placeholder_positions(sql)
    if len(positions) != len(values):
        raise Errors.WRONG_PARAM_COUNT.error(
            where="mysqld_stmt_execute", detail=f"{len(positions)} placeholders, {len(values)} values")
    out, last = [], 0
    for pos, value in zip(positions, values):
        out.append(sql[last:pos])
        out.append(literal(value))
        last = pos + 1
    out.append(sql[last:])
    return "".join(out)
