"""Scalar indexes over the wire: a filtered SELECT on a Lance table before and after a BTREE index.

One run writes a Lance dataset (default 1M rows: ``id BIGINT, category INT`` (50 values), ``name
VARCHAR, embedding FLOAT[32]``), starts ``python -m drydock.server serve`` with a Lance catalog over
it, and times three filters on ``id`` whose results are a few rows — point ``id = 77777``, range
``id BETWEEN 500000 AND 500009`` (10 rows) and ``id IN (…5 values)`` — as ``SELECT *``:

- **drydock, no index** (pymysql, one connection, rows fetched);
- then ``CREATE INDEX id_idx … USING BTREE`` (and ``cat_idx`` on category ``USING BITMAP``) as
  drydock index jobs, waited for until COMMITTED; **drydock, indexed**, with no REFRESH;
- **pylance** in-process (``LanceDataset.to_table(filter=…)`` with the same filter as Lance SQL)
  on the dataset without and with the index: the named baseline, what Lance itself gains.

Each side: warm-up, then ``--reps`` timed executions, ``--rounds`` times; medians. The table shows
latency before/after and the speed-up ``before / after`` for drydock and for pylance, and
drydock's indexed latency over pylance's indexed latency. Goal: drydock's speed-up on the point
filter >= 10x. Exit code 0 whatever the ratio.

    .venv/bin/python bench/bench_scalar_index.py [--rows 1000000] [--rounds 3] [--reps 20]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import lance
import numpy as np
import pyarrow as pa
import pymysql

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.bench_wire import HOST, Server, drydock_server  # noqa: E402
from bench.timing import Stopwatch, fmt_ratio, goal_verdict, median, timed_reps  # noqa: E402

BASELINE = "pylance in-process"
GOAL = 10.0
CATALOG = "bench_sidx"
BATCH_ROWS = 100_000
# (label, SQL WHERE, the same filter as Lance SQL)
FILTERS = [
    ("point", "id = 77777", "id = 77777"),
    ("range (10 rows)", "id BETWEEN 500000 AND 500009", "id >= 500000 AND id <= 500009"),
    (
        "IN (5 values)",
        "id IN (5, 77777, 123456, 500000, 999999)",
        "id IN (5, 77777, 123456, 500000, 999999)",
    ),
]


def batches(rows: int, dim: int) -> Iterator[pa.RecordBatch]:
    rng = np.random.default_rng(7)
    for start in range(0, rows, BATCH_ROWS):
        n = min(BATCH_ROWS, rows - start)
        ids = np.arange(start, start + n, dtype=np.int64)
        yield pa.record_batch(
            {
                "id": pa.array(ids),
                "category": pa.array((ids % 50).astype(np.int32)),
                "name": pa.array([f"name_{i % 1000}" for i in ids.tolist()]),
                "embedding": pa.FixedSizeListArray.from_arrays(
                    pa.array(rng.random(n * dim, dtype=np.float32)), dim
                ),
            }
        )


def write_dataset(uri: Path, rows: int, dim: int) -> None:
    first = next(batches(1, dim))
    lance.write_dataset(pa.RecordBatchReader.from_batches(first.schema, batches(rows, dim)), uri)


def sample(fn: Callable[[], Any], args: argparse.Namespace) -> list[float]:
    timed_reps(fn, 3)  # warm-up
    samples: list[float] = []
    for _ in range(args.rounds):
        timed_reps(fn, args.reps, samples)
    return samples


def measure_side(cur: Any, ds: Any, args: argparse.Namespace) -> dict[str, tuple[float, float]]:
    """label → (drydock median s, pylance median s) on the dataset as it is now."""
    out = {}
    for label, where, lance_filter in FILTERS:
        sql = f"SELECT * FROM {CATALOG}.db.t WHERE {where}"

        def drydock(sql: str = sql) -> list[tuple[Any, ...]]:
            cur.execute(sql)
            return list(cur.fetchall())

        def pylance(flt: str = lance_filter) -> pa.Table:
            return ds.to_table(filter=flt)

        if len(drydock()) != pylance().num_rows:
            raise RuntimeError(f"{label}: drydock and pylance disagree on the row count")
        out[label] = (median(sample(drydock, args)), median(sample(pylance, args)))
        print(
            f"  {label}: drydock {out[label][0] * 1000:.2f} ms, {BASELINE} "
            f"{out[label][1] * 1000:.2f} ms",
            flush=True,
        )
    return out


def wait_committed(cur: Any, job_id: str) -> None:
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        cur.execute(f"SHOW LANCE INDEX JOB {job_id}")
        names = [d[0] for d in cur.description]
        job = dict(zip(names, cur.fetchone()))
        if job["State"] == "COMMITTED":
            return
        if job["State"] not in ("PENDING", "RUNNING"):
            raise RuntimeError(f"index job {job_id} ended {job['State']}: {job['Message']}")
        time.sleep(0.1)
    raise RuntimeError(f"index job {job_id} did not commit within 600 s")


def run(args: argparse.Namespace) -> tuple[dict[str, Any], dict[str, Any]]:
    with tempfile.TemporaryDirectory(prefix="drydock-bench-sidx-") as tmp_name:
        tmp = Path(tmp_name)
        warehouse = tmp / "warehouse"
        uri = warehouse / "db" / "t.lance"
        with Stopwatch() as writing:
            write_dataset(uri, args.rows, args.dim)
        print(f"dataset: {args.rows:,} rows written in {writing.seconds:.1f}s", flush=True)
        server: Server = drydock_server(tmp, ROOT)
        server.start()
        conn = None
        try:
            conn = pymysql.connect(
                host=HOST, port=server.port, user="root", password="", autocommit=True
            )
            with conn.cursor() as cur:
                cur.execute(
                    f"CREATE CATALOG {CATALOG} PROPERTIES ('type' = 'lance', 'warehouse' = "
                    f"'{warehouse}', 'meta.cache.ttl-second' = '3600')"
                )
                print("no index:", flush=True)
                before = measure_side(cur, lance.dataset(uri), args)
                for sql in (
                    f"CREATE INDEX id_idx ON {CATALOG}.db.t (id) USING BTREE",
                    f"CREATE INDEX cat_idx ON {CATALOG}.db.t (category) USING BITMAP",
                ):
                    cur.execute(sql)
                    wait_committed(cur, cur.fetchone()[0])
                print("indexed (drydock index jobs, no REFRESH):", flush=True)
                after = measure_side(cur, lance.dataset(uri), args)
            return before, after
        finally:
            if conn is not None:
                conn.close()
            server.stop()


def print_table(before: dict[str, Any], after: dict[str, Any], args: argparse.Namespace) -> None:
    print()
    print(
        f"baseline: {BASELINE} (pylance {lance.__version__}, to_table with the same filter); "
        f"{args.rows:,} rows, median of {args.rounds} x {args.reps} per cell, {os.cpu_count()} CPUs"
    )
    header = (
        f"{'filter':<16} {'drydock before':>14} {'after':>8} {'speed-up':>9} "
        f"{'pylance before':>15} {'after':>8} {'speed-up':>9} {'drydock/pylance':>16}"
    )
    print(header)
    print("-" * len(header))
    for label, _, _ in FILTERS:
        (d0, p0), (d1, p1) = before[label], after[label]
        print(
            f"{label:<16} {d0 * 1000:>11.2f} ms {d1 * 1000:>5.2f} ms {fmt_ratio(d0 / d1, 9)} "
            f"{p0 * 1000:>12.2f} ms {p1 * 1000:>5.2f} ms {fmt_ratio(p0 / p1, 9)} "
            f"{fmt_ratio(d1 / p1, 16)}"
        )
    d0, d1 = before["point"][0], after["point"][0]
    print(
        "\n"
        + goal_verdict(
            f">= {GOAL}x faster point filter over the wire once indexed",
            d0 / d1,
            GOAL,
            higher_is_better=True,
        )
    )


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="Lance scalar indexes over the wire")
    p.add_argument("--rows", type=int, default=1_000_000, help="rows (default 1000000)")
    p.add_argument("--dim", type=int, default=32, help="embedding dimension (default 32)")
    p.add_argument("--rounds", type=int, default=3, help="rounds per cell (default 3)")
    p.add_argument("--reps", type=int, default=20, help="timed executions per round (default 20)")
    args = p.parse_args(argv)
    if min(args.rows, args.dim, args.rounds, args.reps) < 1:
        p.error("--rows, --dim, --rounds, --reps must be >= 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    before, after = run(args)
    print_table(before, after, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
