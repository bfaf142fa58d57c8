"""TLS on the MySQL wire (server/tls.py, server/login.py) and clean failures at login.

A self-signed certificate is made per module with ``cryptography``. Every client below logs in over
TLS and the test checks that the session really is encrypted: the client's socket is an SSL
socket where the client exposes it, and the server reports a non-empty ``Ssl_cipher``.
A test whose client binary is missing is skipped and says why.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import shutil
import socket
import ssl
import struct
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import mysql.connector
import pymysql
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.support import mysql_raw as raw
from tests.conftest import ROOT, ServerProcess, make_server
from tests.support.waiting import wait_until

HOST = "127.0.0.1"
DEADLINE = 5.0
CLI_TIMEOUT_SECONDS = 30
Cert = tuple[Path, Path]  # (cert.pem, key.pem)
SSL_REQUEST = struct.pack("<IIB", raw.BASE_CAPS | raw.CLIENT_SSL, 1 << 24, 45) + b"\x00" * 23


# -- fixtures -------------------------------------------------------------------------------------
def write_self_signed(directory: Path) -> tuple[Path, Path]:
    """cert.pem / key.pem for CN=localhost with SANs localhost and 127.0.0.1."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=7))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address(HOST))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "cert.pem", directory / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


@pytest.fixture(scope="module")
def cert(tmp_path_factory: pytest.TempPathFactory) -> Cert:
    return write_self_signed(tmp_path_factory.mktemp("cert"))


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory: pytest.TempPathFactory, cert: Cert) -> Iterator[ServerProcess]:
    """TLS offered, not required; certificate given on the command line."""
    proc = make_server(
        tmp_path_factory.mktemp("tls"),
        "--tls-cert",
        str(cert[0]),
        "--tls-key",
        str(cert[1]),
        DRYDOCK_HANDSHAKE_TIMEOUT_SECONDS="3",
    ).start()
    yield proc
    proc.stop()


@pytest.fixture(scope="module")
def required_server(
    tmp_path_factory: pytest.TempPathFactory, cert: Cert
) -> Iterator[ServerProcess]:
    """TLS required; everything set in the TOML config file."""
    base = tmp_path_factory.mktemp("required")
    config = base / "drydock.toml"
    config.write_text(
        f'[frontend]\ntls_cert = "{cert[0]}"\ntls_key = "{cert[1]}"\n'
        "require_secure_transport = true\n"
    )
    proc = make_server(base, "--config", str(config)).start()
    yield proc
    proc.stop()


def tls_pymysql(server: ServerProcess, ca: Path) -> pymysql.connections.Connection:
    return server.connect(ssl={"ca": str(ca)})


def ssl_cipher(conn: object) -> str:
    with conn.cursor() as cur:  # type: ignore[attr-defined]
        cur.execute("SHOW STATUS LIKE 'Ssl_cipher'")
        rows = cur.fetchall()
    return str(rows[0][1]) if rows else ""


# -- the handshake
# ----------------------------------------------------------------------------------
def test_handshake_offers_tls_when_a_certificate_is_configured(tls_server: ServerProcess) -> None:
    with raw.RawClient(HOST, tls_server.port) as client:
        assert client.handshake.capabilities & raw.CLIENT_SSL
    assert "TLS is on (optional)" in tls_server.log_text()


def test_tls_config_fields_are_listed_and_not_mutable(
    tls_server: ServerProcess, cert: Cert
) -> None:
    rows = {
        r[0]: r
        for r in tls_server.query("ADMIN SHOW FRONTEND CONFIG LIKE '%secure%'")
        + tls_server.query("ADMIN SHOW FRONTEND CONFIG LIKE 'tls%'")
    }
    assert rows["tls_cert"][1:4] == (str(cert[0]), "String", "false")
    assert rows["tls_key"][1:4] == (str(cert[1]), "String", "false")
    assert rows["require_secure_transport"][1:4] == ("false", "boolean", "false")
    with pytest.raises(pymysql.err.OperationalError) as err:
        tls_server.query("ADMIN SET FRONTEND CONFIG ('tls_cert' = '/tmp/other.pem')")
    assert err.value.args[0] == 1105 and "not mutable" in err.value.args[1]


# -- clients over TLS ------------------------------------------------------------------------------
def test_pymysql_verifies_the_certificate_and_is_encrypted(
    tls_server: ServerProcess, cert: Cert
) -> None:
    with tls_pymysql(tls_server, cert[0]) as conn:
        assert isinstance(conn._sock, ssl.SSLSocket)
        assert ssl_cipher(conn) == conn._sock.cipher()[0]
        with conn.cursor() as cur:
            cur.execute("SHOW STATUS LIKE 'Ssl_version'")
            assert cur.fetchall()[0][1] in ("TLSv1.2", "TLSv1.3")


