"""Strict, bounded parsers for the client packets that mysql-mimic parses unsafely.

mysql-mimic 3.0.5's compiled ``types.read_str_null`` loops forever when a string has no NUL
terminator, and its connect-attribute reader loops on truncated data. One such packet before login
freezes the whole event loop (docs/upstream-facts.md). Every client packet that
contains NUL-terminated strings or length-prefixed attribute lists is parsed here instead, in pure
Python, with every length checked against what is left. A malformed packet raises
:class:`MalformedPacket`; nothing here can loop or allocate past the packet's own size.
"""

from __future__ import annotations

import asyncio
import codecs
import datetime as dt
import decimal
import struct
from typing import Any

from mysql_mimic.charset import CharacterSet, Collation
from mysql_mimic.packets import ComChangeUser, ComFieldList, HandshakeResponse41, SSLRequest
from mysql_mimic.stream import ConnectionClosed, MysqlStream
from mysql_mimic.types import Capabilities, ColumnType

from drydock.grammar.lexer import DEFAULT_MODE, TextMode
from drydock.grammar.query_text import UndecodableText, decode_statement


class MalformedPacket(Exception):
    pass


class PacketTooLarge(MalformedPacket):
    pass


class PacketsOutOfOrder(MalformedPacket):
    pass


# -- packet framing
# ---------------------------------------------------------------------------------
# mysql-mimic's compiled MysqlStream.read() reads the 4-byte header with ``reader.read(4)``, which
# may
# return fewer bytes: a header split across two TCP segments ends the connection with struct.error.
# It also concatenates 16 MiB continuation packets without limit, even before login. This stream
# keeps mysql-mimic's (fast, compiled) writer and replaces read().
MAX_PREAUTH_PAYLOAD = 1 << 17  # a handshake response: connect attributes are limited to 64 KiB
MAX_PAYLOAD = 64 << 20  # MySQL's default max_allowed_packet


class PacketStream:
    """A ``mysql_mimic.stream.MysqlStream`` (which cannot be subclassed: it is compiled) with a
    bounded read(); everything else is delegated to the wrapped stream."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        max_payload: int = MAX_PREAUTH_PAYLOAD,
    ):
        self._inner = MysqlStream(reader, writer)
        self.reader = reader
        self.writer = writer
        self.max_payload = max_payload

    def __getattr__(self, name: str) -> Any:  # write, write_many, write_text_rows, drain, seq, ...
        return getattr(self._inner, name)

    async def read(self) -> bytes:
        data = bytearray()
        while True:
            try:
                header = await self.reader.readexactly(4)
            except asyncio.IncompleteReadError:
                raise ConnectionClosed() from None
            length = int.from_bytes(header[:3], "little")
            expected = next(self._inner.seq)
            if header[3] != expected:
                raise PacketsOutOfOrder(f"expected packet number {expected}, got {header[3]}")
            if len(data) + length > self.max_payload:
                raise PacketTooLarge(f"packet larger than {self.max_payload} bytes")
            try:
                data += await self.reader.readexactly(length)
            except asyncio.IncompleteReadError:
                raise ConnectionClosed() from None
            if length < 0xFFFFFF:
                return bytes(data)


class Reader:
    def __init__(self, data: bytes):
        self.data = data
        self.pos = 0

    def remaining(self) -> int:
        return len(self.data) - self.pos

    def fixed(self, n: int) -> bytes:
        if n < 0 or n > self.remaining():
            raise MalformedPacket(f"needs {n} bytes at offset {self.pos}, has {self.remaining()}")
        chunk = self.data[self.pos : self.pos + n]
        self.pos += n
        return chunk

    def uint(self, n: int) -> int:
        return int.from_bytes(self.fixed(n), "little")

    def uint_len(self) -> int:
        first = self.uint(1)
        if first < 0xFB:
            return first
        if first == 0xFC:
            return self.uint(2)
        if first == 0xFD:
            return self.uint(3)
        if first == 0xFE:
            return self.uint(8)
        raise MalformedPacket(f"invalid length-encoded integer prefix 0x{first:02x}")

    def str_len(self) -> bytes:
        return self.fixed(self.uint_len())

    def str_null(self) -> bytes:
        end = self.data.find(b"\x00", self.pos)
        if end < 0:
            raise MalformedPacket(f"string at offset {self.pos} has no NUL terminator")
        chunk = self.data[self.pos : end]
        self.pos = end + 1
        return chunk

    def rest(self) -> bytes:
        chunk = self.data[self.pos :]
        self.pos = len(self.data)
        return chunk


def _charset(collation_id: int) -> CharacterSet:
    try:
        charset = Collation(collation_id).charset
    except ValueError:
        raise MalformedPacket(f"unknown collation id {collation_id}") from None
    try:
        codecs.lookup(charset.codec)  # e.g. ucs2, binary: no Python codec, every decode would fail
    except LookupError:
        raise MalformedPacket(f"unsupported client character set {charset.name}") from None
    return charset


def _decode(charset: CharacterSet, raw: bytes) -> str:
    try:
        return charset.decode(raw)
    except UnicodeDecodeError:
        raise MalformedPacket("string is not valid in the client character set") from None


def decode_text(charset: CharacterSet, raw: bytes, mode: TextMode = DEFAULT_MODE) -> str:
    """A command's text (COM_QUERY, COM_STMT_PREPARE, COM_INIT_DB) in the client character set.
    Bytes that are not valid in it are a malformed packet (1835), never an internal error
    (mysql-mimic decodes strictly and the UnicodeDecodeError reached the last line of defence).
    String literals with a charset introducer (``_binary'…'`` with raw bytes) are read in their
    own charset (grammar/query_text.py), as the session's sql_mode (``mode``) reads literals."""
    try:
        return decode_statement(charset, raw, mode)
    except UndecodableText as exc:
        raise MalformedPacket(str(exc)) from None


