"""Bytes as drivers send them: ``_binary'…'`` with raw (non-UTF-8) bytes inside the query text,
and literals in another charset (``_latin1'…'``), read per literal (grammar/query_text.py)."""

from __future__ import annotations

from collections.abc import Iterator

import mysql.connector
import pytest
from mysql_mimic.charset import CharacterSet

from drydock.grammar.lexer import TextMode
from drydock.grammar.query_text import UndecodableText, decode_statement
from tests.conftest import ServerProcess

UTF8 = CharacterSet.utf8mb4


@pytest.mark.parametrize(
    "raw, text",
    [
        (b"SELECT 1", "SELECT 1"),
        (b"INSERT INTO t VALUES (_binary'\x00\xff\\'x')", "INSERT INTO t VALUES (X'00ff2778')"),
        (b"SELECT _binary 'abc', 'caf\xc3\xa9'", "SELECT X'616263', 'caf\u00e9'"),
        (b"SELECT _latin1'caf\xe9'", "SELECT 'caf\u00e9'"),
        (b"SELECT 'a_b''c' -- it's\n, _binary'\xfe'", "SELECT 'a_b''c' -- it's\n, X'fe'"),
        (b"SELECT `_x'`, _binary''", "SELECT `_x'`, X''"),
        (b"SELECT 'caf\xe9', 'ok'", "SELECT X'636166e9', 'ok'"),
    ],
)
def test_introduced_literals_are_read_in_their_own_charset(raw: bytes, text: str) -> None:
    assert decode_statement(UTF8, raw) == text


@pytest.mark.parametrize("raw", [b"SELECT _binary'\xff", b"SELECT \xff", b"SELECT `\xff`"])
def test_invalid_bytes_outside_introduced_literals_are_refused(raw: bytes) -> None:
    with pytest.raises(UndecodableText):
        decode_statement(UTF8, raw)


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(data_dir=tmp_path_factory.mktemp("binary") / "data").start()
    proc.query("CREATE DATABASE bin")
    proc.query("CREATE TABLE bin.blobs (id INT, b BLOB)")
    yield proc
    proc.stop()


PAYLOADS = [b"\x00\xff\xfe'\\\"", bytes(range(256)), b"plain ascii", b""]


def test_pymysql_bytes_parameters_round_trip(srv: ServerProcess) -> None:
    with srv.connect() as conn, conn.cursor() as cur:
        cur.execute("DELETE FROM bin.blobs")
        for i, payload in enumerate(PAYLOADS):
            cur.execute("INSERT INTO bin.blobs VALUES (%s, %s)", (i, payload))
        cur.execute("SELECT id, b FROM bin.blobs ORDER BY id")
        assert [bytes(r[1]) for r in cur.fetchall()] == PAYLOADS


def test_mysql_connector_bytes_parameters_round_trip(srv: ServerProcess) -> None:
    conn = mysql.connector.connect(
        host=srv.host, port=srv.port, user="root", password="", use_pure=True
    )
    try:
        cur = conn.cursor()
        cur.execute("DELETE FROM bin.blobs")
        cur.execute("INSERT INTO bin.blobs VALUES (%s, %s)", (7, b"\x80\x81\xff"))
        cur.execute("SELECT b FROM bin.blobs WHERE id = 7")
        assert bytes(cur.fetchall()[0][0]) == b"\x80\x81\xff"
    finally:
        conn.close()


@pytest.mark.parametrize(
    "raw, mode, text",
    [
        # NO_BACKSLASH_ESCAPES: a backslash is a byte of the literal, which ends at the next quote
        (
            b"SELECT _binary'a\\', 'x\xfe'",
            TextMode(backslash_escapes=False),
            "SELECT X'615c', X'78fe'",
        ),
        (b"SELECT _latin1'\xe9\\', 1", TextMode(backslash_escapes=False), "SELECT '\u00e9\\', 1"),
        (b"SELECT _latin1'it''s'", TextMode(backslash_escapes=False), "SELECT 'it''s'"),
        # ANSI_QUOTES: "..." is a name, never a literal (not respelt as one, whatever its bytes)
        (b"SELECT \"a\\\", _binary'\xff'", TextMode(ansi_quotes=True), "SELECT \"a\\\", X'ff'"),
    ],
)
def test_literals_are_read_as_the_sql_mode_reads_them(
    raw: bytes, mode: TextMode, text: str
) -> None:
    assert decode_statement(UTF8, raw, mode) == text


def test_an_unterminated_literal_is_left_to_the_parser() -> None:
    """The statements before it still run (a multi-statement text), as in MySQL."""
    raw = b"SELECT 1; SELECT _utf8mb4'b"
    assert decode_statement(UTF8, raw) == raw.decode()
