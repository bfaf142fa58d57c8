"""Paimon scans that stream (engine/lakehouse/catalogs/paimon_scan.py): an append table's pinned
snapshot is
a pyarrow Dataset of its data files (DuckDB pushes projection and filters into it and streams it),
a primary-key table is still merged by pypaimon; both read exactly what pypaimon reads."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as pads
import pytest

from drydock.engine.lakehouse.catalogs.base import TimeTravel
from drydock.engine.lakehouse.catalogs.paimon import PaimonConnector
from tests.conftest import ServerProcess
from tests.support.paimon_procs import PARTED, Lake, local_lake, row, s3_lake


@pytest.fixture(params=["local", "s3"])
def lake(request: pytest.FixtureRequest, proc_server: ServerProcess, tmp_path: Path) -> Lake:  # noqa: F811
    if request.param == "local":
        return local_lake(proc_server, tmp_path)
    return s3_lake(proc_server, request.getfixturevalue("s3"))


def connector(lake: Lake) -> PaimonConnector:
    properties = {"type": "paimon", "warehouse": lake.warehouse, "meta.cache.ttl-second": "0"}
    if lake.s3 is not None:
        properties.update(lake.s3.catalog_properties())
    return PaimonConnector("x", properties)


def sorted_rows(table: pa.Table) -> list[tuple[object, ...]]:
    return sorted(tuple(r.values()) for r in table.to_pylist())


def test_append_tables_stream_from_their_files_and_read_what_pypaimon_reads(lake: Lake) -> None:
    lake.create("db.t", schema=PARTED, partition_keys=["dt"], options={"bucket": "-1"})
    for day in ("2024-01-01", "2024-01-02"):
        lake.append("db.t", [{"id": i, "item": f"i{i}", "dt": day} for i in range(50)])
    lake.append("db.t", [{"id": 1000, "item": "late", "dt": "2024-01-03"}])
    scanned = connector(lake).scan("db", "t")
    assert isinstance(scanned, pads.Dataset)
    assert sorted_rows(scanned.to_table()) == lake.rows("db.t")
    old = connector(lake).scan("db", "t", TimeTravel(version=1))  # still pinned to one snapshot
    assert sorted_rows(old.to_table()) == lake.rows("db.t", snapshot=1)
    c = lake.catalog
    assert lake.sql(
        f"SELECT count(*), sum(id) FROM {c}.db.t WHERE dt = '2024-01-02' AND id >= 10"
    ) == [(40, 1180)]
    assert lake.sql(f"SELECT item FROM {c}.db.t WHERE id = 1000") == [("late",)]
    # the same table twice in one statement: the Dataset is scanned twice, both see every row
    assert lake.sql(
        f"SELECT count(*) FROM {c}.db.t a JOIN {c}.db.t b ON a.id = b.id AND a.dt = b.dt"
    ) == [(101,)]
    assert lake.sql(f"SELECT count(*) FROM {c}.db.t") == [(101,)]


def test_primary_key_tables_are_still_merged_by_pypaimon(lake: Lake) -> None:
    lake.create("db.pk", primary_keys=["id"], options={"bucket": "1"})
    lake.append("db.pk", [row(1, "old"), row(2, "two")])
    lake.append("db.pk", [row(1, "new")])  # an upsert: the files hold two versions of id 1
    scanned = connector(lake).scan("db", "pk")
    assert isinstance(scanned, pa.Table)
    assert sorted_rows(scanned) == lake.rows("db.pk") == [(1, "new", 1), (2, "two", 1)]
    assert lake.sql(f"SELECT item FROM {lake.catalog}.db.pk WHERE id = 1") == [("new",)]
