"""Lance maintenance procedures: drydock over the wire vs pylance called directly in-process.

Two operations, measured in the same run on identical copies of one dataset:

- **expire_snapshots** on a table with ``--versions`` versions (default 1,000; one row appended
  per version): drydock ``CALL c.sys.expire_snapshots(table => ..., retain_max => 1)`` vs pylance
  ``lance.dataset(uri).cleanup_old_versions(retain_versions=1)``; and the age form,
  ``older_than => <now>`` vs ``cleanup_old_versions(older_than=<age of now>)``.
- **remove_orphan_files** on a table with ``--files`` data files (default 10,000, in
  ``--file-versions`` versions) plus ``--orphans`` stray files (default 1,000) dated 3 days back:
  drydock ``CALL c.sys.remove_orphan_files(table => ...)`` (default older_than = now - 1 day) vs
  pylance ``cleanup_old_versions(retain_versions=<all>, delete_unverified=True)`` — Lance's own
  way to remove unreferenced files (it ignores file age; drydock also checks ages, tags, branches
  and the table's state before deleting, and returns one row per deleted file).

Each template dataset is written once; every repetition copies it twice (outside the timing) and
runs one side on each copy, alternating which side goes first. The drydock time is the client's
wall time for the CALL (sent with pymysql, rows fetched); the pylance time includes opening the
dataset, as drydock's does. Both sides must leave the same versions and files, or the run fails.
Prints each side's median and the ratio drydock / pylance in-process. Goal: <= 1.2x. Exit code 0
whatever the ratio.

    .venv/bin/python bench/bench_procedures_lance.py [--versions 1000] [--files 10000] [--orphans
    1000] [--reps 5]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import shutil
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import lance
import pyarrow as pa
import pymysql

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.bench_wire import HOST, Server, drydock_server
from bench.timing import (
    Stopwatch,
    fmt_ratio,
    goal_verdict,
    interleaved,
    median,
    median_ratio,
    timed,
)

BASELINE = "pylance in-process"
GOAL = 1.2
CATALOG = "bench_procs"
OLD = time.time() - 3 * 86400


@dataclass
class Cell:
    label: str
    drydock: list[float] = field(default_factory=list)
    pylance: list[float] = field(default_factory=list)

    def ratio(self) -> float:
        return median_ratio(self.drydock, self.pylance)


def _rows(start: int, n: int) -> pa.Table:
    return pa.table({"id": pa.array(range(start, start + n), pa.int64())})


def write_versions(uri: Path, versions: int) -> None:
    lance.write_dataset(_rows(0, 1), uri)
    for v in range(1, versions):
        lance.write_dataset(_rows(v, 1), uri, mode="append")


def write_files(uri: Path, files: int, versions: int, orphans: int) -> None:
    per = max(1, files // versions)
    for v in range(versions):
        lance.write_dataset(
            _rows(v * per, per), uri, mode="append" if v else "create", max_rows_per_file=1
        )
    for _ in range(orphans):
        path = uri / "data" / f"{uuid.uuid4().hex}.lance"
        path.write_bytes(b"x" * 128)
        os.utime(path, (OLD, OLD))


def files_of(uri: Path) -> list[str]:
    return sorted(str(p.relative_to(uri)) for p in uri.rglob("*") if p.is_file())


def measure(
    cell: Cell,
    reps: int,
    template: Path,
    run_dir: Path,
    drydock_sql: str,
    pylance_call: Callable[[lance.LanceDataset], Any],
    cur: Any,
    compare: Callable[[Path], Any],
) -> None:
    for _, order in interleaved(("drydock", "pylance"), reps):
        name = f"t{len(cell.drydock)}_{uuid.uuid4().hex[:6]}"
        mine, theirs = run_dir / "bench" / f"{name}.lance", run_dir / "bench" / f"{name}_p.lance"
        shutil.copytree(template, mine)
        shutil.copytree(template, theirs)

        def drydock(table: str = f"bench.{name}") -> None:
            cur.execute(drydock_sql.format(t=table))
            cur.fetchall()

        def pylance(uri: Path = theirs) -> None:
            pylance_call(lance.dataset(uri))

        for side in order:
            if side == "drydock":
                cell.drydock.append(timed(drydock)[0])
            else:
                cell.pylance.append(timed(pylance)[0])
        if compare(mine) != compare(theirs):
            raise RuntimeError(f"{cell.label}: drydock and pylance left different tables")
        shutil.rmtree(mine)
        shutil.rmtree(theirs)
    print(
        f"  {cell.label}: drydock {median(cell.drydock):.3f} s, {BASELINE} "
        f"{median(cell.pylance):.3f} s",
        flush=True,
    )


def run(args: argparse.Namespace) -> list[Cell]:
    with tempfile.TemporaryDirectory(prefix="drydock-bench-procs-") as tmp_name:
        tmp = Path(tmp_name)
        versions_t, files_t, run_dir = (
            tmp / "tpl" / "versions.lance",
            tmp / "tpl" / "files.lance",
            tmp / "wh",
        )
        (run_dir / "bench").mkdir(parents=True)
        with Stopwatch() as writing:
            write_versions(versions_t, args.versions)
            write_files(files_t, args.files, args.file_versions, args.orphans)
        print(
            f"templates: {args.versions:,} versions; {len(files_of(files_t)):,} files "
            f"({args.files:,} data files in {args.file_versions} versions + {args.orphans:,} "
            f"orphans); "
            f"written in {writing.seconds:.1f}s",
            flush=True,
        )
        server: Server = drydock_server(tmp, ROOT)
        server.start()
        conn = None
        try:
            conn = pymysql.connect(
                host=HOST,
                port=server.port,
                user="root",
                password="",
                autocommit=True,
                connect_timeout=10,
                read_timeout=600,
                write_timeout=60,
            )
            cells = []
            with conn.cursor() as cur:
                cur.execute(
                    f"CREATE CATALOG {CATALOG} PROPERTIES ('type' = 'lance', 'warehouse' = "
                    f"'{run_dir}', "
                    "'meta.cache.ttl-second' = '0')"
                )

                def versions(uri: Path) -> list[int]:
                    return [v["version"] for v in lance.dataset(uri).version_refs()]

                cell = Cell(f"expire_snapshots retain_max=1 ({args.versions:,} versions)")
                measure(
                    cell,
                    args.reps,
                    versions_t,
                    run_dir,
                    f"CALL {CATALOG}.sys.expire_snapshots(table => '{{t}}', retain_max => 1)",
                    lambda ds: ds.cleanup_old_versions(retain_versions=1),
                    cur,
                    versions,
                )
                cells.append(cell)
                cell = Cell(f"expire_snapshots older_than=now ({args.versions:,} versions)")
                now = dt.datetime.now()
                measure(
                    cell,
                    args.reps,
                    versions_t,
                    run_dir,
                    f"CALL {CATALOG}.sys.expire_snapshots(table => '{{t}}', older_than => "
                    f"'{now.strftime('%Y-%m-%d %H:%M:%S.%f')}')",
                    lambda ds: ds.cleanup_old_versions(older_than=dt.datetime.now() - now),
                    cur,
                    versions,
                )
                cells.append(cell)
                cell = Cell(f"remove_orphan_files ({len(files_of(files_t)):,} files)")
                measure(
                    cell,
                    args.reps,
                    files_t,
                    run_dir,
                    f"CALL {CATALOG}.sys.remove_orphan_files(table => '{{t}}')",
                    lambda ds: ds.cleanup_old_versions(
                        retain_versions=10**9, delete_unverified=True
                    ),
                    cur,
                    files_of,
                )
                cells.append(cell)
            return cells
        finally:
            if conn is not None:
                conn.close()
            server.stop()


def print_table(cells: list[Cell], args: argparse.Namespace) -> None:
    print()
    print(
        f"baseline: {BASELINE} (pylance {lance.__version__}) on an identical copy in the same run; "
        f"ratio = "
        f"drydock median / {BASELINE} median ({args.reps} reps per side, alternating order, "
        f"{os.cpu_count()} CPUs)"
    )
    header = (
        f"{'operation':<46} {'drydock s':>10} {BASELINE + ' s':>22} {'ratio vs ' + BASELINE:>30}"
    )
    print(header)
    print("-" * len(header))
    for c in cells:
        print(
            f"{c.label:<46} {median(c.drydock):>10.3f} {median(c.pylance):>22.3f} "
            f"{fmt_ratio(c.ratio(), 30)}"
        )
    worst = max(c.ratio() for c in cells)
    print("\n" + goal_verdict(f"<= {GOAL}x {BASELINE}", worst, GOAL, higher_is_better=False))


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=f"Lance procedures: drydock vs {BASELINE}")
    p.add_argument(
        "--versions", type=int, default=1000, help="versions of the expire table (default 1000)"
    )
    p.add_argument(
        "--files", type=int, default=10_000, help="data files of the orphan table (default 10000)"
    )
    p.add_argument(
        "--file-versions",
        type=int,
        default=10,
        help="versions those files are written in (default 10)",
    )
    p.add_argument(
        "--orphans", type=int, default=1000, help="stray files, 3 days old (default 1000)"
    )
    p.add_argument("--reps", type=int, default=5, help="repetitions per side (default 5)")
    args = p.parse_args(argv)
    if min(args.versions, args.files, args.file_versions, args.reps) < 1 or args.orphans < 0:
        p.error("sizes must be positive")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    print_table(run(args), args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
