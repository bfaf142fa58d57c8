"""Lance catalogs over the wire: a local warehouse and one on a local S3 server (moto).

Datasets are written with pylance directly (the "external writer"); drydock lists, describes and
selects them, joins them with internal tables, time-travels, refreshes, checks privileges, and
never shows a secret (SHOW CREATE CATALOG, errors, server log, audit).
"""

from __future__ import annotations

import itertools
import shutil
import time
from pathlib import Path
from typing import Any

import lance
import numpy as np
import pyarrow as pa
import pymysql
import pytest

from tests.conftest import ServerProcess
from tests.support.s3 import ACCESS_KEY, SECRET_KEY, S3Server

_names = itertools.count()


def unique(prefix: str) -> str:
    return f"{prefix}{next(_names)}"


def make_table(n: int, start: int = 0, dim: int = 8) -> pa.Table:
    values = np.random.default_rng(start).random(n * dim).astype("float32")
    return pa.table(
        {
            "id": pa.array(range(start, start + n), pa.int64()),
            "cat": [f"c{i % 5}" for i in range(start, start + n)],
            "emb": pa.FixedSizeListArray.from_arrays(pa.array(values), dim),
        }
    )


def props_sql(props: dict[str, str]) -> str:
    return ", ".join(f'"{k}" = "{v}"' for k, v in props.items())


def create_catalog(server: ServerProcess, warehouse: str, **extra: str) -> str:
    name = unique("lc")
    server.query(
        f"CREATE CATALOG {name} PROPERTIES "
        f"({props_sql({'type': 'lance', 'warehouse': warehouse, **extra})})"
    )
    return name


def rows(
    server: ServerProcess, sql: str, user: str = "root", password: str = ""
) -> list[tuple[Any, ...]]:
    with server.connect(user=user, password=password) as conn, conn.cursor() as cur:
        cur.execute(sql)
        return list(cur.fetchall())


def error_of(
    server: ServerProcess, sql: str, user: str = "root", password: str = ""
) -> tuple[int, str]:
    with server.connect(user=user, password=password) as conn, conn.cursor() as cur:
        with pytest.raises(pymysql.err.MySQLError) as info:
            cur.execute(sql)
    return info.value.args[0], info.value.args[1]


@pytest.fixture
def warehouse(tmp_path: Path) -> Path:
    """db1.t (100 rows, 8-d vectors), db1.t2 (3 rows), db2.u (5 rows)."""
    root = tmp_path / "wh"
    lance.write_dataset(make_table(100), root / "db1" / "t.lance")
    lance.write_dataset(make_table(3), root / "db1" / "t2.lance")
    lance.write_dataset(make_table(5), root / "db2" / "u.lance")
    return root


def test_bad_properties_are_clear_errors_and_change_nothing(
    shared_server: ServerProcess, tmp_path: Path
) -> None:
    server = shared_server
    before = rows(server, "SHOW CATALOGS")
    cases = [
        (
            {
                "type": "lance",
                "warehouse": str(tmp_path),
                "s3.secret_key": SECRET_KEY,
                "bogus": "1",
            },
            "Unknown property 'bogus' for catalog type lance",
        ),
        ({"type": "lance"}, "Missing required property 'warehouse' for catalog type lance"),
        (
            {"type": "nosuch", "warehouse": str(tmp_path)},
            "Unknown catalog type 'nosuch'; supported: ",
        ),
        (
            {"type": "lance", "warehouse": str(tmp_path), "lance.catalog.type": "rest"},
            "Unsupported lance.catalog.type 'rest'; supported: filesystem",
        ),
        ({"type": "lance", "warehouse": "relative/dir"}, "Invalid warehouse 'relative/dir'"),
        (
            {"type": "lance", "warehouse": str(tmp_path), "use_path_style": "sometimes"},
            "'use_path_style' must be true or false",
        ),
    ]
    for props, message in cases:
        code, text = error_of(server, f"CREATE CATALOG bad PROPERTIES ({props_sql(props)})")
        assert code == 1105 and message in text and SECRET_KEY not in text, text
    assert rows(server, "SHOW CATALOGS") == before
    assert SECRET_KEY not in server.log_text()


