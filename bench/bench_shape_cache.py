"""The generated-text cache per statement shape (engine/sql/text_cache.py), in process.

Baseline: the same engine with the cache off (``TextCache.enabled = False``: every execution
copies, binds, resolves, authorizes, adapts and generates its DuckDB text). Drydock: the cache on
(an execution fills the shape's template with its literals). Both sides run in one process on
one engine and session, in interleaved rounds (A B, B A, …), each round a batch of statements
with a different literal each time (``server.session.parse`` + ``execute``, the wire excluded).
Prints the median µs per statement of each side and the ratio cache-on / cache-off (lower is
better) for a PK point lookup, a 10-row range scan and a string-keyed lookup.

    python bench/bench_shape_cache.py [--rows 10000] [--rounds 10] [--batch 300]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.timing import fmt_ratio, interleaved, median, median_ratio, timed  # noqa: E402
from drydock.engine.core import Engine  # noqa: E402
from drydock.engine.session import SessionContext  # noqa: E402
from drydock.engine.statements import execute  # noqa: E402
from drydock.server.session import parse  # noqa: E402

QUERIES = {
    "PK point lookup": "SELECT id, k, c, pad FROM t WHERE id = {n}",
    "10-row range scan": "SELECT id, k FROM t WHERE id BETWEEN {n} AND {n} + 9",
    "string lookup": "SELECT id FROM t WHERE c = '{s}'",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--batch", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        engine = Engine(Path(tmp) / "data")
        ctx = SessionContext(
            user="root", host="127.0.0.1", connection_id=1, query=engine.query_session()
        )

        def run(sql: str) -> object:
            return execute(engine, parse(sql), ctx, sql).rows

        run("CREATE DATABASE b")
        run("USE b")
        run("CREATE TABLE t (id INT PRIMARY KEY, k INT, c VARCHAR(20), pad VARCHAR(60))")
        run(
            "INSERT INTO t SELECT i, i % 97, REPEAT('a', 1 + i % 7), repeat('x', 60) "
            f"FROM (SELECT range AS i FROM range(1, {args.rows + 1})) r"
        )
        words = ["a" * (1 + i % 7) for i in range(args.batch)]
        texts = {
            name: [
                q.format(n=100 + (i * 37) % (args.rows - 200), s=words[i])
                for i in range(args.batch)
            ]
            for name, q in QUERIES.items()
        }
        cache = engine.query.texts
        on_answers = off_answers = None
        print(f"{args.rows:,} rows, {args.rounds} interleaved rounds of {args.batch} statements")
        print(f"{'query':<20} {'cache off µs':>13} {'cache on µs':>12} {'on/off':>7}")
        for name, batch in texts.items():
            samples: dict[bool, list[float]] = {False: [], True: []}
            for _, sides in interleaved([False, True], args.rounds + 1):
                for enabled in sides:
                    cache.enabled = enabled
                    seconds, answers = timed(lambda b=batch: [run(sql) for sql in b])  # type: ignore[misc]
                    samples[enabled].append(seconds / len(batch) * 1e6)
                    if enabled:
                        on_answers = answers
                    else:
                        off_answers = answers
            if on_answers != off_answers:
                raise SystemExit(f"{name}: the answers differ with the cache on and off")
            off, on = samples[False][1:], samples[True][1:]  # the first round warms both
            print(
                f"{name:<20} {median(off):>13,.0f} {median(on):>12,.0f} "
                f"{fmt_ratio(median_ratio(on, off)):>7}"
            )
        engine.close()


if __name__ == "__main__":
    main()
