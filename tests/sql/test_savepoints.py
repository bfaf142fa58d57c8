"""SAVEPOINT / ROLLBACK TO SAVEPOINT / RELEASE SAVEPOINT over the wire (engine/sql/savepoints.py,
engine/sql/transactions.py): a replay of the transaction's statement log, refused (1213, the
whole transaction rolled back) when it could not rebuild the same state."""

from __future__ import annotations

from typing import Any

import pymysql
import pytest

from tests.conftest import ServerProcess

IN_TRANS = 0x0001  # SERVER_STATUS_IN_TRANS


def _error(cur: Any, sql: str) -> int:
    with pytest.raises(pymysql.MySQLError) as info:
        cur.execute(sql)
    return int(info.value.args[0])


def _ids(cur: Any, table: str = "t") -> list[int]:
    cur.execute(f"SELECT id FROM {table} ORDER BY id")
    return [row[0] for row in cur.fetchall()]


@pytest.fixture
def db(shared_server: ServerProcess, request: pytest.FixtureRequest) -> str:
    name = f"sp_{request.node.name.replace('[', '_').replace(']', '')}"[:60]
    shared_server.query(f"DROP DATABASE IF EXISTS {name}")
    shared_server.query(f"CREATE DATABASE {name}")
    shared_server.query(f"CREATE TABLE {name}.t (id INT PRIMARY KEY, v VARCHAR(10))")
    return name


def test_rollback_to_undoes_only_later_work(shared_server: ServerProcess, db: str) -> None:
    with shared_server.connect(database=db) as conn, conn.cursor() as cur:
        cur.execute("BEGIN")
        cur.execute("INSERT INTO t VALUES (1, 'a')")
        cur.execute("SAVEPOINT s1")
        cur.execute("INSERT INTO t VALUES (2, 'b')")
        cur.execute("UPDATE t SET v = 'changed' WHERE id = 1")
        cur.execute("ROLLBACK TO SAVEPOINT s1")
        assert conn.server_status & IN_TRANS
        cur.execute("SELECT id, v FROM t ORDER BY id")
        assert cur.fetchall() == ((1, "a"),)
        cur.execute("INSERT INTO t VALUES (3, 'c')")
        cur.execute("ROLLBACK TO s1")  # the savepoint stays after a rollback to it
        cur.execute("INSERT INTO t VALUES (4, 'd')")
        cur.execute("COMMIT")
        assert _ids(cur) == [1, 4]


def test_nested_savepoints_and_release(shared_server: ServerProcess, db: str) -> None:
    with shared_server.connect(database=db) as conn, conn.cursor() as cur:
        cur.execute("BEGIN")
        cur.execute("INSERT INTO t VALUES (1, 'a')")
        cur.execute("SAVEPOINT outer_sp")
        cur.execute("INSERT INTO t VALUES (2, 'b')")
        cur.execute("SAVEPOINT `Inner`")
        cur.execute("INSERT INTO t VALUES (3, 'c')")
        cur.execute("ROLLBACK WORK TO SAVEPOINT inner")  # names compare without case
        assert _ids(cur) == [1, 2]
        cur.execute("SAVEPOINT inner")
        cur.execute("INSERT INTO t VALUES (5, 'e')")
        cur.execute("RELEASE SAVEPOINT inner")  # its work stays
        assert _error(cur, "ROLLBACK TO SAVEPOINT inner") == 1305
        cur.execute("SAVEPOINT again")
        cur.execute("RELEASE SAVEPOINT outer_sp")  # and every later savepoint with it
        assert _error(cur, "RELEASE SAVEPOINT again") == 1305
        assert _error(cur, "ROLLBACK TO SAVEPOINT outer_sp") == 1305
        cur.execute("SAVEPOINT outer_sp")
        cur.execute("INSERT INTO t VALUES (6, 'f')")
        cur.execute("SAVEPOINT outer_sp")  # the same name again moves it
        cur.execute("INSERT INTO t VALUES (7, 'g')")
        cur.execute("ROLLBACK TO SAVEPOINT outer_sp")
        cur.execute("COMMIT")
        assert _ids(cur) == [1, 2, 5, 6]
        assert _error(cur, "ROLLBACK TO SAVEPOINT outer_sp") == 1305  # COMMIT ended them


