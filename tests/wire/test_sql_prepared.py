"""User variables and SQL-level prepared statements (PREPARE / EXECUTE / DEALLOCATE PREPARE),
through
pymysql against a real server: MySQL's semantics, its error codes, and values that never become
SQL."""

from __future__ import annotations

import decimal
import uuid
from collections.abc import Iterator
from typing import Any

import mysql.connector
import pymysql
import pytest

from drydock.engine import ast
from drydock.grammar.owned_prefixes import owns
from drydock.grammar.parser import parse
from tests.conftest import ServerProcess


@pytest.fixture
def db(shared_server: ServerProcess) -> Iterator[str]:
    """A fresh database with table ``t(id INT, name VARCHAR(40))`` holding 1 'alice', 2 'it''s'."""
    name = f"p_{uuid.uuid4().hex[:10]}"
    shared_server.query(f"CREATE DATABASE {name}")
    shared_server.query(f"CREATE TABLE {name}.t (id INT, name VARCHAR(40))")
    shared_server.query(f"INSERT INTO {name}.t VALUES (1, 'alice'), (2, 'it''s')")
    yield name
    shared_server.query(f"DROP DATABASE IF EXISTS {name}")


@pytest.fixture
def cur(shared_server: ServerProcess) -> Iterator[Any]:
    with shared_server.connect() as conn, conn.cursor() as cursor:
        yield cursor


def rows(cur: Any, sql: str) -> tuple[Any, ...]:
    cur.execute(sql)
    return tuple(cur.fetchall())


def error_of(cur: Any, sql: str) -> tuple[int, str]:
    with pytest.raises(pymysql.err.MySQLError) as err:
        cur.execute(sql)
    return err.value.args[0], err.value.args[1]


# -- the grammar
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("sql", "statement"),
    [
        ("PREPARE s FROM 'SELECT ?'", ast.Prepare(name="s", text="SELECT ?")),
        ("prepare S from 'it''s ?';", ast.Prepare(name="S", text="it's ?")),
        ("PREPARE s FROM @q", ast.Prepare(name="s", from_variable="q")),
        (
            "PREPARE `my stmt` FROM @`odd name`",
            ast.Prepare(name="my stmt", from_variable="odd name"),
        ),
        ("EXECUTE s", ast.ExecutePrepared(name="s")),
        (
            "EXECUTE s USING @a, @'b', @\"c\", @d$1",
            ast.ExecutePrepared(name="s", using=("a", "b", "c", "d$1")),
        ),
        ("DEALLOCATE PREPARE s", ast.DeallocatePrepare(name="s")),
        ("drop prepare s", ast.DeallocatePrepare(name="s")),
        ("EXECUTE prepare USING @execute", ast.ExecutePrepared(name="prepare", using=("execute",))),
    ],
)
def test_statements_parse(sql: str, statement: ast.Statement) -> None:
    assert owns(sql) and parse(sql) == statement


# -- user variables
# -----------------------------------------------------------------------------------
def test_unset_variable_is_null_and_set_variables_keep_their_type(cur: Any) -> None:
    assert rows(cur, "SELECT @never_set") == ((None,),)
    assert [d[0] for d in cur.description] == ["@never_set"]
    cur.execute("SET @i = 42, @s = 'it''s', @n = NULL, @d = 2.50, @neg = -7")
    assert rows(cur, "SELECT @i, @s, @n, @neg") == ((42, "it's", None, -7),)
    assert rows(cur, "SELECT @d + 0 FROM DUAL") == ((decimal.Decimal("2.50"),),)
    assert [d[0] for d in rows_description(cur, "SELECT @i, @S AS alias")] == ["@i", "alias"]


def rows_description(cur: Any, sql: str) -> Any:
    cur.execute(sql)
    cur.fetchall()
    return cur.description


