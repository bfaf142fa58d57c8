"""mysql-mimic 3.0.5's connection-level defects (docs/upstream-facts.md), proven closed over
real sockets. Each test would fail on the unpatched library; the fixes live in server/connection.py,
server/login.py, server/result_writer.py, server/stmt_commands.py, server/wire.py and
server/app.py. Statement-level defects: tests/wire/test_mimic_defects_sql.py.

Every socket operation has a timeout (tests/support/mysql_raw.py), so no test can hang.
"""

from __future__ import annotations

import struct
import time
from pathlib import Path

import pymysql
import pytest

from tests.support import mysql_raw as raw
from tests.conftest import ServerProcess, make_server

HOST = "127.0.0.1"
DEADLINE = 5.0  # seconds a healthy server may take to answer anything here


@pytest.fixture(scope="module")
def pw_server(tmp_path_factory: pytest.TempPathFactory) -> ServerProcess:
    """root's password is 'pw'; every login in this module is checked against it."""
    proc = make_server(tmp_path_factory.mktemp("pw"), "--root-password", "pw").start()
    yield proc
    proc.stop()


def assert_select_one_works(server: ServerProcess, password: str = "") -> float:
    """A fresh client connects and runs SELECT 1; returns how long that took."""
    start = time.monotonic()
    conn = pymysql.connect(
        host=HOST,
        port=server.port,
        user="root",
        password=password,
        connect_timeout=DEADLINE,
        read_timeout=DEADLINE,
        write_timeout=DEADLINE,
    )
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT 1")
            assert cur.fetchall() == ((1,),)
    finally:
        conn.close()
    return time.monotonic() - start


# -- 1. a failed login ends the connection ---------------------------------------------------------
@pytest.mark.parametrize("user", ["root", "nobody"])
def test_failed_login_closes_the_connection(pw_server: ServerProcess, user: str) -> None:
    """Upstream writes ERR 1045 and then serves the client's COM_QUERY anyway (auth bypass)."""
    with raw.RawClient(HOST, pw_server.port) as client:
        reply = client.login(user, "wrong")
        assert isinstance(reply, raw.Err) and reply.code == 1045
        client.send_quietly(raw.frame(bytes([raw.COM_QUERY]) + b"SELECT 42, CURRENT_USER()"))
        assert client.closed_within(DEADLINE), "the connection stayed open after a failed login"
        assert client.received == b"", (
            f"the server answered after a failed login: {client.received!r}"
        )


def test_failed_change_user_closes_the_connection(pw_server: ServerProcess) -> None:
    """Upstream keeps the connection after a failed COM_CHANGE_USER (as the old or no user)."""
    with raw.connect(HOST, pw_server.port, password="pw") as client:
        client.command(raw.COM_CHANGE_USER, raw.change_user_payload("root", b"\x01" * 20))
        reply = client.read_reply()
        assert isinstance(reply, raw.Err) and (reply.code, reply.sqlstate) == (1045, "28000")
        client.send_quietly(raw.frame(bytes([raw.COM_QUERY]) + b"SELECT CURRENT_USER()"))
        assert client.closed_within(DEADLINE)
        assert client.received == b""


def test_successful_change_user_keeps_the_connection(pw_server: ServerProcess) -> None:
    with raw.connect(HOST, pw_server.port, password="pw") as client:
        auth = raw.native_password("pw", client.handshake.nonce)
        client.command(raw.COM_CHANGE_USER, raw.change_user_payload("root", auth))
        assert isinstance(client.read_reply(), raw.Ok)
        result = client.query("SELECT 1")
        assert isinstance(result, raw.ResultSet) and result.rows == [[b"1"]]


def test_failed_change_user_with_mysql_connector_loses_the_connection(
    pw_server: ServerProcess,
) -> None:
    import mysql.connector

    conn = mysql.connector.connect(
        host=HOST,
        port=pw_server.port,
        user="root",
        password="pw",
        use_pure=True,
        connection_timeout=DEADLINE,
    )
    try:
        with pytest.raises(mysql.connector.Error) as denied:
            conn.cmd_change_user(username="root", password="wrong")
        assert denied.value.errno == 1045
        with pytest.raises(mysql.connector.Error) as lost:
            conn.cmd_query("SELECT 1")
        assert lost.value.errno in (2013, 2055)
    finally:
        conn.close()


