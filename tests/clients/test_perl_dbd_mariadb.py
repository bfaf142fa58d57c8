"""Perl DBI with DBD::MariaDB (tests/clients/programs/perl_dbd_mariadb.pl) against drydock:
``column_info`` (DBD::MariaDB sends ``SHOW COLUMNS FROM `db`.`t` LIKE 'pattern'``),
``primary_key`` (``SHOW KEYS FROM `db`.`t```, rows whose Key_name is PRIMARY), and prepared
INSERT / SELECT both client-side (DBD::MariaDB's default: parameters inlined into COM_QUERY text)
and server-side (``{mariadb_server_prepare => 1}``: COM_STMT_PREPARE / EXECUTE).
"""

from __future__ import annotations

import subprocess

import pytest

from tests.clients import polyglot
from tests.conftest import ServerProcess

HINT = "apt-get install libdbd-mariadb-perl"


@pytest.fixture(scope="module")
def output(shared_server: ServerProcess) -> polyglot.Output:
    perl = polyglot.require("perl", HINT)
    probe = subprocess.run(
        [perl, "-MDBD::MariaDB", "-e", "1"], capture_output=True, text=True, timeout=30
    )
    if probe.returncode != 0:
        pytest.skip(f"perl cannot load DBD::MariaDB: {HINT}: {probe.stderr.strip()[:300]}")
    return polyglot.run(
        [perl, str(polyglot.PROGRAMS / "perl_dbd_mariadb.pl")],
        shared_server,
        polyglot.fresh_database("perl"),
        env={"TZ": "UTC"},
    )


def test_column_info(output: polyglot.Output) -> None:
    assert output.check("setup") == {"ok": ("scalar", "1")}
    assert output.check("column_info") == {
        "id.position": ("scalar", "1"),
        "id.type_name": ("scalar", "INT"),
        "id.nullable": ("scalar", "0"),
        "name.position": ("scalar", "2"),
        "name.type_name": ("scalar", "VARCHAR"),
        "name.nullable": ("scalar", "1"),
        "amount.position": ("scalar", "3"),
        "amount.type_name": ("scalar", "DECIMAL"),
        "amount.nullable": ("scalar", "1"),
        "d.position": ("scalar", "4"),
        "d.type_name": ("scalar", "DATE"),
        "d.nullable": ("scalar", "1"),
        "pattern": ("scalar", "name"),  # column_info(..., 'na%')
    }


def test_primary_key(output: polyglot.Output) -> None:
    assert output.check("primary_key") == {"columns": ("scalar", "id")}


@pytest.mark.parametrize("mode", ["client_prepare", "server_prepare"])
def test_prepared_insert_and_select(output: polyglot.Output, mode: str) -> None:
    base = 10 if mode == "server_prepare" else 0
    assert output.check(mode) == {
        "inserted": ("scalar", "2"),
        "0.0": ("scalar", str(base + 1)),
        "0.1": ("scalar", "it's"),
        "0.2": ("scalar", "12.34"),
        "0.3": ("scalar", "2024-05-06"),
        "1.0": ("scalar", str(base + 2)),
        "1.1": ("null", ""),
        "1.2": ("null", ""),
        "1.3": ("null", ""),
        "types": ("scalar", "4,12,3,9"),  # SQL_INTEGER, SQL_VARCHAR, SQL_DECIMAL, SQL_DATE
        "plus_one": ("scalar", "42"),  # 41 bound as SQL_INTEGER
    }
