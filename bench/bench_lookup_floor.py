"""The floor of a lookup over the wire: drydock vs a bare mysql-mimic server over DuckDB vs
in-process DuckDB, the same PK point lookup and 10-row range scan, one connection.

Issue 26 asks for a lookup over the wire at >= 0.67x the qps of in-process DuckDB running the same
text. This script measures how much of that any server built on mysql-mimic and DuckDB's Python
API can reach, with nothing of drydock in it (bench/bare_mimic_server.py ``--session duckdb``: the
text runs as it is on a worker thread; ``duckdb-inline``: on the event loop itself, which no real
server can afford), next to drydock and the in-process baseline:

- in-process DuckDB: ``con.execute(text).fetchall()`` in this process, one thread, no wire;
- bare mysql-mimic + DuckDB (inline, thread): one pymysql client process, rows fetched;
- drydock: the same client, the same table loaded through drydock.

Rounds are interleaved (A B C D / D C B A); the median per side and each ratio to in-process
DuckDB are printed. Exit code 0 whatever the numbers.

    .venv/bin/python bench/bench_lookup_floor.py [--seconds 2] [--rounds 3]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_vs_mariadb import (  # noqa: E402
    PK_ROWS,
    Query,
    QUERIES,
    _connect,
    inprocess_pk_table,
    inprocess_qps,
    measure,
)
from bench.bench_wire import HOST, ROOT, Server, drydock_server  # noqa: E402
from bench.timing import fmt_ratio, fmt_samples, interleaved, median, median_ratio  # noqa: E402

IN_PROCESS = "in-process DuckDB"


def bare_duckdb_server(tmp: Path, session: str) -> Server:
    cmd = [
        sys.executable,
        str(ROOT / "bench" / "bare_mimic_server.py"),
        "--host",
        HOST,
        "--port",
        "0",
        "--session",
        session,
        "--pk-rows",
        str(PK_ROWS),
    ]
    return Server(f"bare-{session}", cmd, "bare-mimic ready on ", tmp / f"bare-{session}.log")


def load_drydock(port: int) -> None:
    conn = _connect(port, "")
    with conn.cursor() as cur:
        cur.execute("CREATE DATABASE bench")
        cur.execute("CREATE TABLE bench.pk (id INT PRIMARY KEY, v VARCHAR(32), n INT)")
        cur.execute(
            f"INSERT INTO bench.pk SELECT range, CONCAT('v', range), range % 100 FROM "
            f"range({PK_ROWS})"
        )
    conn.close()


def run(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="drydock-floor-") as tmp_name:
        tmp = Path(tmp_name)
        drydock = drydock_server(tmp, ROOT)
        bares = [bare_duckdb_server(tmp, s) for s in ("duckdb-inline", "duckdb")]
        servers = [drydock, *bares]
        con = inprocess_pk_table()
        try:
            for s in servers:
                s.start()
            load_drydock(drydock.port)
            for query in QUERIES[1:3]:
                samples: dict[str, list[float]] = {IN_PROCESS: []}
                sides: list[tuple[str, Callable[[float], float]]] = [
                    (IN_PROCESS, lambda seconds, q=query: inprocess_qps(con, q, seconds))
                ]
                for server in servers:
                    db = "bench" if server is drydock else ""
                    label = server.label

                    def over_wire(
                        seconds: float, port: int = server.port, d: str = db, q: Query = query
                    ) -> float:
                        return measure(port, d, q, 1, seconds)

                    sides.append((label, over_wire))
                    samples[label] = []
                for _, side in sides:
                    side(args.warmup)
                for _, order in interleaved(sides, args.rounds):
                    for label, side in order:
                        samples[label].append(side(args.seconds))
                print(f"\n{query.name} (one connection), qps, median of {args.rounds}:")
                base = samples[IN_PROCESS]
                for label, values in samples.items():
                    ratio = fmt_ratio(median_ratio(values, base))
                    print(
                        f"  {label:<22} {median(values):>8,.0f}  {ratio} of {IN_PROCESS}"
                        f"   ({fmt_samples(values)})"
                    )
        finally:
            con.close()
            for s in servers:
                s.stop()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=2.0)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--warmup", type=float, default=0.5)
    args = p.parse_args(argv)
    run(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
