"""Paimon catalogs: tables written here with pypaimon (local warehouse and S3 on moto), then listed,
described, queried, time-travelled and refreshed through a real drydock server."""

from __future__ import annotations

import datetime as dt
import time
import uuid
from pathlib import Path
from typing import Any

import pyarrow as pa
import pymysql
import pytest

from drydock.engine.lakehouse.catalogs.paimon import PaimonConnector, _epoch_millis
from tests.conftest import ServerProcess
from tests.support.s3 import ACCESS_KEY, SECRET_KEY, S3Server

ORDERS = pa.schema(
    [
        pa.field("id", pa.int64(), nullable=False),
        ("item", pa.string()),
        ("qty", pa.int32()),
        ("price", pa.float64()),
    ]
)
CUSTOMERS = pa.schema(
    [
        pa.field("id", pa.int64(), nullable=False),
        ("name", pa.string()),
        ("tier", pa.string()),
        ("since", pa.date32()),
        ("balance", pa.decimal128(10, 2)),
    ]
)


# -- pypaimon, the "external writer" --------------------------------------------------------------
def paimon(options: dict[str, str]) -> Any:
    from pypaimon import CatalogFactory

    return CatalogFactory.create(options)


def append(catalog: Any, name: str, rows: list[dict[str, Any]]) -> int:
    """Commit rows as one snapshot; its id."""
    table = catalog.get_table(name)
    schema = ORDERS if "item" in [f.name for f in table.fields] else CUSTOMERS
    builder = table.new_batch_write_builder()
    write = builder.new_write()
    write.write_arrow(pa.Table.from_pylist(rows, schema=schema))
    builder.new_commit().commit(write.prepare_commit())
    write.close()
    time.sleep(0.02)  # distinct snapshot times, so FOR TIME AS OF can tell snapshots apart
    return int(catalog.get_table(name).snapshot_manager().get_latest_snapshot().id)


def order(i: int, item: str, qty: int) -> dict[str, Any]:
    return {"id": i, "item": item, "qty": qty, "price": qty * 1.5}


def customer(i: int, name: str, tier: str) -> dict[str, Any]:
    return {"id": i, "name": name, "tier": tier, "since": dt.date(2024, 1, i), "balance": None}


def make_tables(catalog: Any) -> None:
    """sales.orders (append: snapshots 1, 2) and sales.customers (primary key: snapshots 1, 2)."""
    from pypaimon import Schema

    catalog.create_database("sales", False)
    catalog.create_table("sales.orders", Schema.from_pyarrow_schema(ORDERS), False)
    catalog.create_table(
        "sales.customers",
        Schema.from_pyarrow_schema(CUSTOMERS, primary_keys=["id"], options={"bucket": "1"}),
        False,
    )
    append(catalog, "sales.orders", [order(1, "apple", 3), order(2, "pear", 1), order(3, "fig", 5)])
    append(catalog, "sales.orders", [order(4, "kiwi", 2), order(5, "plum", 7)])
    append(catalog, "sales.customers", [customer(1, "ann", "gold"), customer(2, "bob", "silver")])
    append(catalog, "sales.customers", [customer(1, "ann2", "platinum"), customer(3, "cy", "gold")])


# -- drydock ----------------------------------------------------------------------------------
def create_sql(name: str, properties: dict[str, str]) -> str:
    body = ", ".join(f'"{k}" = "{v}"' for k, v in properties.items())
    return f"CREATE CATALOG {name} PROPERTIES ({body})"


def error_of(server: ServerProcess, sql: str) -> tuple[int, str]:
    with pytest.raises(pymysql.err.MySQLError) as info:
        server.query(sql)
    return int(info.value.args[0]), str(info.value.args[1])


def local_properties(warehouse: str, **extra: str) -> dict[str, str]:
    return {"type": "paimon", "paimon.catalog.type": "filesystem", "warehouse": warehouse, **extra}


