"""A denied statement names the object it was denied on, as MySQL does (1044 / 1142).

Red team finding: ``CREATE SCHEMA d2x`` answered ``Access denied ... to database ''``: sqlglot files
a SCHEMA's name in another slot than a DATABASE's, and the check read the empty one — so it also
checked the privilege on database '' instead of on d2x (engine/statements/sql.py database_named).
"""

from __future__ import annotations

from collections.abc import Iterator

import pymysql
import pytest
from sqlglot import exp, parse_one

from drydock.engine.session import SessionContext
from drydock.engine.statements.sql import database_named
from tests.conftest import ServerProcess
from tests.support.lance_fixtures import local_warehouse
from tests.support.procedures_lance_support import make_table

USER = "denied_u"
DB_DENIED = "Access denied for user '{user}'@'127.0.0.1' to database '{db}'"
TABLE_DENIED = "{priv} command denied to user '{user}'@'127.0.0.1' for table '{table}'"

# (statement, code, the message with {user}); {lake} is an external Lance catalog, the user may
# read its table (SELECT) but not alter it.
DENIED: list[tuple[str, int, str]] = [
    ("CREATE DATABASE d2x", 1044, DB_DENIED.format(user="{user}", db="d2x")),
    ("CREATE SCHEMA d2x", 1044, DB_DENIED.format(user="{user}", db="d2x")),
    ("CREATE SCHEMA IF NOT EXISTS d2x", 1044, DB_DENIED.format(user="{user}", db="d2x")),
    ("CREATE DATABASE internal.d2x", 1044, DB_DENIED.format(user="{user}", db="d2x")),
    ("CREATE SCHEMA internal.d2x", 1044, DB_DENIED.format(user="{user}", db="d2x")),
    ("CREATE SCHEMA `d.x`", 1044, DB_DENIED.format(user="{user}", db="d.x")),
    ("DROP DATABASE pdb", 1044, DB_DENIED.format(user="{user}", db="pdb")),
    ("DROP SCHEMA pdb", 1044, DB_DENIED.format(user="{user}", db="pdb")),
    ("DROP SCHEMA IF EXISTS pdb", 1044, DB_DENIED.format(user="{user}", db="pdb")),
    ("USE pdb", 1044, DB_DENIED.format(user="{user}", db="pdb")),
    ("SHOW TABLES FROM pdb", 1044, DB_DENIED.format(user="{user}", db="pdb")),
    ("SHOW TABLE STATUS FROM pdb", 1044, DB_DENIED.format(user="{user}", db="pdb")),
    (
        "CREATE TABLE pdb.t2 (a INT)",
        1142,
        TABLE_DENIED.format(priv="CREATE", user="{user}", table="pdb.t2"),
    ),
    (
        "CREATE TABLE pdb.t4 AS SELECT 1",
        1142,
        TABLE_DENIED.format(priv="CREATE", user="{user}", table="pdb.t4"),
    ),
    (
        "CREATE VIEW pdb.v AS SELECT 1",
        1142,
        TABLE_DENIED.format(priv="CREATE", user="{user}", table="pdb.v"),
    ),
    ("DROP TABLE pdb.t", 1142, TABLE_DENIED.format(priv="DROP", user="{user}", table="pdb.t")),
    ("SELECT * FROM pdb.t", 1142, TABLE_DENIED.format(priv="SELECT", user="{user}", table="pdb.t")),
    (
        "INSERT INTO pdb.t VALUES (1)",
        1142,
        TABLE_DENIED.format(priv="LOAD", user="{user}", table="pdb.t"),
    ),
    (
        "UPDATE pdb.t SET a = 1",
        1142,
        TABLE_DENIED.format(priv="LOAD", user="{user}", table="pdb.t"),
    ),
    ("DELETE FROM pdb.t", 1142, TABLE_DENIED.format(priv="LOAD", user="{user}", table="pdb.t")),
    ("TRUNCATE TABLE pdb.t", 1142, TABLE_DENIED.format(priv="LOAD", user="{user}", table="pdb.t")),
    (
        "ALTER TABLE pdb.t ADD COLUMN b INT",
        1142,
        TABLE_DENIED.format(priv="ALTER", user="{user}", table="pdb.t"),
    ),
    (
        "RENAME TABLE pdb.t TO pdb.t3",
        1142,
        TABLE_DENIED.format(priv="DROP", user="{user}", table="pdb.t"),
    ),
    (
        "CREATE INDEX i ON pdb.t (a)",
        1142,
        TABLE_DENIED.format(priv="ALTER", user="{user}", table="pdb.t"),
    ),
    (
        "DROP INDEX i ON pdb.t",
        1142,
        TABLE_DENIED.format(priv="ALTER", user="{user}", table="pdb.t"),
    ),
    (
        "SHOW CREATE TABLE pdb.t",
        1142,
        TABLE_DENIED.format(priv="SHOW", user="{user}", table="pdb.t"),
    ),
    (
        "CALL {lake}.sys.compact(table => '{table}')",
        1142,
        TABLE_DENIED.format(priv="ALTER", user="{user}", table="{table}"),
    ),
    (
        "CREATE INDEX ix ON {lake}.{table} (id) USING BTREE",
        1142,
        TABLE_DENIED.format(priv="ALTER", user="{user}", table="{table}"),
    ),
]


