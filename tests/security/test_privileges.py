"""Users, roles and table-level privileges over the wire, and that they survive restart."""

from __future__ import annotations

from collections.abc import Iterator

import pymysql
import pytest

from tests.conftest import ServerProcess


def error_of(
    server: ServerProcess, sql: str, user: str = "root", password: str = ""
) -> tuple[int, str]:
    with server.connect(user=user, password=password) as conn, conn.cursor() as cur:
        with pytest.raises(pymysql.err.MySQLError) as info:
            cur.execute(sql)
    return info.value.args[0], info.value.args[1]


def rows_as(server: ServerProcess, sql: str, user: str, password: str = "pw") -> list[tuple]:
    with server.connect(user=user, password=password) as conn, conn.cursor() as cur:
        cur.execute(sql)
        return list(cur.fetchall())


@pytest.fixture
def two_dbs(server: ServerProcess) -> Iterator[ServerProcess]:
    for sql in [
        "CREATE DATABASE db1",
        "CREATE DATABASE db2",
        "CREATE TABLE db1.t (a INT)",
        "CREATE TABLE db1.u (b INT)",
        "CREATE TABLE db2.s (c INT)",
        "INSERT INTO db1.t VALUES (1), (2)",
        "INSERT INTO db2.s VALUES (3)",
        "CREATE USER 'bob'@'%' IDENTIFIED BY 'pw'",
    ]:
        server.query(sql)
    yield server


def test_select_on_one_database_reads_it_and_nothing_else(two_dbs: ServerProcess) -> None:
    server = two_dbs
    server.query("GRANT SELECT_PRIV ON db1 TO 'bob'@'%'")
    assert rows_as(server, "SELECT a FROM db1.t ORDER BY a", "bob") == [(1,), (2,)]
    assert rows_as(server, "SELECT count(*) FROM db1.t JOIN db1.u ON a = b", "bob") == [(0,)]
    code, message = error_of(server, "SELECT * FROM db2.s", "bob", "pw")
    assert (
        code == 1142
        and message == "SELECT command denied to user 'bob'@'127.0.0.1' for table 'db2.s'"
    )
    # a join needs SELECT on both tables
    assert error_of(server, "SELECT * FROM db1.t JOIN db2.s ON a = c", "bob", "pw")[0] == 1142
    # writes are denied with the table-level code
    assert error_of(server, "INSERT INTO db1.t VALUES (9)", "bob", "pw")[0] == 1142
    assert error_of(server, "DELETE FROM db1.t", "bob", "pw")[0] == 1142
    assert error_of(server, "CREATE TABLE db1.n (x INT)", "bob", "pw")[0] == 1142
    assert error_of(server, "DROP DATABASE db1", "bob", "pw")[0] == 1044
    assert server.query("SELECT count(*) FROM db1.t") == [(2,)]  # nothing changed


def test_other_databases_are_invisible(two_dbs: ServerProcess) -> None:
    server = two_dbs
    server.query("GRANT SELECT_PRIV ON db1.* TO 'bob'@'%'")
    assert rows_as(server, "SHOW DATABASES", "bob") == [("db1",), ("information_schema",)]
    tables = rows_as(
        server,
        "SELECT table_schema, table_name FROM information_schema.tables ORDER BY 1, 2",
        "bob",
    )
    assert tables == [("db1", "t"), ("db1", "u")]
    columns = rows_as(server, "SELECT DISTINCT table_schema FROM information_schema.columns", "bob")
    assert columns == [("db1",)]
    assert error_of(server, "USE db2", "bob", "pw")[0] == 1044
    # root sees everything
    assert ("db2",) in server.query("SHOW DATABASES")


def test_table_level_grant_shows_only_that_table(two_dbs: ServerProcess) -> None:
    server = two_dbs
    server.query("GRANT SELECT_PRIV ON db1.u TO 'bob'@'%'")
    assert rows_as(
        server, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'db1'", "bob"
    ) == [("u",)]
    assert rows_as(server, "SELECT * FROM db1.u", "bob") == []
    assert error_of(server, "SELECT * FROM db1.t", "bob", "pw")[0] == 1142


