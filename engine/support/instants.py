"""The one parser for points in time that users write: procedure arguments (``older_than``)
and ``FOR TIME AS OF``.

Accepted: ``'YYYY-MM-DD[ HH:MM:SS[.ffffff]][+HH:MM]'`` (no offset: the server's local time, as
Lance and Paimon read it) or a string of digits, epoch milliseconds. Anything else — including
instants outside what datetime and the OS can represent (year 99999, a 30-digit epoch) — raises
:class:`BadInstant`, a ValueError each caller turns into its own typed error; no OverflowError or
OSError escapes.
"""

from __future__ import annotations

import datetime as dt

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
# datetime's range with a day of margin, so a local offset can never overflow
_MIN = dt.datetime(dt.MINYEAR, 1, 2, tzinfo=dt.UTC)
_MAX = dt.datetime(dt.MAXYEAR, 12, 30, tzinfo=dt.UTC)
MAX_EPOCH_MILLIS = (_MAX - EPOCH) // dt.timedelta(milliseconds=1)
FORMS = "'YYYY-MM-DD HH:MM:SS[.ffffff]' or epoch milliseconds"


class BadInstant(ValueError):
    """The text is not an instant drydock can use; the message says which forms are accepted."""


def parse_instant(text: str) -> dt.datetime:
    """``text`` → an aware datetime (see the module docstring); BadInstant otherwise."""
    value = text.strip()
    try:
        if value.isdigit() and value.isascii():
            return _from_epoch_millis(int(value))
        parsed = dt.datetime.fromisoformat(value)
        aware = parsed if parsed.tzinfo is not None else parsed.astimezone()
        if not _MIN <= aware <= _MAX:
            raise BadInstant("is out of the supported range (0001-01-02 to 9999-12-30)")
        return aware
    except BadInstant:
        raise
    except (ValueError, OverflowError, OSError):  # OverflowError/OSError: local time out of range
        raise BadInstant(f"must be {FORMS}") from None


def instant_millis(text: str) -> int:
    """``text`` → epoch milliseconds (integer arithmetic: no float rounding a millisecond early)."""
    return (parse_instant(text) - EPOCH) // dt.timedelta(milliseconds=1)


def _from_epoch_millis(millis: int) -> dt.datetime:
    if millis > MAX_EPOCH_MILLIS:
        raise BadInstant("is out of the supported range (0001-01-02 to 9999-12-30)")
    return EPOCH + dt.timedelta(milliseconds=millis)
