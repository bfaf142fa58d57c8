"""The exact vector functions (engine/search/vector_functions.py): drydock's macros against the
bare DuckDB function they wrap, and against a vectorized Python (numpy over Arrow) UDF.

Baseline: ``list_distance(emb, q)`` called directly (no checks). Prints the median seconds of each
form over a FLOAT[dim] table, and the ratio to the baseline. Run:
``.venv/bin/python bench/bench_vector_functions.py [rows] [dim]``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa

from drydock.engine.search import vector_functions
from drydock.grammar import sql

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.timing import fmt_ratio, median  # noqa: E402


def _udf_l2(a: pa.Array, b: pa.Array) -> pa.Array:
    dim = len(a[0]) if len(a) else 0
    left = np.asarray(pa.compute.list_flatten(a), dtype=np.float64).reshape(-1, dim)
    right = np.asarray(pa.compute.list_flatten(b), dtype=np.float64).reshape(-1, dim)
    return pa.array(np.sqrt(((left - right) ** 2).sum(axis=1)))


def _drydock(mysql: str) -> str:
    """The DuckDB SQL drydock runs for ``mysql`` (the calls pointed at the macros)."""
    return vector_functions.qualify(sql.parse(mysql)).sql(dialect="duckdb")


def _median(con: duckdb.DuckDBPyConnection, sql: str, runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        con.execute(sql).fetchall()
        times.append(time.perf_counter() - start)
    return median(times)


def main(rows: int = 200_000, dim: int = 128) -> None:
    con = duckdb.connect()
    con.execute("ATTACH ':memory:' AS mysql_is")
    vector_functions.install(con)
    con.create_function(
        "udf_l2",
        _udf_l2,
        ["DOUBLE[]", "DOUBLE[]"],
        "DOUBLE",
        type="arrow",
    )
    values = np.random.default_rng(0).random((rows, dim), dtype=np.float32)
    table = pa.table({"emb": pa.FixedSizeListArray.from_arrays(pa.array(values.reshape(-1)), dim)})
    con.register("vt", table)
    q = "[" + ",".join(str(x) for x in np.random.default_rng(1).random(dim)) + "]"
    forms = {
        "list_distance (baseline)": f"SELECT sum(list_distance(emb, {q}::FLOAT[])) FROM vt",
        "l2_distance, array literal": _drydock(f"SELECT sum(l2_distance(emb, {q})) FROM vt"),
        "l2_distance, string": _drydock(f"SELECT sum(l2_distance(emb, '{q}')) FROM vt"),
        "cosine_distance, array": _drydock(f"SELECT sum(cosine_distance(emb, {q})) FROM vt"),
        "inner_product, array": _drydock(f"SELECT sum(inner_product(emb, {q})) FROM vt"),
        "l1_distance (lambda)": _drydock(f"SELECT sum(l1_distance(emb, {q})) FROM vt"),
        "python arrow udf (l2)": f"SELECT sum(udf_l2(emb::DOUBLE[], {q}::DOUBLE[])) FROM vt",
    }
    base = None
    print(f"{rows} rows x FLOAT[{dim}]")
    for name, text in forms.items():
        seconds = _median(con, text)
        base = base or seconds
        print(f"{name:28s} {seconds:8.4f} s  {fmt_ratio(seconds / base)} of list_distance")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
