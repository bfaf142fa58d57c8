"""A tiny raw MySQL-protocol client for tests that must see (or send) exact packets.

Every socket operation has a timeout, so a test using this can never hang. Only what the tests
need is here: packet framing (3-byte length + sequence id), HandshakeV10 parsing, a
HandshakeResponse41 with mysql_native_password, COM_QUERY / COM_STMT_PREPARE / COM_PING, and
parsers for OK, EOF, ERR and text result sets.
"""

from __future__ import annotations

import hashlib
import socket
import struct
import time
from dataclasses import dataclass, field
from typing import Self

# Capability flags
# (https://dev.mysql.com/doc/dev/mysql-server/latest/group__group__cs__capabilities__flags.html)
CLIENT_LONG_PASSWORD = 0x1
CLIENT_CONNECT_WITH_DB = 0x8
CLIENT_PROTOCOL_41 = 0x200
CLIENT_SSL = 0x800
CLIENT_TRANSACTIONS = 0x2000
CLIENT_SECURE_CONNECTION = 0x8000
CLIENT_MULTI_STATEMENTS = 0x10000
CLIENT_MULTI_RESULTS = 0x20000
CLIENT_PLUGIN_AUTH = 0x80000
CLIENT_CONNECT_ATTRS = 0x100000
CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA = 0x200000
CLIENT_DEPRECATE_EOF = 0x1000000

SERVER_STATUS_AUTOCOMMIT = 0x2

COM_QUIT = 0x01
COM_QUERY = 0x03
COM_PING = 0x0E
COM_CHANGE_USER = 0x11
COM_STMT_PREPARE = 0x16

BASE_CAPS = (
    CLIENT_LONG_PASSWORD
    | CLIENT_PROTOCOL_41
    | CLIENT_TRANSACTIONS
    | CLIENT_SECURE_CONNECTION
    | CLIENT_PLUGIN_AUTH
    | CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA
)
TIMEOUT = 5.0


class Closed(Exception):
    """The server closed the connection."""


def lenenc_int(n: int) -> bytes:
    if n < 0xFB:
        return bytes([n])
    if n < 1 << 16:
        return b"\xfc" + n.to_bytes(2, "little")
    if n < 1 << 24:
        return b"\xfd" + n.to_bytes(3, "little")
    return b"\xfe" + n.to_bytes(8, "little")


def lenenc_str(b: bytes) -> bytes:
    return lenenc_int(len(b)) + b


def read_lenenc_int(data: bytes, pos: int) -> tuple[int | None, int]:
    first = data[pos]
    if first < 0xFB:
        return first, pos + 1
    if first == 0xFB:
        return None, pos + 1  # NULL in a text row
    size = {0xFC: 2, 0xFD: 3, 0xFE: 8}[first]
    return int.from_bytes(data[pos + 1 : pos + 1 + size], "little"), pos + 1 + size


def native_password(password: str, nonce: bytes) -> bytes:
    if not password:
        return b""
    h1 = hashlib.sha1(password.encode()).digest()
    h3 = hashlib.sha1(nonce + hashlib.sha1(h1).digest()).digest()
    return bytes(a ^ b for a, b in zip(h1, h3))


@dataclass
class Handshake:
    protocol: int
    server_version: str
    connection_id: int
    capabilities: int
    charset: int
    status: int
    nonce: bytes
    plugin: str


def parse_handshake(data: bytes) -> Handshake:
    pos = 1
    end = data.index(b"\x00", pos)
    version = data[pos:end].decode()
    pos = end + 1
    conn_id = struct.unpack_from("<I", data, pos)[0]
    pos += 4
    nonce1 = data[pos : pos + 8]
    pos += 9  # + filler
    caps_low = struct.unpack_from("<H", data, pos)[0]
    pos += 2
    charset = data[pos]
    status = struct.unpack_from("<H", data, pos + 1)[0]
    caps_high = struct.unpack_from("<H", data, pos + 3)[0]
    auth_len = data[pos + 5]
    pos += 6 + 10
    part2_len = max(13, auth_len - 8)
    nonce2 = data[pos : pos + part2_len].rstrip(b"\x00")
    pos += part2_len
    plugin = data[pos:].split(b"\x00", 1)[0].decode()
    return Handshake(
        data[0],
        version,
        conn_id,
        caps_low | (caps_high << 16),
        charset,
        status,
        nonce1 + nonce2,
        plugin,
    )


