"""The PostgreSQL metadata store: dialect, secrets, several stores on one database, the server on
it.

The behaviour both stores share (migrations, CAS, rollback, reads vs an open write, the job manager,
kill -9 durability, crash points) is tested by parametrizing the existing tests over both
(tests/support/pg.py ``store_opener`` / ``store_choice_for``); this file holds what only PostgreSQL
has.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from drydock.engine.store.metastore import MetadataStoreUnavailable, StaleRevision
from drydock.engine.store.open import open_store
from tests.conftest import ROOT, ServerProcess
from tests.support.lance_fixtures import admit, local_warehouse, pause, show_jobs, vector_table
from tests.support.pg import PG_PASSWORD, PgCluster
from tests.support.waiting import wait_until

psycopg = pytest.importorskip(
    "psycopg", reason="psycopg is not installed (pip install 'psycopg[binary]')"
)
from drydock.engine.store.metastore_pg import (
    PostgresStore,
    redact,
    to_postgres,
)  # needs psycopg (importorskip above)


def test_placeholders_become_psycopg_ones_outside_literals_only() -> None:
    assert to_postgres("SELECT 1 FROM users WHERE name = ? AND host = '%'") == (
        "SELECT 1 FROM users WHERE name = %s AND host = '%%'"
    )
    assert to_postgres("SELECT '?', 'it''s ?', ? ") == "SELECT '?', 'it''s ?', %s "


def test_redact_keeps_user_host_port_db_and_drops_the_password() -> None:
    shown = redact(f"postgresql://drydock:{PG_PASSWORD}@db.example:5433/meta?sslmode=require")
    assert shown == "postgresql://drydock@db.example:5433/meta"
    assert PG_PASSWORD not in redact(
        f"postgresql://u:{PG_PASSWORD}@h:1/d?port="
    )  # malformed: still no secret


def test_unreachable_or_refusing_store_is_a_clear_error_without_the_password(
    pg_cluster: PgCluster,
) -> None:
    with pytest.raises(MetadataStoreUnavailable) as refused:
        PostgresStore(pg_cluster.dsn().replace(PG_PASSWORD, "wrong-" + PG_PASSWORD))
    assert "password authentication failed" in str(refused.value)
    assert PG_PASSWORD not in str(refused.value)
    with pytest.raises(MetadataStoreUnavailable) as unreachable:
        PostgresStore(f"postgresql://drydock:{PG_PASSWORD}@127.0.0.1:1/drydock")
    assert "postgresql://drydock@127.0.0.1:1/drydock" in str(unreachable.value)
    assert PG_PASSWORD not in str(unreachable.value)
    with pytest.raises(MetadataStoreUnavailable):
        open_store("mysql://root@127.0.0.1/meta", Path("/nonexistent"))


def test_two_stores_on_one_database_share_cas_and_serialise_writers(pg_dsn: str) -> None:
    """Two frontends' stores: a CAS from a stale read is refused; a write waits for the other's."""
    a, b = PostgresStore(pg_dsn), PostgresStore(pg_dsn)
    try:
        # durable commits and bounded statements whatever the server's defaults
        assert (
            a.query_one("SHOW synchronous_commit")[0],
            a.query_one("SHOW statement_timeout")[0],
        ) == ("on", "1min")
        with a.transaction() as db:
            db.execute(
                "INSERT INTO config(name, value, revision, updated_at) VALUES ('k', 'a', 0, ?)",
                (1.25,),
            )
        with b.transaction() as db:
            assert b.compare_and_set(db, "config", {"name": "k"}, 0, {"value": "b"}) == 1
        with pytest.raises(StaleRevision), a.transaction() as db:
            a.compare_and_set(db, "config", {"name": "k"}, 0, {"value": "lost update"})
        order: list[str] = []
        inside = threading.Event()

        def other_writer() -> None:
            inside.wait(10)
            with b.transaction() as db:
                order.append("b")
                db.execute("UPDATE config SET value = 'c' WHERE name = 'k'")

        thread = threading.Thread(target=other_writer)
        thread.start()
        with a.transaction():
            inside.set()
            # the positive signal that b is blocked on the store-wide write lock meanwhile:
            # PostgreSQL lists its request for the advisory lock as not granted
            with psycopg.connect(pg_dsn, autocommit=True) as probe:
                wait_until(
                    lambda: (
                        probe.execute(
                            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' "
                            "AND NOT granted"
                        ).fetchone()[0]
                        == 1
                    ),
                    10,
                    "b waits for the lock",
                )
            order.append("a")
        thread.join(10)
        assert order == ["a", "b"]
        row = a.query_one("SELECT value, revision, updated_at FROM config WHERE name = 'k'")
        assert (row["value"], row["revision"], row["updated_at"]) == ("c", 1, 1.25)
    finally:
        a.close()
        b.close()


def test_columns_keep_sqlite_precision_and_ids_are_never_reused(pg_dsn: str) -> None:
    store = PostgresStore(pg_dsn)
    try:
        now = time.time()
        with store.transaction() as db:
            first = db.execute(
                "INSERT INTO catalogs(name, type, properties, created_at, updated_at) "
                "VALUES ('c1', 'lance', '{}', ?, ?) RETURNING id",
                (now, now),
            ).fetchone()[0]
            db.execute("DELETE FROM catalogs WHERE id = ?", (first,))
            second = db.execute(
                "INSERT INTO catalogs(name, type, properties, created_at, updated_at) "
                "VALUES ('c2', 'lance', '{}', ?, ?) RETURNING id",
                (now, 2**40),
            ).fetchone()[0]
        assert second > first
        row = store.query_one("SELECT created_at, updated_at FROM catalogs WHERE id = ?", (second,))
        assert (row["created_at"], row["updated_at"]) == (now, 2**40)  # a double, 64-bit integers
    finally:
        store.close()


def _serve(data_dir: Path, *args: str) -> ServerProcess:
    return ServerProcess(data_dir=data_dir, extra_args=list(args)).start()


def test_users_grants_catalogs_and_config_live_in_postgresql(tmp_path: Path, pg_dsn: str) -> None:
    """One frontend at a time, each with its own data directory: everything durable is in the
    store."""
    wh = local_warehouse(tmp_path / "wh")
    wh.write("db", "t", vector_table(100))
    first = _serve(tmp_path / "a", "--metadata-store", pg_dsn)
    try:
        first.query("CREATE USER 'ana'@'%' IDENTIFIED BY 'pw-ana'")
        first.query("CREATE USER 'bob'@'%' IDENTIFIED BY 'pw-bob'")  # no privilege at all
        first.query("GRANT SELECT ON lc.db.t TO 'ana'@'%'")
        first.query(f"CREATE CATALOG lc PROPERTIES ('type' = 'lance', 'warehouse' = '{wh.root}')")
        pause(first)
        job_id = admit(first, "CREATE INDEX by_id ON lc.db.t (id) USING BTREE")
        first.query("ADMIN SET FRONTEND CONFIG ('lance_index_job_keep_max_second' = '1234')")
        keys = {r[0] for r in first.query("ADMIN SHOW FRONTEND CONFIG")}
        assert "metadata_store" not in keys
    finally:
        first.stop()
    config = tmp_path / "fe.toml"
    config.write_text(f'[frontend]\nmetadata_store = "{pg_dsn}"\n')
    second = _serve(tmp_path / "b", "--config", str(config))
    try:
        with second.connect(user="ana", password="pw-ana") as conn, conn.cursor() as cur:
            cur.execute("SHOW GRANTS")
            assert "lc.db.t" in str(cur.fetchall()).replace("`", "")
        # SHOW filtered in SQL by the caller's grants: one table's job for ana, nothing for bob
        assert [int(j["JobId"]) for j in show_jobs(second, user="ana", password="pw-ana")] == [
            job_id
        ]
        assert show_jobs(second, user="bob", password="pw-bob") == []
        assert [j["State"] for j in show_jobs(second)] == ["PENDING"]
        assert any("lc" in row for row in second.query("SHOW CATALOGS"))
        second.query(
            "ALTER CATALOG lc RENAME lc2"
        )  # grants follow the catalog (read, delete, re-insert)
        with second.connect(user="ana", password="pw-ana") as conn, conn.cursor() as cur:
            cur.execute("SHOW GRANTS")
            grants = str(cur.fetchall()).replace("`", "")
        assert "lc2.db.t" in grants and "lc.db.t" not in grants
        value = [
            r[1]
            for r in second.query(
                "ADMIN SHOW FRONTEND CONFIG LIKE 'lance_index_job_keep_max_second'"
            )
        ]
        assert value == ["1234"]
    finally:
        second.stop()
    assert not (tmp_path / "b" / "meta.sqlite").exists()  # nothing went to a local SQLite file
    for log in (first.log_text(), second.log_text()):
        assert PG_PASSWORD not in log


def test_serve_with_an_unreachable_store_exits_with_a_redacted_error(tmp_path: Path) -> None:
    dsn = f"postgresql://drydock:{PG_PASSWORD}@127.0.0.1:1/drydock"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "drydock.server",
            "serve",
            "--port",
            "0",
            "--data-dir",
            str(tmp_path / "d"),
            "--metadata-store",
            dsn,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode != 0
    assert "metadata store postgresql://drydock@127.0.0.1:1/drydock unavailable" in done.stderr
    assert PG_PASSWORD not in done.stderr + done.stdout
