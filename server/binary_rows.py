"""Result rows in the binary protocol (COM_STMT_EXECUTE / COM_STMT_FETCH), every type over its
whole range, as MySQL sends them.

mysql-mimic's encoders (``ResultColumn.binary_encode``) lose values: TINY is sent as ``bool(v)``
(5 arrives as 1), integers are always packed signed (a BIGINT UNSIGNED above 2^63-1 raised
struct.error while the result was being written), a negative TIME came out with the wrong
magnitude (-01:00:00 as -1 day 23 h) and a DECIMAL in exponent form ('1E+2') was sent as such.
Here each column's encoder is chosen once per result from its type and UNSIGNED flag.

Any value that still cannot be encoded raises a typed error (1105, naming the column and the
value) from :meth:`BinaryRows.encode`, the one place rows become packets: server/stmt_commands.py
encodes a result's first rows before it writes the column definitions, so such a failure is a
plain ERR answer, and a later batch's failure is an ERR in place of a row, as in MySQL.
"""

from __future__ import annotations

import datetime as dt
import decimal
import struct
from collections.abc import Callable, Sequence
from typing import Any

from mysql_mimic import ResultColumn
from mysql_mimic.types import ColumnType

from drydock.engine.errors import DrydockError, Errors
from drydock.server.column_meta import UNSIGNED_FLAG, ColumnMeta

Encoder = Callable[[Any], bytes]

_INTEGER_FORMATS = {  # (signed, unsigned)
    ColumnType.TINY: ("<b", "<B"),
    ColumnType.SHORT: ("<h", "<H"),
    ColumnType.YEAR: ("<H", "<H"),
    ColumnType.INT24: ("<i", "<I"),
    ColumnType.LONG: ("<i", "<I"),
    ColumnType.LONGLONG: ("<q", "<Q"),
}
_TEMPORAL = (ColumnType.DATE, ColumnType.DATETIME, ColumnType.TIMESTAMP)


def _lenenc(data: bytes) -> bytes:
    n = len(data)
    if n < 0xFB:
        return bytes((n,)) + data
    if n < 1 << 16:
        return b"\xfc" + n.to_bytes(2, "little") + data
    if n < 1 << 24:
        return b"\xfd" + n.to_bytes(3, "little") + data
    return b"\xfe" + n.to_bytes(8, "little") + data


def _integer(fmt: str) -> Encoder:
    pack = struct.Struct(fmt).pack
    return lambda v: pack(int(v))


def _real(fmt: str) -> Encoder:
    pack = struct.Struct(fmt).pack
    return lambda v: pack(float(v))


def _decimal(v: Any) -> bytes:
    text = format(v, "f") if isinstance(v, decimal.Decimal) else str(v)
    return _lenenc(text.encode("ascii"))


def _datetime(v: Any) -> bytes:
    """DATE / DATETIME: 4 bytes for a date, 7 with a time of day, 11 with microseconds."""
    head = struct.pack("<HBB", v.year, v.month, v.day)
    if not isinstance(v, dt.datetime):
        return b"\x04" + head
    if v.microsecond:
        return b"\x0b" + head + struct.pack("<BBBI", v.hour, v.minute, v.second, v.microsecond)
    if v.hour or v.minute or v.second:
        return b"\x07" + head + struct.pack("<BBB", v.hour, v.minute, v.second)
    return b"\x04" + head


def _time(v: Any) -> bytes:
    """TIME: sign, days, hours (0-23), minutes, seconds[, microseconds] of the magnitude (MySQL's
    range is -838:59:59..838:59:59, up to 34 days)."""
    if isinstance(v, dt.time):
        v = dt.timedelta(
            hours=v.hour, minutes=v.minute, seconds=v.second, microseconds=v.microsecond
        )
    negative = v < dt.timedelta(0)
    magnitude = -v if negative else v
    hours, rest = divmod(magnitude.seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    body = struct.pack("<BIBBB", negative, magnitude.days, hours, minutes, seconds)
    if magnitude.microseconds:
        return b"\x0c" + body + struct.pack("<I", magnitude.microseconds)
    if magnitude:
        return b"\x08" + body
    return b"\x00"


def _string(codec: str) -> Encoder:
    def encode(v: Any) -> bytes:
        if isinstance(v, (bytes, bytearray, memoryview)):
            return _lenenc(bytes(v))
        return _lenenc(str(v).encode(codec))

    return encode


def encoder(column: ResultColumn, meta: ColumnMeta | None) -> Encoder:
    """How one column's non-NULL values go on the wire."""
    t = column.type
    if t in _INTEGER_FORMATS:
        unsigned = meta is not None and bool(meta.flags & UNSIGNED_FLAG)
        return _integer(_INTEGER_FORMATS[t][unsigned])
    if t == ColumnType.FLOAT:
        return _real("<f")
    if t == ColumnType.DOUBLE:
        return _real("<d")
    if t in (ColumnType.DECIMAL, ColumnType.NEWDECIMAL):
        return _decimal
    if t in _TEMPORAL:
        return _datetime
    if t == ColumnType.TIME:
        return _time
    return _string(column.codec)  # strings, blobs, JSON, ENUM/SET, BIT, NULL


class BinaryRows:
    """The row packets of one result's columns."""

    def __init__(self, columns: Sequence[ResultColumn], metas: Sequence[ColumnMeta | None]):
        self.columns = list(columns)
        self.encoders = [encoder(c, m) for c, m in zip(columns, metas)]
        self.bitmap_bytes = (len(self.columns) + 7 + 2) // 8

    def encode(self, batch: Sequence[Sequence[Any]]) -> list[bytes]:
        """Row packets for ``batch``; a value that cannot be sent raises a typed error."""
        try:
            return [self._row(row) for row in batch]
        except DrydockError:
            raise
        except Exception:  # noqa: BLE001 - any failure is reported by _unencodable
            raise self._unencodable(batch) from None

    def _row(self, row: Sequence[Any]) -> bytes:
        bitmap = bytearray(self.bitmap_bytes)
        values = []
        for i, (encode, value) in enumerate(zip(self.encoders, row)):
            if value is None:
                bitmap[(i + 2) >> 3] |= 1 << ((i + 2) & 7)
            else:
                values.append(encode(value))
        return b"\x00" + bytes(bitmap) + b"".join(values)

    def _unencodable(self, batch: Sequence[Sequence[Any]]) -> DrydockError:
        for row in batch:
            for column, encode, value in zip(self.columns, self.encoders, row):
                if value is None:
                    continue
                try:
                    encode(value)
                except Exception as exc:  # noqa: BLE001 - its words go into the message
                    return Errors.BINARY_VALUE_NOT_ENCODABLE.error(
                        column=column.name[:64],
                        value=repr(value)[:64],
                        type=column.type.name,
                        detail=f"{type(exc).__name__}: {exc}",
                    )
        return Errors.BINARY_VALUE_NOT_ENCODABLE.error(
            column="?", value="?", type="?", detail="a row does not match its columns"
        )