def handshake_response(
    user: str,
    auth: bytes,
    caps: int = BASE_CAPS,
    database: str | None = None,
    plugin: str = "mysql_native_password",
    charset: int = 45,
    attrs: bytes | None = None,
) -> bytes:
    if database is not None:
        caps |= CLIENT_CONNECT_WITH_DB
    if attrs is not None:
        caps |= CLIENT_CONNECT_ATTRS
    out = struct.pack("<IIB", caps, 1 << 24, charset) + b"\x00" * 23
    out += user.encode() + b"\x00"
    out += (
        lenenc_str(auth)
        if caps & CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA
        else bytes([len(auth)]) + auth
    )
    if database is not None:
        out += database.encode() + b"\x00"
    if caps & CLIENT_PLUGIN_AUTH:
        out += plugin.encode() + b"\x00"
    if attrs is not None:
        out += attrs
    return out


def frame(payload: bytes, seq: int = 0) -> bytes:
    """One wire packet: 3-byte little-endian length, sequence id, payload."""
    return len(payload).to_bytes(3, "little") + bytes([seq]) + payload


def change_user_payload(
    user: str,
    auth: bytes,
    database: str = "",
    charset: int = 45,
    plugin: str = "mysql_native_password",
) -> bytes:
    """COM_CHANGE_USER's body (without the command byte), CLIENT_SECURE_CONNECTION form."""
    return (
        user.encode()
        + b"\x00"
        + bytes([len(auth)])
        + auth
        + database.encode()
        + b"\x00"
        + charset.to_bytes(2, "little")
        + plugin.encode()
        + b"\x00"
    )


@dataclass
class Ok:
    affected_rows: int
    last_insert_id: int
    status: int
    warnings: int
    header: int = 0x00


@dataclass
class Eof:
    warnings: int
    status: int


@dataclass
class Err:
    code: int
    sqlstate: str
    message: str


@dataclass
class ResultSet:
    columns: list[str]
    rows: list[list[bytes | None]]
    end: Ok | Eof = field(default_factory=lambda: Eof(0, 0))


def parse_ok(data: bytes) -> Ok:
    affected, pos = read_lenenc_int(data, 1)
    last_id, pos = read_lenenc_int(data, pos)
    status, warnings = struct.unpack_from("<HH", data, pos)
    return Ok(affected or 0, last_id or 0, status, warnings, data[0])


def parse_err(data: bytes) -> Err:
    code = struct.unpack_from("<H", data, 1)[0]
    if data[3:4] == b"#":
        return Err(code, data[4:9].decode(), data[9:].decode())
    return Err(code, "", data[3:].decode())


def parse_eof(data: bytes) -> Eof:
    warnings, status = struct.unpack_from("<HH", data, 1)
    return Eof(warnings, status)


def is_eof(data: bytes) -> bool:
    return data[:1] == b"\xfe" and len(data) < 9


def column_name(coldef: bytes) -> str:
    pos = 0
    for _ in range(4):  # catalog, schema, table, org_table
        n, pos = read_lenenc_int(coldef, pos)
        pos += n or 0
    n, pos = read_lenenc_int(coldef, pos)
    return coldef[pos : pos + (n or 0)].decode()


