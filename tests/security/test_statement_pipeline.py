"""The plain-SQL path as an attacker sees it: one parse, authorize what executes, evaluate nothing.

Each class of the issue "One statement pipeline" has tests here, run as a user with no grants,
a user with one table granted, and root. Every test fails on the pipeline it replaced.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pymysql
import pytest

from tests.conftest import ServerProcess

SECRET = "s3cr3t-row"


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(data_dir=tmp_path_factory.mktemp("pipeline") / "data").start()
    for sql in (
        "CREATE DATABASE d",
        "CREATE TABLE d.secret (id INT, v VARCHAR(40))",
        f"INSERT INTO d.secret VALUES (1, '{SECRET}')",
        "CREATE TABLE d.pub (id INT, v VARCHAR(40))",
        "INSERT INTO d.pub VALUES (1, 'public')",
        "CREATE USER 'nobody'@'%' IDENTIFIED BY 'pw'",
        "CREATE USER 'reader'@'%' IDENTIFIED BY 'pw'",
        "GRANT SELECT_PRIV ON internal.d.pub TO 'reader'@'%'",
    ):
        proc.query(sql)
    yield proc
    proc.stop()


def run_as(srv: ServerProcess, user: str, sql: str, database: str | None = None) -> list[tuple]:
    password = "" if user == "root" else "pw"
    with srv.connect(user=user, password=password, database=database) as conn, conn.cursor() as cur:
        cur.execute(sql)
        return list(cur.fetchall())


def error_of(srv: ServerProcess, user: str, sql: str, database: str | None = None) -> int:
    with pytest.raises(pymysql.err.MySQLError) as info:
        run_as(srv, user, sql, database)
    return int(info.value.args[0])


# -- reading tables without privileges: CTE scoping ------------------------------------------------
CTE_SHADOWING = [
    "WITH secret AS (SELECT * FROM secret) SELECT * FROM secret",
    "SELECT * FROM (WITH secret AS (SELECT * FROM d.pub) SELECT * FROM secret) q, (SELECT * FROM "
    "secret) r",
    "SELECT * FROM (WITH secret AS (SELECT 1 AS id) SELECT * FROM secret) q, secret",
    "WITH a AS (SELECT * FROM pub), b AS (SELECT * FROM secret) SELECT * FROM a",
    "WITH a AS (SELECT * FROM pub) SELECT * FROM a UNION ALL SELECT id, v FROM secret",
    "SELECT (WITH secret AS (SELECT 1) SELECT 2) AS x, v FROM secret",
    "WITH RECURSIVE r AS (SELECT * FROM secret UNION ALL SELECT * FROM r WHERE false) SELECT * "
    "FROM r",
    "SELECT * FROM pub WHERE id IN (WITH secret AS (SELECT * FROM secret) SELECT id FROM secret)",
    "SELECT * FROM pub WHERE EXISTS (SELECT 1 FROM secret WHERE v LIKE 's%')",
]


@pytest.mark.parametrize("sql", CTE_SHADOWING)
def test_a_cte_never_hides_a_real_table_from_the_privilege_check(
    srv: ServerProcess, sql: str
) -> None:
    assert error_of(srv, "reader", sql, database="d") == 1142


def test_ctes_over_granted_tables_still_work(srv: ServerProcess) -> None:
    assert run_as(srv, "reader", "WITH pub AS (SELECT * FROM pub) SELECT v FROM pub", "d") == [
        ("public",)
    ]
    assert run_as(
        srv,
        "reader",
        "WITH a AS (SELECT v FROM d.pub), b AS (SELECT * FROM a) SELECT b.v FROM b",
        "d",
    ) == [("public",)]
    assert run_as(
        srv, "root", "WITH secret AS (SELECT * FROM secret) SELECT v FROM secret", "d"
    ) == [(SECRET,)]


# -- table functions and DuckDB system catalogs --------------------------------------------------
SYSTEM_READS = [
    "SELECT * FROM duckdb_tables()",
    "SELECT sql FROM duckdb_tables",
    "SELECT * FROM duckdb_settings()",
    "SELECT * FROM pragma_table_info('d.secret')",
    "SELECT * FROM pragma_database_list",
    "SELECT * FROM mysql_is.main.tables",
    "SELECT * FROM system.main.duckdb_tables",
    "SELECT * FROM temp.main.duckdb_tables",
    "SELECT * FROM sqlite_master",
    "SELECT * FROM pg_catalog.pg_class",
    "SELECT * FROM query_table('d.secret')",
    "SELECT * FROM query('SELECT * FROM d.secret')",
    "SELECT current_setting('home_directory')",
    "SELECT current_setting('temp_directory')",
    "SELECT * FROM duckdb_databases()",
    "SELECT * FROM read_csv('/etc/passwd')",
    "SELECT * FROM d.pub, duckdb_columns() c",
    "SELECT * FROM glob('/*')",
]


@pytest.mark.parametrize("user", ["nobody", "reader", "root"])
@pytest.mark.parametrize("sql", SYSTEM_READS)
def test_table_functions_and_system_catalogs_are_denied(
    srv: ServerProcess, sql: str, user: str
) -> None:
    code = error_of(srv, user, sql, database=None if user == "nobody" else "d")
    assert code in (1142, 1146, 1105, 1305, 1049, 1046, 1064), code
    with srv.connect() as conn:  # the server is still there
        assert conn.ping() is None


def test_pure_table_functions_stay_allowed(srv: ServerProcess) -> None:
    assert run_as(srv, "nobody", "SELECT count(*) FROM range(5)") == [(5,)]
    assert run_as(srv, "nobody", "SELECT * FROM generate_series(1, 3) ORDER BY 1") == [
        (1,),
        (2,),
        (3,),
    ]


def test_information_schema_is_filtered_for_everyone(srv: ServerProcess) -> None:
    tables = {
        r[0]
        for r in run_as(
            srv,
            "reader",
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'd'",
        )
    }
    assert tables == {"pub"}
    assert (
        run_as(
            srv,
            "nobody",
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'd'",
        )
        == []
    )


# -- no Python evaluation of client input ---------------------------------------------------------
PAYLOADS = [
    "SELECT 1 AS `a'); open('{canary}', 'w').write('x'); ('`",
    "SELECT `x'); open('{canary}','w'); ('` FROM (SELECT 1 AS `x'); open('{canary}','w'); ('`) q",
    "SELECT 'a' AS \"b\\\"); __import__('os').system('touch {canary}'); (\\\"\"",
    "SELECT CONCAT('a', `b'); __import__('os').system('touch {canary}'); ('`)",
    "SET @x = `y'); __import__('os').system('touch {canary}'); ('`",
    "SET sql_mode = CONCAT(`y'); __import__('os').system('touch {canary}'); ('`, 'a')",
    "SELECT 1 + `x'] or __import__('os').system('touch {canary}') or ['`",
]


@pytest.mark.parametrize("payload", PAYLOADS)
def test_crafted_identifiers_run_no_python(
    srv: ServerProcess, tmp_path: Path, payload: str
) -> None:
    canary = tmp_path / "pwned"
    sql = payload.format(canary=canary)
    for user in ("nobody", "root"):
        try:
            run_as(srv, user, sql)
        except pymysql.err.MySQLError:
            pass  # refused or a plain SQL error: either is fine, running Python is not
        assert not canary.exists(), f"{sql} ran Python as {user}"


def test_from_less_selects_and_set_values_are_computed_by_duckdb(srv: ServerProcess) -> None:
    assert run_as(srv, "nobody", "SELECT sqrt(16), 1 + 1, concat('a', 'b')") == [(4.0, 2, "ab")]
    with srv.connect(user="nobody", password="pw") as conn, conn.cursor() as cur:
        cur.execute("SET @v = 2 * 21")
        cur.execute("SET sql_mode = concat(@@sql_mode, ',ANSI_QUOTES')")
        cur.execute("SELECT @v, @@sql_mode")
        value, mode = cur.fetchone()
        assert int(value) == 42 and "ANSI_QUOTES" in mode


def test_no_module_imports_the_sqlglot_executor() -> None:
    root = Path(__file__).resolve().parents[2]
    for package in ("server", "engine", "grammar"):
        for path in (root / package).rglob("*.py"):
            text = path.read_text()
            assert "sqlglot.executor" not in text and "sqlglot_execute" not in text, path
            assert "eval(" not in text.replace("evaluate(", "").replace("_eval(", ""), path


def test_the_executor_is_never_reached_in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every FROM-less SELECT / SET runs through Engine.execute with sqlglot's executor trapped."""
    import sqlglot.executor
    import sqlglot.executor.python

    from drydock.engine.core import Engine
    from drydock.engine.statements import execute as execute_statement
    from drydock.engine.session import SessionContext
    from mysql_mimic.variables import SessionVariables
    from drydock.server.session import GLOBAL_VARIABLES, parse

    def trap(*_a: object, **_k: object) -> None:
        raise AssertionError("sqlglot's Python executor was reached")

    monkeypatch.setattr(sqlglot.executor, "execute", trap)
    monkeypatch.setattr(sqlglot.executor.python.PythonExecutor, "__init__", trap)
    engine = Engine(tmp_path / "data")
    try:
        ctx = SessionContext(
            user="root",
            host="127.0.0.1",
            connection_id=1,
            query=engine.query_session(),
            variables=SessionVariables(GLOBAL_VARIABLES),
        )
        for sql in (
            "SELECT 1 + 2",
            "SELECT @@version_comment",
            "SELECT DATABASE(), USER(), VERSION()",
            "SET @a = concat('x', 'y')",
            "SET sql_mode = concat(@@sql_mode, ',NO_ZERO_DATE')",
            "SELECT @a",
            "SET NAMES utf8mb4",
            "SHOW VARIABLES LIKE 'sql%'",
            "BEGIN",
            "COMMIT",
        ):
            execute_statement(engine, parse(sql), ctx)
        assert ctx.user_variables["a"] == "xy"
    finally:
        engine.close()