def test_list_describe_select_and_show_index(shared_server: ServerProcess, warehouse: Path) -> None:
    server = shared_server
    ds = lance.dataset(warehouse / "db1" / "t.lance")
    ds.create_scalar_index("id", "BTREE")
    lance.write_dataset(make_table(4, start=100), warehouse / "db1" / "t.lance", mode="append")
    c = create_catalog(server, str(warehouse))
    assert rows(server, f"SHOW DATABASES FROM {c}") == [("db1",), ("db2",)]
    assert rows(server, f"SHOW TABLES FROM {c}.db1") == [("t",), ("t2",)]
    assert rows(server, f"SHOW FULL TABLES FROM {c}.db1 LIKE 't2'") == [("t2", "BASE TABLE")]
    assert rows(server, f"DESC {c}.db1.t") == [
        ("id", "BIGINT", "YES", "", None, ""),
        ("cat", "VARCHAR", "YES", "", None, ""),
        ("emb", "ARRAY<FLOAT>(8)", "YES", "", None, ""),
    ]
    assert rows(
        server,
        f"SELECT cat, count(*), min(id) FROM {c}.db1.t WHERE id >= 50 AND cat IN ('c1', 'c2') "
        "GROUP BY cat ORDER BY cat",
    ) == [("c1", 11, 51), ("c2", 11, 52)]
    assert rows(server, f"SELECT count(*) FROM {c}.db1.t") == [(104,)]
    [(vector,)] = rows(server, f"SELECT emb FROM {c}.db1.t WHERE id = 3")
    shown = [float(x) for x in str(vector).strip("()[]").split(",")]
    assert shown == pytest.approx(make_table(100)["emb"][3].as_py())
    [uuid] = [
        s.uuid for s in lance.dataset(warehouse / "db1" / "t.lance").describe_indices()[0].segments
    ]
    assert rows(server, f"SHOW INDEX FROM {c}.db1.t") == [
        ("t", 1, "id_idx", 1, "id", "BTree", uuid, 100, 4)
    ]
    assert rows(server, f"SHOW INDEXES FROM {c}.db1.t2") == []
    assert error_of(server, f"SELECT * FROM {c}.db1.nope")[0] == 1146
    assert error_of(server, f"SHOW TABLES FROM {c}.nodb")[0] == 1049
    assert error_of(server, f"DESC {c}.db1.nope")[0] == 1146


def test_catalog_ddl_masks_secrets_renames_retargets_and_drops(
    shared_server: ServerProcess, warehouse: Path, tmp_path: Path
) -> None:
    server = shared_server
    name = unique("lc")
    properties = {
        "type": "lance",
        "warehouse": str(warehouse),
        "s3.access_key": ACCESS_KEY,
        "s3.secret_key": SECRET_KEY,
    }
    server.query(f"CREATE CATALOG {name} COMMENT 'vectors' PROPERTIES ({props_sql(properties)})")
    assert (
        rows(
            server,
            f"CREATE CATALOG IF NOT EXISTS {name} PROPERTIES ('type' = 'lance', 'warehouse' = "
            f"'/x')",
        )
        == []
    )
    [(catalog, text)] = rows(server, f"SHOW CREATE CATALOG {name}")
    assert catalog == name and SECRET_KEY not in text and ACCESS_KEY not in text
    assert (
        '"s3.secret_key" = "***"' in text
        and f'"warehouse" = "{warehouse}"' in text
        and "COMMENT 'vectors'" in text
    )
    listed = [r for r in rows(server, "SHOW CATALOGS") if r[1] == name]
    assert [(r[2], r[6]) for r in listed] == [("lance", "vectors")]
    renamed = unique("lc")
    server.query(f"ALTER CATALOG {name} RENAME {renamed}")
    assert error_of(server, f"SHOW DATABASES FROM {name}")[1] == f"Unknown catalog '{name}'"
    assert rows(server, f"SELECT count(*) FROM {renamed}.db2.u") == [(5,)]
    other = tmp_path / "other"
    lance.write_dataset(make_table(2), other / "dbx" / "v.lance")
    server.query(f"ALTER CATALOG {renamed} SET PROPERTIES ('warehouse' = 'file://{other}')")
    assert rows(server, f"SHOW DATABASES FROM {renamed}") == [("dbx",)]
    code, text = error_of(
        server, f"ALTER CATALOG {renamed} SET PROPERTIES ('lance.catalog.type' = 'hive')"
    )
    assert code == 1105 and "supported: filesystem" in text
    assert rows(server, f"SELECT count(*) FROM {renamed}.dbx.v") == [(2,)]  # unchanged
    with server.connect() as conn, conn.cursor() as cur:
        cur.execute(f"USE {renamed}.dbx")
        cur.execute(f"DROP CATALOG {renamed}")
        cur.execute("SELECT DATABASE()")
        assert cur.fetchall() == ((None,),)  # the session left the dropped catalog
    assert [r for r in rows(server, "SHOW CATALOGS") if r[1] in (name, renamed)] == []
    assert error_of(server, f"SELECT * FROM {renamed}.dbx.v")[1] == f"Unknown catalog '{renamed}'"
    assert SECRET_KEY not in server.log_text()


