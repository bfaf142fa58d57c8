"""The metadata store: WAL + synchronous=FULL, migrations once, compare-and-set.

Tests taking ``store_opener`` run against SQLite and PostgreSQL (tests/support/pg.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from drydock.engine.store.metastore import MIGRATIONS, MetadataStore, MetaStore, StaleRevision

Opener = Callable[[], MetadataStore]


def test_store_runs_in_wal_mode_with_full_sync(tmp_path: Path) -> None:
    store = MetaStore(tmp_path / "m.sqlite")
    assert store.query_one("PRAGMA journal_mode")[0] == "wal"
    assert store.query_one("PRAGMA synchronous")[0] == 2  # FULL


def test_migrations_apply_once_and_in_order(store_opener: Opener) -> None:
    store_opener().close()
    store = store_opener()
    versions = [r[0] for r in store.query("SELECT version FROM schema_version ORDER BY version")]
    assert versions == [v for v, _ in MIGRATIONS]


def _store_with_row(store_opener: Opener) -> MetadataStore:
    store = store_opener()
    with store.transaction() as db:
        db.execute("INSERT INTO config(name, value, revision, updated_at) VALUES ('k', 'a', 0, 0)")
    return store


def test_compare_and_set_bumps_the_revision(store_opener: Opener) -> None:
    store = _store_with_row(store_opener)
    with store.transaction() as db:
        assert store.compare_and_set(db, "config", {"name": "k"}, 0, {"value": "b"}) == 1
    row = store.query_one("SELECT value, revision FROM config WHERE name = 'k'")
    assert (row["value"], row["revision"]) == ("b", 1)


def test_compare_and_set_with_a_stale_revision_changes_nothing(store_opener: Opener) -> None:
    store = _store_with_row(store_opener)
    with pytest.raises(StaleRevision):
        with store.transaction() as db:
            store.compare_and_set(db, "config", {"name": "k"}, 5, {"value": "c"})
    row = store.query_one("SELECT value, revision FROM config WHERE name = 'k'")
    assert (row["value"], row["revision"]) == ("a", 0)


def test_a_failed_transaction_rolls_back_every_write(store_opener: Opener) -> None:
    store = _store_with_row(store_opener)
    with pytest.raises(RuntimeError):
        with store.transaction() as db:
            store.compare_and_set(db, "config", {"name": "k"}, 0, {"value": "z"})
            raise RuntimeError("boom")
    assert store.query_one("SELECT value FROM config WHERE name = 'k'")["value"] == "a"


def test_reads_do_not_wait_for_an_open_write_and_see_only_commits(store_opener: Opener) -> None:
    """Group commit holds the write connection through its fsync; a reader on another thread reads
    the last commit meanwhile, and the writer's own thread reads its uncommitted rows."""
    import threading

    store = store_opener()
    seen: list[object] = []
    inside, done = threading.Event(), threading.Event()

    def reader() -> None:
        inside.wait(10)
        seen.append(store.query_one("SELECT count(*) AS n FROM catalogs")["n"])
        done.set()

    thread = threading.Thread(target=reader)
    thread.start()
    with store.transaction() as db:
        db.execute(
            "INSERT INTO catalogs(name, type, properties, created_at, updated_at) "
            "VALUES ('c', 'lance', '{}', 0, 0)"
        )
        assert store.query_one("SELECT count(*) AS n FROM catalogs")["n"] == 1  # its own write
        inside.set()
        assert done.wait(10), "a read waited for the write transaction"
    thread.join(10)
    assert seen == [0]  # not the uncommitted row
    assert store.query_one("SELECT count(*) AS n FROM catalogs")["n"] == 1
