"""mysql-mimic 3.0.5's statement-level defects (docs/upstream-facts.md), proven
closed over real sockets: prepared statements, result-set terminators, SET, FROM DUAL, KILL and
multi-statement queries. Each test would fail on the unpatched library.
"""

from __future__ import annotations

import itertools
import threading
import time
from types import SimpleNamespace
from typing import Any

import mysql.connector
import pymysql
import pytest

from drydock.engine import ast
from drydock.engine.errors import DrydockError
from drydock.engine.session import SessionContext
from drydock.engine.statements.session_control import kill
from tests.support import mysql_raw as raw
from tests.conftest import ServerProcess
from tests.support.waiting import wait_until

HOST = "127.0.0.1"
DEADLINE = 5.0
DEPRECATE_EOF = raw.BASE_CAPS | raw.CLIENT_DEPRECATE_EOF
# Runs for minutes on DuckDB unless interrupted (about 2.7 s per 10^9 rows on two cores).
SLOW_QUERY = "SELECT sum(hash(i)) FROM range(100000000000) t(i)"
_names = itertools.count()


def fresh_table(server: ServerProcess, rows: int = 0) -> str:
    """A new database with table t(a INT, b VARCHAR(50)) holding rows (i, 'v<i>'), i = 1..rows."""
    db = f"d{next(_names)}_{time.monotonic_ns() % 10**6}"
    with server.connect() as conn, conn.cursor() as cur:
        cur.execute(f"CREATE DATABASE {db}")
        cur.execute(f"CREATE TABLE {db}.t (a INT, b VARCHAR(50))")
        if rows:
            cur.execute(
                f"INSERT INTO {db}.t VALUES "
                + ", ".join(f"({i}, 'v{i}')" for i in range(1, rows + 1))
            )
    return f"{db}.t"


def connector(server: ServerProcess) -> Any:
    return mysql.connector.connect(
        host=HOST,
        port=server.port,
        user="root",
        password="",
        use_pure=True,
        autocommit=True,
        connection_timeout=DEADLINE,
    )


# -- 4. prepared-statement parameters are bound safely -------------------------------------------
TRICKY = [
    "plain",
    "x' OR '1'='1",
    "a\\1b",
    "back\\'slash",
    "q\"uo'te",
    "it's",
    "?",
    "-- not a comment",
    "\\",
    "'",
    "日本語",
]


def test_prepared_parameters_are_bound_as_values(shared_server: ServerProcess) -> None:
    """Upstream pastes f"'{value}'" into the SQL with re.sub: `x' OR '1'='1` returned every row
    and `a\\1b` failed with 'invalid group reference 1'."""
    table = fresh_table(shared_server)
    conn = connector(shared_server)
    try:
        prepared = conn.cursor(prepared=True)
        for i, value in enumerate(TRICKY, start=1):
            prepared.execute(f"INSERT INTO {table} VALUES (?, ?)", (i, value))
            assert prepared.rowcount == 1
        prepared.execute(f"INSERT INTO {table} VALUES (?, ?)", (100, None))
        prepared.execute(f"INSERT INTO {table} VALUES (?, ?)", (101, b"raw bytes"))
        for i, value in enumerate(TRICKY, start=1):
            prepared.execute(f"SELECT a, b FROM {table} WHERE b = ?", (value,))
            assert prepared.fetchall() == [(i, value)], value
        prepared.execute(f"SELECT a FROM {table} WHERE b = ?", (b"raw bytes",))
        assert prepared.fetchall() == [(101,)]
        prepared.execute(f"SELECT a FROM {table} WHERE b = ?", (None,))  # = NULL matches nothing
        assert prepared.fetchall() == []
        prepared.execute(f"SELECT a FROM {table} WHERE b IS NULL AND a = ?", (100,))
        assert prepared.fetchall() == [(100,)]
        prepared.execute(f"SELECT '?' AS q, a FROM {table} WHERE a = ?", (1,))  # '?' in a literal
        assert prepared.fetchall() == [("?", 1)]
        prepared.execute(f"SELECT count(*) FROM {table} WHERE b = ? OR a = ?", ("x' OR '1'='1", 3))
        assert prepared.fetchall() == [(2,)]
    finally:
        conn.close()
    assert shared_server.query(f"SELECT count(*) FROM {table}") == [(len(TRICKY) + 2,)]


