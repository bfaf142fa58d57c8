"""Lance index jobs at scale: admission throughput, SHOW latency over 100k records, start-up replay.

Goals (the issue's; the "baseline" each number is read against):

- admission throughput over the wire >= 500 jobs/s (dispatcher paused, quotas raised, each job a
  distinct index name on one table, so every admission does the full path: static validation, gate,
  privilege, authoritative read of the dataset's latest version, fence + quota, durable insert);
- group commit (issue 13): 8 connections >= 1,000 admissions/s and never fewer than 1 connection
  (the printed 8/1 ratio >= 1);
- ``SHOW LANCE INDEX JOBS`` < 200 ms with 100k job records in the store, for root and for a user
  who may see 1% of them;
- start-up replay of 100k records < 2 s.

Parts:

1. *admission*: a fresh server, one local Lance dataset (``--rows`` rows, 16-d vectors), a catalog,
   ``ADMIN SET`` quotas to 10^9 and the dispatcher paused; ``--admissions`` CREATE INDEX statements
   per cell, spread over C client processes (``--connections``), each on its own connection;
   BTREE and IVF_PQ admissions are timed separately. Throughput = statements / wall time of the
   window (all clients released together by a barrier). Each cell runs ``--rounds`` times (the
   connection counts alternate their order per round) and the medians are printed. Each kind also
   prints the ratio of its largest to its smallest connection count (8/1 by default): group commit
   must keep it >= 1.
1b. *store admissions*: ``JobManager.create`` in this process over a fresh store, from 1 and C
   threads — the durable insert alone (fence + quota + group-committed fsync), without wire, parse
   or dataset read; batches and mean batch size show how many admissions shared one fsync.
2. *100k records*: a second data directory with a catalog over ``--tables`` tiny datasets
   (10 per database) and a user with SELECT on one table (1%). ``--records`` job records are
   written straight into the store (SQLite, one transaction): 99% resolved (COMMITTED, refresh
   DONE, worker reaped), 1% unresolved (PENDING, distinct names), spread evenly over the tables.
   - replay: ``JobManager(store)`` in this process (median of ``--repeats``), plus the same for a
     copy where all 100k records are unresolved (the worst case: every record loads), plus the
     server's start-to-ready time with and without the records;
   - SHOW: pymysql round trips (rows fetched), median of ``--repeats`` after one warm-up, for
     root (all 100k rows; scoped to one table; one state) and for the 1% user.

Exit code 0 whatever the numbers (no timed assertions).

    .venv/bin/python bench/bench_index_jobs.py [--admissions 1000] [--connections 1 8] [--records
    100000]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import lance
import numpy as np
import pyarrow as pa
import pymysql

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.bench_wire import HOST, Server
from bench.timing import Stopwatch, fmt_ratio, goal_verdict, interleaved, median, ratio, timed

CATALOG = "bench_jobs"
VIEWER = "viewer"
DIM = 16
JOIN_SLACK_SECONDS = 120.0
GROUP_COMMIT_GOAL = 1000  # admissions/s at GROUP_COMMIT_CONNECTIONS connections (issue 13 item 10)
GROUP_COMMIT_CONNECTIONS = 8


# -- servers and data
# ---------------------------------------------------------------------------------
def server(data_dir: Path, log: Path) -> Server:
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
        str(data_dir),
        "--log-level",
        "WARNING",
    ]
    return Server("drydock", cmd, "drydock ready on ", log, cwd=ROOT)


def connect(port: int, user: str = "root", password: str = "") -> pymysql.connections.Connection:
    return pymysql.connect(
        host=HOST,
        port=port,
        user=user,
        password=password,
        connect_timeout=10,
        read_timeout=300,
        write_timeout=60,
        autocommit=True,
    )


def server_cpu(proc: Server) -> float:
    """CPU seconds (user + system, all threads) the server process has used so far."""
    assert proc.proc is not None
    with open(f"/proc/{proc.proc.pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_sql(port: int, *statements: str) -> None:
    with connect(port) as conn, conn.cursor() as cur:
        for sql in statements:
            cur.execute(sql)


def vectors(rows: int, seed: int = 0) -> pa.Table:
    values = np.random.default_rng(seed).random(rows * DIM).astype("float32")
    schema = pa.schema(
        [pa.field("id", pa.int64()), pa.field("emb", pa.list_(pa.float32(), DIM), nullable=False)]
    )
    return pa.table(
        {
            "id": pa.array(range(rows), pa.int64()),
            "emb": pa.FixedSizeListArray.from_arrays(pa.array(values), DIM),
        }
    ).cast(schema)


# -- part 1: admission throughput
# ---------------------------------------------------------------------
def _admit_worker(port: int, statements: list[str], barrier: Any, results: Any, index: int) -> None:
    ok, error = 0, ""
    try:
        conn = connect(port)
    except Exception as exc:  # noqa: BLE001 - reported; the barrier must still be reached
        conn, error = None, f"connect: {exc!r}"
    try:
        barrier.wait(timeout=JOIN_SLACK_SECONDS)
        if conn is not None:
            with conn.cursor() as cur:
                for sql in statements:
                    cur.execute(sql)
                    if cur.fetchall():
                        ok += 1
    except Exception as exc:  # noqa: BLE001
        error = error or repr(exc)
    finally:
        results[index] = (ok, error, time.monotonic())
        if conn is not None:
            conn.close()


def admission_cell(
    port: int | list[int], statements: list[str], connections: int
) -> tuple[float, int, str]:
    """→ (jobs/s, jobs admitted, first error); with several ports (frontends), connection i talks
    to ports[i % len(ports)]."""
    ports = port if isinstance(port, list) else [port]
    ctx = mp.get_context("fork")
    barrier = ctx.Barrier(connections + 1)
    results = ctx.Manager().dict()
    chunks = [statements[i::connections] for i in range(connections)]
    procs = [
        ctx.Process(target=_admit_worker, args=(ports[i % len(ports)], chunk, barrier, results, i))
        for i, chunk in enumerate(chunks)
    ]
    for proc in procs:
        proc.start()
    barrier.wait(timeout=JOIN_SLACK_SECONDS)
    started = time.monotonic()
    for proc in procs:
        proc.join(timeout=JOIN_SLACK_SECONDS * 5)
        if proc.is_alive():
            proc.kill()
    values = [results.get(i, (0, "no result", time.monotonic())) for i in range(connections)]
    ended = max(v[2] for v in values)
    admitted = sum(v[0] for v in values)
    errors = [v[1] for v in values if v[1]]
    return admitted / max(ended - started, 1e-9), admitted, errors[0] if errors else ""


def part_admission(args: argparse.Namespace, tmp: Path) -> list[tuple[str, str, float, float, str]]:
    warehouse = tmp / "wh-admission"
    lance.write_dataset(vectors(args.rows), warehouse / "db" / "t.lance")
    proc = server(tmp / "data-admission", tmp / "admission.log").start()
    out = []
    try:
        run_sql(
            proc.port,
            f"CREATE CATALOG {CATALOG} PROPERTIES ('type' = 'lance', 'warehouse' = '{warehouse}')",
            *[
                f'ADMIN SET FRONTEND CONFIG ("{k}" = "1000000000")'
                for k in (
                    "lance_index_job_max_unresolved_per_table",
                    "lance_index_job_max_unresolved_per_catalog",
                    "lance_index_job_max_unresolved_global",
                )
            ],
            'ADMIN SET FRONTEND CONFIG ("lance_index_job_dispatcher_paused" = "true")',
        )
        kinds = {
            "BTREE": "CREATE INDEX {name} ON {c}.db.t (id) USING BTREE",
            "IVF_PQ": (
                'CREATE INDEX {name} ON {c}.db.t (emb) USING ANN PROPERTIES ("index_type" = '
                '"IVF_PQ", '
                '"num_partitions" = "4", "num_sub_vectors" = "4")'
            ),
        }
        cell = 0
        for kind, template in kinds.items():
            samples: dict[int, list[tuple[float, float, int, str]]] = {
                c: [] for c in args.connections
            }
            # alternate the order per round: load that comes and goes hits both counts alike
            for _, order in interleaved(args.connections, args.rounds):
                for connections in order:
                    cell += 1
                    warm = [template.format(name=f"w{cell}_{i}", c=CATALOG) for i in range(20)]
                    admission_cell(proc.port, warm, 1)
                    statements = [
                        template.format(name=f"a{cell}_{i}", c=CATALOG)
                        for i in range(args.admissions)
                    ]
                    cpu = server_cpu(proc)
                    rate, admitted, error = admission_cell(proc.port, statements, connections)
                    cpu_ms = (server_cpu(proc) - cpu) / max(admitted, 1) * 1000
                    samples[connections].append((rate, cpu_ms, admitted, error))
            for connections in args.connections:
                rates = [r for r, _, _, _ in samples[connections]]
                admitted = sum(a for _, _, a, _ in samples[connections])
                errors = [e for _, _, _, e in samples[connections] if e]
                spread = f"; rounds {min(rates):.0f}-{max(rates):.0f}/s" if len(rates) > 1 else ""
                out.append(
                    (
                        kind,
                        str(connections),
                        median(rates),
                        median([c for _, c, _, _ in samples[connections]]),
                        f"{admitted}/{args.admissions * args.rounds} admitted{spread}"
                        + (f"; error: {errors[0][:80]}" if errors else ""),
                    )
                )
    finally:
        proc.stop()
    return out


def store_cell(path: Path, admissions: int, threads: int) -> tuple[float, int, int]:
    """→ (admissions/s, batches written, admitted) for ``threads`` threads calling
    JobManager.create."""
    import threading

    from drydock.engine.jobs.control.manager import JobManager
    from drydock.engine.store.metastore import MetaStore
    from tests.support.jobfactory import new_job

    store = MetaStore(path)
    jobs = JobManager(store)
    jobs.create(new_job("warm"), 10**9, 10**9, 10**9)
    before = jobs._admissions.batches

    def admit(worker: int) -> None:
        for i in range(worker, admissions, threads):
            jobs.create(new_job(f"s{i}"), 10**9, 10**9, 10**9)

    workers = [threading.Thread(target=admit, args=(w,)) for w in range(threads)]
    with Stopwatch() as elapsed:
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
    batches = jobs._admissions.batches - before
    store.close()
    return admissions / elapsed.seconds, batches, admissions


def part_store(args: argparse.Namespace, tmp: Path) -> list[tuple[int, float, int, int]]:
    out = []
    for threads in args.connections:
        rate, batches, admitted = store_cell(
            tmp / f"store-{threads}.sqlite", args.admissions, threads
        )
        out.append((threads, rate, batches, admitted))
    return out


def print_ratio(label: str, rates: dict[int, float]) -> None:
    low, high = min(rates), max(rates)
    if low != high:
        gain = ratio(rates[high], rates[low])
        print(
            f"{label:<8} {high}/{low} connections: {rates[high]:.0f}/s vs {rates[low]:.0f}/s = "
            f"{fmt_ratio(gain)}" + ("" if gain >= 1 else "  (fewer with more connections)")
        )


# -- part 2: 100k records
# ------------------------------------------------------------------------------
def _template_columns() -> dict[str, Any]:
    from drydock.engine.jobs.control import states as st
    from drydock.engine.jobs.control.records import to_columns
    from tests.support.jobfactory import new_job

    job = new_job().replace(
        state=st.MutationState.COMMITTED,
        refresh_state=st.RefreshState.DONE,
        result_code=st.ResultCode.NATIVE_OK,
        message="index built",
        external_metadata_advanced=True,
        possible_live_owned=True,
        termination_proof=st.TerminationProof.CHILD_REAPED,
        backend_id="local",
        process_epoch="e0",
        revision=5,
    )
    columns = to_columns(job)
    del columns["id"]
    return columns


def write_records(
    meta: Path,
    count: int,
    tables: list[tuple[str, str, str]],
    catalog_id: int,
    unresolved_every: int,
) -> None:
    base = _template_columns()
    names = list(base)
    now = time.time()
    db = sqlite3.connect(meta)
    rows = []
    for n in range(count):
        db_name, table, locator = tables[n % len(tables)]
        values = dict(
            base,
            catalog_id=catalog_id,
            catalog_name=CATALOG,
            db=db_name,
            tbl=table,
            locator=locator,
            index_name=f"i{n}",
            index_key=f"i{n}",
            invocation_id=f"inv-{n}",
            created_at=now - count + n,
            updated_at=now - count + n + 1,
        )
        if unresolved_every and n % unresolved_every == 0:
            values.update(
                state="PENDING",
                refresh_state="NOT_REQUIRED",
                result_code=None,
                message="",
                possible_live_owned=0,
                termination_proof="NONE",
                revision=0,
                invocation_id="",
            )
        rows.append(tuple(values[k] for k in names))
    with db:
        db.executemany(
            f"INSERT INTO lance_index_jobs ({', '.join(names)}) VALUES "
            f"({', '.join('?' * len(names))})",
            rows,
        )
    db.close()


def timed_replay(meta: Path, repeats: int) -> tuple[float, float, int]:
    """→ (median wall seconds, median CPU seconds, records replayed)."""
    from drydock.engine.jobs.control.manager import JobManager
    from drydock.engine.store.metastore import MetaStore

    times, cpus, live = [], [], 0
    for _ in range(repeats):
        store = MetaStore(meta)
        cpu = time.process_time()
        with Stopwatch() as replay:
            live = len(JobManager(store).live_jobs())
        times.append(replay.seconds)
        cpus.append(time.process_time() - cpu)
        store.close()
    return median(times), median(cpus), live


def time_start(data_dir: Path, log: Path, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        seconds, proc = timed(server(data_dir, log).start)
        times.append(seconds)
        proc.stop()
    return median(times)


def timed_show(
    proc: Server, sql: str, repeats: int, user: str = "root", password: str = ""
) -> tuple[float, float, int]:
    """→ (median wall seconds, median server CPU seconds, rows)."""
    with connect(proc.port, user, password) as conn, conn.cursor() as cur:
        cur.execute(sql)
        cur.fetchall()  # warm-up
        times, cpus, count = [], [], 0
        for _ in range(repeats):
            cpu = server_cpu(proc)
            with Stopwatch() as round_trip:
                cur.execute(sql)
                count = len(cur.fetchall())
            times.append(round_trip.seconds)
            cpus.append(server_cpu(proc) - cpu)
    return median(times), median(cpus), count


def part_records(
    args: argparse.Namespace, tmp: Path
) -> list[tuple[str, float, float | None, str, str]]:
    warehouse = tmp / "wh-records"
    tiny = vectors(4)
    tables = []
    for t in range(args.tables):
        db_name, table = f"db{t // 10}", f"t{t % 10}"
        lance.write_dataset(tiny, warehouse / db_name / f"{table}.lance")
        tables.append((db_name, table, str(warehouse / db_name / f"{table}.lance")))
    data = tmp / "data-records"
    proc = server(data, tmp / "records.log").start()
    try:
        run_sql(
            proc.port,
            f"CREATE CATALOG {CATALOG} PROPERTIES ('type' = 'lance', 'warehouse' = '{warehouse}')",
            f"CREATE USER '{VIEWER}'@'%' IDENTIFIED BY 'pw'",
            f"GRANT SELECT_PRIV ON {CATALOG}.db0.t0 TO '{VIEWER}'@'%'",
            'ADMIN SET FRONTEND CONFIG ("lance_index_job_dispatcher_paused" = "true")',
        )
    finally:
        proc.stop()
    empty_start = time_start(data, tmp / "records.log", args.repeats)
    catalog_id = (
        sqlite3.connect(data / "meta.sqlite")
        .execute("SELECT id FROM catalogs WHERE name = ?", (CATALOG,))
        .fetchone()[0]
    )
    worst = tmp / "worst.sqlite"
    shutil.copy(data / "meta.sqlite", worst)
    write_records(data / "meta.sqlite", args.records, tables, catalog_id, unresolved_every=100)
    write_records(worst, args.records, tables, catalog_id, unresolved_every=1)
    out = []
    replay, cpu, live = timed_replay(data / "meta.sqlite", args.repeats)
    out.append(
        (
            "replay (in-process JobManager)",
            replay,
            cpu,
            "< 2 s",
            f"{args.records} records, {live} unresolved",
        )
    )
    replay, cpu, live = timed_replay(worst, args.repeats)
    out.append(("replay, all unresolved (worst case)", replay, cpu, "< 2 s", f"{live} unresolved"))
    start = time_start(data, tmp / "records.log", args.repeats)
    out.append(("server start to ready", start, None, "-", f"{empty_start:.2f} s with no records"))
    proc = server(data, tmp / "records.log").start()
    try:
        scoped = f'FROM {CATALOG}.db0 WHERE TableName = "t0"'
        cases = [
            ("SHOW (root, all rows)", "SHOW LANCE INDEX JOBS", "root", ""),
            ("SHOW (root, one table)", f"SHOW LANCE INDEX JOBS {scoped}", "root", ""),
            (
                "SHOW (root, State = PENDING)",
                "SHOW LANCE INDEX JOBS WHERE State = 'PENDING'",
                "root",
                "",
            ),
            ("SHOW (1% user, all visible)", "SHOW LANCE INDEX JOBS", VIEWER, "pw"),
            ("SHOW (1% user, one table)", f"SHOW LANCE INDEX JOBS {scoped}", VIEWER, "pw"),
            ("SHOW JOB <id> (root)", "SHOW LANCE INDEX JOB 1", "root", ""),
        ]
        for label, sql, user, password in cases:
            latency, cpu, count = timed_show(proc, sql, args.repeats, user, password)
            out.append((label, latency, cpu, "< 0.2 s", f"{count} rows"))
    finally:
        proc.stop()
    return out


# -- report
# -----------------------------------------------------------------------------------------------
def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--admissions", type=int, default=1000, help="timed admissions per cell")
    parser.add_argument("--connections", type=int, nargs="+", default=[1, 8])
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="admission cells per connection count (alternating order); medians are printed",
    )
    parser.add_argument("--rows", type=int, default=2000, help="rows of the admission dataset")
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument(
        "--tables", type=int, default=100, help="tables the records are spread over"
    )
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--skip", choices=["admission", "store", "records"], nargs="*", default=[])
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-jobs-") as name:
        tmp = Path(name)
        if "admission" not in args.skip:
            print(
                f"\nadmission throughput over the wire (goal >= 500 jobs/s; {args.admissions} per "
                f"cell, "
                f"median of {args.rounds} rounds)"
            )
            print(
                f"{'kind':<8} {'conns':>5} {'jobs/s':>9} {'vs goal':>8} {'server CPU/job':>15} "
                f"{'1-core bound':>13}  note"
            )
            rates: dict[str, dict[int, float]] = {}
            for kind, conns, rate, cpu_ms, note in part_admission(args, tmp):
                bound = 1000 / cpu_ms if cpu_ms > 0 else float("inf")
                print(
                    f"{kind:<8} {conns:>5} {rate:>9.0f} {fmt_ratio(ratio(rate, 500), 8)} "
                    f"{cpu_ms:>12.2f} ms {bound:>9.0f}/s  {note}"
                )
                rates.setdefault(kind, {})[int(conns)] = rate
            for kind, by_connections in rates.items():
                print_ratio(kind, by_connections)
            most = max(args.connections)
            if most >= GROUP_COMMIT_CONNECTIONS:
                worst = min(by[most] for by in rates.values()) / GROUP_COMMIT_GOAL
                print(
                    goal_verdict(
                        f">= {GROUP_COMMIT_GOAL:,} admissions/s at {most} connections (issue 13)",
                        worst,
                        1.0,
                        higher_is_better=True,
                    )
                )
        if "store" not in args.skip:
            print(
                f"\nstore admissions in process (JobManager.create, group commit; "
                f"{args.admissions} per cell)"
            )
            print(f"{'threads':>7} {'jobs/s':>9} {'batches':>8} {'per fsync':>9}")
            store_rates = {}
            for threads, rate, batches, admitted in part_store(args, tmp):
                print(f"{threads:>7} {rate:>9.0f} {batches:>8} {admitted / max(batches, 1):>9.1f}")
                store_rates[threads] = rate
            print_ratio("store", store_rates)
        if "records" not in args.skip:
            print(f"\n{args.records} job records (1% of them visible to '{VIEWER}')")
            print(f"{'measurement':<38} {'median':>9} {'CPU':>9} {'goal':>7}  note")
            for label, seconds, cpu, goal, note in part_records(args, tmp):
                cpu_text = "-" if cpu is None else f"{cpu * 1000:.0f}ms"
                print(f"{label:<38} {seconds * 1000:>7.0f}ms {cpu_text:>9} {goal:>7}  {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
