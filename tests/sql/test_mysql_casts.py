"""LENGTH counts bytes, CAST AS UNSIGNED wraps, CAST AS CHAR(n) cuts with warning 1292
(engine/sql/mysql_casts.py); expected answers are MariaDB 10.11's."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("LENGTH('é')", 2),
        ("OCTET_LENGTH('日本')", 6),
        ("CHAR_LENGTH('日本')", 2),
        ("CHARACTER_LENGTH('é')", 1),
        ("LENGTH(123)", 3),
        ("LENGTH(1.50)", 4),
        ("LENGTH(NULL)", None),
        ("LENGTH(_binary'ab')", 2),
        ("CAST(-1 AS UNSIGNED)", 18446744073709551615),
        ("CAST('-1' AS UNSIGNED)", 18446744073709551615),
        ("CONVERT(-2, UNSIGNED)", 18446744073709551614),
        ("CAST(1.5 AS UNSIGNED)", 2),
        ("CAST(18446744073709551616 AS UNSIGNED)", 18446744073709551615),
        ("CAST(42 AS UNSIGNED INTEGER)", 42),
    ],
)
def test_value(shared_server: Any, expression: str, value: object) -> None:
    cur = shared_server.connect().cursor()
    cur.execute(f"SELECT {expression}")
    assert cur.fetchall()[0][0] == value


def test_cast_as_char_n_cuts_each_longer_value_with_warning_1292(shared_server: Any) -> None:
    cur = shared_server.connect().cursor()
    cur.execute("CREATE DATABASE IF NOT EXISTS casts")
    cur.execute("USE casts")
    cur.execute("CREATE TABLE t (s VARCHAR(10))")
    cur.execute("INSERT INTO t VALUES ('abcdef'), ('ab'), (NULL), ('日本語')")
    cur.execute("SELECT CAST(s AS CHAR(2)), CONVERT(s, CHAR(2)) FROM t ORDER BY s IS NULL, s")
    assert cur.fetchall() == (("ab", "ab"), ("ab", "ab"), ("日本", "日本"), (None, None))
    cur.execute("SHOW WARNINGS")
    assert sorted(cur.fetchall()) == sorted(
        [("Warning", 1292, "Truncated incorrect CHAR(2) value: 'abcdef'")] * 2
        + [("Warning", 1292, "Truncated incorrect CHAR(2) value: '日本語'")] * 2
    )
    cur.execute("SELECT CAST(12345 AS CHAR(2)), CAST(42 AS CHAR)")
    assert cur.fetchall() == (("12", "42"),)
