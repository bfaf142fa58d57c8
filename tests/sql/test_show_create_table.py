"""SHOW CREATE TABLE and the key tables of information_schema, in MySQL's shape (what ORMs and
JDBC's getPrimaryKeys/getIndexInfo read), filtered by what the user may see."""

from __future__ import annotations

from collections.abc import Iterator

import pymysql
import pytest

from tests.conftest import ServerProcess

EXPECTED = """CREATE TABLE `orders` (
  `id` int NOT NULL,
  `code` varchar(20) DEFAULT NULL,
  `price` decimal(10,2) DEFAULT '0.00',
  `paid` tinyint(1) DEFAULT '0',
  `note` varchar(50) NOT NULL,
  PRIMARY KEY (`id`),
  UNIQUE KEY `code` (`code`)
) ENGINE=DuckDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci"""


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(data_dir=tmp_path_factory.mktemp("sct") / "data").start()
    for sql in (
        "CREATE DATABASE shop",
        "CREATE TABLE shop.orders (id INT PRIMARY KEY, code VARCHAR(20) UNIQUE, "
        "price DECIMAL(10,2) DEFAULT 0, paid BOOLEAN DEFAULT false, note VARCHAR(50) NOT NULL)",
        "CREATE TABLE shop.hidden (k INT PRIMARY KEY)",
        "CREATE USER 'clerk'@'%' IDENTIFIED BY 'pw'",
        "GRANT SELECT_PRIV ON internal.shop.orders TO 'clerk'@'%'",
    ):
        proc.query(sql)
    yield proc
    proc.stop()


def test_show_create_table_is_mysql_shaped(srv: ServerProcess) -> None:
    assert srv.query("SHOW CREATE TABLE shop.orders") == [("orders", EXPECTED)]


def test_key_tables_name_the_primary_and_unique_keys(srv: ServerProcess) -> None:
    rows = srv.query(
        "SELECT constraint_name, constraint_type FROM information_schema.table_constraints "
        "WHERE table_schema = 'shop' AND table_name = 'orders' ORDER BY 1"
    )
    # ORDER BY compares without case, as MySQL's information_schema collation does
    assert rows == [("code", "UNIQUE"), ("PRIMARY", "PRIMARY KEY")]
    rows = srv.query(
        "SELECT column_name, ordinal_position FROM information_schema.key_column_usage "
        "WHERE table_schema = 'shop' AND table_name = 'orders' AND constraint_name = 'PRIMARY'"
    )
    assert rows == [("id", 1)]
    keys = dict(
        srv.query(
            "SELECT column_name, column_key FROM information_schema.columns "
            "WHERE table_schema = 'shop' AND table_name = 'orders'"
        )
    )
    assert keys["id"] == "PRI" and keys["code"] == "UNI" and keys["price"] == ""


def test_key_tables_show_only_visible_tables(srv: ServerProcess) -> None:
    with srv.connect(user="clerk", password="pw") as conn, conn.cursor() as cur:
        for view in ("table_constraints", "key_column_usage", "statistics"):
            cur.execute(
                f"SELECT DISTINCT table_name FROM information_schema.{view} WHERE table_schema = "
                f"'shop'"
            )
            assert cur.fetchall() == (("orders",),), view
        with pytest.raises(pymysql.err.MySQLError) as info:
            cur.execute("SHOW CREATE TABLE shop.hidden")
        assert info.value.args[0] == 1142
