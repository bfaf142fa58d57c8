"""sql_mode-honest text: a value escaped the way a driver escapes it under the session's sql_mode
reads back as exactly that one value, and never runs extra SQL.

Drivers escape by the mode: mysql-connector (``conversion.py`` MySQLConverter.escape with the
connection's sql_mode) and MySQL Connector/J (``ClientPreparedQueryBindings.setString`` with
noBackslashEscapes / ANSI quoted identifiers) double quotes and keep backslashes under
NO_BACKSLASH_ESCAPES. A server that read ``\\'`` as an escaped quote regardless of the mode let a
correctly escaped parameter ``x\\' UNION ALL SELECT current_user() -- `` end its literal early.

For each mode (default, NO_BACKSLASH_ESCAPES, ANSI_QUOTES, both) and a corpus of hostile values:
the text protocol, COM_STMT_PREPARE with the literal in the prepared text, SQL PREPARE / EXECUTE,
and CLIENT_MULTI_STATEMENTS; the real drivers (pymysql, MariaDB Connector/J and the
mysql-connector C extension escape by the SERVER_STATUS_NO_BACKSLASH_ESCAPES flag, pure
mysql-connector by @@sql_mode); the flag itself over the wire; the parse caches across modes. A
real MariaDB, when installed, is the ground truth for where statements end and what each literal
holds, for raw texts and for the hostile values pasted unescaped (skipped with the reason when
mariadbd is absent).
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pymysql
import pytest
from pymysql.constants import CLIENT

from tests.conftest import ServerProcess
from tests.support.mariadb import mariadb_server

MODES = {
    "default": "",
    "nbe": "NO_BACKSLASH_ESCAPES",
    "ansi_quotes": "ANSI_QUOTES",
    "both": "ANSI_QUOTES,NO_BACKSLASH_ESCAPES",
}
NO_BACKSLASH_ESCAPES = 0x0200
INJECTION = "x\\' UNION ALL SELECT current_user() -- "

VALUES = [
    "plain",
    "it's",
    "''",
    "\\",
    "back\\slash",
    "trailing\\",
    "\\'",
    "\\\\'",
    "'\\",
    '"',
    '\\"',
    '""',
    "\\N",
    "\\%",
    "\\_",
    "\\0",
    "\\n",
    "-- ",
    "--",
    "#",
    "/*",
    "*/",
    "/*!50000 SELECT 1 */",
    ";",
    "; SELECT current_user()",
    "a\0b",
    "\x1a",
    "line\nbreak\r\t",
    "é中文😀",
    "`",
    "``",
    "?",
    "\\?",
    INJECTION,
    "x' UNION ALL SELECT current_user() -- ",
    "x\\'; SELECT current_user(); -- ",
    '" OR 1=1 -- ',
    '\\" UNION ALL SELECT current_user() -- ',
    "x\\\\' -- ",
]


# -- the drivers' escaping, by mode ---------------------------------------------------------------
def connector_python(value: str, nbe: bool, ansi_quotes: bool) -> str:
    """mysql-connector's MySQLConverter.escape (conversion.py), then its quote()."""
    del ansi_quotes  # mysql-connector escapes the same under ANSI_QUOTES
    if nbe:
        return "'" + value.replace("'", "''") + "'"
    for raw, escaped in (
        ("\\", "\\\\"),
        ("\n", "\\n"),
        ("\r", "\\r"),
        ("'", "\\'"),
        ('"', '\\"'),
        ("\x1a", "\\\x1a"),
    ):
        value = value.replace(raw, escaped)
    return "'" + value + "'"


