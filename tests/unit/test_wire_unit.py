"""server/wire.py: the bounded parsers and packet reader that replace mysql-mimic's (no sockets)."""

from __future__ import annotations

import asyncio
import random
import struct

import pytest
from mysql_mimic.charset import CharacterSet
from mysql_mimic.packets import SSLRequest
from mysql_mimic.stream import ConnectionClosed
from mysql_mimic.types import Capabilities

from drydock.server import wire
from drydock.server.app import CAPABILITIES
from tests.support import mysql_raw as raw

UTF8 = CharacterSet.utf8mb4


def _response(**kwargs: object) -> bytes:
    return raw.handshake_response("alice", b"\x01" * 20, **kwargs)  # type: ignore[arg-type]


def test_reader_never_reads_past_the_packet() -> None:
    r = wire.Reader(b"\x02ab\xfc\x01")
    assert r.str_len() == b"ab"
    with pytest.raises(wire.MalformedPacket):
        r.uint_len()  # 0xfc announces 2 bytes, 1 is left
    with pytest.raises(wire.MalformedPacket):
        wire.Reader(b"abc").str_null()
    with pytest.raises(wire.MalformedPacket):
        wire.Reader(b"\xff").uint_len()
    with pytest.raises(wire.MalformedPacket):
        wire.Reader(b"").fixed(-1)


def test_parse_a_full_handshake_response() -> None:
    attrs = raw.lenenc_str(raw.lenenc_str(b"_client_name") + raw.lenenc_str(b"pytest"))
    response = wire.parse_handshake_response(CAPABILITIES, _response(database="db1", attrs=attrs))
    assert not isinstance(response, SSLRequest)
    assert (response.username, response.database, response.client_plugin) == ("alice", "db1", "mysql_native_password")
    assert response.auth_response == b"\x01" * 20
    assert response.connect_attrs == {"_client_name": "pytest"}
    assert Capabilities.CLIENT_SSL not in response.capabilities


def test_ssl_request_is_recognised() -> None:
    packet = struct.pack("<IIB", raw.BASE_CAPS | raw.CLIENT_SSL, 1 << 24, 45) + b"\x00" * 23
    assert isinstance(wire.parse_handshake_response(CAPABILITIES, packet), SSLRequest)


@pytest.mark.parametrize("packet", [
    struct.pack("<IIB", raw.BASE_CAPS, 1 << 24, 45) + b"\x00" * 23 + b"root" * 8,  # no NUL
    _response(attrs=raw.lenenc_int(200) + b"\x01k"),  # attribute block longer than the packet
    _response(attrs=raw.lenenc_str(b"\x01k\xfc\xff\xff")),  # value longer than the block
    _response()[:-1],  # plugin name without NUL
    struct.pack("<IIB", raw.BASE_CAPS & ~raw.CLIENT_PROTOCOL_41, 1 << 24, 45) + b"\x00" * 23 + b"a\x00\x00",
    struct.pack("<IIB", raw.BASE_CAPS, 1 << 24, 250) + b"\x00" * 23 + b"a\x00\x00",  # unknown collation
    struct.pack("<IIB", raw.BASE_CAPS, 1 << 24, 35) + b"\x00" * 23 + b"a\x00\x00",  # ucs2: no codec
    struct.pack("<IIB", raw.BASE_CAPS, 1 << 24, 45) + b"\x00" * 23 + b"\xff\xfe\x00\x00",  # not UTF-8
    b"\x00\x02",
])
def test_malformed_handshake_responses_raise(packet: bytes) -> None:
    with pytest.raises(wire.MalformedPacket):
        wire.parse_handshake_response(CAPABILITIES, packet)