def test_variable_names_are_case_insensitive_and_quoted_names_work(cur: Any) -> None:
    cur.execute("SET @MixedCase = 1, @`odd name` = 2, @'quoted' = 3")
    assert rows(cur, "SELECT @mixedcase, @MIXEDCASE, @`odd name`, @quoted") == ((1, 1, 2, 3),)


def test_computed_values_subqueries_and_other_variables(cur: Any, db: str) -> None:
    cur.execute("SET @a = 20")
    cur.execute(
        f"SET @b = @a + 1, @c = upper('x'), @m = (SELECT max(id) FROM {db}.t), @e = sqrt(16)"
    )
    assert rows(cur, "SELECT @b, @c, @m, @e") == ((21, "X", 2, 4.0),)
    cur.execute("SET @j = 1, @k = @j + 1")  # assignments run left to right
    assert rows(cur, "SELECT @k") == ((2,),)


def test_variables_inside_queries_are_values_never_sql(cur: Any, db: str) -> None:
    cur.execute("SET @name = 'it''s', @evil = ''' OR ''1''=''1', @back = 'a\\\\b'")
    assert rows(cur, f"SELECT id FROM {db}.t WHERE name = @name") == ((2,),)
    assert rows(cur, f"SELECT id FROM {db}.t WHERE name = @evil") == ()
    cur.execute(f"INSERT INTO {db}.t VALUES (@unset_id, @back), (7, @evil)")
    assert rows(cur, f"SELECT id, name FROM {db}.t WHERE name IN (@back, @evil) ORDER BY name") == (
        (7, "' OR '1'='1"),
        (None, "a\\b"),
    )


def test_user_and_system_variables_in_one_set(cur: Any) -> None:
    cur.execute("SET @a = 1, @@session.sql_mode = '', @b = @a + 1")
    assert rows(cur, "SELECT @a, @b, @@sql_mode") == ((1, 2, ""),)
    cur.execute("SET @saved = 'ANSI_QUOTES'")
    cur.execute("SET sql_mode = @saved")  # a system variable set from a user variable
    assert rows(cur, "SELECT @@sql_mode") == (("ANSI_QUOTES",),)


def test_variables_belong_to_their_session(shared_server: ServerProcess) -> None:
    with shared_server.connect() as a, shared_server.connect() as b:
        a.cursor().execute("SET @mine = 'a'")
        assert rows(b.cursor(), "SELECT @mine") == ((None,),)
        assert rows(a.cursor(), "SELECT @mine") == (("a",),)


def test_reset_connection_clears_variables_and_prepared_statements(
    shared_server: ServerProcess,
) -> None:
    conn = mysql.connector.connect(
        host=shared_server.host,
        port=shared_server.port,
        user="root",
        password="",
        use_pure=True,
        autocommit=True,
        connection_timeout=10,
    )
    try:
        c = conn.cursor()
        c.execute("SET @v = 5")
        c.execute("PREPARE s FROM 'SELECT 1'")
        conn.cmd_reset_connection()
        c = conn.cursor()
        c.execute("SELECT @v")
        assert c.fetchall() == [(None,)]
        with pytest.raises(mysql.connector.Error) as err:
            c.execute("EXECUTE s")
        assert err.value.errno == 1243
    finally:
        conn.close()


def test_unsupported_assignments_are_1235(cur: Any) -> None:
    assert error_of(cur, "SELECT @x := 1")[0] == 1235
    assert error_of(cur, "SELECT 1 INTO @x")[0] == 1235


# -- PREPARE / EXECUTE / DEALLOCATE PREPARE
# ---------------------------------------------------------------
def test_prepare_execute_deallocate(cur: Any, db: str) -> None:
    cur.execute(f"PREPARE s FROM 'SELECT id, name FROM {db}.t WHERE id = ? OR name = ?'")
    cur.execute("SET @id = 1, @name = 'it''s'")
    assert rows(cur, "EXECUTE s USING @id, @name") == ((1, "alice"), (2, "it's"))
    cur.execute("SET @id = 2, @name = NULL")  # re-executed with other values
    assert rows(cur, "EXECUTE s USING @id, @name") == ((2, "it's"),)
    assert rows(cur, "EXECUTE S USING @ID, @NAME") == ((2, "it's"),)  # names are case-insensitive
    cur.execute("DEALLOCATE PREPARE s")
    assert error_of(cur, "EXECUTE s USING @id, @name")[0] == 1243