def test_switch_use_unqualified_select_and_joins_with_internal_tables(
    shared_server: ServerProcess, warehouse: Path
) -> None:
    server = shared_server
    c = create_catalog(server, str(warehouse))
    idb = unique("idb")
    server.query(f"CREATE DATABASE {idb}")
    server.query(f"CREATE TABLE {idb}.labels (cat VARCHAR, label VARCHAR)")
    server.query(f"INSERT INTO {idb}.labels VALUES ('c1', 'one'), ('c2', 'two')")
    join = (
        "SELECT l.label, count(*) FROM {t} AS t JOIN {labels} AS l ON t.cat = l.cat "
        "WHERE t.id < 20 GROUP BY l.label ORDER BY l.label"
    )
    expected = [("one", 4), ("two", 4)]
    assert rows(server, join.format(t=f"{c}.db1.t", labels=f"{idb}.labels")) == expected
    with server.connect() as conn, conn.cursor() as cur:
        cur.execute(f"SWITCH {c}")
        cur.execute("SHOW DATABASES")
        assert cur.fetchall() == (("db1",), ("db2",))
        cur.execute("USE db1")
        cur.execute("SELECT count(*) FROM t WHERE cat = 'c3'")
        assert cur.fetchall() == ((20,),)
        cur.execute(join.format(t="t", labels=f"internal.{idb}.labels"))
        assert list(cur.fetchall()) == expected
        # one statement, two references to one table: the same pinned version (a self-join)
        cur.execute("SELECT count(*) FROM t a JOIN db1.t b ON a.id = b.id")
        assert cur.fetchall() == ((100,),)
        cur.execute(f"USE {c}.db2")
        cur.execute("SELECT sum(id) FROM u")
        assert cur.fetchall() == ((10,),)
        cur.execute("SHOW TABLES")
        assert cur.fetchall() == (("u",),)


def test_information_schema_answers_for_the_external_catalog(
    shared_server: ServerProcess, warehouse: Path
) -> None:
    server = shared_server
    c = create_catalog(server, str(warehouse))
    with server.connect() as conn, conn.cursor() as cur:
        cur.execute("SELECT * FROM information_schema.columns LIMIT 0")
        internal_shape = [d[0] for d in cur.description]
        cur.execute(f"USE {c}.db1")
        cur.execute("SELECT * FROM information_schema.columns LIMIT 0")
        assert [d[0] for d in cur.description] == internal_shape
        cur.execute(
            "SELECT TABLE_NAME, TABLE_TYPE, ENGINE FROM information_schema.TABLES "
            "WHERE TABLE_SCHEMA = database() ORDER BY 1"
        )
        assert cur.fetchall() == (("t", "BASE TABLE", "Lance"), ("t2", "BASE TABLE", "Lance"))
        cur.execute(
            "SELECT COLUMN_NAME, ORDINAL_POSITION, DATA_TYPE, COLUMN_TYPE, NUMERIC_PRECISION, "
            "IF(IS_NULLABLE = 'yes', 1, 0) FROM information_schema.COLUMNS "
            "WHERE TABLE_SCHEMA = 'db1' AND TABLE_NAME = 't' ORDER BY ORDINAL_POSITION"
        )
        assert cur.fetchall() == (
            ("id", 1, "bigint", "bigint", 19, 1),
            ("cat", 2, "varchar", "varchar(65535)", None, 1),
            ("emb", 3, "text", "array<float>(8)", None, 1),
        )
        cur.execute("SELECT SCHEMA_NAME FROM information_schema.SCHEMATA ORDER BY 1")
        assert cur.fetchall() == (("db1",), ("db2",), ("information_schema",))
        cur.execute("SWITCH internal")
        cur.execute(
            f"SELECT table_schema, table_name FROM {c}.information_schema.tables ORDER BY 1, 2"
        )
        assert cur.fetchall() == (("db1", "t"), ("db1", "t2"), ("db2", "u"))
        # the names external tables are bound under cannot be named by SQL
        cur.execute(f"SELECT count(*) FROM {c}.db1.t")
        with pytest.raises(pymysql.err.MySQLError) as info:
            cur.execute("SELECT * FROM db1.__drydock_ext_0")
        assert info.value.args[0] == 1146


