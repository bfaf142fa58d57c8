"""server/prepared.py: placeholders are found by a scanner and values become escaped literals."""

from __future__ import annotations

import datetime as dt
import decimal

import pytest
import sqlglot
from sqlglot import exp

from drydock.engine.errors import DrydockError
from drydock.server.prepared import (
    bind_parameters,
    count_placeholders,
    literal,
    placeholder_positions,
)

TRICKY = [
    "x' OR '1'='1",
    "a\\1b",
    "\\",
    "\\'",
    "'",
    "''",
    '"',
    "it's",
    "a\x00b",
    "x\nq",
    "?",
    "-- c",
    "/* c */",
    "`",
    "日本語",
    "%_",
    "\\\\'; DROP TABLE t; --",
]


@pytest.mark.parametrize(
    "sql, expected",
    [
        ("SELECT ?", 1),
        ("SELECT ?, ?", 2),
        ("SELECT '?', \"?\", `?`", 0),
        ("SELECT 'it\\'s ?', ?", 1),
        ("SELECT 'it''s ?', ?", 1),
        ("SELECT ? -- ?\n, ?", 2),
        ("SELECT ? # ?\n, ?", 2),
        ("SELECT ? /* ? */, ?", 2),
        ("SELECT ? /* unterminated ?", 1),
        ("SELECT 'unterminated ?", 0),
        ("SELECT `a``?`, ?", 1),
    ],
)
def test_placeholders_outside_literals_and_comments(sql: str, expected: int) -> None:
    assert count_placeholders(sql) == expected
    assert all(sql[p] == "?" for p in placeholder_positions(sql))


@pytest.mark.parametrize("value", TRICKY)
def test_string_literal_round_trips_through_the_mysql_parser(value: str) -> None:
    parsed = sqlglot.parse_one(f"SELECT {literal(value)}", read="mysql")
    assert len(parsed.expressions) == 1
    only = parsed.expressions[0]
    assert isinstance(only, exp.Literal) and only.is_string
    assert only.this == value


@pytest.mark.parametrize(
    "value, expected",
    [
        (None, "NULL"),
        (True, "TRUE"),
        (False, "FALSE"),
        (0, "0"),
        (-42, "-42"),
        (decimal.Decimal("1.50"), "1.50"),
        (1.5, "1.5e0"),  # a DOUBLE parameter stays DOUBLE ('1.5' reads as DECIMAL)
        (1e20, "1e+20"),
        (2**63 - 1, "9223372036854775807"),
        (2**64 - 1, "CAST(18446744073709551615 AS UNSIGNED)"),  # BIGINT UNSIGNED, not DECIMAL
        (b"\x00\xff", "X'00ff'"),
        (b"", "''"),
        (dt.date(2024, 1, 2), "'2024-01-02'"),
        (dt.datetime(2024, 1, 2, 3, 4, 5), "'2024-01-02 03:04:05'"),
    ],
)
def test_literals_of_other_types(value: object, expected: str) -> None:
    assert literal(value) == expected


def test_injection_attempt_stays_one_value() -> None:
    sql = bind_parameters("SELECT a FROM t WHERE b = ? AND c = ?", ["x' OR '1'='1", "a\\1b"])
    where = sqlglot.parse_one(sql, read="mysql").args["where"].this
    assert isinstance(where, exp.And)
    left, right = where.this, where.expression
    assert isinstance(left, exp.EQ) and left.expression.this == "x' OR '1'='1"
    assert isinstance(right, exp.EQ) and right.expression.this == "a\\1b"


def test_question_marks_in_values_and_literals_are_not_placeholders() -> None:
    assert bind_parameters("SELECT '?', ?, ?", ["?", None]) == "SELECT '?', '?', NULL"


def test_wrong_number_of_values_is_error_1210() -> None:
    with pytest.raises(DrydockError) as wrong:
        bind_parameters("SELECT ?, ?", [1])
    assert wrong.value.code == 1210