@pytest.mark.parametrize(
    "target", ["*.*.*", "internal.*.*", "internal.db1.*", "db1.*", "db1", "internal.db1.t", "db1.t"]
)
def test_grant_at_each_level_takes_effect_and_revoke_removes_it(
    two_dbs: ServerProcess, target: str
) -> None:
    server = two_dbs
    assert error_of(server, "INSERT INTO db1.t VALUES (5)", "bob", "pw")[0] == 1142
    server.query(f"GRANT LOAD_PRIV ON {target} TO 'bob'@'%'")
    with server.connect(user="bob", password="pw") as conn, conn.cursor() as cur:
        assert cur.execute("INSERT INTO db1.t VALUES (5)") == 1
    server.query(f"REVOKE LOAD_PRIV ON {target} FROM 'bob'@'%'")
    assert error_of(server, "INSERT INTO db1.t VALUES (6)", "bob", "pw")[0] == 1142


def test_mysql_spellings_and_all_privileges(two_dbs: ServerProcess) -> None:
    server = two_dbs
    server.query("GRANT SELECT, INSERT ON db2.s TO 'bob'@'%'")
    with server.connect(user="bob", password="pw") as conn, conn.cursor() as cur:
        assert cur.execute("INSERT INTO db2.s VALUES (4)") == 1
    server.query("GRANT ALL PRIVILEGES ON db1.* TO 'bob'@'%'")
    with server.connect(user="bob", password="pw") as conn, conn.cursor() as cur:
        cur.execute("CREATE TABLE db1.made_by_bob (x INT)")
        cur.execute("DROP TABLE db1.made_by_bob")
    grants = rows_as(server, "SHOW GRANTS", "bob")[0]
    assert "Select_priv" in grants[5] and "Drop_priv" in grants[5]
    assert grants[6] == "internal.db2.s: Load_priv,Select_priv"


def test_roles_carry_privileges(two_dbs: ServerProcess) -> None:
    server = two_dbs
    server.query("CREATE ROLE readers")
    server.query("GRANT SELECT_PRIV ON db2.* TO ROLE 'readers'")
    assert error_of(server, "SELECT * FROM db2.s", "bob", "pw")[0] == 1142
    server.query("GRANT 'readers' TO 'bob'@'%'")
    assert rows_as(server, "SELECT c FROM db2.s", "bob") == [(3,)]
    roles = server.query("SHOW ROLES")
    assert roles == [("readers", "'bob'@'%'", "", "", "internal.db2: Select_priv", "")]
    server.query("REVOKE 'readers' FROM 'bob'@'%'")
    assert error_of(server, "SELECT * FROM db2.s", "bob", "pw")[0] == 1142
    server.query("GRANT 'readers' TO 'bob'@'%'")
    server.query("DROP ROLE readers")
    assert error_of(server, "SELECT * FROM db2.s", "bob", "pw")[0] == 1142


def test_users_grants_and_roles_survive_restart(two_dbs: ServerProcess) -> None:
    server = two_dbs
    server.query("CREATE ROLE r")
    server.query("GRANT SELECT_PRIV ON db2.s TO ROLE 'r'")
    server.query("GRANT 'r' TO 'bob'@'%'")
    server.query("GRANT SELECT_PRIV ON db1.t TO 'bob'@'%'")
    server.restart()
    assert rows_as(server, "SELECT count(*) FROM db1.t", "bob") == [(2,)]
    assert rows_as(server, "SELECT count(*) FROM db2.s", "bob") == [(1,)]
    assert error_of(server, "SELECT * FROM db1.u", "bob", "pw")[0] == 1142


def test_passwords_and_hosts(server: ServerProcess) -> None:
    server.query("CREATE USER 'amy'@'127.0.0.1' IDENTIFIED BY 'first'")
    server.query("CREATE USER 'amy'@'10.%' IDENTIFIED BY 'other'")
    assert rows_as(server, "SELECT CURRENT_USER()", "amy", "first") == [
        ("amy@127.0.0.1",)
    ]  # MySQL: the account
    with pytest.raises(pymysql.err.OperationalError) as info:
        server.connect(user="amy", password="other")  # the 10.% account does not match loopback
    assert info.value.args[0] == 1045
    server.query("ALTER USER 'amy'@'127.0.0.1' IDENTIFIED BY 'second'")
    assert rows_as(server, "SELECT 1", "amy", "second") == [(1,)]
    with server.connect(user="amy", password="second") as conn, conn.cursor() as cur:
        cur.execute("SET PASSWORD = PASSWORD('third')")
    assert rows_as(server, "SELECT 1", "amy", "third") == [(1,)]
    stored = (server.data_dir / "meta.sqlite").read_bytes()
    assert b"third" not in stored and b"second" not in stored


