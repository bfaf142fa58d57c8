"""mariadb-dump and the mariadb CLI as a user moves data with them (issue 25): a database dumped
from drydock loads back into a new drydock database with the same rows, and a dump MariaDB itself
wrote (a real MariaDB started by the test, tests/support/mariadb.py) loads into drydock.

The tables hold the common types drydock keeps today (INT, BIGINT, DECIMAL, DOUBLE, VARCHAR,
TEXT, DATE, DATETIME, BOOLEAN/TINYINT(1)), NULLs, quotes, backslashes, newlines and non-ASCII
text. Types whose declared form drydock does not keep yet (ENUM, SET, TIME beyond 24 h, YEAR,
BIT, UNSIGNED ranges) are left out until the data dictionary keeps them. ``--single-transaction``
reads every table in one transaction and sets a SAVEPOINT per table, rolled back to after it
(engine/sql/savepoints.py).
"""

from __future__ import annotations

import shutil
import subprocess
import uuid
from collections.abc import Iterator
from typing import Any

import pymysql
import pytest

from tests.conftest import ServerProcess
from tests.support.mariadb import mariadb_server

TIMEOUT = 60

TABLES = (
    "CREATE TABLE items (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, name VARCHAR(40) "
    "CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci, price DECIMAL(10,2), qty BIGINT, "
    "ratio DOUBLE, made DATE, seen DATETIME, note TEXT, flag TINYINT(1), KEY idx_name (name)) "
    "ENGINE=InnoDB DEFAULT CHARSET=latin1",
    "CREATE TABLE other (k VARCHAR(10) PRIMARY KEY, v INT UNIQUE) DEFAULT CHARSET=utf8mb4",
    "CREATE TABLE empty_one (id INT PRIMARY KEY)",
)
ROWS = (
    "INSERT INTO items VALUES "
    "(1, 'a''b', 1.50, 10, 0.25, '2024-01-02', '2024-01-02 03:04:05', 'x\\\\y', 1), "
    "(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), "
    "(3, 'ü€ \"q\"', -2.00, -5, -1.5, '1999-12-31', '2000-01-01 00:00:00', 'line\\nbreak', 0)",
    "INSERT INTO other VALUES ('a', 1), ('b', NULL), ('c', 3)",
)
SELECTS = {
    "items": "SELECT id, name, price, qty, ratio, made, seen, note, flag FROM items ORDER BY id",
    "other": "SELECT k, v FROM other ORDER BY k",
    "empty_one": "SELECT id FROM empty_one",
}


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed (.ci/run installs mariadb-client)")
    return path


def _run(tool: str, port: int, *args: str, stdin: str | None = None) -> str:
    done = subprocess.run(
        [_tool(tool), "-h", "127.0.0.1", "-P", str(port), "-uroot", *args],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
        timeout=TIMEOUT,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _fill(conn: pymysql.connections.Connection) -> None:
    with conn.cursor() as cur:
        for sql in (*TABLES, *ROWS):
            cur.execute(sql)


def _contents(conn: pymysql.connections.Connection) -> dict[str, list[tuple[Any, ...]]]:
    out: dict[str, list[tuple[Any, ...]]] = {}
    with conn.cursor() as cur:
        for table, sql in SELECTS.items():
            cur.execute(sql)
            out[table] = [
                tuple(float(v) if isinstance(v, float) else v for v in row)
                for row in cur.fetchall()
            ]
    return out


@pytest.fixture
def names(shared_server: ServerProcess) -> Iterator[tuple[str, str]]:
    source, target = (f"dump_{uuid.uuid4().hex[:8]}" for _ in range(2))
    yield source, target
    for name in (source, target):
        shared_server.query(f"DROP DATABASE IF EXISTS {name}")


@pytest.mark.parametrize("options", [[], ["--single-transaction"]], ids=["plain", "single"])
def test_a_drydock_dump_loads_back_with_the_same_rows(
    shared_server: ServerProcess, names: tuple[str, str], options: list[str]
) -> None:
    source, target = names
    shared_server.query(f"CREATE DATABASE {source}")
    with shared_server.connect(database=source) as conn:
        _fill(conn)
        expected = _contents(conn)
    dump = _run("mariadb-dump", shared_server.port, *options, source)
    assert "INSERT INTO `items` VALUES" in dump and "LOCK TABLES `items` WRITE" in dump
    shared_server.query(f"CREATE DATABASE {target}")
    _run("mariadb", shared_server.port, target, stdin=dump)
    with shared_server.connect(database=target) as conn:
        assert _contents(conn) == expected


def test_a_dump_mariadb_wrote_loads_into_drydock(
    shared_server: ServerProcess, names: tuple[str, str]
) -> None:
    _tool("mariadb-dump")
    target = names[1]
    with mariadb_server() as (host, port):
        conn = pymysql.connect(host=host, port=port, user="root", autocommit=True)
        with conn, conn.cursor() as cur:
            cur.execute("CREATE DATABASE src")
            cur.execute("USE src")
            _fill(conn)
            expected = _contents(conn)
        dump = _run("mariadb-dump", port, "src")
    assert "ENGINE=InnoDB" in dump and "DISABLE KEYS" in dump and "CHARACTER SET utf8mb4" in dump
    shared_server.query(f"CREATE DATABASE {target}")
    _run("mariadb", shared_server.port, target, stdin=dump)
    with shared_server.connect(database=target) as conn:
        assert _contents(conn) == expected