def test_time_travel_pinned_versions_and_refresh(
    shared_server: ServerProcess, warehouse: Path
) -> None:
    server = shared_server
    uri = warehouse / "db1" / "t.lance"
    c = create_catalog(server, str(warehouse))
    t = f"{c}.db1.t"
    assert rows(server, f"SELECT count(*) FROM {t}") == [(100,)]
    v1_time = lance.dataset(uri).versions()[0]["timestamp"].strftime("%Y-%m-%d %H:%M:%S.%f")
    time.sleep(0.05)
    appended = lance.write_dataset(
        make_table(10, start=100), uri, mode="append"
    )  # an external writer
    appended.tags.create("before_append", 1)
    # the cached version stays pinned until REFRESH: every statement reads one version
    assert rows(server, f"SELECT count(*) FROM {t}") == [(100,)]
    server.query(f"REFRESH TABLE {t}")
    assert rows(server, f"SELECT count(*) FROM {t}") == [(110,)]
    assert rows(server, f"SELECT count(*) FROM {t} FOR VERSION AS OF 1") == [(100,)]
    assert rows(server, f"SELECT count(*) FROM {t} FOR TIME AS OF '{v1_time}'") == [(100,)]
    assert rows(server, f"SELECT count(*) FROM {t}@tag('before_append')") == [(100,)]
    assert rows(server, f"SELECT count(*) FROM {t} FOR VERSION AS OF 'before_append'") == [(100,)]
    # both versions of one table in one statement
    assert rows(
        server,
        f"SELECT (SELECT count(*) FROM {t}) - (SELECT count(*) FROM {t} FOR VERSION AS OF 1)",
    ) == [(10,)]
    for sql, message in [
        (
            f"SELECT * FROM {t} FOR VERSION AS OF 99",
            f"Version 99 of table 'db1.t' does not exist in catalog '{c}'",
        ),
        (
            f"SELECT * FROM {t}@tag('nope')",
            f"Tag 'nope' of table 'db1.t' does not exist in catalog '{c}'",
        ),
        (
            f"SELECT * FROM {t} FOR TIME AS OF '1999-01-01 00:00:00'",
            "has no version committed at or before",
        ),
        (f"SELECT * FROM {t} FOR TIME AS OF 'last tuesday'", "Invalid timestamp 'last tuesday'"),
    ]:
        code, text = error_of(server, sql)
        assert code == 1105 and message in text and "Traceback" not in text, text
    # a table created outside appears after REFRESH DATABASE; a dropped one disappears after REFRESH
    lance.write_dataset(make_table(1), warehouse / "db1" / "fresh.lance")
    assert rows(server, f"SHOW TABLES FROM {c}.db1") == [("t",), ("t2",)]
    server.query(f"REFRESH DATABASE {c}.db1")
    assert rows(server, f"SHOW TABLES FROM {c}.db1") == [("fresh",), ("t",), ("t2",)]
    shutil.rmtree(warehouse / "db1" / "t2.lance")
    server.query(f"REFRESH CATALOG {c}")
    assert rows(server, f"SHOW TABLES FROM {c}.db1") == [("fresh",), ("t",)]
    assert error_of(server, f"SELECT * FROM {c}.db1.t2")[0] == 1146
    shutil.rmtree(warehouse / "db2")
    server.query(f"REFRESH DATABASE {c}.db2")
    assert rows(server, f"SHOW DATABASES FROM {c}") == [("db1",)]