def test_unknown_savepoint_and_savepoint_outside_a_transaction(
    shared_server: ServerProcess, db: str
) -> None:
    with shared_server.connect(database=db) as conn, conn.cursor() as cur:
        cur.execute("SAVEPOINT lonely")  # autocommit on: accepted, ends with its statement
        assert not conn.server_status & IN_TRANS
        with pytest.raises(pymysql.MySQLError) as info:
            cur.execute("ROLLBACK TO SAVEPOINT lonely")
        assert info.value.args == (1305, "SAVEPOINT lonely does not exist")
        cur.execute("BEGIN")
        assert _error(cur, "RELEASE SAVEPOINT nope") == 1305
        assert _error(cur, "ROLLBACK TO SAVEPOINT nope") == 1305
        cur.execute("INSERT INTO t VALUES (1, 'a')")  # the transaction goes on
        cur.execute("COMMIT")
        assert _ids(cur) == [1]
        # autocommit off: SAVEPOINT begins the transaction
        cur.execute("SET autocommit = 0")
        cur.execute("SAVEPOINT first")
        cur.execute("INSERT INTO t VALUES (2, 'b')")
        cur.execute("ROLLBACK TO SAVEPOINT first")
        cur.execute("INSERT INTO t VALUES (3, 'c')")
        cur.execute("COMMIT")
        assert _ids(cur) == [1, 3]


def test_rollback_to_after_a_duplicate_key_keeps_earlier_work(
    shared_server: ServerProcess, db: str
) -> None:
    """Django's get_or_create: the failed INSERT aborted DuckDB's transaction; ROLLBACK TO
    rebuilds it up to the savepoint, and the transaction goes on and commits."""
    shared_server.query(f"INSERT INTO {db}.t VALUES (10, 'old')")
    with shared_server.connect(database=db) as conn, conn.cursor() as cur:
        cur.execute("BEGIN")
        cur.execute("INSERT INTO t VALUES (1, 'a')")
        cur.execute("UPDATE t SET v = 'new' WHERE id = 10")
        cur.execute("SAVEPOINT s")
        assert _error(cur, "INSERT INTO t VALUES (10, 'dup')") == 1062
        cur.execute("SELECT id FROM t ORDER BY id")  # only the statement was undone
        assert cur.fetchall() == ((1,), (10,))
        cur.execute("ROLLBACK TO SAVEPOINT s")
        cur.execute("SELECT id, v FROM t ORDER BY id")
        assert cur.fetchall() == ((1, "a"), (10, "new"))
        cur.execute("INSERT INTO t VALUES (2, 'b')")
        cur.execute("RELEASE SAVEPOINT s")
        cur.execute("COMMIT")
    assert shared_server.query(f"SELECT id, v FROM {db}.t ORDER BY id") == [
        (1, "a"),
        (2, "b"),
        (10, "new"),
    ]


def test_concurrent_commit_refuses_the_replay(shared_server: ServerProcess, db: str) -> None:
    with shared_server.connect(database=db) as conn, conn.cursor() as cur:
        cur.execute("BEGIN")
        cur.execute("INSERT INTO t VALUES (1, 'a')")
        cur.execute("SAVEPOINT s")
        cur.execute("INSERT INTO t VALUES (2, 'b')")
        shared_server.query(f"INSERT INTO {db}.t VALUES (100, 'other')")  # another connection
        with pytest.raises(pymysql.MySQLError) as info:
            cur.execute("ROLLBACK TO SAVEPOINT s")
        assert info.value.args[0] == 1213
        assert "another session committed" in info.value.args[1]
        cur.execute("INSERT INTO t VALUES (3, 'c')")  # autocommit: outside a transaction
        assert not conn.server_status & IN_TRANS  # the whole transaction was rolled back
        assert _error(cur, "ROLLBACK TO SAVEPOINT s") == 1305
    assert shared_server.query(f"SELECT id FROM {db}.t ORDER BY id") == [(3,), (100,)]


