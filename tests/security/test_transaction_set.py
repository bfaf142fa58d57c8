"""A SET inside an explicit transaction must not commit it. Broke before the fix in
engine/sql/transactions.py: every SET (a user variable, SET NAMES, sql_select_limit — which JDBC's
setMaxRows sends mid-transaction) committed the open BEGIN transaction, so a later ROLLBACK undid
nothing and the client's "undone" writes stayed. Also after COM_CHANGE_USER the next user could
COMMIT the previous user's writes. Only SET autocommit from 0 to 1 commits, as in MySQL."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conftest import ServerProcess

SETS = [
    "SET @v = 'x'",
    "SET @@session.sql_select_limit = 5",
    "SET NAMES utf8mb4",
    "SET sql_mode = ''",
    "SET @a = (SELECT count(*) FROM t)",
    "SET autocommit = 1",
    "SET SESSION sql_safe_updates = 0",
]


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(data_dir=tmp_path_factory.mktemp("txset") / "data").start()
    proc.query("CREATE DATABASE d")
    proc.query("CREATE TABLE d.t (id INT, v VARCHAR(10))")
    yield proc
    proc.stop()


@pytest.mark.parametrize("setter", SETS)
def test_rollback_undoes_writes_made_before_a_set(srv: ServerProcess, setter: str) -> None:
    row = SETS.index(setter) + 1
    with srv.connect(database="d") as conn, conn.cursor() as cur:
        cur.execute("BEGIN")
        cur.execute(f"INSERT INTO t VALUES ({row}, 'tx')")
        cur.execute(setter)
        assert srv.query(f"SELECT count(*) FROM d.t WHERE id = {row}") == [
            (0,)
        ]  # still uncommitted
        cur.execute("ROLLBACK")
    assert srv.query(f"SELECT count(*) FROM d.t WHERE id = {row}") == [(0,)]


def test_set_autocommit_from_0_to_1_still_commits(srv: ServerProcess) -> None:
    with srv.connect(database="d") as conn, conn.cursor() as cur:
        cur.execute("SET autocommit = 0")
        cur.execute("INSERT INTO t VALUES (100, 'ac')")
        cur.execute("SET @x = 1")  # not a commit
        assert srv.query("SELECT count(*) FROM d.t WHERE id = 100") == [(0,)]
        cur.execute("SET autocommit = 1")  # MySQL 15.3.1: switching autocommit on commits
    assert srv.query("SELECT count(*) FROM d.t WHERE id = 100") == [(1,)]
    srv.query("DELETE FROM d.t WHERE id = 100")


def test_change_user_cannot_commit_the_previous_users_writes(srv: ServerProcess) -> None:
    connector = pytest.importorskip(
        "mysql.connector", reason="mysql-connector-python is not installed"
    )
    srv.query("CREATE USER IF NOT EXISTS 'reader'@'%' IDENTIFIED BY 'pw'")
    srv.query("GRANT SELECT_PRIV ON internal.d.t TO 'reader'@'%'")
    conn = connector.connect(
        host=srv.host, port=srv.port, user="root", password="", use_pure=True, autocommit=True
    )
    try:
        cur = conn.cursor()
        cur.execute("BEGIN")
        cur.execute("INSERT INTO d.t VALUES (200, 'root-tx')")
        cur.execute("SET @v = 'root'")
        conn.cmd_change_user(username="reader", password="pw")
        cur = conn.cursor()
        cur.execute("SELECT count(*) FROM d.t WHERE id = 200")
        assert cur.fetchall() == [(0,)]
        cur.execute("COMMIT")
    finally:
        conn.close()
    assert srv.query("SELECT count(*) FROM d.t WHERE id = 200") == [(0,)]
