"""Plain queries: drydock vs a real MySQL server (MariaDB from the Debian package), side by side.

Both servers run on 127.0.0.1 in temporary directories, get the same tables, and are measured
with the same pymysql client loop (one client process per connection, rows fetched):

- ``SELECT 1``;
- PK point lookup on a 10k-row INT PRIMARY KEY table (the key varies per query);
- a 10-row range scan on that key;
- an aggregate over 1M rows (``SELECT n, count(*), sum(x) … GROUP BY n``: DuckDB's ground);
- a Lance point lookup by a filtered column (drydock only; the baseline is the same query on
  in-process DuckDB over the same dataset with pylance, no server, no wire);
- the PK point lookup and the range scan once more at one connection, against in-process DuckDB
  running the same text on the same table (one thread, no server, no wire): drydock's own share
  of a statement's cost.

Each (query, connections) cell: one discarded warm-up per side, then ``--rounds`` rounds
alternating A B / B A, each a bounded window of ``--seconds``; the median per side and the ratio
drydock / baseline are printed. Exit code 0 whatever the numbers; when ``mariadbd`` is missing the
script says so (``apt-get install -y mariadb-server``) and exits 0.

    .venv/bin/python bench/bench_vs_mariadb.py [--seconds 2] [--rounds 3] [--connections 1 8]
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing as mp
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pymysql

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.bench_wire import HOST, ROOT, Server, drydock_server  # noqa: E402
from bench.timing import fmt_ratio, fmt_samples, goal_verdict, interleaved, median, median_ratio  # noqa: E402

MAX_QUERIES_PER_WORKER = 50_000_000
JOIN_SLACK_SECONDS = 60.0
PK_ROWS = 10_000
AGG_ROWS = 1_000_000
LANCE_ROWS = 200_000


# -- MariaDB
# ----------------------------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def mariadb_server(tmp: Path) -> Server | None:
    """A MariaDB server in ``tmp`` (root without a password over TCP), or None when not
    installed."""
    mariadbd = shutil.which("mariadbd") or shutil.which(
        "mariadbd", path="/usr/sbin:/usr/local/sbin"
    )
    install = shutil.which("mariadb-install-db") or shutil.which(
        "mariadb-install-db", path="/usr/bin:/usr/sbin"
    )
    if not mariadbd or not install:
        return None
    datadir = tmp / "mariadb-data"
    user = ["--user=root"] if os.geteuid() == 0 else []
    subprocess.run(
        [
            install,
            f"--datadir={datadir}",
            "--auth-root-authentication-method=normal",
            "--skip-test-db",
            *user,
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    port = _free_port()
    cmd = [
        mariadbd,
        "--no-defaults",
        f"--datadir={datadir}",
        f"--socket={tmp / 'mariadb.sock'}",
        f"--port={port}",
        f"--bind-address={HOST}",
        "--skip-grant-tables",
        "--skip-name-resolve",
        "--innodb-buffer-pool-size=512M",
        "--max-connections=200",
        "--skip-log-bin",
        f"--pid-file={tmp / 'mariadb.pid'}",
        *user,
    ]
    # mariadbd prints "ready for connections" on stderr; a shell echo turns it into our prefix.
    wrapper = [
        "sh",
        "-c",
        '"$@" 2>&1 | sed -u -n "s/.*ready for connections.*/mariadb ready on '
        + f'{HOST}:{port}/p"',
        "sh",
        *cmd,
    ]
    return Server("mariadb", wrapper, "mariadb ready on ", tmp / "mariadb.log")


# -- clients
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Query:
    name: str
    template: str  # {k}: a key varying per query
    keys: int  # keys cycle over range(keys)


def _connect(port: int, db: str) -> pymysql.connections.Connection:
    return pymysql.connect(
        host=HOST,
        port=port,
        user="root",
        password="",
        database=db,
        connect_timeout=10,
        read_timeout=120,
        write_timeout=120,
        autocommit=True,
    )


def _worker(
    port: int,
    db: str,
    query: Query,
    seconds: float,
    seed: int,
    barrier: Any,
    counts: Any,
    errors: Any,
    index: int,
) -> None:
    count = 0
    try:
        conn = _connect(port, db)
        barrier.wait(timeout=JOIN_SLACK_SECONDS)
        deadline = time.monotonic() + seconds
        k = seed * 7919
        with conn.cursor() as cur:
            while count < MAX_QUERIES_PER_WORKER and time.monotonic() < deadline:
                k = (k + 104_729) % query.keys
                cur.execute(query.template.format(k=k))
                cur.fetchall()
                count += 1
        conn.close()
    except Exception as exc:  # noqa: BLE001 - reported by the parent
        errors.put(repr(exc))
        with contextlib.suppress(Exception):  # the barrier may already be broken
            barrier.abort()
    counts[index] = count


def measure(port: int, db: str, query: Query, connections: int, seconds: float) -> float:
    ctx = mp.get_context("fork")
    barrier = ctx.Barrier(connections + 1)
    counts = ctx.Array("d", [0.0] * connections)
    errors = ctx.Queue()
    workers = [
        ctx.Process(
            target=_worker,
            args=(port, db, query, seconds, i, barrier, counts, errors, i),
            daemon=True,
        )
        for i in range(connections)
    ]
    for w in workers:
        w.start()
    barrier.wait(timeout=JOIN_SLACK_SECONDS)
    for w in workers:
        w.join(timeout=seconds + JOIN_SLACK_SECONDS)
        if w.is_alive():
            w.kill()
    problems = []
    while not errors.empty():
        problems.append(errors.get_nowait())
    if problems:
        raise RuntimeError(f"workers failed on port {port}: {problems[:3]}")
    return sum(counts[:]) / seconds


# -- data
# -------------------------------------------------------------------------------------------
def load(port: int, flavour: str) -> None:
    """The same tables on both servers: bench.pk (10k rows, INT PK) and bench.agg (1M rows)."""
    conn = _connect(port, "")
    with conn.cursor() as cur:
        cur.execute("CREATE DATABASE IF NOT EXISTS bench")
        cur.execute("USE bench")
        cur.execute("CREATE TABLE bench.pk (id INT PRIMARY KEY, v VARCHAR(32), n INT)")
        cur.execute("CREATE TABLE bench.agg (id INT, n INT, x DOUBLE)")
        if flavour == "mariadb":
            cur.execute(
                f"INSERT INTO bench.pk SELECT seq, CONCAT('v', seq), seq % 100 FROM "
                f"seq_0_to_{PK_ROWS - 1}"
            )
            cur.execute(
                f"INSERT INTO bench.agg SELECT seq, seq % 100, seq / 7 FROM seq_0_to_{AGG_ROWS - 1}"
            )
            cur.execute("ANALYZE TABLE bench.pk, bench.agg")
            cur.fetchall()
        else:
            # drydock serves DuckDB: range() is an allowed pure table function
            cur.execute(
                f"INSERT INTO bench.pk SELECT range, CONCAT('v', range), range % 100 FROM "
                f"range({PK_ROWS})"
            )
            cur.execute(
                f"INSERT INTO bench.agg SELECT range, range % 100, range / 7 FROM range({AGG_ROWS})"
            )
    conn.close()


def lance_dataset(tmp: Path) -> Path:
    import lance
    import pyarrow as pa

    root = tmp / "lance-wh"
    ids = pa.array(range(LANCE_ROWS), pa.int64())
    lance.write_dataset(
        pa.table(
            {
                "id": ids,
                "tag": pa.array([f"t{i}" for i in range(LANCE_ROWS)]),
                "x": pa.array([i * 0.5 for i in range(LANCE_ROWS)]),
            }
        ),
        root / "db" / "t.lance",
    )
    return root


def inprocess_pk_table():  # type: ignore[no-untyped-def]
    """The baseline of drydock's own cost: bench.pk, built as drydock builds it, in an
    in-process DuckDB."""
    import duckdb

    con = duckdb.connect()
    con.execute("CREATE TABLE pk (id INTEGER PRIMARY KEY, v VARCHAR, n INTEGER)")
    con.execute(
        f"INSERT INTO pk SELECT range, CONCAT('v', range), range % 100 FROM range({PK_ROWS})"
    )
    return con


def inprocess_qps(con: Any, query: Query, seconds: float) -> float:
    """``query``'s texts on an in-process DuckDB connection, one thread, rows fetched."""
    count, k, deadline = 0, 0, time.monotonic() + seconds
    while count < MAX_QUERIES_PER_WORKER and time.monotonic() < deadline:
        k = (k + 104_729) % query.keys
        con.execute(query.template.format(k=k)).fetchall()
        count += 1
    return count / seconds


