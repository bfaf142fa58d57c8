"""MySQL function semantics over the wire (engine/sql/mysql_functions.py,
engine/sql/statement_info.py):
the conformance corpus (tests/support/mysql_functions_corpus.py), current-time precision, the user
functions and the information functions about the previous statement."""

from __future__ import annotations

import datetime as dt

import pymysql
import pytest

from tests.conftest import ServerProcess
from tests.support.select_answers import wrong_answers
from tests.support.lance_fixtures import create_user
from tests.support.mysql_functions_corpus import CORPUS


def test_corpus_matches_mysql_manual(shared_server: ServerProcess) -> None:
    """Every corpus expression answers MySQL's documented result (one query per row, so a
    failure names the function)."""
    with shared_server.connect() as conn, conn.cursor() as cur:
        wrong = wrong_answers(cur, CORPUS)
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("mode", range(8))
def test_week_modes_over_a_decade_match_mysql_calc_week(
    shared_server: ServerProcess, mode: int
) -> None:
    """WEEK(d, mode) and YEARWEEK(d, mode) for every 5th day 1999-2009 against a port of MySQL's
    calc_week() (sql/sql_time.cc), the function the manual's WEEK() table describes."""
    days = [dt.date(1999, 12, 1) + dt.timedelta(days=i) for i in range(0, 3700, 5)]
    with shared_server.connect() as conn, conn.cursor() as cur:
        values = ", ".join(f"('{d}')" for d in days)
        cur.execute(
            f"SELECT d, WEEK(d, {mode}), YEARWEEK(d, {mode}) FROM (VALUES {values}) AS v(d) ORDER "
            f"BY d"
        )
        rows = cur.fetchall()
    assert len(rows) == len(days)
    for (day, week, yearweek), expected_day in zip(rows, days):
        assert str(day) == str(expected_day)
        _, w = _calc_week(expected_day, _week_behaviour(mode))
        y2, w2 = _calc_week(expected_day, _week_behaviour(mode) | 2)
        assert (week, yearweek) == (w, y2 * 100 + w2), (expected_day, mode)


def _week_behaviour(mode: int) -> int:
    mode &= 7
    return mode if mode & 1 else mode ^ 4


def _calc_week(day: dt.date, behaviour: int) -> tuple[int, int]:
    monday_first, week_year, first_weekday = behaviour & 1, behaviour & 2, behaviour & 4
    jan1 = dt.date(day.year, 1, 1)
    weekday = jan1.weekday() if monday_first else jan1.isoweekday() % 7
    year, first = day.year, jan1.toordinal()
    if day.month == 1 and day.day <= 7 - weekday:
        if not week_year and (
            (first_weekday and weekday != 0) or (not first_weekday and weekday >= 4)
        ):
            return year, 0
        week_year, year = 1, year - 1
        length = (dt.date(year + 1, 1, 1) - dt.date(year, 1, 1)).days
        first -= length
        weekday = (weekday + 53 * 7 - length) % 7
    if (first_weekday and weekday != 0) or (not first_weekday and weekday >= 4):
        days = day.toordinal() - (first + (7 - weekday))
    else:
        days = day.toordinal() - (first - weekday)
    if week_year and days >= 52 * 7:
        weekday = (weekday + (dt.date(year + 1, 1, 1) - dt.date(year, 1, 1)).days) % 7
        if (not first_weekday and weekday < 4) or (first_weekday and weekday == 0):
            return year + 1, 1
    return year, days // 7 + 1


def test_now_precision(shared_server: ServerProcess) -> None:
    """NOW()/CURRENT_TIMESTAMP/SYSDATE() have whole seconds; NOW(6)/CURRENT_TIMESTAMP(6) carry
    microseconds; NOW(3) milliseconds (MySQL 12.7 NOW(), 11.2.6 fractional seconds)."""
    with shared_server.connect() as conn, conn.cursor() as cur:
        cur.execute("SELECT NOW(), CURRENT_TIMESTAMP, SYSDATE(), LOCALTIME()")
        assert all(v.microsecond == 0 for v in cur.fetchone())
        fractions = set()
        for _ in range(5):
            cur.execute("SELECT NOW(6), CURRENT_TIMESTAMP(6), NOW(3)")
            six, current_six, three = cur.fetchone()
            assert three.microsecond % 1000 == 0
            fractions.add(six.microsecond)
            fractions.add(current_six.microsecond)
        assert fractions != {0}  # five draws of microseconds all zero: the precision was dropped
        cur.execute("SELECT UNIX_TIMESTAMP() - UNIX_TIMESTAMP(NOW())")
        assert cur.fetchone()[0] in (0, -1, 1)
        with pytest.raises(pymysql.MySQLError):
            cur.execute("SELECT NOW(7)")