# -- 2. unknown user and wrong password look the same ---------------------------------------------
def test_unknown_user_and_wrong_password_give_the_same_answer(pw_server: ServerProcess) -> None:
    """Upstream: wrong password → 1045 'Access denied for user root'; unknown user → 3162
    'User nobody does not exist' — which tells an attacker which accounts exist."""
    answers = {}
    for user in ("root", "nobody"):
        with raw.RawClient(HOST, pw_server.port) as client:
            answers[user] = client.login(user, "wrong")
            assert client.closed_within(DEADLINE)
    for user, err in answers.items():
        assert isinstance(err, raw.Err)
        assert (err.code, err.sqlstate) == (1045, "28000")
        assert err.message == f"Access denied for user '{user}'@'127.0.0.1' (using password: YES)"
    for user in ("root", "nobody"):  # and the same through a real client
        with pytest.raises(pymysql.err.OperationalError) as denied:
            pymysql.connect(
                host=HOST,
                port=pw_server.port,
                user=user,
                password="wrong",
                connect_timeout=DEADLINE,
                read_timeout=DEADLINE,
            )
        assert denied.value.args == (1045, answers[user].message)
    with raw.RawClient(HOST, pw_server.port) as client:
        err = client.login("nobody", "")
        assert isinstance(err, raw.Err)
        assert err.message == "Access denied for user 'nobody'@'127.0.0.1' (using password: NO)"


# -- 3. malformed handshake responses never freeze the server
# -----------------------------------------
def _malformed_responses() -> dict[str, bytes]:
    header = struct.pack("<IIB", raw.BASE_CAPS, 1 << 24, 45) + b"\x00" * 23
    attrs = raw.lenenc_int(200) + raw.lenenc_str(b"_client_name") + raw.lenenc_str(b"x")
    return {
        "username without NUL": header + b"root" * 8,
        "truncated connect attributes": raw.handshake_response("root", b"", attrs=attrs),
        "attribute value longer than the block": raw.handshake_response(
            "root", b"", attrs=raw.lenenc_str(raw.lenenc_str(b"k") + b"\xfc\xff\xff")
        ),
        "auth response longer than the packet": header + b"root\x00" + b"\xfc\xff\x00abc",
        "plugin name without NUL": raw.handshake_response("root", b"")[:-1],
    }


@pytest.mark.parametrize("name", list(_malformed_responses()))
def test_malformed_handshake_response_never_freezes_the_server(
    server: ServerProcess, name: str
) -> None:
    """Upstream's compiled read_str_null spins forever on a string without a NUL terminator: one
    37-byte packet freezes the event loop at 100% CPU and no other client can connect."""
    with raw.RawClient(HOST, server.port) as bad:
        bad.write_packet(_malformed_responses()[name])
        assert assert_select_one_works(server) < DEADLINE
        assert bad.closed_within(DEADLINE), "the malformed client was not disconnected"
        assert bad.received[4:5] == b"\xff", f"expected an ERR packet, got {bad.received!r}"
        assert raw.parse_err(bad.received[4:]).code == 1043
    assert_select_one_works(server)


def test_oversized_handshake_packet_is_refused_without_reading_it(server: ServerProcess) -> None:
    """Upstream reads any announced length (and concatenates 16 MiB continuation packets without
    limit) before login; here a pre-auth packet over 128 KiB is refused at once."""
    with raw.RawClient(HOST, server.port) as bad:
        bad.sock.sendall(b"\xff\xff\xff\x01")  # announces 16 MiB, sends none of it
        assert bad.closed_within(DEADLINE)
        assert raw.parse_err(bad.received[4:]).code == 1043
    assert_select_one_works(server)


