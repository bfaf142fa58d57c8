"""The mariadb CLI and mariadb-admin rows of the client matrix (libmariadb, the C client library),
one server for the module: column definitions as the C library reads them (--column-type-info),
--safe-updates connecting and refusing an unbounded DELETE, errors as MySQL prints them, the
CLI's status and mariadb-admin status/ping (COM_STATISTICS, COM_PING)."""

from __future__ import annotations

import shutil
import subprocess
import uuid
from collections.abc import Iterator

import pytest

from tests.conftest import ServerProcess

TIMEOUT = 30


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed (.ci/run installs mariadb-client)")
    return path


def _run(server: ServerProcess, tool: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [_tool(tool), "-h", server.host, "-P", str(server.port), "-uroot", *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=TIMEOUT,
    )


@pytest.fixture
def db(shared_server: ServerProcess) -> Iterator[str]:
    name = f"cli_{uuid.uuid4().hex[:10]}"
    shared_server.query(f"CREATE DATABASE {name}")
    shared_server.query(
        f"CREATE TABLE {name}.t (id INT PRIMARY KEY, name VARCHAR(20), price DECIMAL(10,2))"
    )
    shared_server.query(f"INSERT INTO {name}.t VALUES (1, 'a', 1.50), (2, 'b', 2.00)")
    yield name
    shared_server.query(f"DROP DATABASE IF EXISTS {name}")


def _field_info(output: str) -> list[dict[str, str]]:
    fields: list[dict[str, str]] = []
    for line in output.splitlines():
        if line.startswith("Field "):
            fields.append({})
        elif fields and ":" in line and not line.startswith(("+", "|")):
            key, _, value = line.partition(":")
            fields[-1][key.strip()] = value.strip()
    return fields


def test_column_definitions_as_the_c_client_reads_them(
    shared_server: ServerProcess, db: str
) -> None:
    out = _run(
        shared_server,
        "mariadb",
        "--column-type-info",
        "-t",
        db,
        "-e",
        "SELECT name AS n, price FROM t x",
    )
    assert out.returncode == 0, out.stderr
    name, price = _field_info(out.stdout)
    assert (
        name["Type"],
        name["Database"],
        name["Table"],
        name["Org_table"],
        name["Org_field"],
    ) == ("VAR_STRING", f"`{db}`", "`x`", "`t`", "`name`")
    assert price["Type"] == "NEWDECIMAL" and price["Decimals"] == "2" and "NUM" in price["Flags"]


def test_safe_updates_connects_and_refuses_an_unbounded_delete(
    shared_server: ServerProcess, db: str
) -> None:
    out = _run(
        shared_server,
        "mariadb",
        "--safe-updates",
        "-N",
        db,
        "-e",
        "SELECT @@sql_safe_updates, @@sql_select_limit; DELETE FROM t",
    )
    assert out.stdout.split() == ["1", "1000"], out.stderr
    assert "ERROR 1175 (HY000)" in out.stderr and "safe update mode" in out.stderr
    assert shared_server.query(f"SELECT count(*) FROM {db}.t") == [(2,)]


def test_errors_print_mysqls_code_sqlstate_and_wording(
    shared_server: ServerProcess, db: str
) -> None:
    out = _run(shared_server, "mariadb", db, "-e", "INSERT INTO t VALUES (1, 'dup', 0)")
    assert out.returncode == 1
    assert "ERROR 1062 (23000) at line 1: Duplicate entry '1' for key 't.PRIMARY'" in out.stderr


def test_cli_status_and_mariadb_admin_status_and_ping(shared_server: ServerProcess) -> None:
    status = _run(shared_server, "mariadb", "-e", "status")
    assert status.returncode == 0 and "Uptime:" in status.stdout and "Threads:" in status.stdout, (
        status.stderr
    )
    admin = _run(shared_server, "mariadb-admin", "status")
    assert admin.returncode == 0 and admin.stdout.startswith("Uptime: "), admin.stderr
    ping = _run(shared_server, "mariadb-admin", "ping")
    assert ping.returncode == 0 and "mysqld is alive" in ping.stdout, ping.stderr