# -- routing by parse: KILL cannot fall through to another handler ---------------------------------
KILL_SPELLINGS = [
    "; KILL {id}",
    ";;KILL {id}",
    "/* c */ KILL {id}",
    "/*!KILL {id}*/",
    "/*!50000 KILL {id} */",
    "# c\nKILL {id}",
    "-- c\nKILL {id}",
    "\t\n KILL CONNECTION {id};",
    "kill query {id}",
]


@pytest.mark.parametrize("spelling", KILL_SPELLINGS)
def test_kill_of_someone_elses_connection_is_refused_however_written(
    srv: ServerProcess, spelling: str
) -> None:
    with srv.connect() as victim, victim.cursor() as vcur:
        vcur.execute("SELECT CONNECTION_ID()")
        victim_id = vcur.fetchone()[0]
        assert error_of(srv, "nobody", spelling.format(id=victim_id)) == 1095
        vcur.execute("SELECT 1")
        assert vcur.fetchone() == (1,)


# -- no text rewriting: string literals are stored as written -------------------------------------
LITERALS = [
    "paid for time as of today",
    "x FOR TIME AS OF y",
    "t@tag('v1')",
    '@tag("x")',
    "FOR VERSION AS OF 3",
    "for timestamp as of '2020-01-01'",
    "/*! KILL 1 */",
    "-- not a comment",
    "a;b",
    "SELECT 1; KILL 2",
]