def test_pymysql_without_verification_is_encrypted(tls_server: ServerProcess) -> None:
    with tls_server.connect(ssl={"check_hostname": False}) as conn:
        assert isinstance(conn._sock, ssl.SSLSocket)
        assert ssl_cipher(conn)


def test_pymysql_prefers_tls_by_default(tls_server: ServerProcess) -> None:
    """PyMySQL starts TLS whenever the server offers it (the mode whose race hung upstream)."""
    with tls_server.connect() as conn, conn.cursor() as cur:
        assert isinstance(conn._sock, ssl.SSLSocket)
        cur.execute("SHOW STATUS LIKE 'ssl_%'")
        assert [r[0] for r in cur.fetchall()] == ["Ssl_cipher", "Ssl_version"]


def test_plain_pymysql_still_works_and_shows_no_cipher(tls_server: ServerProcess) -> None:
    with tls_server.connect(ssl_disabled=True) as conn:
        assert not isinstance(conn._sock, ssl.SSLSocket)
        assert ssl_cipher(conn) == ""


def test_twenty_tls_logins_in_a_row_never_hang(tls_server: ServerProcess, cert: Cert) -> None:
    """Upstream's STARTTLS lost the ClientHello when it was already buffered: 3 of 6 logins hung 60
    s."""
    for _ in range(20):
        start = time.monotonic()
        with tls_pymysql(tls_server, cert[0]) as conn:
            assert ssl_cipher(conn)
        assert time.monotonic() - start < DEADLINE


def _pump(sock: socket.socket, incoming: ssl.MemoryBIO, outgoing: ssl.MemoryBIO) -> None:
    if outgoing.pending:
        sock.sendall(outgoing.read())
    data = sock.recv(65536)
    if not data:
        raise raw.Closed("server closed during TLS")
    incoming.write(data)


def _tls_call(
    sslobj: ssl.SSLObject,
    sock: socket.socket,
    incoming: ssl.MemoryBIO,
    outgoing: ssl.MemoryBIO,
    fn: str,
    *args: object,
) -> object:
    while True:
        try:
            result = getattr(sslobj, fn)(*args)
            if outgoing.pending:
                sock.sendall(outgoing.read())
            return result
        except ssl.SSLWantReadError:
            _pump(sock, incoming, outgoing)


def test_ssl_request_and_client_hello_in_one_segment(tls_server: ServerProcess) -> None:
    """The race made deterministic: the ClientHello arrives in the same TCP segment as the
    SSLRequest, so it is in the server's StreamReader before the upgrade starts."""
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    with raw.RawClient(HOST, tls_server.port) as client:
        incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
        sslobj = context.wrap_bio(incoming, outgoing)
        with pytest.raises(ssl.SSLWantReadError):
            sslobj.do_handshake()
        client.sock.sendall(raw.frame(SSL_REQUEST, seq=1) + outgoing.read())
        _tls_call(sslobj, client.sock, incoming, outgoing, "do_handshake")
        login = raw.frame(
            raw.handshake_response("root", b"", caps=raw.BASE_CAPS | raw.CLIENT_SSL), seq=2
        )
        _tls_call(sslobj, client.sock, incoming, outgoing, "write", login)
        reply = _tls_call(sslobj, client.sock, incoming, outgoing, "read", 65536)
        assert isinstance(reply, bytes) and reply[4] == 0x00, reply  # OK packet, over TLS


def test_mysql_connector_pure_python_over_tls(tls_server: ServerProcess) -> None:
    conn = mysql.connector.connect(
        host=HOST,
        port=tls_server.port,
        user="root",
        password="",
        use_pure=True,
        ssl_disabled=False,
        connection_timeout=10,
    )
    try:
        assert isinstance(conn._socket.sock, ssl.SSLSocket)  # type: ignore[union-attr]
        assert ssl_cipher(conn)
    finally:
        conn.close()


C_EXT_SCRIPT = """
import sys
try:
    import _mysql_connector  # before anything loads the system OpenSSL (docs/upstream-facts.md)
except ImportError as exc:
    print("SKIP", exc); sys.exit(0)
import mysql.connector
conn = mysql.connector.connect(host=sys.argv[1], port=int(sys.argv[2]), user="root", password="",
                               use_pure=False, ssl_disabled=False, connection_timeout=10)
cur = conn.cursor()
cur.execute("SHOW STATUS LIKE 'Ssl_cipher'")
print("CIPHER", cur.fetchall()[0][1], type(conn).__name__)
"""


