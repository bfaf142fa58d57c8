"""FLOAT and DOUBLE values as MySQL's text protocol prints them (its my_gcvt, as measured on
MariaDB 10.11, which prints them as MySQL 8 does):

- a DOUBLE prints the shortest digits that read back as the same double;
- a FLOAT column prints its float32 value rounded to 6 significant digits (FLT_DIG):
  0.1 (not 0.10000000149011612), 16777217 stored → 16777200;
- MIN, MAX and ANY_VALUE of a FLOAT column are FLOAT too (:func:`keeps_float`); arithmetic on
  one is DOUBLE (``f + 0`` prints the float32 widened);
- both in plain decimal form while the decimal exponent is within -15..14
  (0.000000000000001, 100000000000000), else as d.ddde±N with no '+' and no leading
  exponent zeros (1e15, 1.2345e-16, 1e100; Python writes 1e+100).
"""

from __future__ import annotations

import math

from sqlglot import exp

FLT_DIG = 6  # significant digits MySQL prints of a FLOAT
_SAME_TYPE_AGGREGATES = (exp.Max, exp.Min, exp.AnyValue)  # MySQL's result type is the argument's
_FIXED_EXPONENTS = range(-15, 15)


def _digits_text(digits: str, exponent: int, negative: bool) -> str:
    """``0.<digits> × 10^(exponent + 1)`` (digits without trailing zeros) in MySQL's form."""
    sign = "-" if negative else ""
    if exponent not in _FIXED_EXPONENTS:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{mantissa}e{exponent}"
    if exponent < 0:
        return f"{sign}0.{'0' * (-exponent - 1)}{digits}"
    whole = digits[: exponent + 1].ljust(exponent + 1, "0")
    fraction = digits[exponent + 1 :]
    return f"{sign}{whole}.{fraction}" if fraction else f"{sign}{whole}"


def _text(value: float, significant: int | None) -> str:
    if not math.isfinite(value):
        return repr(value)
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    # '%.*e' rounds to a number of significant digits; the shortest round-trip digits otherwise
    scientific = f"{value:.{significant - 1}e}" if significant else _shortest_scientific(value)
    mantissa, _, exponent = scientific.partition("e")
    negative = mantissa.startswith("-")
    digits = mantissa.lstrip("-").replace(".", "").rstrip("0") or "0"
    return _digits_text(digits, int(exponent), negative)


def _shortest_scientific(value: float) -> str:
    """repr's digits in d.ddde±N form (repr itself writes 0.1, not 1e-01)."""
    for precision in range(1, 18):
        text = f"{value:.{precision - 1}e}"
        if float(text) == value:
            return text
    return f"{value:.16e}"  # pragma: no cover - 17 significant digits always round-trip


def double_text(value: float) -> str:
    """A DOUBLE as MySQL prints it."""
    return _text(float(value), None)


def float_text(value: float) -> str:
    """A FLOAT column's value (a float32, possibly already widened to double) as MySQL prints
    it: 6 significant digits."""
    return _text(float(value), FLT_DIG)


def keeps_float(node: exp.Expr | None) -> bool:
    """Whether a projection whose DuckDB type is FLOAT is FLOAT in MySQL too: MIN / MAX /
    ANY_VALUE of a column (DuckDB keeps FLOAT for ``f + 0`` as well, which MySQL makes DOUBLE)."""
    while isinstance(node, (exp.Alias, exp.Paren)):
        node = node.this
    if not isinstance(node, _SAME_TYPE_AGGREGATES):
        return False
    argument = node.this
    while isinstance(argument, exp.Paren):
        argument = argument.this
    return isinstance(argument, exp.Column)
