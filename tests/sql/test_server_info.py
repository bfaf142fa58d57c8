"""What GUI clients ask a server about itself (SHOW ENGINES/CHARSET/COLLATION/PLUGINS/PROCESSLIST/
TABLE STATUS/PROCEDURE STATUS, SHOW GRANTS FOR CURRENT_USER(), COM_STATISTICS), with MySQL's
columns; PROCESSLIST shows others' connections to ADMIN only."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator

import pytest

from tests.support import mysql_raw
from tests.conftest import ServerProcess


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(data_dir=tmp_path_factory.mktemp("info") / "data").start()
    for sql in (
        "CREATE DATABASE shop",
        "CREATE TABLE shop.orders (id INT)",
        "CREATE TABLE shop.secret (id INT)",
        "CREATE USER 'clerk'@'%' IDENTIFIED BY 'pw'",
        "GRANT SELECT_PRIV ON internal.shop.orders TO 'clerk'@'%'",
    ):
        proc.query(sql)
    yield proc
    proc.stop()


def columns_and_rows(
    srv: ServerProcess, sql: str, user: str = "root"
) -> tuple[list[str], list[tuple]]:
    with (
        srv.connect(user=user, password="" if user == "root" else "pw") as conn,
        conn.cursor() as cur,
    ):
        cur.execute(sql)
        return [d[0] for d in cur.description], list(cur.fetchall())


def test_engines_plugins_charsets_collations(srv: ServerProcess) -> None:
    columns, rows = columns_and_rows(srv, "SHOW ENGINES")
    assert columns == ["Engine", "Support", "Comment", "Transactions", "XA", "Savepoints"]
    assert ("DuckDB", "DEFAULT") in [r[:2] for r in rows]
    columns, rows = columns_and_rows(srv, "SHOW CHARACTER SET LIKE 'utf8mb4'")
    assert columns == ["Charset", "Description", "Default collation", "Maxlen"]
    assert [r[0] for r in rows] == ["utf8mb4"] and rows[0][3] == 4
    columns, rows = columns_and_rows(srv, "SHOW COLLATION LIKE 'utf8mb4\\_bin'")
    assert columns[:3] == ["Collation", "Charset", "Id"] and rows == [
        ("utf8mb4_bin", "utf8mb4", 46, "", "Yes", 0, "PAD SPACE")
    ]
    assert columns_and_rows(srv, "SHOW PLUGINS")[0] == [
        "Name",
        "Status",
        "Type",
        "Library",
        "License",
    ]


def test_table_status_lists_what_the_user_may_see(srv: ServerProcess) -> None:
    columns, rows = columns_and_rows(srv, "SHOW TABLE STATUS FROM shop")
    assert columns[:3] == ["Name", "Engine", "Version"] and [r[0] for r in rows] == [
        "orders",
        "secret",
    ]
    assert [r[0] for r in columns_and_rows(srv, "SHOW TABLE STATUS FROM shop", "clerk")[1]] == [
        "orders"
    ]
    assert [r[0] for r in columns_and_rows(srv, "SHOW TABLE STATUS FROM shop LIKE 'sec%'")[1]] == [
        "secret"
    ]


def test_routine_status_has_mysql_columns_and_no_rows(srv: ServerProcess) -> None:
    for sql in ("SHOW PROCEDURE STATUS WHERE Db = 'shop'", "SHOW FUNCTION STATUS"):
        columns, rows = columns_and_rows(srv, sql)
        assert columns[:3] == ["Db", "Name", "Type"] and rows == []


def test_grants_for_current_user(srv: ServerProcess) -> None:
    rows = columns_and_rows(srv, "SHOW GRANTS FOR CURRENT_USER()", "clerk")[1]
    assert any("orders" in str(r) for r in rows)


def test_processlist_shows_others_to_admin_only(srv: ServerProcess) -> None:
    with srv.connect(user="clerk", password="pw") as clerk, clerk.cursor() as cur:
        cur.execute("SHOW FULL PROCESSLIST")
        own = cur.fetchall()
        assert {r[1] for r in own} == {"clerk"}
        columns, rows = columns_and_rows(srv, "SHOW PROCESSLIST")
        assert columns == ["Id", "User", "Host", "db", "Command", "Time", "State", "Info"]
        assert {"root", "clerk"} <= {r[1] for r in rows}
        assert any(r[4] == "Query" for r in rows)  # root's own SHOW PROCESSLIST is running


def test_com_statistics_answers_a_status_line(srv: ServerProcess) -> None:
    with mysql_raw.connect(srv.host, srv.port) as client:
        client.command(0x09)
        line = client.read_packet().decode()
    assert line.startswith("Uptime: ") and "Threads: " in line and "Questions: " in line
    admin = shutil.which("mariadb-admin") or shutil.which("mysqladmin")
    if admin is None:
        print("mariadb-admin is missing (apt-get install mariadb-client): CLI check skipped")
        return
    out = subprocess.run(
        [admin, "-h", srv.host, "-P", str(srv.port), "-uroot", "status"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert out.returncode == 0 and out.stdout.startswith("Uptime:"), out.stderr
