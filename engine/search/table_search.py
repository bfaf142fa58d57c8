"""One search of one Lance table reference, as pylance runs it, and what DuckDB scans instead of
the table: the rows found (the k nearest, or the full-text matches with their BM25 score).

Distances are not taken from Lance: the statement keeps its distance function, and DuckDB
computes it exactly on the rows found, so a selected distance equals the exact function's value
(Lance's own l2 ``_distance`` is squared, and approximate when the index quantizes).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa

from drydock.engine.lakehouse.catalogs.lance_types import widened_table
from drydock.engine.search.full_text import TextQuery
from drydock.engine.search.indexes import IndexInfo

SCORE = "_score"
DISTANCE = "_distance"


@dataclass(frozen=True)
class SearchSettings:
    """The session's search parameters (SHOW VARIABLES): IVF partitions probed, the refine
    factor (re-rank refine × k candidates with exact distances; 0: off), HNSW's ef, and the
    largest k an approximate search may ask for."""

    nprobe: int
    refine_factor: int
    ef: int
    max_k: int


@dataclass(frozen=True)
class VectorQuery:
    column: str
    vector: np.ndarray
    metric: str  # the index's: "l2" | "dot"
    k: int
    index: IndexInfo
    written: tuple[float, ...] = ()  # the query vector as written (float64): exact distances
    distance_column: str | None = None  # where the distance of a found row goes
    # the statement shows or compares the distance: it must be the exact function's value (the
    # vectors are read to compute it); otherwise it only orders the rows found, and Lance's own
    # distance (which reading no vectors saves ~1 ms per search) orders them alike
    exact: bool = True


# The exact distance of each found row, computed by DuckDB as the exact functions compute it (the
# same function over the same DOUBLE[] values gives the same bits), in a statement whose text
# never changes: the query vector is a parameter. An in-memory database of its own, reading only
# the table registered on its cursor.
_EXACT_SQL = {
    "l2": "SELECT list_distance(CAST(v AS DOUBLE[]), CAST($q AS DOUBLE[])) FROM found",
    "dot": "SELECT list_inner_product(CAST(v AS DOUBLE[]), CAST($q AS DOUBLE[])) FROM found",
}
_exact_db = duckdb.connect(config={"enable_external_access": False})
_exact_lock = threading.Lock()


def _ordering_distance(lance_distance: pa.ChunkedArray, metric: str) -> pa.Array:
    """A value ordered as the function orders the rows, from Lance's distance (squared l2;
    1 - inner product)."""
    values = lance_distance.to_numpy().astype(np.float64)
    return pa.array(np.sqrt(np.maximum(values, 0.0)) if metric == "l2" else 1.0 - values)


def exact_distances(vectors: pa.Array, metric: str, query: tuple[float, ...]) -> pa.Array:
    with _exact_lock:
        cursor = _exact_db.cursor()
    try:
        cursor.register("found", pa.table({"v": vectors}))
        rows = cursor.execute(_EXACT_SQL[metric], {"q": list(query)}).fetchall()
    finally:
        cursor.close()
    return pa.array([r[0] for r in rows], pa.float64())


@dataclass
class TableSearch:
    table: str  # as shown: catalog.db.table
    dataset: Any  # a LanceDataset at the statement's pinned version
    settings: SearchSettings
    columns: list[str] | None = None  # None: every column
    filter: str | None = None  # Lance filter text, applied before the search (prefilter)
    vector: VectorQuery | None = None
    text: TextQuery | None = None
    text_index: IndexInfo | None = None
    limit: int | None = None  # full text: the best `limit` matches (None: every match)
    score_column: str | None = None  # full text: the BM25 score's column name for DuckDB
    notes: list[str] = field(default_factory=list)

    def ef(self) -> int:
        """HNSW's ef: pylance refuses one below k × refine factor (it keeps that many)."""
        k = self.vector.k if self.vector is not None else 1
        return max(self.settings.ef, k * max(self.settings.refine_factor, 1))

    def scanner_arguments(self) -> dict[str, Any]:
        arguments: dict[str, Any] = {"columns": self.columns}
        if self.filter is not None:
            arguments["filter"] = self.filter
            arguments["prefilter"] = True
        if self.vector is not None:
            v = self.vector
            nearest: dict[str, Any] = {
                "column": v.column,
                "q": v.vector,
                "k": v.k,
                "metric": v.metric,
                "use_index": True,
                # at least nprobe partitions; more while fewer than k rows were found (a selective
                # prefilter), so k rows come back whenever k rows match
                "minimum_nprobes": self.settings.nprobe,
                "ef": self.ef(),
            }
            if self.settings.refine_factor > 0:
                nearest["refine_factor"] = self.settings.refine_factor
            arguments["nearest"] = nearest
        if self.text is not None:
            arguments["full_text_query"] = self.text.lance_query()
            arguments["disable_scoring_autoprojection"] = True
            if self.score_column is not None:
                names = self.columns or [f.name for f in self.dataset.schema]
                arguments["columns"] = [*names, SCORE]
            if self.limit is not None:
                arguments["limit"] = self.limit
        return arguments

    def run(self) -> pa.Table:
        """The rows found, with the table's columns (half floats widened for DuckDB), for a
        vector search the exact distance under its ``distance_column`` and for a full-text
        search the score under :attr:`score_column`."""
        arguments = self.scanner_arguments()
        v = self.vector
        extra = v is not None and v.exact and self.columns is not None
        extra = extra and v is not None and v.column not in (self.columns or ())
        if extra and v is not None:
            arguments["columns"] = [*arguments["columns"], v.column]
        found = self.dataset.to_table(**arguments)
        ordering = found.column(DISTANCE) if DISTANCE in found.column_names else None
        if ordering is not None:
            found = found.drop_columns([DISTANCE])
        if v is not None and v.distance_column is not None:
            if v.exact or ordering is None:
                distances = exact_distances(found.column(v.column), v.metric, v.written)
            else:
                distances = _ordering_distance(ordering, v.metric)
            if extra:
                found = found.drop_columns([v.column])
            found = found.append_column(v.distance_column, distances)
        if SCORE in found.column_names:
            scores = found.column(SCORE).cast(pa.float64())
            found = found.drop_columns([SCORE])
            if self.score_column is not None:
                found = found.append_column(self.score_column, scores)
        return widened_table(found)

    def empty(self) -> pa.Table:
        """No rows, with the columns :meth:`run` gives (EXPLAIN binds the statement to it)."""
        schema = self.dataset.schema
        names = self.columns if self.columns is not None else schema.names
        fields = [schema.field(n) for n in names]
        if self.score_column is not None:
            fields.append(pa.field(self.score_column, pa.float64()))
        if self.vector is not None and self.vector.distance_column is not None:
            fields.append(pa.field(self.vector.distance_column, pa.float64()))
        return widened_table(pa.schema(fields).empty_table())

    def plan_text(self) -> str:
        """Lance's own plan of this search (EXPLAIN)."""
        return str(self.dataset.scanner(**self.scanner_arguments()).explain_plan()).rstrip()

    def summary(self) -> str:
        """One line for EXPLAIN's Extra: the index, its parameters, the prefilter."""
        parts = []
        if self.vector is not None:
            v = self.vector
            parts.append(f"ANN {v.index.name} ({v.index.index_type}, {v.metric}) k={v.k}")
            if "HNSW" in v.index.index_type.upper():
                parts.append(f"ef={self.ef()}")
            parts.append(f"nprobe={self.settings.nprobe}")
            parts.append(f"refine={self.settings.refine_factor}")
        if self.text is not None and self.text_index is not None:
            parts.append(f"full text {self.text_index.name} ({self.text.shown()})")
            if self.limit is not None:
                parts.append(f"limit={self.limit}")
        if self.filter is not None:
            parts.append(f"prefilter: {self.filter}")
        return "; ".join(parts)