def test_prepare_from_a_variable_and_drop_prepare(cur: Any, db: str) -> None:
    cur.execute(f"SET @sql = 'SELECT count(*) FROM {db}.t WHERE id > ?', @low = 0")
    cur.execute("PREPARE counter FROM @sql")
    assert rows(cur, "EXECUTE counter USING @low") == ((2,),)
    cur.execute("SET @sql = 'SELECT 99'")  # the statement keeps the text it was prepared from
    assert rows(cur, "EXECUTE counter USING @low") == ((2,),)
    cur.execute("DROP PREPARE counter")
    assert error_of(cur, "DROP PREPARE counter") == (
        1243,
        "Unknown prepared statement handler (counter) given to DEALLOCATE PREPARE",
    )


def test_values_are_bound_as_literals(cur: Any, db: str) -> None:
    cur.execute(f"PREPARE ins FROM 'INSERT INTO {db}.t VALUES (?, ?)'")
    tricky = ["x' OR '1'='1", "a\\b", "?", "'; DROP TABLE t; --", 'dq"', "/* c */"]
    for i, value in enumerate(tricky, start=10):
        cur.execute("SET @i = %s, @v = %s", (i, value))
        assert cur.execute("EXECUTE ins USING @i, @v") == 1  # affected rows of the bound INSERT
    cur.execute(f"PREPARE sel FROM 'SELECT name FROM {db}.t WHERE id >= ? ORDER BY id'")
    cur.execute("SET @low = 10")
    assert [r[0] for r in rows(cur, "EXECUTE sel USING @low")] == tricky
    cur.execute(
        f"PREPARE q FROM 'SELECT ''?'', ? FROM {db}.t WHERE id = 1'"
    )  # '?' is no placeholder
    cur.execute("SET @v = 'value'")
    assert rows(cur, "EXECUTE q USING @v") == (("?", "value"),)


def test_prepared_text_may_be_an_owned_statement_and_warnings_surface(
    shared_server: ServerProcess, db: str
) -> None:
    with shared_server.connect() as conn, conn.cursor() as cur:
        cur.execute("PREPARE cfg FROM 'ADMIN SHOW FRONTEND CONFIG LIKE ?'")
        cur.execute("SET @like = 'lance_index_job_keep%'")
        assert [r[0] for r in rows(cur, "EXECUTE cfg USING @like")] == [
            "lance_index_job_keep_max_second"
        ]
        cur.execute(f"PREPARE drop_t FROM 'DROP TABLE IF EXISTS {db}.nope'")
        cur.execute("EXECUTE drop_t")
        assert cur._result.warning_count == 1  # noqa: SLF001 - the OK packet of EXECUTE
        assert conn.show_warnings() == (("Note", 1051, f"Unknown table '{db}.nope'"),)
        cur.execute("PREPARE w FROM 'SHOW WARNINGS'")
        cur.execute("EXECUTE drop_t")
        assert rows(cur, "EXECUTE w") == (("Note", 1051, f"Unknown table '{db}.nope'"),)


def test_preparing_a_name_again_replaces_it_even_when_the_new_text_fails(cur: Any) -> None:
    cur.execute("PREPARE s FROM 'SELECT 1'")
    cur.execute("PREPARE s FROM 'SELECT 2'")
    assert rows(cur, "EXECUTE s") == ((2,),)
    assert error_of(cur, "PREPARE s FROM 'SELEC 3'")[0] == 1064
    assert error_of(cur, "EXECUTE s")[0] == 1243  # MySQL deallocated it before preparing


