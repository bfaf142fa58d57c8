"""Strict, bounded parsers for the client packets that mysql-mimic parses unsafely.

mysql-mimic 3.0.5's compiled ``types.read_str_null`` loops forever when a string has no NUL
terminator, and its connect-attribute reader loops on truncated data. One such packet before login
freezes the whole event loop (reference: mysql-mimic facts §8, bug 2). Every client packet that
contains NUL-terminated strings or length-prefixed attribute lists is parsed here instead, in pure
Python, with every length checked against what is left. A malformed packet raises
:class:`MalformedPacket`; nothing here can loop or allocate past the packet's own size.
"""

from __future__ import annotations

from mysql_mimic.charset import CharacterSet, Collation
from mysql_mimic.packets import ComChangeUser, ComFieldList, HandshakeResponse41, SSLRequest
from mysql_mimic.types import Capabilities


class MalformedPacket(Exception):
    pass


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
        return Collation(collation_id).charset
    except ValueError:
        raise MalformedPacket(f"unknown collation id {collation_id}") from None


def _decode(charset: CharacterSet, raw: bytes) -> str:
    try:
        return charset.decode(raw)
    except UnicodeDecodeError:
        raise MalformedPacket("string is not valid in the client character set") from None


def _connect_attrs(r: Reader, charset: CharacterSet) -> dict[str, str]:
    block = Reader(r.str_len())  # the whole attribute block must be present
    attrs: dict[str, str] = {}
    while block.remaining():
        key = _decode(charset, block.str_len())
        attrs[key] = _decode(charset, block.str_len())
    return attrs


def parse_handshake_response(server_caps: Capabilities, data: bytes) -> HandshakeResponse41 | SSLRequest:
    """HandshakeResponse41 (https://dev.mysql.com/doc/dev/mysql-server/latest/page_protocol_connection_phase_packets_protocol_handshake_response.html)."""
    r = Reader(data)
    client_caps = Capabilities(r.uint(4))
    if Capabilities.CLIENT_PROTOCOL_41 not in client_caps:
        raise MalformedPacket("clients older than protocol 4.1 are not supported")
    caps = server_caps & client_caps
    max_packet_size = r.uint(4)
    charset = _charset(r.uint(1))
    r.fixed(23)
    if not r.remaining():
        return SSLRequest(max_packet_size=max_packet_size, capabilities=caps, client_charset=charset)
    username = _decode(charset, r.str_null())
    if Capabilities.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA in caps:
        auth_response = r.str_len()
    else:
        auth_response = r.fixed(r.uint(1))
    response = HandshakeResponse41(max_packet_size=max_packet_size, capabilities=caps,
                                   client_charset=charset, username=username,
                                   auth_response=auth_response)
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
