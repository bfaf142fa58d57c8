"""SELECT on a Paimon append table: drydock over the wire vs pypaimon in-process, and the server's
memory during the scan.

One run writes two Paimon append tables with 10 columns (``id BIGINT, a INT (id % 1000), b INT,
c BIGINT, x DOUBLE, y DOUBLE, z DOUBLE, f FLOAT, s1 STRING, s2 STRING``): ``big`` (default 5M rows)
and ``small`` (default 1M rows), written in 500k-row commits. It starts ``python -m drydock.server
serve``
with a Paimon catalog over the warehouse (``meta.cache.ttl-second = 3600``) and times:

- filtered count: ``SELECT count(*) FROM t WHERE a < 100`` (10% of the rows);
- projection of 2 of the 10 columns: ``SELECT sum(id), avg(x) FROM t``.

Baseline (**pypaimon in-process**): ``new_read_builder().with_projection([...])`` (plus
``with_filter(a < 100)`` for the count) ``.new_read().to_arrow(splits)``, then pyarrow compute for
the count / sums. Each side: one warm-up, then ``--reps`` timed runs; the table shows medians and
the ratio drydock / pypaimon (goal <= 1.3x).

Memory: the server's resident set (``/proc/<pid>/status`` VmRSS) is sampled every 5 ms while each
query on ``big`` and on ``small`` runs; the peak above the server's RSS just before the query is
printed for both, and their ratio (goal: the 5M-row scan under 2x the 1M-row scan, i.e. memory not
proportional to the table). Exit code 0 whatever the ratios.

    .venv/bin/python bench/bench_paimon_scan.py [--rows 5000000] [--small-rows 1000000] [--reps 5]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pymysql

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.bench_wire import HOST, drydock_server  # noqa: E402
from bench.timing import Stopwatch, fmt_ratio, median, ratio, rss_bytes, timed_reps  # noqa: E402

BASELINE = "pypaimon in-process"
GOAL = 1.3
RSS_GOAL = 2.0
CATALOG = "bench_paimon"
CHUNK = 500_000
SCHEMA = pa.schema(
    [
        pa.field("id", pa.int64(), nullable=False),
        ("a", pa.int32()),
        ("b", pa.int32()),
        ("c", pa.int64()),
        ("x", pa.float64()),
        ("y", pa.float64()),
        ("z", pa.float64()),
        ("f", pa.float32()),
        ("s1", pa.string()),
        ("s2", pa.string()),
    ]
)
QUERIES = {
    "filtered count": "SELECT count(*) FROM {t} WHERE a < 100",
    "2 of 10 columns": "SELECT sum(id), avg(x) FROM {t}",
}


def chunk(start: int, n: int) -> pa.Table:
    ids = np.arange(start, start + n, dtype=np.int64)
    rng = np.random.default_rng(start)
    return pa.table(
        {
            "id": ids,
            "a": (ids % 1000).astype(np.int32),
            "b": rng.integers(0, 1 << 30, n, dtype=np.int32),
            "c": ids * 7,
            "x": rng.random(n),
            "y": rng.random(n),
            "z": rng.random(n),
            "f": rng.random(n).astype(np.float32),
            "s1": pa.array([f"k{i % 97}" for i in range(n)]),
            "s2": pa.array([f"v{i % 13}" for i in range(n)]),
        },
        schema=SCHEMA,
    )


def write_table(catalog: Any, name: str, rows: int) -> None:
    from pypaimon import Schema

    catalog.create_table(name, Schema.from_pyarrow_schema(SCHEMA, options={"bucket": "-1"}), False)
    table = catalog.get_table(name)
    for start in range(0, rows, CHUNK):
        builder = table.new_batch_write_builder()
        writer = builder.new_write()
        writer.write_arrow(chunk(start, min(CHUNK, rows - start)))
        builder.new_commit().commit(writer.prepare_commit())
        writer.close()


# -- the two sides
# ----------------------------------------------------------------------------------
def pypaimon_query(catalog: Any, name: str, label: str) -> tuple[Any, ...]:
    table = catalog.get_table(name)
    builder = table.new_read_builder()
    if label == "filtered count":
        predicate = builder.new_predicate_builder().less_than("a", 100)
        builder = builder.with_projection(["a"]).with_filter(predicate)
        data = builder.new_read().to_arrow(builder.new_scan().plan().splits())
        return (int(pc.sum(pc.less(data.column("a"), 100)).as_py() or 0),)
    builder = builder.with_projection(["id", "x"])
    data = builder.new_read().to_arrow(builder.new_scan().plan().splits())
    return (pc.sum(data.column("id")).as_py(), pc.mean(data.column("x")).as_py())


def drydock_query(conn: pymysql.connections.Connection, name: str, label: str) -> tuple[Any, ...]:
    with conn.cursor() as cur:
        cur.execute(QUERIES[label].format(t=f"{CATALOG}.{name}"))
        return tuple(cur.fetchone())


def timed(fn: Callable[[], Any], reps: int) -> tuple[float, Any]:
    """(median seconds, last result) of ``reps`` calls after one warm-up."""
    fn()
    samples, result = timed_reps(fn, reps)
    return median(samples), result


# -- memory
# -----------------------------------------------------------------------------------------
def peak_growth(pid: int, fn: Callable[[], Any]) -> tuple[int, int]:
    """(peak RSS of ``pid`` while ``fn`` runs, that peak minus the RSS before), sampled every 5
    ms."""
    before, peak, done = rss_bytes(pid), [0], threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], rss_bytes(pid))
            time.sleep(0.005)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        fn()
    finally:
        done.set()
        sampler.join()
    top = max(peak[0], rss_bytes(pid))
    return top, top - before


def fresh_scan_memory(tmp: Path, warehouse: Path, name: str, label: str) -> tuple[int, int]:
    """A new server, its catalog and one statement first (so only the scan differs), then the
    query once: (peak RSS, growth during the query). A fresh process per table, so that the
    allocator's memory from an earlier scan cannot hide this one's."""
    server = drydock_server(tmp / f"mem-{name}-{label.split()[0]}", ROOT)
    (tmp / f"mem-{name}-{label.split()[0]}").mkdir()
    server.start()
    try:
        assert server.proc is not None
        conn = pymysql.connect(
            host=HOST, port=server.port, user="root", password="", autocommit=True, read_timeout=600
        )
        with conn.cursor() as cur:
            cur.execute(
                f"CREATE CATALOG {CATALOG} PROPERTIES ('type' = 'paimon', 'warehouse' = "
                f"'{warehouse}', 'meta.cache.ttl-second' = '3600')"
            )
            cur.execute(f"SELECT count(*) FROM {CATALOG}.{name} WHERE id < 0")  # imports, metadata
            cur.fetchall()
        result = peak_growth(server.proc.pid, lambda: drydock_query(conn, name, label))
        conn.close()
        return result
    finally:
        server.stop()


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--small-rows", type=int, default=1_000_000)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    from pypaimon import CatalogFactory

    with tempfile.TemporaryDirectory(prefix="bench-paimon-") as tmp_name:
        tmp = Path(tmp_name)
        warehouse = tmp / "wh"
        catalog = CatalogFactory.create({"warehouse": str(warehouse)})
        catalog.create_database("db", True)
        with Stopwatch() as writing:
            write_table(catalog, "db.big", args.rows)
            write_table(catalog, "db.small", args.small_rows)
        print(
            f"wrote db.big ({args.rows:,} rows) and db.small ({args.small_rows:,} rows) in "
            f"{writing.seconds:.1f}s"
        )
        server = drydock_server(tmp, ROOT).start()
        try:
            assert server.proc is not None
            conn = pymysql.connect(
                host=HOST,
                port=server.port,
                user="root",
                password="",
                autocommit=True,
                read_timeout=600,
            )
            with conn.cursor() as cur:
                cur.execute(
                    f"CREATE CATALOG {CATALOG} PROPERTIES ('type' = 'paimon', 'warehouse' = "
                    f"'{warehouse}', 'meta.cache.ttl-second' = '3600')"
                )
            print(
                f"\n{'query (db.big)':<18} {'drydock':>10} {BASELINE:>20} {'ratio':>7}  goal <= "
                f"{GOAL}x"
            )
            for label in QUERIES:
                ours, ours_result = timed(
                    lambda label=label: drydock_query(conn, "db.big", label), args.reps
                )
                theirs, their_result = timed(
                    lambda label=label: pypaimon_query(catalog, "db.big", label), args.reps
                )
                same = all(
                    abs(float(a) - float(b)) <= 1e-6 * max(1.0, abs(float(b)))
                    for a, b in zip(ours_result, their_result)
                )
                print(
                    f"{label:<18} {ours * 1000:>8.1f}ms {theirs * 1000:>18.1f}ms "
                    f"{fmt_ratio(ratio(ours, theirs), 7)}"
                    f"{'' if same else f'  RESULTS DIFFER: {ours_result} vs {their_result}'}"
                )
            conn.close()
        finally:
            server.stop()
        print(
            f"\nserver memory during one scan, each in a fresh server (peak RSS; growth above the "
            f"RSS "
            f"before the query); goal: big growth < {RSS_GOAL}x small growth"
        )
        for label in QUERIES:
            small_peak, small = fresh_scan_memory(tmp, warehouse, "db.small", label)
            big_peak, big = fresh_scan_memory(tmp, warehouse, "db.big", label)
            print(
                f"{label:<18} small ({args.small_rows:,} rows): peak {small_peak / 2**20:6.0f} "
                f"MiB, "
                f"+{small / 2**20:6.1f} MiB   big ({args.rows:,} rows): peak "
                f"{big_peak / 2**20:6.0f} MiB, "
                f"+{big / 2**20:6.1f} MiB   ratio {fmt_ratio(ratio(big, small))}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
