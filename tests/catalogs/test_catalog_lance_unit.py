"""The Lance connector without a server: properties, locations, storage options, types, caching,
time travel, index rows and the float16 view DuckDB scans."""

from __future__ import annotations

import datetime as dt
import time
from pathlib import Path

import duckdb
import lance
import numpy as np
import pyarrow as pa
import pytest
import sqlglot

from drydock.engine.lakehouse.catalogs.base import TimeTravel
from drydock.engine.lakehouse.catalogs.lance import LanceConnector, parse_timestamp
from drydock.engine.lakehouse.catalogs.lance_scan import IndexedScan
from drydock.engine.lakehouse.catalogs.lance_types import arrow_type, for_duckdb
from drydock.engine.errors import DrydockError, Errors
from drydock.engine.sql.count_pushdown import _count_star_table
from drydock.engine.session import SessionContext

SECRET = "unit-secret-93b1"


def make_table(n: int, start: int = 0, dim: int = 8, half: bool = False) -> pa.Table:
    rng = np.random.default_rng(start)
    values = rng.random(n * dim).astype("float16" if half else "float32")
    return pa.table(
        {
            "id": pa.array(range(start, start + n), pa.int64()),
            "cat": [f"c{i % 5}" for i in range(start, start + n)],
            "emb": pa.FixedSizeListArray.from_arrays(pa.array(values), dim),
        }
    )


def connector(warehouse: Path | str, **extra: str) -> LanceConnector:
    props = {"type": "lance", "warehouse": str(warehouse), **extra}
    LanceConnector.validate_properties(props)
    return LanceConnector("lc", props)


def error(fn, *args):  # type: ignore[no-untyped-def]
    with pytest.raises(DrydockError) as info:
        fn(*args)
    return info.value


@pytest.mark.parametrize(
    "props, fragment",
    [
        ({"warehouse": "relative/dir"}, "Invalid warehouse 'relative/dir'"),
        ({"warehouse": "s3://"}, "needs a bucket"),
        ({"warehouse": "gs://bucket/x"}, "s3://bucket/prefix"),
        ({"warehouse": "file://host/x"}, "absolute path"),
        (
            {"warehouse": "/w", "lance.catalog.type": "rest"},
            "Unsupported lance.catalog.type 'rest'; supported: filesystem",
        ),
        ({"warehouse": "/w", "use_path_style": "maybe"}, "'use_path_style' must be true or false"),
        ({"warehouse": "/w", "s3.access_key": "AK"}, "must be given together"),
        (
            {"warehouse": "/w", "meta.cache.ttl-second": "soon"},
            "'meta.cache.ttl-second' must be a number",
        ),
        ({"warehouse": "s3://b", "s3.endpoint": "127.0.0.1:9000"}, "Invalid s3.endpoint"),
        ({"warehouse": "/w", "s3.secret": SECRET}, "Unknown property 's3.secret'"),
        ({}, "Missing required property 'warehouse'"),
    ],
)
def test_bad_properties_are_clear_errors_without_secrets(
    props: dict[str, str], fragment: str
) -> None:
    exc = error(LanceConnector.validate_properties, {"type": "lance", **props})
    assert exc.spec is Errors.CATALOG_BAD_PROPERTY
    assert fragment in exc.message and SECRET not in exc.message


