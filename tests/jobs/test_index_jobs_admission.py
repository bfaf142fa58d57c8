"""Admission of Lance index jobs over the wire, on real datasets (local disk and the local S3
server).

What each test proves:
- every index kind (IVF_PQ, IVF_FLAT, IVF_SQ, IVF_HNSW_SQ, BTREE, BITMAP, INVERTED) is admitted as
  one durable PENDING job (dispatcher paused first: defect 6), stays PENDING while paused, and a
  real worker then builds it; REPLACE and DROP are jobs too; the refresh obligation makes the new
  indexes visible without a manual REFRESH;
- every rejection answers its exact code and text and admits nothing;
- the gate (enable_lance_index_mutation) answers 5102 after static validation and before any
  metadata read, never gates RESOLVE, and admission works again once it is back on;
- 32 concurrent clients on one index name get exactly one JobId (the rest: the fence naming it);
  32 clients on 32 names get exactly the per-table quota;
- DROP CATALOG / a target-changing ALTER CATALOG are refused while a job is unresolved.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pymysql
import pytest

from tests.conftest import ServerProcess
from tests.support.lance_fixtures import (
    ANN_FAST,
    Warehouse,
    admit,
    create_catalog,
    create_user,
    error_of,
    local_warehouse,
    odd_table,
    pause,
    resume,
    rows,
    s3_warehouse,
    set_config,
    show_job,
    show_jobs,
    unique,
    vector_table,
    wait_job,
)

DEFAULTS = {
    "lance_index_job_dispatcher_paused": True,
    "enable_lance_index_mutation": True,
    "enable_lance_index_local_file_mutation": True,
    "lance_index_job_max_unresolved_per_table": 8,
    "lance_index_job_max_unresolved_per_catalog": 64,
    "lance_index_job_max_unresolved_global": 256,
    "lance_index_max_num_partitions": 4096,
    "lance_index_max_num_sub_vectors": 256,
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(data_dir=tmp_path_factory.mktemp("admission") / "data").start()
    set_config(proc, lance_index_job_max_inflight_per_backend=4)
    yield proc
    proc.stop()


@pytest.fixture(autouse=True)
def defaults(server: ServerProcess) -> None:
    """Each test starts from the same config: dispatcher paused, gate on, reference quotas."""
    set_config(server, **DEFAULTS)


@pytest.fixture
def local(tmp_path: Path) -> Warehouse:
    return local_warehouse(tmp_path / "wh")


# (index name, column, USING, PROPERTIES or "", the type lance reports)
KINDS = [
    (
        "v_pq",
        "emb",
        "ANN",
        (
            f'"index_type" = "IVF_PQ", "metric" = "l2", "num_partitions" = "4", '
            f'"num_sub_vectors" = "4", "num_bits" = "8", {ANN_FAST}'
        ),
        "IVF_PQ",
    ),
    (
        "v_flat",
        "emb",
        "ANN",
        f'"index_type" = "IVF_FLAT", "metric" = "cosine", "num_partitions" = "4", {ANN_FAST}',
        "IVF_FLAT",
    ),
    (
        "v_sq",
        "emb",
        "ANN",
        f'"INDEX_TYPE" = "ivf_sq", "Metric" = "DOT", "num_partitions" = "2", {ANN_FAST}',
        "IVF_SQ",
    ),
    (
        "v_hnsw",
        "emb",
        "ANN",
        (
            f'"index_type" = "IVF_HNSW_SQ", "num_partitions" = "2", "m" = "8", '
            f'"ef_construction" = "50", {ANN_FAST}'
        ),
        "IVF_HNSW_SQ",
    ),
    ("s_btree", "id", "BTREE", "", "BTree"),
    ("s_bitmap", "name", "BITMAP", "", "Bitmap"),
    ("s_inverted", "body", "INVERTED", "", "Inverted"),
]


def create_sql(
    table: str, name: str, column: str, using: str, props: str, head: str = "CREATE INDEX"
) -> str:
    tail = f" PROPERTIES ({props})" if props else ""
    return f"{head} {name} ON {table} ({column}) USING {using}{tail}"


@pytest.mark.parametrize("kind", ["local", "s3"])
def test_each_index_type_is_admitted_pending_then_built(
    server: ServerProcess, tmp_path: Path, kind: str, request: pytest.FixtureRequest
) -> None:
    wh = (
        local_warehouse(tmp_path / "wh")
        if kind == "local"
        else s3_warehouse(request.getfixturevalue("s3"))
    )
    if kind == "s3":  # the local-file gate does not apply to object storage
        set_config(server, enable_lance_index_local_file_mutation=False)
    version = wh.write("db", "t").version
    c = create_catalog(server, wh)
    table = f"{c}.db.t"
    assert rows(server, f"SHOW INDEX FROM {table}") == []  # caches version 1 (no indexes) for 60 s
    ids = [admit(server, create_sql(table, *k[:4])) for k in KINDS]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    listed = show_jobs(server, f"FROM {c}.db")
    assert [int(j["JobId"]) for j in listed] == ids
    for job, (name, column, using, _, lance_type) in zip(listed, KINDS):
        assert (
            job["CatalogName"],
            job["DbName"],
            job["TableName"],
            job["IndexName"],
            job["Operation"],
            job["State"],
            job["RefreshState"],
            job["PossibleLive"],
            job["Message"],
            job["ForceReleased"],
        ) == (c, "db", "t", name, "CREATE", "PENDING", "NOT_REQUIRED", "NO", "", "")
        detail = show_job(server, int(job["JobId"]))
        assert (
            detail["IndexType"],
            detail["ColumnName"],
            detail["AdmittedDatasetVersion"],
            detail["Revision"],
            detail["SchemaContractVersion"],
            detail["Creator"],
            detail["IfNotExists"],
            detail["ResultCode"],
            detail["InvocationId"],
            detail["TerminationProof"],
        ) == (
            lance_type.upper() if using == "ANN" else using,
            column,
            str(version),
            "0",
            "1",
            "'root'@'%'",
            "NO",
            "",
            "",
            "NONE",
        )
    assert wh.indexes("db", "t") == {}  # paused: nothing was sent
    resume(server)
    done = [wait_job(server, i, timeout=120) for i in ids]
    assert [(j["State"], j["RefreshState"], j["ResultCode"], j["Message"]) for j in done] == [
        ("COMMITTED", "DONE", "NATIVE_OK", "index built")
    ] * len(KINDS)
    assert wh.indexes("db", "t") == {k[0]: k[4] for k in KINDS}
    # the refresh obligation dropped the cached version: no manual REFRESH needed
    assert sorted(r[2] for r in rows(server, f"SHOW INDEX FROM {table}")) == sorted(
        k[0] for k in KINDS
    )

    # IF NOT EXISTS no-ops answer the JobId shape with zero rows
    with server.connect() as conn, conn.cursor() as cur:
        cur.execute(create_sql(table, "s_btree", "id", "BTREE", "", "CREATE INDEX IF NOT EXISTS"))
        assert [d[0] for d in cur.description] == ["JobId"] and cur.fetchall() == ()
        cur.execute(f"DROP INDEX IF EXISTS nope ON {table}")
        assert [d[0] for d in cur.description] == ["JobId"] and cur.fetchall() == ()
    pause(server)
    replace = admit(
        server, create_sql(table, "s_btree", "id", "BTREE", "", "CREATE OR REPLACE INDEX")
    )
    drop = admit(server, f"DROP INDEX s_bitmap ON {table}")
    assert [
        (j["Operation"], j["State"])
        for j in show_jobs(server, f"FROM {c}.db WHERE State = 'pending'")
    ] == [("REPLACE", "PENDING"), ("DROP", "PENDING")]
    assert (
        show_job(server, drop)["IndexType"] == "" and show_job(server, drop)["ColumnName"] == "name"
    )
    resume(server)
    for job_id in (replace, drop):
        assert wait_job(server, job_id, timeout=90)["State"] == "COMMITTED"
    after = wh.indexes("db", "t")
    assert "s_bitmap" not in after and after["s_btree"] == "BTree" and len(after) == len(KINDS) - 1


def _expect(server: ServerProcess, sql: str, code: int, message: str, **who: str) -> None:
    got = error_of(server, sql, **who)
    assert got == (code, message), sql


def test_every_rejection_has_its_exact_code_and_text(
    server: ServerProcess, local: Warehouse
) -> None:
    local.write("db", "odd", odd_table(300))
    local.write("db", "few", vector_table(100))
    ext = local.write("db", "t")
    ext.create_index(
        "emb",
        "IVF_PQ",
        name="ext_pq",
        num_partitions=2,
        num_sub_vectors=4,
        sample_rate=16,
        max_iters=5,
    )
    ext.create_scalar_index("id", "BTREE", name="ext_btree")
    c = create_catalog(server, local)
    odd, few, t = f"{c}.db.odd", f"{c}.db.few", f"{c}.db.t"
    pq = '"index_type" = "IVF_PQ", "num_partitions" = "2", "num_sub_vectors" = "4"'
    invalid = [
        (
            f"CREATE INDEX i ON {odd} (id, name) USING BTREE",
            "Lance index must be built on exactly one column",
        ),
        (f"CREATE INDEX i ON {odd} (nope) USING BTREE", "Index column 'nope' does not exist"),
        (
            f"CREATE INDEX i ON {odd} (emb_nullable) USING ANN PROPERTIES ({pq})",
            "ANN index must be built on a column that is not nullable",
        ),
        (
            f"CREATE INDEX i ON {odd} (emb_var) USING ANN PROPERTIES ({pq})",
            "ANN index column must be array type",
        ),
        (
            f"CREATE INDEX i ON {odd} (id) USING ANN PROPERTIES ({pq})",
            "ANN index column must be array type",
        ),
        (
            f"CREATE INDEX i ON {odd} (emb_int) USING ANN PROPERTIES ({pq})",
            "ANN index column item type must be float type",
        ),
        (
            f"CREATE INDEX i ON {odd} (emb_f64) USING ANN PROPERTIES ({pq})",
            "ANN index column item type must be float type",
        ),
        (
            f"CREATE INDEX {'i' * 65} ON {odd} (id) USING BTREE",
            "index name too long, the index name length at most is 64.",
        ),
        (
            f"CREATE INDEX __lance_idx ON {odd} (id) USING BTREE",
            "index name '__lance_idx' uses the reserved '__lance_' prefix of Lance system indexes",
        ),
        (
            f'CREATE INDEX i ON {odd} (emb) USING ANN PROPERTIES ({pq}, "x" = "1")',
            "Unknown property 'x' for Lance ANN index",
        ),
        (
            f'CREATE INDEX i ON {odd} (emb) USING ANN PROPERTIES ("num_partitions" = "2")',
            'Lance ANN index requires property "index_type" = "IVF_PQ"',
        ),
        (
            f'CREATE INDEX i ON {odd} (emb) USING ANN PROPERTIES ("index_type" = "HNSW", '
            f'"num_partitions" = "2")',
            "index_type must be one of IVF_PQ, IVF_FLAT, IVF_SQ, IVF_HNSW_SQ",
        ),
        (
            f'CREATE INDEX i ON {odd} (emb) USING ANN PROPERTIES ({pq}, "metric" = "hamming")',
            "metric must be one of l2, cosine, dot",
        ),
        (
            f'CREATE INDEX i ON {odd} (emb) USING ANN PROPERTIES ("index_type" = "IVF_PQ", '
            f'"num_sub_vectors" = "4")',
            "num_partitions must be a positive integer",
        ),
        *[
            (
                f'CREATE INDEX i ON {odd} (emb) USING ANN PROPERTIES ("index_type" = "IVF_FLAT", '
                f'"num_partitions" = "{v}")',
                "num_partitions must be a positive integer",
            )
            for v in ("0", "-1", "abc", "")
        ],
        (
            f'CREATE INDEX i ON {odd} (emb) USING ANN PROPERTIES ("index_type" = "IVF_FLAT", '
            f'"num_partitions" = "4097")',
            "num_partitions must not exceed 4096 (lance_index_max_num_partitions)",
        ),
        (
            (
                f'CREATE INDEX i ON {odd} (emb) USING ANN PROPERTIES ("index_type" = "IVF_PQ", '
                f'"num_partitions" = "2", '
                '"num_sub_vectors" = "257")'
            ),
            "num_sub_vectors must not exceed 256 (lance_index_max_num_sub_vectors)",
        ),
        (
            f'CREATE INDEX i ON {odd} (emb) USING ANN PROPERTIES ({pq}, "num_bits" = "4")',
            "num_bits must be 8",
        ),
        (
            (
                f'CREATE INDEX i ON {odd} (emb) USING ANN PROPERTIES ("index_type" = "IVF_FLAT", '
                f'"num_partitions" = "2", '
                '"num_sub_vectors" = "4")'
            ),
            "Unknown property 'num_sub_vectors' for Lance IVF_FLAT index",
        ),
        (
            f'CREATE INDEX i ON {odd} (id) USING BTREE PROPERTIES ("a" = "b")',
            "BTREE indexes do not support properties",
        ),
        (
            f'CREATE INDEX i ON {odd} (name) USING BITMAP PROPERTIES ("a" = "b")',
            "BITMAP indexes do not support properties",
        ),
        (
            f"CREATE INDEX i ON {odd} (id) USING HASH",
            "Unsupported index method 'HASH'; use ANN, BTREE, BITMAP or INVERTED",
        ),
        (
            f"CREATE INDEX i ON {odd} (id) USING INVERTED",
            "INVERTED index column must be a string column, got int64",
        ),
        (
            f"CREATE INDEX i ON {odd} (point) USING BTREE",
            "BTREE index column must be a scalar column, got struct<x: int32>",
        ),
        (
            (
                f'CREATE INDEX i ON {odd} (emb) USING ANN PROPERTIES ("index_type" = "IVF_PQ", '
                f'"num_partitions" = "2", '
                '"num_sub_vectors" = "5")'
            ),
            "dimension (16) must be divisible by num_sub_vectors (5)",
        ),
        (
            f"CREATE INDEX i ON {few} (emb) USING ANN PROPERTIES ({pq})",
            "IVF_PQ needs at least 256 rows to train its codebook; the table has 100 (fewer would "
            "build an empty index)",
        ),
        (
            f'CREATE INDEX i ON {odd} (emb) USING ANN PROPERTIES ("index_type" = "IVF_FLAT", '
            f'"num_partitions" = "301")',
            "num_partitions (301) must not exceed the number of rows (300)",
        ),
        (f"CREATE INDEX ext_btree ON {t} (id) USING BTREE", "index 'ext_btree' already exists"),
        (
            f'CREATE INDEX IF NOT EXISTS ext_pq ON {t} (emb) USING ANN PROPERTIES ({pq}, "metric" '
            f'= "cosine")',
            "index 'ext_pq' already exists with a different definition",
        ),
        (f"DROP INDEX nope ON {t}", "index 'nope' not found on table db.t"),
    ]
    for sql, message in invalid:
        _expect(server, sql, 5100, message)
    # IF NOT EXISTS with the same definition (num_partitions is never compared) is a no-op
    assert (
        rows(
            server,
            f"CREATE INDEX IF NOT EXISTS ext_pq ON {t} (emb) USING ANN PROPERTIES "
            '("index_type" = "IVF_PQ", "num_partitions" = "7", "num_sub_vectors" = "4")',
        )
        == []
    )
    # config bounds are read at admission
    set_config(server, lance_index_max_num_partitions=8)
    _expect(
        server,
        f'CREATE INDEX i ON {odd} (emb) USING ANN PROPERTIES ("index_type" = "IVF_FLAT", '
        '"num_partitions" = "9")',
        5100,
        "num_partitions must not exceed 8 (lance_index_max_num_partitions)",
    )
    # 5101: not a Lance table; local datasets while local mutation is off
    server.query("CREATE DATABASE IF NOT EXISTS idb")
    server.query("CREATE TABLE IF NOT EXISTS idb.it (id INT)")
    _expect(
        server,
        "CREATE INDEX i ON internal.idb.it (id) USING BTREE",
        5101,
        "CREATE INDEX is not supported for Lance index jobs on internal tables",
    )
    set_config(server, enable_lance_index_local_file_mutation=False)
    for sql, op in (
        (f"CREATE INDEX i ON {t} (id) USING BTREE", "CREATE INDEX"),
        (f"CREATE OR REPLACE INDEX ext_btree ON {t} (id) USING BTREE", "CREATE OR REPLACE INDEX"),
        (f"DROP INDEX ext_btree ON {t}", "DROP INDEX"),
    ):
        _expect(
            server,
            sql,
            5101,
            f"{op} is not supported for Lance local file datasets "
            f"(enable_lance_index_local_file_mutation = false)",
        )
    set_config(server, enable_lance_index_local_file_mutation=True)
    # missing objects, and privileges: invisible = missing; visible without ALTER = denied
    _expect(
        server,
        f"CREATE INDEX i ON {c}.db.nope (id) USING BTREE",
        1146,
        f"Table 'db.nope' doesn't exist in catalog '{c}'",
    )
    _expect(
        server, "CREATE INDEX i ON nocat.db.t (id) USING BTREE", 1105, "Unknown catalog 'nocat'"
    )
    reader = create_user(server, [f"SELECT_PRIV ON {c}.db.t"])
    _expect(
        server,
        f"CREATE INDEX i ON {t} (id) USING BTREE",
        1142,
        f"ALTER command denied to user '{reader}'@'127.0.0.1' for table 'db.t'",
        user=reader,
        password="pw",
    )
    _expect(
        server,
        f"CREATE INDEX i ON {odd} (id) USING BTREE",
        1146,
        f"Table 'db.odd' doesn't exist in catalog '{c}'",
        user=reader,
        password="pw",
    )
    # rejections admit nothing
    assert show_jobs(server, f"FROM {c}.db") == []
    assert set(local.indexes("db", "t")) == {"ext_pq", "ext_btree"}


def test_gate_off_answers_5102_after_static_validation_and_on_admits(
    server: ServerProcess, local: Warehouse
) -> None:
    ext = local.write("db", "t")
    ext.create_scalar_index("id", "BTREE", name="ext_btree")
    c = create_catalog(server, local)
    t = f"{c}.db.t"
    server.query('ADMIN SET FRONTEND CONFIG ("experimental_enable_lance_index_mutation" = "false")')
    assert rows(
        server, "ADMIN SHOW FRONTEND CONFIG LIKE 'experimental_enable_lance_index_mutation'"
    )[0][:2] == ("experimental_enable_lance_index_mutation", "false")
    for sql, op in (
        (f"CREATE INDEX i ON {t} (id) USING BTREE", "CREATE INDEX"),
        (f"CREATE OR REPLACE INDEX ext_btree ON {t} (id) USING BTREE", "CREATE OR REPLACE INDEX"),
        (f"DROP INDEX ext_btree ON {t}", "DROP INDEX"),
        (f"DROP INDEX IF EXISTS nope ON {t}", "DROP INDEX"),
        (f"CREATE INDEX i ON {c}.db.no_such_table (id) USING BTREE", "CREATE INDEX"),
    ):  # no metadata read
        _expect(
            server,
            sql,
            5102,
            f"{op} is disabled for Lance catalog tables (enable_lance_index_mutation = false)",
        )
    # static validation comes first
    _expect(
        server,
        f'CREATE INDEX i ON {t} (id) USING BTREE PROPERTIES ("a" = "b")',
        5100,
        "BTREE indexes do not support properties",
    )
    # RESOLVE and SHOW are never gated
    _expect(
        server,
        "RESOLVE LANCE INDEX JOB 987654 AS FORCE_RELEASE COMMENT 'x'",
        5103,
        "Lance index job not found: 987654",
    )
    assert show_jobs(server, f"FROM {c}.db") == []
    set_config(server, enable_lance_index_mutation=True)
    job = admit(server, f"CREATE INDEX i ON {t} (id) USING BTREE")
    assert show_job(server, job)["State"] == "PENDING"


def test_drop_admits_only_an_index_on_exactly_one_top_level_column(
    server: ServerProcess, local: Warehouse
) -> None:
    """Issue 13 item 3: DROP's schema contract is the indexed column's; an index on a nested field
    has no top-level column to contract on and is refused at admission, admitting nothing."""
    ext = local.write("db", "o", odd_table())
    ext.create_scalar_index("point.x", "BTREE", name="nested")
    ext.create_scalar_index("id", "BTREE", name="flat")
    c = create_catalog(server, local)
    _expect(
        server,
        f"DROP INDEX nested ON {c}.db.o",
        5100,
        "cannot drop Lance index 'nested': index 'nested' does not map to exactly one top-level "
        "column "
        "(it covers point.x)",
    )
    assert show_jobs(server, f"FROM {c}.db") == []
    job = show_job(server, admit(server, f"DROP INDEX flat ON {c}.db.o"))
    assert (job["State"], job["ColumnName"], job["SchemaContractVersion"]) == ("PENDING", "id", "1")


def _concurrently(server: ServerProcess, statements: list[str]) -> list[Any]:
    """Run each statement on its own connection, released together; → JobId int or (code, text)."""
    connections = [server.connect() for _ in statements]
    barrier = threading.Barrier(len(statements))
    results: list[Any] = [None] * len(statements)

    def run(i: int) -> None:
        with connections[i].cursor() as cur:
            barrier.wait(timeout=30)
            try:
                cur.execute(statements[i])
                results[i] = int(cur.fetchall()[0][0])
            except pymysql.err.MySQLError as exc:
                results[i] = (exc.args[0], exc.args[1])

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(statements))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    for conn in connections:
        conn.close()
    assert all(r is not None for r in results), results
    return results


def test_32_clients_one_name_one_job_id_and_32_names_exactly_the_quota(
    server: ServerProcess, local: Warehouse
) -> None:
    local.write("db", "t")
    local.write("db", "u")
    c = create_catalog(server, local)
    results = _concurrently(server, [f"CREATE INDEX same ON {c}.db.t (id) USING BTREE"] * 32)
    ids = [r for r in results if isinstance(r, int)]
    assert len(ids) == 1, results
    fenced = (
        5100,
        (
            f"lance index 'same' is fenced by unresolved job {ids[0]}; "
            "resolve that job (FORCE_RELEASE) before reusing the name"
        ),
    )
    quota = (
        5100,
        "unresolved lance index job quota exceeded for index 'same'; resolve or finish existing "
        "jobs first",
    )
    assert all(r in (fenced, quota) for r in results if not isinstance(r, int)), results
    assert [(j["JobId"], j["IndexName"]) for j in show_jobs(server, f"FROM {c}.db")] == [
        (str(ids[0]), "same")
    ]

    results = _concurrently(
        server, [f"CREATE INDEX n{i} ON {c}.db.u (id) USING BTREE" for i in range(32)]
    )
    admitted = [r for r in results if isinstance(r, int)]
    assert len(admitted) == 8  # lance_index_job_max_unresolved_per_table
    for i, r in enumerate(results):
        if not isinstance(r, int):
            assert r == (
                5100,
                (
                    f"unresolved lance index job quota exceeded for index 'n{i}'; "
                    "resolve or finish existing jobs first"
                ),
            )
    assert len(show_jobs(server, f'FROM {c}.db WHERE TableName = "u" AND State = "PENDING"')) == 8


def test_three_quota_levels_and_cancel_releases(
    server: ServerProcess, local: Warehouse, tmp_path: Path
) -> None:
    for table in ("t1", "t2", "t3"):
        local.write("db", table, vector_table(300))
    other = local_warehouse(tmp_path / "wh2")
    other.write("db", "t1", vector_table(300))
    c, d = create_catalog(server, local), create_catalog(server, other)
    baseline = len([j for j in show_jobs(server) if j["State"] == "PENDING"])  # other tests' jobs
    set_config(
        server,
        lance_index_job_max_unresolved_per_table=2,
        lance_index_job_max_unresolved_per_catalog=3,
        lance_index_job_max_unresolved_global=baseline + 4,
    )

    def quota_error(name: str) -> tuple[int, str]:
        return (
            5100,
            f"unresolved lance index job quota exceeded for index '{name}'; resolve or finish "
            f"existing jobs first",
        )

    a = admit(server, f"CREATE INDEX a ON {c}.db.t1 (id) USING BTREE")
    admit(server, f"CREATE INDEX b ON {c}.db.t1 (name) USING BTREE")
    assert error_of(server, f"CREATE INDEX x ON {c}.db.t1 (body) USING BTREE") == quota_error(
        "x"
    )  # table
    admit(
        server, f"CREATE INDEX a ON {c}.db.t2 (id) USING BTREE"
    )  # same name, other table: no fence
    assert error_of(server, f"CREATE INDEX y ON {c}.db.t3 (id) USING BTREE") == quota_error(
        "y"
    )  # catalog
    admit(server, f"CREATE INDEX a ON {d}.db.t1 (id) USING BTREE")
    assert error_of(server, f"CREATE INDEX z ON {d}.db.t1 (name) USING BTREE") == quota_error(
        "z"
    )  # global
    # CANCEL of a PENDING job is a NOT_COMMITTED outcome that owes no refresh: fence and quota go
    server.query(f"CANCEL LANCE INDEX JOB {a}")
    cancelled = show_job(server, a)
    assert (
        cancelled["State"],
        cancelled["CompletionReason"],
        cancelled["RefreshState"],
        cancelled["Message"],
    ) == ("NOT_COMMITTED", "CANCELLED", "NOT_REQUIRED", "cancelled before dispatch")
    assert error_of(server, f"CANCEL LANCE INDEX JOB {a}") == (
        5107,
        f"Lance index job {a} cannot be cancelled: it is already NOT_COMMITTED",
    )
    admit(server, f"CREATE INDEX z ON {d}.db.t1 (name) USING BTREE")


def test_catalog_with_unresolved_jobs_cannot_be_dropped_or_retargeted(
    server: ServerProcess, local: Warehouse, tmp_path: Path
) -> None:
    local.write("db", "t")
    c = create_catalog(server, local)
    job = admit(server, f"CREATE INDEX i ON {c}.db.t (id) USING BTREE")
    assert error_of(server, f"DROP CATALOG {c}") == (
        1105,
        f"Catalog '{c}' has unresolved Lance index job {job}; resolve it before DROP CATALOG",
    )
    elsewhere = local_warehouse(tmp_path / "elsewhere")
    assert error_of(
        server, f"ALTER CATALOG {c} SET PROPERTIES ('warehouse' = '{elsewhere.root}')"
    ) == (
        1105,
        (
            f"Catalog '{c}' has unresolved Lance index job {job}; resolve it before changing its "
            f"target "
            "with ALTER CATALOG"
        ),
    )
    # a rename keeps the target: allowed, and the job follows the catalog (by id)
    renamed = unique("lc")
    server.query(f"ALTER CATALOG {c} RENAME {renamed}")
    assert [j["CatalogName"] for j in show_jobs(server, f"FROM {renamed}.db")] == [renamed]
    assert error_of(server, f"SHOW LANCE INDEX JOBS FROM {c}.db") == (
        1105,
        f"Unknown catalog '{c}'",
    )
    server.query(f"CANCEL LANCE INDEX JOB {job}")
    server.query(f"ALTER CATALOG {renamed} SET PROPERTIES ('warehouse' = '{elsewhere.root}')")
    server.query(f"DROP CATALOG {renamed}")