def inprocess_lance_qps(root: Path, template: str, keys: int, seconds: float) -> float:
    """The baseline of the Lance lookup: in-process DuckDB over the dataset (pylance), no server."""
    import duckdb
    import lance

    con = duckdb.connect()
    con.register("t", lance.dataset(str(root / "db" / "t.lance")))
    count, k, deadline = 0, 0, time.monotonic() + seconds
    while count < MAX_QUERIES_PER_WORKER and time.monotonic() < deadline:
        k = (k + 104_729) % keys
        con.execute(template.format(k=k)).fetchall()
        count += 1
    return count / seconds


# -- the run
# ----------------------------------------------------------------------------------------
@dataclass
class Cell:
    query: Query
    connections: int
    baseline: str
    drydock: list[float] = field(default_factory=list)
    other: list[float] = field(default_factory=list)

    def ratio(self) -> float:
        return median_ratio(self.drydock, self.other)


QUERIES = [
    Query("SELECT 1", "SELECT 1", 1),
    Query("PK point lookup", "SELECT id, v, n FROM pk WHERE id = {k}", PK_ROWS),
    Query(
        "10-row range scan", "SELECT id, v FROM pk WHERE id BETWEEN {k} AND {k} + 9", PK_ROWS - 10
    ),
    Query(
        "1M-row aggregate",
        "SELECT n, count(*), sum(x) FROM agg WHERE n < 10 + {k} % 2 GROUP BY n ORDER BY n",
        2,
    ),
]
LANCE = Query("Lance lookup by tag", "SELECT id, x FROM {table} WHERE tag = 't{k}'", LANCE_ROWS)