def _connect_attrs(r: Reader, charset: CharacterSet) -> dict[str, str]:
    block = Reader(r.str_len())  # the whole attribute block must be present
    attrs: dict[str, str] = {}
    while block.remaining():
        key = _decode(charset, block.str_len())
        attrs[key] = _decode(charset, block.str_len())
    return attrs


def parse_handshake_response(
    server_caps: Capabilities, data: bytes
) -> HandshakeResponse41 | SSLRequest:
    """HandshakeResponse41 (MySQL's protocol documentation: Connection Phase Packets,
    Protocol::HandshakeResponse)."""
    r = Reader(data)
    client_caps = Capabilities(r.uint(4))
    if Capabilities.CLIENT_PROTOCOL_41 not in client_caps:
        raise MalformedPacket("clients older than protocol 4.1 are not supported")
    caps = server_caps & client_caps
    max_packet_size = r.uint(4)
    charset = _charset(r.uint(1))
    r.fixed(23)
    if not r.remaining():
        return SSLRequest(
            max_packet_size=max_packet_size, capabilities=caps, client_charset=charset
        )
    username = _decode(charset, r.str_null())
    if Capabilities.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA in caps:
        auth_response = r.str_len()
    else:
        auth_response = r.fixed(r.uint(1))
    response = HandshakeResponse41(
        max_packet_size=max_packet_size,
        capabilities=caps,
        client_charset=charset,
        username=username,
        auth_response=auth_response,
    )
    if Capabilities.CLIENT_CONNECT_WITH_DB in caps:
        response.database = _decode(charset, r.str_null()) or None
    if Capabilities.CLIENT_PLUGIN_AUTH in caps:
        response.client_plugin = _decode(charset, r.str_null())
    if Capabilities.CLIENT_CONNECT_ATTRS in caps and r.remaining():
        response.connect_attrs = _connect_attrs(r, charset)
    if Capabilities.CLIENT_ZSTD_COMPRESSION_ALGORITHM in caps and r.remaining():
        response.zstd_compression_level = r.uint(1)
    return response


def parse_com_change_user(caps: Capabilities, charset: CharacterSet, data: bytes) -> ComChangeUser:
    r = Reader(data)
    username = _decode(charset, r.str_null())
    if Capabilities.CLIENT_SECURE_CONNECTION in caps:
        auth_response = r.fixed(r.uint(1))
    else:
        auth_response = r.str_null()
    database = _decode(charset, r.str_null())
    response = ComChangeUser(username=username, auth_response=auth_response, database=database)
    if r.remaining():
        if Capabilities.CLIENT_PROTOCOL_41 in caps:
            charset = _charset(r.uint(2))
            response.client_charset = charset
        if Capabilities.CLIENT_PLUGIN_AUTH in caps and r.remaining():
            response.client_plugin = _decode(charset, r.str_null())
        if Capabilities.CLIENT_CONNECT_ATTRS in caps and r.remaining():
            response.connect_attrs = _connect_attrs(r, charset)
    return response


def parse_com_field_list(charset: CharacterSet, data: bytes) -> ComFieldList:
    r = Reader(data)
    table = _decode(charset, r.str_null())
    return ComFieldList(table=table, wildcard=_decode(charset, r.rest()))


