"""The PostgreSQL metadata store against the SQLite one: durable transition latency.

Baseline: the embedded SQLite store (WAL, synchronous=FULL) on the same machine.

1. *durable transitions*: ``JobManager.create`` (admission's insert: fence + quota + commit) and
   ``mark_running`` (a CAS on ``revision``), ``--jobs`` of each from one thread, over a fresh store
   of
   each kind; per-operation median and p95 in ms, and the PostgreSQL/SQLite ratio. PostgreSQL here
   is a local cluster (tests/support/pg.py: initdb in a temp dir, 127.0.0.1, fsync on,
   synchronous_commit on).

Failover between frontends sharing the store is measured by bench/bench_frontends.py.

Exit code 0 whatever the numbers; without PostgreSQL it says why and exits 0.

    .venv/bin/python bench/bench_pg_store.py [--jobs 300]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.timing import Stopwatch, fmt_ratio, median, p95, ratio
from drydock.engine.jobs.control.manager import JobManager
from drydock.engine.store.metastore import MetadataStore, MetaStore
from tests.support.jobfactory import new_job
from tests.support.pg import bench_cluster


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
            jobs.mark_running(
                job.id,
                invocation_id=f"inv-{i}",
                index_uuid="",
                deadline_ms=int(time.time() * 1000) + 60_000,
                process_epoch="bench",
                backend_id="local",
            )
        runs.append(mark.seconds)
    return {"create (admission insert)": _ms(creates), "mark_running (CAS)": _ms(runs)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=300)
    args = parser.parse_args()
    with bench_cluster("bench-pg-") as started:
        if started is None:
            return
        cluster, tmp = started
        from drydock.engine.store.metastore_pg import PostgresStore

        sqlite = transitions(MetaStore(tmp / "meta.sqlite"), args.jobs)
        pg = transitions(PostgresStore(cluster.dsn(cluster.new_schema())), args.jobs)
        print(f"durable transitions, {args.jobs} each, one thread (ms: median / p95)")
        print(f"{'operation':28} {'SQLite':>16} {'PostgreSQL':>16} {'ratio (median)':>15}")
        for name in sqlite:
            (sm, sp), (pm, pp) = sqlite[name], pg[name]
            print(
                f"{name:28} {sm:7.2f} / {sp:6.2f} {pm:7.2f} / {pp:6.2f} "
                f"{fmt_ratio(ratio(pm, sm), 15)}"
            )


if __name__ == "__main__":
    main()
