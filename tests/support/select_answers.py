"""Expressions checked against MySQL's documented answers, one ``SELECT <expression>`` each, so a
failure names every expression that answered otherwise (tests/sql/test_mysql_*.py)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

import pymysql
from mysql_mimic import ResultColumn
from mysql_mimic.types import ColumnType

from drydock.server.results import time_text


def text_of(value: object) -> str | None:
    """A value as MySQL's text protocol shows it."""
    if value is None:
        return None
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, dt.timedelta):  # a TIME, in MySQL's text ('-838:59:59')
        return time_text(ResultColumn("t", ColumnType.TIME), value).decode()
    return str(value)


def wrong_answers(cur: Any, cases: Iterable[tuple[str, ...]]) -> list[str]:
    """``(expression, expected[, source])`` cases whose answer (or error) differs."""
    wrong = []
    for expression, expected, *source in cases:
        try:
            cur.execute(f"SELECT {expression}")
            got = text_of(cur.fetchone()[0])
        except pymysql.MySQLError as exc:
            got = f"error {exc.args[0]}: {exc.args[1]}"
        if got != expected:
            where = f" ({source[0]})" if source else ""
            wrong.append(f"{expression}: got {got!r}, MySQL {expected!r}{where}")
    return wrong