def test_string_literals_round_trip_unchanged(srv: ServerProcess) -> None:
    srv.query("CREATE TABLE IF NOT EXISTS d.notes (id INT, s VARCHAR(200))")
    srv.query("DELETE FROM d.notes")
    for i, text in enumerate(LITERALS):
        srv.query("INSERT INTO d.notes VALUES (%s, %s)", i, text)
    stored = dict(srv.query("SELECT id, s FROM d.notes"))
    assert [stored[i] for i in range(len(LITERALS))] == LITERALS


# -- MySQL column labels --------------------------------------------------------------------------
LABELS = [
    ("SELECT 1 AS JobId", ["JobId"]),
    ("SELECT COUNT(*) FROM d.pub", ["COUNT(*)"]),
    ("SELECT count(*) AS `Total Rows` FROM d.pub", ["Total Rows"]),
    ("SELECT IFNULL(NULL,1), id, v AS Value FROM d.pub", ["IFNULL(NULL,1)", "id", "Value"]),
    ("SELECT DATABASE(), VERSION()", ["DATABASE()", "VERSION()"]),
    ("SELECT 1+1, 'abc'", ["1+1", "abc"]),
    ("SELECT MAX(id) mx, Min(id) FROM d.pub", ["mx", "Min(id)"]),
]