def test_mysql_connector_c_extension_over_tls(tls_server: ServerProcess) -> None:
    result = subprocess.run(
        [sys.executable, "-c", C_EXT_SCRIPT, HOST, str(tls_server.port)],
        capture_output=True,
        text=True,
        timeout=CLI_TIMEOUT_SECONDS,
    )
    if result.stdout.startswith("SKIP"):
        pytest.skip(f"mysql-connector's C extension does not load: {result.stdout[5:].strip()}")
    words = result.stdout.split()
    assert result.returncode == 0 and words[0] == "CIPHER", result.stdout + result.stderr[-2000:]
    assert words[1] and words[2] == "CMySQLConnection", result.stdout


def test_mariadb_cli_over_tls(tls_server: ServerProcess, cert: Cert) -> None:
    cli = shutil.which("mariadb") or shutil.which("mysql")
    if cli is None:
        pytest.skip("the mariadb CLI is missing: apt-get install mariadb-client")
    result = subprocess.run(
        [
            cli,
            "-h",
            HOST,
            "-P",
            str(tls_server.port),
            "-u",
            "root",
            "--batch",
            "--connect-timeout=10",
            "--ssl",
            f"--ssl-ca={cert[0]}",
            "-e",
            "SHOW STATUS LIKE 'Ssl_cipher'; \\s",
        ],
        capture_output=True,
        text=True,
        timeout=CLI_TIMEOUT_SECONDS,
    )
    assert result.returncode == 0, result.stderr
    cipher_row = next(line for line in result.stdout.splitlines() if line.startswith("Ssl_cipher"))
    cipher = cipher_row.split("\t")[1]
    assert cipher and f"Cipher in use is {cipher}" in result.stdout, result.stdout


JDBC_TLS_SOURCE = ROOT / "tests" / "jdbc" / "DrydockJdbcTls.java"
# Connector/J 2.x spells it useSsl/trustServerCertificate; 3.x reads sslMode=trust.
JDBC_TLS_OPTIONS = "useSsl=true&trustServerCertificate=true&sslMode=trust"


def test_jdbc_over_tls(tls_server: ServerProcess, tmp_path: Path) -> None:
    from tests.clients.test_jdbc import (
        COMPILE_TIMEOUT_SECONDS,
        JAR,
        RUN_TIMEOUT_SECONDS,
        _toolchain,
    )

    javac, java = _toolchain()
    built = subprocess.run(
        [javac, "-cp", str(JAR), "-d", str(tmp_path), str(JDBC_TLS_SOURCE)],
        capture_output=True,
        text=True,
        timeout=COMPILE_TIMEOUT_SECONDS,
    )
    assert built.returncode == 0, built.stderr
    result = subprocess.run(
        [
            java,
            "-cp",
            f"{JAR}:{tmp_path}",
            "DrydockJdbcTls",
            HOST,
            str(tls_server.port),
            JDBC_TLS_OPTIONS,
        ],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_SECONDS,
    )
    report = result.stdout + result.stderr[-2000:]
    assert result.returncode == 0 and result.stdout.startswith("OK tls "), report
    assert len(result.stdout.split()) == 3  # OK tls <cipher>


# -- require_secure_transport
# -----------------------------------------------------------------------
def test_plain_login_is_refused_with_3159_when_tls_is_required(
    required_server: ServerProcess,
) -> None:
    with pytest.raises(pymysql.err.OperationalError) as err:
        required_server.connect(ssl_disabled=True)
    assert err.value.args[0] == 3159
    with raw.RawClient(HOST, required_server.port) as client:
        client.write_packet(raw.handshake_response("root", b""))
        reply = client.read_packet()
    error = raw.parse_err(reply)
    assert (error.code, error.sqlstate) == (3159, "HY000")
    assert error.message == (
        "Connections using insecure transport are prohibited while --require_secure_transport=ON."
    )


def test_tls_login_works_when_tls_is_required(required_server: ServerProcess, cert: Cert) -> None:
    with tls_pymysql(required_server, cert[0]) as conn:
        assert ssl_cipher(conn)
    assert "TLS is on (required)" in required_server.log_text()


def _serve_fails(tmp_path: Path, *args: str) -> str:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "drydock.server",
            "serve",
            "--port",
            "0",
            "--data-dir",
            str(tmp_path / "data"),
            *args,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0 and "drydock ready" not in result.stdout
    return result.stderr


