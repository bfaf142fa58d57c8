"""``/`` of exact operands is MySQL's DECIMAL division (engine/sql/exact_division.py); the
expected texts are MariaDB 10.11's."""

from __future__ import annotations

from typing import Any

import pytest

from tests.sql.test_value_forms import _texts

CASES = [
    ("1 / 3", "0.3333"),
    ("-2 / 3", "-0.6667"),  # rounded half away from zero
    ("2 / 1", "2.0000"),
    ("1.0 / 3", "0.33333"),  # the dividend's scale + 4
    ("1.5 / 2", "0.75000"),
    ("10 / 4.00", "2.5000"),  # the divisor's scale adds nothing
    ("CAST(1 AS DECIMAL(10,2)) / 3", "0.333333"),
    ("1 / 3 * 3", "1.0000"),  # the quotient is held to 9 digits inside
    ("(1 / 3) / 3", "0.11111111"),
    ("1 / (1 / 3)", "3.0000"),
    ("1 / 3 + 1", "1.3333"),
    ("99999999999999999999 / 3", "33333333333333333333.0000"),
    ("5 / 2e0", "2.5"),  # an approximate operand: DOUBLE
    ("'7' / 2", "3.5"),  # a string operand is a DOUBLE
    ("7 / 2 / 0", None),
]


@pytest.mark.parametrize(("expression", "text"), CASES, ids=[c[0] for c in CASES])
def test_quotient_text(shared_server: Any, expression: str, text: str | None) -> None:
    assert _texts(shared_server, f"SELECT {expression}") == [(text,)]
