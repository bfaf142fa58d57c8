"""NULL stays NULL through every MySQL function drydock clamps to a range. DuckDB's least and
greatest skip NULL arguments (least(NULL, 5) is 5), so a clamp written with them turned NULL into
the range's bound: CAST(NULL AS UNSIGNED) read 18446744073709551615 (Connector/J's getColumns
DECIMAL_DIGITS, a CONVERT(… , UNSIGNED INTEGER) of NULL, with it)."""

from __future__ import annotations

import pytest

from tests.conftest import ServerProcess


@pytest.mark.parametrize(
    "expression",
    [
        "CAST(NULL AS UNSIGNED)",
        "CONVERT(NULL, UNSIGNED INTEGER)",
        "CONVERT(CASE WHEN 1 = 0 THEN 1 ELSE NULL END, UNSIGNED INTEGER)",
        "SEC_TO_TIME(NULL)",
        "MAKETIME(NULL, 0, 0)",
    ],
)
def test_null_in_null_out(shared_server: ServerProcess, expression: str) -> None:
    assert shared_server.query(f"SELECT {expression}") == [(None,)]


def test_the_clamps_still_clamp(shared_server: ServerProcess) -> None:
    got = shared_server.query(
        "SELECT CAST(-1 AS UNSIGNED), SEC_TO_TIME(4000000) = SEC_TO_TIME(3020399), "
        "CAST(5 AS UNSIGNED)"
    )
    assert got == [(18446744073709551615, 1, 5)]


def test_non_strict_insert_keeps_null_and_clips_the_rest(shared_server: ServerProcess) -> None:
    with shared_server.connect() as conn, conn.cursor() as cur:
        cur.execute("SET SESSION sql_mode = ''")
        cur.execute("CREATE DATABASE IF NOT EXISTS clampdb")
        cur.execute("DROP TABLE IF EXISTS clampdb.t")
        cur.execute("CREATE TABLE clampdb.t (id INT PRIMARY KEY, i TINYINT, d DECIMAL(4, 1))")
        cur.execute("INSERT INTO clampdb.t VALUES (1, NULL, NULL), (2, 300, 12345.6)")
        cur.execute("UPDATE clampdb.t SET i = NULL, d = NULL WHERE id = 2")
        cur.execute("INSERT INTO clampdb.t VALUES (3, -300, -99999)")
        cur.execute("SELECT id, i, d FROM clampdb.t ORDER BY id")
        rows = [(r[0], r[1], None if r[2] is None else float(r[2])) for r in cur.fetchall()]
        assert rows == [(1, None, None), (2, None, None), (3, -128, -999.9)]
