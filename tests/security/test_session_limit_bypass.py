"""sql_select_limit / sql_safe_updates bypasses found by the red-team pass (both broke before the
fix in engine/sql/session_limits.py): a parenthesized top-level SELECT ignored sql_select_limit, and
any WHERE at all — ``WHERE 1=1``, ``WHERE id = id``, ``… OR true`` — passed sql_safe_updates."""

from __future__ import annotations

from collections.abc import Iterator

import pymysql
import pytest
import sqlglot

from drydock.engine.sql import session_limits
from drydock.engine.errors import DrydockError
from drydock.engine.session import SessionContext
from tests.conftest import ServerProcess

TAUTOLOGIES = [
    "DELETE FROM k WHERE 1=1",
    "DELETE FROM k WHERE true",
    "UPDATE k SET v = 0 WHERE id = id",
    "UPDATE k SET v = 0 WHERE id > 0 OR true",
    "DELETE FROM k WHERE id + 0 = id",
    "DELETE FROM k WHERE (1 = 1) AND (2 = 2)",
    "DELETE FROM k WHERE NOT false",
    "DELETE FROM k WHERE EXISTS (SELECT 1)",
    "UPDATE k SET v = 1 WHERE v = v OR id = 1",
]
RESTRICTING = [
    "DELETE FROM k WHERE id = 1",
    "DELETE FROM k WHERE 2 = id",
    "DELETE FROM k WHERE id IN (1, 2)",
    "UPDATE k SET v = 0 WHERE id BETWEEN 1 AND 2",
    "UPDATE k SET v = 0 WHERE id = 1 OR id = 2",
    "DELETE FROM k WHERE id = (SELECT max(id) FROM k)",
    "DELETE FROM k WHERE v IS NULL AND 1 = 1",
    "DELETE FROM k WHERE true LIMIT 1",
]


def _ctx(**variables: object) -> SessionContext:
    class Vars:
        def get(self, name: str) -> object:
            return variables.get(name)

    return SessionContext(
        user="u",
        host="h",
        connection_id=1,
        query=None,
        variables=Vars(),  # type: ignore[arg-type]
        database="d",
    )


@pytest.mark.parametrize("sql", TAUTOLOGIES)
def test_safe_updates_refuse_a_where_that_restricts_nothing(sql: str) -> None:
    with pytest.raises(DrydockError) as info:
        session_limits.apply(sqlglot.parse_one(sql, read="mysql"), _ctx(sql_safe_updates=True))
    assert info.value.code == 1175


@pytest.mark.parametrize("sql", RESTRICTING)
def test_safe_updates_pass_a_where_that_selects_rows_by_a_column(sql: str) -> None:
    session_limits.apply(sqlglot.parse_one(sql, read="mysql"), _ctx(sql_safe_updates=True))


@pytest.mark.parametrize(
    ("sql", "limited"),
    [
        ("(SELECT * FROM t)", "(SELECT * FROM t LIMIT 2)"),
        ("((SELECT * FROM t))", "((SELECT * FROM t LIMIT 2))"),
        ("(SELECT * FROM t LIMIT 9)", "(SELECT * FROM t LIMIT 9)"),
        ("(SELECT * FROM t) LIMIT 9", "(SELECT * FROM t) LIMIT 9"),
    ],
)
def test_select_limit_applies_inside_top_level_parentheses(sql: str, limited: str) -> None:
    expression = sqlglot.parse_one(sql, read="mysql")
    session_limits.apply(expression, _ctx(sql_select_limit=2))
    assert expression.sql(dialect="mysql") == limited


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(data_dir=tmp_path_factory.mktemp("limits") / "data").start()
    for sql in (
        "CREATE DATABASE d",
        "CREATE TABLE d.k (id INT PRIMARY KEY, v INT)",
        "INSERT INTO d.k VALUES (1, 1), (2, 2), (3, 3)",
    ):
        proc.query(sql)
    yield proc
    proc.stop()


def test_over_the_wire_neither_limit_is_bypassed(srv: ServerProcess) -> None:
    with srv.connect(database="d") as conn, conn.cursor() as cur:
        cur.execute("SET sql_select_limit = 1")
        cur.execute("(SELECT * FROM k ORDER BY id)")
        assert cur.fetchall() == ((1, 1),)
        cur.execute("SET sql_select_limit = DEFAULT")
        cur.execute("SET sql_safe_updates = 1")
        for sql in TAUTOLOGIES:
            with pytest.raises(pymysql.err.MySQLError) as info:
                cur.execute(sql.replace("FROM k", "FROM d.k").replace("UPDATE k", "UPDATE d.k"))
            assert info.value.args[0] == 1175, sql
        cur.execute("SELECT count(*) FROM k")
        assert cur.fetchall() == ((3,),)
        cur.execute("UPDATE k SET v = 9 WHERE id = 2")
        cur.execute("SELECT v FROM k WHERE id = 2")
        assert cur.fetchall() == ((9,),)