def test_count_star_from_metadata_matches_a_scan(
    shared_server: ServerProcess, warehouse: Path
) -> None:
    """SELECT count(*) FROM <lance table> is answered from the manifest (count push-down); it must
    agree with DuckDB's scan, deletions included, and keep the column name and type."""
    server = shared_server
    lance.dataset(warehouse / "db1" / "t.lance").delete("id < 10")  # version 2
    c = create_catalog(server, str(warehouse))
    with server.connect() as conn, conn.cursor() as cur:
        cur.execute(f"SELECT count(*) FROM {c}.db1.t")
        assert cur.fetchall() == ((90,),)
        assert [(d[0], d[1]) for d in cur.description] == [
            ("count(*)", pymysql.constants.FIELD_TYPE.LONGLONG)
        ]  # as written
        counted = cur.description[0]
        assert (counted[3], counted[6]) == (21, False)  # MySQL's COUNT: BIGINT(21) NOT NULL
        cur.execute(f"SELECT count(*) FROM {c}.db1.t WHERE id >= 0")  # a scan
        assert cur.fetchall() == ((90,),)
        assert cur.description[0][1:] == counted[1:]
        cur.execute(f"SELECT count(*) AS n FROM {c}.db1.t FOR VERSION AS OF 1")
        assert cur.fetchall() == ((100,),) and cur.description[0][0] == "n"
        cur.execute(f"SELECT count(*), count(*) FROM {c}.db1.t x")
        assert cur.fetchall() == ((90, 90),)
    assert error_of(server, f"SELECT count(*) FROM {c}.db1.nope")[0] == 1146