def test_prepared_statements_belong_to_their_session(shared_server: ServerProcess) -> None:
    with shared_server.connect() as a, shared_server.connect() as b:
        a.cursor().execute("PREPARE mine FROM 'SELECT 1'")
        assert error_of(b.cursor(), "EXECUTE mine")[0] == 1243
        assert rows(a.cursor(), "EXECUTE mine") == ((1,),)


def test_execute_runs_with_the_session_privileges_and_is_audited_masked(
    shared_server: ServerProcess, db: str
) -> None:
    user = f"u{uuid.uuid4().hex[:8]}"
    with shared_server.connect() as conn, conn.cursor() as cur:
        cur.execute("PREPARE mk FROM 'CREATE USER ?@''%'' IDENTIFIED BY ?'")
        cur.execute("SET @u = %s, @pw = 'hunter2-prepared'", (user,))
        cur.execute("EXECUTE mk USING @u, @pw")
        cur.execute("SHOW AUDIT LIMIT 5")
        audit = [r for r in cur.fetchall() if user in str(r)]
    assert audit and "hunter2-prepared" not in str(audit) and "IDENTIFIED BY '***'" in str(audit)
    with (
        shared_server.connect(user=user, password="hunter2-prepared") as conn,
        conn.cursor() as cur,
    ):
        cur.execute(f"PREPARE s FROM 'SELECT * FROM {db}.t'")  # preparing needs no privilege
        code, message = error_of(cur, "EXECUTE s")
        assert code == 1142 and f"'{db}.t'" in message
    shared_server.query(f"DROP USER '{user}'@'%'")


@pytest.mark.parametrize(
    ("sql", "code", "text"),
    [
        ("EXECUTE nope", 1243, "Unknown prepared statement handler (nope) given to EXECUTE"),
        (
            "DEALLOCATE PREPARE nope",
            1243,
            "Unknown prepared statement handler (nope) given to DEALLOCATE PREPARE",
        ),
        (
            "PREPARE p FROM 'EXECUTE x'",
            1295,
            "This command is not supported in the prepared statement protocol yet",
        ),
        ("PREPARE p FROM 'DEALLOCATE PREPARE x'", 1295, "This command is not supported"),
        ("PREPARE p FROM 'PREPARE x FROM ''SELECT 1'''", 1295, "This command is not supported"),
        ("PREPARE p FROM 'SELEC 1'", 1064, "line 1:"),
        (
            "PREPARE p FROM 'ADMIN SHOW FRONTEND CONFIG LIK 1'",
            1064,
            "line 1:27 mismatched input 'LIK'",
        ),
        ("PREPARE p FROM ''", 1065, "Query was empty"),
        ("PREPARE p FROM 'SELECT 1; SELECT 2'", 1064, "multiple statements"),
        ("PREPARE p FROM @never_set_text", 1064, "near 'NULL'"),
        ("EXECUTE p USING 1", 1064, "expecting USER_VARIABLE"),
        ("EXECUTE p USING @a @b", 1064, "mismatched input '@b'"),
    ],
    ids=[
        "execute_unknown",
        "deallocate_unknown",
        "nested_execute",
        "nested_deallocate",
        "nested_prepare",
        "syntax",
        "owned_syntax",
        "empty",
        "two_statements",
        "null_text",
        "using_literal",
        "using_no_comma",
    ],
)
def test_errors(cur: Any, sql: str, code: int, text: str) -> None:
    got_code, message = error_of(cur, sql)
    assert got_code == code and text in message, message
    (row,) = rows(cur, "SHOW ERRORS")
    assert row[:2] == ("Error", code)


def test_wrong_number_of_values_is_1210(cur: Any) -> None:
    cur.execute("PREPARE two FROM 'SELECT ?, ?'")
    cur.execute("SET @a = 1")
    for using in ("", " USING @a", " USING @a, @a, @a"):
        assert error_of(cur, "EXECUTE two" + using) == (1210, "Incorrect arguments to EXECUTE")
    assert rows(cur, "EXECUTE two USING @a, @unset") == ((1, None),)
