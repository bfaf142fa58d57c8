"""SELECT on a Lance table: drydock over the wire vs DuckDB in-process on the same dataset.

One run writes a Lance dataset (default 1M rows: ``id BIGINT, category VARCHAR`` (50 values),
``value DOUBLE, embedding FLOAT[32]``), starts ``python -m drydock.server serve`` with a Lance
catalog over it, and times two queries whose results are a few rows:

- filtered group-by: ``SELECT category, count(*), avg(value) … WHERE id < 200000 AND category IN
  (3 values) GROUP BY category ORDER BY category`` (3 rows);
- ``SELECT count(*)`` (1 row): drydock answers a bare ``count(*)`` of an external table from the
  pinned version's manifest (count push-down, as Doris does), in-process DuckDB scans a column;
- ``SELECT count(*) … WHERE id >= 0`` (1 row): the same count as a scan on both sides, so that
  drydock's fixed cost per statement stays visible next to the push-down.

Sides: **drydock** (pymysql client, one connection, COM_QUERY with the table named
``bench_lance.bench.t``, rows fetched) and **in-process DuckDB** (``duckdb.connect()`` in this
process, ``register('t', lance.dataset(uri))``, ``execute(...).fetchall()``). Both keep the dataset
open between queries: drydock's catalog is created with ``meta.cache.ttl-second = 3600`` so the
timed loop measures the steady state, as the in-process side does.

Each query: warm-up, then ``--rounds`` rounds alternating drydock/in-process and
in-process/drydock, ``--reps`` timed executions per side per round; the table shows each side's
median latency and the ratio drydock / in-process DuckDB. Goal: <= 1.3x on the group-by and the
bare count(*) (the issue's two queries). Bounded by
``--max-seconds`` (a round that would start after it is skipped). Exit code 0 whatever the ratio.

    .venv/bin/python bench/bench_lance_select.py [--rows 1000000] [--rounds 6] [--reps 15]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import lance
import numpy as np
import pyarrow as pa
import pymysql

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.bench_wire import HOST, Server, drydock_server  # noqa: E402
from bench.timing import (
    Stopwatch,
    fmt_ratio,
    goal_verdict,
    interleaved,
    median,
    median_ratio,
    timed_reps,
)  # noqa: E402

BASELINE = "in-process DuckDB"
GOAL = 1.3
CATALOG = "bench_lance"
CATEGORIES = 50
BATCH_ROWS = 100_000
# (label, SQL, counts toward the goal): the two queries; the scan count is for reading.
QUERIES = [
    (
        "filtered group-by",
        "SELECT category, count(*) AS n, avg(value) AS mean FROM {t} WHERE id < 200000 "
        "AND category IN ('cat_1', 'cat_7', 'cat_42') GROUP BY category ORDER BY category",
        True,
    ),
    ("count(*)", "SELECT count(*) FROM {t}", True),
    ("count(*) as a scan", "SELECT count(*) FROM {t} WHERE id >= 0", False),
]


def batches(rows: int, dim: int) -> Iterator[pa.RecordBatch]:
    rng = np.random.default_rng(7)
    for start in range(0, rows, BATCH_ROWS):
        n = min(BATCH_ROWS, rows - start)
        ids = np.arange(start, start + n, dtype=np.int64)
        yield pa.record_batch(
            {
                "id": pa.array(ids),
                "category": pa.array([f"cat_{i % CATEGORIES}" for i in ids.tolist()]),
                "value": pa.array(rng.random(n)),
                "embedding": pa.FixedSizeListArray.from_arrays(
                    pa.array(rng.random(n * dim, dtype=np.float32)), dim
                ),
            }
        )


def write_dataset(uri: Path, rows: int, dim: int) -> None:
    first = next(batches(1, dim))
    reader = pa.RecordBatchReader.from_batches(first.schema, batches(rows, dim))
    lance.write_dataset(reader, uri)


@dataclass
class Cell:
    label: str
    goal: bool
    rows: int = 0
    drydock: list[float] = field(default_factory=list)  # seconds per execution
    inproc: list[float] = field(default_factory=list)

    def ratio(self) -> float:
        return median_ratio(self.drydock, self.inproc)


def _rounded(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """Rows with floats rounded: a parallel avg() may differ in the last bits between runs."""
    return [tuple(round(v, 9) if isinstance(v, float) else v for v in r) for r in rows]


def run(args: argparse.Namespace) -> list[Cell]:
    with tempfile.TemporaryDirectory(prefix="drydock-bench-lance-") as tmp_name:
        tmp = Path(tmp_name)
        warehouse = tmp / "warehouse"
        uri = warehouse / "bench" / "t.lance"
        with Stopwatch() as writing:
            write_dataset(uri, args.rows, args.dim)
        print(
            f"dataset: {args.rows:,} rows, embedding FLOAT[{args.dim}], written in "
            f"{writing.seconds:.1f}s to {uri}",
            flush=True,
        )
        server: Server = drydock_server(tmp, ROOT)
        server.start()
        conn = None
        try:
            conn = pymysql.connect(
                host=HOST,
                port=server.port,
                user="root",
                password="",
                autocommit=True,
                connect_timeout=10,
                read_timeout=120,
                write_timeout=60,
            )
            with conn.cursor() as cur:
                cur.execute(
                    f"CREATE CATALOG {CATALOG} PROPERTIES ('type' = 'lance', 'warehouse' = "
                    f"'{warehouse}', 'meta.cache.ttl-second' = '3600')"
                )
            con = duckdb.connect()
            con.register("t", lance.dataset(uri))
            return measure(args, conn, con)
        finally:
            if conn is not None:
                conn.close()
            server.stop()


def measure(
    args: argparse.Namespace, conn: pymysql.connections.Connection, con: duckdb.DuckDBPyConnection
) -> list[Cell]:
    deadline = time.monotonic() + args.max_seconds
    cells: list[Cell] = []
    with conn.cursor() as cur:
        for label, template, goal in QUERIES:
            remote_sql, local_sql = template.format(t=f"{CATALOG}.bench.t"), template.format(t="t")

            def drydock(remote_sql: str = remote_sql) -> list[tuple[Any, ...]]:
                cur.execute(remote_sql)
                return list(cur.fetchall())

            def inproc(local_sql: str = local_sql) -> list[tuple[Any, ...]]:
                return con.execute(local_sql).fetchall()

            cell = Cell(label, goal)
            (_, remote), (_, local) = timed_reps(drydock, 3), timed_reps(inproc, 3)  # warm-up
            if _rounded(remote) != _rounded(local):
                raise RuntimeError(
                    f"{label}: results differ: drydock {remote} vs in-process {local}"
                )
            cell.rows = len(local)
            sides = [(drydock, cell.drydock), (inproc, cell.inproc)]
            for r, order in interleaved(sides, args.rounds):
                if time.monotonic() > deadline:
                    print(f"  {label}: --max-seconds reached after {r} round(s)", flush=True)
                    break
                for fn, samples in order:
                    timed_reps(fn, args.reps, samples)
            if not cell.drydock:
                raise RuntimeError("--max-seconds left no time to measure")
            print(
                f"  {label}: drydock {median(cell.drydock) * 1000:.2f} ms, {BASELINE} "
                f"{median(cell.inproc) * 1000:.2f} ms",
                flush=True,
            )
            cells.append(cell)
    return cells


def print_table(cells: list[Cell], args: argparse.Namespace) -> None:
    print()
    print(
        f"baseline: {BASELINE} {duckdb.__version__} on the same dataset (pylance "
        f"{lance.__version__}); "
        f"ratio = drydock median latency / {BASELINE} median latency ({args.rows:,} rows, "
        f"{args.rounds} alternating rounds x {args.reps} reps per side, {os.cpu_count()} CPUs)"
    )
    header = (
        f"{'query':<20} {'rows':>4} {'drydock ms':>11} {BASELINE + ' ms':>22} "
        f"{'ratio vs ' + BASELINE:>28}"
    )
    print(header)
    print("-" * len(header))
    for c in cells:
        print(
            f"{c.label:<20} {c.rows:>4} {median(c.drydock) * 1000:>11.2f} "
            f"{median(c.inproc) * 1000:>22.2f} {fmt_ratio(c.ratio(), 28)}"
            f"{'' if c.goal else '  (for reading; not in the goal)'}"
        )
    worst = max(c.ratio() for c in cells if c.goal)
    print(
        "\n"
        + goal_verdict(
            f"<= {GOAL}x {BASELINE} on the filtered group-by and count(*)",
            worst,
            GOAL,
            higher_is_better=False,
        )
    )


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=f"SELECT on a Lance table: drydock vs {BASELINE}")
    p.add_argument(
        "--rows", type=int, default=1_000_000, help="rows in the dataset (default 1000000)"
    )
    p.add_argument("--dim", type=int, default=32, help="embedding dimension (default 32)")
    p.add_argument("--rounds", type=int, default=6, help="alternating rounds per query (default 6)")
    p.add_argument(
        "--reps", type=int, default=15, help="timed executions per side per round (default 15)"
    )
    p.add_argument(
        "--max-seconds",
        type=float,
        default=300.0,
        help="no new round starts after this many seconds of measuring (default 300)",
    )
    args = p.parse_args(argv)
    if args.rows < 1 or args.dim < 1 or args.rounds < 1 or args.reps < 1 or args.max_seconds <= 0:
        p.error("--rows, --dim, --rounds, --reps must be >= 1 and --max-seconds > 0")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    print_table(run(args), args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
