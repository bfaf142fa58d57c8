"""Result sets are streamed: rows reach the client as DuckDB produces them, batch by batch, and a
client that stops reading holds the server to a bounded buffer (the asyncio writer's drain()).
Broke before: the whole result was fetched (fetchall), converted to Python rows and encoded
before the first packet left, so a 3M-row SELECT grew the server by ~2 GB and its first row
came after seconds — and a client that never read its result still cost the whole result.

Every test talks to a real server over the wire with pymysql's unbuffered cursor (SSCursor),
so the client holds one row at a time and the server's side is what is measured.
"""

from __future__ import annotations

import struct
import threading
import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any, Self

import duckdb
import mysql.connector
import pymysql
import pymysql.cursors
import pytest
from pymysql.constants import CLIENT

from tests.support import mysql_raw as raw
from tests.conftest import ServerProcess

# big.id runs 0 … BIG_ROWS-1; every query reads a prefix of it
BIG_ROWS = 3_000_000
FIRST_ROW_SECONDS = 3.0  # generous: measured ~0.01 s streamed, ~6 s fully materialised first
ROW_SQL = "SELECT id, name, x FROM big WHERE id < {n}"


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(data_dir=tmp_path_factory.mktemp("streaming") / "data").start()
    with proc.connect() as conn, conn.cursor() as cur:
        cur.execute("CREATE DATABASE s")
        cur.execute("USE s")
        cur.execute("CREATE TABLE d (i INT)")
        cur.execute("INSERT INTO d VALUES " + ", ".join(f"({i})" for i in range(10)))
        cur.execute("CREATE TABLE n (i INT)")
        cur.execute(
            "INSERT INTO n VALUES " + ", ".join(f"({i})" for i in range(BIG_ROWS // 100_000))
        )
        cur.execute(
            "CREATE TABLE big AS SELECT a.i + 10 * b.i + 100 * c.i + 1000 * e.i + 10000 * f.i + "
            "100000 * g.i AS id, "
            "CONCAT('name_', CAST(a.i + 10 * b.i + 100 * c.i + 1000 * e.i + 10000 * f.i + 100000 * "
            "g.i AS CHAR)) "
            "AS name, (a.i + 10 * b.i + 100 * c.i + 1000 * e.i + 10000 * f.i + 100000 * g.i) * 0.5 "
            "AS x "
            "FROM d a, d b, d c, d e, d f, n g"
        )
        cur.execute("CREATE TABLE greek (t VARCHAR(8))")
        cur.execute("INSERT INTO greek VALUES ('Ω')")  # not in latin1
    yield proc
    proc.stop()


def _connect(srv: ServerProcess, **kwargs: Any) -> pymysql.connections.Connection:
    return srv.connect(database="s", cursorclass=pymysql.cursors.SSCursor, **kwargs)


def _rss_mb(srv: ServerProcess) -> float:
    assert srv.proc is not None
    with open(f"/proc/{srv.proc.pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


class _PeakRss:
    """The server's peak VmRSS while the block runs, sampled every 20 ms."""

    def __init__(self, srv: ServerProcess):
        self.srv, self.peak, self._stop = srv, 0.0, threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, _rss_mb(self.srv))
            time.sleep(0.02)

    def __enter__(self) -> Self:
        self.before = _rss_mb(self.srv)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def growth(self) -> float:
        return self.peak - self.before


def _abandon(conn: pymysql.connections.Connection, cur: Any) -> None:
    """Close a connection in the middle of an unbuffered result (pymysql's finalizers would
    otherwise try to read the rest from the closed socket)."""
    result = cur._result
    if result is not None:
        result.unbuffered_active = False
    cur._result = None
    conn.close()


def _read_all(srv: ServerProcess, sql: str) -> tuple[int, float]:
    """(rows, seconds to the first row) of ``sql`` read one row at a time."""
    with _connect(srv) as conn, conn.cursor() as cur:
        start = time.monotonic()
        cur.execute(sql)
        first = cur.fetchone()
        first_seconds = time.monotonic() - start
        count = 0 if first is None else 1
        for _ in cur:
            count += 1
        return count, first_seconds


def test_first_row_arrives_before_the_result_is_complete(srv: ServerProcess) -> None:
    _read_all(srv, ROW_SQL.format(n=1000))  # warm: the table's pages are read once
    with _connect(srv) as conn, conn.cursor() as cur:
        start = time.monotonic()
        cur.execute(ROW_SQL.format(n=1_500_000))
        first = cur.fetchone()
        first_seconds = time.monotonic() - start
        count = 1 + sum(1 for _ in cur)
        total_seconds = time.monotonic() - start
    print(f"1.5M rows: first row after {first_seconds:.3f} s, all rows after {total_seconds:.1f} s")
    assert first is not None and count == 1_500_000
    assert first_seconds < FIRST_ROW_SECONDS


def test_server_memory_does_not_grow_with_the_result(srv: ServerProcess) -> None:
    _read_all(srv, ROW_SQL.format(n=300_000))  # warm: DuckDB's buffers and the first pages
    growth: dict[int, float] = {}
    for n in (300_000, BIG_ROWS):
        with _PeakRss(srv) as rss:
            count, _ = _read_all(srv, ROW_SQL.format(n=n))
        assert count == n
        growth[n] = rss.growth
    print(
        f"server RSS growth: 300k rows {growth[300_000]:.0f} MB, 3M rows {growth[BIG_ROWS]:.0f} MB"
    )
    # materialised, 10x the rows cost ~10x the memory (~190 MB vs ~1.9 GB); streamed, the same
    assert growth[BIG_ROWS] < 2 * growth[300_000] + 60


def test_a_client_that_stops_reading_holds_a_bounded_buffer(srv: ServerProcess) -> None:
    _read_all(srv, ROW_SQL.format(n=10_000))
    stalled = _connect(srv)
    try:
        with _PeakRss(srv) as rss:
            cur = stalled.cursor()
            cur.execute(ROW_SQL.format(n=BIG_ROWS))
            assert cur.fetchone() is not None  # then stop reading: the socket buffers fill up
            time.sleep(3)
            latencies = []
            for _ in range(3):  # other sessions are answered meanwhile
                start = time.monotonic()
                assert srv.query("SELECT 1") == [(1,)]
                latencies.append(time.monotonic() - start)
        print(
            f"stalled reader: server RSS +{rss.growth:.0f} MB; SELECT 1 elsewhere "
            f"{[round(s, 3) for s in latencies]} s"
        )
        assert rss.growth < 150  # the whole result materialised is ~2 GB
        assert max(latencies) < 1.0
    finally:
        _abandon(stalled, cur)
    assert srv.query("SELECT 1") == [(1,)] and srv.alive()


def test_an_error_mid_stream_ends_the_rows_with_an_error_packet(srv: ServerProcess) -> None:
    """A DuckDB error on row 1,000,000 (a failed conversion): rows before it reach the client,
    then an ERR packet, as MySQL sends; the connection stays usable."""
    sql = (
        "SELECT id, CAST(CASE WHEN id = 1000000 THEN 'oops' ELSE CAST(id AS CHAR) END AS SIGNED) "
        "AS v "
        "FROM big"
    )
    with _connect(srv) as conn:
        cur = conn.cursor()
        received = 0
        with pytest.raises(pymysql.err.MySQLError) as caught:
            cur.execute(sql)
            for _ in cur:
                received += 1
        print(f"mid-stream error after {received} rows: {caught.value.args}")
        assert received > 0  # the error came after rows had been sent
        assert "oops" in str(caught.value.args[1])
        with conn.cursor() as again:
            again.execute("SELECT count(*) FROM big WHERE id < 5000")
            assert list(again.fetchall()) == [(5000,)]


def test_streamed_rows_are_exactly_the_engines_rows(srv: ServerProcess, tmp_path: Path) -> None:
    """Every value of a multi-batch result, with several types and NULLs, equals what DuckDB
    computes in-process for the same rows."""
    n = 50_000
    sql = (
        "SELECT id, name, x, CASE WHEN id % 7 = 0 THEN NULL ELSE id * 3 END AS maybe, "
        "CAST(id AS DECIMAL(12, 2)) / 4 AS dec, DATE '2024-01-01' + CAST(id % 365 AS INTEGER) AS "
        "day "
        f"FROM big WHERE id < {n} ORDER BY id"
    )
    with _connect(srv) as conn, conn.cursor() as cur:
        cur.execute(sql)
        got = list(cur)
    local = duckdb.connect()
    want = local.execute(
        "SELECT i AS id, 'name_' || i AS name, i * 0.5 AS x, CASE WHEN i % 7 = 0 THEN NULL ELSE i "
        "* 3 END, "
        "CAST(i AS DECIMAL(12, 2)) / 4, DATE '2024-01-01' + CAST(i % 365 AS INTEGER) "
        f"FROM range({n}) r(i) ORDER BY i"
    ).fetchall()
    assert len(got) == n
    for g, w in zip(got, want):
        assert (g[0], g[1], float(g[2]), g[3], Decimal(str(g[4])), g[5]) == (
            w[0],
            w[1],
            float(w[2]),
            w[3],
            Decimal(str(w[4])),
            w[5],
        ), (g, w)


def test_found_rows_counts_every_streamed_row(srv: ServerProcess) -> None:
    with _connect(srv) as conn, conn.cursor() as cur:
        cur.execute(ROW_SQL.format(n=123_457))
        assert sum(1 for _ in cur) == 123_457
        cur.execute("SELECT FOUND_ROWS()")
        assert list(cur.fetchall()) == [(123_457,)]


def test_latin1_client_gets_every_batch_converted(srv: ServerProcess) -> None:
    sql = (
        "SELECT id, CONCAT('café ', greek.t, ' ', CAST(id AS CHAR)) AS t FROM big, greek "
        "WHERE id < 20000 ORDER BY id"
    )
    with _connect(srv, charset="latin1") as conn, conn.cursor() as cur:
        cur.execute(sql)
        rows = list(cur)
    assert len(rows) == 20000
    assert rows[0][1] == "café ? 0" and rows[-1][1] == "café ? 19999"


def test_multi_statement_with_a_streamed_result_first(srv: ServerProcess) -> None:
    with _connect(srv, client_flag=CLIENT.MULTI_STATEMENTS) as conn, conn.cursor() as cur:
        cur.execute(ROW_SQL.format(n=100_000) + "; SELECT 42")
        assert sum(1 for _ in cur) == 100_000
        assert cur.nextset()
        assert list(cur) == [(42,)]
        assert not cur.nextset()


def test_binary_protocol_streams_too(srv: ServerProcess) -> None:
    """COM_STMT_EXECUTE results (mysql-connector's prepared cursor) take the same path."""
    conn = mysql.connector.connect(
        host=srv.host,
        port=srv.port,
        user="root",
        password="",
        database="s",
        use_pure=True,
        connection_timeout=30,
    )
    try:
        cur = conn.cursor(prepared=True)
        cur.execute("SELECT id, name FROM big WHERE id < ? ORDER BY id", (30_000,))
        rows = cur.fetchall()
        assert len(rows) == 30_000
        assert rows[0] == (0, "name_0") and rows[-1] == (29_999, "name_29999")
        cur.close()
    finally:
        conn.close()


def test_kill_query_mid_stream_ends_the_result_with_1317(srv: ServerProcess) -> None:
    """KILL QUERY while the server waits for a client that stopped reading: once the client
    reads again, the rows already on their way arrive, then 1317; the connection stays usable."""
    with _connect(srv) as conn:
        cur = conn.cursor()
        cur.execute(ROW_SQL.format(n=BIG_ROWS))
        assert cur.fetchone() is not None
        time.sleep(0.5)  # the socket buffers fill up; the server waits in drain()
        srv.query(f"KILL QUERY {conn.thread_id()}")
        received = 1
        with pytest.raises(pymysql.err.MySQLError) as caught:
            for _ in cur:
                received += 1
        print(f"KILL QUERY mid-stream: {received} rows, then {caught.value.args}")
        assert caught.value.args[0] == 1317
        assert received < BIG_ROWS
        with conn.cursor() as again:
            again.execute("SELECT 1")
            assert list(again.fetchall()) == [(1,)]


def _execute_cursor(client: raw.RawClient, sql: str) -> int:
    """COM_STMT_PREPARE + COM_STMT_EXECUTE with a read-only cursor; the statement id."""
    client.command(raw.COM_STMT_PREPARE, sql.encode())
    ok = client.read_packet()
    stmt_id, columns, params = struct.unpack_from("<IHH", ok, 1)
    for _ in range(columns + params + (columns > 0) + (params > 0)):
        client.read_packet()
    _open_cursor(client, stmt_id)
    return int(stmt_id)


def _open_cursor(client: raw.RawClient, stmt_id: int) -> None:
    client.command(0x17, struct.pack("<IBI", stmt_id, 1, 1))  # EXECUTE, CURSOR_TYPE_READ_ONLY
    assert client.read_packet() == b"\x01"
    client.read_packet()  # the column definition
    assert raw.is_eof(client.read_packet())


def _fetch(client: raw.RawClient, stmt_id: int, count: int) -> list[int]:
    client.command(0x1C, struct.pack("<II", stmt_id, count))  # COM_STMT_FETCH
    ids = []
    while not raw.is_eof(packet := client.read_packet()):
        assert packet[:1] == b"\x00", raw.parse_err(packet)
        ids.append(int.from_bytes(packet[2:], "little"))  # header, NULL bitmap, the integer
    return ids


def test_cursor_fetch_reads_as_asked_and_survives_other_statements(srv: ServerProcess) -> None:
    """COM_STMT_FETCH over a streamed result: rows come from DuckDB as they are fetched (a
    cursor over 3M rows costs no more than a small one), and a statement run between two
    fetches neither breaks the cursor nor loses a row."""
    with raw.connect(srv.host, srv.port) as client, _PeakRss(srv) as rss:
        stmt_id = _execute_cursor(client, f"SELECT id FROM s.big WHERE id < {BIG_ROWS}")
        first = _fetch(client, stmt_id, 10)
        start = time.monotonic()
        _open_cursor(client, stmt_id)  # executed again: the open cursor is dropped, not read
        again = _fetch(client, stmt_id, 10)
        reopen_seconds = time.monotonic() - start
        grown = rss.growth
        assert len(first) == len(again) == 10
        client.command(0x19, struct.pack("<I", stmt_id))  # COM_STMT_CLOSE drops the rest
        assert client.query("SELECT 1").rows == [[b"1"]]  # type: ignore[union-attr]

        stmt_id = _execute_cursor(client, "SELECT id FROM s.big WHERE id < 100000 ORDER BY id")
        got = _fetch(client, stmt_id, 30_000)
        assert client.query("SELECT 7").rows == [[b"7"]]  # type: ignore[union-attr]
        for _ in range(3):
            got += _fetch(client, stmt_id, 30_000)
        assert got == list(range(100_000))
    print(
        f"cursor over 3M rows: server RSS +{grown:.0f} MB; executed again in {reopen_seconds:.3f} s"
    )
    assert grown < 150  # the whole result read at EXECUTE was ~1 GB of row packets
    assert reopen_seconds < 2.0  # reading the 3M rows of the first cursor takes several seconds


def test_kill_connection_drops_a_stalled_reader_at_once(srv: ServerProcess) -> None:
    """KILL CONNECTION of a session whose client stopped reading mid-result: the server closes
    it now (the fetch running in a worker thread is interrupted and awaited first), not when the
    client reads again; the server logs no internal error."""
    stalled = _connect(srv)
    cur = stalled.cursor()
    try:
        cur.execute(ROW_SQL.format(n=BIG_ROWS))
        assert cur.fetchone() is not None
        time.sleep(0.5)
        srv.query(f"KILL CONNECTION {stalled.thread_id()}")
        start = time.monotonic()
        while any(row[0] == stalled.thread_id() for row in srv.query("SHOW PROCESSLIST")):
            assert time.monotonic() - start < 5, "the killed session is still listed"
            time.sleep(0.1)
    finally:
        _abandon(stalled, cur)
    assert srv.query("SELECT 1") == [(1,)]
    assert "Traceback" not in srv.log_text() and "statement failed" not in srv.log_text()


def test_max_execution_time_covers_a_streamed_result_to_its_last_batch(srv: ServerProcess) -> None:
    """The time limit of a SELECT stays armed while its batches are fetched after the first (the
    statement is not over when its first batch is sent): a client that reads slowly past the
    limit gets 3024 mid-result; a result read to its end leaves no deadline behind for the next
    statement on the connection."""
    with _connect(srv) as conn:
        cur = conn.cursor()
        cur.execute("SET max_execution_time = 400")
        cur.execute(ROW_SQL.format(n=BIG_ROWS))
        assert cur.fetchone() is not None
        time.sleep(1.0)  # past the limit while the server waits for this reader
        received = 1
        with pytest.raises(pymysql.err.MySQLError) as caught:
            for _ in cur:
                received += 1
        print(f"max_execution_time mid-stream: {received} rows, then {caught.value.args}")
        assert caught.value.args[0] == 3024
        assert received < BIG_ROWS
        cur = conn.cursor()
        cur.execute("SET max_execution_time = 60000")
        cur.execute(ROW_SQL.format(n=10_000))  # five batches, read at once
        assert sum(1 for _ in cur) == 10_000
        cur = conn.cursor()
        cur.execute("SET max_execution_time = 0")
        cur.execute(
            "SELECT count(*) FROM big a, d b WHERE a.id < 200000"
        )  # runs past the old limit's span
        assert list(cur) == [(2_000_000,)]


def test_a_value_over_max_allowed_packet_in_a_later_batch_ends_the_rows_with_1301(
    srv: ServerProcess,
) -> None:
    """Every batch of a streamed result is measured against max_allowed_packet, not only the first:
    rows before the long value arrive, then 1301; the connection stays usable."""
    sql = (
        "SELECT id, CASE WHEN id = 5000 THEN repeat('x', 2000000) ELSE 'short' END AS v "
        "FROM big WHERE id < 10000"
    )
    with _connect(srv) as conn:
        cur = conn.cursor()
        cur.execute("SET max_allowed_packet = 1048576")
        received = 0
        with pytest.raises(pymysql.err.MySQLError) as caught:
            cur.execute(sql)
            for _ in cur:
                received += 1
        print(f"1301 mid-stream after {received} rows: {caught.value.args}")
        assert caught.value.args[0] == 1301
        assert 0 < received <= 5000
        with conn.cursor() as again:
            again.execute("SELECT 1")
            assert list(again.fetchall()) == [(1,)]