def test_user_functions_carry_the_host(shared_server: ServerProcess) -> None:
    """USER() is the login with the client's host; CURRENT_USER() the account ('u'@'%') (12.16)."""
    user = create_user(shared_server, ["SELECT_PRIV ON *.*.*"])
    with shared_server.connect(user=user, password="pw") as conn, conn.cursor() as cur:
        cur.execute("SELECT USER(), CURRENT_USER()")
        assert cur.fetchone() == (f"{user}@127.0.0.1", f"{user}@%")


def test_information_functions_about_the_previous_statement(shared_server: ServerProcess) -> None:
    """ROW_COUNT(), FOUND_ROWS() with and without SQL_CALC_FOUND_ROWS, LAST_INSERT_ID() (12.16)."""
    with shared_server.connect() as conn, conn.cursor() as cur:
        cur.execute("CREATE DATABASE IF NOT EXISTS fn_info")
        cur.execute("CREATE TABLE fn_info.t (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(8))")
        cur.execute("INSERT INTO fn_info.t (v) VALUES ('a'), ('b'), ('c'), ('d')")
        assert cur.lastrowid == 1
        cur.execute("SELECT ROW_COUNT(), LAST_INSERT_ID()")
        assert cur.fetchone() == (4, 1)
        cur.execute("SELECT ROW_COUNT()")
        assert cur.fetchone() == (-1,)  # after a SELECT
        cur.execute("SELECT SQL_CALC_FOUND_ROWS v FROM fn_info.t ORDER BY id LIMIT 2")
        assert [r[0] for r in cur.fetchall()] == ["a", "b"]
        cur.execute("SELECT FOUND_ROWS()")
        assert cur.fetchone() == (4,)
        cur.execute("SELECT v FROM fn_info.t WHERE id > 1 LIMIT 2")
        cur.execute("SELECT FOUND_ROWS()")
        assert cur.fetchone() == (2,)
        cur.execute("UPDATE fn_info.t SET v = 'z' WHERE id > 2")
        cur.execute("SELECT ROW_COUNT(), LAST_INSERT_ID()")
        assert cur.fetchone() == (2, 1)
        cur.execute("INSERT INTO fn_info.t (v) VALUES ('e')")
        assert cur.lastrowid == 5
        cur.execute("SELECT LAST_INSERT_ID()")
        assert cur.fetchone() == (5,)
    with shared_server.connect() as other, other.cursor() as cur:
        cur.execute("SELECT LAST_INSERT_ID(), FOUND_ROWS()")  # per session
        assert cur.fetchone() == (0, 0)


def test_found_rows_count_needs_the_same_privileges(shared_server: ServerProcess) -> None:
    """The count behind SQL_CALC_FOUND_ROWS runs with the SELECT's privileges: a user who may
    not read the table gets the same denial, not a count."""
    shared_server.query("CREATE DATABASE IF NOT EXISTS fn_priv")
    shared_server.query("CREATE TABLE IF NOT EXISTS fn_priv.t (id INT)")
    user = create_user(shared_server, ["SELECT_PRIV ON fn_priv.other"])
    with shared_server.connect(user=user, password="pw") as conn, conn.cursor() as cur:
        with pytest.raises(pymysql.MySQLError) as denied:
            cur.execute("SELECT SQL_CALC_FOUND_ROWS id FROM fn_priv.t LIMIT 1")
        assert denied.value.args[0] == 1142


def test_rewritten_functions_are_authorized_like_any_other(shared_server: ServerProcess) -> None:
    """An argument of a rewritten function is walked like the rest of the statement: a table in
    it needs SELECT_PRIV, and a denied function inside stays denied."""
    shared_server.query("CREATE DATABASE IF NOT EXISTS fn_walk")
    shared_server.query("CREATE TABLE IF NOT EXISTS fn_walk.secret (d DATE)")
    user = create_user(shared_server, ["SELECT_PRIV ON fn_walk.other"])
    with shared_server.connect(user=user, password="pw") as conn, conn.cursor() as cur:
        with pytest.raises(pymysql.MySQLError) as denied:
            cur.execute("SELECT WEEK((SELECT max(d) FROM fn_walk.secret), 3)")
        assert denied.value.args[0] == 1142
        with pytest.raises(pymysql.MySQLError) as refused:
            cur.execute("SELECT SUBSTRING_INDEX(current_setting('threads'), '.', 1)")
        assert refused.value.args[0] == 1305
        with pytest.raises(pymysql.MySQLError) as sequence:
            cur.execute("SELECT nextval('fn_walk.s')")
        assert sequence.value.args[0] == 1305
