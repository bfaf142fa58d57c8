"""Index job dispatch: end-to-end job time vs raw pylance, admission → worker start, drain rate.

Three parts, one server (``python -m drydock.server serve``, fresh temporary data directory):

(a) **end-to-end** — for each ``--rows`` N: one dataset (``id BIGINT``, ``emb FLOAT[--dim]``, the
    same random data for both sides), written once and copied, so each side builds on identical
    bytes. Per round, sides alternate (drydock/raw, raw/drydock, …):
    - *drydock*: ``CREATE [OR REPLACE] INDEX ... USING ANN (IVF_PQ, --partitions, --sub-vectors,
      l2)`` over the wire; timed from the statement's return to SHOW LANCE INDEX JOB showing
      ``COMMITTED`` with refresh ``DONE`` (polled every 20 ms);
    - *raw pylance in a fresh process*: ``python -c`` (same interpreter) that imports lance, opens
      the dataset and calls ``create_index`` with the same parameters (``replace=True``), with the
      environment a drydock worker gets (``RAYON_NUM_THREADS``/``LANCE_IO_THREADS`` = ``--threads``,
      ``MALLOC_ARENA_MAX=2``); timed from spawn to exit.
    Ratio = drydock / raw, medians over ``--rounds``. Goal: ≤ 1.05 at 1M rows.
(b) **admission → worker start** — ``--latency-jobs`` BTREE jobs one after the other (CREATE, then
    DROP, …) on a small table; latency = the worker process's start time (its ``/proc`` start
    ticks, which the supervisor records; 10 ms resolution) − the job's admission time (its
    ``created_at``). Goal: median < 50 ms.
(c) **drain** — ``--drain-jobs`` jobs admitted while the dispatcher is paused (quotas raised,
    distinct index names), each of which ends quickly: the execute deadline (300 s) is shorter
    than the report margin + grace, so the supervisor rejects it before exec (``NEVER_LAUNCHED``).
    Timed from un-pausing to no job PENDING/RUNNING and no slot held. Goal: ≥ 100 jobs/s.

Exit code 0 whatever the numbers (no timed assertions).

    .venv/bin/python bench/bench_dispatch.py                      # 100k and 1M rows, 1 round: a few
    minutes
    .venv/bin/python bench/bench_dispatch.py --rows 100000 1000000 --rounds 3   # the full-size run
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import lance
import numpy as np
import pyarrow as pa
import pymysql

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.bench_wire import HOST, Server
from bench.timing import Stopwatch, fmt_ratio, interleaved, median, percentile, ratio

CATALOG = "bench_dispatch"
BASELINE = "raw pylance in a fresh process"
POLL_SECONDS = 0.02
JOB_TIMEOUT_SECONDS = 1800.0
RAW_SCRIPT = """
import sys, lance
uri, partitions, sub_vectors = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ds = lance.dataset(uri)
ds.create_index("emb", "IVF_PQ", name="idx", metric="l2", num_partitions=partitions,
                num_sub_vectors=sub_vectors, replace=True)
