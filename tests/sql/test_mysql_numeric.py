"""BIT_COUNT and CONV as MySQL 8 answers them (engine/sql/mysql_numeric.py), over the wire;
MariaDB 10.11 answers the same for each."""

from __future__ import annotations


from tests.conftest import ServerProcess
from tests.support.select_answers import wrong_answers

CASES = [
    ("BIT_COUNT(b'1111')", "4"),
    ("BIT_COUNT(-1)", "64"),
    ("BIT_COUNT(NULL)", None),
    ("BIT_COUNT('7')", "3"),
    ("BIT_COUNT(7.6)", "1"),
    ("BIT_COUNT(29)", "4"),
    ("CONV(5, 10, 2)", "101"),
    ("CONV('ff', 16, 10)", "255"),
    ("CONV(-17, 10, -18)", "-H"),
    ("CONV(-1, 10, 16)", "FFFFFFFFFFFFFFFF"),
    ("CONV('6E', 18, 8)", "172"),
    ("CONV('a', 37, 8)", None),
    ("CONV(NULL, 10, 2)", None),
]


def test_bit_count_and_conv_answer_as_mysql(shared_server: ServerProcess) -> None:
    with shared_server.connect() as conn, conn.cursor() as cur:
        wrong = wrong_answers(cur, CASES)
    assert not wrong, "\n".join(wrong)