@pytest.fixture(scope="module")
def setup(
    shared_server: ServerProcess, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, str]]:
    t = make_table(
        shared_server, local_warehouse(tmp_path_factory.mktemp("denied") / "wh"), versions=1
    )
    shared_server.query("CREATE DATABASE pdb")
    shared_server.query("CREATE TABLE pdb.t (a INT)")
    shared_server.query(f"CREATE USER '{USER}'@'%' IDENTIFIED BY 'pw'")
    shared_server.query(f"GRANT SELECT_PRIV ON {t.catalog}.{t.db}.{t.name} TO '{USER}'@'%'")
    yield {"user": USER, "lake": t.catalog, "table": t.arg}


@pytest.mark.parametrize(("sql", "code", "message"), DENIED, ids=[d[0] for d in DENIED])
def test_a_denied_statement_names_its_object(
    shared_server: ServerProcess, setup: dict[str, str], sql: str, code: int, message: str
) -> None:
    with shared_server.connect(user=USER, password="pw") as conn, conn.cursor() as cur:
        with pytest.raises(pymysql.err.MySQLError) as info:
            cur.execute(sql.format(**setup))
    assert info.value.args == (code, message.format(**setup))


def test_a_schema_grant_admits_create_schema(
    shared_server: ServerProcess, setup: dict[str, str]
) -> None:
    """The privilege is checked on the database named (it was checked on database '')."""
    user = "schema_grantee"
    shared_server.query(f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw'")
    shared_server.query(f"GRANT CREATE_PRIV, DROP_PRIV ON internal.s_ok.* TO '{user}'@'%'")
    with shared_server.connect(user=user, password="pw") as conn, conn.cursor() as cur:
        cur.execute("CREATE SCHEMA s_ok")
        cur.execute("DROP SCHEMA s_ok")
        with pytest.raises(pymysql.err.MySQLError) as info:
            cur.execute("CREATE SCHEMA s_other")
    assert info.value.args[0] == 1044 and "'s_other'" in info.value.args[1]


@pytest.mark.parametrize(
    ("sql", "named"),
    [
        ("CREATE DATABASE d2x", ("internal", "d2x")),
        ("CREATE SCHEMA d2x", ("internal", "d2x")),
        ("CREATE DATABASE lc.d2x", ("lc", "d2x")),
        ("CREATE SCHEMA lc.d2x", ("lc", "d2x")),
        ("CREATE SCHEMA INTERNAL.d2x", ("internal", "d2x")),
        ("DROP SCHEMA IF EXISTS `a.b`", ("internal", "a.b")),
    ],
)
def test_database_named(sql: str, named: tuple[str, str]) -> None:
    expression = parse_one(sql, read="mysql")
    node = expression.this if isinstance(expression, exp.Create) else expression.args["tables"][0]
    assert database_named(node, SessionContext(user="u", host="h", connection_id=1)) == named


def test_the_audit_names_the_schema(shared_server: ServerProcess) -> None:
    """The audit record's object of CREATE / DROP SCHEMA was ``internal.`` (the same empty slot)."""
    for sql in ("CREATE SCHEMA aud_s", "DROP SCHEMA aud_s"):
        shared_server.query(sql)
        with shared_server.connect() as conn, conn.cursor(pymysql.cursors.DictCursor) as cur:
            cur.execute("SHOW AUDIT LIMIT 1")
            [row] = cur.fetchall()
        assert (row["Statement"], row["Object"]) == (sql, "internal.aud_s")
