"""A TIME column of an internal table holds MySQL's range, -838:59:59..838:59:59
(engine/sql/time_columns.py: a DuckDB INTERVAL): values read as MySQL reads them on INSERT,
UPDATE and INSERT … SELECT, range errors in strict mode and clipping otherwise, and the
expressions of engine/sql/time_operands.py answered as MySQL answers them."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pymysql
import pytest

from drydock.engine.sql import time_columns

H = 3600 * 1_000_000

PARSED = [
    ("12:30:00", 0, 45000 * 1_000_000),
    ("-12:30:00", 0, -45000 * 1_000_000),
    ("100:00:00", 0, 100 * H),
    ("838:59:59", 0, time_columns.MAX_MICROSECONDS),
    ("1 12:30", 0, 36 * H + 30 * 60 * 1_000_000),
    ("12:30", 0, 45000 * 1_000_000),
    ("123000", 0, 45000 * 1_000_000),  # HHMMSS
    ("1230", 0, 750 * 1_000_000),  # MMSS
    ("12", 0, 12 * 1_000_000),  # SS
    (123000, 0, 45000 * 1_000_000),
    (Decimal("-10203.5"), 0, -(3723 * 1_000_000 + 1_000_000)),  # rounded half away from zero
    ("01:00:00.1235", 3, H + 124_000),
    ("01:00:00.5", 0, H + 1_000_000),
    ("2024-01-01 10:00:00", 0, 10 * H),
    (dt.timedelta(hours=-2), 0, -2 * H),
    (dt.time(1, 2, 3), 0, 3723 * 1_000_000),
]


@pytest.mark.parametrize(("value", "fsp", "micros"), PARSED, ids=[repr(p[0]) for p in PARSED])
def test_values_are_read_as_mysql_reads_them(value: object, fsp: int, micros: int) -> None:
    parsed = time_columns.parse(value, fsp)
    assert parsed is not None and parsed.microseconds == micros


@pytest.mark.parametrize("value", ["abc", "12:60:00", "1:2:3:4", 126000])
def test_a_value_that_is_no_time_is_recognised(value: object) -> None:
    parsed = time_columns.parse(value, 0)
    assert parsed is not None and parsed.microseconds is None


def test_out_of_range_is_known_and_clipped() -> None:
    parsed = time_columns.parse("839:00:00", 0)
    assert parsed is not None and not parsed.in_range
    assert time_columns.text(time_columns.clipped(-(10**15))) == "-838:59:59"


def test_canonical_text_keeps_sign_and_fraction() -> None:
    assert time_columns.text(-(H + 500_000)) == "-01:00:00.500000"
    assert time_columns.text(100 * H) == "100:00:00"


def _cursor(server):  # type: ignore[no-untyped-def]
    conn = server.connect()
    cur = conn.cursor()
    cur.execute("CREATE DATABASE IF NOT EXISTS time_columns")
    cur.execute("USE time_columns")
    cur.execute("DROP TABLE IF EXISTS t")
    cur.execute("DROP TABLE IF EXISTS s")
    cur.execute("CREATE TABLE t (id INT PRIMARY KEY, tm TIME, t3 TIME(3))")
    return conn, cur


def test_whole_range_round_trips_in_text_and_binary_protocol(shared_server) -> None:  # type: ignore[no-untyped-def]
    conn, cur = _cursor(shared_server)
    cur.execute(
        "INSERT INTO t VALUES (1, '-838:59:59', '-00:00:01.25'), (2, '838:59:59', '100:00:00.5'),"
        " (3, '1 12:30', 1230), (4, 123000, NULL)"
    )
    cur.execute("SELECT CAST(tm AS CHAR), tm FROM t ORDER BY tm")
    rows = cur.fetchall()
    assert [r[0] for r in rows] == ["-838:59:59", "12:30:00", "36:30:00", "838:59:59"]
    assert rows[0][1] == -dt.timedelta(hours=838, minutes=59, seconds=59)
    cur.execute("SELECT t3 FROM t WHERE id IN (1, 2, 3) ORDER BY id")
    assert [r[0] for r in cur.fetchall()] == [
        -dt.timedelta(seconds=1, microseconds=250000),
        dt.timedelta(hours=100, microseconds=500000),
        dt.timedelta(minutes=12, seconds=30),
    ]
    conn.close()


def test_strict_mode_refuses_out_of_range_and_non_strict_clips(shared_server) -> None:  # type: ignore[no-untyped-def]
    conn, cur = _cursor(shared_server)
    for value in ("'839:00:00'", "-8390000", "'abc'"):
        with pytest.raises(pymysql.err.OperationalError) as error:
            cur.execute(f"INSERT INTO t (id, tm) VALUES (1, {value})")
        assert error.value.args[0] == 1292
    cur.execute("INSERT INTO t (id, tm) VALUES (1, '01:00:00')")
    with pytest.raises(pymysql.err.OperationalError) as error:
        cur.execute("UPDATE t SET tm = '900:00:00'")
    assert error.value.args[0] == 1292
    cur.execute("SET SESSION sql_mode = ''")
    cur.execute("INSERT INTO t (id, tm) VALUES (2, '900:00:00'), (3, '-900:00:00'), (4, 'x')")
    cur.execute("SHOW WARNINGS")
    assert [w[1] for w in cur.fetchall()] == [1264, 1264, 1265]
    cur.execute("UPDATE t SET tm = concat('9', '00:00:00') WHERE id = 1")
    cur.execute("CREATE TABLE s (n INT)")
    cur.execute("INSERT INTO s VALUES (123000), (9000000)")
    cur.execute("INSERT INTO t (id, tm) SELECT n, n FROM s")
    cur.execute("SELECT id, CAST(tm AS CHAR) FROM t ORDER BY id")
    assert cur.fetchall() == (
        (1, "838:59:59"),
        (2, "838:59:59"),
        (3, "-838:59:59"),
        (4, "00:00:00"),
        (123000, "12:30:00"),
        (9000000, "838:59:59"),
    )
    conn.close()


def test_expressions_read_the_column_as_mysql(shared_server) -> None:  # type: ignore[no-untyped-def]
    conn, cur = _cursor(shared_server)
    cur.execute("INSERT INTO t (id, tm) VALUES (1, '-12:30:00'), (2, '100:00:00'), (3, '12:30:00')")
    cur.execute("SELECT id FROM t WHERE tm = '123000' OR tm < -10000 ORDER BY id")
    assert cur.fetchall() == ((1,), (3,))
    cur.execute("SELECT id FROM t WHERE tm > TIME '13:00:00'")
    assert cur.fetchall() == ((2,),)
    cur.execute("SELECT HOUR(tm), MINUTE(tm), TIME_TO_SEC(tm) FROM t WHERE id = 1")
    assert cur.fetchall() == ((12, 30, -45000),)
    cur.execute("SELECT CAST(TIMEDIFF(tm, '01:00') AS CHAR) FROM t WHERE id = 2")
    assert cur.fetchall() == (("99:00:00",),)
    cur.execute("SELECT MIN(tm), MAX(tm) FROM t")
    assert cur.fetchall() == ((-dt.timedelta(hours=12, minutes=30), dt.timedelta(hours=100)),)
    cur.execute("DELETE FROM t WHERE tm = -123000")
    cur.execute("SELECT id FROM t ORDER BY tm DESC")
    assert cur.fetchall() == ((2,), (3,))
    conn.close()


def test_numeric_context_is_the_number_hhmmss(shared_server) -> None:  # type: ignore[no-untyped-def]
    conn, cur = _cursor(shared_server)
    cur.execute(
        "INSERT INTO t VALUES (1, '10:11:12', '01:00:00.5'), (2, '-838:59:59', '-00:00:01.25'),"
        " (3, NULL, NULL)"
    )
    cur.execute("SELECT tm + 0, tm * 1, tm - 1, t3 + 0, -tm FROM t ORDER BY id")
    rows = cur.fetchall()
    assert rows[:2] == (
        (101112, 101112, 101111, Decimal("10000.500"), -101112.0),
        (-8385959, -8385959, -8385960, Decimal("-1.250"), 8385959.0),
    )
    assert rows[2] == (None, None, None, None, None)
    assert [d[1] for d in cur.description] == [8, 8, 8, 246, 5]  # BIGINT, DECIMAL, DOUBLE
    cur.execute("SELECT SUM(tm), AVG(tm), SUM(t3), AVG(t3), MAX(tm) / 2 FROM t WHERE id = 1")
    assert cur.fetchall() == (
        (
            Decimal(101112),
            Decimal("101112.0000"),
            Decimal("10000.500"),
            Decimal("10000.5000000"),
            Decimal("50556.0000"),
        ),
    )
    cur.execute("SELECT SUM(tm), AVG(t3) FROM t")
    assert cur.fetchall() == ((Decimal(-8284847), Decimal("4999.6250000")),)
    conn.close()


def test_string_context_prints_the_declared_fraction(shared_server) -> None:  # type: ignore[no-untyped-def]
    conn, cur = _cursor(shared_server)
    cur.execute("INSERT INTO t VALUES (1, '10:11:12', '01:00:00.5'), (2, '-01:00:00', '838:59:59')")
    cur.execute("SELECT CAST(t3 AS CHAR), CONCAT(t3, '|', tm), CAST(tm AS CHAR) FROM t ORDER BY id")
    assert cur.fetchall() == (
        ("01:00:00.500", "01:00:00.500|10:11:12", "10:11:12"),
        ("838:59:59.000", "838:59:59.000|-01:00:00", "-01:00:00"),
    )
    conn.close()


def test_date_format_reads_the_datetime_on_the_current_date(shared_server) -> None:  # type: ignore[no-untyped-def]
    conn, cur = _cursor(shared_server)
    cur.execute("INSERT INTO t VALUES (1, '100:00:00', '-00:00:00.25')")
    cur.execute(
        "SELECT DATE_FORMAT(tm, '%Y-%m-%d %T'), DATE_FORMAT(t3, '%Y-%m-%d %T.%f'),"
        " DATE_FORMAT(UTC_DATE() + INTERVAL 4 DAY, '%Y-%m-%d 04:00:00'),"
        " DATE_FORMAT(UTC_DATE() - INTERVAL 1 DAY, '%Y-%m-%d 23:59:59.750000') FROM t"
    )
    got_tm, got_t3, want_tm, want_t3 = cur.fetchone()
    assert (got_tm, got_t3) == (want_tm, want_t3)
    conn.close()


def test_interval_arithmetic_past_the_range_is_null_with_1441(shared_server) -> None:  # type: ignore[no-untyped-def]
    conn, cur = _cursor(shared_server)
    cur.execute(
        "INSERT INTO t (id, tm) VALUES (1, '838:59:59'), (2, '-838:59:59'), (3, '00:00:00')"
    )
    cur.execute("SELECT tm + INTERVAL 1 SECOND, DATE_SUB(tm, INTERVAL 1 SECOND) FROM t ORDER BY id")
    assert cur.fetchall() == (
        (None, dt.timedelta(hours=838, minutes=59, seconds=58)),
        (-dt.timedelta(hours=838, minutes=59, seconds=58), None),
        (dt.timedelta(seconds=1), -dt.timedelta(seconds=1)),
    )
    cur.execute("SHOW WARNINGS")
    assert [(w[1], w[2]) for w in cur.fetchall()] == [
        (1441, "Datetime function: time field overflow")
    ] * 2
    conn.close()


def test_interval_overflow_in_strict_update_is_error_1441(shared_server) -> None:  # type: ignore[no-untyped-def]
    conn, cur = _cursor(shared_server)
    cur.execute("INSERT INTO t (id, tm) VALUES (1, '838:59:59')")
    with pytest.raises(pymysql.err.DataError) as error:
        cur.execute("UPDATE t SET tm = tm + INTERVAL 1 SECOND")
    assert error.value.args[0] == 1441
    cur.execute("SET SESSION sql_mode = ''")
    cur.execute("UPDATE t SET tm = tm + INTERVAL 1 SECOND")
    cur.execute("SELECT tm FROM t")
    assert cur.fetchall() == ((None,),)
    conn.close()


def test_a_name_another_table_also_has_is_read_as_that_table_says(shared_server) -> None:  # type: ignore[no-untyped-def]
    conn, cur = _cursor(shared_server)
    cur.execute("CREATE TABLE s (k INT PRIMARY KEY, tm INT)")
    cur.execute("INSERT INTO t (id, tm) VALUES (1, '10:11:12')")
    cur.execute("INSERT INTO s VALUES (1, 5)")
    cur.execute("SELECT t.tm + 0, (SELECT tm + 1 FROM s WHERE s.k = t.id) FROM t")
    assert cur.fetchall() == ((101112, 6),)
    conn.close()


def test_date_readers_read_the_datetime_on_the_current_date(shared_server) -> None:  # type: ignore[no-untyped-def]
    conn, cur = _cursor(shared_server)
    cur.execute("INSERT INTO t (id, tm) VALUES (1, '100:00:00')")
    cur.execute(
        "SELECT CAST(tm AS DATETIME) = UTC_DATE() + INTERVAL 100 HOUR, DATE(tm),"
        " UTC_DATE() + INTERVAL 4 DAY, DATEDIFF(tm, UTC_DATE()),"
        " UNIX_TIMESTAMP(tm) - UNIX_TIMESTAMP(UTC_DATE()) FROM t"
    )
    same, date, want_date, days, seconds = cur.fetchone()
    assert (same, date, days, seconds) == (1, want_date, 4, 360000)
    conn.close()


def test_an_interval_of_months_on_a_time_is_null_with_1441(shared_server) -> None:  # type: ignore[no-untyped-def]
    # MySQL 8's Item_date_add_interval::get_time_internal: interval.year || interval.month
    conn, cur = _cursor(shared_server)
    cur.execute("INSERT INTO t (id, tm) VALUES (1, '10:11:12'), (2, NULL)")
    cur.execute(
        "SELECT tm + INTERVAL 1 MONTH, DATE_SUB(tm, INTERVAL 1 YEAR), tm + INTERVAL 1 WEEK"
        " FROM t ORDER BY id"
    )
    assert cur.fetchall() == (
        (None, None, dt.timedelta(hours=178, minutes=11, seconds=12)),
        (None, None, None),
    )
    cur.execute("SHOW WARNINGS")
    assert [w[1] for w in cur.fetchall()] == [1441, 1441]
    conn.close()
