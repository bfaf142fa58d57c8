"""FLOAT/DOUBLE text as MySQL prints it (server/float_text.py); the expected forms are MariaDB
10.11's answers, which print as MySQL 8 does."""

from __future__ import annotations

import struct

import pytest
import sqlglot

from drydock.server.float_text import double_text, float_text, keeps_float


def _float32(value: float) -> float:
    return float(struct.unpack("<f", struct.pack("<f", value))[0])


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1e100, "1e100"),
        (-2.5e20, "-2.5e20"),
        (1e15, "1e15"),
        (1.234567890123456e15, "1.234567890123456e15"),
        (1e14, "100000000000000"),
        (123456789012345.0, "123456789012345"),
        (1e-15, "0.000000000000001"),
        (1e-16, "1e-16"),
        (1.2345e-16, "1.2345e-16"),
        (1.5e-7, "0.00000015"),
        (1 / 3, "0.3333333333333333"),
        (0.1 + 0.2, "0.30000000000000004"),
        (100.0, "100"),
        (0.0, "0"),
        (1.7976931348623157e308, "1.7976931348623157e308"),
    ],
)
def test_double_prints_shortest_digits_plain_within_exponents_minus_15_to_14(
    value: float, text: str
) -> None:
    assert double_text(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.1, "0.1"),
        (123456789, "123457000"),
        (16777217, "16777200"),
        (1e-10, "0.0000000001"),
        (3.4e38, "3.4e38"),
        (1e15, "1e15"),
        (-0.5, "-0.5"),
    ],
)
def test_float_column_prints_six_significant_digits_of_its_float32(value: float, text: str) -> None:
    assert float_text(_float32(value)) == text


@pytest.mark.parametrize(
    ("projection", "single"),
    [
        ("MAX(f)", True),
        ("MIN(t.f) AS m", True),
        ("ANY_VALUE((f))", True),
        ("MAX(f + 0)", False),
        ("SUM(f)", False),
        ("f * 2", False),
    ],
)
def test_min_and_max_of_a_column_keep_float(projection: str, single: bool) -> None:
    node = sqlglot.parse_one(f"SELECT {projection} FROM t", read="mysql").expressions[0]
    assert keeps_float(node) is single