def test_a_volatile_function_before_the_savepoint_refuses_the_replay(
    shared_server: ServerProcess, db: str
) -> None:
    with shared_server.connect(database=db) as conn, conn.cursor() as cur:
        cur.execute("BEGIN")
        cur.execute("INSERT INTO t VALUES (1, LEFT(CAST(RAND() AS CHAR), 8))")
        cur.execute("SAVEPOINT s")
        cur.execute("SELECT NOW()")  # a read: not logged, no harm
        cur.execute("INSERT INTO t VALUES (2, 'b')")
        with pytest.raises(pymysql.MySQLError) as info:
            cur.execute("ROLLBACK TO SAVEPOINT s")
        assert info.value.args[0] == 1213 and "rand" in info.value.args[1].lower()
        assert _ids(cur) == []
        # after the savepoint it does no harm: that work is undone, not replayed
        cur.execute("BEGIN")
        cur.execute("INSERT INTO t VALUES (1, 'a')")
        cur.execute("SAVEPOINT s")
        cur.execute("INSERT INTO t VALUES (2, LEFT(CAST(RAND() AS CHAR), 8))")
        cur.execute("ROLLBACK TO SAVEPOINT s")
        cur.execute("COMMIT")
        assert _ids(cur) == [1]


def test_auto_increment_ids_survive_the_replay(shared_server: ServerProcess, db: str) -> None:
    with shared_server.connect(database=db) as conn, conn.cursor() as cur:
        cur.execute("CREATE TABLE a (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, v VARCHAR(10))")
        cur.execute("INSERT INTO a (v) VALUES ('before')")  # committed: id 1
        cur.execute("BEGIN")
        cur.execute("INSERT INTO a (v) VALUES ('x'), ('y')")
        first = cur.lastrowid
        cur.execute("SAVEPOINT s")
        cur.execute("INSERT INTO a (v) VALUES ('z')")
        dropped = cur.lastrowid
        assert _error(cur, "INSERT INTO a (id, v) VALUES (1, 'dup')") == 1062
        cur.execute("ROLLBACK TO SAVEPOINT s")
        cur.execute("SELECT id, v FROM a ORDER BY id")
        assert cur.fetchall() == ((1, "before"), (first, "x"), (first + 1, "y"))
        cur.execute("INSERT INTO a (v) VALUES ('w')")
        later = cur.lastrowid
        assert later > dropped  # a value handed out is not handed out again
        cur.execute("SELECT LAST_INSERT_ID()")
        assert cur.fetchone() == (later,)
        cur.execute("COMMIT")
        cur.execute("SELECT id, v FROM a ORDER BY id")
        assert cur.fetchall() == ((1, "before"), (first, "x"), (first + 1, "y"), (later, "w"))
    assert first == 2


def test_ddl_clears_savepoints(shared_server: ServerProcess, db: str) -> None:
    """MySQL's DDL commits implicitly, which ends every savepoint."""
    with shared_server.connect(database=db) as conn, conn.cursor() as cur:
        cur.execute("BEGIN")
        cur.execute("SAVEPOINT s")
        cur.execute("CREATE TABLE t2 (id INT)")
        assert _error(cur, "ROLLBACK TO SAVEPOINT s") == 1305
        cur.execute("ROLLBACK")


def test_sqlalchemy_begin_nested(shared_server: ServerProcess, db: str) -> None:
    sqlalchemy = pytest.importorskip("sqlalchemy")
    from sqlalchemy.exc import IntegrityError

    engine = sqlalchemy.create_engine(
        f"mysql+pymysql://root:@{shared_server.host}:{shared_server.port}/{db}"
    )
    t = sqlalchemy.table("t", sqlalchemy.column("id"), sqlalchemy.column("v"))
    try:
        with engine.connect() as connection:
            with connection.begin():
                connection.execute(t.insert().values(id=1, v="a"))
                with pytest.raises(IntegrityError):
                    with connection.begin_nested():
                        connection.execute(t.insert().values(id=1, v="dup"))
                with connection.begin_nested():
                    connection.execute(t.insert().values(id=2, v="b"))
                nested = connection.begin_nested()
                connection.execute(t.insert().values(id=3, v="c"))
                nested.rollback()
        with engine.connect() as connection:
            rows = connection.execute(sqlalchemy.text("SELECT id, v FROM t ORDER BY id")).all()
        assert [tuple(r) for r in rows] == [(1, "a"), (2, "b")]
    finally:
        engine.dispose()


