"""AVG over exact numbers as MySQL 8 answers it (engine/sql/exact_avg.py): a DECIMAL with 4 more
digits of scale, exact and rounded half away from zero, sent as NEWDECIMAL with that scale;
AVG of a DOUBLE stays a DOUBLE; SUM keeps the argument's scale. Expected values are MySQL's
(MariaDB 10.11 answers the same for every row here)."""

from __future__ import annotations

from decimal import Decimal

import pymysql
import pytest
from mysql_mimic.types import ColumnType

from tests.conftest import ServerProcess


@pytest.fixture(scope="module")
def averages(shared_server: ServerProcess) -> ServerProcess:
    with shared_server.connect() as conn, conn.cursor() as cur:
        cur.execute("CREATE DATABASE av")
        cur.execute(
            "CREATE TABLE av.t (g INT, i INT, d DECIMAL(12,3), e DECIMAL(30,10), f DOUBLE, "
            "v DECIMAL(5,2))"
        )
        cur.execute(
            "INSERT INTO av.t VALUES "
            "(1, 1, 123456789.111, 1.0000000001, 1.5, -0.01), "
            "(1, 2, 123456789.000, 2, 2.5, -0.02), "
            "(2, 2, 0.002, NULL, NULL, 0.00), (2, 5, 7.5, 3, 4.0, 0.01), (3, NULL, NULL, NULL, "
            "NULL, NULL)"
        )
    return shared_server


def _query(
    server: ServerProcess, sql: str
) -> tuple[list[tuple[object, ...]], list[tuple[int, int]]]:
    with server.connect() as conn, conn.cursor() as cur:
        cur.execute(sql)
        rows = list(cur.fetchall())
        return rows, [(d[1], d[5]) for d in cur.description]


def test_avg_of_decimal_and_integer_is_exact_decimal_with_four_more_digits(
    averages: ServerProcess,
) -> None:
    rows, types = _query(averages, "SELECT AVG(i), AVG(d), AVG(e), AVG(f), AVG(d * 2) FROM av.t")
    assert rows == [
        (
            Decimal("2.5000"),
            Decimal("61728396.4032500"),
            Decimal("2.00000000003333"),
            8 / 3,
            Decimal("123456792.8065000"),
        )
    ]
    nd = ColumnType.NEWDECIMAL
    assert types == [(nd, 4), (nd, 7), (nd, 14), (ColumnType.DOUBLE, 31), (nd, 7)]


def test_avg_rounds_half_away_from_zero_per_group_window_and_distinct(
    averages: ServerProcess,
) -> None:
    rows, types = _query(
        averages,
        "SELECT g, AVG(v), AVG(DISTINCT i), SUM(v) FROM av.t GROUP BY g "
        "HAVING AVG(v) IS NULL OR AVG(v) < 1 ORDER BY g",
    )
    assert rows == [
        (1, Decimal("-0.015000"), Decimal("1.5000"), Decimal("-0.03")),
        (2, Decimal("0.005000"), Decimal("3.5000"), Decimal("0.01")),
        (3, None, None, None),
    ]
    assert types[1:] == [
        (ColumnType.NEWDECIMAL, 6),
        (ColumnType.NEWDECIMAL, 4),
        (ColumnType.NEWDECIMAL, 2),
    ]
    rows, _ = _query(averages, "SELECT AVG(v) OVER (PARTITION BY g) FROM av.t ORDER BY g, v")
    assert [r[0] for r in rows] == [Decimal("-0.015000")] * 2 + [Decimal("0.005000")] * 2 + [None]
    rows, _ = _query(averages, "SELECT AVG(-0.00005), AVG(0.00005), AVG(1)")
    assert rows == [(Decimal("-0.000050000"), Decimal("0.000050000"), Decimal("1.0000"))]


def test_avg_of_a_derived_tables_avg_and_in_a_subquery(averages: ServerProcess) -> None:
    rows, types = _query(
        averages, "SELECT AVG(x) FROM (SELECT AVG(v) AS x FROM av.t GROUP BY g) AS s"
    )
    assert rows == [(Decimal("-0.0050000000"),)] and types == [(ColumnType.NEWDECIMAL, 10)]
    rows, _ = _query(
        averages,
        "SELECT g, (SELECT AVG(i) FROM av.t AS u WHERE u.g = o.g) FROM av.t AS o "
        "WHERE g = 2 ORDER BY i",
    )
    assert rows == [(2, Decimal("3.5000")), (2, Decimal("3.5000"))]


def test_a_bad_avg_argument_is_mysqls_error_in_and_out_of_a_transaction(
    averages: ServerProcess,
) -> None:
    with averages.connect() as conn, conn.cursor() as cur:
        with pytest.raises(pymysql.MySQLError) as caught:
            cur.execute("SELECT AVG(nosuch) FROM av.t")
        assert caught.value.args[0] == 1054
        cur.execute("BEGIN")
        with pytest.raises(pymysql.MySQLError) as caught:
            cur.execute("SELECT AVG(nosuch) FROM av.t")
        assert caught.value.args[0] == 1054
        cur.execute("ROLLBACK")
        cur.execute("BEGIN")
        cur.execute("INSERT INTO av.t (g, v) VALUES (9, 1.25)")
        cur.execute("SELECT AVG(v) FROM av.t WHERE g = 9")
        assert cur.fetchall() == ((Decimal("1.250000"),),)
        cur.execute("ROLLBACK")


def test_avg_rounds_a_half_at_the_last_digit_away_from_zero(averages: ServerProcess) -> None:
    """1/32 = 0.03125: MySQL answers 0.0313 (half away from zero), -1/32 -0.0313; a DOUBLE
    average rounded by Python or banker's rounding would say 0.0312."""
    with averages.connect() as conn, conn.cursor() as cur:
        cur.execute("CREATE TABLE av.r (k INT, n INT)")
        cur.execute(
            "INSERT INTO av.r VALUES "
            + ", ".join(f"({k}, {int(i == 0) * k})" for k in (1, -1) for i in range(32))
        )
        cur.execute("SELECT k, AVG(n) FROM av.r GROUP BY k ORDER BY k")
        assert cur.fetchall() == ((-1, Decimal("-0.0313")), (1, Decimal("0.0313")))
