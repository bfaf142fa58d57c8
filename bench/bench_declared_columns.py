"""Point SELECTs on a declared internal table: this checkout vs a baseline checkout (a git
revision, default ``HEAD~1`` — pass the commit before the declared column definitions), side by
side in one run.

Each side is a drydock server of its own; each gets the same table (a PRIMARY KEY, a VARCHAR, a
DECIMAL, a DATETIME(3), a TINYINT(1)) and 1,000 rows. A cell is ``SELECT * FROM t WHERE id = n``
round trips from one pymysql connection for ``--seconds`` (rows fetched), in autocommit and
inside an explicit transaction (where table traits are not cached across sessions). Rounds
alternate A B / B A; the median of each side is reported with the ratio this / baseline (1.00x:
no measurable cost). Exit code is 0 whatever the ratio.

On a loaded machine the wire rates swing more than the cost measured, so ``--in-process`` times
only the work a declared column adds per SELECT, against the same result without definitions:
the definition lookup (result_origins.define on a cached TableTraits entry), and the result's
columns, values and definitions (server/results.py to_wire + column_metas). The minimum of the
repeats is reported (the least disturbed run), in microseconds.

    .venv/bin/python bench/bench_declared_columns.py --baseline <commit> [--seconds 2] [--repeats 5]
    .venv/bin/python bench/bench_declared_columns.py --in-process
"""

from __future__ import annotations

import argparse
import datetime as dt
import subprocess
import sys
import tempfile
import time
import timeit
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pymysql

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_wire import HOST, Server, drydock_server  # noqa: E402
from bench.timing import fmt_ratio, interleaved, median, median_ratio  # noqa: E402

TABLE = (
    "CREATE TABLE b.t (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(40) NOT NULL, "
    "price DECIMAL(10,2), made DATETIME(3), flag TINYINT(1) NOT NULL DEFAULT 0)"
)
ROWS = 1000


def _checkout(revision: str, into: Path) -> Path:
    """``revision`` of this repository as plain files (git archive): nothing of a worktree is
    touched."""
    into.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", revision], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def _prepare(server: Server) -> None:
    conn = pymysql.connect(host=HOST, port=server.port, user="root", password="", autocommit=True)
    with conn.cursor() as cur:
        cur.execute("CREATE DATABASE b")
        cur.execute(TABLE)
        values = ", ".join(
            f"('name {i}', {i}.25, '2024-01-01 10:00:00.{i % 1000:03d}', {i % 2})"
            for i in range(ROWS)
        )
        cur.execute(f"INSERT INTO b.t (name, price, made, flag) VALUES {values}")
    conn.close()


def _rate(server: Server, seconds: float, transaction: bool) -> float:
    """Point SELECTs per second over one connection."""
    conn = pymysql.connect(host=HOST, port=server.port, user="root", password="", autocommit=True)
    try:
        with conn.cursor() as cur:
            if transaction:
                cur.execute("BEGIN")
            count = 0
            end = time.perf_counter() + seconds
            while time.perf_counter() < end:
                cur.execute(f"SELECT * FROM b.t WHERE id = {count % ROWS + 1}")
                cur.fetchall()
                count += 1
            if transaction:
                cur.execute("COMMIT")
        return count / seconds
    finally:
        conn.close()


def _per_call_us(fn: Callable[[], object], calls: int = 2000, repeats: int = 7) -> float:
    best = min(timeit.repeat(fn, number=calls, repeat=repeats))
    return best / calls * 1e6


