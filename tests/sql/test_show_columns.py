"""SHOW [FULL] COLUMNS / FIELDS and DESCRIBE answer as MySQL does: the table's column order, the
declared type (``decimal(10,2)``, ``varchar(…)``), the key, the default as a value, FULL's column
order, every spelling of the statement, internal and external tables, and MySQL's errors."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from drydock.engine.sql.metadata import mysql_default
from tests.conftest import ServerProcess
from tests.support.lance_fixtures import (
    Warehouse,
    create_catalog,
    error_of,
    local_warehouse,
    rows,
    vector_table,
)

FULL = ["Field", "Type", "Collation", "Null", "Key", "Default", "Extra", "Privileges", "Comment"]


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, Warehouse, str]]:
    root = tmp_path_factory.mktemp("columns")
    wh = local_warehouse(root / "wh")
    wh.write("db", "t", vector_table(10))
    server = ServerProcess(data_dir=root / "data").start()
    try:
        catalog = create_catalog(server, wh)
        for sql in (
            "CREATE DATABASE d1",
            "CREATE TABLE d1.y (a DECIMAL(10,2) NOT NULL PRIMARY KEY, b VARCHAR(20) DEFAULT "
            "'it''s', "
            "c DATETIME, d TINYINT DEFAULT 5, e TEXT, f DOUBLE)",
            "CREATE USER 'peer'@'%' IDENTIFIED BY 'pw'",
        ):
            server.query(sql)
        yield server, wh, catalog
    finally:
        server.stop()


def test_columns_come_in_table_order_with_declared_types_keys_and_defaults(
    rig: tuple[ServerProcess, Warehouse, str],
) -> None:
    server, _, _ = rig
    expected = [
        ("a", "decimal(10,2)", "NO", "PRI", None, ""),
        ("b", "varchar(20)", "YES", "", "it's", ""),
        ("c", "datetime(6)", "YES", "", None, ""),
        ("d", "tinyint", "YES", "", "5", ""),
        ("e", "varchar(65535)", "YES", "", None, ""),
        ("f", "double", "YES", "", None, ""),
    ]
    shown = rows(server, "SHOW COLUMNS FROM d1.y")
    assert [r[0] for r in shown] == ["a", "b", "c", "d", "e", "f"]
    assert [r[2:] for r in shown] == [r[2:] for r in expected]
    assert shown[0][1] == "decimal(10,2)" and shown[3][1] == "tinyint"
    assert rows(server, "DESC d1.y") == shown, "DESCRIBE is SHOW COLUMNS"
    # the declared string length, or the information schema's own when DuckDB keeps none
    [type_b] = rows(
        server,
        "SELECT column_type FROM information_schema.columns "
        "WHERE table_schema = 'd1' AND table_name = 'y' AND column_name = 'b'",
    )[0]
    assert shown[1][1] == type_b


def test_full_columns_are_in_mysqls_order(rig: tuple[ServerProcess, Warehouse, str]) -> None:
    server, _, _ = rig
    with server.connect() as conn, conn.cursor() as cur:
        cur.execute("SHOW FULL COLUMNS FROM y FROM d1")
        assert [d[0] for d in cur.description] == FULL
        full = list(cur.fetchall())
    short = rows(server, "SHOW COLUMNS FROM d1.y")
    assert [(r[0], r[1], r[3], r[4], r[5], r[6]) for r in full] == short
    assert full[1][2] == "utf8mb4_0900_ai_ci" and full[0][2] is None  # strings have a collation
    # MySQL 8.0 lists what a user holding every privilege sees (engine/sql/info_schema.py)
    assert {r[7] for r in full} == {"select,insert,update,references"}


@pytest.mark.parametrize(
    "sql",
    [
        "SHOW FIELDS FROM d1.y",
        "SHOW COLUMNS IN y IN d1",
        "show extended columns from y from d1",
        "SHOW FULL FIELDS FROM `y` IN `d1`",
        "SHOW COLUMNS FROM y FROM d1 LIKE '_'",
    ],
)
def test_every_spelling_answers(rig: tuple[ServerProcess, Warehouse, str], sql: str) -> None:
    server, _, _ = rig
    assert [r[0] for r in rows(server, sql)] == ["a", "b", "c", "d", "e", "f"]


def test_like_filters_by_field(rig: tuple[ServerProcess, Warehouse, str]) -> None:
    server, _, _ = rig
    assert [
        r[0] for r in rows(server, "SHOW COLUMNS FROM d1.y LIKE '[a-c]'")
    ] == []  # LIKE, not a regex
    assert [r[0] for r in rows(server, "SHOW COLUMNS FROM d1.y LIKE 'A'")] == [
        "a"
    ]  # case-insensitive
    assert [r[0] for r in rows(server, "SHOW COLUMNS FROM d1.y LIKE '%'")] == [
        "a",
        "b",
        "c",
        "d",
        "e",
        "f",
    ]


def test_external_tables_by_every_name(rig: tuple[ServerProcess, Warehouse, str]) -> None:
    server, wh, catalog = rig
    described = rows(server, f"DESC {catalog}.db.t")
    assert [r[0] for r in described] == wh.dataset("db", "t").schema.names  # the dataset's order
    for sql in (
        f"SHOW COLUMNS FROM {catalog}.db.t",
        f"SHOW COLUMNS FROM t FROM {catalog}.db",
        f"SHOW COLUMNS FROM t FROM `{catalog}.db`",
        f"SHOW COLUMNS FROM `{catalog}.db`.t",
    ):
        assert rows(server, sql) == described, sql


def test_explain_of_a_table_is_describe(rig: tuple[ServerProcess, Warehouse, str]) -> None:
    """MySQL: EXPLAIN t is DESCRIBE t; it reaches the passthrough parser but answers the same
    rows."""
    server, _, catalog = rig
    assert rows(server, "EXPLAIN d1.y") == rows(server, "SHOW COLUMNS FROM d1.y")
    assert rows(server, f"EXPLAIN {catalog}.db.t") == rows(server, f"DESC {catalog}.db.t")
    assert error_of(server, "EXPLAIN d1.nope")[0] == 1146


def test_errors_are_mysqls(rig: tuple[ServerProcess, Warehouse, str]) -> None:
    server, _, catalog = rig
    assert error_of(server, "SHOW COLUMNS FROM d1.nope")[0] == 1146
    assert error_of(server, f"SHOW COLUMNS FROM {catalog}.db.nope")[0] == 1146
    assert error_of(server, "SHOW COLUMNS FROM y")[0] == 1046  # no database selected
    assert error_of(server, "SHOW COLUMNS FROM")[0] == 1064
    # a table the user may not see answers like a missing one: no column of it is disclosed
    for sql in ("SHOW COLUMNS FROM d1.y", "DESC d1.y", f"SHOW FULL COLUMNS FROM {catalog}.db.t"):
        code, message = error_of(server, sql, user="peer", password="pw")
        assert code in (1142, 1146) and "decimal" not in message, sql


def test_com_field_list_answers_from_show_columns(
    rig: tuple[ServerProcess, Warehouse, str],
) -> None:
    """The mysql CLI's auto-rehash sends COM_FIELD_LIST for each table; it is answered by SHOW
    COLUMNS."""
    from pymysql.constants import COMMAND
    from pymysql.protocol import FieldDescriptorPacket

    server, _, _ = rig
    with server.connect() as conn:
        conn.select_db("d1")
        # no public API for it
        conn._execute_command(COMMAND.COM_FIELD_LIST, "y\x00")  # noqa: SLF001
        names = []
        while not (packet := conn._read_packet()).is_eof_packet():  # noqa: SLF001
            names.append(FieldDescriptorPacket(packet.get_all_data(), conn.encoding).name)
    assert names == ["a", "b", "c", "d", "e", "f"]


@pytest.mark.parametrize(
    ("duck", "mysql"),
    [
        ("'x'", "x"),
        ("'it''s'", "it's"),
        ("5", "5"),
        ("-1.5", "-1.5"),
        ("NULL", None),
        (None, None),
        ("current_timestamp", "CURRENT_TIMESTAMP"),
        ("now()", "CURRENT_TIMESTAMP"),
        ("true", "1"),
        ("false", "0"),
        ("'a' || 'b'", "'a' || 'b'"),
        ("''", ""),
    ],
)
def test_defaults_are_shown_as_values(duck: str | None, mysql: str | None) -> None:
    assert mysql_default(duck) == mysql