def test_packet_header_split_across_segments_is_read(shared_server: ServerProcess) -> None:
    """Upstream reads the 4-byte header with reader.read(4), which can return 2 bytes: a header
    split across two TCP segments ended the connection with struct.error."""
    with raw.connect(HOST, shared_server.port) as client:
        packet = raw.frame(bytes([raw.COM_QUERY]) + b"SELECT 7")
        client.sock.sendall(packet[:2])
        time.sleep(0.3)
        client.sock.sendall(packet[2:])
        client.seq = 1
        count = client.read_packet()
        assert count == b"\x01"
        assert raw.column_name(client.read_packet()) == "7"


def test_packets_out_of_order_get_an_error_then_close(shared_server: ServerProcess) -> None:
    with raw.connect(HOST, shared_server.port) as client:
        client.send_quietly(raw.frame(bytes([raw.COM_QUERY]) + b"SELECT 1", seq=5))
        assert client.closed_within(DEADLINE)
        assert raw.parse_err(client.received[4:]).code == 1156


# -- 6 (handshake part). the handshake advertises autocommit ---------------------------------------
def test_handshake_advertises_autocommit(shared_server: ServerProcess) -> None:
    """Upstream's handshake carries ServerStatus(0): clients believe autocommit is off (issue
    #79)."""
    with raw.RawClient(HOST, shared_server.port) as client:
        assert client.handshake.protocol == 10
        assert client.handshake.status & raw.SERVER_STATUS_AUTOCOMMIT
        assert client.handshake.plugin == "mysql_native_password"
    conn = pymysql.connect(
        host=HOST,
        port=shared_server.port,
        user="root",
        password="",
        autocommit=None,
        connect_timeout=DEADLINE,
        read_timeout=DEADLINE,
    )
    try:
        assert conn.get_autocommit() is True  # read from the handshake's status flags
    finally:
        conn.close()


# -- 9. TLS is off, clearly ----------------------------------------------------------------------
def test_tls_is_off_and_said_so(shared_server: ServerProcess) -> None:
    """Upstream advertises CLIENT_SSL and races the ClientHello against start_tls: PyMySQL's default
    (PREFERRED) TLS hung for 60 s in 3 of 6 tries."""
    with raw.RawClient(HOST, shared_server.port) as client:
        assert not client.handshake.capabilities & raw.CLIENT_SSL
    assert "TLS is off" in shared_server.log_text()
    for _ in range(6):
        assert assert_select_one_works(shared_server) < DEADLINE


def test_ssl_request_is_refused_clearly(shared_server: ServerProcess) -> None:
    with raw.RawClient(HOST, shared_server.port) as client:
        caps = raw.BASE_CAPS | raw.CLIENT_SSL
        client.write_packet(struct.pack("<IIB", caps, 1 << 24, 45) + b"\x00" * 23)
        assert client.closed_within(DEADLINE)
        err = raw.parse_err(client.received[4:])
        assert err.code == 1043 and "TLS" in err.message


# -- 11. a silent pre-auth connection is dropped after the handshake timeout
# ----------------------------
def test_silent_client_is_dropped_after_the_handshake_timeout(tmp_path: Path) -> None:
    """Upstream has no handshake timeout: a socket that never answers the greeting holds a
    connection slot forever."""
    proc = make_server(tmp_path, DRYDOCK_HANDSHAKE_TIMEOUT_SECONDS="1").start()
    try:
        with raw.RawClient(HOST, proc.port) as silent:
            start = time.monotonic()
            assert assert_select_one_works(proc) < DEADLINE  # it blocks no one meanwhile
            assert silent.closed_within(DEADLINE)
            assert 0.8 <= time.monotonic() - start < DEADLINE
        with raw.RawClient(HOST, proc.port) as slow:  # a response that never completes: same
            slow.sock.sendall(raw.frame(b"\x00" * 10)[:8])
            assert slow.closed_within(DEADLINE)
        assert_select_one_works(proc)
    finally:
        proc.stop()