def _prepare_then_ping(caps: int, server: ServerProcess) -> tuple[list[bytes], bytes]:
    """COM_STMT_PREPARE of a 2-parameter statement, read exactly what the protocol says should
    come, then COM_PING: returns the packets read and the first packet after the PING."""
    with raw.connect(HOST, server.port, caps=caps) as client:
        client.command(raw.COM_STMT_PREPARE, b"SELECT ? AS x, ? AS y")
        ok = client.read_packet()
        assert ok[:1] == b"\x00"
        num_columns, num_params = (
            int.from_bytes(ok[5:7], "little"),
            int.from_bytes(ok[7:9], "little"),
        )
        assert num_params == 2
        packets = [client.read_packet() for _ in range(num_params)]
        assert all(p.startswith(b"\x03def") for p in packets), "expected parameter definitions"
        eof_expected = not caps & raw.CLIENT_DEPRECATE_EOF
        if eof_expected:
            packets.append(client.read_packet())
        packets += [client.read_packet() for _ in range(num_columns)]
        if num_columns and eof_expected:
            packets.append(client.read_packet())
        client.command(raw.COM_PING)
        return packets, client.read_packet()


def test_prepare_response_honours_deprecate_eof(shared_server: ServerProcess) -> None:
    """Upstream always sends an EOF after the parameter definitions; under CLIENT_DEPRECATE_EOF the
    client reads it as the next command's answer (libmysqlclient: 2013; Connector/J: desync)."""
    packets, after_ping = _prepare_then_ping(DEPRECATE_EOF, shared_server)
    assert not any(raw.is_eof(p) for p in packets)
    assert after_ping[:1] == b"\x00", (
        f"PING answered by {after_ping!r}: a stray EOF was in the stream"
    )
    packets, after_ping = _prepare_then_ping(raw.BASE_CAPS, shared_server)
    assert raw.is_eof(packets[2])  # without DEPRECATE_EOF the EOF is required
    assert after_ping[:1] == b"\x00"


# -- 5. affected rows: 0 at the end of a result set, the real count in an OK
# ----------------------------
def test_end_of_result_set_carries_zero_affected_rows(shared_server: ServerProcess) -> None:
    """Upstream puts the row count into the OK that ends a result set; MariaDB Connector/J 2.x
    reads it as a string length and crashes (ArrayIndexOutOfBoundsException, upstream issue #35)."""
    table = fresh_table(shared_server, rows=5)
    with raw.connect(HOST, shared_server.port, caps=DEPRECATE_EOF) as client:
        result = client.query(f"SELECT a, b FROM {table} ORDER BY a")
        assert isinstance(result, raw.ResultSet) and len(result.rows) == 5
        assert isinstance(result.end, raw.Ok) and result.end.header == 0xFE
        assert result.end.affected_rows == 0
        inserted = client.query(f"INSERT INTO {table} VALUES (6, 'x'), (7, 'y'), (8, 'z')")
        assert isinstance(inserted, raw.Ok) and inserted.affected_rows == 3
    with raw.connect(HOST, shared_server.port) as client:  # classic EOF without DEPRECATE_EOF
        result = client.query(f"SELECT a FROM {table}")
        assert isinstance(result, raw.ResultSet) and isinstance(result.end, raw.Eof)
    with shared_server.connect() as conn, conn.cursor() as cur:
        assert cur.execute(f"INSERT INTO {table} VALUES (9, 'p'), (10, 'q'), (11, 'r')") == 3
        assert cur.execute(f"UPDATE {table} SET b = 'u' WHERE a > 8") == 3
        assert cur.execute(f"SELECT * FROM {table}") == 11


# -- 6. SET with computed values, as MariaDB Connector/J sends on connect --------------------------
def test_set_with_expressions(shared_server: ServerProcess) -> None:
    """Upstream: 1235 'Complex expressions in variables not supported yet'."""
    with shared_server.connect() as conn, conn.cursor() as cur:
        cur.execute("SET sql_mode = 'ANSI_QUOTES'")
        cur.execute("set autocommit=1, sql_mode = concat(@@sql_mode,',STRICT_TRANS_TABLES')")
        cur.execute("SELECT @@sql_mode, @@autocommit")
        assert cur.fetchall() == (("ANSI_QUOTES,STRICT_TRANS_TABLES", 1),)


