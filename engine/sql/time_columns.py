"""MySQL's TIME on an internal table (MySQL 8.0 manual 13.2.3 "The TIME Type", 13.2.8 "Conversion
between date and time types"): a signed duration from -838:59:59.000000 to 838:59:59.000000, which
DuckDB's TIME (one day, 00:00:00-24:00:00) cannot hold.

Storage: a declared TIME column is a DuckDB ``INTERVAL`` holding only microseconds
(engine/sql/mysql_ddl.py storage_type). DuckDB orders, compares, takes MIN/MAX of and adds
``INTERVAL`` to such values as MySQL does with TIME; a string compared with the column is cast to
an INTERVAL by DuckDB, which reads '[-]H:MM[:SS[.f]]' as MySQL does; the macros of
engine/sql/mysql_datetime.py (TIME_TO_SEC, TIME_FORMAT, ADDTIME, TIMEDIFF) read an INTERVAL; the
wire sends a timedelta as TIME (server/declared_columns.py, server/binary_rows.py: sign + days).

Writing: every value given for the column is read here as MySQL reads it (:func:`parse`):
'[-][D ]HH:MM:SS[.f]', 'HH:MM', 'SS', 'MMSS', 'HHMMSS[.f]' strings, numbers HHMMSS[.f], a
DATETIME text's clock; the fraction is rounded to the declared fsp (half up, as MySQL 8 stores
it), and the value is written back as the canonical text DuckDB casts to the INTERVAL
(:func:`text`). Out of range is 1292 in strict mode and otherwise clipped to ±838:59:59 with
warning 1264; a text that is no time is 1292, otherwise 00:00:00 with warning 1265
(engine/sql/enforce_values.py applies these).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

import sqlglot
from sqlglot import exp

MAX_SECONDS = 838 * 3600 + 59 * 60 + 59
MAX_MICROSECONDS = MAX_SECONDS * 1_000_000
STORAGE_TYPE = "INTERVAL"
TIME_STORE_MACRO = "mysql_is.main.mysql_time_store"  # engine/sql/mysql_datetime.py
_UNREAD = object()

_US = 1_000_000
# [-][D ]H[:M[:S]][.f] — hours with or without days; a bare number is the HHMMSS form
_CLOCK = re.compile(
    r"^(?P<sign>-)?(?:(?P<days>\d+)\s+)?(?P<h>\d+)(?::(?P<m>\d+)(?::(?P<s>\d+))?)?"
    r"(?:\.(?P<f>\d*))?$"
)
_DIGITS = re.compile(r"^(?P<sign>-)?(?P<n>\d+)(?:\.(?P<f>\d*))?$")
# a DATETIME text: its clock is the TIME ('2024-01-01 10:00:00' → 10:00:00)
_DATETIME = re.compile(
    r"^\d{2,4}-\d{1,2}-\d{1,2}[ T](?P<clock>\d{1,2}:\d{1,2}(?::\d{1,2})?(?:\.\d*)?)$"
)


@dataclass(frozen=True)
class Parsed:
    """A value read as a TIME: microseconds (in range or not) or ``None`` when it is no time."""

    microseconds: int | None

    @property
    def in_range(self) -> bool:
        return self.microseconds is not None and abs(self.microseconds) <= MAX_MICROSECONDS


def parse(value: Any, fsp: int) -> Parsed | None:
    """``value`` as MySQL reads it for a TIME column of ``fsp`` fractional digits, or ``None``
    for a value this module does not judge (left to DuckDB)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, dt.timedelta):
        return Parsed(_round(Decimal(_total_microseconds(value)), fsp))
    if isinstance(value, dt.datetime):
        value = value.time()
    if isinstance(value, dt.time):
        clock = ((value.hour * 60 + value.minute) * 60 + value.second) * _US + value.microsecond
        return Parsed(_round(Decimal(clock), fsp))
    if isinstance(value, (int, Decimal, float)):
        return _number(Decimal(repr(value)) if isinstance(value, float) else Decimal(value), fsp)
    if isinstance(value, bytes):
        value = value.decode(errors="replace")
    if isinstance(value, str):
        return _text(value.strip(), fsp)
    return None


def _total_microseconds(value: dt.timedelta) -> int:
    return (value.days * 86400 + value.seconds) * _US + value.microseconds


def _round(microseconds: Decimal, fsp: int) -> int:
    """Microseconds rounded half up (away from zero) to a multiple of the fsp's step."""
    step = Decimal(10 ** (6 - fsp))
    magnitude = (abs(microseconds) / step).quantize(Decimal(1), rounding=ROUND_HALF_UP) * step
    return int(-magnitude if microseconds < 0 else magnitude)