# -- COM_STMT_EXECUTE parameters -------------------------------------------------------------------
# mysql-mimic's reader rejects DECIMAL, DATE, DATETIME, TIMESTAMP and TIME (1235), which
# Connector/J (setBigDecimal, setDate, setTimestamp) and mysql-connector-python send.
# https://dev.mysql.com/doc/dev/mysql-server/latest/page_protocol_binary_resultset.html
_LENENC_TYPES = {
    ColumnType.VARCHAR,
    ColumnType.VAR_STRING,
    ColumnType.STRING,
    ColumnType.BLOB,
    ColumnType.TINY_BLOB,
    ColumnType.MEDIUM_BLOB,
    ColumnType.LONG_BLOB,
    ColumnType.ENUM,
    ColumnType.SET,
    ColumnType.JSON,
    ColumnType.BIT,
    ColumnType.GEOMETRY,
}
_INT_SIZES = {
    ColumnType.TINY: 1,
    ColumnType.BOOL: 1,
    ColumnType.SHORT: 2,
    ColumnType.YEAR: 2,
    ColumnType.LONG: 4,
    ColumnType.INT24: 4,
    ColumnType.LONGLONG: 8,
}

ParamType = tuple[int, bool]  # (ColumnType code, unsigned)


def parse_execute_params(
    charset: CharacterSet,
    r: Reader,
    count: int,
    long_data: dict[int, bytearray] | None,
    previous_types: list[ParamType] | None,
) -> tuple[list[Any], list[ParamType]]:
    """The parameter block of COM_STMT_EXECUTE: null bitmap, new-params-bound flag, types, values.

    When the client does not re-send the types (flag 0), those of the previous execution are used.
    Returns the values and the types.
    """
    null_bitmap = r.fixed((count + 7) // 8)
    if r.uint(1):
        types = [(r.uint(1), bool(r.uint(1) & 0x80)) for _ in range(count)]
    elif previous_types is not None and len(previous_types) == count:
        types = previous_types
    else:
        raise MalformedPacket("parameter types were never sent for this statement")
    values: list[Any] = []
    for i, (code, unsigned) in enumerate(types):
        if null_bitmap[i // 8] & (1 << (i % 8)):
            values.append(None)
        elif long_data and i in long_data:
            values.append(_text_or_bytes(charset, bytes(long_data[i])))
        else:
            values.append(_param_value(charset, r, code, unsigned))
    return values, types


def _text_or_bytes(charset: CharacterSet, raw: bytes) -> str | bytes:
    try:
        return charset.decode(raw)
    except UnicodeDecodeError:
        return raw


def _param_value(charset: CharacterSet, r: Reader, code: int, unsigned: bool) -> Any:
    if code in _LENENC_TYPES:
        return _text_or_bytes(charset, r.str_len())
    if code in (ColumnType.DECIMAL, ColumnType.NEWDECIMAL):
        text = _decode(charset, r.str_len())
        try:
            return decimal.Decimal(text)
        except decimal.InvalidOperation:
            raise MalformedPacket(f"invalid DECIMAL parameter {text!r}") from None
    if code in _INT_SIZES:
        return int.from_bytes(r.fixed(_INT_SIZES[code]), "little", signed=not unsigned)
    if code == ColumnType.FLOAT:
        return struct.unpack("<f", r.fixed(4))[0]
    if code == ColumnType.DOUBLE:
        return struct.unpack("<d", r.fixed(8))[0]
    if code == ColumnType.NULL:
        return None
    if code in (ColumnType.DATE, ColumnType.DATETIME, ColumnType.TIMESTAMP):
        return _datetime(r, date_only=code == ColumnType.DATE)
    if code == ColumnType.TIME:
        return _time(r)
    raise MalformedPacket(f"unsupported parameter type {code}")


def _datetime(r: Reader, date_only: bool) -> dt.date | dt.datetime | str:
    block = Reader(r.fixed(r.uint(1)))
    if not block.remaining():
        return "0000-00-00" if date_only else "0000-00-00 00:00:00"
    year, month, day = block.uint(2), block.uint(1), block.uint(1)
    hour = minute = second = micro = 0
    if block.remaining():
        hour, minute, second = block.uint(1), block.uint(1), block.uint(1)
    if block.remaining():
        micro = block.uint(4)
    try:
        if date_only:
            return dt.date(year, month, day)
        return dt.datetime(year, month, day, hour, minute, second, micro)
    except ValueError:
        raise MalformedPacket(f"invalid date parameter {year}-{month}-{day}") from None


def _time(r: Reader) -> str:
    """A TIME parameter as MySQL's text form ``[-]H:MM:SS[.ffffff]`` (hours may exceed 24)."""
    block = Reader(r.fixed(r.uint(1)))
    if not block.remaining():
        return "00:00:00"
    negative, days = block.uint(1), block.uint(4)
    hour, minute, second = block.uint(1), block.uint(1), block.uint(1)
    micro = block.uint(4) if block.remaining() else 0
    text = f"{'-' if negative else ''}{days * 24 + hour:02d}:{minute:02d}:{second:02d}"
    return text + (f".{micro:06d}" if micro else "")