def test_locations_and_storage_options() -> None:
    local = connector("file:///data/wh/", **{"lance.catalog.type": "FileSystem"})
    assert local.dataset_uri("db", "t") == "/data/wh/db/t.lance" and local.storage_options() == {}
    s3 = connector(
        "s3://bkt/pre/fix/",
        **{
            "s3.endpoint": "http://127.0.0.1:9000/",
            "s3.access_key": "AK",
            "s3.secret_key": SECRET,
            "s3.region": "eu-west-1",
            "use_path_style": "true",
        },
    )
    assert s3.dataset_uri("db", "t") == "s3://bkt/pre/fix/db/t.lance"
    assert s3.storage_options() == {
        "aws_access_key_id": "AK",
        "aws_secret_access_key": SECRET,
        "aws_endpoint": "http://127.0.0.1:9000",
        "allow_http": "true",
        "aws_region": "eu-west-1",
        "aws_virtual_hosted_style_request": "false",
    }
    https = connector(
        "s3://bkt", **{"s3.endpoint": "https://s3.example", "use_path_style": "false"}
    )
    assert https.storage_options() == {
        "aws_endpoint": "https://s3.example",
        "aws_virtual_hosted_style_request": "true",
    }
    assert connector("s3://bkt").dataset_uri("d", "t") == "s3://bkt/d/t.lance"
    # names that would leave the warehouse are missing tables, never paths
    for db, table in (("..", "t"), ("d", "../x"), ("d/e", "t"), (".hidden", "t")):
        assert error(local.dataset_uri, db, table).spec is Errors.UNKNOWN_EXTERNAL_TABLE


@pytest.mark.parametrize(
    "arrow, desc, mysql",
    [
        (pa.int64(), "BIGINT", "bigint"),
        (pa.int32(), "INT", "int"),
        (pa.string(), "VARCHAR", "varchar"),
        (pa.large_string(), "VARCHAR", "varchar"),
        (pa.float32(), "FLOAT", "float"),
        (pa.float64(), "DOUBLE", "double"),
        (pa.bool_(), "BOOLEAN", "tinyint"),
        (pa.uint64(), "BIGINT UNSIGNED", "bigint"),
        (pa.date32(), "DATE", "date"),
        (pa.timestamp("us"), "DATETIME(6)", "datetime"),
        (pa.timestamp("ms", "UTC"), "DATETIME(3)", "datetime"),
        (pa.decimal128(10, 2), "DECIMAL(10,2)", "decimal"),
        (pa.binary(), "VARBINARY", "varbinary"),
        (pa.list_(pa.float32(), 128), "ARRAY<FLOAT>(128)", "text"),
        (pa.list_(pa.float16(), 64), "ARRAY<FLOAT16>(64)", "text"),
        (pa.list_(pa.string()), "ARRAY<VARCHAR>", "text"),
        (pa.struct([("a", pa.int32()), ("b", pa.string())]), "STRUCT<a:INT,b:VARCHAR>", "text"),
        (pa.map_(pa.string(), pa.int64()), "MAP<VARCHAR,BIGINT>", "text"),
        (pa.dictionary(pa.int32(), pa.string()), "VARCHAR", "varchar"),
    ],
)
def test_arrow_types_map_to_desc_and_data_type(arrow: pa.DataType, desc: str, mysql: str) -> None:
    assert arrow_type(arrow) == (desc, mysql)


def test_listing_caching_refresh_and_missing_objects(tmp_path: Path) -> None:
    lance.write_dataset(make_table(10), tmp_path / "db1" / "t.lance")
    (tmp_path / "db1" / "not_a_table").mkdir()
    (tmp_path / "information_schema").mkdir()  # reserved: never listed
    (tmp_path / ".trash").mkdir()
    c = connector(tmp_path)
    assert c.list_databases() == ["db1"] and c.list_tables("db1") == ["t"]
    lance.write_dataset(make_table(5), tmp_path / "db2" / "u.lance")
    assert c.list_databases() == ["db1"]  # cached
    c.refresh("db2")
    assert c.list_databases() == ["db1", "db2"] and c.list_tables("db2") == ["u"]
    assert error(c.list_tables, "nope").spec is Errors.UNKNOWN_EXTERNAL_DATABASE
    assert error(c.scan, "nope", "t").spec is Errors.UNKNOWN_EXTERNAL_DATABASE
    assert error(c.scan, "db1", "nope").spec is Errors.UNKNOWN_EXTERNAL_TABLE
    assert error(c.open_latest, "db1", "nope").spec is Errors.UNKNOWN_EXTERNAL_TABLE
    assert error(c.open_latest, "nope", "t").spec is Errors.UNKNOWN_EXTERNAL_DATABASE
    missing = connector(tmp_path / "absent")
    exc = error(missing.list_databases)
    assert exc.spec is Errors.CATALOG_ACCESS_FAILED and "does not exist" in exc.message


