"""ONLY_FULL_GROUP_BY with functional dependence (engine/sql/group_by_keys.py): grouping on an
internal table's PRIMARY KEY or NOT NULL UNIQUE key lets its other columns be selected, as in
MySQL 8; a column that depends on no grouped key is MySQL's 1055."""

from __future__ import annotations

import pymysql
import pytest

from tests.conftest import ServerProcess


@pytest.fixture(scope="module")
def cur(shared_server: ServerProcess):  # type: ignore[no-untyped-def]
    with shared_server.connect() as conn, conn.cursor() as cursor:
        cursor.execute("CREATE DATABASE IF NOT EXISTS gb")
        cursor.execute("USE gb")
        cursor.execute(
            "CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(20), price DECIMAL(12,2), "
            "u INT NOT NULL UNIQUE, v INT UNIQUE)"
        )
        cursor.execute("INSERT INTO t VALUES (1,'a',1.50,10,1),(2,'b',2.50,20,2),(3,'b',3.50,30,3)")
        cursor.execute("CREATE TABLE c (id INT PRIMARY KEY, t_id INT)")
        cursor.execute("INSERT INTO c VALUES (1,1),(2,1),(3,2)")
        yield cursor


@pytest.mark.parametrize(
    "sql, rows",
    [
        ("SELECT t.id, t.name FROM t GROUP BY t.id ORDER BY t.id", [(1, "a"), (2, "b"), (3, "b")]),
        (
            "SELECT id, name, COUNT(*) FROM t GROUP BY id ORDER BY price DESC",
            [(3, "b", 1), (2, "b", 1), (1, "a", 1)],
        ),
        ("SELECT u, name FROM t GROUP BY u ORDER BY 1", [(10, "a"), (20, "b"), (30, "b")]),
        ("SELECT x.id AS k, x.name FROM t x GROUP BY k ORDER BY k", [(1, "a"), (2, "b"), (3, "b")]),
        ("SELECT id, name FROM t GROUP BY 1 HAVING name = 'b' ORDER BY 1", [(2, "b"), (3, "b")]),
        # Django's annotate(Count('c')) on a model: GROUP BY the primary key, every field selected
        (
            "SELECT t.id, t.name, COUNT(c.id) FROM t LEFT JOIN c ON c.t_id = t.id "
            "GROUP BY t.id ORDER BY t.id",
            [(1, "a", 2), (2, "b", 1), (3, "b", 0)],
        ),
    ],
)
def test_columns_dependent_on_a_grouped_key(cur, sql: str, rows: list) -> None:  # type: ignore[no-untyped-def]
    cur.execute(sql)
    assert [tuple(r) for r in cur.fetchall()] == rows


@pytest.mark.parametrize(
    "sql, column",
    [
        ("SELECT name, price FROM t GROUP BY name", "price"),
        ("SELECT v, name FROM t GROUP BY v", "name"),  # UNIQUE but NULL-able: no dependence
        ("SELECT c.t_id, t.name FROM c JOIN t ON t.id = c.t_id GROUP BY c.t_id", "name"),
    ],
)
def test_a_column_dependent_on_no_grouped_key_is_1055(cur, sql: str, column: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(pymysql.MySQLError) as info:
        cur.execute(sql)
    code, message = info.value.args
    assert code == 1055, message
    assert f"nonaggregated column '{column}'" in message
    assert "Expression #2 of SELECT list" in message