def test_require_secure_transport_without_a_certificate_refuses_to_start(tmp_path: Path) -> None:
    stderr = _serve_fails(tmp_path, "--require-secure-transport")
    assert "require_secure_transport = true needs tls_cert" in stderr


def test_an_unreadable_certificate_refuses_to_start(tmp_path: Path) -> None:
    bad = tmp_path / "bad.pem"
    bad.write_text("not a certificate\n")
    config = tmp_path / "drydock.toml"
    config.write_text(f'[frontend]\ntls_cert = "{bad}"\n')
    assert "cannot load the TLS certificate" in _serve_fails(tmp_path, "--config", str(config))


def test_no_certificate_means_tls_off_and_said_once(server: ServerProcess) -> None:
    with raw.RawClient(HOST, server.port) as client:
        assert not client.handshake.capabilities & raw.CLIENT_SSL
    assert server.log_text().count("TLS is off") == 1


# -- clients that leave during login
# ----------------------------------------------------------------
def _reset(sock: socket.socket) -> None:
    """Close with an RST instead of a FIN."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def _greeted(port: int) -> socket.socket:
    sock = socket.create_connection((HOST, port), timeout=DEADLINE)
    header = sock.recv(4)
    sock.recv(int.from_bytes(header[:3], "little"), socket.MSG_WAITALL)
    return sock


def _reset_before_greeting(port: int) -> None:
    _reset(socket.create_connection((HOST, port), timeout=DEADLINE))


def _half_handshake_then_reset(port: int) -> None:
    sock = _greeted(port)
    sock.sendall(raw.frame(raw.handshake_response("root", b""), seq=1)[:20])
    time.sleep(0.2)
    _reset(sock)


def _garbage_instead_of_client_hello(port: int) -> None:
    sock = _greeted(port)
    sock.sendall(raw.frame(SSL_REQUEST, seq=1) + b"\x16\x03\x01\x00\x05garbage-not-a-hello" * 3)
    time.sleep(0.3)
    _reset(sock)


def _half_client_hello_then_reset(port: int) -> None:
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    sslobj = context.wrap_bio(ssl.MemoryBIO(), outgoing := ssl.MemoryBIO())
    with pytest.raises(ssl.SSLWantReadError):
        sslobj.do_handshake()
    sock = _greeted(port)
    sock.sendall(raw.frame(SSL_REQUEST, seq=1) + outgoing.read()[:40])
    time.sleep(0.2)
    _reset(sock)


def _http_request(port: int) -> None:
    sock = _greeted(port)
    sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    time.sleep(0.2)
    _reset(sock)


def _ssl_request_then_silence(port: int) -> None:
    """Dropped by the server after the handshake timeout (3 s for tls_server)."""
    sock = _greeted(port)
    sock.sendall(raw.frame(SSL_REQUEST, seq=1))
    sock.settimeout(DEADLINE)
    assert sock.recv(100) == b""  # the server closed it
    sock.close()


BAD_CLIENTS = [
    _reset_before_greeting,
    _half_handshake_then_reset,
    _garbage_instead_of_client_hello,
    _half_client_hello_then_reset,
    _http_request,
    _ssl_request_then_silence,
]
LOGIN_END_MARKERS = ("ended during login", "refused: bad handshake")


def _login_end_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if any(m in line for m in LOGIN_END_MARKERS)]


@pytest.mark.parametrize(
    "bad_client", BAD_CLIENTS, ids=[f.__name__.strip("_") for f in BAD_CLIENTS]
)
def test_a_client_leaving_during_login_logs_one_line_and_no_traceback(
    tls_server: ServerProcess, cert: Cert, bad_client: object
) -> None:
    before = len(tls_server.log_text())
    bad_client(tls_server.port)  # type: ignore[operator]
    wait_until(
        lambda: _login_end_lines(tls_server.log_text()[before:]),
        DEADLINE,
        "the bad client's login-end line",
    )
    with tls_pymysql(tls_server, cert[0]) as conn:  # the server still serves, over TLS too
        assert ssl_cipher(conn)
    # A marker instead of a pause: a second connection that ends before its greeting logs its own
    # line; the one event loop has logged whatever else the bad client caused before it.
    _reset_before_greeting(tls_server.port)
    wait_until(
        lambda: len(_login_end_lines(tls_server.log_text()[before:])) >= 2,
        DEADLINE,
        "the marker's line",
    )
    new = tls_server.log_text()[before:]
    assert "Traceback" not in new, new
    assert len(_login_end_lines(new)) == 2 and len(new.splitlines()) == 2, new
