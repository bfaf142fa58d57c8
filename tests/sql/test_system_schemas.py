"""information_schema and performance_schema are read-only for everyone, root included: a
statement that would create, change or fill a table there — named, or the session's current
database — or create or drop the schema itself answers 1044 and changes nothing, as MySQL."""

from __future__ import annotations

import pymysql
import pytest

from tests.conftest import ServerProcess

WRITES = [
    "CREATE TABLE {db}.t (a INT)",
    "CREATE TABLE {db}.t AS SELECT 1 AS a",
    "DROP TABLE {db}.tables",
    "INSERT INTO {db}.tables (table_name) VALUES ('x')",
    "UPDATE {db}.tables SET table_name = 'x'",
    "DELETE FROM {db}.tables",
    "TRUNCATE TABLE {db}.tables",
    "ALTER TABLE {db}.tables ADD COLUMN z INT",
    "CREATE DATABASE {db}",
    "DROP DATABASE {db}",
]


@pytest.mark.parametrize("db", ["information_schema", "INFORMATION_SCHEMA", "performance_schema"])
@pytest.mark.parametrize("template", WRITES)
def test_a_write_to_a_system_schema_is_1044(
    shared_server: ServerProcess, template: str, db: str
) -> None:
    with shared_server.connect() as conn, conn.cursor() as cur:
        with pytest.raises(pymysql.MySQLError) as caught:
            cur.execute(template.format(db=db))
        assert caught.value.args[0] == 1044, caught.value.args
        assert f"to database '{db}'" in caught.value.args[1]


def test_the_current_database_counts_and_nothing_is_made(shared_server: ServerProcess) -> None:
    with shared_server.connect() as conn, conn.cursor() as cur:
        cur.execute("USE information_schema")
        for sql in ("CREATE TABLE t2 AS SELECT 1 AS a", "CREATE TABLE t3 (a INT)"):
            with pytest.raises(pymysql.MySQLError) as caught:
                cur.execute(sql)
            assert caught.value.args[0] == 1044, (sql, caught.value.args)
        cur.execute(
            "SELECT COUNT(*) FROM information_schema.tables WHERE table_name IN ('t', 't2', 't3')"
        )
        assert cur.fetchall() == ((0,),)
        # a database created while in information_schema is an ordinary database, listed
        cur.execute("CREATE DATABASE ordinary")
        cur.execute("CREATE TABLE ordinary.t (a INT)")
        cur.execute("SHOW DATABASES LIKE 'ordinary'")
        assert cur.fetchall() == (("ordinary",),)
        cur.execute("DROP DATABASE ordinary")
        cur.execute("SHOW DATABASES LIKE 'ordinary'")
        assert cur.fetchall() == ()
