"""Time travel by tag on a Lance table while other clients create and delete tags (pylance's tag
listing reads the refs directory, then each ref file: a concurrent delete in between used to fail
the listing, and with it the SELECT). A tag that stays must always read its version; a tag that is
being deleted reads its version or answers "tag does not exist", never a catalog failure."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pymysql
import pytest

from drydock.engine.errors import Errors
from tests.conftest import ServerProcess
from tests.support.lance_fixtures import create_catalog, local_warehouse, s3_warehouse, vector_table

SECONDS = 4.0


@pytest.fixture(params=["local", "s3"])
def warehouse(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    if request.param == "local":
        return local_warehouse(tmp_path / "lance")
    return s3_warehouse(request.getfixturevalue("s3"))


def churn(
    warehouse: Any, stop: threading.Event, errors: list[BaseException], victim: str | None = None
) -> None:
    """Create and delete tags as fast as pylance allows (another writer, not drydock)."""
    ds = warehouse.dataset("db", "t")
    i = 0
    try:
        while not stop.is_set():
            name = f"churn_{i % 8}"
            ds.tags.create(name, 2)
            ds.tags.delete(name)
            if victim is not None and i % 5 == 0:
                ds.tags.delete(victim)
                ds.tags.create(victim, 1)
            i += 1
    except BaseException as exc:  # noqa: BLE001 - reported by the test
        errors.append(exc)


def test_time_travel_by_tag_under_concurrent_tag_churn(
    shared_server: ServerProcess, warehouse: Any
) -> None:
    first = vector_table(n=100)
    warehouse.write("db", "t", first)
    warehouse.write("db", "t", vector_table(n=50, seed=1), mode="append")
    ds = warehouse.dataset("db", "t")
    ds.tags.create("stable", 1)
    ds.tags.create("victim", 1)
    catalog = create_catalog(shared_server, warehouse, **{"meta.cache.ttl-second": "60"})
    expected = [(100, sum(first.column("id").to_pylist()))]
    stop, errors = threading.Event(), []
    writer = threading.Thread(target=churn, args=(warehouse, stop, errors, "victim"), daemon=True)
    reads = victims = gone = 0
    with shared_server.connect() as conn, conn.cursor() as cur:
        writer.start()
        try:
            deadline = time.monotonic() + SECONDS
            while time.monotonic() < deadline:
                cur.execute(f"SELECT count(*), sum(id) FROM {catalog}.db.t@tag('stable')")
                assert list(cur.fetchall()) == expected
                reads += 1
                try:
                    cur.execute(
                        f"SELECT count(*), sum(id) FROM {catalog}.db.t FOR VERSION AS OF 'victim'"
                    )
                    assert list(cur.fetchall()) == expected
                    victims += 1
                except (
                    pymysql.err.MySQLError
                ) as exc:  # deleted at that instant: the typed answer only
                    assert (
                        exc.args[0] == Errors.UNKNOWN_TABLE_TAG.code
                        and "does not exist" in exc.args[1]
                    ), exc
                    gone += 1
        finally:
            stop.set()
            writer.join(30)
    assert not errors, errors
    assert reads >= 5 and victims >= 1, (reads, victims, gone)
    assert sorted(warehouse.dataset("db", "t").tags.list()) == ["stable", "victim"]
