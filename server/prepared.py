"""Server-side prepared statements: find the real ``?`` placeholders and bind values safely.

mysql-mimic pastes ``f"'{value}'"`` into the text with ``re.sub``: a quote in a value ends the
literal (SQL injection) and a backslash breaks the substitution. Here placeholders are located by
grammar/lexer.py, which skips string literals, quoted identifiers and comments, and each value is
rendered as a MySQL literal with every quote and backslash escaped. The text is always in the
default spelling (the connection respelt it from the session's sql_mode when it arrived), so the
default rules and backslash escapes are right here.
"""

from __future__ import annotations

from typing import Any

from drydock.engine.errors import Errors
from drydock.engine.sql.user_variables import literal
from drydock.grammar.lexer import placeholder_positions

__all__ = ["bind_parameters", "count_placeholders", "literal", "placeholder_positions"]


def count_placeholders(sql: str) -> int:
    return len(placeholder_positions(sql))


def bind_parameters(sql: str, values: list[Any]) -> str:
    positions = placeholder_positions(sql)
    if len(positions) != len(values):
        raise Errors.WRONG_PARAM_COUNT.error(
            where="mysqld_stmt_execute",
            detail=f"{len(positions)} placeholders, {len(values)} values",
        )
    out, last = [], 0
    for pos, value in zip(positions, values):
        out.append(sql[last:pos])
        out.append(literal(value))
        last = pos + 1
    out.append(sql[last:])
    return "".join(out)
