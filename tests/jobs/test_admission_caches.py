"""The caches on the admission path (issue 13 item 10) never answer with stale facts:

- catalog records (CatalogManager.find) are remembered per catalog DDL generation: every DDL —
  committed or failed — makes the next find read the store, and a find whose read raced a DDL
  does not store what it read;
- the latest Lance dataset (LanceConnector.latest_snapshot) is reused only while the dataset's
  latest version is still the version it was opened at: an external commit, a deleted table and
  REFRESH are all seen by the next call.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import lance
import pymysql
import pytest

from drydock.engine.lakehouse.catalogs.manager import CatalogManager
from drydock.engine.errors import DrydockError, Errors
from drydock.engine.store.metastore import MetaStore
from tests.support.lance_fixtures import (
    admit,
    create_catalog,
    local_warehouse,
    pause,
    show_job,
    vector_table,
)
from tests.catalogs.test_catalog_lance_unit import connector, make_table


def lance_props(warehouse: Path) -> dict[str, str]:
    return {"type": "lance", "warehouse": str(warehouse)}


@pytest.fixture
def catalogs(tmp_path: Path) -> CatalogManager:
    store = MetaStore(tmp_path / "meta.sqlite")
    (tmp_path / "wh").mkdir()
    manager = CatalogManager(store)
    manager.create("lc", lance_props(tmp_path / "wh"), "", False)
    return manager


def count_reads(manager: CatalogManager) -> list[str]:
    """Record every store read find() makes."""
    reads: list[str] = []
    query_one = manager._store.query_one

    def counted(sql: str, params: tuple[object, ...] = ()):  # type: ignore[no-untyped-def]
        reads.append(sql)
        return query_one(sql, params)

    manager._store.query_one = counted  # type: ignore[method-assign]
    return reads


def test_find_reads_the_store_once_per_name_until_a_catalog_ddl(
    catalogs: CatalogManager, tmp_path: Path
) -> None:
    reads = count_reads(catalogs)
    first = catalogs.get("lc")
    assert catalogs.get("lc") is first and catalogs.connector("lc").name == "lc"
    assert len(reads) == 1
    catalogs.set_properties("lc", {"meta.cache.ttl-second": "5"})
    assert catalogs.get("lc").properties["meta.cache.ttl-second"] == "5"  # read afresh
    catalogs.rename("lc", "lc2")
    assert catalogs.find("lc") is None and catalogs.get("lc2").name == "lc2"
    catalogs.create("lc", lance_props(tmp_path / "wh"), "", False)
    assert catalogs.get("lc").id != catalogs.get("lc2").id
    catalogs.drop("lc2", False)
    assert catalogs.find("lc2") is None
    with pytest.raises(DrydockError) as info:
        catalogs.get("lc2")
    assert info.value.spec is Errors.UNKNOWN_CATALOG


def test_a_missing_catalog_is_not_remembered_as_missing(
    catalogs: CatalogManager, tmp_path: Path
) -> None:
    assert catalogs.find("later") is None
    catalogs.create("later", lance_props(tmp_path / "wh"), "", False)
    assert catalogs.get("later").name == "later"


def test_a_failed_ddl_also_forgets(catalogs: CatalogManager) -> None:
    before = catalogs.get("lc")

    def refuse(db, record, new_name):  # type: ignore[no-untyped-def]
        raise RuntimeError("hook refused")

    catalogs.in_transaction.append(refuse)
    with pytest.raises(RuntimeError):
        catalogs.rename("lc", "other")
    catalogs.in_transaction.remove(refuse)
    reads = count_reads(catalogs)
    assert catalogs.get("lc") == before and len(reads) == 1  # rolled back, and read again


def test_a_find_that_raced_a_ddl_does_not_store_what_it_read(catalogs: CatalogManager) -> None:
    """The read happens, then a DDL commits before find stores it: the stale record is answered
    to that one caller (it read before the DDL) but never served afterwards."""
    query_one = catalogs._store.query_one
    raced = []

    def read_then_ddl(sql: str, params: tuple[object, ...] = ()):  # type: ignore[no-untyped-def]
        row = query_one(sql, params)
        if not raced:
            raced.append(True)
            catalogs.set_properties("lc", {"meta.cache.ttl-second": "7"})
        return row

    catalogs._store.query_one = read_then_ddl  # type: ignore[method-assign]
    assert "meta.cache.ttl-second" not in catalogs.get("lc").properties  # what it read
    assert catalogs.get("lc").properties["meta.cache.ttl-second"] == "7"


def test_find_remembers_a_bounded_number_of_spellings(catalogs: CatalogManager) -> None:
    from drydock.engine.lakehouse.catalogs import manager as module

    for i in range(module.MAX_CACHED_NAMES + 10):
        catalogs.get("LC" if i % 2 else "lc")
        catalogs.find(f"absent{i}")
    assert len(catalogs._found) <= 2


def test_latest_snapshot_is_reused_only_while_it_is_the_latest_version(tmp_path: Path) -> None:
    uri = tmp_path / "db" / "t.lance"
    lance.write_dataset(make_table(10), uri)
    c = connector(tmp_path)
    first = c.latest_snapshot("db", "t")
    assert c.latest_snapshot("db", "t") is first and first.version == 1
    lance.write_dataset(make_table(5, start=10), uri, mode="append")  # an external commit
    second = c.latest_snapshot("db", "t")
    assert second is not first and second.version == 2 and second.count_rows() == 15
    assert first.version == 1  # the shared object was not moved
    c.refresh("db", "t")
    assert c.latest_snapshot("db", "t") is not second


def test_latest_snapshot_of_a_deleted_table_is_a_typed_error(tmp_path: Path) -> None:
    uri = tmp_path / "db" / "t.lance"
    lance.write_dataset(make_table(10), uri)
    c = connector(tmp_path)
    c.latest_snapshot("db", "t")
    shutil.rmtree(uri)
    with pytest.raises(DrydockError) as info:
        c.latest_snapshot("db", "t")
    assert info.value.spec is Errors.UNKNOWN_EXTERNAL_TABLE


def test_latest_snapshot_after_overwrite_sees_the_new_schema(tmp_path: Path) -> None:
    import pyarrow as pa

    uri = tmp_path / "db" / "t.lance"
    lance.write_dataset(make_table(10), uri)
    c = connector(tmp_path)
    assert "emb" in c.latest_snapshot("db", "t").schema.names
    lance.write_dataset(pa.table({"only": [1, 2]}), uri, mode="overwrite")
    latest = c.latest_snapshot("db", "t")
    assert latest.version == 2 and latest.schema.names == ["only"]


def test_the_admission_insert_writes_what_the_generic_conversion_would(tmp_path: Path) -> None:
    """records.with_id / insert_values (the admission's fast path) agree field for field with
    JobRecord.replace / to_columns, and the row read back is the record that was admitted."""
    from drydock.engine.jobs.control.manager import JobManager
    from drydock.engine.jobs.control.records import from_row, insert_values, to_columns, with_id
    from tests.support.jobfactory import new_job

    job = new_job("fast")
    assert with_id(job, 41) == job.replace(id=41) and with_id(job, 41).facts == job.facts
    columns = to_columns(job)
    del columns["id"]
    assert insert_values(job) == tuple(columns.values())
    store = MetaStore(tmp_path / "meta.sqlite")
    admitted = JobManager(store).create(job, 10, 10, 10)
    row = store.query_one("SELECT * FROM lance_index_jobs WHERE id = ?", (admitted.id,))
    assert from_row(row) == admitted == job.replace(id=admitted.id)


def test_over_the_wire_each_admission_pins_the_real_latest_version(server, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Admissions in a row reuse what they can, yet each pins the version that is the latest at
    its own admission: an external append and an index committed by another writer are both seen
    by the very next CREATE INDEX."""
    pause(server)
    wh = local_warehouse(tmp_path / "wh")
    wh.write("db", "t")
    c = create_catalog(server, wh)

    def version_of(name: str) -> int:
        return int(
            show_job(server, admit(server, f"CREATE INDEX {name} ON {c}.db.t (id) USING BTREE"))[
                "AdmittedDatasetVersion"
            ]
        )

    assert version_of("a1") == version_of("a2") == 1
    wh.write("db", "t", vector_table(10, seed=1), mode="append")  # an external commit
    assert version_of("a3") == 2
    wh.dataset("db", "t").create_scalar_index(
        "id", "BTREE", name="outside"
    )  # version 3, by another writer
    with (
        server.connect() as conn,
        conn.cursor() as cur,
        pytest.raises(pymysql.err.MySQLError) as info,
    ):
        cur.execute(f"CREATE INDEX outside ON {c}.db.t (id) USING BTREE")
    assert "already exists" in info.value.args[1]
    assert version_of("a4") == 3


def test_config_reads_by_any_spelling_answer_the_same_value(tmp_path: Path) -> None:
    """Config.get's one-lookup path (the canonical name) and its resolving path (alias, case,
    spaces) answer the same, before and after a change; an unknown name is still an error."""
    from drydock.engine.store.config import Config

    config = Config(MetaStore(tmp_path / "meta.sqlite"))
    spellings = (
        "enable_lance_index_mutation",
        "experimental_enable_lance_index_mutation",
        " Enable_Lance_Index_Mutation ",
        "EXPERIMENTAL_ENABLE_LANCE_INDEX_MUTATION",
    )
    assert {config.get(s) for s in spellings} == {True}
    config.set(" Enable_Lance_Index_Mutation", "false")
    assert {config.get(s) for s in spellings} == {False}
    with pytest.raises(DrydockError) as info:
        config.get("enable_lance_index_mutation_typo")
    assert info.value.spec is Errors.CONFIG_UNKNOWN