"""


# -- server and data
# ----------------------------------------------------------------------------------
def start_server(tmp: Path) -> Server:
    cmd = [
        sys.executable,
        "-m",
        "drydock.server",
        "serve",
        "--host",
        HOST,
        "--port",
        "0",
        "--data-dir",
        str(tmp / "data"),
        "--log-level",
        "WARNING",
    ]
    return Server("drydock", cmd, "drydock ready on ", tmp / "drydock.log", cwd=ROOT).start()


def connect(port: int) -> pymysql.connections.Connection:
    return pymysql.connect(
        host=HOST,
        port=port,
        user="root",
        password="",
        connect_timeout=10,
        read_timeout=600,
        write_timeout=60,
        autocommit=True,
    )


def sql(conn: pymysql.connections.Connection, text: str) -> list[tuple[object, ...]]:
    with conn.cursor() as cur:
        cur.execute(text)
        return list(cur.fetchall())


def set_config(conn: pymysql.connections.Connection, **values: object) -> None:
    for key, value in values.items():
        sql(conn, f'ADMIN SET FRONTEND CONFIG ("{key}" = "{str(value).lower()}")')


def write_vectors(uri: Path, rows: int, dim: int) -> None:
    schema = pa.schema(
        [pa.field("id", pa.int64()), pa.field("emb", pa.list_(pa.float32(), dim), nullable=False)]
    )
    rng = np.random.default_rng(0)
    batch = 100_000

    def batches() -> Iterator[pa.RecordBatch]:
        for start in range(0, rows, batch):
            n = min(batch, rows - start)
            values = pa.array(rng.random(n * dim, dtype=np.float32))
            yield pa.record_batch(
                [
                    pa.array(range(start, start + n), pa.int64()),
                    pa.FixedSizeListArray.from_arrays(values, dim),
                ],
                schema=schema,
            )

    lance.write_dataset(pa.RecordBatchReader.from_batches(schema, batches()), str(uri))


def job_row(conn: pymysql.connections.Connection, job_id: int) -> dict[str, str]:
    with conn.cursor() as cur:
        cur.execute(f"SHOW LANCE INDEX JOB {job_id}")
        names = [d[0] for d in cur.description]
        return dict(zip(names, cur.fetchone()))


def wait_job(
    conn: pymysql.connections.Connection, job_id: int, done: Callable[[dict[str, str]], bool]
) -> dict[str, str]:
    deadline = time.monotonic() + JOB_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        job = job_row(conn, job_id)
        if done(job):
            return job
        if job["State"] in ("NOT_COMMITTED", "UNKNOWN"):
            raise RuntimeError(f"job {job_id} failed: {job}")
        time.sleep(POLL_SECONDS)
    raise RuntimeError(f"job {job_id} not done within {JOB_TIMEOUT_SECONDS:g}s")


def admit(conn: pymysql.connections.Connection, text: str) -> int:
    [(job_id,)] = sql(conn, text)
    return int(str(job_id))


# -- (a) end-to-end vs raw pylance
# ------------------------------------------------------------------
def drydock_build(
    conn: pymysql.connections.Connection, table: str, args: argparse.Namespace, first: bool
) -> float:
    verb = "CREATE INDEX" if first else "CREATE OR REPLACE INDEX"
    props = (
        f'"index_type" = "IVF_PQ", "metric" = "l2", "num_partitions" = "{args.partitions}", '
        f'"num_sub_vectors" = "{args.sub_vectors}"'
    )
    job_id = admit(conn, f"{verb} idx ON {CATALOG}.db.{table} (emb) USING ANN PROPERTIES ({props})")
    with Stopwatch() as since_return:
        wait_job(conn, job_id, lambda j: j["State"] == "COMMITTED" and j["RefreshState"] == "DONE")
    return since_return.seconds


def raw_build(uri: Path, args: argparse.Namespace) -> float:
    env = {
        **os.environ,
        "RAYON_NUM_THREADS": str(args.threads),
        "LANCE_IO_THREADS": str(args.threads),
        "MALLOC_ARENA_MAX": "2",
    }
    with Stopwatch() as spawn_to_exit:
        subprocess.run(
            [
                sys.executable,
                "-c",
                RAW_SCRIPT,
                str(uri),
                str(args.partitions),
                str(args.sub_vectors),
            ],
            env=env,
            check=True,
            timeout=JOB_TIMEOUT_SECONDS,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    return spawn_to_exit.seconds


def part_end_to_end(
    conn: pymysql.connections.Connection, wh: Path, args: argparse.Namespace
) -> list[str]:
    lines = []
    for rows in args.rows:
        table = f"v{rows}"
        ours, raw = wh / "db" / f"{table}.lance", wh / "raw" / f"{table}.lance"
        with Stopwatch() as writing:
            write_vectors(ours, rows, args.dim)
            shutil.copytree(ours, raw)
        print(f"  wrote {rows:,} rows x {args.dim} twice in {writing.seconds:.1f}s", flush=True)
        sql(conn, f"REFRESH CATALOG {CATALOG}")
        times: dict[str, list[float]] = {"drydock": [], "raw": []}
        for r, order in interleaved(("drydock", "raw"), args.rounds):
            for side in order:
                took = (
                    drydock_build(conn, table, args, r == 0)
                    if side == "drydock"
                    else raw_build(raw, args)
                )
                times[side].append(took)
                print(f"  {rows:>9,} rows round {r + 1} {side:<7} {took:7.2f}s", flush=True)
        d, b = median(times["drydock"]), median(times["raw"])
        lines.append(
            f"{rows:>9,} rows | {d:8.2f}s | {b:8.2f}s | {fmt_ratio(ratio(d, b), 6, digits=3)}"
        )
    return lines


# -- (b) admission → worker start
# ---------------------------------------------------------------------
def boot_time() -> float:
    with open("/proc/uptime") as fh:
        return time.time() - float(fh.read().split()[0])


def part_latency(
    conn: pymysql.connections.Connection, meta: Path, args: argparse.Namespace
) -> list[float]:
    latencies = []
    ticks_per_second = os.sysconf("SC_CLK_TCK")
    boot = boot_time()
    for n in range(args.latency_jobs):
        text = (
            "DROP INDEX l ON {c}.db.small"
            if n % 2
            else "CREATE INDEX l ON {c}.db.small (id) USING BTREE"
        )
        job_id = admit(conn, text.format(c=CATALOG))
        wait_job(conn, job_id, lambda j: j["State"] == "COMMITTED" and j["PossibleLive"] == "NO")
        with sqlite3.connect(f"file:{meta}?mode=ro", uri=True) as db:
            created = db.execute(
                "SELECT created_at FROM lance_index_jobs WHERE id = ?", (job_id,)
            ).fetchone()[0]
            ticks = db.execute(
                "SELECT start_ticks FROM lance_index_workers WHERE job_id = ?", (job_id,)
            ).fetchone()[0]
        latencies.append(boot + ticks / ticks_per_second - created)
    return latencies


# -- (c) drain of quickly-ending jobs
# -------------------------------------------------------------------
def part_drain(
    conn: pymysql.connections.Connection, args: argparse.Namespace
) -> tuple[float, dict[str, int]]:
    set_config(
        conn,
        lance_index_job_dispatcher_paused=True,
        lance_index_job_max_unresolved_per_table=10**9,
        lance_index_job_max_unresolved_per_catalog=10**9,
        lance_index_job_max_unresolved_global=10**9,
        lance_index_job_execute_deadline_second=300,
    )
    ids = [
        admit(conn, f"CREATE INDEX d{n} ON {CATALOG}.db.small (id) USING BTREE")
        for n in range(args.drain_jobs)
    ]
    started = time.monotonic()
    set_config(conn, lance_index_job_dispatcher_paused=False)
    deadline = started + JOB_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        busy = sql(conn, 'SHOW LANCE INDEX JOBS WHERE State = "PENDING"') or sql(
            conn, 'SHOW LANCE INDEX JOBS WHERE State = "RUNNING"'
        )
        if not busy and sql(conn, "SHOW BACKENDS")[0][7] == 0:
            break
        time.sleep(POLL_SECONDS)
    took = time.monotonic() - started
    outcomes: dict[str, int] = {}
    for job_id in ids:
        job = job_row(conn, job_id)
        key = f"{job['State']}/{job['TerminationProof']}"
        outcomes[key] = outcomes.get(key, 0) + 1
    set_config(conn, lance_index_job_execute_deadline_second=3600)
    return took, outcomes


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument(
        "--rounds", type=int, default=1, help="alternating rounds per size (medians)"
    )
    parser.add_argument("--dim", type=int, default=128)
    parser.add_argument("--partitions", type=int, default=256)
    parser.add_argument("--sub-vectors", type=int, default=16)
    parser.add_argument(
        "--threads", type=int, default=2, help="RAYON_NUM_THREADS / LANCE_IO_THREADS, both sides"
    )
    parser.add_argument("--latency-jobs", type=int, default=20)
    parser.add_argument("--drain-jobs", type=int, default=1000)
    parser.add_argument("--skip", choices=["end-to-end", "latency", "drain"], nargs="*", default=[])
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-dispatch-") as tmp_name:
        tmp = Path(tmp_name)
        wh = tmp / "wh"
        write_vectors(wh / "db" / "small.lance", 300, 8)
        server = start_server(tmp)
        try:
            with connect(server.port) as conn:
                sql(
                    conn,
                    f"CREATE CATALOG {CATALOG} PROPERTIES ('type' = 'lance', 'warehouse' = '{wh}')",
                )
                set_config(
                    conn,
                    lance_index_worker_rayon_threads=args.threads,
                    lance_index_worker_io_threads=args.threads,
                )
                [backend] = sql(conn, "SHOW BACKENDS")
                print(
                    f"drydock worker isolation: {backend[3]}; {os.cpu_count()} CPUs; "
                    f"threads per build: {args.threads}",
                    flush=True,
                )
                if "end-to-end" not in args.skip:
                    print(
                        f"(a) end-to-end job time vs {BASELINE} (IVF_PQ "
                        f"{args.partitions}/{args.sub_vectors}, "
                        f"dim {args.dim}, {args.rounds} round(s))",
                        flush=True,
                    )
                    lines = part_end_to_end(conn, wh, args)
                    print(f"\n     rows     | drydock   | {BASELINE} | ratio (goal <= 1.05 at 1M)")
                    for line in lines:
                        print(f"  {line}")
                if "latency" not in args.skip:
                    latencies = part_latency(conn, tmp / "data" / "meta.sqlite", args)
                    print(
                        f"\n(b) admission -> worker process start, {len(latencies)} jobs: median "
                        f"{median(latencies) * 1000:.0f} ms, p90 "
                        f"{percentile(latencies, 0.9) * 1000:.0f} ms, "
                        f"max {max(latencies) * 1000:.0f} ms (goal: median < 50 ms; 10 ms tick "
                        f"resolution)"
                    )
                if "drain" not in args.skip:
                    took, outcomes = part_drain(conn, args)
                    print(
                        f"\n(c) drain of {args.drain_jobs} PENDING jobs rejected before exec: "
                        f"{took:.2f}s = "
                        f"{args.drain_jobs / took:.0f} jobs/s (goal >= 100 jobs/s); outcomes "
                        f"{outcomes}"
                    )
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
