"""Several frontends on one PostgreSQL store: admission throughput by frontend count, and failover
time.

Baseline: one frontend on the same store, same machine, same client load.

1. *admissions*: ``--frontends`` counts (default 1 and 2) of ``drydock serve`` on one fresh
   PostgreSQL schema (tests/support/pg.py: a local cluster in a temp dir, fsync on). A Lance catalog
   over one
   dataset, quotas raised to 10^9, the dispatcher paused; ``--admissions`` BTREE CREATE INDEX
   statements (distinct names) from ``--connections`` client processes, connection i on frontend
   i mod N, released together by a barrier. Printed: jobs/s (median of ``--rounds``, the orders of
   the frontend counts alternating per round) and the ratio against one frontend. Every frontend
   admits through the same store lock, so this measures how far the per-process CPU cost of an
   admission (parse, checks, wire) spreads over processes.
2. *failover*: two frontends with ``frontend_lease_second = --lease``; the leader is killed with
   SIGKILL and the follower polled (SHOW FRONTENDS every 50 ms) until it reports itself LEADER. The
   killed one is restarted as the new follower; ``--failovers`` rounds. A follower can take the
   lease only once it expired, so the expected time is between lease - heartbeat and lease +
   heartbeat (heartbeat = lease / 3).

3. *admission → dispatch*: two frontends; ``--latency-jobs`` BTREE jobs admitted one at a time on
the
   leader, then on the follower (each waits until the one before has settled and released its
   slot, so only the wake-up is measured), each timed from the admission's answer until SHOW LANCE
   INDEX JOB
   (polled every 2 ms on the admitting frontend) no longer says PENDING. On the follower the leader
   is woken by PostgreSQL NOTIFY; the ratio follower/leader is the cost of crossing frontends.

Exit code 0 whatever the numbers; without PostgreSQL it says why and exits 0.

    .venv/bin/python bench/bench_frontends.py [--admissions 1000] [--connections 8] [--frontends 1
    2]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import lance
import pyarrow as pa
import pymysql

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_index_jobs import admission_cell
from bench.timing import fmt_ratio, median, ratio
from tests.conftest import ServerProcess
from tests.support.pg import PgCluster, bench_cluster

CATALOG = "bench_fe"


def _frontend(tmp: Path, name: str, dsn: str, lease: int) -> ServerProcess:
    config = tmp / f"{name}.toml"
    tmp.mkdir(parents=True, exist_ok=True)
    config.write_text(f"[frontend]\nfrontend_lease_second = {lease}\n")
    return ServerProcess(
        data_dir=tmp / name,
        extra_args=[
            "--metadata-store",
            dsn,
            "--config",
            str(config),
            "--frontend-name",
            name,
            "--log-level",
            "WARNING",
        ],
    ).start()


def part_admissions(cluster: PgCluster, tmp: Path, args: argparse.Namespace) -> None:
    warehouse = tmp / "wh"
    lance.write_dataset(
        pa.table({"id": pa.array(range(2000), pa.int64())}), warehouse / "db" / "t.lance"
    )
    rates: dict[int, list[float]] = {n: [] for n in args.frontends}
    notes: dict[int, str] = {}
    cell = 0
    for round_no in range(args.rounds):
        for count in args.frontends if round_no % 2 == 0 else args.frontends[::-1]:
            dsn = cluster.dsn(cluster.new_schema())
            frontends = [
                _frontend(tmp / f"r{round_no}n{count}", f"fe{i}", dsn, 10) for i in range(count)
            ]
            try:
                frontends[0].query(
                    f"CREATE CATALOG {CATALOG} PROPERTIES ('type' = 'lance', "
                    f"'warehouse' = '{warehouse}')"
                )
                for key in (
                    "lance_index_job_max_unresolved_per_table",
                    "lance_index_job_max_unresolved_per_catalog",
                    "lance_index_job_max_unresolved_global",
                ):
                    frontends[0].query(f'ADMIN SET FRONTEND CONFIG ("{key}" = "1000000000")')
                frontends[0].query(
                    'ADMIN SET FRONTEND CONFIG ("lance_index_job_dispatcher_paused" = "true")'
                )
                time.sleep(0.5)  # the other frontends reload the config (NOTIFY)
                cell += 1
                ports = [f.port for f in frontends]
                warm = [
                    f"CREATE INDEX w{cell}_{i} ON {CATALOG}.db.t (id) USING BTREE"
                    for i in range(40)
                ]
                admission_cell(ports, warm, len(ports))
                statements = [
                    f"CREATE INDEX a{cell}_{i} ON {CATALOG}.db.t (id) USING BTREE"
                    for i in range(args.admissions)
                ]
                rate, admitted, error = admission_cell(ports, statements, args.connections)
                rates[count].append(rate)
                if admitted != args.admissions or error:
                    notes[count] = f"{admitted}/{args.admissions} admitted; {error}"
            finally:
                for frontend in frontends:
                    frontend.stop()
    base = median(rates[args.frontends[0]])
    print(
        f"admissions over the wire, PostgreSQL store, {args.connections} client connections, "
        f"{args.admissions} per cell, median of {args.rounds} rounds"
    )
    print(
        f"{'frontends':>9} {'jobs/s':>8} {'rounds':>17} {'ratio vs ' + str(args.frontends[0]):>12}"
    )
    for count in args.frontends:
        mid = median(rates[count])
        spread = f"{min(rates[count]):.0f}-{max(rates[count]):.0f}"
        print(
            f"{count:>9} {mid:>8.0f} {spread:>17} {fmt_ratio(ratio(mid, base), 12)}  "
            f"{notes.get(count, '')}"
        )


def part_failover(cluster: PgCluster, tmp: Path, args: argparse.Namespace) -> None:
    dsn = cluster.dsn(cluster.new_schema())
    leader = _frontend(tmp / "failover", "fe_a", dsn, args.lease)
    follower = _frontend(tmp / "failover", "fe_b", dsn, args.lease)
    times: list[float] = []
    try:
        for _ in range(args.failovers):
            leader.kill9()
            killed = time.monotonic()
            name = follower.data_dir.name
            while time.monotonic() - killed < args.lease * 5:
                table = follower.query("SHOW FRONTENDS")
                if any(r[0] == name and r[3] == "LEADER" for r in table):
                    break
                time.sleep(0.05)
            times.append(time.monotonic() - killed)
            leader.start()  # the killed frontend comes back as the follower
            leader, follower = follower, leader
    finally:
        leader.stop()
        follower.stop()
    print(
        f"\nfailover after kill -9 of the leader, frontend_lease_second = {args.lease} "
        f"(heartbeat {args.lease / 3:.2f} s), {len(times)} rounds (s)"
    )
    print("  " + ", ".join(f"{t:.2f}" for t in times) + f"; median {median(times):.2f}")


def _until_dispatched(frontend: ServerProcess, sql: str) -> float:
    with (
        pymysql.connect(
            host="127.0.0.1", port=frontend.port, user="root", password="", autocommit=True
        ) as conn,
        conn.cursor() as cur,
    ):
        cur.execute(sql)
        job_id = int(cur.fetchall()[0][0])
        admitted = time.monotonic()
        while time.monotonic() - admitted < 30:
            cur.execute(f"SHOW LANCE INDEX JOB {job_id}")
            row = dict(zip([d[0] for d in cur.description], cur.fetchall()[0], strict=True))
            if row["State"] != "PENDING":
                took = time.monotonic() - admitted
                break
            time.sleep(0.002)
        else:
            raise RuntimeError(f"job {job_id} was not dispatched within 30 s")
        while (
            row["State"] == "RUNNING"
            or row["PossibleLive"] == "YES"
            or row["RefreshState"] == "RUNNING"
        ):
            time.sleep(
                0.05
            )  # the next job must not wait for this one's slot: measure dispatch alone
            cur.execute(f"SHOW LANCE INDEX JOB {job_id}")
            row = dict(zip([d[0] for d in cur.description], cur.fetchall()[0], strict=True))
        return took


def part_dispatch_latency(cluster: PgCluster, tmp: Path, args: argparse.Namespace) -> None:
    warehouse = tmp / "wh-latency"
    for i in range(args.latency_jobs * 2):
        lance.write_dataset(
            pa.table({"id": pa.array(range(200), pa.int64())}), warehouse / "db" / f"t{i}.lance"
        )
    dsn = cluster.dsn(cluster.new_schema())
    leader = _frontend(tmp / "latency", "fe_a", dsn, 10)
    follower = _frontend(tmp / "latency", "fe_b", dsn, 10)
    try:
        leader.query(
            f"CREATE CATALOG {CATALOG} PROPERTIES ('type' = 'lance', 'warehouse' = '{warehouse}')"
        )
        times: dict[str, list[float]] = {"leader": [], "follower": []}
        for i in range(
            args.latency_jobs * 2
        ):  # alternate: load that comes and goes hits both alike
            where, frontend = ("leader", leader) if i % 2 == 0 else ("follower", follower)
            times[where].append(
                _until_dispatched(frontend, f"CREATE INDEX i ON {CATALOG}.db.t{i} (id) USING BTREE")
            )
    finally:
        leader.stop()
        follower.stop()
    lead, follow = median(times["leader"]), median(times["follower"])
    print(
        f"\nadmission → dispatch (State leaves PENDING), {args.latency_jobs} jobs each, median / "
        f"max (ms)"
    )
    print(f"  admitted on the leader:   {lead * 1000:7.1f} / {max(times['leader']) * 1000:7.1f}")
    print(
        f"  admitted on a follower:   {follow * 1000:7.1f} / {max(times['follower']) * 1000:7.1f}"
    )
    print(f"  ratio follower / leader:  {fmt_ratio(ratio(follow, lead), 8)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--admissions", type=int, default=1000)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--frontends", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--lease", type=int, default=3)
    parser.add_argument("--failovers", type=int, default=3)
    parser.add_argument("--latency-jobs", type=int, default=20)
    parser.add_argument(
        "--skip", choices=["admissions", "failover", "latency"], nargs="*", default=[]
    )
    args = parser.parse_args()
    with bench_cluster("bench-fe-") as started:
        if started is None:
            return
        cluster, tmp = started
        if "admissions" not in args.skip:
            part_admissions(cluster, tmp, args)
        if "failover" not in args.skip:
            part_failover(cluster, tmp, args)
        if "latency" not in args.skip:
            part_dispatch_latency(cluster, tmp, args)


if __name__ == "__main__":
    main()