# -- 7. FROM DUAL ----------------------------------------------------------------------------------
def test_from_dual(shared_server: ServerProcess) -> None:
    """Upstream sent these to the backend: 'Table with name DUAL does not exist!' (JDBC
    getSchemas)."""
    with shared_server.connect() as conn, conn.cursor() as cur:
        cur.execute("SELECT 1 FROM DUAL")
        assert cur.fetchall() == ((1,),)
        cur.execute("SELECT '' TABLE_SCHEM FROM DUAL WHERE 1=0")
        assert cur.fetchall() == ()
        assert [d[0] for d in cur.description] == ["TABLE_SCHEM"]


# -- 8. KILL
# ----------------------------------------------------------------------------------------
def _run_in_thread(
    conn: pymysql.connections.Connection, sql: str
) -> tuple[threading.Thread, dict[str, Any]]:
    outcome: dict[str, Any] = {}

    def run() -> None:
        start = time.monotonic()
        try:
            with conn.cursor() as cur:
                cur.execute(sql)
                outcome["rows"] = cur.fetchall()
        except pymysql.err.MySQLError as exc:
            outcome["error"] = exc
        outcome["seconds"] = time.monotonic() - start

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, outcome


def _running_query(killer: pymysql.connections.Connection, victim_id: int) -> bool:
    with killer.cursor() as cur:
        cur.execute("SHOW FULL PROCESSLIST")
        return any(row[0] == victim_id and row[4] == "Query" for row in cur.fetchall())


def _kill_until_done(
    killer: pymysql.connections.Connection, victim_id: int, statement: str, thread: threading.Thread
) -> None:
    """Once the server runs the victim's statement (SHOW PROCESSLIST says so), send `statement`
    until the victim's thread ends (a KILL racing the statement's start would be a no-op), for at
    most 20 s."""
    wait_until(
        lambda: _running_query(killer, victim_id) or not thread.is_alive(),
        20,
        "the victim's statement is running",
    )
    deadline = time.monotonic() + 20
    with killer.cursor() as cur:
        while thread.is_alive() and time.monotonic() < deadline:
            cur.execute(statement)
            thread.join(0.5)
    assert not thread.is_alive(), "the statement was not interrupted"


def test_kill_query_interrupts_a_running_statement(shared_server: ServerProcess) -> None:
    with shared_server.connect() as victim, shared_server.connect() as killer:
        thread, outcome = _run_in_thread(victim, SLOW_QUERY)
        _kill_until_done(killer, victim.thread_id(), f"KILL QUERY {victim.thread_id()}", thread)
        assert outcome["error"].args[0] == 1317, outcome
        assert outcome["seconds"] < 25
        with victim.cursor() as cur:  # the connection stays usable
            cur.execute("SELECT 2")
            assert cur.fetchall() == ((2,),)


def test_kill_query_on_an_idle_connection_keeps_it(shared_server: ServerProcess) -> None:
    """Upstream cancels the connection's task: KILL QUERY on an idle connection dropped it (2013),
    and so did KILL QUERY of one's own connection."""
    with shared_server.connect() as victim, shared_server.connect() as killer:
        with killer.cursor() as cur:
            cur.execute(f"KILL QUERY {victim.thread_id()}")
        with victim.cursor() as cur:
            cur.execute("SELECT 1")
            assert cur.fetchall() == ((1,),)
            cur.execute(f"KILL QUERY {victim.thread_id()}")
            cur.execute("SELECT 3")
            assert cur.fetchall() == ((3,),)


def test_kill_connection_of_a_running_statement(shared_server: ServerProcess) -> None:
    """The statement is interrupted before the session's DuckDB cursor is closed (closing it under a
    running statement failed with 'connection is busy' and leaked the cursor)."""
    log_before = shared_server.log_text().count("Traceback")
    with shared_server.connect() as victim, shared_server.connect() as killer:
        thread, outcome = _run_in_thread(victim, SLOW_QUERY)
        _kill_until_done(killer, victim.thread_id(), f"KILL {victim.thread_id()}", thread)
        assert outcome["error"].args[0] in (1317, 2013), outcome
        with pytest.raises(pymysql.err.OperationalError), victim.cursor() as cur:
            cur.execute("SELECT 1")
    assert shared_server.query("SELECT 1") == [(1,)]
    assert shared_server.log_text().count("Traceback") == log_before