def run(args: argparse.Namespace) -> list[Cell]:
    cells: list[Cell] = []
    with tempfile.TemporaryDirectory(prefix="drydock-vs-mariadb-") as tmp_name:
        tmp = Path(tmp_name)
        maria = mariadb_server(tmp)
        if maria is None:
            print(
                "mariadbd is not installed: nothing to compare with. Install it with\n"
                "  apt-get update && apt-get install -y mariadb-server\nand run again."
            )
            return []
        drydock = drydock_server(tmp, args.drydock_root)
        servers = [drydock, maria]
        try:
            for s in servers:
                s.start()
            print(f"servers: drydock :{drydock.port}, mariadb :{maria.port}", flush=True)
            load(drydock.port, "drydock")
            load(maria.port, "mariadb")
            for q in QUERIES:
                sql = q.template.format(k=3)
                answers = [_rows(s.port, sql) for s in servers]
                same = [
                    tuple(
                        float(v) if isinstance(v, (int, float)) or hasattr(v, "as_tuple") else v
                        for v in r
                    )
                    for r in answers[0]
                ] == [
                    tuple(
                        float(v) if isinstance(v, (int, float)) or hasattr(v, "as_tuple") else v
                        for v in r
                    )
                    for r in answers[1]
                ]
                print(
                    f"  check {q.name:<22} {len(answers[0])} row(s) each, same answer: {same}",
                    flush=True,
                )
            for q in QUERIES:
                if q.name == "1M-row aggregate" and args.skip_aggregate:
                    continue
                for n in args.connections:
                    cell = Cell(q, n, "MariaDB " + _maria_version(maria.port))
                    sides = [(drydock.port, cell.drydock), (maria.port, cell.other)]
                    for port, _ in sides:
                        measure(port, "bench", q, n, args.warmup)
                    for _, order in interleaved(sides, args.rounds):
                        for port, samples in order:
                            samples.append(measure(port, "bench", q, n, args.seconds))
                    print(
                        f"  {q.name:<22} conns={n}: drydock {fmt_samples(cell.drydock)} | mariadb "
                        f"{fmt_samples(cell.other)}",
                        flush=True,
                    )
                    cells.append(cell)
            maria.stop()
            cells += run_inprocess(args, drydock)
            if not args.skip_lance:
                cells += run_lance(args, tmp, drydock)
        finally:
            for s in servers:
                s.stop()
    return cells


IN_PROCESS = "in-process DuckDB, 1 thread"


def run_inprocess(args: argparse.Namespace, drydock: Server) -> list[Cell]:
    """The PK lookup and the range scan at one connection vs in-process DuckDB on the same text."""
    con = inprocess_pk_table()
    cells = []
    for q in QUERIES[1:3]:
        cell = Cell(q, 1, IN_PROCESS)
        measure(drydock.port, "bench", q, 1, args.warmup)
        inprocess_qps(con, q, args.warmup)
        _interleave(
            cell,
            lambda q=q: measure(drydock.port, "bench", q, 1, args.seconds),
            lambda q=q: inprocess_qps(con, q, args.seconds),
            args.rounds,
        )
        cells.append(cell)
    con.close()
    return cells


def _interleave(
    cell: Cell, drydock: Callable[[], float], other: Callable[[], float], rounds: int
) -> None:
    """``rounds`` interleaved measurements of each side of ``cell`` against an in-process
    baseline, then its progress line."""
    steps = [lambda: cell.drydock.append(drydock()), lambda: cell.other.append(other())]
    for _, order in interleaved(steps, rounds):
        for step in order:
            step()
    print(
        f"  {cell.query.name:<22} conns={cell.connections}: drydock {fmt_samples(cell.drydock)} "
        f"| in-process {fmt_samples(cell.other)}",
        flush=True,
    )