def test_ids_burnt_by_a_failed_insert_are_replayed_as_they_were(
    shared_server: ServerProcess, db: str
) -> None:
    """get_or_create twice in one transaction: the first failed INSERT burnt an id (as in
    InnoDB), so later rows' ids have a gap the second replay must reproduce. (A duplicate key,
    in VALUES or from a SELECT, is found before any id is drawn, engine/sql/enforcement.py; a
    value DuckDB fails to convert is found after it drew the id.)"""
    with shared_server.connect(database=db) as conn, conn.cursor() as cur:
        cur.execute("CREATE TABLE a (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, v INT UNIQUE)")
        cur.execute("BEGIN")
        cur.execute("INSERT INTO a (v) VALUES (1)")
        cur.execute("SAVEPOINT s")
        # a value that does not convert: DuckDB draws an id, then fails
        assert _error(cur, "INSERT INTO a (v) SELECT 'not a number'") in (1366, 1292, 1265)
        cur.execute("ROLLBACK TO SAVEPOINT s")
        cur.execute("INSERT INTO a (v) VALUES (2)")
        after_gap = cur.lastrowid
        cur.execute("SAVEPOINT t")
        assert _error(cur, "INSERT INTO a (v) VALUES (2)") == 1062
        cur.execute("ROLLBACK TO SAVEPOINT t")
        cur.execute("COMMIT")
        cur.execute("SELECT id, v FROM a ORDER BY id")
        assert cur.fetchall() == ((1, 1), (after_gap, 2))
    assert after_gap == 3


def test_rollback_to_with_nothing_written_since_keeps_the_snapshot(
    shared_server: ServerProcess, db: str
) -> None:
    """mariadb-dump --single-transaction: a savepoint per table, rolled back to after reading it;
    another session's commit meanwhile neither refuses it nor shows up in the snapshot."""
    with shared_server.connect(database=db) as conn, conn.cursor() as cur:
        cur.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT")
        cur.execute("INSERT INTO t VALUES (1, 'a')")
        cur.execute("SAVEPOINT sp")
        assert _ids(cur) == [1]
        shared_server.query(f"INSERT INTO {db}.t VALUES (100, 'other')")
        cur.execute("ROLLBACK TO SAVEPOINT sp")
        assert _ids(cur) == [1]  # the transaction's snapshot, as before
        cur.execute("COMMIT")
        assert _ids(cur) == [1, 100]


def test_a_table_created_in_the_transaction_is_replayed_with_it(
    shared_server: ServerProcess, db: str
) -> None:
    """drydock's DDL is transactional: a savepoint set after it replays the CREATE TABLE (and
    its AUTO_INCREMENT sequence) and the rows, with their ids."""
    with shared_server.connect(database=db) as conn, conn.cursor() as cur:
        cur.execute("BEGIN")
        cur.execute("CREATE TABLE fresh (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, v INT UNIQUE)")
        cur.execute("INSERT INTO fresh (v) VALUES (10), (20)")
        cur.execute("SAVEPOINT s")
        assert _error(cur, "INSERT INTO fresh (v) VALUES (10)") == 1062
        cur.execute("ROLLBACK TO SAVEPOINT s")
        cur.execute("INSERT INTO fresh (v) VALUES (30)")
        cur.execute("COMMIT")
        cur.execute("SELECT id, v FROM fresh ORDER BY id")
        rows = cur.fetchall()
    assert [r[1] for r in rows] == [10, 20, 30] and [r[0] for r in rows[:2]] == [1, 2]
    assert rows[2][0] > 2
