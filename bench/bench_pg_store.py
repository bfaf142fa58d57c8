"""The PostgreSQL metadata store against the SQLite one, and how fast a standby frontend takes over.

Baseline: the embedded SQLite store (WAL, synchronous=FULL) on the same machine.

1. *durable transitions*: ``JobManager.create`` (admission's insert: fence + quota + commit) and
   ``mark_running`` (a CAS on ``revision``), ``--jobs`` of each from one thread, over a fresh store of
   each kind; per-operation median and p95 in ms, and the PostgreSQL/SQLite ratio. PostgreSQL here
   is a local cluster (tests/pg.py: initdb in a temp dir, 127.0.0.1, fsync on, synchronous_commit on).
2. *takeover*: a frontend on the PostgreSQL store is killed with SIGKILL; measured are the time until
   its frontend lock is free (polled with ``pg_try_advisory_lock``) and the time until a standby
   ``drydock serve`` started at that instant prints ``drydock ready`` (Python start-up and engine
   initialisation included: what an operator's restart loop on another host would see).

Exit code 0 whatever the numbers; without PostgreSQL it says why and exits 0.

    .venv/bin/python bench/bench_pg_store.py [--jobs 300] [--takeovers 3]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.timing import Stopwatch, fmt_ratio, median, p95, ratio
from engine.jobs.manager import JobManager
from engine.metastore import MetadataStore, MetaStore
from tests.conftest import ServerProcess
from tests.jobfactory import new_job
from tests.pg import PgCluster, Unavailable, start_cluster


def _ms(samples: list[float]) -> tuple[float, float]:
    return median(samples) * 1000, p95(samples) * 1000


def transitions(store: MetadataStore, n: int) -> dict[str, tuple[float, float]]:
    jobs = JobManager(store)
    creates, runs = [], []
    for i in range(n):
        with Stopwatch() as create:
            job = jobs.create(new_job(f"i{i}"), 10**9, 10**9, 10**9)
        creates.append(create.seconds)
        with Stopwatch() as mark:
            jobs.mark_running(job.id, invocation_id=f"inv-{i}", index_uuid="",
                              deadline_ms=int(time.time() * 1000) + 60_000, process_epoch="bench", backend_id="local")
        runs.append(mark.seconds)
    return {"create (admission insert)": _ms(creates), "mark_running (CAS)": _ms(runs)}


def takeover(cluster: PgCluster, tmp: Path, rounds: int) -> list[tuple[float, float]]:
    import psycopg

    from engine.metastore_pg import FRONTEND_LOCK

    schema = cluster.new_schema()
    dsn = cluster.dsn(schema)
    results = []
    holder = ServerProcess(data_dir=tmp / "fe0", extra_args=["--metadata-store", dsn]).start()
    for r in range(rounds):
        assert holder.proc is not None
        holder.proc.kill()
        killed = time.monotonic()
        standby = ServerProcess(data_dir=tmp / f"fe{r + 1}", extra_args=["--metadata-store", dsn])
        with psycopg.connect(cluster.dsn(schema), autocommit=True) as probe:
            while True:
                ok = probe.execute("SELECT pg_try_advisory_lock(hashtext(current_schema()), %s)",
                                   (FRONTEND_LOCK,)).fetchone()[0]
                if ok:
                    free = time.monotonic() - killed
                    probe.execute("SELECT pg_advisory_unlock(hashtext(current_schema()), %s)", (FRONTEND_LOCK,))
                    break
                if time.monotonic() - killed > 60:
                    raise RuntimeError("the frontend lock was not released within 60 s")
                time.sleep(0.01)
        standby.start()
        results.append((free, time.monotonic() - killed))
        holder.proc.wait(10)
        holder = standby
    holder.stop()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=300)
    parser.add_argument("--takeovers", type=int, default=3)
    args = parser.parse_args()
    try:
        cluster = start_cluster()
    except Unavailable as why:
        print(f"skipped: {why}")
        return
    tmp = Path(tempfile.mkdtemp(prefix="bench-pg-"))
    try:
        from engine.metastore_pg import PostgresStore

        sqlite = transitions(MetaStore(tmp / "meta.sqlite"), args.jobs)
        pg = transitions(PostgresStore(cluster.dsn(cluster.new_schema())), args.jobs)
        print(f"durable transitions, {args.jobs} each, one thread (ms: median / p95)")
        print(f"{'operation':28} {'SQLite':>16} {'PostgreSQL':>16} {'ratio (median)':>15}")
        for name in sqlite:
            (sm, sp), (pm, pp) = sqlite[name], pg[name]
            print(f"{name:28} {sm:7.2f} / {sp:6.2f} {pm:7.2f} / {pp:6.2f} {fmt_ratio(ratio(pm, sm), 15)}")
        rounds = takeover(cluster, tmp, args.takeovers)
        print(f"\ntakeover after kill -9 of the frontend ({len(rounds)} rounds, s)")
        for i, (free, ready) in enumerate(rounds, 1):
            print(f"  round {i}: store free after {free:.3f}, standby ready after {ready:.2f}")
    finally:
        cluster.stop()
        shutil.rmtree(cluster.root, ignore_errors=True)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
