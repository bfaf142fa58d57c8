"""MySQL fidelity over the wire with pymysql: collation (engine/sql/collation.py), transactions
(engine/sql/transactions.py) and the DDL/DML ORMs emit (engine/sql/mysql_ddl.py,
engine/sql/mysql_dml.py,
engine/statements/internal_index.py, RENAME TABLE in engine/statements/sql.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pymysql
import pytest

from drydock.engine.statements import execute as execute_statement
from drydock.engine.core import Engine
from drydock.engine.errors import DrydockError
from drydock.engine.session import SessionContext
from drydock.server.session import parse
from tests.conftest import ServerProcess
from tests.support.lance_fixtures import create_user

IN_TRANS = 0x0001  # SERVER_STATUS_IN_TRANS
AUTOCOMMIT = 0x0002  # SERVER_STATUS_AUTOCOMMIT


def _error(cur: Any, sql: str) -> int:
    with pytest.raises(pymysql.MySQLError) as info:
        cur.execute(sql)
    return int(info.value.args[0])


@pytest.fixture
def db(shared_server: ServerProcess, request: pytest.FixtureRequest) -> str:
    name = f"fid_{request.node.name.replace('[', '_').replace(']', '')}"[:60]
    shared_server.query(f"DROP DATABASE IF EXISTS {name}")
    shared_server.query(f"CREATE DATABASE {name}")
    return name


# -- collation ------------------------------------------------------------------------------------
def test_strings_compare_and_group_case_insensitively(
    shared_server: ServerProcess, db: str
) -> None:
    with shared_server.connect(database=db) as conn, conn.cursor() as cur:
        cur.execute("CREATE TABLE t (name VARCHAR(20), code VARCHAR(20) COLLATE utf8mb4_bin)")
        cur.execute(
            "INSERT INTO t VALUES ('abc', 'abc'), ('ABC', 'ABC'), ('Abc', 'Abc'), ('xyz', 'xyz')"
        )
        cur.execute("SELECT count(*) FROM t WHERE name = 'ABC'")
        assert cur.fetchone() == (3,)
        cur.execute("SELECT lower(name), count(*) FROM t GROUP BY name ORDER BY 1")
        assert cur.fetchall() == (("abc", 3), ("xyz", 1))
        cur.execute("SELECT count(DISTINCT name) FROM t")
        assert cur.fetchone() == (2,)
        cur.execute("SELECT count(*) FROM t WHERE name LIKE 'a%'")
        assert cur.fetchone() == (3,)
        # a binary collation, per column or per comparison
        cur.execute("SELECT count(*) FROM t WHERE code = 'ABC'")
        assert cur.fetchone() == (1,)
        cur.execute("SELECT count(DISTINCT code) FROM t")
        assert cur.fetchone() == (4,)
        cur.execute("SELECT count(*) FROM t WHERE name = 'ABC' COLLATE utf8mb4_bin")
        assert cur.fetchone() == (1,)
        cur.execute("SELECT count(*) FROM t WHERE name = BINARY 'ABC'")
        assert cur.fetchone() == (1,)
        assert _error(cur, "SELECT 'a' = 'A' COLLATE no_such_collation") == 1273


# -- transactions ---------------------------------------------------------------------------------
def test_rollback_undoes_work_and_status_says_in_transaction(
    shared_server: ServerProcess, db: str
) -> None:
    shared_server.query(f"CREATE TABLE {db}.t (id INT PRIMARY KEY, v VARCHAR(10))")
    conn = pymysql.connect(
        host=shared_server.host,
        port=shared_server.port,
        user="root",
        password="",
        database=db,
        autocommit=False,
    )
    with conn, shared_server.connect(database=db) as other:
        cur, seen = conn.cursor(), other.cursor()
        assert not conn.server_status & AUTOCOMMIT
        cur.execute("INSERT INTO t VALUES (1, 'a')")
        assert conn.server_status & IN_TRANS
        seen.execute("SELECT count(*) FROM t")
        assert seen.fetchone() == (0,)  # not committed: another session does not see it
        conn.rollback()
        assert not conn.server_status & IN_TRANS
        cur.execute("SELECT count(*) FROM t")
        assert cur.fetchone() == (0,)
        cur.execute("INSERT INTO t VALUES (2, 'b')")
        conn.commit()
        seen.execute("SELECT id FROM t")
        assert seen.fetchall() == ((2,),)


def test_begin_commit_rollback_with_autocommit_on(shared_server: ServerProcess, db: str) -> None:
    with shared_server.connect(database=db) as conn, conn.cursor() as cur:
        cur.execute("CREATE TABLE t (id INT PRIMARY KEY)")
        assert conn.server_status & AUTOCOMMIT and not conn.server_status & IN_TRANS
        cur.execute("START TRANSACTION")
        assert conn.server_status & IN_TRANS
        cur.execute("INSERT INTO t VALUES (1)")
        cur.execute("ROLLBACK")
        cur.execute("BEGIN")
        cur.execute("INSERT INTO t VALUES (2)")
        cur.execute("BEGIN")  # implicitly commits the open transaction (MySQL 15.3.3)
        cur.execute("INSERT INTO t VALUES (3)")
        cur.execute("ROLLBACK")
        cur.execute("SELECT id FROM t")
        assert cur.fetchall() == ((2,),)
        cur.execute("SET autocommit = 0")
        cur.execute("INSERT INTO t VALUES (4)")
        assert conn.server_status & IN_TRANS
        cur.execute("SET autocommit = 1")  # commits (MySQL 15.3.1)
        assert not conn.server_status & IN_TRANS
        cur.execute("ROLLBACK")
        cur.execute("SELECT id FROM t ORDER BY id")
        assert cur.fetchall() == ((2,), (4,))
        assert _error(cur, "ROLLBACK TO SAVEPOINT s") == 1305  # no transaction: no savepoint


def test_failed_statement_in_a_transaction_undoes_only_itself(
    shared_server: ServerProcess, db: str
) -> None:
    """MySQL undoes only a failed statement; DuckDB aborts the whole transaction, which drydock
    rebuilds from its statement log as it was before the statement (engine/sql/transactions.py).
    An error drydock raises before DuckDB runs anything (a denied table) leaves it intact too."""
    user = create_user(shared_server, [f"SELECT_PRIV, LOAD_PRIV ON {db}.t"])
    shared_server.query(f"CREATE TABLE {db}.t (id INT PRIMARY KEY)")
    shared_server.query(f"CREATE TABLE {db}.secret (id INT)")
    with shared_server.connect(user=user, password="pw", database=db) as conn, conn.cursor() as cur:
        cur.execute("BEGIN")
        cur.execute("INSERT INTO t VALUES (1)")
        assert _error(cur, "SELECT * FROM secret") == 1142  # refused before DuckDB: still alive
        cur.execute("INSERT INTO t VALUES (2)")
        cur.execute("COMMIT")
        cur.execute("BEGIN")
        cur.execute("INSERT INTO t VALUES (3)")
        assert _error(cur, "SELECT CAST('x' AS INT) FROM t") in (1105, 1292, 1366)
        cur.execute("SELECT id FROM t ORDER BY id")
        assert cur.fetchall() == ((1,), (2,), (3,))  # the transaction goes on with 3 in it
        assert conn.server_status & IN_TRANS
        cur.execute("SET autocommit = 0")
        assert _error(cur, "INSERT INTO t VALUES (1)") == 1062  # a duplicate: only it is undone
        cur.execute("INSERT INTO t VALUES (5)")
        cur.execute("COMMIT")
        cur.execute("SELECT id FROM t ORDER BY id")
        assert cur.fetchall() == ((1,), (2,), (3,), (5,))


def test_failed_statement_loses_the_transaction_when_it_cannot_be_rebuilt(
    shared_server: ServerProcess, db: str
) -> None:
    """When another session committed a write since the transaction began, a rebuild could not
    give the same state: the failed statement then loses the transaction, loudly — every later
    statement and the COMMIT get 3101/40000 until ROLLBACK, and nothing of it is committed."""
    shared_server.query(f"CREATE TABLE {db}.t (id INT PRIMARY KEY)")
    with shared_server.connect(database=db) as conn, conn.cursor() as cur:
        cur.execute("BEGIN")
        cur.execute("INSERT INTO t VALUES (1)")
        shared_server.query(f"CREATE TABLE {db}.other (id INT)")  # another session's commit
        assert _error(cur, "INSERT INTO t SELECT CAST('x' AS INT)") in (1105, 1292, 1366)
        assert _error(cur, "SELECT * FROM t") == 3101
        assert _error(cur, "COMMIT") == 3101
        cur.execute("SELECT id FROM t")
        assert cur.fetchall() == ()
        cur.execute("BEGIN")
        cur.execute("INSERT INTO t VALUES (6)")
        cur.execute("COMMIT")
        cur.execute("SELECT id FROM t ORDER BY id")
        assert cur.fetchall() == ((6,),)


def test_open_transaction_ends_with_the_connection(shared_server: ServerProcess, db: str) -> None:
    shared_server.query(f"CREATE TABLE {db}.t (id INT)")
    conn = pymysql.connect(
        host=shared_server.host,
        port=shared_server.port,
        user="root",
        password="",
        database=db,
        autocommit=False,
    )
    with conn.cursor() as cur:
        cur.execute("INSERT INTO t VALUES (1)")
    conn.close()  # never committed
    assert shared_server.query(f"SELECT count(*) FROM {db}.t") == [(0,)]


# -- DDL and DML that ORMs emit -------------------------------------------------------------------
def test_auto_increment_and_last_insert_id(shared_server: ServerProcess, db: str) -> None:
    with shared_server.connect(database=db) as conn, conn.cursor() as cur:
        cur.execute(
            "CREATE TABLE users (id INTEGER NOT NULL AUTO_INCREMENT, name VARCHAR(50), "
            "PRIMARY KEY (id)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4"
        )  # SQLAlchemy's DDL
        cur.execute("INSERT INTO users (name) VALUES (%s)", ("ada",))
        assert cur.lastrowid == 1
        cur.executemany("INSERT INTO users (name) VALUES (%s)", [("bob",), ("cy",)])
        cur.execute("INSERT INTO users (name) VALUES ('di'), ('ed')")
        assert cur.lastrowid == 4 and cur.rowcount == 2  # the first generated value, as MySQL
        cur.execute("INSERT INTO users (id, name) VALUES (100, 'explicit')")
        assert cur.lastrowid == 0
        cur.execute(
            "INSERT INTO users (name) VALUES ('after explicit')"
        )  # the counter moved past 100
        assert cur.lastrowid == 101
        cur.execute("INSERT INTO users VALUES (NULL, 'null'), (0, 'zero'), (DEFAULT, 'default')")
        assert cur.lastrowid == 102 and cur.rowcount == 3  # NULL, 0 and DEFAULT generate (13.6)
        cur.execute("INSERT IGNORE INTO users (id, name) VALUES (1, 'dup'), (NULL, 'new')")
        assert (cur.rowcount, cur.lastrowid) == (1, 105)
        cur.execute("INSERT INTO users (id, name) SELECT 500, 'from select'")
        cur.execute("INSERT INTO users (name) VALUES ('after select')")
        assert cur.lastrowid == 501
        cur.execute("SELECT id FROM users ORDER BY id")
        assert [r[0] for r in cur.fetchall()] == [
            1,
            2,
            3,
            4,
            5,
            100,
            101,
            102,
            103,
            104,
            105,
            500,
            501,
        ]
        cur.execute(
            "CREATE TABLE started (id BIGINT AUTO_INCREMENT PRIMARY KEY, v INT) AUTO_INCREMENT = "
            "1000"
        )
        cur.execute("INSERT INTO started (v) VALUES (1)")
        assert cur.lastrowid == 1000
        assert _error(cur, "CREATE TABLE two (a INT AUTO_INCREMENT, b INT AUTO_INCREMENT)") == 1235


def test_orm_column_types_and_inline_keys(shared_server: ServerProcess, db: str) -> None:
    with shared_server.connect(database=db) as conn, conn.cursor() as cur:
        cur.execute(
            "CREATE TABLE m (id INT(11) NOT NULL, price FLOAT(53), ratio FLOAT(10), "
            "score DOUBLE, amount DOUBLE(10,2), flag TINYINT(1), code VARCHAR(10), "
            "updated TIMESTAMP DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, "
            "PRIMARY KEY (id), KEY ix_price (price), UNIQUE KEY uq_code (code), INDEX (score))"
        )
        cur.execute(
            "SELECT column_name, data_type FROM information_schema.columns "
            f"WHERE table_schema = '{db}' AND table_name = 'm' ORDER BY ordinal_position"
        )
        types = dict(cur.fetchall())
        assert (
            types["price"] == "double" and types["ratio"] == "float" and types["amount"] == "double"
        )
        cur.execute("INSERT INTO m (id, price, code) VALUES (1, 0.1, 'a')")
        cur.execute("SELECT price FROM m")
        assert cur.fetchone()[0] == 0.1  # DOUBLE precision for FLOAT(53)
        with pytest.raises(pymysql.MySQLError):  # UNIQUE KEY kept
            cur.execute("INSERT INTO m (id, code) VALUES (2, 'a')")


def test_insert_ignore_on_duplicate_key_and_replace(shared_server: ServerProcess, db: str) -> None:
    with shared_server.connect(database=db) as conn, conn.cursor() as cur:
        cur.execute("CREATE TABLE k (id INT PRIMARY KEY, v VARCHAR(10), n INT)")
        cur.execute("INSERT IGNORE INTO k VALUES (1, 'a', 1), (1, 'dup', 1), (2, 'b', 1)")
        assert cur.rowcount == 2
        cur.execute(
            "INSERT INTO k VALUES (1, 'c', 1) ON DUPLICATE KEY UPDATE v = VALUES(v), n = n + 1"
        )
        cur.execute("REPLACE INTO k VALUES (2, 'r', 9)")
        cur.execute("REPLACE INTO k (id, v) VALUES (3, 'new')")
        cur.execute("SELECT * FROM k ORDER BY id")
        assert cur.fetchall() == ((1, "c", 2), (2, "r", 9), (3, "new", None))
        # two unique keys: the primary key decides, as MySQL's first
        cur.execute("CREATE TABLE k2 (id INT PRIMARY KEY, email VARCHAR(20) UNIQUE, n INT)")
        cur.execute("INSERT INTO k2 VALUES (1, 'a@x', 0)")
        cur.execute("INSERT INTO k2 VALUES (1, 'a@x', 5) ON DUPLICATE KEY UPDATE n = VALUES(n)")
        cur.execute("REPLACE INTO k2 VALUES (1, 'b@x', 7)")
        cur.execute("SELECT * FROM k2")
        assert cur.fetchall() == ((1, "b@x", 7),)


def test_truncate_answers_ok_and_rename_table(shared_server: ServerProcess, db: str) -> None:
    with shared_server.connect(database=db) as conn, conn.cursor() as cur:
        cur.execute("CREATE TABLE a (id INT)")
        cur.execute("INSERT INTO a VALUES (1), (2)")
        cur.execute("TRUNCATE TABLE a")
        assert cur.description is None  # an OK packet, not a result set
        cur.execute("INSERT INTO a VALUES (3)")
        cur.execute("CREATE TABLE b (id INT)")
        cur.execute("RENAME TABLE a TO a2, b TO b2")
        cur.execute("SELECT * FROM a2")
        assert cur.fetchall() == ((3,),)
        assert _error(cur, "SELECT * FROM a") == 1146
        # atomic: the second pair fails (target exists), so the first is undone too
        cur.execute("CREATE TABLE c (id INT)")
        with pytest.raises(pymysql.MySQLError):
            cur.execute("RENAME TABLE a2 TO a3, b2 TO c")
        cur.execute("SELECT * FROM a2")
        assert cur.fetchall() == ((3,),)
        # into another database: moved (tests/sql/test_dictionary_ddl.py); this one does not exist
        assert _error(cur, f"RENAME TABLE a2 TO {db}_other.a2") == 1049


def test_rename_needs_mysqls_privileges(shared_server: ServerProcess, db: str) -> None:
    """RENAME TABLE / ALTER TABLE … RENAME TO: ALTER and DROP on the old table, CREATE and
    INSERT (LOAD) on the new name (MySQL 15.1.36)."""
    shared_server.query(f"CREATE TABLE {db}.old (id INT)")
    alter_only = create_user(shared_server, [f"ALTER_PRIV ON {db}.old"])
    no_create = create_user(
        shared_server, [f"ALTER_PRIV, DROP_PRIV ON {db}.old", f"LOAD_PRIV ON {db}.*"]
    )
    everything = create_user(
        shared_server, [f"ALTER_PRIV, DROP_PRIV ON {db}.old", f"CREATE_PRIV, LOAD_PRIV ON {db}.*"]
    )
    for user in (alter_only, no_create):
        with (
            shared_server.connect(user=user, password="pw", database=db) as conn,
            conn.cursor() as cur,
        ):
            assert _error(cur, "RENAME TABLE old TO new") == 1142
            assert _error(cur, "ALTER TABLE old RENAME TO new") == 1142
    with (
        shared_server.connect(user=everything, password="pw", database=db) as conn,
        conn.cursor() as cur,
    ):
        cur.execute("RENAME TABLE old TO new")
    assert shared_server.query(f"SELECT count(*) FROM {db}.new") == [(0,)]


def test_plain_indexes_on_internal_tables(shared_server: ServerProcess, db: str) -> None:
    with shared_server.connect(database=db) as conn, conn.cursor() as cur:
        cur.execute("CREATE TABLE t (id INT PRIMARY KEY, email VARCHAR(40), n INT)")
        cur.execute("CREATE INDEX ix_n ON t (n)")
        assert cur.description is None  # an OK, not a JobId row
        cur.execute("CREATE UNIQUE INDEX ux_email ON t (email)")
        cur.execute("INSERT INTO t VALUES (1, 'a@x', 1)")
        with pytest.raises(pymysql.MySQLError):
            cur.execute("INSERT INTO t VALUES (2, 'a@x', 1)")
        cur.execute("DROP INDEX ix_n ON t")
        assert _error(cur, "DROP INDEX ix_n ON t") == 1091
        cur.execute("DROP INDEX IF EXISTS ix_n ON t")
        cur.execute("CREATE TABLE u (id INT)")
        assert _error(cur, "DROP INDEX ux_email ON u") == 1091  # not u's index
        assert _error(cur, "CREATE INDEX i ON t (n) USING BTREE") == 5101  # a Lance index job form
        assert _error(cur, "CREATE INDEX i ON nope (n)") == 1146
    reader = create_user(shared_server, [f"SELECT_PRIV ON {db}.*"])
    with (
        shared_server.connect(user=reader, password="pw", database=db) as conn,
        conn.cursor() as cur,
    ):
        assert _error(cur, "CREATE INDEX i2 ON t (n)") == 1142
        assert _error(cur, "CREATE UNIQUE INDEX i3 ON t (n)") == 1142
        assert _error(cur, "DROP INDEX ux_email ON t") == 1142


# -- engine level: what no SQL can see ------------------------------------------------------------
@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    e = Engine(tmp_path / "data")
    yield e
    e.close()


def test_auto_increment_sequence_lives_and_dies_with_its_table(engine: Engine) -> None:
    ctx = SessionContext(
        user="root", host="127.0.0.1", connection_id=1, query=engine.query_session()
    )

    def run(sql: str) -> Any:
        return execute_statement(engine, parse(sql), ctx, sql)

    def sequences() -> int:
        return int(
            engine.query.fetch(
                "SELECT count(*) FROM duckdb_sequences() WHERE sequence_name LIKE '__drydock_ai_%'"
            )[0][0]
        )

    run("CREATE DATABASE s")
    run("CREATE TABLE s.t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
    assert sequences() == 1
    with pytest.raises(DrydockError):
        run("CREATE TABLE s.t (id INT AUTO_INCREMENT PRIMARY KEY)")  # exists: no second sequence
    assert sequences() == 1
    assert run("INSERT INTO s.t (v) VALUES (7)").last_insert_id == 1
    run("DROP TABLE s.t")
    assert sequences() == 0


def test_on_update_current_timestamp(shared_server: ServerProcess, db: str) -> None:
    """ON UPDATE CURRENT_TIMESTAMP (MySQL 13.2.5): set when an UPDATE changes another column of
    the row, left alone when the values stay the same or the UPDATE assigns it itself."""
    with shared_server.connect(database=db) as conn, conn.cursor() as cur:
        cur.execute(
            "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10), "
            "ts DATETIME DEFAULT '2000-01-01 00:00:00' ON UPDATE CURRENT_TIMESTAMP)"
        )
        cur.execute("INSERT INTO t (id, v) VALUES (1, 'a'), (2, 'b'), (3, 'c')")
        cur.execute("UPDATE t SET v = 'a' WHERE id = 1")  # no change
        cur.execute("UPDATE t SET v = 'x' WHERE id = 2")
        cur.execute("UPDATE t SET v = 'y', ts = '1999-01-01 00:00:00' WHERE id = 3")
        cur.execute("SELECT id, year(ts) FROM t ORDER BY id")
        rows = dict(cur.fetchall())
        cur.execute("SELECT year(NOW())")
        this_year = cur.fetchone()[0]
        assert rows == {1: 2000, 2: this_year, 3: 1999}
        cur.execute(
            f"SELECT extra, column_comment FROM information_schema.columns "
            f"WHERE table_schema = '{db}' AND table_name = 't' AND column_name = 'ts'"
        )
        assert cur.fetchone() == ("on update CURRENT_TIMESTAMP", "")
        cur.execute("SHOW CREATE TABLE t")
        assert "DEFAULT '2000-01-01 00:00:00' ON UPDATE CURRENT_TIMESTAMP," in cur.fetchone()[1]


def test_auto_increment_is_reflected_as_mysql_shows_it(
    shared_server: ServerProcess, db: str
) -> None:
    with shared_server.connect(database=db) as conn, conn.cursor() as cur:
        cur.execute("CREATE TABLE t (id BIGINT AUTO_INCREMENT PRIMARY KEY, v INT)")
        cur.execute("SHOW CREATE TABLE t")
        assert "`id` bigint NOT NULL AUTO_INCREMENT" in cur.fetchone()[1]
        cur.execute(
            f"SELECT column_default, extra FROM information_schema.columns "
            f"WHERE table_schema = '{db}' AND table_name = 't' AND column_name = 'id'"
        )
        assert cur.fetchone() == (None, "auto_increment")


def test_sqlalchemy_orm_integer_key_rollback_and_pandas(
    shared_server: ServerProcess, db: str
) -> None:
    """SQLAlchemy 2 ORM: create_all with an integer primary key, add/commit, rollback, reflection
    (autoincrement seen); pandas to_sql/read_sql (FLOAT/DOUBLE columns)."""
    sqlalchemy = pytest.importorskip("sqlalchemy", reason="SQLAlchemy is not installed")
    pandas = pytest.importorskip("pandas", reason="pandas is not installed")
    from sqlalchemy import Column, Integer, String, create_engine, inspect, select
    from sqlalchemy.orm import Session, declarative_base

    Base = declarative_base()

    class Item(Base):  # type: ignore[misc,valid-type]
        __tablename__ = "items"
        id = Column(Integer, primary_key=True)
        name = Column(String(50))

    url = f"mysql+pymysql://root:@{shared_server.host}:{shared_server.port}/{db}"
    engine = create_engine(url)
    try:
        Base.metadata.create_all(engine)
        with Session(engine) as session:
            first = Item(name="a")
            session.add_all([first, Item(name="b")])
            session.commit()
            assert first.id == 1
            session.add(Item(name="rolled back"))
            session.flush()
            session.rollback()
            assert [i.name for i in session.scalars(select(Item).order_by(Item.id))] == ["a", "b"]
        columns = {c["name"]: c for c in inspect(engine).get_columns("items")}
        assert columns["id"].get("autoincrement") is True
        frame = pandas.DataFrame({"x": [0.1, 0.25], "n": [1, 2], "s": ["p", "q"]})
        frame.to_sql("frame", engine, index=False)
        back = pandas.read_sql("SELECT x, n, s FROM frame ORDER BY n", engine)
        assert back["x"].tolist() == [0.1, 0.25] and back["s"].tolist() == ["p", "q"]
    finally:
        engine.dispose()
    assert sqlalchemy.__version__


def test_table_definitions_kept_for_inserts_follow_ddl(
    shared_server: ServerProcess, db: str
) -> None:
    """What INSERT/UPDATE remember of a table (engine/sql/table_traits.py) follows DDL, also DDL in
    a
    transaction that is rolled back, and DDL of another session."""
    with shared_server.connect(database=db) as conn, shared_server.connect(database=db) as other:
        cur, cur2 = conn.cursor(), other.cursor()
        cur.execute("CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
        cur.execute("INSERT INTO t (v) VALUES (1)")
        assert cur.lastrowid == 1
        cur2.execute("DROP TABLE t")
        cur2.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
        cur.execute("INSERT INTO t (id, v) VALUES (7, 1)")
        assert cur.lastrowid == 0
        cur.execute("BEGIN")
        cur.execute("DROP TABLE t")
        cur.execute("CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
        cur.execute("INSERT INTO t (v) VALUES (1)")
        assert cur.lastrowid == 1
        cur.execute("ROLLBACK")
        cur2.execute("INSERT INTO t (id, v) VALUES (8, 1)")
        assert cur2.lastrowid == 0
        cur.execute("SELECT id FROM t ORDER BY id")
        assert cur.fetchall() == ((7,), (8,))
        cur2.execute("ALTER TABLE t RENAME TO t_old")
        cur2.execute(
            "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, ts DATETIME ON UPDATE "
            "CURRENT_TIMESTAMP, v INT)"
        )
        cur.execute("INSERT INTO t (v) VALUES (5)")
        assert cur.lastrowid == 1
        cur.execute("UPDATE t SET v = 6")
        cur.execute("SELECT ts IS NOT NULL FROM t")
        assert cur.fetchone() == (1,)


def test_collation_on_lance_tables(shared_server: ServerProcess, tmp_path: Path) -> None:
    """External tables compare like internal ones: a string equality or GROUP BY on a Lance
    column ignores case (the comparison runs in DuckDB after the scan)."""
    lance = pytest.importorskip("lance", reason="pylance is not installed")
    import pyarrow as pa

    warehouse = tmp_path / "lance_wh"
    lance.write_dataset(
        pa.table(
            {"id": pa.array([1, 2, 3, 4], pa.int64()), "fruit": ["Apple", "apple", "APPLE", "pear"]}
        ),
        warehouse / "shop" / "fruit.lance",
    )
    shared_server.query(
        f"CREATE CATALOG fid_lance PROPERTIES ('type' = 'lance', 'warehouse' = '{warehouse}')"
    )
    with shared_server.connect() as conn, conn.cursor() as cur:
        cur.execute("SELECT count(*) FROM fid_lance.shop.fruit WHERE fruit = 'apple'")
        assert cur.fetchone() == (3,)
        cur.execute(
            "SELECT count(*) FROM fid_lance.shop.fruit WHERE fruit = 'apple' COLLATE utf8mb4_bin"
        )
        assert cur.fetchone() == (1,)
        cur.execute("SELECT count(DISTINCT fruit) FROM fid_lance.shop.fruit")
        assert cur.fetchone() == (2,)
