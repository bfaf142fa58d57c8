"""Internal tables on a store several frontends share (issue 27 item 5).

Each frontend keeps its internal tables in its own DuckDB file, so on a PostgreSQL store every
statement that creates, changes or fills an internal table or database is refused with 5300
(engine/statements/shared_store.py) — never two tables under one name, never a table that only one
frontend behind a load balancer knows. Reads that need no internal table, and catalog tables, work
through every frontend; the embedded store keeps its internal tables.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from drydock.engine.errors import Errors
from tests.conftest import ServerProcess
from tests.support.lance_fixtures import (
    create_catalog,
    error_of,
    local_warehouse,
    rows,
    vector_table,
)

REFUSED = Errors.INTERNAL_CATALOG_PER_FRONTEND.code

# Every kind of statement that would make or change an internal table or database.
INTERNAL_CHANGES = [
    "CREATE DATABASE shared_db",
    "CREATE SCHEMA IF NOT EXISTS shared_db",
    "DROP DATABASE IF EXISTS shared_db",
    "CREATE TABLE shared_db.t (id INT PRIMARY KEY, name VARCHAR(20))",
    "CREATE TABLE IF NOT EXISTS shared_db.t (id INT)",
    "CREATE TABLE shared_db.t AS SELECT 1 AS id",
    "CREATE VIEW shared_db.v AS SELECT 1 AS id",
    "CREATE INDEX by_name ON shared_db.t (name)",
    "CREATE UNIQUE INDEX by_name ON shared_db.t (name)",
    "DROP INDEX by_name ON shared_db.t",
    "ALTER TABLE shared_db.t ADD COLUMN extra INT",
    "RENAME TABLE shared_db.t TO shared_db.u",
    "DROP TABLE IF EXISTS shared_db.t",
    "TRUNCATE TABLE shared_db.t",
    "INSERT INTO shared_db.t VALUES (1, 'a')",
    "REPLACE INTO shared_db.t VALUES (1, 'a')",
    "INSERT INTO shared_db.t VALUES (1, 'a') ON DUPLICATE KEY UPDATE name = 'b'",
    "UPDATE shared_db.t SET name = 'b'",
    "DELETE FROM shared_db.t",
]


def _frontend(tmp_path: Path, name: str, dsn: str) -> ServerProcess:
    return ServerProcess(
        data_dir=tmp_path / name, extra_args=["--metadata-store", dsn, "--frontend-name", name]
    ).start()


def test_two_frontends_on_one_store_refuse_internal_tables_and_agree_on_the_rest(
    tmp_path: Path, pg_dsn: str
) -> None:
    wh = local_warehouse(tmp_path / "wh")
    wh.write("db", "items", vector_table(50))
    frontends = [_frontend(tmp_path, name, pg_dsn) for name in ("fe_a", "fe_b")]
    try:
        for frontend in frontends:
            for sql in INTERNAL_CHANGES:
                code, message = error_of(frontend, sql)
                assert code == REFUSED, (sql, code, message)
                assert "one frontend only" in message and "Lance or Paimon" in message, message
            # a session's default database does not make an unqualified CREATE TABLE any less
            # internal (information_schema included: DuckDB would make it there)
            with frontend.connect(database="information_schema") as conn, conn.cursor() as cur:
                with pytest.raises(Exception) as info:
                    cur.execute("CREATE TABLE t (id INT)")
                assert info.value.args[0] == REFUSED
        for frontend in frontends:  # nothing was created, on either frontend
            assert "shared_db" not in [r[0] for r in rows(frontend, "SHOW DATABASES")]
            assert rows(
                frontend,
                "SELECT count(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA <> "
                "'information_schema'",
            ) == [(0,)]
        # what stays allowed: reads that need no internal table, and catalog tables (the same
        # through both frontends, as the catalog itself is in the store)
        catalog = create_catalog(frontends[0], wh)
        for frontend in frontends:
            assert rows(frontend, "SELECT 1 + 1") == [(2,)]
            assert rows(frontend, f"SELECT count(*) FROM {catalog}.db.items") == [(50,)]
            assert rows(
                frontend,
                "SELECT count(*) FROM information_schema.TABLES "
                f"WHERE TABLE_SCHEMA = '{catalog}.db'",
            ) == [(1,)]
    finally:
        for frontend in frontends:
            frontend.stop()


def test_the_embedded_store_keeps_internal_tables(server: ServerProcess) -> None:
    for sql in (
        "CREATE DATABASE own_db",
        "CREATE TABLE own_db.t (id INT PRIMARY KEY, name VARCHAR(20))",
        "CREATE UNIQUE INDEX by_name ON own_db.t (name)",
        "INSERT INTO own_db.t VALUES (1, 'a'), (2, 'b')",
        "UPDATE own_db.t SET name = 'c' WHERE id = 2",
        "RENAME TABLE own_db.t TO own_db.u",
    ):
        server.query(sql)
    assert server.query("SELECT id, name FROM own_db.u ORDER BY id") == [(1, "a"), (2, "c")]
