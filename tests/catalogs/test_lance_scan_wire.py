"""Over the wire: an index a drydock job commits is what the next SELECT reads, without REFRESH, and
indexed filters answer as unindexed ones do (engine/lakehouse/catalogs/lance_scan.py)."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from tests.conftest import ServerProcess
from tests.support.lance_fixtures import admit, create_catalog, local_warehouse, show_job
from tests.support.waiting import wait_until

ROWS = 2000


def ids_table() -> pa.Table:
    return pa.table(
        {
            "id": pa.array([None if i % 50 == 0 else i for i in range(ROWS)], pa.int64()),
            "category": pa.array([i % 5 for i in range(ROWS)], pa.int32()),
        }
    )


WHERES = [
    "id = 77",
    "id BETWEEN 100 AND 109",
    "id IN (3, 77, 1999, NULL)",
    "id NOT IN (3, 77)",
    "id IS NULL OR category = 4",
    "category IN (1, 2) AND id < 40",
]


def answers(server: ServerProcess, catalog: str) -> list[list[tuple[object, ...]]]:
    out = []
    with server.connect() as conn, conn.cursor() as cur:
        for where in WHERES:
            cur.execute(f"SELECT id, category FROM {catalog}.db.t WHERE {where} ORDER BY id, 2")
            out.append(list(cur.fetchall()))
    return out


def test_an_index_committed_by_a_job_is_read_by_the_next_select(tmp_path: Path) -> None:
    # The refresh obligation that follows the commit is held forever (a test-only pause point):
    # what the SELECT reads must not depend on it.
    server = ServerProcess(
        data_dir=tmp_path / "data",
        env={
            "DRYDOCK_FAULT_PAUSE_AT": "during_refresh",
            "DRYDOCK_FAULT_MARKER": str(tmp_path / "marker"),
        },
    ).start()
    try:
        wh = local_warehouse(tmp_path / "wh")
        wh.write("db", "t", ids_table())
        catalog = create_catalog(server, wh)  # the default cache TTL: 60 s
        before = answers(server, catalog)  # the dataset is now cached, without an index
        assert server.query(f"SHOW INDEX FROM {catalog}.db.t") == []
        job = admit(server, f"CREATE INDEX id_idx ON {catalog}.db.t (id) USING BTREE")
        wait_until(
            lambda: show_job(server, job)["State"] == "COMMITTED", 60, "the index job commits"
        )
        assert show_job(server, job)["RefreshState"] in ("REQUIRED", "RUNNING")  # still owed
        shown = server.query(f"SHOW INDEX FROM {catalog}.db.t")  # reads the dataset SELECT reads
        assert [(r[2], r[4]) for r in shown] == [("id_idx", "id")]
        assert answers(server, catalog) == before
        assert (
            before[0] == [(77, 2)]
            and len(before[1]) == 9
            and before[2] == [(3, 3), (77, 2), (1999, 4)]
        )
    finally:
        server.kill9()  # the paused refresh thread never returns
