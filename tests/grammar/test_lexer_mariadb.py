"""One corpus of hostile statement texts, read by grammar/lexer.py and by a real MariaDB server,
under each sql_mode that changes how text reads: where each statement ends, what each literal
holds and how many placeholders a prepared text has must be MariaDB's.

Every statement of the corpus is a ``SELECT`` of literals, so the lexer alone predicts its row:
each item is its adjacent strings joined (MySQL joins ``'a' 'b'``), a number, or — anything else
(an identifier: ``"x"`` under ANSI_QUOTES, ``- -x`` where ``--x`` is no comment) — an error that
stops the text, as MariaDB stops at the first failing statement.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pymysql
import pytest
from pymysql.constants import CLIENT

from drydock.grammar.lexer import (
    Token,
    Untokenizable,
    placeholder_positions,
    split_statements,
    text_mode,
    tokenize,
)
from tests.support.mariadb import mariadb_server

MODES = ["", "NO_BACKSLASH_ESCAPES", "ANSI_QUOTES", "NO_BACKSLASH_ESCAPES,ANSI_QUOTES"]

CORPUS = [
    # quotes of every kind, doubled and escaped
    "SELECT 'a''b', \"c\"\"d\", 'e\\'f'",
    "SELECT 'a\\'; SELECT 'b'",
    "SELECT \"a\\\"; SELECT 'b'",
    "SELECT 'x\\', 'y' -- '\n",
    "SELECT 'a\\0b', 'c\\nd', 'e\\Zf', '\\%\\_', 'g\\\\'",
    "SELECT 'a' 'b', \"c\" \"d\", 'e'",
    "SELECT N'a\\'; SELECT _utf8mb4'b\\''",
    "SELECT '\\'' ; SELECT 'b'",
    "SELECT `a`; SELECT 'b'",
    "SELECT 'a`b', \"c'd\", 'e\"f'",
    "SELECT 'a;b'; SELECT \"c;d\"",
    "SELECT 'unterminated",
    "SELECT 'a'; SELECT \"b",
    # comments in every style, -- with and without what must follow it
    "SELECT 'a' -- ; SELECT 'x'\n, 'b'",
    "SELECT 'a' --\t'x'\n, 'b'",
    "SELECT 'a' --\x01 'x'\n, 'b'",
    "SELECT 'a' --\x0b 'x'\n, 'b'",
    "SELECT 'a' --x\n, 'b'",
    "SELECT 'a' # '\n; SELECT 'b'",
    "SELECT 'a'#x\n, 'b'",
    "SELECT 'a' /* ' ; */, 'b'; SELECT 'c'",
    "SELECT 'a' /* -- */, 'b'",
    "SELECT 'a' /*! , 'b' */; SELECT 'c'",
    "SELECT 'a' /*!50000 , 'b' */, 'c'",
    "SELECT '/* a', '-- b', '# c'; SELECT 'd' /* ; */",
    "SELECT 'a' /* unterminated ; SELECT 'b'",
    "/* lead */ SELECT 'a'; # line\nSELECT 'b'",
    # backslashes where the mode decides where the literal ends
    "SELECT 'a\\' ; SELECT 'b\\'; SELECT 'c'",
    "SELECT 'a\\'' , 'c'; SELECT 'b'",
    "SELECT 'a' /* \\' */, '\\\\'; SELECT 'b'",
    "SELECT \"a\\\\\", 'b\\''",
    # identifiers and names
    "SELECT 'a', \"b\"; SELECT 'c'",
    "SELECT 'a', \"b;c\"; SELECT 'd'",
]

# Prepared texts: only the ``?`` outside literals and comments are placeholders.
PLACEHOLDER_TEXTS = [
    'SELECT ?, \'?\', "?", `??` FROM (SELECT 1 AS `??`, 2 AS "?") t',
    "SELECT ? /* ? */, ? -- ?\n, ?",
    "SELECT ? # ?\n, '\\'?', ?",
    "SELECT 'a\\'?', ?, 'b\\\\', ?",
    "SELECT 'a\\', ?, '?\\', ?",
    "SELECT ? --?\n",
    "SELECT 'a''?', ?",
]


@pytest.fixture(scope="module")
def truth() -> Iterator[pymysql.connections.Connection]:
    with mariadb_server() as (host, port):
        with pymysql.connect(
            host=host, port=port, user="root", password="", client_flag=CLIENT.MULTI_STATEMENTS
        ) as conn:
            yield conn


def _text(value: Any) -> Any:
    return value.decode() if isinstance(value, bytes) else value


def mariadb_outcome(conn: pymysql.connections.Connection, sql: str) -> list[Any]:
    """The rows of each result set of ``sql`` up to its first error, then "error"."""
    sets: list[Any] = []
    with conn.cursor() as cur:
        try:
            cur.execute(sql)
            sets.append([tuple(_text(v) for v in row) for row in cur.fetchall()])
            while cur.nextset():
                sets.append([tuple(_text(v) for v in row) for row in cur.fetchall()])
        except pymysql.err.MySQLError:
            sets.append("error")
    return sets


def lexer_outcome(sql: str, sql_mode: str) -> list[Any]:
    """What the statements of ``sql`` return, as grammar/lexer.py reads them (module docstring)."""
    mode = text_mode(sql_mode)
    sets: list[Any] = []
    for statement in split_statements(sql, mode):
        try:
            tokens = tokenize(statement, mode)
        except Untokenizable:
            return [*sets, "error"]
        row = _row(tokens)
        if row is None:
            return [*sets, "error"]
        sets.append([row])
    return sets


def _row(tokens: list[Token]) -> tuple[Any, ...] | None:
    if not tokens or tokens[0].upper != "SELECT":
        return None
    items: list[list[Token]] = [[]]
    for token in tokens[1:]:
        if token.text == ";":
            break
        if token.text == ",":
            items.append([])
        elif not (token.kind == "word" and token.text.startswith("_")):  # a charset introducer
            items[-1].append(token)
    row: list[Any] = []
    for item in items:
        if item and all(t.kind == "string" for t in item):
            row.append("".join(t.value for t in item))
        elif len(item) == 1 and item[0].kind == "number":
            row.append(int(item[0].text))
        else:
            return None
    return tuple(row)


@pytest.mark.parametrize("sql_mode", MODES)
def test_statement_ends_and_literals_are_mariadbs(
    truth: pymysql.connections.Connection, sql_mode: str
) -> None:
    with truth.cursor() as cur:
        cur.execute(f"SET sql_mode = '{sql_mode}'")
    differ = [
        (sql, expected, got)
        for sql in CORPUS
        if (expected := mariadb_outcome(truth, sql)) != (got := lexer_outcome(sql, sql_mode))
    ]
    assert differ == []


@pytest.mark.parametrize("sql_mode", MODES)
def test_placeholders_are_mariadbs(truth: pymysql.connections.Connection, sql_mode: str) -> None:
    differ = []
    with truth.cursor() as cur:
        cur.execute(f"SET sql_mode = '{sql_mode}'")
        for sql in PLACEHOLDER_TEXTS:
            count = len(placeholder_positions(sql, text_mode(sql_mode)))
            try:
                cur.execute(f"PREPARE s FROM X'{sql.encode().hex()}'")
            except pymysql.err.ProgrammingError:  # a syntax error: a literal left open here too
                if _tokenizes(sql, sql_mode):
                    differ.append((sql, count, "MariaDB refuses the text"))
                continue
            runs = []
            for values in (count, count + 1):  # MariaDB runs it with exactly its own count
                names = [f"@p{i}" for i in range(values)]
                cur.execute("SET " + ", ".join(f"{n} = 1" for n in names) if names else "DO 0")
                using = " USING " + ", ".join(names) if names else ""
                try:
                    cur.execute("EXECUTE s" + using)
                    cur.fetchall()
                    runs.append(True)
                except pymysql.err.MySQLError:
                    runs.append(False)
            if runs != [True, False]:
                differ.append((sql, count, runs))
    assert differ == []


def _tokenizes(sql: str, sql_mode: str) -> bool:
    try:
        tokenize(sql, text_mode(sql_mode))
    except Untokenizable:
        return False
    return True


def test_the_comparison_sees_a_disagreement(truth: pymysql.connections.Connection) -> None:
    """The model is not vacuous: a reading that differs from MariaDB's is caught."""
    with truth.cursor() as cur:
        cur.execute("SET sql_mode = ''")
    sql = "SELECT 'a\\'; SELECT 'b'"
    expected = mariadb_outcome(truth, sql)
    assert expected == lexer_outcome(sql, "") == ["error"]  # one literal, left open
    assert expected != lexer_outcome(sql, "NO_BACKSLASH_ESCAPES")  # that mode ends 'a\' early
