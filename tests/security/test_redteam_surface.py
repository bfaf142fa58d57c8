"""Red-team pass over the surface merged with multi-statements, MySQL function macros, session
limits, transactions, prepared-statement describe and the MySQL DDL/DML adaptations.

Attacks run as a user with no grants (``nobody``), one with SELECT on one table (``reader``) and
one with everything but CREATE on that table (``owner``). Each test is an attempt: the ones that
broke drydock before the fix in engine/sql/session_limits.py are marked so; the rest pin what held.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pymysql
import pytest
from pymysql.constants import CLIENT, COMMAND

from tests.conftest import ServerProcess

SECRET = "s3cr3t-row"


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(data_dir=tmp_path_factory.mktemp("redteam") / "data").start()
    for sql in (
        "CREATE DATABASE d",
        "CREATE DATABASE e",
        "CREATE TABLE d.secret (id INT, v VARCHAR(40))",
        f"INSERT INTO d.secret VALUES (1, '{SECRET}')",
        "CREATE TABLE d.pub (id INT, v VARCHAR(40))",
        "INSERT INTO d.pub VALUES (1, 'public')",
        "CREATE TABLE d.ai (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(10))",
        "INSERT INTO d.ai (v) VALUES ('x')",
        "CREATE USER 'nobody'@'%' IDENTIFIED BY 'pw'",
        "CREATE USER 'reader'@'%' IDENTIFIED BY 'pw'",
        "CREATE USER 'owner'@'%' IDENTIFIED BY 'pw'",
        "GRANT SELECT_PRIV ON internal.d.pub TO 'reader'@'%'",
        "GRANT SELECT_PRIV, LOAD_PRIV, ALTER_PRIV, DROP_PRIV ON internal.d.pub TO 'owner'@'%'",
    ):
        proc.query(sql)
    yield proc
    proc.stop()


def connect(srv: ServerProcess, user: str, **kwargs: Any) -> pymysql.connections.Connection:
    database = None if user == "nobody" else "d"  # nobody may not even USE d
    return srv.connect(
        user=user, password="" if user == "root" else "pw", database=database, **kwargs
    )


def run_all(srv: ServerProcess, user: str, sql: str) -> list[list[tuple]]:
    """Every result set of ``sql`` sent as one COM_QUERY with CLIENT_MULTI_STATEMENTS."""
    with connect(srv, user, client_flag=CLIENT.MULTI_STATEMENTS) as conn, conn.cursor() as cur:
        cur.execute(sql)
        results = [list(cur.fetchall())]
        while cur.nextset():
            results.append(list(cur.fetchall()))
        return results


def error_of(srv: ServerProcess, user: str, sql: str) -> int:
    with pytest.raises(pymysql.err.MySQLError) as info:
        run_all(srv, user, sql)
    return int(info.value.args[0])


def audit(srv: ServerProcess, limit: int = 20) -> list[dict]:
    with srv.connect() as conn, conn.cursor(pymysql.cursors.DictCursor) as cur:
        cur.execute(f"SHOW AUDIT LIMIT {limit}")
        return list(cur.fetchall())


# -- multi-statements: each statement is authorized on its own (held) ------------------------------
MULTI_READS = [
    "SELECT * FROM pub; SELECT * FROM secret",
    "SELECT * FROM pub;;SELECT * FROM secret",
    "SELECT * FROM pub; /*! SELECT * FROM secret */",
    "/*!40101 SELECT * FROM secret */",
    "SELECT * FROM pub; -- x\nSELECT * FROM secret",
    "SELECT * FROM pub /*; */ ; SELECT * FROM secret",
    "SELECT x'41'; SELECT * FROM secret",
    "SELECT 1; WITH secret AS (SELECT * FROM secret) SELECT * FROM secret",
]


@pytest.mark.parametrize("sql", MULTI_READS)
def test_every_statement_of_a_multi_statement_is_authorized(srv: ServerProcess, sql: str) -> None:
    assert error_of(srv, "reader", sql) == 1142


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT 'a\\'; SELECT * FROM secret; -- '",
        "SELECT 1 # ; SELECT * FROM secret",
        "SELECT 1 /*+ ; SELECT * FROM secret */",
    ],
)
def test_a_split_point_inside_a_string_or_comment_is_no_statement(
    srv: ServerProcess, sql: str
) -> None:
    results = run_all(srv, "reader", sql)
    assert len(results) == 1 and SECRET not in str(results)


def test_each_statement_of_a_multi_statement_is_audited_with_its_own_text(
    srv: ServerProcess,
) -> None:
    error_of(srv, "reader", "SELECT * FROM pub; SELECT * FROM secret /* mark-r1 */")
    run_all(
        srv,
        "root",
        "CREATE TABLE d.m (x INT); INSERT INTO d.m VALUES (1) /* mark-r2 */; DROP TABLE d.m",
    )
    rows = audit(srv)
    denied = next(r for r in rows if "mark-r1" in r["Statement"])
    assert (
        denied["Kind"] == "Denied"
        and denied["User"] == "reader"
        and "pub" not in denied["Statement"]
    )
    kinds = [(r["Kind"], r["Object"]) for r in rows[:3]]
    assert kinds == [
        ("Drop", "internal.d.m"),
        ("Insert", "internal.d.m"),
        ("Create", "internal.d.m"),
    ]
    insert = rows[1]["Statement"]
    assert "mark-r2" in insert and "CREATE" not in insert and "DROP" not in insert


def test_kill_inside_a_multi_statement_cannot_reach_another_users_connection(
    srv: ServerProcess,
) -> None:
    with srv.connect() as victim, victim.cursor() as cur:
        cur.execute("SELECT CONNECTION_ID()")
        victim_id = cur.fetchall()[0][0]
        for sql in (
            f"SELECT 1; KILL {victim_id}",
            f"SELECT 1; KILL QUERY {victim_id}",
            f"SELECT 1; /*! KILL CONNECTION {victim_id} */",
        ):
            assert error_of(srv, "reader", sql) in (1094, 1095), sql
        cur.execute("SELECT 2")
        assert cur.fetchall() == ((2,),)


# -- MySQL function macros and reserved sequences (held)
# --------------------------------------------
MACRO_ATTEMPTS = [
    ("CREATE MACRO mysql_is.evil(x) AS (SELECT v FROM d.secret LIMIT 1)", 1235),
    (
        "CREATE OR REPLACE MACRO mysql_is.main.mysql_week(d, m) AS (SELECT v FROM d.secret LIMIT "
        "1)",
        1064,
    ),
    ("CREATE TEMP MACRO evil(x) AS (SELECT v FROM d.secret LIMIT 1)", 1235),
    ("DROP MACRO mysql_is.main.mysql_week", 1235),
    ("DROP FUNCTION mysql_is.main.mysql_week", 1235),
    ("SELECT CONVERT_TZ('2020-01-01 00:00:00', (SELECT v FROM secret), '+01:00')", 1142),
    ("SELECT SUBSTRING_INDEX((SELECT v FROM secret LIMIT 1), 'x', 1)", 1142),
    ("SELECT mysql_is.main.mysql_ordinal_day((SELECT count(*) FROM mysql_is.main.tables))", 1105),
    ("SELECT list_transform([1], x -> (SELECT v FROM secret))", 1142),
    ("SELECT system.main.current_setting('memory_limit')", 1305),
    ("SELECT nextval('d.ai_id_seq')", 1305),
    ("SELECT currval('x')", 1305),
    ("SELECT setval('x', 1)", 1305),
    ("DROP SEQUENCE d.ai_id_seq", 1235),
]


@pytest.mark.parametrize(("sql", "code"), MACRO_ATTEMPTS)
def test_macros_and_sequences_cannot_be_defined_or_used_to_reach_anything(
    srv: ServerProcess, sql: str, code: int
) -> None:
    assert error_of(srv, "reader", sql) == code
    assert srv.query("SELECT mysql_is.main.mysql_week(DATE '2020-01-05', 0)") == [
        (1,)
    ]  # still drydock's


def test_calling_a_macro_directly_reads_nothing_but_its_arguments(srv: ServerProcess) -> None:
    assert run_all(srv, "nobody", "SELECT mysql_is.main.mysql_week(DATE '2020-01-01', 1)") == [
        [(1,)]
    ]


def test_sequence_defaults_cannot_be_planted_by_ddl(srv: ServerProcess) -> None:
    for sql in (
        "CREATE TABLE d.n (id INT DEFAULT nextval('d.__drydock_ai_0'))",
        "ALTER TABLE pub ALTER COLUMN v SET DEFAULT (nextval('d.__drydock_ai_0'))",
        "ALTER TABLE pub ADD COLUMN q VARCHAR DEFAULT current_setting('memory_limit')",
        "ALTER TABLE pub ADD COLUMN q2 VARCHAR GENERATED ALWAYS AS "
        "(current_setting('memory_limit'))",
        "ALTER TABLE pub ALTER COLUMN v TYPE VARCHAR USING current_setting('memory_limit')",
    ):
        assert error_of(srv, "root" if sql.startswith("CREATE") else "owner", sql) == 1305, sql
    assert (
        error_of(
            srv, "owner", "ALTER TABLE pub ALTER COLUMN v TYPE VARCHAR USING (SELECT v FROM secret)"
        )
        == 1142
    )


# -- DDL/DML privileges (held)
# -----------------------------------------------------------------------
DDL_ATTEMPTS = [
    ("reader", "RENAME TABLE secret TO pub3"),
    ("reader", "CREATE INDEX ix ON secret (id)"),
    ("reader", "TRUNCATE TABLE secret"),
    ("reader", "REPLACE INTO secret VALUES (2, 'x')"),
    ("reader", "INSERT INTO pub VALUES (2,'x') ON DUPLICATE KEY UPDATE v = (SELECT v FROM secret)"),
    ("owner", "INSERT INTO pub VALUES (2,'x') ON DUPLICATE KEY UPDATE v = (SELECT v FROM secret)"),
    ("owner", "REPLACE INTO pub SELECT * FROM secret"),
    ("owner", "RENAME TABLE pub TO pubx"),
    ("owner", "ALTER TABLE pub RENAME TO puby"),
    ("owner", "RENAME TABLE pub TO tmp, secret TO pub"),
    ("nobody", "CREATE VIEW d.v AS SELECT * FROM d.secret"),
]


@pytest.mark.parametrize(("user", "sql"), DDL_ATTEMPTS)
def test_ddl_and_dml_need_the_privileges_of_every_table_they_touch(
    srv: ServerProcess, user: str, sql: str
) -> None:
    assert error_of(srv, user, sql) == 1142
    assert srv.query("SELECT v FROM d.secret") == [(SECRET,)]
    assert [t for (t,) in srv.query("SHOW TABLES FROM d")] == ["ai", "pub", "secret"]


def test_rename_into_another_database_needs_create_and_insert_there(srv: ServerProcess) -> None:
    """A rename moves the table (MySQL): the new name needs CREATE and INSERT in its database."""
    assert error_of(srv, "owner", "RENAME TABLE d.pub TO e.pub") == 1142
    assert srv.query("SHOW TABLES FROM e") == []
    assert ("pub",) in srv.query("SHOW TABLES FROM d")


# -- prepared-statement describe (held)
# ---------------------------------------------------------------
def prepare(conn: pymysql.connections.Connection, sql: str) -> int:
    """COM_STMT_PREPARE only: the number of result columns the server describes."""
    conn._execute_command(COMMAND.COM_STMT_PREPARE, sql)
    data = conn._read_packet().get_all_data()
    columns, params = int.from_bytes(data[5:7], "little"), int.from_bytes(data[7:9], "little")
    for _ in range((columns + 1 if columns else 0) + (params + 1 if params else 0)):
        conn._read_packet()
    return columns


def test_describe_runs_nothing_that_changes_state(srv: ServerProcess) -> None:
    with connect(srv, "root") as conn:
        for sql in (
            "DELETE FROM d.pub",
            "INSERT INTO d.pub VALUES (99, 'prep')",
            "CREATE TABLE d.prep (x INT)",
            "DROP TABLE d.ai",
            "TRUNCATE d.pub",
            "SELECT @a := 5",
            "SELECT 7 INTO @b",
        ):
            assert prepare(conn, sql) == 0, sql
        with conn.cursor() as cur:
            cur.execute("SELECT @a, @b")
            assert cur.fetchall() == ((None, None),)
    assert srv.query("SELECT id, v FROM d.pub") == [(1, "public")]
    assert [t for (t,) in srv.query("SHOW TABLES FROM d")] == ["ai", "pub", "secret"]


def test_describe_does_not_describe_what_the_user_may_not_read(srv: ServerProcess) -> None:
    with connect(srv, "root") as conn:
        assert prepare(conn, "SELECT * FROM secret") == 2
    with connect(srv, "reader") as conn:
        assert prepare(conn, "SELECT * FROM secret /* mark-prep */") == 0
        assert prepare(conn, "SELECT * FROM duckdb_settings()") == 0
        assert prepare(conn, "SELECT * FROM pub WHERE v = ?") == 2
    denied = next(r for r in audit(srv) if "mark-prep" in r["Statement"])
    assert denied["Kind"] == "Denied" and denied["ErrorCode"] == 1142


# -- transactions (held)
# -------------------------------------------------------------------------------
def test_an_open_transaction_neither_blocks_others_nor_survives_disconnect(
    srv: ServerProcess,
) -> None:
    srv.query("CREATE TABLE d.tx (id INT, v VARCHAR(10))")
    srv.query("INSERT INTO d.tx VALUES (1, 'a')")
    holder = connect(srv, "root")
    with holder.cursor() as cur:
        cur.execute("BEGIN")
        cur.execute("INSERT INTO d.tx VALUES (5, 'open')")
        cur.execute("UPDATE d.tx SET v = 'held' WHERE id = 1")
    with connect(srv, "root") as other, other.cursor() as cur:
        cur.execute("SELECT id, v FROM d.tx")
        assert cur.fetchall() == ((1, "a"),)
        cur.execute("CREATE TABLE d.tx2 (x INT)")
        cur.execute("DROP TABLE d.tx2")
        with pytest.raises(
            pymysql.err.MySQLError
        ):  # a write-write conflict fails instead of waiting
            cur.execute("UPDATE d.tx SET v = 'b' WHERE id = 1")
    holder.close()
    assert srv.query("SELECT id, v FROM d.tx ORDER BY id") == [(1, "a")]
    srv.query("DROP TABLE d.tx")
