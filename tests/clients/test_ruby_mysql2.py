"""Ruby's mysql2 gem (tests/clients/programs/ruby_mysql2.rb) against drydock: ``cast_booleans``
over a TINYINT(1) column, a prepared statement (binary protocol) and the Ruby classes of result
values (Integer, String, BigDecimal, Float, Date, Time)."""

from __future__ import annotations

import subprocess

import pytest

from tests.clients import polyglot
from tests.conftest import ServerProcess

HINT = "apt-get install ruby-mysql2"


@pytest.fixture(scope="module")
def output(shared_server: ServerProcess) -> polyglot.Output:
    ruby = polyglot.require("ruby", HINT)
    probe = subprocess.run(
        [ruby, "-e", "require 'mysql2'"], capture_output=True, text=True, timeout=30
    )
    if probe.returncode != 0:
        pytest.skip(f"ruby cannot load mysql2: {HINT}: {probe.stderr.strip()[:300]}")
    return polyglot.run(
        [ruby, str(polyglot.PROGRAMS / "ruby_mysql2.rb")],
        shared_server,
        polyglot.fresh_database("ruby"),
        env={"TZ": "UTC"},
    )


def test_cast_booleans_over_tinyint_1(output: polyglot.Output) -> None:
    """mysql2 casts only a TINYINT column whose definition says display width 1; today the
    column definition carries the width of any TINYINT, and 1 / 0 stay Integer."""
    assert output.check("cast_booleans") == {
        "1": ("TrueClass", "true"),
        "2": ("FalseClass", "false"),
    }


def test_value_classes(output: polyglot.Output) -> None:
    assert output.check("setup") == {"affected": ("Integer", "2")}
    assert output.check("types") == {
        "id": ("Integer", "1"),
        "flag": ("Integer", "1"),  # no cast_booleans: TINYINT is an Integer
        "name": ("String", "alice"),
        "amount": ("BigDecimal", "12.34"),
        "ratio": ("Float", "0.5"),
        "d": ("Date", "2024-05-06"),
        "ts": ("Time", "2024-05-06 07:08:09 +0000"),
    }


def test_prepared_statement(output: polyglot.Output) -> None:
    assert output.check("prepared") == {
        "0.id": ("Integer", "1"),
        "0.name": ("String", "alice"),
        "0.amount": ("BigDecimal", "12.34"),
        "0.d": ("Date", "2024-05-06"),
        "0.ts": ("Time", "2024-05-06 07:08:09 +0000"),
        "1.id": ("Integer", "2"),
        "1.name": ("null", ""),
        "1.amount": ("null", ""),
        "1.d": ("null", ""),
        "1.ts": ("null", ""),
        "insert_affected": ("Integer", "1"),
        "inserted": ("String", "it's"),
        "plus_one": ("Integer", "43"),  # 42 bound as an integer (MYSQL_TYPE_LONGLONG)
    }
