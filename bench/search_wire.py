"""The query kinds of bench/bench_search.py: each one's SQL over the wire and its pylance twin.

A ``Kind`` holds both sides of one kind of query; ``wire(cur, i)`` and ``local(i)`` run query
``i`` and return ``(seconds, ids)``. A server error becomes ``WireFailed`` with the MySQL code and
message, so that the bench reports the kind as failing instead of stopping with a traceback.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pymysql

from bench import search_data as data
from bench.search_pylance import Params, fulltext, search

# The defaults chosen with bench/bench_search_grid.py (bench/README.md), per index type: PQ codes
# need re-ranking, SQ8 distances hardly do. Used for pylance when the server does not report its
# own values (SHOW VARIABLES), so the bench still runs against a server without them.
CHOSEN = {
    "IVF_PQ": {"ivf_nprobe": 8, "vector_refine_factor": 10, "hnsw_ef_search": 20},
    "IVF_HNSW_SQ": {"ivf_nprobe": 8, "vector_refine_factor": 0, "hnsw_ef_search": 20},
}
VARIABLES = ("ivf_nprobe", "vector_refine_factor", "hnsw_ef_search")


class WireFailed(Exception):
    """A query the server answered with an error (or a connection failure)."""


@dataclass
class Kind:
    label: str
    describe: str
    truth: str | None  # key of the exact answers ("plain", "filtered"); None: compare to pylance
    filtered: bool
    sql: Callable[[int], str]
    local_ids: Callable[[int], list[int]]

    def wire(self, cur: pymysql.cursors.Cursor, i: int) -> tuple[float, list[int]]:
        sql = self.sql(i)
        start = time.perf_counter()
        try:
            cur.execute(sql)
            rows = cur.fetchall()
        except pymysql.MySQLError as exc:
            raise WireFailed(f"{exc.args[0] if exc.args else ''} {exc.args[1:] or exc!r}") from exc
        took = time.perf_counter() - start
        return took, [int(r[0]) for r in rows]

    def local(self, i: int) -> tuple[float, list[int]]:
        start = time.perf_counter()
        ids = self.local_ids(i)
        return time.perf_counter() - start, ids


def vector_literal(q: np.ndarray) -> str:
    """``'[0.1234,-0.5,…]'``: the query vector as the SQL string literal (4 decimals; the queries
    are rounded to 4 decimals first, so both sides search the same float32 vector)."""
    return "'[" + ",".join(f"{x:.4f}" for x in q.tolist()) + "]'"


def defaults_from_server(cur: pymysql.cursors.Cursor) -> dict[str, dict[str, int]]:
    """Per index type, the search variables pylance gets: the server's session values where it
    reports them (the same for both types), CHOSEN for the others."""
    values = {kind: dict(chosen) for kind, chosen in CHOSEN.items()}
    for name in VARIABLES:
        try:
            cur.execute(f"SHOW VARIABLES LIKE '{name}'")
            row = cur.fetchone()
        except pymysql.MySQLError as exc:
            row, why = None, f"SHOW VARIABLES failed: {exc.args[1] if len(exc.args) > 1 else exc}"
        else:
            why = "not reported by the server"
        if row is not None and str(row[1]).strip().isdigit():
            for chosen in values.values():
                chosen[name] = int(row[1])
            print(f"server default {name} = {row[1]}")
        else:
            per_kind = ", ".join(f"{kind} {v[name]}" for kind, v in values.items())
            print(f"server default {name}: {why}; pylance uses the chosen {per_kind}")
    return values


def _params(values: dict[str, int], hnsw: bool) -> Params:
    ef = values["hnsw_ef_search"] if hnsw else None
    return Params(values["ivf_nprobe"], values["vector_refine_factor"], ef)


def kinds(
    dataset: data.Dataset, qs: np.ndarray, cats: np.ndarray, values: dict[str, dict[str, int]]
) -> list[Kind]:
    pq, hnsw, docs = (dataset.open(t) for t in data.TABLES)
    words = data.fulltext_words(len(qs))
    pq_params = _params(values["IVF_PQ"], False)
    hnsw_params = _params(values["IVF_HNSW_SQ"], True)
    out: list[Kind] = []
    for label, table, ds, params in (
        ("IVF_PQ top-10", "vec_pq", pq, pq_params),
        ("IVF_HNSW_SQ top-10", "vec_hnsw", hnsw, hnsw_params),
    ):
        out.append(
            Kind(
                label,
                f"lc.bench.{table}, {params.label()}",
                "plain",
                False,
                lambda i, t=table: (
                    f"SELECT id FROM lc.bench.{t} ORDER BY "
                    f"l2_distance_approximate(emb, {vector_literal(qs[i])}) LIMIT {data.K}"
                ),
                lambda i, ds=ds, p=params: search(ds, qs[i], p),
            )
        )
    out.append(
        Kind(
            "filtered 1% (IVF_PQ)",
            f"lc.bench.vec_pq WHERE category = c, prefilter, {pq_params.label()}",
            "filtered",
            True,
            lambda i: (
                f"SELECT id FROM lc.bench.vec_pq WHERE category = {int(cats[i])} ORDER BY "
                f"l2_distance_approximate(emb, {vector_literal(qs[i])}) LIMIT {data.K}"
            ),
            lambda i: search(pq, qs[i], pq_params, category=int(cats[i])),
        )
    )
    out.append(
        Kind(
            "full text",
            "lc.bench.docs MATCH_ANY one word, BM25 top 10",
            None,
            False,
            lambda i: (
                f"SELECT id, MATCH(body) AGAINST ('{words[i]}') AS score FROM lc.bench.docs "
                f"WHERE body MATCH_ANY '{words[i]}' ORDER BY score DESC LIMIT {data.K}"
            ),
            lambda i: fulltext(docs, words[i]),
        )
    )
    return out