@pytest.mark.parametrize("sql, labels", LABELS)
def test_labels_are_what_mysql_answers(srv: ServerProcess, sql: str, labels: list[str]) -> None:
    with srv.connect() as conn, conn.cursor() as cur:
        cur.execute(sql)
        assert [d[0] for d in cur.description] == labels


# -- one access check for the session database ----------------------------------------------------
def test_change_user_checks_the_database_like_use(srv: ServerProcess) -> None:
    import mysql.connector

    conn = mysql.connector.connect(
        host=srv.host, port=srv.port, user="root", password="", use_pure=True
    )
    try:
        with pytest.raises(mysql.connector.Error) as info:
            conn.cmd_change_user(username="nobody", password="pw", database="d")
        assert info.value.errno in (1044, 1045, 1049)
    finally:
        try:
            conn.close()
        except mysql.connector.Error:
            pass
    assert error_of(srv, "nobody", "SELECT 1", database="d") == 1044  # the handshake, likewise
    with srv.connect(user="nobody", password="pw") as conn:
        with pytest.raises(pymysql.err.MySQLError) as denied:
            conn.select_db("d")  # COM_INIT_DB
        assert denied.value.args[0] == 1044


KEYWORDS = [
    "for",
    "time",
    "as",
    "of",
    "version",
    "timestamp",
    "@tag(",
    "'",
    '"',
    "`",
    "/*!",
    "*/",
    "--",
    "#",
    ";",
    "kill",
    "select",
    "\\",
    "@@version",
    "@v",
    "?",
    "%",
    "FOR TIME AS OF",
]


def test_random_strings_with_every_keyword_round_trip(srv: ServerProcess) -> None:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    srv.query("CREATE TABLE IF NOT EXISTS d.fuzz_notes (id INT, s VARCHAR(500))")
    pieces = st.one_of(st.sampled_from(KEYWORDS), st.text(max_size=6), st.just(" "))

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.lists(pieces, max_size=12).map("".join))
    def round_trip(text: str) -> None:
        text = text.replace("\x00", "")
        with srv.connect() as conn, conn.cursor() as cur:
            cur.execute("DELETE FROM d.fuzz_notes")
            cur.execute("INSERT INTO d.fuzz_notes VALUES (1, %s)", (text,))
            cur.execute("SELECT s FROM d.fuzz_notes WHERE s = %s", (text,))
            assert cur.fetchall() == ((text,),)

    round_trip()


def test_a_grant_on_a_differently_cased_name_reads_what_duckdb_resolves(srv: ServerProcess) -> None:
    """DuckDB resolves internal names case-insensitively; privileges compare the same way, so a
    grant can neither be dodged nor stretched by changing the case of a name."""
    srv.query("CREATE USER IF NOT EXISTS 'caser'@'%' IDENTIFIED BY 'pw'")
    srv.query("GRANT SELECT_PRIV ON internal.D.PUB TO 'caser'@'%'")
    assert run_as(srv, "caser", "SELECT v FROM d.pub") == [("public",)]
    assert run_as(srv, "caser", "SELECT v FROM D.Pub") == [("public",)]
    assert error_of(srv, "caser", "SELECT v FROM D.SECRET") == 1142
    assert error_of(srv, "reader", "SELECT v FROM D.Secret", database="d") == 1142
