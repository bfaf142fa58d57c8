"""information_schema.COLUMNS over many internal tables: what answering from the data dictionary
costs.

Baseline: the same 1,000 tables (10 columns each) with no definitions in the dictionary, answered
from DuckDB's own types only (what drydock answered before the dictionary). Drydock: the same
tables with their definitions (engine/dictionary/store.py keeps each table's COLUMNS rows as JSON,
the view unnests them). Runs on the query engine directly (no wire), interleaved rounds; prints
the medians and the ratio drydock / baseline for a whole-catalog and a one-table query.

    python bench/bench_info_schema_columns.py [--tables 1000] [--rounds 15]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.timing import fmt_ratio, interleaved, median, median_ratio, timed  # noqa: E402
from drydock.engine.dictionary import store  # noqa: E402
from drydock.engine.dictionary.model import ColumnDef, KeyDef, KeyPart, TableDef  # noqa: E402
from drydock.engine.sql.query import QueryEngine  # noqa: E402

QUERIES = {
    "all columns": "SELECT count(*), max(column_type) FROM mysql_is.main.columns",
    "one table": (
        "SELECT column_name, column_type, column_key FROM mysql_is.main.columns "
        "WHERE table_schema = '{schema}' AND table_name = 't500' ORDER BY ordinal_position"
    ),
}


def make(path: Path, tables: int, defined: bool) -> QueryEngine:
    engine = QueryEngine(path / "internal.duckdb")
    schema = "defined" if defined else "plain"
    db = engine._db  # noqa: SLF001 — a bench sets up tables without the wire
    db.execute(f'CREATE SCHEMA internal."{schema}"')
    for n in range(tables):
        columns = ", ".join(f"c{i} VARCHAR(40)" for i in range(9))
        db.execute(f'CREATE TABLE internal."{schema}".t{n} (id INT PRIMARY KEY, {columns})')
        if defined:
            definition = TableDef(
                schema=schema,
                name=f"t{n}",
                columns=(
                    ColumnDef("id", "int", nullable=False),
                    *(ColumnDef(f"c{i}", "varchar", length=40) for i in range(9)),
                ),
                keys=(KeyDef("PRIMARY", "PRIMARY", (KeyPart("id"),)),),
            )
            db.execute(store.save_sql(definition))
    return engine


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as base, tempfile.TemporaryDirectory() as dictionary:
        sides = {
            "baseline": (make(Path(base), args.tables, False), "plain"),
            "drydock": (make(Path(dictionary), args.tables, True), "defined"),
        }
        for label, template in QUERIES.items():
            samples: dict[str, list[float]] = {"baseline": [], "drydock": []}
            for _, order in interleaved(list(sides), args.rounds):
                for side in order:
                    engine, schema = sides[side]
                    sql = template.format(schema=schema)
                    seconds, _ = timed(lambda e=engine, q=sql: e.fetch(q))  # type: ignore[misc]
                    samples[side].append(seconds)
            ratio = median_ratio(samples["drydock"], samples["baseline"])
            print(
                f"{label:12} baseline {median(samples['baseline']) * 1000:7.1f} ms  "
                f"drydock {median(samples['drydock']) * 1000:7.1f} ms  {fmt_ratio(ratio)}"
            )


if __name__ == "__main__":
    main()