def _fraction(digits: str | None) -> Decimal:
    return Decimal("0." + digits) * _US if digits else Decimal(0)


def _of(sign: bool, hours: int, minutes: int, seconds: int, fraction: Decimal, fsp: int) -> Parsed:
    if minutes > 59 or seconds > 59:
        return Parsed(None)
    total = Decimal((hours * 60 + minutes) * 60 + seconds) * _US + fraction
    return Parsed(_round(-total if sign else total, fsp))


def _number(number: Decimal, fsp: int) -> Parsed:
    """A number as HHMMSS[.f] (MySQL 13.2.3: 1112 is 00:11:12)."""
    if not number.is_finite():
        return Parsed(None)
    magnitude = abs(number)
    whole = int(magnitude)
    fraction = (magnitude - whole) * _US
    hours, rest = divmod(whole, 10000)
    minutes, seconds = divmod(rest, 100)
    return _of(number < 0, hours, minutes, seconds, fraction, fsp)


def _text(text: str, fsp: int) -> Parsed:
    stamp = _DATETIME.match(text)
    if stamp:
        text = stamp.group("clock")
    digits = _DIGITS.match(text)
    if digits and not stamp:
        try:
            number = Decimal(text)
        except InvalidOperation:
            return Parsed(None)
        return _number(number, fsp)
    clock = _CLOCK.match(text)
    if clock is None:
        return Parsed(None)
    days = int(clock.group("days") or 0)
    hours = int(clock.group("h")) + 24 * days
    minutes = int(clock.group("m") or 0)
    seconds = int(clock.group("s") or 0)
    if clock.group("days") and clock.group("m") is None and clock.group("f") is not None:
        return Parsed(None)
    return _of(bool(clock.group("sign")), hours, minutes, seconds, _fraction(clock.group("f")), fsp)


def clipped(microseconds: int) -> int:
    """The nearest value MySQL's TIME holds (non-strict mode stores it with warning 1264)."""
    return max(-MAX_MICROSECONDS, min(MAX_MICROSECONDS, microseconds))


def text(microseconds: int) -> str:
    """The canonical text of a TIME, [-]HH:MM:SS[.ffffff], which DuckDB casts to the INTERVAL
    holding exactly these microseconds (the sign applies to the whole value)."""
    sign = "-" if microseconds < 0 else ""
    seconds, fraction = divmod(abs(microseconds), _US)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    shown = f"{sign}{hours:02d}:{minutes:02d}:{secs:02d}"
    return shown + (f".{fraction:06d}" if fraction else "")


def suspect_sql(value: str, fsp: int) -> str:
    """A DuckDB condition true when ``value`` (SQL, any type) may not be stored as it is: its
    text is not [-]H:MM:SS[.f] within ±838:59:59 at the column's fsp (Python then reads the
    value, :func:`parse`)."""
    shown = f"trim(CAST({value} AS VARCHAR))"
    us = f"epoch_us(TRY_CAST({shown} AS INTERVAL))"
    return (
        f"({value}) IS NOT NULL AND (NOT ({shown} SIMILAR TO "
        f"'-?[0-9]+:[0-9]{{2}}:[0-9]{{2}}(\\.[0-9]+)?') OR {us} IS NULL "
        f"OR abs({us}) > {MAX_MICROSECONDS} OR {us} % {10 ** (6 - fsp)} <> 0)"
    )


def stored_sql(value: str, fsp: int) -> str:
    """What a TIME column of ``fsp`` stores for ``value`` (SQL) outside strict mode (or once
    strict mode found it in range): a literal read here as MySQL reads it; an expression by the
    macro doing the same for numbers (HHMMSS) and DuckDB's INTERVAL texts, clipped to the range."""
    try:
        node = sqlglot.parse_one(value, read="duckdb")
    except sqlglot.errors.ParseError:
        node = None
    given: Any = _UNREAD
    if isinstance(node, exp.Literal):
        given = node.this if node.is_string else Decimal(node.this)
    elif (
        isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal) and not node.this.is_string
    ):
        given = -Decimal(node.this.this)
    if given is not _UNREAD:
        parsed = parse(given, fsp)
        if parsed is not None:
            micros = 0 if parsed.microseconds is None else clipped(parsed.microseconds)
            return f"CAST('{text(micros)}' AS INTERVAL)"
    return f"{TIME_STORE_MACRO}({value}, {10 ** (6 - fsp)})"