def test_select_needs_select_priv_and_writes_are_refused(
    shared_server: ServerProcess, warehouse: Path
) -> None:
    server = shared_server
    c = create_catalog(server, str(warehouse))
    user = unique("reader")
    server.query(f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw'")
    code, text = error_of(server, f"SELECT count(*) FROM {c}.db1.t", user, "pw")
    assert code == 1142 and text.startswith("SELECT command denied")
    server.query(f"GRANT SELECT_PRIV ON {c}.db1.t TO '{user}'@'%'")
    assert rows(server, f"SELECT count(*) FROM {c}.db1.t", user, "pw") == [(100,)]
    assert error_of(server, f"SELECT count(*) FROM {c}.db1.t2", user, "pw")[0] == 1142
    assert (
        error_of(server, f"SELECT * FROM {c}.db1.t JOIN {c}.db1.t2 USING (id)", user, "pw")[0]
        == 1142
    )
    assert rows(server, f"SHOW TABLES FROM {c}.db1", user, "pw") == [("t",)]
    assert rows(server, f"SHOW DATABASES FROM {c}", user, "pw") == [("db1",)]
    with server.connect(user=user, password="pw") as conn, conn.cursor() as cur:
        cur.execute(f"USE {c}.db1")
        cur.execute("SELECT DISTINCT table_name FROM information_schema.columns")
        assert cur.fetchall() == (("t",),)  # visibility applies to the external information_schema
        cur.execute("SELECT count(*) FROM t WHERE id > 0")  # binds t under a name on this cursor
        with pytest.raises(pymysql.err.MySQLError) as listing:  # no way to discover bound names
            cur.execute("SELECT view_name FROM duckdb_views() WHERE view_name LIKE '__drydock%'")
        assert listing.value.args[0] == 1142
        bound_names = [("__drydock_ext_0123456789abcdef",), ("__drydock_cte_1",)]  # reserved prefix
        for (bound,) in bound_names:  # SQL can name neither the bound object nor a table by string
            for sql in (
                f"SELECT * FROM {bound}",
                f"SELECT * FROM query_table('{bound}')",
                f"SELECT * FROM query('SELECT * FROM {bound}')",
            ):
                with pytest.raises(pymysql.err.MySQLError) as info:
                    cur.execute(sql)
                assert info.value.args[0] in (1142, 1146, 1235), sql
    for sql in (
        f"INSERT INTO {c}.db1.t (id) VALUES (1)",
        f"DELETE FROM {c}.db1.t",
        f"CREATE TABLE {c}.db1.n (x INT)",
        f"DROP TABLE {c}.db1.t",
    ):
        code, text = error_of(server, sql)  # as root: refused because the catalog is read-only
        assert (
            code == 1105
            and text
            == f"Catalog '{c}' is read-only through SQL: only SELECT is supported on its tables"
        )
    assert rows(server, f"SELECT count(*) FROM {c}.db1.t") == [(100,)]


def test_s3_catalog_end_to_end_without_leaking_secrets(server: ServerProcess, s3: S3Server) -> None:  # noqa: F811
    bucket = s3.make_bucket(unique("drydock-lance-"))
    options = s3.lance_storage_options
    uri = f"s3://{bucket}/wh/sales/orders.lance"
    lance.write_dataset(make_table(50), uri, storage_options=options)
    lance.write_dataset(
        make_table(3), f"s3://{bucket}/wh/sales/returns.lance", storage_options=options
    )
    c = create_catalog(server, f"s3://{bucket}/wh/", **s3.catalog_properties())
    assert rows(server, f"SHOW DATABASES FROM {c}") == [("sales",)]
    assert rows(server, f"SHOW TABLES FROM {c}.sales") == [("orders",), ("returns",)]
    assert rows(server, f"DESC {c}.sales.orders")[2] == (
        "emb",
        "ARRAY<FLOAT>(8)",
        "YES",
        "",
        None,
        "",
    )
    assert rows(server, f"SELECT count(*), max(id) FROM {c}.sales.orders WHERE cat = 'c4'") == [
        (10, 49)
    ]
    server.query("CREATE DATABASE s3join")
    server.query("CREATE TABLE s3join.ids (id BIGINT)")
    server.query("INSERT INTO s3join.ids VALUES (1), (2), (49), (1000)")
    assert rows(
        server, f"SELECT o.id FROM {c}.sales.orders o JOIN s3join.ids i ON o.id = i.id ORDER BY 1"
    ) == [(1,), (2,), (49,)]
    lance.write_dataset(make_table(5, start=50), uri, mode="append", storage_options=options)
    assert rows(server, f"SELECT count(*) FROM {c}.sales.orders") == [(50,)]
    server.query(f"REFRESH TABLE {c}.sales.orders")
    assert rows(server, f"SELECT count(*) FROM {c}.sales.orders") == [(55,)]
    assert rows(server, f"SELECT count(*) FROM {c}.sales.orders FOR VERSION AS OF 1") == [(50,)]
    [(_, text)] = rows(server, f"SHOW CREATE CATALOG {c}")
    assert '"s3.secret_key" = "***"' in text and SECRET_KEY not in text
    # errors from the object store: a missing bucket, a dead endpoint, a missing table
    missing = create_catalog(server, "s3://no-such-bucket-here/wh", **s3.catalog_properties())
    code, text = error_of(server, f"SHOW DATABASES FROM {missing}")
    assert code == 1105 and text.startswith(f"Catalog '{missing}': ") and SECRET_KEY not in text
    dead_props = {**s3.catalog_properties(), "s3.endpoint": "http://127.0.0.1:1"}
    dead = create_catalog(server, f"s3://{bucket}/wh", **dead_props)
    code, text = error_of(server, f"SELECT * FROM {dead}.sales.orders")
    assert code == 1105 and text.startswith(f"Catalog '{dead}': ") and SECRET_KEY not in text
    assert error_of(server, f"SELECT * FROM {c}.sales.nope")[0] == 1146
    server.query(f"ALTER CATALOG {c} SET PROPERTIES ('s3.secret_key' = '{SECRET_KEY}')")
    audit = rows(server, "SHOW AUDIT LIMIT 100")
    assert any(r[4] == "CreateCatalog" for r in audit) and any(
        r[4] == "AlterCatalogSetProperties" for r in audit
    )
    assert SECRET_KEY not in repr(audit)
    assert SECRET_KEY not in (server.data_dir / "audit.jsonl").read_text()
    assert SECRET_KEY not in server.log_text()
