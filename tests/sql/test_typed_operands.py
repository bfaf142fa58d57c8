"""Column operands typed as MySQL types them (engine/sql/typed_operands.py): ``/`` of exact
columns is DECIMAL division, a DATE column plus date units stays a DATE. The expected texts are
MariaDB 10.11's answers to the same statements."""

from __future__ import annotations

from typing import Any

from tests.sql.test_value_forms import _texts

_TABLE = (
    "CREATE DATABASE IF NOT EXISTS typed_operands",
    "USE typed_operands",
    "CREATE TABLE IF NOT EXISTS n (i INT, d DECIMAL(10,2), g DOUBLE, dt DATE, ts DATETIME)",
    "DELETE FROM n",
    "INSERT INTO n VALUES (7, 1.25, 0.5, '2024-01-31', '2024-01-31 10:00:00'), "
    "(-2, 3.00, 2, '2024-02-29', '2024-02-29 00:00:00')",
)


def test_division_of_exact_columns_is_decimal_and_of_a_double_is_double(
    shared_server: Any,
) -> None:
    rows = _texts(
        shared_server,
        *_TABLE,
        "SELECT i / 3, d / i, i / d, d / 3, i / g, SUM(i) / COUNT(*), (i / 3) * d "
        "FROM n GROUP BY i, d, g ORDER BY i",
    )
    assert rows == [
        ("-0.6667", "-1.500000", "-0.6667", "1.000000", "-1", "-2.0000", "-2.000000"),
        ("2.3333", "0.178571", "5.6000", "0.416667", "14", "7.0000", "2.916667"),
    ]


def test_date_column_plus_date_units_is_a_date_with_time_units_a_datetime(
    shared_server: Any,
) -> None:
    rows = _texts(
        shared_server,
        *_TABLE,
        "SELECT dt + INTERVAL 1 MONTH, DATE_ADD(dt, INTERVAL 1 YEAR), "
        "DATE_SUB(dt, INTERVAL 2 DAY), dt - INTERVAL 1 WEEK, dt + INTERVAL 1 HOUR, "
        "ts + INTERVAL 1 DAY FROM n ORDER BY dt",
    )
    assert rows == [
        (
            "2024-02-29",
            "2025-01-31",
            "2024-01-29",
            "2024-01-24",
            "2024-01-31 01:00:00",
            "2024-02-01 10:00:00",
        ),
        (
            "2024-03-29",
            "2025-02-28",
            "2024-02-27",
            "2024-02-22",
            "2024-02-29 01:00:00",
            "2024-03-01 00:00:00",
        ),
    ]


def test_adddate_and_subdate_are_date_add_and_date_sub(shared_server: Any) -> None:
    rows = _texts(
        shared_server,
        *_TABLE,
        "SELECT ADDDATE('2024-01-31', 1), ADDDATE(dt, INTERVAL 1 MONTH), SUBDATE(dt, 2), "
        "ADDDATE(dt, INTERVAL 2 HOUR), SUBDATE(ts, INTERVAL 1 DAY) FROM n ORDER BY dt",
    )
    assert rows == [
        ("2024-02-01", "2024-02-29", "2024-01-29", "2024-01-31 02:00:00", "2024-01-30 10:00:00"),
        ("2024-02-01", "2024-03-29", "2024-02-27", "2024-02-29 02:00:00", "2024-02-28 00:00:00"),
    ]