class RawClient:
    def __init__(self, host: str, port: int, timeout: float = TIMEOUT):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.settimeout(timeout)
        self.seq = 0
        self.last_seq = 0
        self.caps = 0
        self.received = b""
        self.handshake = parse_handshake(self.read_packet())

    # -- framing --------------------------------------------------------------------------------
    def _recv_exact(self, n: int) -> bytes:
        buf = b""
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise Closed(f"connection closed after {len(buf)} of {n} bytes")
            buf += chunk
        return buf

    def read_packet(self) -> bytes:
        header = self._recv_exact(4)
        length = int.from_bytes(header[:3], "little")
        self.seq = (header[3] + 1) % 256
        self.last_seq = header[3]
        return self._recv_exact(length)

    def write_packet(self, payload: bytes) -> None:
        self.sock.sendall(len(payload).to_bytes(3, "little") + bytes([self.seq]) + payload)
        self.seq = (self.seq + 1) % 256

    def command(self, cmd: int, payload: bytes = b"") -> None:
        self.seq = 0
        self.write_packet(bytes([cmd]) + payload)

    def closed_within(self, seconds: float) -> bool:
        """True when the server closes the socket (EOF or reset) within `seconds`; anything it
        sends first is kept in ``self.received``. False when it is still open after that."""
        self.received = b""
        deadline = time.monotonic() + seconds
        self.sock.settimeout(0.2)
        try:
            while time.monotonic() < deadline:
                try:
                    chunk = self.sock.recv(65536)
                except TimeoutError:
                    continue
                except (ConnectionResetError, BrokenPipeError):
                    return True
                if not chunk:
                    return True
                self.received += chunk
            return False
        finally:
            self.sock.settimeout(TIMEOUT)

    def send_quietly(self, data: bytes) -> None:
        """Send raw bytes, ignoring a reset from a server that already closed the socket."""
        try:
            self.sock.sendall(data)
        except OSError:
            pass

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- phases ---------------------------------------------------------------------------------
    def login(
        self,
        user: str = "root",
        password: str = "",
        caps: int = BASE_CAPS,
        database: str | None = None,
    ) -> Ok | Err:
        self.caps = caps
        auth = native_password(password, self.handshake.nonce)
        self.write_packet(handshake_response(user, auth, caps, database))
        return self.read_reply()

    def read_reply(self) -> Ok | Err:
        data = self.read_packet()
        if data[:1] == b"\xff":
            return parse_err(data)
        if data[:1] == b"\x00":
            return parse_ok(data)
        raise AssertionError(f"expected OK or ERR, got {data[:16]!r}")

    def query(self, sql: str) -> Ok | Err | ResultSet:
        self.command(COM_QUERY, sql.encode())
        first = self.read_packet()
        if first[:1] == b"\xff":
            return parse_err(first)
        if first[:1] == b"\x00":
            return parse_ok(first)
        count, _ = read_lenenc_int(first, 0)
        columns = [column_name(self.read_packet()) for _ in range(count or 0)]
        if not self.caps & CLIENT_DEPRECATE_EOF:
            assert is_eof(self.read_packet()), "expected the EOF after column definitions"
        rows: list[list[bytes | None]] = []
        while True:
            data = self.read_packet()
            if data[:1] == b"\xff":
                raise AssertionError(f"error inside result set: {parse_err(data)}")
            if data[:1] == b"\xfe" and len(data) < 0xFFFFFF:  # a row starting 0xFE is >= 16 MiB
                end: Ok | Eof = (
                    parse_ok(data) if self.caps & CLIENT_DEPRECATE_EOF else parse_eof(data)
                )
                return ResultSet(columns, rows, end)
            row: list[bytes | None] = []
            pos = 0
            while pos < len(data):
                n, pos = read_lenenc_int(data, pos)
                row.append(None if n is None else data[pos : pos + n])
                pos += n or 0
            rows.append(row)


def connect(
    host: str,
    port: int,
    user: str = "root",
    password: str = "",
    caps: int = BASE_CAPS,
    database: str | None = None,
) -> RawClient:
    client = RawClient(host, port)
    reply = client.login(user, password, caps, database)
    if not isinstance(reply, Ok):
        client.close()
        raise AssertionError(f"login failed: {reply}")  # noqa: TRY004 - a failed test precondition
    return client