def test_every_truncation_and_random_corruption_ends_quickly() -> None:
    """No prefix or byte-flip of valid packets can loop: each parse returns or raises MalformedPacket."""
    attrs = raw.lenenc_str(raw.lenenc_str(b"k") + raw.lenenc_str(b"v" * 300))
    valid = _response(database="db", attrs=attrs)
    change = raw.change_user_payload("bob", b"\x02" * 20, "db")
    rng = random.Random(7)
    candidates = [valid[:n] for n in range(len(valid))] + [change[:n] for n in range(len(change))]
    for _ in range(5000):
        base = bytearray(rng.choice((valid, change)))
        for _ in range(rng.randint(1, 4)):
            base[rng.randrange(len(base))] = rng.randrange(256)
        candidates.append(bytes(base))
    caps = Capabilities(raw.BASE_CAPS | raw.CLIENT_CONNECT_ATTRS | raw.CLIENT_CONNECT_WITH_DB)
    for packet in candidates:
        for parse in (lambda p: wire.parse_handshake_response(CAPABILITIES, p),
                      lambda p: wire.parse_com_change_user(caps, UTF8, p),
                      lambda p: wire.parse_com_field_list(UTF8, p)):
            try:
                parse(packet)
            except wire.MalformedPacket:
                pass


def test_parse_com_change_user() -> None:
    caps = Capabilities(raw.BASE_CAPS)
    change = wire.parse_com_change_user(caps, UTF8, raw.change_user_payload("bob", b"\x02" * 20, "db"))
    assert (change.username, change.auth_response, change.database) == ("bob", b"\x02" * 20, "db")
    assert change.client_plugin == "mysql_native_password"
    with pytest.raises(wire.MalformedPacket):
        wire.parse_com_change_user(caps, UTF8, b"bob")  # no NUL
    with pytest.raises(wire.MalformedPacket):
        wire.parse_com_change_user(caps, UTF8, b"bob\x00\x14ab")  # auth shorter than announced


# -- PacketStream: the bounded replacement of MysqlStream.read() ----------------------------------------
def _read(chunks: list[bytes], max_payload: int = wire.MAX_PAYLOAD, eof: bool = True) -> bytes:
    async def scenario() -> bytes:
        reader = asyncio.StreamReader()
        stream = wire.PacketStream(reader, None, max_payload=max_payload)  # type: ignore[arg-type]

        async def feed() -> None:
            for chunk in chunks:
                reader.feed_data(chunk)
                await asyncio.sleep(0.01)
            if eof:
                reader.feed_eof()

        feeder = asyncio.create_task(feed())
        try:
            return await stream.read()
        finally:
            await feeder

    return asyncio.run(asyncio.wait_for(scenario(), 5))


def test_packet_stream_reads_split_headers_and_payloads() -> None:
    packet = raw.frame(b"\x03SELECT 1")
    assert _read([packet[:1], packet[1:3], packet[3:6], packet[6:]]) == b"\x03SELECT 1"


def test_packet_stream_joins_continuation_packets() -> None:
    big = b"x" * 0xFFFFFF
    data = raw.frame(big, 0) + raw.frame(b"tail", 1)
    assert _read([data]) == big + b"tail"


def test_packet_stream_limits() -> None:
    with pytest.raises(wire.PacketTooLarge):
        _read([b"\xff\xff\xff\x00"], max_payload=wire.MAX_PREAUTH_PAYLOAD)  # refused before reading
    with pytest.raises(wire.PacketsOutOfOrder):
        _read([raw.frame(b"\x0e", seq=3)])
    with pytest.raises(ConnectionClosed):
        _read([b"\x05\x00"])  # EOF inside the header
    with pytest.raises(ConnectionClosed):
        _read([raw.frame(b"abcdef")[:6]])  # EOF inside the payload


def test_packet_stream_delegates_writes() -> None:
    async def scenario() -> None:
        stream = wire.PacketStream(asyncio.StreamReader(), None)  # type: ignore[arg-type]
        assert next(stream.seq) == 0
        stream.reset_seq()
        assert next(stream.seq) == 0

    asyncio.run(scenario())
