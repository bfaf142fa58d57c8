"""MySQL's exact AVG (engine/sql/exact_avg.py) against the same query's SUM, on one drydock.

An AVG costs one DESCRIBE probe of its arguments' types more than a SUM, and an exact AVG (of a
DECIMAL or an integer) integer arithmetic on the SUM and the COUNT. Per column type (DECIMAL,
DOUBLE) and table size, the median latency of ``SELECT AVG(c) FROM t`` and of the baseline
``SELECT SUM(c) FROM t`` (same rows, same wire, no probe) are printed with the ratio
AVG / SUM. Exit code 0 whatever the numbers.

    .venv/bin/python bench/bench_exact_avg.py [--reps 200] [--rows 1000 1000000]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import pymysql

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.bench_wire import HOST, ROOT, drydock_server  # noqa: E402
from bench.timing import fmt_ratio, median, median_ratio, timed  # noqa: E402


def _latencies(cur: pymysql.cursors.Cursor, sql: str, reps: int) -> list[float]:
    for _ in range(5):  # warm-up: plans and verdicts cached
        cur.execute(sql)
        cur.fetchall()
    samples = []
    for _ in range(reps):
        seconds, _rows = timed(lambda: (cur.execute(sql), cur.fetchall()))
        samples.append(seconds)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--rows", type=int, nargs="+", default=[1000, 1_000_000])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="drydock-bench-avg-") as tmp:
        server = drydock_server(Path(tmp), ROOT).start()
        try:
            conn = pymysql.connect(host=HOST, port=server.port, user="root", autocommit=True)
            cur = conn.cursor()
            cur.execute("CREATE DATABASE b")
            print(f"{'rows':>9} {'column':<14} {'AVG ms':>8} {'SUM ms':>8} {'AVG/SUM':>8}")
            for rows in args.rows:
                cur.execute(f"DROP TABLE IF EXISTS b.t{rows}")
                cur.execute(f"CREATE TABLE b.t{rows} (d DECIMAL(12,3), f DOUBLE)")
                cur.execute(
                    f"INSERT INTO b.t{rows} SELECT CAST(n * 1.5 AS DECIMAL(12,3)), n * 1.5 "
                    f"FROM (SELECT * FROM range({rows})) AS s(n)"
                )
                for column, label in (("d", "DECIMAL(12,3)"), ("f", "DOUBLE")):
                    avg = _latencies(cur, f"SELECT AVG({column}) FROM b.t{rows}", args.reps)
                    base = _latencies(cur, f"SELECT SUM({column}) FROM b.t{rows}", args.reps)
                    print(
                        f"{rows:>9} {label:<14} {median(avg) * 1000:>8.2f} "
                        f"{median(base) * 1000:>8.2f} {fmt_ratio(median_ratio(avg, base), 8)}"
                    )
            conn.close()
        finally:
            server.stop()


if __name__ == "__main__":
    main()