def connector_j(value: str, nbe: bool, ansi_quotes: bool) -> str:
    """MySQL Connector/J's ClientPreparedQueryBindings.setString: under NO_BACKSLASH_ESCAPES a
    value that needs escaping goes as bytes (setBytes: a hex literal), else quotes are doubled and
    backslash escapes used for the rest (``"`` escaped only under ANSI quoted identifiers)."""
    needs_escape = any(c in value for c in "\0\n\r\x1a\"'\\")
    if nbe:
        return "x'" + value.encode().hex() + "'" if needs_escape else "'" + value + "'"
    out = []
    for c in value:
        out.append(
            {
                "\0": "\\0",
                "\n": "\\n",
                "\r": "\\r",
                "\\": "\\\\",
                "'": "''",
                "\x1a": "\\Z",
                '"': '\\"' if ansi_quotes else '"',
            }.get(c, c)
        )
    return "'" + "".join(out) + "'"


ESCAPERS: dict[str, Callable[[str, bool, bool], str]] = {
    "connector_python": connector_python,
    "connector_j": connector_j,
}


def _flags(mode: str) -> tuple[bool, bool]:
    return "NO_BACKSLASH_ESCAPES" in mode, "ANSI_QUOTES" in mode


def _text(value: Any) -> Any:
    return value.decode() if isinstance(value, (bytes, bytearray)) else value


def _select(mode: str, literal: str) -> str:
    """``SELECT literal`` from a one-row table, its names quoted as the mode quotes identifiers
    (under ANSI_QUOTES a server that read ``"c"`` as a string would compare 'c' = 1: no row)."""
    q = '"' if "ANSI_QUOTES" in mode else "`"
    return f"SELECT {literal} AS {q}v{q} FROM (SELECT 1 AS {q}c{q}) AS {q}t{q} WHERE {q}c{q} = 1"


# -- fixtures -------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def conns(shared_server: ServerProcess) -> Iterator[dict[str, pymysql.connections.Connection]]:
    """One multi-statement connection per mode, its sql_mode set."""
    out = {}
    for name, mode in MODES.items():
        conn = shared_server.connect(client_flag=CLIENT.MULTI_STATEMENTS)
        with conn.cursor() as cur:
            cur.execute(f"SET sql_mode = '{mode}'")
        out[name] = conn
    yield out
    for conn in out.values():
        conn.close()


def _results(conn: pymysql.connections.Connection, sql: str) -> list[list[tuple[Any, ...]]]:
    """Every result set of ``sql`` (text protocol, pymysql sends it as it is)."""
    with conn.cursor() as cur:
        cur.execute(sql)  # no args: pymysql does not touch the text
        sets = [[tuple(_text(v) for v in row) for row in cur.fetchall()]]
        while cur.nextset():
            sets.append([tuple(_text(v) for v in row) for row in cur.fetchall()])
    return sets


# -- the status flag ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", MODES)
def test_the_no_backslash_escapes_status_flag_follows_the_mode(
    shared_server: ServerProcess, name: str
) -> None:
    mode = MODES[name]
    with shared_server.connect() as conn, conn.cursor() as cur:
        assert not conn.server_status & NO_BACKSLASH_ESCAPES  # the default mode at connect
        cur.execute(f"SET sql_mode = '{mode}'")  # the OK of the SET carries the new mode
        assert bool(conn.server_status & NO_BACKSLASH_ESCAPES) == ("NO_BACKSLASH_ESCAPES" in mode)
        cur.execute("SELECT 1")  # and the EOF/OK after rows
        cur.fetchall()
        assert bool(conn.server_status & NO_BACKSLASH_ESCAPES) == ("NO_BACKSLASH_ESCAPES" in mode)
        cur.execute("SET sql_mode = DEFAULT")
        assert not conn.server_status & NO_BACKSLASH_ESCAPES


# -- the text protocol and multi-statements
# ---------------------------------------------------------
@pytest.mark.parametrize("escaper", ESCAPERS)
@pytest.mark.parametrize("name", MODES)
def test_an_escaped_value_reads_back_as_one_value(
    conns: dict[str, Any], name: str, escaper: str
) -> None:
    mode, conn = MODES[name], conns[name]
    escape = ESCAPERS[escaper]
    wrong = []
    for value in VALUES:
        literal = escape(value, *_flags(mode))
        got = _results(conn, _select(mode, literal))
        if got != [[(value,)]]:
            wrong.append((value, literal, got))
    assert wrong == []