@pytest.mark.parametrize(
    "sql,code,fragment",
    [
        ("GRANT SELECT_PRIV ON db1.* TO 'nobody'@'%'", 1133, "'nobody'@'%'"),
        ("GRANT FLY_PRIV ON db1.* TO 'bob'@'%'", 1105, "Unknown privilege 'FLY_PRIV'"),
        ("CREATE USER 'x'@'bad host!' IDENTIFIED BY 'p'", 1105, "Invalid host 'bad host!'"),
        ("CREATE USER x@ IDENTIFIED BY 'p'", 1064, "mismatched input 'BY'"),
        ("CREATE USER 'x'@'bad;host' IDENTIFIED BY 'p'", 1105, "Invalid host 'bad;host'"),
        ("DROP USER 'root'@'%'", 1105, "Can not drop user root"),
        ("REVOKE SELECT_PRIV ON db1.* FROM 'bob'@'%'", 1141, "There is no such grant"),
        ("GRANT ADMIN_PRIV ON db1.* TO 'bob'@'%'", 1105, "ADMIN_PRIV can only be granted on *.*.*"),
        ("GRANT SELECT_PRIV ON *.db1.t TO 'bob'@'%'", 1105, "Invalid privilege target"),
        ("GRANT 'no_role' TO 'bob'@'%'", 1105, "Role 'no_role' does not exist"),
        ("CREATE USER 'bob'@'%'", 1396, "Operation CREATE USER failed for 'bob'@'%'"),
    ],
)
def test_bad_input_is_a_clear_error_and_changes_nothing(
    two_dbs: ServerProcess, sql: str, code: int, fragment: str
) -> None:
    before = two_dbs.query("SHOW ALL GRANTS")
    got_code, message = error_of(two_dbs, sql)
    assert got_code == code
    assert fragment in message
    assert two_dbs.query("SHOW ALL GRANTS") == before


def test_granting_above_ones_own_rights_is_refused(two_dbs: ServerProcess) -> None:
    server = two_dbs
    server.query("CREATE USER 'carol'@'%' IDENTIFIED BY 'pw'")
    server.query("GRANT SELECT_PRIV, GRANT_PRIV ON db1.* TO 'bob'@'%'")
    with server.connect(user="bob", password="pw") as conn, conn.cursor() as cur:
        cur.execute("GRANT SELECT_PRIV ON db1.t TO 'carol'@'%'")  # held and grantable: fine
        with pytest.raises(pymysql.err.MySQLError) as info:
            cur.execute("GRANT LOAD_PRIV ON db1.t TO 'carol'@'%'")
    assert "you can only grant privileges you hold yourself" in info.value.args[1]
    assert error_of(server, "GRANT SELECT_PRIV ON db2.* TO 'carol'@'%'", "bob", "pw")[0] == 1227
    assert rows_as(server, "SELECT count(*) FROM db1.t", "carol") == [(2,)]


def test_non_admin_cannot_manage_users_or_config(two_dbs: ServerProcess) -> None:
    for sql in [
        "CREATE USER 'eve'@'%' IDENTIFIED BY 'x'",
        "DROP USER 'root'@'%'",
        "ADMIN SET FRONTEND CONFIG ('lance_index_job_dispatcher_paused' = 'true')",
        "SHOW ALL GRANTS",
        "SHOW AUDIT",
    ]:
        assert error_of(two_dbs, sql, "bob", "pw")[0] == 1227, sql
    assert two_dbs.query("ADMIN SHOW FRONTEND CONFIG LIKE '%paused'")[0][1] == "false"


def test_unmodelled_statements_are_refused_for_everyone(two_dbs: ServerProcess) -> None:
    """Fail closed: a statement kind drydock does not model runs for nobody (ADMIN included)."""
    two_dbs.query("GRANT ALL ON db1.* TO 'bob'@'%'")
    assert error_of(two_dbs, "PRAGMA database_list", "bob", "pw")[0] == 1235
    with pytest.raises(pymysql.err.MySQLError) as info:
        two_dbs.query("PRAGMA database_list")
    assert info.value.args[0] == 1235


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM read_text('/etc/hostname')",
        "COPY (SELECT 1) TO '/tmp/drydock-escape.csv'",
        "SELECT * FROM read_csv('/etc/passwd')",
    ],
)
def test_sql_cannot_touch_server_files_even_as_root(server: ServerProcess, sql: str) -> None:
    """Refused before DuckDB sees it: file-reading table functions are not allowed (1142) and
    COPY is no statement drydock runs (1235); the DuckDB sandbox stays as a second wall."""
    code, message = error_of(server, sql)
    assert code in (1142, 1235), message
    assert "/etc" not in message and "/tmp" not in message
