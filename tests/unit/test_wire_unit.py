"""server/wire.py: the bounded parsers and packet reader that replace mysql-mimic's; the
connection's
parts (KILL, prepared-statement cursors, multi-statement results, status flags) built with
tests/support/wire_fakes.py. No sockets."""

from __future__ import annotations

import asyncio
import random
import struct

import pytest
from mysql_mimic.charset import CharacterSet
from mysql_mimic.constants import KillKind
from mysql_mimic.packets import SSLRequest, make_binary_resultrow
from mysql_mimic.results import ResultColumn, ResultSet
from mysql_mimic.stream import ConnectionClosed
from mysql_mimic.types import Capabilities, ColumnType, ServerStatus

from drydock.engine.errors import DrydockError
from drydock.server import wire
from drydock.server.app import CAPABILITIES
from tests.support import mysql_raw as raw
from tests.support.wire_fakes import FakeSession, RecordingStream, connection, result_writer

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
    assert (response.username, response.database, response.client_plugin) == (
        "alice",
        "db1",
        "mysql_native_password",
    )
    assert response.auth_response == b"\x01" * 20
    assert response.connect_attrs == {"_client_name": "pytest"}
    assert Capabilities.CLIENT_SSL not in response.capabilities


def test_ssl_request_is_recognised() -> None:
    packet = struct.pack("<IIB", raw.BASE_CAPS | raw.CLIENT_SSL, 1 << 24, 45) + b"\x00" * 23
    assert isinstance(wire.parse_handshake_response(CAPABILITIES, packet), SSLRequest)


@pytest.mark.parametrize(
    "packet",
    [
        struct.pack("<IIB", raw.BASE_CAPS, 1 << 24, 45) + b"\x00" * 23 + b"root" * 8,  # no NUL
        _response(attrs=raw.lenenc_int(200) + b"\x01k"),  # attribute block longer than the packet
        _response(attrs=raw.lenenc_str(b"\x01k\xfc\xff\xff")),  # value longer than the block
        _response()[:-1],  # plugin name without NUL
        struct.pack("<IIB", raw.BASE_CAPS & ~raw.CLIENT_PROTOCOL_41, 1 << 24, 45)
        + b"\x00" * 23
        + b"a\x00\x00",
        struct.pack("<IIB", raw.BASE_CAPS, 1 << 24, 250)
        + b"\x00" * 23
        + b"a\x00\x00",  # unknown collation
        struct.pack("<IIB", raw.BASE_CAPS, 1 << 24, 35)
        + b"\x00" * 23
        + b"a\x00\x00",  # ucs2: no codec
        struct.pack("<IIB", raw.BASE_CAPS, 1 << 24, 45)
        + b"\x00" * 23
        + b"\xff\xfe\x00\x00",  # not UTF-8
        b"\x00\x02",
    ],
)
def test_malformed_handshake_responses_raise(packet: bytes) -> None:
    with pytest.raises(wire.MalformedPacket):
        wire.parse_handshake_response(CAPABILITIES, packet)


def test_every_truncation_and_random_corruption_ends_quickly() -> None:
    """No prefix or byte-flip of valid packets can loop: each parse returns or raises
    MalformedPacket."""
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
        for parse in (
            lambda p: wire.parse_handshake_response(CAPABILITIES, p),
            lambda p: wire.parse_com_change_user(caps, UTF8, p),
            lambda p: wire.parse_com_field_list(UTF8, p),
        ):
            try:
                parse(packet)
            except wire.MalformedPacket:
                pass


def test_parse_com_change_user() -> None:
    caps = Capabilities(raw.BASE_CAPS)
    change = wire.parse_com_change_user(
        caps, UTF8, raw.change_user_payload("bob", b"\x02" * 20, "db")
    )
    assert (change.username, change.auth_response, change.database) == ("bob", b"\x02" * 20, "db")
    assert change.client_plugin == "mysql_native_password"
    with pytest.raises(wire.MalformedPacket):
        wire.parse_com_change_user(caps, UTF8, b"bob")  # no NUL
    with pytest.raises(wire.MalformedPacket):
        wire.parse_com_change_user(caps, UTF8, b"bob\x00\x14ab")  # auth shorter than announced


# -- PacketStream: the bounded replacement of MysqlStream.read()
# ----------------------------------------
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


# -- server/connection.py, server/stmt_commands.py, server/result_writer.py (no sockets) ----------


def _ok_status(packet: bytes) -> int:
    """The status flags of an EOF (0xfe, warnings(2), status(2)) or an OK with counts below 251
    (header, affected rows(1), insert id(1), status(2)): bytes 3-4 either way."""
    return int.from_bytes(packet[3:5], "little")


def test_kill_query_on_an_idle_connection_interrupts_nothing_and_keeps_it() -> None:
    session = FakeSession()
    conn = connection(session)
    conn.kill(KillKind.QUERY)
    assert session.interrupts == 0 and not conn.kill_after_statement


def test_kill_query_interrupts_the_running_statement() -> None:
    session = FakeSession()
    conn = connection(session)
    conn.busy = True
    conn.kill(KillKind.QUERY)  # off the event loop: one interrupt, no retries
    assert session.interrupts == 1 and not conn.kill_after_statement


def test_kill_connection_waits_for_a_statement_in_a_worker_thread() -> None:
    session = FakeSession(statement_in_thread=True)
    conn = connection(session)
    conn.busy = True
    conn.kill(KillKind.CONNECTION)
    assert session.interrupts == 1 and conn.kill_after_statement


