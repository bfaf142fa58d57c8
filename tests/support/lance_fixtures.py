"""Shared helpers for Lance index job tests over the wire: datasets, warehouses, catalogs, job
polling.

- ``vector_table`` / ``odd_table`` build the Arrow tables tests write with pylance (the "external
  writer"); the vector column is ``fixed_size_list<float32>[16] NOT NULL``, small enough that a
  real worker builds an ANN index in well under a second (``ANN_FAST`` parameters).
- ``Warehouse`` is a local directory or an ``s3://`` prefix on the local S3 server
(tests/support/s3.py),
  with the storage options pylance needs and the catalog properties drydock needs.
- ``offline_engine`` opens a *stopped* server's data directory in-process (no background
  threads) so a test can drive transitions through the manager API — never through product code
  that fakes a result.
- Every wait is bounded (``wait_job``, ``wait_until`` from tests/support/waiting.py, re-exported
here).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import lance
import numpy as np
import pyarrow as pa
import pymysql
import pytest

from tests.conftest import ServerProcess
from tests.support.waiting import wait_until

DIM = 16
ROWS = 2000
ANN_FAST = '"sample_rate" = "16", "max_iters" = "5"'
SETTLED_REFRESH = ("DONE", "NOT_REQUIRED")
_names = itertools.count()


def unique(prefix: str) -> str:
    return f"{prefix}{next(_names)}"


# -- data
# -------------------------------------------------------------------------------------------
def vector_table(n: int = ROWS, dim: int = DIM, seed: int = 0) -> pa.Table:
    """id BIGINT, name (7 distinct values), body (text), emb fixed_size_list<float32>[dim] NOT
    NULL."""
    values = np.random.default_rng(seed).random(n * dim).astype("float32")
    schema = pa.schema(
        [
            pa.field("id", pa.int64()),
            pa.field("name", pa.string()),
            pa.field("body", pa.string()),
            pa.field("emb", pa.list_(pa.float32(), dim), nullable=False),
        ]
    )
    return pa.table(
        {
            "id": pa.array(range(n), pa.int64()),
            "name": [f"n{i % 7}" for i in range(n)],
            "body": [f"word{i % 13} text{i % 5} doc {i}" for i in range(n)],
            "emb": pa.FixedSizeListArray.from_arrays(pa.array(values), dim),
        }
    ).cast(schema)


def odd_table(n: int = 300, dim: int = DIM) -> pa.Table:
    """Columns for schema-contract rejections: a nullable vector, an int vector, a variable list,
    a float64 vector, a struct; plus a good ``emb``."""
    values = np.random.default_rng(1).random(n * dim).astype("float32")
    good = pa.FixedSizeListArray.from_arrays(pa.array(values), dim)
    schema = pa.schema(
        [
            pa.field("id", pa.int64()),
            pa.field("name", pa.string()),
            pa.field("emb", pa.list_(pa.float32(), dim), nullable=False),
            pa.field("emb_nullable", pa.list_(pa.float32(), dim), nullable=True),
            pa.field("emb_int", pa.list_(pa.int32(), dim), nullable=False),
            pa.field("emb_var", pa.list_(pa.float32()), nullable=False),
            pa.field("emb_f64", pa.list_(pa.float64(), dim), nullable=False),
            pa.field("point", pa.struct([pa.field("x", pa.int32())])),
        ]
    )
    ints = pa.FixedSizeListArray.from_arrays(pa.array(np.arange(n * dim, dtype="int32")), dim)
    doubles = pa.FixedSizeListArray.from_arrays(pa.array(values.astype("float64")), dim)
    return pa.table(
        {
            "id": pa.array(range(n), pa.int64()),
            "name": [f"n{i % 3}" for i in range(n)],
            "emb": good,
            "emb_nullable": good,
            "emb_int": ints,
            "emb_var": pa.array([[1.0, 2.0]] * n, pa.list_(pa.float32())),
            "emb_f64": doubles,
            "point": [{"x": i} for i in range(n)],
        }
    ).cast(schema)


# -- warehouses and catalogs
# -------------------------------------------------------------------------
@dataclass
class Warehouse:
    root: str  # an absolute local path, or s3://bucket/prefix
    storage_options: dict[str, str] = field(default_factory=dict)
    catalog_properties: dict[str, str] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return "s3" if self.root.startswith("s3://") else "local"

    def uri(self, db: str, table: str) -> str:
        return f"{self.root.rstrip('/')}/{db}/{table}.lance"

    def write(
        self, db: str, table: str, data: pa.Table | None = None, mode: str = "create"
    ) -> lance.LanceDataset:
        return lance.write_dataset(
            vector_table() if data is None else data,
            self.uri(db, table),
            mode=mode,
            storage_options=self.storage_options or None,
        )

    def dataset(self, db: str, table: str) -> lance.LanceDataset:
        return lance.dataset(self.uri(db, table), storage_options=self.storage_options or None)

    def indexes(self, db: str, table: str) -> dict[str, str]:
        """index name → index type at the latest version."""
        return {d.name: str(d.index_type) for d in self.dataset(db, table).describe_indices()}


def local_warehouse(path: Path) -> Warehouse:
    path.mkdir(parents=True, exist_ok=True)
    return Warehouse(str(path))


def s3_warehouse(s3: Any) -> Warehouse:
    bucket = s3.make_bucket(unique("drydock-jobs-"))
    return Warehouse(f"s3://{bucket}/wh", dict(s3.lance_storage_options), s3.catalog_properties())


def props_sql(props: dict[str, str]) -> str:
    return ", ".join(f'"{k}" = "{v}"' for k, v in props.items())


def create_catalog(
    server: ServerProcess, wh: Warehouse, name: str | None = None, **extra: str
) -> str:
    name = name or unique("lc")
    props = {"type": "lance", "warehouse": wh.root, **wh.catalog_properties, **extra}
    server.query(f"CREATE CATALOG {name} PROPERTIES ({props_sql(props)})")
    return name


# -- statements
# ---------------------------------------------------------------------------------------
def rows(
    server: ServerProcess, sql: str, user: str = "root", password: str = ""
) -> list[tuple[Any, ...]]:
    with server.connect(user=user, password=password) as conn, conn.cursor() as cur:
        cur.execute(sql)
        return list(cur.fetchall())


def error_of(
    server: ServerProcess, sql: str, user: str = "root", password: str = ""
) -> tuple[int, str]:
    with (
        server.connect(user=user, password=password) as conn,
        conn.cursor() as cur,
        pytest.raises(pymysql.err.MySQLError) as info,
    ):
        cur.execute(sql)
    return info.value.args[0], info.value.args[1]


def admit(server: ServerProcess, sql: str, user: str = "root", password: str = "") -> int:
    """Run a CREATE/DROP INDEX; it must answer exactly one ``JobId`` row."""
    with server.connect(user=user, password=password) as conn, conn.cursor() as cur:
        cur.execute(sql)
        assert [d[0] for d in cur.description] == ["JobId"]
        result = cur.fetchall()
    assert len(result) == 1, result
    return int(result[0][0])


def set_config(server: ServerProcess, **values: Any) -> None:
    for key, value in values.items():
        text = str(value).lower() if isinstance(value, bool) else str(value)
        server.query(f'ADMIN SET FRONTEND CONFIG ("{key}" = "{text}")')


def pause(server: ServerProcess) -> None:
    """docs/doris-compatibility.md, defect 6: a suite asserts PENDING only after the dispatcher is
    paused (a hard barrier)."""
    set_config(server, lance_index_job_dispatcher_paused=True)


def resume(server: ServerProcess) -> None:
    set_config(server, lance_index_job_dispatcher_paused=False)


def create_user(server: ServerProcess, grants: list[str], password: str = "pw") -> str:
    user = unique("u")
    server.query(f"CREATE USER '{user}'@'%' IDENTIFIED BY '{password}'")
    for grant in grants:
        server.query(f"GRANT {grant} TO '{user}'@'%'")
    return user


def show_jobs(
    server: ServerProcess, suffix: str = "", user: str = "root", password: str = ""
) -> list[dict[str, str]]:
    with server.connect(user=user, password=password) as conn, conn.cursor() as cur:
        cur.execute(f"SHOW LANCE INDEX JOBS {suffix}")
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r)) for r in cur.fetchall()]


def show_job(
    server: ServerProcess, job_id: int, user: str = "root", password: str = ""
) -> dict[str, str]:
    with server.connect(user=user, password=password) as conn, conn.cursor() as cur:
        cur.execute(f"SHOW LANCE INDEX JOB {job_id}")
        names = [d[0] for d in cur.description]
        [row] = cur.fetchall()
        return dict(zip(names, row))


def settled(job: dict[str, str]) -> bool:
    """A known or UNKNOWN outcome whose refresh obligation (if any) is finished."""
    return job["State"] not in ("PENDING", "RUNNING") and job["RefreshState"] in SETTLED_REFRESH


def wait_job(
    server: ServerProcess,
    job_id: int,
    until: Callable[[dict[str, str]], bool] = settled,
    timeout: float = 60.0,
) -> dict[str, str]:
    deadline = time.monotonic() + timeout
    job = show_job(server, job_id)
    while not until(job):
        if time.monotonic() > deadline:
            raise AssertionError(
                f"job {job_id} did not get there within {timeout}s: {job}\n"
                f"{server.log_text()[-3000:]}"
            )
        time.sleep(0.1)
        job = show_job(server, job_id)
    return job


def dispatcher_rounds(server: ServerProcess) -> int:
    """Background dispatcher rounds finished so far (SHOW BACKENDS DispatcherRounds)."""
    with server.connect() as conn, conn.cursor() as cur:
        cur.execute("SHOW BACKENDS")
        names = [d[0] for d in cur.description]
        [local] = [row for row in cur.fetchall() if row[0] == "local"]
    return int(local[names.index("DispatcherRounds")])


def wake_dispatcher(server: ServerProcess) -> None:
    """Any config change wakes the dispatcher for a round; this one re-sets the sweep period to the
    value it has, so nothing else changes."""
    [(_, period, *_)] = rows(
        server, "ADMIN SHOW FRONTEND CONFIG LIKE 'lance_index_job_dispatch_interval_second'"
    )
    set_config(server, lance_index_job_dispatch_interval_second=period)


def wait_dispatcher_rounds(server: ServerProcess, timeout: float = 30.0) -> None:
    """Return once a whole dispatcher round has begun and finished after this call: the positive
    signal before asserting that the dispatcher did NOT act on something admitted earlier.

    The first round to finish may have begun before the call, so this waits for two, waking the
    dispatcher before each (rounds otherwise run only every
    lance_index_job_dispatch_interval_second)."""
    start = dispatcher_rounds(server)
    for target in (start + 1, start + 2):
        wake_dispatcher(server)
        wait_until(
            lambda target=target: dispatcher_rounds(server) >= target,
            timeout,
            f"dispatcher round {target}",
        )


# -- the manager API on a stopped server's data directory
# -------------------------------------------
@contextmanager
def offline_engine(server: ServerProcess) -> Iterator[Any]:
    """Stop ``server`` (if it runs) and open its data directory in-process without background
    threads.

    The caller restarts the server afterwards (``server.start()``)."""
    from drydock.engine.core import Engine

    server.stop()
    args = server.extra_args  # the server's own metadata store (SQLite in its data dir by default)
    store = args[args.index("--metadata-store") + 1] if "--metadata-store" in args else ""
    engine = Engine(server.data_dir, metadata_store=store)
    try:
        yield engine
    finally:
        engine.close()


def drive_unknown(
    engine: Any, job_id: int, index_uuid: str = "", message: str = "worker lost"
) -> Any:
    """PENDING → RUNNING → UNKNOWN through the manager API, as a dispatch that went wrong would.

    Without an index uuid the job cannot be settled from the dataset's history (reconcile.py), so
    it stays UNKNOWN after restart; the possible-live slot is proven gone by the new epoch."""
    from drydock.engine.jobs.control import states as st

    running = engine.jobs.mark_running(
        job_id,
        invocation_id=f"inv-{job_id}",
        index_uuid=index_uuid,
        deadline_ms=int(time.time() * 1000) + 3_600_000,
        process_epoch="an-earlier-epoch",
        backend_id="local",
    )
    assert running is not None and running.state is st.MutationState.RUNNING
    unknown = engine.jobs.complete_with_result(
        job_id, running.invocation_id, st.ResultCode.NATIVE_IO, message, False
    )
    assert unknown is not None and unknown.state is st.MutationState.UNKNOWN
    return unknown
