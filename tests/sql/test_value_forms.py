"""Values as MySQL's text protocol sends them (raw text: the client converts nothing)."""

from __future__ import annotations

from typing import Any

import pytest


def _texts(server: Any, *statements: str) -> list[tuple[Any, ...]]:
    """The last statement's rows as the text the server sent."""
    conn = server.connect(conv={})
    cur = conn.cursor()
    for sql in statements:
        cur.execute(sql)
    return [tuple(v.decode() if isinstance(v, bytes) else v for v in row) for row in cur.fetchall()]


def test_float_column_reads_its_six_digit_text_and_float_arithmetic_is_double(
    shared_server: Any,
) -> None:
    rows = _texts(
        shared_server,
        "CREATE DATABASE IF NOT EXISTS float_text",
        "USE float_text",
        "CREATE TABLE t (f FLOAT, g DOUBLE)",
        "INSERT INTO t VALUES (0.1, 0.1), (123456789, 1e100), (1e-10, 1e15)",
        "SELECT f, g, f + 0, g * 1 FROM t ORDER BY g",
    )
    assert rows == [
        ("0.1", "0.1", "0.10000000149011612", "0.1"),
        ("0.0000000001", "1e15", "0.0000000001000000013351432", "1e15"),
        ("123457000", "1e100", "123456792", "1e100"),
    ]


@pytest.mark.parametrize(
    ("expression", "text"),
    [("1e100", "1e100"), ("-2.5e20", "-2.5e20"), ("1e14", "100000000000000"), ("1e-16", "1e-16")],
)
def test_double_expression_text(shared_server: Any, expression: str, text: str) -> None:
    assert _texts(shared_server, f"SELECT {expression}") == [(text,)]
