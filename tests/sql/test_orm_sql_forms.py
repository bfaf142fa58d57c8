"""SQL forms ORMs send, answered as MySQL. LIKE's escape character (manual 14.8.1): a backslash
unless ESCAPE names another, none under NO_BACKSLASH_ESCAPES (engine/sql/collation.py
default_like_escape); Django escapes every ``_`` and ``%`` it searches for
(``codename__startswith='change_'`` is ``LIKE BINARY 'change\\_%'``). ORDER BY NULL (Django's
GROUP BY) orders nothing."""

from __future__ import annotations

import pytest

CASES = [
    (r"SELECT 'change_user' LIKE BINARY 'change\_%'", 1),
    (r"SELECT 'changexuser' LIKE BINARY 'change\_%'", 0),
    (r"SELECT 'a_b' LIKE 'a\_b'", 1),
    (r"SELECT 'axb' LIKE 'a\_b'", 0),
    (r"SELECT 'a%b' LIKE 'a\%b'", 1),
    (r"SELECT 'axb' LIKE 'a\%b'", 0),
    (r"SELECT 'axb' NOT LIKE 'a\_b'", 1),
    (r"SELECT 'a\\b' LIKE 'a\\\\b'", 1),  # an escaped backslash matches one backslash
    (r"SELECT 'a_b' LIKE 'a|_b' ESCAPE '|'", 1),
    (r"SELECT 'axb' LIKE 'a|_b' ESCAPE '|'", 0),
]


@pytest.mark.parametrize(("sql", "expected"), CASES, ids=[c[0] for c in CASES])
def test_backslash_escapes_like(shared_server, sql: str, expected: int) -> None:  # type: ignore[no-untyped-def]
    cur = shared_server.connect().cursor()
    cur.execute(sql)
    assert cur.fetchall()[0][0] == expected


def test_no_backslash_escapes_has_no_like_escape(shared_server) -> None:  # type: ignore[no-untyped-def]
    cur = shared_server.connect().cursor()
    cur.execute("SET sql_mode = 'NO_BACKSLASH_ESCAPES'")
    cur.execute(r"SELECT 'a\xyz' LIKE 'a\_%', 'a_yz' LIKE 'a\_%'")  # the backslash is a character
    assert cur.fetchall()[0] == (1, 0)


def test_django_startswith_over_a_table(shared_server) -> None:  # type: ignore[no-untyped-def]
    cur = shared_server.connect().cursor()
    cur.execute("CREATE DATABASE IF NOT EXISTS like_escape")
    cur.execute("CREATE TABLE like_escape.p (codename VARCHAR(100))")
    cur.execute("INSERT INTO like_escape.p VALUES ('change_user'), ('changeuser'), ('view_user')")
    cur.execute(r"SELECT codename FROM like_escape.p WHERE codename LIKE BINARY 'change\_%'")
    assert cur.fetchall() == (("change_user",),)


def test_order_by_null_orders_nothing(shared_server) -> None:  # type: ignore[no-untyped-def]
    """Django's GROUP BY … ORDER BY NULL (MySQL: do not sort); a string constant orders nothing
    too; an integer is a position (engine/sql/adapt.py)."""
    cur = shared_server.connect().cursor()
    cur.execute(
        "SELECT x, count(*) FROM (SELECT 1 AS x UNION ALL SELECT 1) t GROUP BY x ORDER BY NULL"
    )
    assert cur.fetchall() == ((1, 2),)
    cur.execute("SELECT 2 AS a UNION ALL SELECT 1 ORDER BY 'z', 1")
    assert cur.fetchall() == ((1,), (2,))
