"""Choosing drydock's default search parameters: recall@10 and latency over a grid, pylance only.

For IVF_PQ: ``nprobes`` x ``refine_factor``; for IVF_HNSW_SQ: ``nprobes`` x ``ef`` (x
``refine_factor``). Every cell runs the same ``--queries`` held-out queries one at a time in this
process (no server) against the cached dataset of bench/search_data.py and compares the ids with
the exact top 10 (numpy brute force). The default printed for each index type is the cell with
the lowest median latency whose recall@10 is at least ``--target`` (0.95): the values drydock's
``ivf_nprobe``, ``vector_refine_factor`` and ``hnsw_ef_search`` start with. Baseline: exact brute
force (recall 1.0); latency is reported per cell, no ratio.

    .venv/bin/python bench/bench_search_grid.py [--rows 1000000] [--queries 1000] [--cache DIR]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import lance

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench import search_data as data  # noqa: E402
from bench.search_pylance import K, Params, run_queries  # noqa: E402
from bench.timing import median, percentile  # noqa: E402

PQ_NPROBES = (1, 2, 4, 8, 16, 32, 64)
PQ_REFINE = (0, 1, 2, 5, 10, 20)
HNSW_NPROBES = (1, 2, 4, 8, 16, 32)
HNSW_EF = (10, 20, 40, 80, 160)
HNSW_REFINE = (0, 2)
CACHE_ENV = "DRYDOCK_SEARCH_BENCH_CACHE"


@dataclass
class Cell:
    params: Params
    recall: float
    seconds: list[float]

    @property
    def median_ms(self) -> float:
        return median(self.seconds) * 1000

    @property
    def p99_ms(self) -> float:
        return percentile(self.seconds, 0.99) * 1000


def cheapest(cells: list[Cell], target: float) -> Cell | None:
    """The default: for each (refine_factor, ef) the smallest nprobes reaching ``target`` recall,
    then of those the one with the lowest median latency (choosing among that frontier only keeps
    a noisy timing from picking a needlessly large setting)."""
    frontier: dict[tuple[int, int | None], Cell] = {}
    for c in cells:
        key = (c.params.refine_factor, c.params.ef)
        if c.recall >= target and (
            key not in frontier or c.params.nprobes < frontier[key].params.nprobes
        ):
            frontier[key] = c
    return min(frontier.values(), key=lambda c: c.median_ms) if frontier else None


def grid(kind: str) -> list[Params]:
    if kind == "IVF_PQ":
        return [Params(n, r) for n in PQ_NPROBES for r in PQ_REFINE]
    # pylance refuses ef < k x refine_factor ("ef must be greater than or equal to k"): the HNSW
    # search is asked for the refine candidates, so those cells are left out.
    return [
        Params(n, r, ef)
        for n in HNSW_NPROBES
        for ef in HNSW_EF
        for r in HNSW_REFINE
        if ef >= K * max(r, 1)
    ]


def measure(ds: lance.LanceDataset, kind: str, qs, truth, target: float) -> list[Cell]:
    cells: list[Cell] = []
    run_queries(ds, qs[: min(50, len(qs))], grid(kind)[0])  # warm the index cache
    print(f"\n{kind}: recall@10 over {len(qs)} queries, latency per query (one thread)")
    print(f"{'setting':<32} {'recall@10':>9} {'median ms':>10} {'p99 ms':>8}")
    for params in grid(kind):
        found, seconds = run_queries(ds, qs, params)
        cell = Cell(params, data.recall(found, truth), seconds)
        cells.append(cell)
        mark = " *" if cell.recall >= target else ""
        print(
            f"{params.label():<32} {cell.recall:>9.4f} {cell.median_ms:>10.2f} "
            f"{cell.p99_ms:>8.2f}{mark}",
            flush=True,
        )
    return cells


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="recall/latency grid for the search defaults")
    p.add_argument("--rows", type=int, default=1_000_000, help="rows (default 1000000)")
    p.add_argument("--queries", type=int, default=1_000, help="queries per cell (default 1000)")
    p.add_argument("--target", type=float, default=0.95, help="recall@10 goal (default 0.95)")
    p.add_argument(
        "--cache",
        type=Path,
        default=Path(
            os.environ.get(CACHE_ENV, Path(tempfile.gettempdir()) / "drydock-search-bench")
        ),
        help=f"dataset cache directory (default ${CACHE_ENV} or <tmp>/drydock-search-bench)",
    )
    p.add_argument("--only", choices=("IVF_PQ", "IVF_HNSW_SQ"), help="one index type only")
    args = p.parse_args(argv)
    if args.rows < 1_000 or args.queries < 1:
        p.error("--rows must be >= 1000 and --queries >= 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    dataset = data.load_or_build(args.cache, data.Spec(args.rows))
    qs = data.queries(dataset.spec, args.queries)
    truth = data.exact_top_k(dataset, qs)
    print(f"pylance {lance.__version__}, {os.cpu_count()} CPUs, {args.rows:,} rows")
    chosen: dict[str, Cell | None] = {}
    for kind, table in (("IVF_PQ", "vec_pq"), ("IVF_HNSW_SQ", "vec_hnsw")):
        if args.only in (None, kind):
            chosen[kind] = cheapest(
                measure(dataset.open(table), kind, qs, truth, args.target), args.target
            )
    print()
    for kind, cell in chosen.items():
        if cell is None:
            print(f"default {kind}: no setting in the grid reaches recall@10 >= {args.target}")
        else:
            print(
                f"default {kind}: {cell.params.label()} (recall@10 {cell.recall:.4f}, median "
                f"{cell.median_ms:.2f} ms, p99 {cell.p99_ms:.2f} ms)"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