@pytest.mark.parametrize("escaper", ESCAPERS)
@pytest.mark.parametrize("name", MODES)
def test_multi_statements_split_where_the_mode_ends_literals(
    conns: dict[str, Any], name: str, escaper: str
) -> None:
    mode, conn = MODES[name], conns[name]
    escape = ESCAPERS[escaper]
    wrong = []
    for value in VALUES:
        literal = escape(value, *_flags(mode))
        sql = f"{_select(mode, literal)}; SELECT 'after', {literal}"
        got = _results(conn, sql)
        if got != [[(value,)], [("after", value)]]:
            wrong.append((value, literal, got))
    assert wrong == []


def test_a_mode_set_in_a_multi_statement_reads_the_statements_after_it(
    shared_server: ServerProcess,
) -> None:
    """MySQL reads each statement of a multi-statement text after the one before it ran."""
    with shared_server.connect(client_flag=CLIENT.MULTI_STATEMENTS) as conn:
        got = _results(
            conn, "SET sql_mode = 'NO_BACKSLASH_ESCAPES'; SELECT 'a\\'; -- '; SELECT current_user()"
        )
        assert got == [[], [("a\\",)]]
        assert conn.server_status & NO_BACKSLASH_ESCAPES
        got = _results(conn, "SET sql_mode = ''; SELECT 'a\\'; SELECT 2'")
        assert got == [[], [("a'; SELECT 2",)]]
        got = _results(
            conn,
            "SET sql_mode = 'ANSI_QUOTES'; SELECT \"x\" FROM (SELECT 5 AS x) t; SET sql_mode = ''",
        )
        assert got == [[], [(5,)], []]


# -- prepared statements -------------------------------------------------------------------------
@pytest.mark.parametrize("name", MODES)
def test_sql_prepare_reads_its_text_under_the_mode(conns: dict[str, Any], name: str) -> None:
    """PREPARE s FROM '<text>': the text is a literal escaped by the mode, and holds a literal and a
    placeholder of its own; EXECUTE binds a user variable set from a literal."""
    mode, conn = MODES[name], conns[name]
    nbe, ansi = _flags(mode)
    wrong = []
    for value in VALUES:
        literal = connector_python(value, nbe, ansi)
        prepared = connector_python(f"SELECT {literal}, ?", nbe, ansi)
        got = _results(
            conn,
            f"SET @p = {literal}; PREPARE s FROM {prepared}; EXECUTE s USING @p; "
            "DEALLOCATE PREPARE s",
        )
        if got != [[], [], [(value, value)], []]:
            wrong.append((value, prepared, got))
    assert wrong == []


@pytest.mark.parametrize("use_pure", [True, False], ids=["pure", "c_ext"])
@pytest.mark.parametrize("name", MODES)
def test_com_stmt_prepare_with_literals_and_driver_escaping(
    shared_server: ServerProcess, name: str, use_pure: bool
) -> None:
    """mysql-connector: the text protocol with its own escaping (pure Python reads @@sql_mode, the
    C extension the status flag), and COM_STMT_PREPARE of a text holding the literal and a ``?``."""
    connector = pytest.importorskip("mysql.connector")
    if not use_pure:
        try:
            import _mysql_connector  # noqa: F401
        except ImportError as exc:
            pytest.skip(f"mysql-connector's C extension does not load here: {exc}")
    mode = MODES[name]
    conn = connector.connect(
        host=shared_server.host,
        port=shared_server.port,
        user="root",
        password="",
        use_pure=use_pure,
        autocommit=True,
    )
    try:
        conn.cmd_query(f"SET sql_mode = '{mode}'")
        conn._sql_mode = None  # noqa: SLF001 - what a driver caches: read @@sql_mode again
        wrong = []
        for value in VALUES:
            cur = conn.cursor()
            cur.execute("SELECT %s", (value,))  # the driver escapes by the mode
            rows = [tuple(_text(v) for v in r) for r in cur.fetchall()]
            cur.close()
            literal = connector_python(value, *_flags(mode))
            prepared = conn.cursor(prepared=True)
            prepared.execute(f"SELECT {literal}, ?", (value,))
            prepared_rows = [tuple(_text(v) for v in r) for r in prepared.fetchall()]
            prepared.close()
            if rows != [(value,)] or prepared_rows != [(value, value)]:
                wrong.append((value, rows, prepared_rows))
        assert wrong == []
    finally:
        conn.close()


