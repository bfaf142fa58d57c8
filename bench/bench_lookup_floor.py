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

And ``SELECT 1`` at 1 and 8 connections against MariaDB (when ``mariadbd`` is installed), next to
bare mysql-mimic answering a fixed row without parsing (``--session custom``): the floor of any
mysql-mimic server for issue 26's "SELECT 1 >= 0.5x MariaDB".

Rounds are interleaved (A B C D / D C B A); the median per side and each ratio to the baseline
(in-process DuckDB; MariaDB) are printed. Exit code 0 whatever the numbers.

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
from bench.bench_vs_mariadb import mariadb_server  # noqa: E402
from bench.bench_wire import ROOT, Server, bare_server, drydock_server  # noqa: E402
from bench.timing import fmt_ratio, fmt_samples, interleaved, median, median_ratio  # noqa: E402

IN_PROCESS = "in-process DuckDB"


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


def _cell(
    title: str,
    base: str,
    sides: list[tuple[str, Callable[[float], float]]],
    args: argparse.Namespace,
) -> None:
    samples: dict[str, list[float]] = {label: [] for label, _ in sides}
    for _, side in sides:
        side(args.warmup)
    for _, order in interleaved(sides, args.rounds):
        for label, side in order:
            samples[label].append(side(args.seconds))
    print(f"\n{title}, qps, median of {args.rounds}:", flush=True)
    for label, values in samples.items():
        ratio = fmt_ratio(median_ratio(values, samples[base]))
        print(f"  {label:<22} {median(values):>8,.0f}  {ratio} of {base}   ({fmt_samples(values)})")


def run_select_one(args: argparse.Namespace, tmp: Path, drydock: Server) -> None:
    maria = mariadb_server(tmp)
    if maria is None:
        print("\nmariadbd is not installed: SELECT 1 vs MariaDB left out", flush=True)
        return
    bare = bare_server(tmp, "custom")
    try:
        maria.start()
        bare.start()
        query = Query("SELECT 1", "SELECT 1", 1)
        for n in (1, 8):
            sides: list[tuple[str, Callable[[float], float]]] = [
                (s.label, lambda seconds, port=s.port, n=n: measure(port, "", query, n, seconds))
                for s in (maria, bare, drydock)
            ]
            _cell(f"SELECT 1, {n} connection(s)", maria.label, sides, args)
    finally:
        maria.stop()
        bare.stop()


def run(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="drydock-floor-") as tmp_name:
        tmp = Path(tmp_name)
        drydock = drydock_server(tmp, ROOT)
        bares = [
            bare_server(tmp, s, "--pk-rows", str(PK_ROWS)) for s in ("duckdb-inline", "duckdb")
        ]
        servers = [drydock, *bares]
        con = inprocess_pk_table()
        try:
            for s in servers:
                s.start()
            load_drydock(drydock.port)
            for query in QUERIES[1:3]:
                sides: list[tuple[str, Callable[[float], float]]] = [
                    (IN_PROCESS, lambda seconds, q=query: inprocess_qps(con, q, seconds))
                ]
                for server in servers:
                    db = "bench" if server is drydock else ""

                    def over_wire(
                        seconds: float, port: int = server.port, d: str = db, q: Query = query
                    ) -> float:
                        return measure(port, d, q, 1, seconds)

                    sides.append((server.label, over_wire))
                _cell(f"{query.name} (one connection)", IN_PROCESS, sides, args)
            for s in bares:
                s.stop()
            run_select_one(args, tmp, drydock)
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