def _execute(stmt_id: int, cursor: bool) -> bytes:
    return (
        stmt_id.to_bytes(4, "little") + bytes([0x01 if cursor else 0]) + (1).to_bytes(4, "little")
    )


def _fetch(stmt_id: int, rows: int) -> bytes:
    return stmt_id.to_bytes(4, "little") + rows.to_bytes(4, "little")


def test_stmt_fetch_sends_exactly_the_rows_asked_for() -> None:
    """Upstream pulled one row past the count and dropped it: a row lost at every boundary."""
    columns = [ResultColumn("a", ColumnType.LONGLONG)]
    session = FakeSession(
        answers={"SELECT a FROM t": ResultSet(rows=[(1,), (2,), (3,)], columns=columns)}
    )
    stream = RecordingStream()
    stmts = connection(session, stream=stream).stmts

    async def scenario() -> list[list[bytes]]:
        await stmts.prepare(b"SELECT a FROM t")
        answers = []
        for command, data in (
            (stmts.execute, _execute(0, cursor=True)),
            (stmts.fetch, _fetch(0, 2)),
            (stmts.fetch, _fetch(0, 2)),
        ):
            stream.packets.clear()
            await command(data)
            answers.append(list(stream.packets))
        return answers

    executed, first, second = asyncio.run(scenario())
    cursor_exists = int(ServerStatus.SERVER_STATUS_CURSOR_EXISTS)
    assert _ok_status(executed[-1]) & cursor_exists
    assert first[:2] == [make_binary_resultrow((1,), columns), make_binary_resultrow((2,), columns)]
    assert len(first) == 3 and _ok_status(first[-1]) & cursor_exists
    assert second[0] == make_binary_resultrow((3,), columns) and len(second) == 2
    assert _ok_status(second[-1]) & int(ServerStatus.SERVER_STATUS_LAST_ROW_SENT)


def test_stmt_reset_keeps_the_statement_and_answers_ok() -> None:
    """Upstream reset the whole session on COM_STMT_RESET."""
    session = FakeSession(database="db")
    stream = RecordingStream()
    stmts = connection(session, stream=stream).stmts

    async def scenario() -> None:
        await stmts.prepare(b"SELECT 1")
        await stmts.reset((0).to_bytes(4, "little"))

    asyncio.run(scenario())
    assert stream.packets[-1][:1] == b"\x00" and 0 in stmts.statements and session.database == "db"


def test_an_unknown_statement_is_1243() -> None:
    stmts = connection().stmts
    with pytest.raises(DrydockError) as unknown:
        asyncio.run(stmts.execute(_execute(7, cursor=False)))
    assert unknown.value.code == 1243


def test_multi_statement_results_carry_more_results_but_the_last() -> None:
    ok: ResultSet = ResultSet(rows=[], columns=[])
    session = FakeSession(answers={"SET @a = 1;": ok, " SET @b = 2": ok})  # each span as cut
    stream = RecordingStream()
    conn = connection(
        session,
        capabilities=Capabilities.CLIENT_PROTOCOL_41 | Capabilities.CLIENT_MULTI_STATEMENTS,
        stream=stream,
    )
    asyncio.run(conn.handle_query(b"SET @a = 1; SET @b = 2"))
    more = int(ServerStatus.SERVER_MORE_RESULTS_EXISTS)
    assert session.queries == ["SET @a = 1;", " SET @b = 2"]
    assert [bool(_ok_status(p) & more) for p in stream.packets] == [True, False]
    assert conn.writer.more_results == 0


def test_ok_packets_carry_the_sessions_text_mode() -> None:
    """NO_BACKSLASH_ESCAPES in the sql_mode is announced in every OK (drivers escape by it)."""
    flag = int(ServerStatus.SERVER_STATUS_NO_BACKSLASH_ESCAPES)
    assert (
        _ok_status(
            result_writer(
                Capabilities.CLIENT_PROTOCOL_41, FakeSession(sql_mode="NO_BACKSLASH_ESCAPES")
            ).ok()
        )
        & flag
    )
    assert not _ok_status(result_writer(Capabilities.CLIENT_PROTOCOL_41, FakeSession()).ok()) & flag


def test_the_handshake_offers_session_tracking() -> None:
    """Node mysql2 reads an OK's info string length-encoded only when the server offers
    CLIENT_SESSION_TRACK; otherwise it reads the length byte as text ("(Rows matched: …")."""
    assert Capabilities.CLIENT_SESSION_TRACK in CAPABILITIES


def test_a_new_database_is_announced_once_to_a_tracking_client() -> None:
    """After USE the OK carries SESSION_TRACK_SCHEMA (Connector/J 3 answers getCatalog from it):
    info (empty) then the state block: total length, type 1, entry length, the name."""
    session = FakeSession(database="db1")
    tracking = Capabilities.CLIENT_PROTOCOL_41 | Capabilities.CLIENT_SESSION_TRACK
    writer = result_writer(tracking, session)
    changed = int(ServerStatus.SERVER_SESSION_STATE_CHANGED)
    ok = writer.statement_ok()
    assert _ok_status(ok) & changed
    assert ok.endswith(b"\x00" + b"\x06\x01\x04\x03db1")
    again = writer.statement_ok()  # the client knows it now: a plain OK
    assert not _ok_status(again) & changed and again == writer.ok()
    session.database = "db2"
    assert writer.database_ok().endswith(b"\x00\x06\x01\x04\x03db2")  # COM_INIT_DB's OK
    plain = result_writer(Capabilities.CLIENT_PROTOCOL_41, FakeSession(database="db1"))
    assert plain.statement_ok() == plain.ok()  # a client that does not track hears nothing
