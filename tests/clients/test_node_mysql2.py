"""Node's mysql2 driver (tests/clients/programs/node_mysql2.js) against drydock: server-side
prepared statements (``execute``: binary protocol) with int / string / decimal / date / NULL
parameters, ``SELECT ? + 1``, result values and column types, an UPDATE's ``changedRows`` (read
from the OK packet's info string) and ``affectedRows`` of INSERT … ON DUPLICATE KEY UPDATE.

mysql2 is installed with npm into the client cache (tests/clients/polyglot.py CACHE) on first
use; without node, npm or the npm registry the module skips and says which.
mysql2 connects with CLIENT_FOUND_ROWS (its default flags), so affectedRows counts rows matched.
"""

from __future__ import annotations

import subprocess

import pytest

from tests.clients import polyglot
from tests.conftest import ServerProcess

MYSQL2 = "mysql2@3"
NPM_TIMEOUT_SECONDS = 120
# without a registry, fail in seconds rather than retrying with backoff for over a minute
NPM_OPTIONS = ["--no-audit", "--no-fund", "--fetch-retries=0", "--fetch-timeout=30000"]
HINT = "apt-get install nodejs npm"


@pytest.fixture(scope="module")
def node_modules() -> str:
    polyglot.require("node", HINT)
    npm = polyglot.require("npm", HINT)
    prefix = polyglot.CACHE / "node"
    if not (prefix / "node_modules" / "mysql2" / "package.json").exists():
        prefix.mkdir(parents=True, exist_ok=True)
        try:
            result = subprocess.run(
                [npm, "install", "--prefix", str(prefix), *NPM_OPTIONS, MYSQL2],
                capture_output=True,
                text=True,
                timeout=NPM_TIMEOUT_SECONDS,
            )
        except subprocess.TimeoutExpired:
            pytest.skip(f"npm install {MYSQL2} took over {NPM_TIMEOUT_SECONDS}s (no network?)")
        if result.returncode != 0:
            why = " ".join(result.stderr.split("\n")[:2])[:400]
            pytest.skip(f"npm install {MYSQL2} failed (no network?): {why}")
    return str(prefix / "node_modules")


@pytest.fixture(scope="module")
def output(node_modules: str, shared_server: ServerProcess) -> polyglot.Output:
    return polyglot.run(
        ["node", str(polyglot.PROGRAMS / "node_mysql2.js")],
        shared_server,
        polyglot.fresh_database("node"),
        env={"NODE_PATH": node_modules, "TZ": "UTC"},
    )


def test_setup_and_prepared_inserts(output: polyglot.Output) -> None:
    """USE's OK carries the new schema as a session-state change (CLIENT_SESSION_TRACK)."""
    database = output.database
    assert output.check("setup") == {"schema": ("string", database), "ok": ("number", "1")}
    assert output.check("execute_insert") == {"affected": ("number", "2")}


def test_prepared_select_values_and_types(output: polyglot.Output) -> None:
    assert output.check("execute_select") == {
        "0.id": ("number", "1"),
        "0.name": ("string", "alice"),
        "0.amount": ("string", "12.34"),  # mysql2 reads DECIMAL as a string (decimalNumbers off)
        "0.d": ("Date", "2024-05-06T00:00:00.000Z"),
        "0.ts": ("Date", "2024-05-06T07:08:09.000Z"),
        "0.note": ("null", ""),
        "1.id": ("number", "2"),
        "1.name": ("string", "it's"),
        "1.amount": ("string", "-0.50"),
        "1.d": ("Date", "1999-12-31T00:00:00.000Z"),
        "1.ts": ("Date", "2000-01-01T00:00:00.000Z"),
        "1.note": ("string", "x"),
    }


def test_parameter_plus_one_is_a_number(output: polyglot.Output) -> None:
    """mysql2 sends 42 as a DOUBLE parameter; the sum comes back as the number 43."""
    assert output.check("select_plus_one") == {"v": ("number", "43")}


def test_column_types(output: polyglot.Output) -> None:
    # MYSQL_TYPE_LONG, VAR_STRING, NEWDECIMAL, DATE, DATETIME
    assert output.check("column_types") == {
        "id": ("number", "3"),
        "name": ("number", "253"),
        "amount": ("number", "246"),
        "d": ("number", "10"),
        "ts": ("number", "12"),
    }


def test_text_query_values(output: polyglot.Output) -> None:
    assert output.check("text_query") == {
        "id": ("number", "2"),
        "amount": ("string", "-0.50"),
        "d": ("Date", "1999-12-31T00:00:00.000Z"),
    }


def test_update_changed_rows_from_info_string(output: polyglot.Output) -> None:
    """Row 2 already has note 'x': 2 matched, 1 changed. The info string is read whole only when
    the handshake offers CLIENT_SESSION_TRACK (before that, mysql2 read the length byte too)."""
    assert output.check("update") == {
        "affectedRows": ("number", "2"),
        "changedRows": ("number", "1"),
        "info": ("string", "Rows matched: 2  Changed: 1  Warnings: 0"),
    }


def test_on_duplicate_key_update_affected_rows(output: polyglot.Output) -> None:
    items = output.check("on_duplicate")
    assert (items["inserted"], items["updated"], items["name"]) == (
        ("number", "1"),
        ("number", "2"),
        ("string", "carl"),
    )


def test_on_duplicate_key_update_of_an_unchanged_row(output: polyglot.Output) -> None:
    assert output.check("on_duplicate")["unchanged"] == ("number", "1")