def test_cached_dataset_is_pinned_until_refresh_and_open_latest_is_not(tmp_path: Path) -> None:
    uri = tmp_path / "db" / "t.lance"
    lance.write_dataset(make_table(10), uri)
    c = connector(tmp_path)
    assert c.scan("db", "t").count_rows() == 10
    lance.write_dataset(make_table(5, start=10), uri, mode="append")
    assert c.scan("db", "t").count_rows() == 10  # pinned
    latest = c.open_latest("db", "t")
    assert latest.version == 2 and latest.count_rows() == 15
    c.refresh("db", "t")
    assert c.scan("db", "t").count_rows() == 15
    no_cache = connector(tmp_path, **{"meta.cache.ttl-second": "0"})
    assert no_cache.scan("db", "t") is not no_cache.scan("db", "t")


def test_time_travel_by_version_tag_and_time(tmp_path: Path) -> None:
    uri = tmp_path / "db" / "t.lance"
    first = lance.write_dataset(make_table(10), uri)
    time.sleep(0.05)
    lance.write_dataset(make_table(5, start=10), uri, mode="append").tags.create("first", 1)
    c = connector(tmp_path)
    stamp = first.versions()[0]["timestamp"].strftime("%Y-%m-%d %H:%M:%S.%f")
    assert c.scan("db", "t", TimeTravel(version=1)).count_rows() == 10
    assert c.scan("db", "t", TimeTravel(tag="first")).count_rows() == 10
    assert c.scan("db", "t", TimeTravel(timestamp=stamp)).count_rows() == 10
    assert c.scan("db", "t", TimeTravel(timestamp="2999-01-01 00:00:00")).count_rows() == 15
    assert error(c.scan, "db", "t", TimeTravel(version=9)).spec is Errors.UNKNOWN_TABLE_VERSION
    assert error(c.scan, "db", "t", TimeTravel(tag="nope")).spec is Errors.UNKNOWN_TABLE_TAG
    assert (
        error(c.scan, "db", "t", TimeTravel(timestamp="2001-01-01")).spec
        is Errors.TABLE_NO_VERSION_AT_TIME
    )
    assert (
        error(c.scan, "db", "t", TimeTravel(timestamp="yesterday")).spec
        is Errors.TIME_TRAVEL_INVALID
    )


def test_parse_timestamp_forms() -> None:
    assert parse_timestamp("1700000000000") == dt.datetime(2023, 11, 14, 22, 13, 20, tzinfo=dt.UTC)
    assert parse_timestamp("2024-01-02T03:04:05+00:00").utcoffset() == dt.timedelta(0)
    assert parse_timestamp("2024-01-02 03:04:05").tzinfo is not None


@pytest.mark.filterwarnings("ignore:The 'list_indices' method is deprecated")
def test_indexes_report_rows_and_uuids(tmp_path: Path) -> None:
    uri = tmp_path / "db" / "t.lance"
    ds = lance.write_dataset(make_table(300), uri)
    ds.create_scalar_index("id", "BTREE")
    ds = lance.dataset(uri)
    ds.create_index("emb", "IVF_FLAT", num_partitions=2)
    lance.write_dataset(make_table(7, start=300), uri, mode="append")
    rows = connector(tmp_path).indexes("db", "t")
    uuids = {i["name"]: i["uuid"] for i in lance.dataset(uri).list_indices()}
    assert [(r.name, r.type, r.column, r.indexed_rows, r.unindexed_rows) for r in rows] == [
        ("emb_idx", "IVF_FLAT", "emb", 300, 7),
        ("id_idx", "BTree", "id", 300, 7),
    ]
    assert {r.name: r.uuid for r in rows} == uuids


