"""A string operand of arithmetic is MySQL's DOUBLE of its numeric prefix
(engine/sql/string_numbers.py): what PDO's string-bound parameters send."""

from __future__ import annotations


import pytest
from pymysql.constants import FIELD_TYPE

from drydock.engine.sql.string_numbers import string_value

CASES = [
    ("'42' + 1", 43.0),
    ("'4.5' * 2", 9.0),  # DuckDB alone: 10 (the string cast to INTEGER)
    ("1 + '1e2'", 101.0),
    ("'12abc' + 0", 12.0),
    ("'abc' + 1", 1.0),
    ("' -3' - 1", -4.0),
    ("'7' / '2'", 3.5),
    ("'7' DIV 2", 3),
    ("'7' % 4", 3.0),
]


@pytest.mark.parametrize(("sql", "expected"), CASES, ids=[c[0] for c in CASES])
def test_string_operand_is_mysql_double(shared_server, sql: str, expected: float) -> None:  # type: ignore[no-untyped-def]
    cur = shared_server.connect().cursor()
    cur.execute(f"SELECT {sql}")
    assert cur.fetchall()[0][0] == expected


def test_type_is_double_and_bound_parameter_too(shared_server) -> None:  # type: ignore[no-untyped-def]
    cur = shared_server.connect().cursor()
    cur.execute("SELECT %s + 1", ["42"])  # a driver binding the parameter as a string
    assert cur.fetchall()[0][0] == 43.0
    assert cur.description[0][1] == FIELD_TYPE.DOUBLE


def test_string_plus_interval_is_the_datetime_as_a_string(shared_server) -> None:  # type: ignore[no-untyped-def]
    """MySQL 8 manual, DATE_ADD(): "String otherwise" — the string could hold any temporal, so
    the result is VARCHAR text of the DATETIME (six fractional digits only when there is a
    fraction); compared with a DATETIME it is still read as one."""
    cur = shared_server.connect().cursor()
    cur.execute(
        "SELECT '2024-01-01 10:00:00' + INTERVAL 1 SECOND, "
        "DATE_ADD('2024-01-01 10:00:00.5', INTERVAL 1 SECOND), "
        "DATE_SUB('2024-01-31', INTERVAL 1 MONTH)"
    )
    assert cur.fetchall()[0] == ("2024-01-01 10:00:01", "2024-01-01 10:00:01.500000", "2023-12-31")
    assert [d[1] for d in cur.description] == [FIELD_TYPE.VAR_STRING] * 3
    cur.execute(
        "SELECT CAST('2024-01-01 10:00:01' AS DATETIME) = '2024-01-01 10:00:00' + INTERVAL 1 SECOND"
    )
    assert cur.fetchall()[0][0] == 1


@pytest.mark.parametrize(
    ("text", "value"),
    [("", 0.0), ("1.5e3x", 1500.0), (".5", 0.5), ("+.", 0.0), ("9e999", float("inf"))],
)
def test_numeric_prefix(text: str, value: float) -> None:
    assert string_value(text) == value
