"""Search with drydock's SQL over the wire vs pylance in-process, on the same indexes.

The dataset is bench/search_data.py's (default 1M x FLOAT[128] Gaussian mixture, 100 categories,
8-word bodies; built once with pylance ``create_index`` and cached under ``--cache``, default
``$DRYDOCK_SEARCH_BENCH_CACHE`` or ``<tmp>/drydock-search-bench``). One drydock server gets a Lance
catalog ``lc`` over it; the tables are ``lc.bench.vec_pq`` (IVF_PQ on ``emb``),
``lc.bench.vec_hnsw`` (IVF_HNSW_SQ on ``emb``; two tables because Lance keeps one vector index
per column) and ``lc.bench.docs`` (INVERTED on ``body``). Query kinds, each ``--queries`` queries
sent one at a time, each query timed on both sides back to back (the side going first
alternates):

- ``IVF_PQ top-10`` / ``IVF_HNSW_SQ top-10``:
  ``SELECT id FROM … ORDER BY l2_distance_approximate(emb, '[…]') LIMIT 10`` at the server's
  default ``ivf_nprobe`` / ``vector_refine_factor`` / ``hnsw_ef_search`` (read with SHOW
  VARIABLES), and pylance ``nearest=`` with the same values;
- ``filtered 1%``: the same plus ``WHERE category = c`` (one of 100 values), pylance with
  ``prefilter=True``; recall against the exact top 10 of that category, rows returned;
- ``full text``: ``SELECT id, MATCH(body) AGAINST ('w') AS score … WHERE body MATCH_ANY 'w'
  ORDER BY score DESC LIMIT 10``, pylance ``full_text_query``; agreement = shared ids.

Goals, each printed as met / NOT met: recall@10 >= 0.95 (vs exact numpy brute force); median
latency over the wire <= 1.3x pylance (vector kinds and full text); filtered search returns k
rows; server RSS growth over the run bounded (below 64 MB + half the raw vector bytes: a server
that copied the vector column would exceed it; the index caches of both indexes fit).
Throughput: qps at 1 and 8 connections (client processes, or threads with ``--clients thread``),
pylance at 1 and 8 threads for reading. A query kind the server cannot answer yet is reported
with its first error (its pylance numbers still print) and the next kind runs.

    .venv/bin/python bench/bench_search.py [--rows 1000000] [--queries 1000] [--cache DIR]
    .venv/bin/python bench/bench_search.py --rows 20000 --queries 50 --seconds 1   # smoke test
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import lance
import numpy as np
import pymysql

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench import search_data as data  # noqa: E402
from bench.bench_wire import HOST, Server, drydock_server  # noqa: E402
from bench.search_throughput import pylance_qps, wire_qps  # noqa: E402
from bench.search_wire import Kind, WireFailed, defaults_from_server, kinds  # noqa: E402
from bench.timing import fmt_ratio, median, percentile, rss_bytes  # noqa: E402

BASELINE = "pylance in-process"
RECALL_GOAL = 0.95
RATIO_GOAL = 1.3
CACHE_ENV = "DRYDOCK_SEARCH_BENCH_CACHE"
RSS_SLACK = 64 * 2**20  # caches that do not grow with the table (plans, sessions, buffers)


@dataclass
class Outcome:
    kind: Kind
    wire: list[float] = field(default_factory=list)  # seconds per query
    local: list[float] = field(default_factory=list)
    wire_ids: list[list[int]] = field(default_factory=list)
    local_ids: list[list[int]] = field(default_factory=list)
    error: str = ""
    qps: dict[str, float] = field(default_factory=dict)


def measure(kind: Kind, cur: pymysql.cursors.Cursor, n: int) -> Outcome:
    out = Outcome(kind)
    for i in range(n):
        sides = [(lambda i=i: kind.local(i), out.local, out.local_ids)]
        if not out.error:  # after the first server error only pylance runs (its numbers print)
            sides.append((lambda i=i: kind.wire(cur, i), out.wire, out.wire_ids))
        for fn, seconds, ids in sides if i % 2 == 0 else sides[::-1]:
            try:
                took, found = fn()
            except WireFailed as exc:
                out.error = f"query {i}: {exc}"
                continue
            seconds.append(took)
            ids.append(found)
    return out


def ms(samples: list[float], fraction: float | None = None) -> float:
    return (median(samples) if fraction is None else percentile(samples, fraction)) * 1000


def verdict(goal: str, met: bool, detail: str) -> str:
    return f"goal {goal}: {'met' if met else 'NOT met'} ({detail})"


def report(
    outcomes: list[Outcome], truth: dict[str, np.ndarray], rss: tuple[int, int], args
) -> None:
    print(
        f"\nbaseline: {BASELINE} (pylance {lance.__version__}), same parameters; "
        f"{args.rows:,} rows, {args.queries} queries per kind, {os.cpu_count()} CPUs"
    )
    head = (
        f"{'query kind':<22} {'recall wire':>11} {'recall pyl':>10} {'wire ms':>8} "
        f"{'p99':>7} {'pyl ms':>7} {'p99':>7} {'ratio':>6}  qps 1/8 conns (pylance 1/8 threads)"
    )
    print(head + "\n" + "-" * len(head))
    verdicts: list[str] = []
    for o in outcomes:
        k = o.kind
        if o.error and not o.wire:
            rl = data.recall(o.local_ids, truth[k.truth]) if k.truth else None
            print(
                f"{k.label:<22} {'-':>11} {'' if rl is None else f'{rl:.4f}':>10} {'-':>8} "
                f"{'-':>7} {ms(o.local):>7.2f} {ms(o.local, 0.99):>7.2f}  over the wire: FAILED"
            )
            print(f"{'':<22} {o.error}")
            verdicts.append(verdict(f"{k.label} answered over the wire", False, o.error[:120]))
            continue
        rw = data.recall(o.wire_ids, truth[k.truth][: len(o.wire_ids)]) if k.truth else None
        rl = data.recall(o.local_ids, truth[k.truth][: len(o.local_ids)]) if k.truth else None
        if not k.truth:  # full text: agreement with pylance's top 10 instead of recall
            rw = data.recall(o.wire_ids, np.array(o.local_ids[: len(o.wire_ids)], dtype=object))
        ratio = median(o.wire) / median(o.local)
        qps = " / ".join(f"{o.qps.get(c, float('nan')):,.0f}" for c in ("w1", "w8"))
        qps += " (" + " / ".join(f"{o.qps.get(c, float('nan')):,.0f}" for c in ("l1", "l8")) + ")"
        print(
            f"{k.label:<22} {rw:>11.4f} {'' if rl is None else f'{rl:.4f}':>10} "
            f"{ms(o.wire):>8.2f} {ms(o.wire, 0.99):>7.2f} {ms(o.local):>7.2f} "
            f"{ms(o.local, 0.99):>7.2f} {fmt_ratio(ratio, 6)}  {qps}"
        )
        if o.error:
            print(f"{'':<22} stopped early: {o.error}")
        if k.truth:
            verdicts.append(
                verdict(
                    f"{k.label} recall@10 >= {RECALL_GOAL}",
                    rw >= RECALL_GOAL,
                    f"wire {rw:.4f}, pylance {rl:.4f}",
                )
            )
        else:
            print(f"{'':<22} (full text: 'recall' = share of pylance's top-10 ids returned)")
        verdicts.append(
            verdict(
                f"{k.label} wire <= {RATIO_GOAL}x {BASELINE}",
                ratio <= RATIO_GOAL,
                f"median ratio {fmt_ratio(ratio)}",
            )
        )
        if k.filtered:
            sizes = [len(ids) for ids in o.wire_ids]
            full = sum(1 for s in sizes if s == data.K)
            verdicts.append(
                verdict(
                    f"{k.label} returns k={data.K} rows",
                    full == len(sizes),
                    f"{full}/{len(sizes)} queries, min {min(sizes)} rows",
                )
            )
    before, after = rss
    raw = args.rows * data.DIM * 4
    bound = RSS_SLACK + raw // 2
    print(
        f"\nserver RSS: {before / 2**20:,.0f} MB before, {after / 2**20:,.0f} MB after "
        f"(growth {(after - before) / 2**20:,.0f} MB; raw vectors {raw / 2**20:,.0f} MB)"
    )
    verdicts.append(
        verdict(
            f"server RSS growth bounded (< {RSS_SLACK // 2**20} MB + half the raw vector bytes)",
            after - before < bound,
            f"{(after - before) / 2**20:,.0f} MB",
        )
    )
    print("\n" + "\n".join(verdicts))


def run(args: argparse.Namespace) -> None:
    dataset = data.load_or_build(args.cache, data.Spec(args.rows))
    print(
        "indexes built with pylance create_index, not drydock's CREATE INDEX ... USING ANN job "
        "(which accepts both types); build times, cached with the dataset: "
        + ", ".join(f"{label} {s:.1f}s" for label, s in dataset.build_seconds.items())
    )
    qs = data.queries(dataset.spec, args.queries)
    cats = data.query_categories(args.queries)
    truth = {
        "plain": data.exact_top_k(dataset, qs),
        "filtered": data.exact_top_k(dataset, qs, cats),
    }
    with tempfile.TemporaryDirectory(prefix="drydock-bench-search-") as tmp:
        server: Server = drydock_server(Path(tmp), ROOT)
        server.start()
        try:
            conn = pymysql.connect(
                host=HOST,
                port=server.port,
                user="root",
                password="",
                autocommit=True,
                connect_timeout=10,
                read_timeout=300,
            )
            with conn.cursor() as cur:
                cur.execute(
                    f"CREATE CATALOG lc PROPERTIES ('type' = 'lance', 'warehouse' = "
                    f"'{dataset.warehouse}', 'meta.cache.ttl-second' = '3600')"
                )
                assert server.proc is not None
                rss_before = rss_bytes(server.proc.pid)
                defaults = defaults_from_server(cur)
                outcomes = []
                for kind in kinds(dataset, qs, cats, defaults):
                    print(f"{kind.label}: {kind.describe}", flush=True)
                    outcome = measure(kind, cur, args.queries)
                    if outcome.wire and not outcome.error and args.seconds > 0:
                        sqls = [kind.sql(i) for i in range(args.queries)]
                        try:
                            for conns in (1, 8):
                                outcome.qps[f"w{conns}"] = wire_qps(
                                    server.port, sqls, conns, args.seconds, args.clients
                                )
                                outcome.qps[f"l{conns}"] = pylance_qps(
                                    kind.local, args.queries, conns, args.seconds
                                )
                        except RuntimeError as exc:
                            outcome.error = f"throughput: {exc}"
                    outcomes.append(outcome)
                rss_after = rss_bytes(server.proc.pid)
            conn.close()
        finally:
            server.stop()
    report(outcomes, truth, (rss_before, rss_after), args)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=f"search over the wire vs {BASELINE}")
    p.add_argument("--rows", type=int, default=1_000_000, help="rows (default 1000000)")
    p.add_argument("--queries", type=int, default=1_000, help="queries per kind (default 1000)")
    p.add_argument(
        "--seconds",
        type=float,
        default=5.0,
        help="window per throughput measurement; 0 skips throughput (default 5)",
    )
    p.add_argument(
        "--clients",
        choices=("process", "thread"),
        default="process",
        help="8-connection clients as processes (default) or threads",
    )
    p.add_argument(
        "--cache",
        type=Path,
        default=Path(
            os.environ.get(CACHE_ENV, Path(tempfile.gettempdir()) / "drydock-search-bench")
        ),
        help=f"dataset cache directory (default ${CACHE_ENV} or <tmp>/drydock-search-bench)",
    )
    args = p.parse_args(argv)
    if args.rows < 1_000 or args.queries < 1 or args.seconds < 0:
        p.error("--rows must be >= 1000, --queries >= 1, --seconds >= 0")
    return args


def main(argv: list[str] | None = None) -> int:
    run(parse_args(argv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