def run_lance(args: argparse.Namespace, tmp: Path, drydock: Server) -> list[Cell]:
    root = lance_dataset(tmp)
    conn = _connect(drydock.port, "")
    with conn.cursor() as cur:
        cur.execute(
            f'CREATE CATALOG bl PROPERTIES ("type" = "lance", "warehouse" = "{root}", '
            '"meta.cache.ttl-second" = "3600")'
        )
    conn.close()
    table_q = Query(LANCE.name, LANCE.template.replace("{table}", "bl.db.t"), LANCE.keys)
    local_template = LANCE.template.replace("{table}", "t")
    cells = []
    for n in args.connections:
        cell = Cell(table_q, n, "in-process DuckDB + pylance, 1 thread")
        measure(drydock.port, "", table_q, n, args.warmup)
        _interleave(
            cell,
            lambda n=n: measure(drydock.port, "", table_q, n, args.seconds),
            lambda: inprocess_lance_qps(root, local_template, LANCE.keys, args.seconds),
            args.rounds,
        )
        cells.append(cell)
    return cells


def _rows(port: int, sql: str) -> list[tuple[Any, ...]]:
    conn = _connect(port, "bench")
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            return list(cur.fetchall())
    finally:
        conn.close()


def _maria_version(port: int) -> str:
    rows = _rows(port, "SELECT VERSION()")
    return str(rows[0][0]).split("-")[0] if rows else ""


def print_table(cells: list[Cell], args: argparse.Namespace) -> None:
    if not cells:
        return
    print()
    print(
        f"qps, median of {args.rounds} x {args.seconds:g}s per side, pymysql clients (one process "
        f"per "
        f"connection), {os.cpu_count()} CPUs shared by servers and clients"
    )
    header = f"{'query':<22} {'conns':>5} {'drydock':>10} {'baseline':>10} {'ratio':>7}  baseline"
    print(header)
    print("-" * (len(header) + 30))
    for c in cells:
        print(
            f"{c.query.name:<22} {c.connections:>5} {median(c.drydock):>10,.0f} "
            f"{median(c.other):>10,.0f} {fmt_ratio(c.ratio(), 7)}  {c.baseline}"
        )
    maria = [c for c in cells if c.baseline.startswith("MariaDB")]
    by = {(c.query.name, c.connections): c for c in maria}
    print()
    selects = [c.ratio() for (q, _), c in by.items() if q == "SELECT 1"]
    if selects:
        print(
            goal_verdict(
                "SELECT 1 >= 0.5x MariaDB (every conns)", min(selects), 0.5, higher_is_better=True
            )
        )
    for c in cells:
        if c.baseline == IN_PROCESS:
            print(
                goal_verdict(
                    f"{c.query.name} >= 0.67x {IN_PROCESS}", c.ratio(), 0.67, higher_is_better=True
                )
            )
    one, eight = by.get(("PK point lookup", 1)), by.get(("PK point lookup", 8))
    if one and eight:
        print(
            goal_verdict(
                "drydock PK lookup 8 conns >= 1.5x 1 conn",
                median_ratio(eight.drydock, one.drydock),
                1.5,
                higher_is_better=True,
            )
        )
    aggregates = [c.ratio() for (q, _), c in by.items() if q == "1M-row aggregate"]
    if aggregates:
        print(
            goal_verdict(
                "1M-row aggregate >= 5x MariaDB", min(aggregates), 5.0, higher_is_better=True
            )
        )


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="drydock vs MariaDB: plain queries")
    p.add_argument(
        "--seconds", type=float, default=2.0, help="timed window per measurement (default 2)"
    )
    p.add_argument(
        "--rounds", type=int, default=3, help="measurements per side per cell (default 3)"
    )
    p.add_argument(
        "--warmup", type=float, default=0.5, help="warm-up window per side per cell (default 0.5)"
    )
    p.add_argument(
        "--connections", type=int, nargs="+", default=[1, 8], help="connection counts (default 1 8)"
    )
    p.add_argument(
        "--drydock-root",
        type=Path,
        default=ROOT,
        help="checkout whose `python -m drydock.server serve` is measured (default: this repo)",
    )
    p.add_argument("--skip-aggregate", action="store_true", help="leave out the 1M-row aggregate")
    p.add_argument("--skip-lance", action="store_true", help="leave out the Lance lookup")
    args = p.parse_args(argv)
    if args.seconds <= 0 or args.rounds < 1 or args.warmup <= 0 or min(args.connections) < 1:
        p.error("--seconds/--warmup must be > 0, --rounds >= 1, --connections >= 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    print_table(run(args), args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
