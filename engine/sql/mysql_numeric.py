"""MySQL's number-base functions DuckDB lacks or answers otherwise (MySQL 8.0 manual 14.6.2,
14.12): CONV as a DuckDB scalar function in Python (:func:`conv`), and BIT_COUNT's argument
read as MySQL reads it (:data:`BIT_COUNT`): a 64-bit unsigned integer, so BIT_COUNT(-1) = 64,
a string or decimal rounded to an integer first (BIT_COUNT('7') = 3). DuckDB's bit_count
counts the bits of the argument's own width (32 for an INTEGER -1) and refuses strings.
"""

from __future__ import annotations

import duckdb
from drydock.engine.sql.python_functions import register

CONV = "mysql_conv"
_DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_U64 = 2**64

BIT_COUNT = (
    "bit_count(CAST(COALESCE(TRY_CAST({0} AS HUGEINT), "
    "TRY_CAST(TRY_CAST({0} AS DOUBLE) AS HUGEINT)) & 18446744073709551615 AS UBIGINT))"
)


def _leading_number(text: str, base: int) -> int:
    """The value of ``text``'s leading digits in ``base`` (MySQL stops at the first other
    character; a leading '-' negates)."""
    body = text.strip()
    negative = body.startswith("-")
    value = 0
    for ch in body[1:] if negative else body:
        digit = _DIGITS.find(ch.upper())
        if digit < 0 or digit >= base:
            break
        value = value * base + digit
    return -value if negative else value


def conv(number: str | None, from_base: int | None, to_base: int | None) -> str | None:
    """CONV(N, from_base, to_base): a negative to_base prints a signed number; otherwise a
    negative N is taken as a 64-bit unsigned one (CONV(-1, 10, 16) = 'FFFFFFFFFFFFFFFF')."""
    if number is None or from_base is None or to_base is None:
        return None
    if not (2 <= abs(from_base) <= 36 and 2 <= abs(to_base) <= 36):
        return None
    value = _leading_number(number, abs(from_base))
    value = max(min(value, _U64 - 1), -(2**63)) if from_base < 0 else value % _U64
    if to_base < 0 and value >= 2**63:
        value -= _U64
    sign, magnitude = ("-", -value) if value < 0 else ("", value)
    digits = ""
    while True:
        magnitude, digit = divmod(magnitude, abs(to_base))
        digits = _DIGITS[digit] + digits
        if magnitude == 0:
            break
    return sign + digits


def install(con: duckdb.DuckDBPyConnection) -> None:
    """Register :func:`conv` on ``con`` (its cursors see it). Idempotent."""
    register(con, CONV, conv, ["VARCHAR", "BIGINT", "BIGINT"], "VARCHAR")
