"""Cost of strict-mode enforcement (engine/sql/enforcement.py) per INSERT, against a named
baseline: the same statements on a drydock checkout without it (``--baseline-root``, e.g. a
``git archive`` of the commit before, extracted to a temporary folder).

Statements (autocommit, pymysql over TCP), into a table with a primary key, a VARCHAR(40) under a
UNIQUE key (utf8mb4_0900_ai_ci: probed case-insensitively), an INT and an ENUM, and into a child
table with a FOREIGN KEY to it:

- ``INSERT … VALUES`` of 1 row, and of 1,000 rows;
- the same into the child table (its parent probed).

Prints the median time of each and the ratio drydock / baseline.

    git archive <commit> | tar -x -C /tmp/base && \\
        .venv/bin/python bench/bench_enforcement.py --baseline-root /tmp/base
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import pymysql

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_wire import HOST, drydock_server  # noqa: E402
from bench.timing import fmt_ratio, interleaved, median  # noqa: E402

SETUP = (
    "CREATE DATABASE IF NOT EXISTS bench",
    "USE bench",
    "DROP TABLE IF EXISTS child",
    "DROP TABLE IF EXISTS parent",
    "CREATE TABLE parent (id INT PRIMARY KEY, name VARCHAR(40), n INT, "
    "e ENUM('small','large'), UNIQUE KEY uk (name))",
    "CREATE TABLE child (id INT PRIMARY KEY, p INT, CONSTRAINT fk FOREIGN KEY (p) "
    "REFERENCES parent (id))",
)


def _rows(start: int, count: int) -> str:
    return ", ".join(f"({i}, 'name-{i}', {i % 1000}, 'small')" for i in range(start, start + count))


def _children(start: int, count: int) -> str:
    return ", ".join(f"({i}, {1 + i % 1000})" for i in range(start, start + count))


def measure(port: int, rounds: int) -> dict[str, list[float]]:
    conn = pymysql.connect(host=HOST, port=port, user="root", password="", autocommit=True)
    cur = conn.cursor()
    for sql in SETUP:
        cur.execute(sql)
    cur.execute(f"INSERT INTO parent VALUES {_rows(1, 1000)}")
    times: dict[str, list[float]] = {k: [] for k in ("1 row", "1000 rows", "child 1", "child 1000")}
    next_id = 100_000
    for _ in range(rounds):
        for label, table, count in (
            ("1 row", "parent", 1),
            ("1000 rows", "parent", 1000),
            ("child 1", "child", 1),
            ("child 1000", "child", 1000),
        ):
            values = _rows(next_id, count) if table == "parent" else _children(next_id, count)
            started = time.perf_counter()
            cur.execute(f"INSERT INTO {table} VALUES {values}")
            times[label].append(time.perf_counter() - started)
            next_id += count
    conn.close()
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--baseline-root", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    results: dict[str, dict[str, list[float]]] = {"drydock": {}, "baseline": {}}
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        for side_dir in ("a", "b"):
            (tmp / side_dir).mkdir()
        servers = {
            "drydock": drydock_server(tmp / "a", ROOT),
            "baseline": drydock_server(tmp / "b", args.baseline_root),
        }
        for side in servers.values():
            side.start()
        try:
            for _round, order in interleaved(list(servers), 2):
                for name in order:
                    for label, samples in measure(servers[name].port, args.rounds // 2).items():
                        results[name].setdefault(label, []).extend(samples)
        finally:
            for side in servers.values():
                side.stop()
    print(f"{'statement':<14} {'drydock ms':>11} {'baseline ms':>12} {'ratio':>7}")
    for label, samples in results["drydock"].items():
        base = results["baseline"][label]
        print(
            f"{label:<14} {median(samples) * 1000:>11.2f} {median(base) * 1000:>12.2f} "
            f"{fmt_ratio(median(samples) / median(base), 7)}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