def at(millis: int) -> str:
    """A snapshot time as the server's local time with milliseconds (FOR TIME AS OF literal)."""
    return (
        dt.datetime.fromtimestamp(millis // 1000)
        .replace(microsecond=(millis % 1000) * 1000)
        .strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
    )


def check_reads(server: ServerProcess, c: str) -> None:
    """Listing, DESC, filters, projections, aggregates and a join with an internal table."""
    assert server.query(f"SHOW DATABASES FROM {c}") == [("sales",)]
    assert server.query(f"SHOW TABLES FROM {c}.sales") == [("customers",), ("orders",)]
    assert server.query(f"DESC {c}.sales.customers") == [
        ("id", "BIGINT", "NO", "PRI", None, ""),
        ("name", "TEXT", "YES", "", None, ""),
        ("tier", "TEXT", "YES", "", None, ""),
        ("since", "DATE", "YES", "", None, ""),
        ("balance", "DECIMAL(10,2)", "YES", "", None, ""),
    ]
    assert [r[:4] for r in server.query(f"DESC {c}.sales.orders")] == [
        ("id", "BIGINT", "NO", ""),
        ("item", "TEXT", "YES", ""),
        ("qty", "INT", "YES", ""),
        ("price", "DOUBLE", "YES", ""),
    ]
    assert server.query(f"SELECT item, qty FROM {c}.sales.orders WHERE qty > 2 ORDER BY id") == [
        ("apple", 3),
        ("fig", 5),
        ("plum", 7),
    ]
    assert server.query(f"SELECT count(*), sum(qty), max(price) FROM {c}.sales.orders") == [
        (5, 18, 10.5)
    ]
    # Primary-key table: the second commit upserted id 1.
    assert server.query(f"SELECT id, name, tier FROM {c}.sales.customers ORDER BY id") == [
        (1, "ann2", "platinum"),
        (2, "bob", "silver"),
        (3, "cy", "gold"),
    ]
    server.query("CREATE DATABASE d")
    server.query("CREATE TABLE d.region (id INT, region VARCHAR(20))")
    server.query("INSERT INTO d.region VALUES (1, 'north'), (3, 'south'), (9, 'west')")
    assert server.query(
        f"SELECT c.name, r.region FROM {c}.sales.customers c JOIN d.region r "
        "ON c.id = r.id ORDER BY c.id"
    ) == [("ann2", "north"), ("cy", "south")]
    # The same external table twice in one statement (each reference registered on its own).
    assert server.query(
        f"SELECT count(*) FROM {c}.sales.orders a JOIN {c}.sales.orders b ON a.id = b.id"
    ) == [(5,)]
    # Missing database / table: the typed external errors.
    assert error_of(server, f"SHOW TABLES FROM {c}.nope")[0] == 1049
    assert error_of(server, f"SELECT * FROM {c}.sales.nope")[0] == 1146
    assert error_of(server, f"DESC {c}.sales.nope")[0] == 1146
    assert error_of(server, f"SELECT * FROM {c}.nope.orders")[0] == 1146


# -- local warehouse --------------------------------------------------------------------------
def test_local_warehouse_list_describe_select_join(server: ServerProcess, tmp_path: Path) -> None:
    make_tables(paimon({"warehouse": str(tmp_path / "wh")}))
    server.query(create_sql("pc", local_properties(str(tmp_path / "wh"))))
    check_reads(server, "pc")
    # A file:// warehouse names the same tables; short names work after SWITCH/USE.
    server.query(create_sql("pf", local_properties(f"file://{tmp_path / 'wh'}")))
    with server.connect() as conn, conn.cursor() as cur:
        cur.execute("SWITCH pf")
        cur.execute("USE sales")
        cur.execute("SELECT count(*) FROM orders WHERE item LIKE 'p%'")
        assert cur.fetchall() == ((2,),)


def test_empty_table_and_database(server: ServerProcess, tmp_path: Path) -> None:
    from pypaimon import Schema

    catalog = paimon({"warehouse": str(tmp_path / "wh")})
    catalog.create_database("empty_db", False)
    catalog.create_database("db", False)
    catalog.create_table("db.fresh", Schema.from_pyarrow_schema(ORDERS), False)
    server.query(create_sql("pc", local_properties(str(tmp_path / "wh"))))
    assert server.query("SHOW TABLES FROM pc.empty_db") == []
    assert server.query("SELECT count(*), sum(qty) FROM pc.db.fresh") == [(0, None)]


def test_time_travel(server: ServerProcess, tmp_path: Path) -> None:
    catalog = paimon({"warehouse": str(tmp_path / "wh")})
    make_tables(catalog)
    orders = catalog.get_table("sales.orders")
    orders.create_tag("first", 1)
    snapshots = {s.id: s.time_millis for s in orders.snapshot_manager().list_snapshots()}
    assert sorted(snapshots) == [1, 2] and snapshots[1] < snapshots[2]
    server.query(create_sql("pc", local_properties(str(tmp_path / "wh"))))
    count = "SELECT count(*) FROM pc.sales.orders"

    assert server.query(f"{count} FOR VERSION AS OF 1") == [(3,)]
    assert server.query(f"{count} FOR VERSION AS OF 2") == [(5,)]
    assert server.query("SELECT name FROM pc.sales.customers FOR VERSION AS OF 1 WHERE id = 1") == [
        ("ann",)
    ]
    assert server.query(f"{count} FOR TIME AS OF '{at(snapshots[1])}'") == [(3,)]
    assert server.query(f"{count} FOR TIME AS OF '{at(snapshots[2] - 1)}'") == [(3,)]
    assert server.query(f"{count} FOR TIME AS OF '{at(snapshots[2])}'") == [(5,)]
    assert server.query("SELECT count(*) FROM pc.sales.orders@tag('first')") == [(3,)]
    assert server.query(f"{count} FOR VERSION AS OF 'first'") == [(3,)]
    # Two versions of one table in one statement.
    assert server.query(
        "SELECT a.n, b.n FROM (SELECT count(*) n FROM pc.sales.orders FOR VERSION AS OF 1) a, "
        "(SELECT count(*) n FROM pc.sales.orders) b"
    ) == [(3, 5)]

    code, message = error_of(server, f"{count} FOR VERSION AS OF 99")
    assert (
        code == 1105 and "Snapshot 99 doesn't exist" in message and "latest snapshot: 2" in message
    )
    code, message = error_of(server, f"{count} FOR VERSION AS OF 'nope'")
    assert code == 1105 and "Tag 'nope' doesn't exist" in message
    code, message = error_of(server, f"{count} FOR TIME AS OF '{at(snapshots[1] - 1)}'")
    assert code == 1105 and "No snapshot of table sales.orders" in message
    code, message = error_of(server, f"{count} FOR TIME AS OF 'yesterday-ish'")
    assert code == 1105 and "Invalid time travel timestamp" in message


def test_refresh_shows_external_commits_and_drops(server: ServerProcess, tmp_path: Path) -> None:
    catalog = paimon({"warehouse": str(tmp_path / "wh")})
    make_tables(catalog)
    # A long TTL: only REFRESH may make external changes visible (deterministic).
    server.query(
        create_sql(
            "pc", local_properties(str(tmp_path / "wh"), **{"meta.cache.ttl-second": "3600"})
        )
    )
    count = "SELECT count(*) FROM pc.sales.orders"
    assert server.query(count) == [(5,)]

    append(catalog, "sales.orders", [order(6, "lime", 1)])
    assert server.query(count) == [(5,)]  # the cached (pinned) snapshot
    server.query("REFRESH TABLE pc.sales.orders")
    assert server.query(count) == [(6,)]
    append(catalog, "sales.orders", [order(7, "date", 1)])
    server.query("REFRESH DATABASE pc.sales")
    assert server.query(count) == [(7,)]
    append(catalog, "sales.orders", [order(8, "lemon", 1)])
    server.query("REFRESH CATALOG pc")
    assert server.query(count) == [(8,)]

    catalog.drop_table("sales.customers", False)
    catalog.create_database("more", False)
    assert server.query("SHOW TABLES FROM pc.sales") == [("customers",), ("orders",)]  # cached
    server.query("REFRESH TABLE pc.sales.customers")
    assert server.query("SHOW TABLES FROM pc.sales") == [("orders",)]
    assert error_of(server, "SELECT * FROM pc.sales.customers")[0] == 1146
    server.query("REFRESH CATALOG pc")
    assert server.query("SHOW DATABASES FROM pc") == [("more",), ("sales",)]


def test_without_cache_external_commits_are_visible_at_once(
    server: ServerProcess, tmp_path: Path
) -> None:
    catalog = paimon({"warehouse": str(tmp_path / "wh")})
    make_tables(catalog)
    server.query(
        create_sql("pc", local_properties(str(tmp_path / "wh"), **{"meta.cache.ttl-second": "0"}))
    )
    assert server.query("SELECT count(*) FROM pc.sales.orders") == [(5,)]
    append(catalog, "sales.orders", [order(6, "lime", 1)])
    assert server.query("SELECT count(*) FROM pc.sales.orders") == [(6,)]


BAD_PROPERTIES: list[tuple[dict[str, str], str]] = [
    (
        {"type": "paimon", "warehouse": "/w", "s3.secret-key": SECRET_KEY},
        "Unknown property 's3.secret-key'",
    ),
    (
        {"type": "paimon", "paimon.catalog.type": "filesystem"},
        "Missing required property 'warehouse'",
    ),
    (
        {"type": "paimon", "warehouse": "/w", "paimon.catalog.type": "hive"},
        "'hive' is not supported: there is no Hive Metastore client",
    ),
    (
        {"type": "paimon", "paimon.catalog.type": "hms", "hive.metastore.uris": "thrift://h:9083"},
        "'paimon.catalog.type' = 'hms' is not supported: there is no Hive Metastore client here",
    ),
    (
        {"type": "hms", "hive.metastore.uris": "thrift://h:9083"},
        "Catalog type 'hms' is not supported: there is no Hive Metastore client here",
    ),
    (
        {"type": "paimon", "warehouse": "/w", "paimon.catalog.type": "jdbc"},
        "A Paimon JDBC catalog needs 'uri'",
    ),
    (
        {"type": "paimon", "warehouse": "/w", "paimon.catalog.type": "rest"},
        "A Paimon REST catalog needs 'uri'",
    ),
    (
        {"type": "paimon", "warehouse": "/w", "paimon.catalog.type": "glue"},
        "Unknown Paimon metastore 'glue'; supported: filesystem, rest, jdbc",
    ),
    ({"type": "paimon", "warehouse": "relative/wh"}, "must be an absolute local path"),
    ({"type": "paimon", "warehouse": "file://otherhost/wh"}, "must be an absolute local path"),
    ({"type": "paimon", "warehouse": "hdfs://nn/wh"}, "Unsupported 'warehouse' scheme 'hdfs'"),
    ({"type": "paimon", "warehouse": "s3:///wh"}, "names no bucket"),
    (
        {"type": "paimon", "warehouse": "/w", "use_path_style": "maybe"},
        "'use_path_style' must be true or false",
    ),
    (
        {"type": "paimon", "warehouse": "/w", "meta.cache.ttl-second": "-1"},
        "'meta.cache.ttl-second'",
    ),
    (
        {"type": "paimon", "warehouse": "/w", "meta.cache.ttl-second": "nan"},
        "'meta.cache.ttl-second'",
    ),
]


def test_bad_properties_change_nothing(server: ServerProcess, tmp_path: Path) -> None:
    for properties, expected in BAD_PROPERTIES:
        code, message = error_of(server, create_sql("bad", properties))
        assert code == 1105 and expected in message, (properties, message)
        assert SECRET_KEY not in message
    assert [r[1] for r in server.query("SHOW CATALOGS")] == ["internal"]

    good = local_properties(str(tmp_path / "wh"))
    server.query(create_sql("pc", good))
    before = server.query("SHOW CREATE CATALOG pc")
    code, message = error_of(
        server, "ALTER CATALOG pc SET PROPERTIES ('paimon.catalog.type' = 'rest')"
    )
    assert code == 1105 and "A Paimon REST catalog needs 'uri'" in message
    assert error_of(server, "ALTER CATALOG pc SET PROPERTIES ('warehose' = '/x')")[0] == 1105
    assert server.query("SHOW CREATE CATALOG pc") == before


# -- S3 (moto on 127.0.0.1) -------------------------------------------------------------------
def test_s3_warehouse_end_to_end_without_leaking_secrets(
    server: ServerProcess, s3: S3Server
) -> None:  # noqa: F811
    bucket = s3.make_bucket(f"paimon-{uuid.uuid4().hex[:8]}")
    warehouse = f"s3://{bucket}/lake"
    # The writer uses pypaimon's own option names; drydock maps its properties onto them.
    connector = PaimonConnector(
        "x", {"type": "paimon", "warehouse": warehouse, **s3.catalog_properties()}
    )
    writer = paimon(connector.filesystem_options())
    make_tables(writer)
    keys = [o["Key"] for o in s3.client().list_objects_v2(Bucket=bucket)["Contents"]]
    assert "lake/sales.db/orders/snapshot/snapshot-2" in keys  # really on S3

    properties = {
        "type": "paimon",
        "paimon.catalog.type": "filesystem",
        "warehouse": warehouse,
        **s3.catalog_properties(),
        "meta.cache.ttl-second": "3600",
    }
    server.query(create_sql("ps", properties))
    check_reads(server, "ps")
    assert server.query("SELECT count(*) FROM ps.sales.orders FOR VERSION AS OF 1") == [(3,)]
    append(writer, "sales.orders", [order(6, "lime", 1)])
    assert server.query("SELECT count(*) FROM ps.sales.orders") == [(5,)]
    server.query("REFRESH TABLE ps.sales.orders")
    assert server.query("SELECT count(*) FROM ps.sales.orders") == [(6,)]

    # Secrets: masked in SHOW CREATE CATALOG, absent from every error, the log and the audit.
    ((_, shown),) = server.query("SHOW CREATE CATALOG ps")
    assert '"s3.secret_key" = "***"' in shown and '"s3.access_key" = "***"' in shown
    assert f'"warehouse" = "{warehouse}"' in shown
    messages = [
        error_of(server, create_sql("typo", {**properties, "s3.secret-key": SECRET_KEY}))[1],
        error_of(server, "SELECT * FROM ps.sales.nope")[1],
        error_of(server, "SELECT count(*) FROM ps.sales.orders FOR VERSION AS OF 42")[1],
    ]
    # A library failure (a data file deleted behind Paimon's back) becomes one typed error whose
    # text went through the secret scrubber.
    from pypaimon import Schema

    writer.create_table("sales.broken", Schema.from_pyarrow_schema(ORDERS), False)
    append(writer, "sales.broken", [order(1, "x", 1)])
    client = s3.client()
    for key in [
        o["Key"]
        for o in client.list_objects_v2(Bucket=bucket, Prefix="lake/sales.db/broken/")["Contents"]
    ]:
        if key.endswith(".parquet"):
            client.delete_object(Bucket=bucket, Key=key)
    server.query("REFRESH DATABASE ps.sales")
    code, message = error_of(server, "SELECT * FROM ps.sales.broken")
    assert code == 1105 and message.startswith("Catalog 'ps': "), message
    messages.append(message)
    server.query("ALTER CATALOG ps SET PROPERTIES ('s3.secret_key' = 'rotated-secret-7a1')")
    assert server.query("SELECT count(*) FROM ps.sales.orders") == [(6,)]
    from tests.security.test_audit import audit_rows

    audit = str(audit_rows(server, 200))
    texts = [
        *messages,
        shown,
        str(server.query("SHOW CATALOGS")),
        server.log_text(),
        audit,
        (server.data_dir / "audit.jsonl").read_text(),
    ]
    for secret in (SECRET_KEY, ACCESS_KEY, "rotated-secret-7a1"):
        assert all(secret not in text for text in texts), secret
    assert "CREATE CATALOG ps" in audit  # the statements were audited, masked


# -- units --------------------------------------------------------------------------------------
def test_filesystem_options_use_pypaimon_names() -> None:
    connector = PaimonConnector(
        "c",
        {
            "type": "paimon",
            "warehouse": "s3://b/w/",
            "s3.endpoint": "http://h:1",
            "s3.access_key": "A",
            "s3.secret_key": "S",
            "s3.region": "r",
            "use_path_style": "YES",
        },
    )
    assert connector.filesystem_options() == {
        "warehouse": "s3://b/w",
        "s3.endpoint": "http://h:1",
        "s3.access-key": "A",
        "s3.secret-key": "S",
        "s3.region": "r",
        "s3.path.style.access": "true",
    }
    assert PaimonConnector("c", {"warehouse": "file:///data/wh/"}).warehouse_path() == "/data/wh"
    assert PaimonConnector("c", {"warehouse": "file:///"}).warehouse_path() == "/"
    assert sorted(connector.secrets()) == ["A", "S"]


def test_type_names() -> None:
    from pypaimon.schema.data_types import ArrayType, AtomicType, DataField, MapType, RowType

    from drydock.engine.lakehouse.catalogs.paimon import _type_name

    atomic = {
        "VARCHAR(10)": ("VARCHAR(10)", "varchar"),
        "CHAR(3)": ("CHAR(3)", "char"),
        "DECIMAL(12, 4)": ("DECIMAL(12,4)", "decimal"),
        "TIMESTAMP(3)": ("DATETIME(3)", "datetime"),
        "TIMESTAMP_LTZ(6)": ("TIMESTAMP(6)", "timestamp"),
        "TIMESTAMP(6) WITH LOCAL TIME ZONE": ("TIMESTAMP(6)", "timestamp"),
        "BOOLEAN": ("BOOLEAN", "tinyint"),
        "BYTES": ("BLOB", "blob"),
        "SMALLINT": ("SMALLINT", "smallint"),
    }
    for paimon_type, shown in atomic.items():
        assert _type_name(AtomicType(paimon_type)) == shown, paimon_type
    text, bigint = AtomicType("STRING"), AtomicType("BIGINT")
    assert _type_name(ArrayType(True, text)) == ("ARRAY<TEXT>", "json")
    assert _type_name(MapType(True, text, bigint)) == ("MAP<TEXT,BIGINT>", "json")
    row = RowType(
        True, [DataField(0, "a", AtomicType("INT")), DataField(1, "b", AtomicType("DOUBLE"))]
    )
    assert _type_name(row) == ("STRUCT<a:INT,b:DOUBLE>", "json")


def test_time_travel_timestamps_are_exact_to_the_millisecond() -> None:
    # 0.345 s in binary floating point is 0.34499999...: float arithmetic would land 1 ms early.
    assert _epoch_millis("2024-01-01 00:00:00.345+00:00") == 1704067200345
    assert _epoch_millis("1704067200345") == 1704067200345
    naive = dt.datetime(2024, 5, 6, 7, 8, 9, 123000)
    assert _epoch_millis("2024-05-06 07:08:09.123") == int(naive.timestamp() * 1000 + 0.5)


def test_hms_refusal_names_why_and_what_is_supported(server: ServerProcess) -> None:
    code, message = error_of(
        server, create_sql("h", {"type": "hms", "hive.metastore.uris": "thrift://h:9083"})
    )
    assert (
        code == 1105
        and "no Hive Metastore client" in message
        and "Supported types: lance, paimon" in message
    )
    code, message = error_of(
        server,
        create_sql(
            "h",
            {
                "type": "paimon",
                "paimon.catalog.type": "hms",
                "hive.metastore.uris": "thrift://h:9083",
            },
        ),
    )
    assert code == 1105 and "no Hive Metastore client" in message
    assert "Supported: 'paimon.catalog.type' = 'filesystem'" in message and "s3://" in message
    assert [r[1] for r in server.query("SHOW CATALOGS")] == ["internal"]
