"""MySQL date and time functions drydock adds or corrects (engine/sql/mysql_datetime.py), over the
wire. Expected values are MySQL 8.0's (manual 14.7); MariaDB 10.11 answers the same for each."""

from __future__ import annotations

import datetime as dt


from tests.conftest import ServerProcess
from tests.support.select_answers import wrong_answers

CASES = [
    ("PERIOD_ADD(202401, 13)", "202502"),
    ("PERIOD_ADD(9912, 2)", "200002"),
    ("PERIOD_ADD(0, 2)", "0"),
    ("PERIOD_DIFF(202401, 202312)", "1"),
    ("TO_SECONDS('2024-03-07 10:00:00')", "63877024800"),
    ("TO_SECONDS('2024-03-07')", "63876988800"),
    ("TIME_TO_SEC('22:23:00')", "80580"),
    ("TIME_TO_SEC('-01:00:00')", "-3600"),
    ("MAKETIME(12, 15, 30)", "12:15:30"),
    ("MAKETIME(100, 0, 0)", "100:00:00"),
    ("MAKETIME(-1, 30, 0)", "-01:30:00"),
    ("MAKETIME(1, 60, 0)", None),
    ("ADDTIME('2024-01-01 10:00:00', '01:30:00.5')", "2024-01-01 11:30:00.500000"),
    ("SUBTIME('2024-01-01 10:00:00', '01:30:00')", "2024-01-01 08:30:00"),
    ("ADDTIME('10:00:00', '20:00:00')", "30:00:00"),
    ("SUBTIME('01:00:00', '02:00:00')", "-01:00:00"),
    ("MICROSECOND('10:00:00.123456')", "123456"),
    ("FIND_IN_SET('b', 'a,b,c')", "2"),
    ("FIND_IN_SET('B', 'a,b,c')", "2"),
    ("FIND_IN_SET('d', 'a,b,c')", "0"),
    ("FIND_IN_SET('', 'a,,b')", "2"),
    ("FIND_IN_SET('a,b', 'a,b,c')", "0"),
    ("FIND_IN_SET(NULL, 'a')", None),
    ("GET_FORMAT(DATE, 'USA')", "%m.%d.%Y"),
    ("GET_FORMAT(TIMESTAMP, 'ISO')", "%Y-%m-%d %H:%i:%s"),
    ("DATE_FORMAT('2024-03-07', GET_FORMAT(DATE, 'EUR'))", "07.03.2024"),
    ("TIMESTAMPDIFF(MONTH, '2024-01-31', '2024-02-29')", "0"),
    ("TIMESTAMPDIFF(MONTH, '2024-02-29', '2024-01-31')", "0"),
    ("TIMESTAMPDIFF(MONTH, '2024-01-31', '2024-03-31')", "2"),
    ("TIMESTAMPDIFF(QUARTER, '2023-01-15', '2024-01-14')", "3"),
    ("TIMESTAMPDIFF(YEAR, '2020-02-29', '2024-02-28')", "3"),
    ("TIMESTAMPDIFF(YEAR, '2020-02-29', '2024-02-29 00:00:01')", "4"),
    ("TIMESTAMPDIFF(YEAR, '2024-02-29', '2020-03-01')", "-3"),
    ("EXTRACT(YEAR_MONTH FROM '2024-03-07')", "202403"),
    ("EXTRACT(DAY_SECOND FROM '2024-03-07 10:11:12')", "7101112"),
    ("EXTRACT(HOUR_MICROSECOND FROM '2024-03-07 10:11:12.000042')", "101112000042"),
    ("EXTRACT(MONTH FROM '2024-03-07')", "3"),
    ("TIME('2024-03-07 10:11:12')", "10:11:12"),
    ("TIMESTAMP('2024-03-07', '10:00:00')", "2024-03-07 10:00:00"),
    ("DATE_FORMAT('2024-01-01', '%U %u %V %v %X %x')", "00 01 53 01 2023 2024"),
    ("DATE_FORMAT('2021-01-03', '%U %u %V %v %X %x %D')", "01 00 01 53 2021 2020 3rd"),
    (
        "DATE_FORMAT('2024-03-07 14:05:09.123456', '%a %b %c %D %d %e %f %H %h %I %i %j %k %l "
        "%M %m %p %r %S %s %T %U %u %V %v %W %w %X %x %Y %y %%')",
        "Thu Mar 3 7th 07 7 123456 14 02 02 05 067 14 2 March 03 PM 02:05:09 PM 09 09 14:05:09 "
        "09 10 09 10 Thursday 4 2024 2024 2024 24 %",
    ),
]


def test_datetime_functions_answer_as_mysql(shared_server: ServerProcess) -> None:
    with shared_server.connect() as conn, conn.cursor() as cur:
        wrong = wrong_answers(cur, CASES)
    assert not wrong, "\n".join(wrong)


def test_utc_timestamp_has_no_fraction_unless_asked(shared_server: ServerProcess) -> None:
    with shared_server.connect() as conn, conn.cursor() as cur:
        cur.execute("SELECT UTC_TIMESTAMP(), UTC_TIMESTAMP(3), UTC_TIME()")
        now, precise, clock = cur.fetchone()
    assert isinstance(now, dt.datetime) and now.microsecond == 0
    assert precise.microsecond % 1000 == 0
    assert isinstance(clock, dt.timedelta) and clock.microseconds == 0