@pytest.mark.parametrize("name", MODES)
def test_pymysql_parameters_under_the_mode(shared_server: ServerProcess, name: str) -> None:
    """pymysql escapes by the SERVER_STATUS_NO_BACKSLASH_ESCAPES flag of the last OK/EOF."""
    with shared_server.connect(client_flag=CLIENT.MULTI_STATEMENTS) as conn, conn.cursor() as cur:
        cur.execute(f"SET sql_mode = '{MODES[name]}'")
        wrong = []
        for value in VALUES:
            cur.execute("SELECT %s", (value,))
            rows = [tuple(_text(v) for v in r) for r in cur.fetchall()]
            extra = cur.nextset()
            if rows != [(value,)] or extra:
                wrong.append((value, rows))
        assert wrong == []


# -- ground truth: a real MariaDB ------------------------------------------------------------------
@pytest.fixture(scope="module")
def mariadb() -> Iterator[tuple[str, int]]:
    with mariadb_server() as address:
        yield address


# Raw texts, not escaped by any rule: where each statement ends and what each literal holds is
# whatever the mode says; drydock must say the same as MariaDB.
RAW_TEXTS = [
    "SELECT 'a\\'; SELECT 'b'",
    "SELECT 'a\\'; -- '; SELECT 'b'\nSELECT 'c'",
    "SELECT 'a\\'' , 'c'; SELECT 'b'",
    "SELECT \"a\\\"; SELECT 'b'",
    "SELECT 'a''b', 'c\\\\d'; SELECT 'e'",
    "SELECT 'x\\' UNION ALL SELECT 'y' -- '",
    "SELECT 'a' /* ' */; SELECT '\\\\'",
    "SELECT 'a\\0b', 'c\\nd', 'e\\Zf', '\\%\\_'",
    "SELECT N'a\\'; SELECT _utf8mb4'b\\''",
    "SELECT 'a' # '\n; SELECT 'b'",
    "SELECT 'a\\' ; SELECT 'b\\'; SELECT 'c'",
    "SELECT '\\'' ; SELECT 'b'",
]


def _outcome(conn: pymysql.connections.Connection, sql: str) -> list[Any]:
    """The result sets of ``sql`` up to its first error, then "error" (the codes of syntax errors
    differ between servers; where the text stops running is the question)."""
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


@pytest.mark.parametrize("name", MODES)
def test_statement_ends_and_literals_agree_with_mariadb(
    mariadb: tuple[str, int], conns: dict[str, Any], name: str
) -> None:
    mode = MODES[name]
    host, port = mariadb
    with pymysql.connect(
        host=host, port=port, user="root", password="", client_flag=CLIENT.MULTI_STATEMENTS
    ) as truth:
        with truth.cursor() as cur:
            cur.execute(f"SET sql_mode = '{mode}'")
        texts = list(RAW_TEXTS)
        if "ANSI_QUOTES" in mode:
            texts += [
                "SELECT \"x\" FROM (SELECT 5 AS x) t; SELECT 'b'",
                'SELECT "x""y" FROM (SELECT 6 AS `x"y`) t',
            ]
        differ = []
        for sql in texts:
            expected, got = _outcome(truth, sql), _outcome(conns[name], sql)
            if got != expected:
                differ.append((sql, expected, got))
        assert differ == []


# -- MariaDB Connector/J: escapes by the status flag
# ------------------------------------------------
JAR = Path("/usr/share/java/mariadb-java-client.jar")
JAVA_SOURCE = Path(__file__).resolve().parent.parent / "jdbc" / "DrydockJdbcSqlMode.java"