def test_float16_tables_scan_in_duckdb_as_float32(tmp_path: Path) -> None:
    lance.write_dataset(make_table(20, dim=4, half=True), tmp_path / "db" / "h.lance")
    c = connector(tmp_path)
    assert [col.type for col in c.columns("db", "h")] == ["BIGINT", "VARCHAR", "ARRAY<FLOAT16>(4)"]
    view = c.scan("db", "h")
    con = duckdb.connect()
    con.register("h", view)
    assert con.execute("SELECT count(*), min(id) FROM h WHERE id >= 5").fetchall() == [(15, 5)]
    assert con.execute("SELECT typeof(emb) FROM h LIMIT 1").fetchall() == [("FLOAT[4]",)]
    plain = lance.write_dataset(make_table(3), tmp_path / "db" / "f.lance")
    view = for_duckdb(plain)  # no widening (no Python per batch) without half floats
    assert isinstance(view, IndexedScan) and view.lance_dataset is plain


def test_library_errors_become_typed_errors_without_secrets(tmp_path: Path) -> None:
    dead = connector(
        "s3://bkt/wh",
        **{
            "s3.endpoint": "http://127.0.0.1:1",
            "s3.access_key": "AK",
            "s3.secret_key": SECRET,
            "use_path_style": "true",
        },
    )
    exc = error(dead.list_databases)
    assert exc.spec is Errors.CATALOG_ACCESS_FAILED and SECRET not in exc.message
    assert exc.message.startswith("Catalog 'lc': ")


@pytest.mark.parametrize(
    "sql, pushed",
    [
        ("SELECT count(*) FROM lc.db.t", True),
        ("SELECT COUNT(*) AS n FROM lc.db.t FOR VERSION AS OF 3", True),
        ("SELECT count(*) FROM lc.db.t AS x", True),
        ("SELECT count(*) FROM t", True),  # the session's catalog is external
        ("SELECT count(*) FROM internal.db.t", False),
        ("SELECT count(*) FROM lc.db.t WHERE id > 1", False),
        ("SELECT count(id) FROM lc.db.t", False),
        ("SELECT count(DISTINCT id) FROM lc.db.t", False),
        ("SELECT count(*), 1 FROM lc.db.t", False),
        ("SELECT count(*) FROM lc.db.t GROUP BY id", False),
        ("SELECT count(*) FROM lc.db.t LIMIT 0", False),
        ("SELECT count(*) FROM lc.db.t JOIN lc.db.u ON true", False),
        ("SELECT count(*) FROM (SELECT * FROM lc.db.t) s", False),
        ("SELECT count(*) FROM lc.information_schema.tables", False),
    ],
)
def test_count_push_down_only_for_a_bare_count_star(sql: str, pushed: bool) -> None:
    ctx = SessionContext(user="root", host="h", connection_id=1, catalog="lc", database="db")
    assert (_count_star_table(sqlglot.parse_one(sql, read="mysql"), ctx) is not None) is pushed


def test_every_opened_dataset_shares_one_bounded_lance_session(tmp_path: Path) -> None:
    """Lance's caches are one, with the configured capacity, whatever the catalog or version."""
    from drydock.engine.lakehouse.catalogs import lance_session

    assert lance_session.size_bytes("512MiB") == 512 << 20
    assert lance_session.size_bytes("2GB") == 2 * 10**9
    (tmp_path / "db").mkdir()
    lance.write_dataset(pa.table({"a": [1, 2]}), str(tmp_path / "db" / "t.lance"))
    lance_session.configure(64 << 20)
    try:
        one = LanceConnector("one", {"type": "lance", "warehouse": str(tmp_path)})
        two = LanceConnector("two", {"type": "lance", "warehouse": str(tmp_path)})
        first, second = one.open_latest("db", "t"), two.open_latest("db", "t")
        assert first.session().is_same_as(second.session())
        assert first.session().is_same_as(lance_session.session())
        assert lance_session.session().index_cache_size_bytes() <= 64 << 20
    finally:
        lance_session.configure(lance_session.DEFAULT_BYTES)