def in_process() -> None:
    """The added per-SELECT work, in microseconds: declared vs the same result undeclared."""
    import duckdb
    import sqlglot

    from drydock.engine.dictionary import declare, store
    from drydock.engine.results import Result
    from drydock.engine.session import INTERNAL, SessionContext
    from drydock.engine.sql import result_origins
    from drydock.engine.sql.table_traits import TableTraits
    from drydock.server.results import column_metas, to_wire

    db = duckdb.connect()
    db.execute(f"ATTACH ':memory:' AS {INTERNAL}")
    store.ensure(db)
    db.execute(f"CREATE SCHEMA {INTERNAL}.b")
    create = sqlglot.parse_one(TABLE, read="mysql")
    assert isinstance(create, sqlglot.exp.Create)
    db.execute(store.save_sql(declare.table_def(create, "b")))
    db.execute(
        f"CREATE TABLE {INTERNAL}.b.t (id INTEGER PRIMARY KEY, name VARCHAR NOT NULL, "
        "price DECIMAL(10,2), made TIMESTAMP, flag TINYINT NOT NULL)"
    )
    traits = TableTraits()
    ctx = SessionContext(user="root", host="localhost", connection_id=1, database="b")
    select = sqlglot.parse_one("SELECT * FROM t WHERE id = 7", read="mysql")
    planned = result_origins.plan(select, ctx)
    table = select.find(sqlglot.exp.Table)
    assert table is not None
    table.set("catalog", sqlglot.exp.to_identifier(INTERNAL))  # as binding leaves it
    table.set("db", sqlglot.exp.to_identifier("b"))

    def definition_of(t: sqlglot.exp.Table) -> Any:
        return traits.get(db, t.text("db"), t.name).definition

    cursor = db.execute(f"SELECT * FROM {INTERNAL}.b.t WHERE 1 = 0")
    columns = [d[0] for d in cursor.description]
    types = {d[0]: str(d[1]) for d in cursor.description}
    row = (7, "name 7", Decimal("7.25"), dt.datetime(2024, 1, 1, 10, 0, 0, 7000), 1)

    def answer(origins: Any) -> None:
        result = Result(columns=list(columns), column_types=dict(types), rows=[row])
        result_origins.attach(result, origins)
        column_metas(to_wire(result), result)

    declared = result_origins.define(planned, definition_of)
    undeclared = result_origins.define(planned, lambda t: None)
    lookup = _per_call_us(lambda: result_origins.define(planned, definition_of))
    with_defs = _per_call_us(lambda: answer(declared))
    without = _per_call_us(lambda: answer(undeclared))
    print("per point SELECT (1 row, 5 columns), microseconds, best of 7:")
    print(f"  definition lookup (cached traits)      {lookup:6.1f}")
    print(f"  result columns + values, declared      {with_defs:6.1f}")
    print(f"  result columns + values, undeclared    {without:6.1f}   (baseline)")
    print(f"  added by declared columns              {lookup + with_defs - without:6.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", default="HEAD~1", help="git revision measured against")
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--in-process", action="store_true", help="time the added work only")
    args = parser.parse_args()
    if args.in_process:
        in_process()
        return
    with tempfile.TemporaryDirectory(prefix="drydock-bench-declared-") as tmp_name:
        tmp = Path(tmp_name)
        base_root = _checkout(args.baseline, tmp / "baseline")
        (tmp / "this").mkdir()
        (tmp / "base").mkdir()
        this = drydock_server(tmp / "this", ROOT).start()
        base = drydock_server(tmp / "base", base_root).start()
        try:
            for server in (this, base):
                _prepare(server)
                _rate(server, 0.5, False)  # warm-up
            print(
                f"point SELECT, 1 connection, {args.seconds:g} s a sample; baseline {args.baseline}"
            )
            for transaction in (False, True):
                samples: dict[str, list[float]] = {"this": [], "base": []}
                sides = [("this", this), ("base", base)]
                for _, order in interleaved(sides, args.repeats):
                    for name, server in order:
                        samples[name].append(_rate(server, args.seconds, transaction))
                label = "in a transaction" if transaction else "autocommit"
                print(
                    f"{label:17} this {median(samples['this']):8,.0f}/s  "
                    f"baseline {median(samples['base']):8,.0f}/s  "
                    f"ratio {fmt_ratio(median_ratio(samples['this'], samples['base']))}"
                )
        finally:
            this.stop()
            base.stop()


if __name__ == "__main__":
    main()