def test_kill_own_connection_and_unknown_id(shared_server: ServerProcess) -> None:
    with shared_server.connect() as conn:
        with conn.cursor() as cur, pytest.raises(pymysql.err.OperationalError) as unknown:
            cur.execute("KILL 999999")
        assert unknown.value.args == (1094, "Unknown thread id: 999999")
        with pytest.raises(pymysql.err.OperationalError):
            with conn.cursor() as cur:
                cur.execute(f"KILL {conn.thread_id()}")
                cur.execute("SELECT 1")
    assert shared_server.query("SELECT 1") == [(1,)]


def test_kill_of_another_users_connection_is_refused_over_the_wire(
    shared_server: ServerProcess,
) -> None:
    with shared_server.connect() as root, root.cursor() as cur:
        cur.execute("CREATE USER IF NOT EXISTS 'killer_bob'@'%' IDENTIFIED BY 'pw'")
        with shared_server.connect(user="killer_bob", password="pw") as bob, bob.cursor() as bcur:
            for statement in (f"KILL {root.thread_id()}", f"KILL QUERY {root.thread_id()}"):
                with pytest.raises(pymysql.err.OperationalError) as refused:
                    bcur.execute(statement)
                assert refused.value.args[0] == 1095
        cur.execute("SELECT 1")
        assert cur.fetchall() == ((1,),)


class FakeRegistry:
    def __init__(self, owners: dict[int, str]):
        self.owners = owners
        self.killed: list[tuple[int, bool]] = []

    def owner_of(self, connection_id: int) -> str | None:
        return self.owners.get(connection_id)

    def kill(self, connection_id: int, query_only: bool) -> None:
        self.killed.append((connection_id, query_only))


@pytest.mark.parametrize("query_only", [False, True])
def test_kill_checks_ownership_unit(query_only: bool) -> None:
    """Upstream KILL has no privilege check at all: anyone could kill anyone."""
    registry = FakeRegistry({1: "root", 2: "bob"})
    engine = SimpleNamespace(
        connections=registry,
        privileges=SimpleNamespace(has_global=lambda ctx, priv: ctx.user == "root"),
    )
    bob = SessionContext(user="bob", host="127.0.0.1", connection_id=2)
    with pytest.raises(DrydockError) as refused:
        kill(engine, ast.Kill(connection_id=1, query_only=query_only), bob)  # type: ignore[arg-type]
    assert (refused.value.code, refused.value.message) == (1095, "You are not owner of thread 1")
    with pytest.raises(DrydockError) as unknown:
        kill(engine, ast.Kill(connection_id=7, query_only=query_only), bob)  # type: ignore[arg-type]
    assert unknown.value.code == 1094
    assert registry.killed == []
    kill(engine, ast.Kill(connection_id=2, query_only=query_only), bob)  # type: ignore[arg-type]
    root = SessionContext(user="root", host="127.0.0.1", connection_id=1)
    kill(engine, ast.Kill(connection_id=2, query_only=query_only), root)  # type: ignore[arg-type]
    assert registry.killed == [(2, query_only), (2, query_only)]


# -- 10. several statements in one COM_QUERY
# --------------------------------------------------------
def test_multiple_statements_are_rejected_and_change_nothing(shared_server: ServerProcess) -> None:
    """Upstream runs every statement and returns only the last result."""
    table = fresh_table(shared_server)
    with shared_server.connect() as conn, conn.cursor() as cur:
        for sql in (
            f"INSERT INTO {table} VALUES (1, 'a'); INSERT INTO {table} VALUES (2, 'b')",
            "SELECT 1; SELECT 2",
            f"SELECT 1; DROP TABLE {table}",
        ):
            with pytest.raises(pymysql.err.ProgrammingError) as rejected:
                cur.execute(sql)
            code, message = rejected.value.args
            assert code == 1064 and "multiple statements" in message
        cur.execute(f"SELECT count(*) FROM {table}")
        assert cur.fetchall() == ((0,),)
