"""server/binary_rows.py: binary-protocol rows over each type's whole range, and an unencodable
value answered with one ERR packet (never column definitions followed by silence or garbage).
Built with tests/support/wire_fakes.py; no sockets."""

from __future__ import annotations

import asyncio
import datetime as dt
import decimal
import struct
from typing import Any

import pytest
from mysql_mimic.results import ResultColumn, ResultSet
from mysql_mimic.types import ColumnType

from drydock.engine.errors import DrydockError, Errors
from drydock.server.binary_rows import BinaryRows
from drydock.server.column_meta import UNSIGNED_FLAG, ColumnMeta
from drydock.server.results import time_text
from tests.support.wire_fakes import FakeSession, RecordingStream, connection

UNSIGNED = ColumnMeta(flags=UNSIGNED_FLAG)


def _value(column_type: ColumnType, value: Any, meta: ColumnMeta | None = None) -> bytes:
    """The bytes of one non-NULL value (after the row header and the 1-byte NULL bitmap)."""
    packet = BinaryRows([ResultColumn("c", column_type)], [meta]).encode([(value,)])[0]
    return packet[2:]


@pytest.mark.parametrize(
    ("column_type", "meta", "value", "fmt"),
    [
        (ColumnType.TINY, None, -128, "<b"),
        (ColumnType.TINY, None, 5, "<b"),  # mimic sent bool(5) = 1
        (ColumnType.TINY, UNSIGNED, 255, "<B"),
        (ColumnType.SHORT, None, -32768, "<h"),
        (ColumnType.SHORT, UNSIGNED, 65535, "<H"),
        (ColumnType.LONG, None, -(2**31), "<i"),
        (ColumnType.LONG, UNSIGNED, 2**32 - 1, "<I"),
        (ColumnType.LONGLONG, None, -(2**63), "<q"),
        (ColumnType.LONGLONG, UNSIGNED, 2**64 - 1, "<Q"),  # mimic raised struct.error
        (ColumnType.DOUBLE, None, -2.25e300, "<d"),
        (ColumnType.FLOAT, None, 1.5, "<f"),
        (ColumnType.YEAR, None, 2024, "<H"),
    ],
)
def test_numbers_over_their_whole_range(
    column_type: ColumnType, meta: ColumnMeta | None, value: Any, fmt: str
) -> None:
    assert _value(column_type, value, meta) == struct.pack(fmt, value)


def test_decimal_in_plain_notation() -> None:
    assert _value(ColumnType.NEWDECIMAL, decimal.Decimal("1E+2")) == b"\x03100"
    assert _value(ColumnType.NEWDECIMAL, decimal.Decimal("-0.0001")) == b"\x07-0.0001"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (dt.timedelta(hours=-1), b"\x08\x01" + struct.pack("<I", 0) + b"\x01\x00\x00"),
        (
            dt.timedelta(hours=838, minutes=59, seconds=59),
            b"\x08\x00" + struct.pack("<I", 34) + bytes([22, 59, 59]),
        ),
        (
            -dt.timedelta(hours=838, minutes=59, seconds=59),
            b"\x08\x01" + struct.pack("<I", 34) + bytes([22, 59, 59]),
        ),
        (
            dt.timedelta(seconds=-1, microseconds=500000),  # -00:00:00.5
            b"\x0c\x01" + struct.pack("<I", 0) + b"\x00\x00\x00" + struct.pack("<I", 500000),
        ),
        (dt.timedelta(0), b"\x00"),
        (dt.time(10, 0, 1), b"\x08\x00" + struct.pack("<I", 0) + bytes([10, 0, 1])),
    ],
)
def test_time_negative_and_beyond_a_day(value: Any, expected: bytes) -> None:
    """mimic sent -01:00:00 as -(1 day 23:00:00)."""
    assert _value(ColumnType.TIME, value) == expected


def test_time_text_as_mysql_writes_it() -> None:
    column = ResultColumn("t", ColumnType.TIME)
    assert time_text(column, dt.timedelta(hours=-25)) == b"-25:00:00"
    assert time_text(column, dt.timedelta(hours=838, minutes=59, seconds=59)) == b"838:59:59"
    assert time_text(column, dt.timedelta(seconds=1, microseconds=5)) == b"00:00:01.000005"


def test_datetime_without_fraction_is_seven_bytes() -> None:
    assert _value(ColumnType.DATETIME, dt.datetime(2024, 1, 1, 10, 0)) == (
        b"\x07" + struct.pack("<HBBBBB", 2024, 1, 1, 10, 0, 0)
    )
    assert _value(ColumnType.DATE, dt.date(1000, 1, 1)) == b"\x04" + struct.pack("<HBB", 1000, 1, 1)


def test_nulls_set_the_bitmap_from_bit_two() -> None:
    columns = [ResultColumn(f"c{i}", ColumnType.LONG) for i in range(7)]
    packet = BinaryRows(columns, [None] * 7).encode([(None, 1, None, 1, 1, 1, None)])[0]
    assert packet[:3] == b"\x00" + bytes([0b00010100, 0b00000001])


def test_an_unencodable_value_is_a_typed_error() -> None:
    rows = BinaryRows([ResultColumn("n", ColumnType.LONGLONG)], [None])
    with pytest.raises(DrydockError) as info:
        rows.encode([(1,), (2**70,)])
    assert info.value.spec is Errors.BINARY_VALUE_NOT_ENCODABLE and "'n'" in info.value.message


def _execute(rows: list[tuple[Any, ...]], columns: list[ResultColumn]) -> list[bytes]:
    """COM_STMT_EXECUTE's packets; a DrydockError propagates to the caller (the connection's
    command loop answers it with an ERR packet, server/connection.py)."""
    session = FakeSession(answers={"SELECT n FROM t": ResultSet(rows=rows, columns=columns)})
    stream = RecordingStream()
    stmts = connection(session, stream=stream).stmts

    async def scenario() -> None:
        await stmts.prepare(b"SELECT n FROM t")
        stream.packets.clear()
        await stmts.execute((0).to_bytes(4, "little") + b"\x00" + (1).to_bytes(4, "little"))

    try:
        asyncio.run(scenario())
    finally:
        sent[:] = list(stream.packets)
    return list(stream.packets)


sent: list[bytes] = []


def test_execute_with_an_unencodable_value_writes_nothing_before_its_error() -> None:
    """Injected: a value no MySQL type holds. The error comes before any column definition,
    so the client's answer is the ERR alone (a client that read definitions and then an ERR in
    place of their EOF waited forever)."""
    columns = [ResultColumn("n", ColumnType.LONGLONG)]
    with pytest.raises(DrydockError) as info:
        _execute([(1,), (object(),)], columns)
    assert info.value.spec is Errors.BINARY_VALUE_NOT_ENCODABLE
    assert sent == []


def test_execute_sends_header_rows_and_end() -> None:
    columns = [ResultColumn("n", ColumnType.LONGLONG)]
    answer = _execute([(1,), (2,)], columns)
    assert answer[0] == b"\x01" and answer[-1][:1] in (b"\x00", b"\xfe")
    assert b"\x00\x00" + struct.pack("<q", 2) in answer
