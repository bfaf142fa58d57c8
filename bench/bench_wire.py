"""Wire throughput: drydock vs bare mysql-mimic, side by side in one run.

Statements (each is a full COM_QUERY round trip from a pymysql client, rows fetched):

- ``SELECT 1`` — drydock vs an unmodified ``mysql_mimic.MysqlServer()`` (default ``Session``,
  answers through sqlglot's parser + executor). Goal: drydock >= 1.0x.
- ``ADMIN SHOW FRONTEND CONFIG LIKE 'x'`` — drydock (Lark grammar, privilege check, config
  registry, worker thread) vs the "bare mimic custom statement" baseline: a mysql-mimic server
  whose session answers any text with a fixed one-row result (see bench/bare_mimic_server.py).
  This is the floor cost of a custom statement in mysql-mimic, so a ratio below 1 is expected.

Each statement is measured with 1 and 8 connections. All servers are separate processes on
127.0.0.1 (free ports); clients run in this process's child processes (default) or threads.
For every (statement, connections) cell: one warm-up per side, then ``--repeats`` measurements
alternating A B / B A, and the median of each side is reported. Exit code is 0 whatever the ratio.

    .venv/bin/python bench/bench_wire.py [--seconds 2] [--repeats 3] [--clients process|thread]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pymysql

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.timing import fmt_ratio, fmt_samples, goal_verdict, interleaved, median, median_ratio  # noqa: E402

HOST = "127.0.0.1"
READY_TIMEOUT_SECONDS = 30.0
STOP_TIMEOUT_SECONDS = 10.0
MAX_QUERIES_PER_WORKER = 50_000_000  # a bound on every loop, far above any real rate
WORKER_JOIN_SLACK_SECONDS = 30.0

SELECT_1 = "SELECT 1"
EXTENSION = "ADMIN SHOW FRONTEND CONFIG LIKE 'x'"
BASELINE = "bare mysql-mimic"


# -- servers
# ----------------------------------------------------------------------------------------
@dataclass
class Server:
    """One server child process that prints ``<name> ready on HOST:PORT`` when it listens."""

    label: str
    cmd: list[str]
    ready_prefix: str
    log_path: Path
    cwd: Path = ROOT
    env: dict[str, str] | None = None
    port: int = 0
    proc: subprocess.Popen[str] | None = None

    def start(self) -> Server:
        log = open(self.log_path, "a")
        self.proc = subprocess.Popen(
            self.cmd, cwd=self.cwd, env=self.env, stdout=subprocess.PIPE, stderr=log, text=True
        )
        log.close()
        assert self.proc.stdout is not None
        deadline = time.monotonic() + READY_TIMEOUT_SECONDS
        ready: list[str] = []

        def read_ready() -> None:  # readline() blocks; a thread keeps the deadline enforceable
            assert self.proc is not None and self.proc.stdout is not None
            for line in self.proc.stdout:
                if line.startswith(self.ready_prefix):
                    ready.append(line)
                    return

        reader = threading.Thread(target=read_ready, daemon=True)
        reader.start()
        reader.join(timeout=max(deadline - time.monotonic(), 0))
        if not ready:
            exited = self.proc.poll()
            self.stop()
            why = (
                f"exited with {exited}"
                if exited is not None
                else f"not ready within {READY_TIMEOUT_SECONDS:g}s"
            )
            raise RuntimeError(f"{self.label} {why}; log: {self.log_path.read_text()[-2000:]}")
        self.port = int(ready[0].strip().rsplit(":", 1)[1])
        return self

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=STOP_TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=STOP_TIMEOUT_SECONDS)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None


def drydock_server(tmp: Path, root: Path) -> Server:
    """The drydock of checkout ``root``: one whose folders are installed as drydock.* (setup.py)
    is put first on PYTHONPATH through a link named drydock, so that the checkout measured is the
    one given, not the installed one; an older checkout runs as ``python -m server``."""
    args = [
        "serve",
        "--host",
        HOST,
        "--port",
        "0",
        "--data-dir",
        str(tmp / "drydock-data"),
        "--log-level",
        "WARNING",
    ]
    env = None
    module = "server"
    if (root / "setup.py").exists():
        link_dir = tmp / "drydock-path"
        link_dir.mkdir(exist_ok=True)
        (link_dir / "drydock").symlink_to(root.resolve(), target_is_directory=True)
        env = {**os.environ, "PYTHONPATH": str(link_dir)}
        module = "drydock.server"
    cmd = [sys.executable, "-m", module, *args]
    return Server("drydock", cmd, "drydock ready on ", tmp / "drydock.log", cwd=root, env=env)


def bare_server(tmp: Path, session: str, *options: str) -> Server:
    cmd = [
        sys.executable,
        str(ROOT / "bench" / "bare_mimic_server.py"),
        "--host",
        HOST,
        "--port",
        "0",
        "--session",
        session,
        *options,
    ]
    return Server(f"bare-mimic-{session}", cmd, "bare-mimic ready on ", tmp / f"bare-{session}.log")


# -- clients
# ----------------------------------------------------------------------------------------
def _connect(port: int) -> pymysql.connections.Connection:
    return pymysql.connect(
        host=HOST,
        port=port,
        user="root",
        password="",
        connect_timeout=10,
        read_timeout=60,
        write_timeout=60,
        autocommit=True,
    )


def _worker(port: int, sql: str, seconds: float, barrier: Any, results: Any, index: int) -> None:
    """Connect, wait until every worker is connected, then run ``sql`` for ``seconds`` (bounded)."""
    count, error = 0, ""
    try:
        conn = _connect(port)
    except Exception as exc:  # noqa: BLE001 - reported, the barrier must still be reached
        conn, error = None, f"connect: {exc!r}"
    try:
        barrier.wait(timeout=WORKER_JOIN_SLACK_SECONDS)
        if conn is not None:
            deadline = time.monotonic() + seconds
            with conn.cursor() as cur:
                while count < MAX_QUERIES_PER_WORKER and time.monotonic() < deadline:
                    cur.execute(sql)
                    cur.fetchall()
                    count += 1
    except Exception as exc:  # noqa: BLE001 - a failed worker is reported, not fatal
        error = error or repr(exc)
    finally:
        if conn is not None:
            conn.close()
    results[index] = (count, error)


def measure(port: int, sql: str, connections: int, seconds: float, mode: str) -> float:
    """Queries per second over all ``connections`` for one timed window of ``seconds``."""
    parties = connections + 1
    if mode == "process":
        ctx = mp.get_context("fork")
        barrier: Any = ctx.Barrier(parties)
        counts_array: Any = ctx.Array("d", [0.0] * connections)
        errors: Any = ctx.Queue()
        workers: list[Any] = []
        for i in range(connections):
            workers.append(
                ctx.Process(
                    target=_process_worker,
                    args=(port, sql, seconds, barrier, counts_array, errors, i),
                    daemon=True,
                )
            )
    else:
        barrier = threading.Barrier(parties)
        thread_results: list[Any] = [(0, "")] * connections
        workers = [
            threading.Thread(
                target=_worker, args=(port, sql, seconds, barrier, thread_results, i), daemon=True
            )
            for i in range(connections)
        ]
    for w in workers:
        w.start()
    # All workers are connected once every party reaches the barrier; each then runs its own
    # window of ``seconds`` from that moment (set-up is never timed).
    barrier.wait(timeout=WORKER_JOIN_SLACK_SECONDS)
    for w in workers:
        w.join(timeout=seconds + WORKER_JOIN_SLACK_SECONDS)
    stuck = [w for w in workers if w.is_alive()]
    if mode == "process":
        for w in stuck:
            w.kill()
        counts = [int(c) for c in counts_array[:]]
        problems = []
        while not errors.empty():
            problems.append(errors.get_nowait())
    else:
        counts = [c for c, _ in thread_results]
        problems = [e for _, e in thread_results if e]
    if stuck:
        problems.append(f"{len(stuck)} worker(s) did not finish")
    if problems:
        raise RuntimeError(f"benchmark workers failed on port {port}: {problems[:3]}")
    return sum(counts) / seconds


def _process_worker(
    port: int, sql: str, seconds: float, barrier: Any, counts: Any, errors: Any, index: int
) -> None:
    results: list[Any] = [(0, "")]
    _worker(port, sql, seconds, barrier, results, 0)
    count, error = results[0]
    counts[index] = count
    if error:
        errors.put(error)


# -- the run
# ----------------------------------------------------------------------------------------
@dataclass
class Cell:
    statement: str
    connections: int
    baseline_label: str
    drydock: list[float] = field(default_factory=list)
    bare: list[float] = field(default_factory=list)

    def ratio(self) -> float:
        return median_ratio(self.drydock, self.bare)


def check_answers(drydock: Server, bare_default: Server, bare_custom: Server) -> None:
    """Each statement succeeds on its two servers before anything is timed."""
    for server, sql in (
        (drydock, SELECT_1),
        (drydock, EXTENSION),
        (bare_default, SELECT_1),
        (bare_custom, EXTENSION),
    ):
        conn = _connect(server.port)
        try:
            with conn.cursor() as cur:
                cur.execute(sql)
                rows = cur.fetchall()
                cols = [d[0] for d in cur.description or []]
        finally:
            conn.close()
        print(f"  check {server.label:<20} {sql!r:<40} -> {len(rows)} row(s), columns {cols}")


def run(args: argparse.Namespace) -> list[Cell]:
    servers: list[Server] = []
    with tempfile.TemporaryDirectory(prefix="drydock-bench-") as tmp_name:
        tmp = Path(tmp_name)
        try:
            drydock = drydock_server(tmp, args.drydock_root)
            bare_default = bare_server(tmp, "default")
            bare_custom = bare_server(tmp, "custom")
            for s in (drydock, bare_default, bare_custom):
                servers.append(s)
                s.start()
            print(
                f"servers: drydock :{drydock.port}, bare mimic (default Session) "
                f":{bare_default.port}, "
                f"bare mimic (fixed-answer Session) :{bare_custom.port}"
            )
            check_answers(drydock, bare_default, bare_custom)
            plan = [
                (SELECT_1, bare_default, "bare mimic (default Session, sqlglot executor)"),
                (EXTENSION, bare_custom, "bare mimic custom statement (fixed one-row answer)"),
            ]
            cells: list[Cell] = []
            for sql, bare, label in plan:
                for connections in args.connections:
                    cell = Cell(sql, connections, label)
                    sides = [("drydock", drydock, cell.drydock), ("bare", bare, cell.bare)]
                    for _, server, _ in sides:  # warm-up, discarded
                        measure(server.port, sql, connections, args.warmup, args.clients)
                    for _, order in interleaved(sides, args.repeats):
                        for _, server, samples in order:
                            samples.append(
                                measure(server.port, sql, connections, args.seconds, args.clients)
                            )
                    for s in servers:
                        if not s.alive():
                            raise RuntimeError(
                                f"{s.label} died; log: {s.log_path.read_text()[-2000:]}"
                            )
                    print(
                        f"  {sql!r:<40} conns={connections}: drydock {fmt_samples(cell.drydock)} | "
                        f"bare "
                        f"{fmt_samples(cell.bare)}",
                        flush=True,
                    )
                    cells.append(cell)
            return cells
        finally:
            for s in servers:
                s.stop()


def print_table(cells: list[Cell], args: argparse.Namespace) -> None:
    print()
    clients = (
        "one process per connection" if args.clients == "process" else "one thread per connection"
    )
    print(
        f"baseline: {BASELINE} {_mimic_version()}; ratio = drydock qps / bare mimic qps "
        f"(median of {args.repeats} x {args.seconds:g}s per side, pymysql clients: {clients}, "
        f"{os.cpu_count()} CPUs)"
    )
    header = (
        f"{'statement':<38} {'conns':>5} {'drydock qps':>12} {'bare mimic qps':>15} "
        f"{'ratio':>7}  baseline"
    )
    print(header)
    print("-" * (len(header) + 40))
    for c in cells:
        print(
            f"{c.statement:<38} {c.connections:>5} {median(c.drydock):>12,.0f} "
            f"{median(c.bare):>15,.0f} {fmt_ratio(c.ratio(), 7)}  {c.baseline_label}"
        )
    goal = [c for c in cells if c.statement == SELECT_1]
    if goal:
        worst = min(c.ratio() for c in goal)
        print(
            "\n"
            + goal_verdict(
                f"drydock >= 1.0x {BASELINE} on SELECT 1", worst, 1.0, higher_is_better=True
            )
        )


def _mimic_version() -> str:
    try:
        from importlib.metadata import version

        return version("mysql-mimic")
    except Exception:  # noqa: BLE001 - only a label
        return ""


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="drydock vs bare mysql-mimic wire throughput")
    p.add_argument(
        "--seconds", type=float, default=2.0, help="timed window per measurement (default 2)"
    )
    p.add_argument(
        "--repeats", type=int, default=3, help="measurements per side per cell (default 3)"
    )
    p.add_argument(
        "--warmup", type=float, default=0.3, help="warm-up window per side per cell (default 0.3)"
    )
    p.add_argument(
        "--connections", type=int, nargs="+", default=[1, 8], help="connection counts (default 1 8)"
    )
    p.add_argument(
        "--clients",
        choices=["process", "thread"],
        default="process",
        help="one client process per connection (default) or one thread per connection",
    )
    p.add_argument(
        "--drydock-root",
        type=Path,
        default=ROOT,
        help="checkout whose `python -m drydock.server serve` is measured (default: this repo)",
    )
    args = p.parse_args(argv)
    if args.seconds <= 0 or args.repeats < 1 or args.warmup <= 0 or min(args.connections) < 1:
        p.error("--seconds/--warmup must be > 0, --repeats >= 1, --connections >= 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    cells = run(args)
    print_table(cells, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