def test_connector_j_escapes_by_the_flag_and_reads_back_one_value(
    shared_server: ServerProcess, tmp_path: Path
) -> None:
    javac, java = shutil.which("javac"), shutil.which("java")
    if javac is None or java is None or not JAR.exists():
        pytest.skip(
            "needs javac, java and /usr/share/java/mariadb-java-client.jar "
            "(apt-get install default-jdk-headless libmariadb-java)"
        )
    subprocess.run(
        [javac, "-cp", str(JAR), "-d", str(tmp_path), str(JAVA_SOURCE)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    url = f"jdbc:mysql://{shared_server.host}:{shared_server.port}/?user=root&password="
    run = subprocess.run(
        [java, "-cp", f"{JAR}:{tmp_path}", "DrydockJdbcSqlMode", url, *MODES.values()],
        input="\n".join(v.encode().hex() for v in VALUES) + "\n",
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert run.returncode == 0, run.stderr
    lines = [line.split("\t") for line in run.stdout.splitlines()]
    assert len(lines) == len(MODES) * len(VALUES)
    wrong = [
        (mode, VALUES[int(i)], got, rows, more)
        for mode, i, got, rows, more in lines
        if (got, rows, more) != (VALUES[int(i)].encode().hex(), "1", "false")
    ]
    assert wrong == []


@pytest.mark.parametrize("name", MODES)
def test_hostile_values_unescaped_end_where_mariadb_ends_them(
    mariadb: tuple[str, int], conns: dict[str, Any], name: str
) -> None:
    """Each hostile value pasted between quotes as it is (no escaping at all), and each one
    escaped as mysql-connector escapes it: drydock's results (or where it stops with an error)
    are MariaDB's."""
    mode = MODES[name]
    host, port = mariadb
    with pymysql.connect(
        host=host, port=port, user="root", password="", client_flag=CLIENT.MULTI_STATEMENTS
    ) as truth:
        with truth.cursor() as cur:
            cur.execute(f"SET sql_mode = '{mode}'")
        differ = []
        for value in VALUES:
            value = value.replace("current_user()", "(1+1)")  # the servers' users differ: same rows
            for sql in (
                f"SELECT '{value}' AS v; SELECT 'next'",
                f"SELECT 'a', \"{value}\" AS v; SELECT 'next'",
                f"SELECT {connector_python(value, *_flags(mode))} AS v; SELECT 'next'",
            ):
                # a last line of its own: text a value's "-- " comments out ends at the newline
                # (a text ending in a comment is one more empty answer in MariaDB, none in
                # drydock, whatever the mode: not the question here)
                sql += "\nSELECT 'last'"
                expected, got = _outcome(truth, sql), _outcome(conns[name], sql)
                if got != expected:
                    differ.append((sql, expected, got))
        assert differ == []


def test_cached_parses_never_cross_modes(shared_server: ServerProcess) -> None:
    """The same client text, repeated under one mode then another: the statement-shape and parse
    caches (keyed on the respelt text, which has one meaning) never answer with another mode's
    reading."""
    texts = {
        "SELECT 'a\\\\', 'b' FROM (SELECT 1 AS c) t WHERE c = 1": {
            "": [("a\\", "b")],
            "NO_BACKSLASH_ESCAPES": [("a\\\\", "b")],
        },
        "SELECT \"c\", 'b' FROM (SELECT 1 AS c) t WHERE 1 = 1": {
            "": [("c", "b")],
            "ANSI_QUOTES": [(1, "b")],
        },
    }
    with shared_server.connect() as conn, conn.cursor() as cur:
        for text, by_mode in texts.items():
            for mode in [*by_mode, *by_mode, *by_mode]:
                cur.execute(f"SET sql_mode = '{mode}'")
                for _ in range(3):
                    cur.execute(text)
                    assert [tuple(r) for r in cur.fetchall()] == by_mode[mode], (text, mode)
