"""PHP against drydock (tests/clients/programs/php_mysql.php), both of its MySQL APIs over mysqlnd:
PDO with ATTR_EMULATE_PREPARES off (server-side prepares: COM_STMT_PREPARE / EXECUTE) and mysqli
(prepared INSERT / SELECT with bind_param, ``multi_query`` — which turns multi-statements on and
off with COM_SET_OPTION — and ``$mysqli->info`` after a multi-row INSERT and an UPDATE).
"""

from __future__ import annotations

import subprocess

import pytest

from tests.clients import polyglot
from tests.conftest import ServerProcess

HINT = "apt-get install php-cli php-mysql"


@pytest.fixture(scope="module")
def output(shared_server: ServerProcess) -> polyglot.Output:
    php = polyglot.require("php", HINT)
    modules = subprocess.run([php, "-m"], capture_output=True, text=True, timeout=30).stdout
    missing = [m for m in ("mysqli", "pdo_mysql") if m not in modules.split()]
    if missing:
        pytest.skip(f"php has no {', '.join(missing)}: {HINT}")
    return polyglot.run(
        [php, str(polyglot.PROGRAMS / "php_mysql.php")],
        shared_server,
        polyglot.fresh_database("php"),
        env={"TZ": "UTC"},
    )


def test_pdo_server_side_prepares(output: polyglot.Output) -> None:
    assert output.check("pdo_setup") == {"emulate": ("integer", "0")}
    assert output.check("pdo_insert") == {"first": ("integer", "1"), "second": ("integer", "1")}
    assert output.check("pdo_select") == {
        "0.id": ("integer", "1"),
        "0.name": ("string", "alice"),
        "0.amount": ("string", "12.34"),  # mysqlnd keeps DECIMAL as a string
        "0.ratio": ("double", "0.5"),
        "0.d": ("string", "2024-05-06"),
        "1.id": ("integer", "2"),
        "1.name": ("string", "it's"),
        "1.amount": ("null", ""),
        "1.ratio": ("null", ""),
        "1.d": ("null", ""),
    }


def test_pdo_integer_parameter_plus_one(output: polyglot.Output) -> None:
    assert output.check("pdo_plus_one_int") == {"v": ("integer", "43")}


def test_pdo_string_parameter_plus_one(output: polyglot.Output) -> None:
    """PDO's execute([42]) binds every value as a string."""
    assert output.check("pdo_plus_one_string") == {"v": ("double", "43")}


def test_mysqli_prepared_insert_and_select(output: polyglot.Output) -> None:
    assert output.check("mysqli_connect") == {"db": ("string", output.database)}
    assert output.check("mysqli_prepared") == {
        "insert_affected": ("integer", "1"),
        "id": ("integer", "3"),  # binary protocol: native types
        "name": ("string", "carol"),
        "amount": ("string", "7.25"),
    }


def test_mysqli_multi_query_with_com_set_option(output: polyglot.Output) -> None:
    assert output.check("mysqli_multi") == {
        "r0": ("string", "1"),  # text protocol: strings
        "r1": ("string", "alice"),
        "r2.affected": ("integer", "1"),
        "results": ("integer", "3"),
    }
    # multi_query turned multi-statements off again afterwards
    assert output.check("mysqli_multi_off") == {
        "errno": ("integer", "1064"),
        "after": ("string", "7"),
    }


def test_mysqli_info_after_insert_and_update(output: polyglot.Output) -> None:
    assert output.check("mysqli_info") == {
        "insert": ("string", "Records: 3  Duplicates: 0  Warnings: 0"),
        "insert_affected": ("integer", "3"),
        "update": ("string", "Rows matched: 2  Changed: 1  Warnings: 0"),
        "update_affected": ("integer", "1"),
    }
