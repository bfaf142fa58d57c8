"""The in-process side of the search benchmarks: pylance queries with given search parameters.

``Params`` is one setting of drydock's session variables (``ivf_nprobe``,
``vector_refine_factor``, ``hnsw_ef_search``) and the ``nearest=`` dict pylance gets for it:
``nprobes`` (sets both the minimum and the maximum partitions probed, so the count is exact),
``refine_factor`` (omitted when 0: pylance refuses 0), ``ef`` (HNSW only).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import lance
import numpy as np

K = 10


@dataclass(frozen=True)
class Params:
    nprobes: int
    refine_factor: int = 0  # 0 = no re-ranking
    ef: int | None = None  # HNSW only

    def nearest(self, q: np.ndarray, k: int = K) -> dict[str, Any]:
        spec: dict[str, Any] = {"column": "emb", "q": q, "k": k, "nprobes": self.nprobes}
        if self.refine_factor:
            spec["refine_factor"] = self.refine_factor
        if self.ef is not None:
            spec["ef"] = self.hnsw_ef(k)
        return spec

    def hnsw_ef(self, k: int = K) -> int:
        """``ef`` as searched: at least k x refine_factor, since the HNSW search is asked for the
        refine candidates and pylance refuses a smaller ef ("ef must be greater than or equal to
        k"); the server is expected to raise it the same way."""
        assert self.ef is not None
        return max(self.ef, k * max(self.refine_factor, 1))

    def session_sets(self) -> list[str]:
        """The SET statements giving drydock this setting."""
        sets = [
            f"SET ivf_nprobe = {self.nprobes}",
            f"SET vector_refine_factor = {self.refine_factor}",
        ]
        if self.ef is not None:
            sets.append(f"SET hnsw_ef_search = {self.ef}")
        return sets

    def label(self) -> str:
        text = f"nprobes={self.nprobes} refine={self.refine_factor}"
        if self.ef is None:
            return text
        searched = self.hnsw_ef()
        return (
            text + f" ef={self.ef}" + (f" (searched as {searched})" if searched != self.ef else "")
        )


def search(
    ds: lance.LanceDataset,
    q: np.ndarray,
    params: Params,
    *,
    category: int | None = None,
    k: int = K,
) -> list[int]:
    """Ids of the approximate k nearest rows; with ``category``, prefiltered to it."""
    kwargs: dict[str, Any] = {"nearest": params.nearest(q, k), "columns": ["id"]}
    if category is not None:
        kwargs.update(filter=f"category = {category}", prefilter=True)
    return ds.to_table(**kwargs, disable_scoring_autoprojection=True).column("id").to_pylist()


def fulltext(ds: lance.LanceDataset, word: str, k: int = K) -> list[int]:
    """Ids of the k best BM25 matches of ``word`` in ``body``."""
    table = ds.to_table(
        full_text_query={"query": word, "columns": ["body"]},
        columns=["id"],
        limit=k,
        disable_scoring_autoprojection=True,
    )
    return table.column("id").to_pylist()


def run_queries(
    ds: lance.LanceDataset,
    qs: np.ndarray,
    params: Params,
    categories: Sequence[int] | None = None,
) -> tuple[list[list[int]], list[float]]:
    """(ids per query, seconds per query), one query at a time as a client would send them."""
    found: list[list[int]] = []
    seconds: list[float] = []
    for i, q in enumerate(qs):
        category = None if categories is None else int(categories[i])
        start = time.perf_counter()
        found.append(search(ds, q, params, category=category))
        seconds.append(time.perf_counter() - start)
    return found, seconds
