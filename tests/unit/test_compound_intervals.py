"""Compound INTERVAL units read as MySQL reads them (engine/sql/date_arithmetic.py); the
expected amounts are MariaDB 10.11's answers, which MySQL 8 gives too."""

from __future__ import annotations

import pytest

from drydock.engine.sql.date_arithmetic import compound_amount


@pytest.mark.parametrize(
    ("text", "unit", "amount"),
    [
        ("1-2", "YEAR_MONTH", 14),
        ("-1-1", "YEAR_MONTH", -13),
        ("1 2", "DAY_HOUR", 26),
        ("5", "DAY_HOUR", 5),  # fewer numbers fill the smallest fields
        ("1 2:3", "DAY_MINUTE", 1563),
        ("1 2:3:4", "DAY_SECOND", 93784),
        ("1.5", "HOUR_MINUTE", 65),  # any non-digit separates
        ("2:3:4", "HOUR_SECOND", 7384),
        ("3:4", "MINUTE_SECOND", 184),
        ("1 2:3:4.5", "DAY_MICROSECOND", 93784_500000),
        ("2:3:4.000005", "HOUR_MICROSECOND", 7384_000005),
        ("3:4.5", "MINUTE_MICROSECOND", 184_500000),
        ("4.5", "SECOND_MICROSECOND", 4_500000),
        ("1:2:3", "DAY_HOUR", None),  # more numbers than fields: NULL
    ],
)
def test_compound_amount_in_the_smallest_unit(text: str, unit: str, amount: int | None) -> None:
    assert compound_amount(text, unit) == amount
