"""The indexes of a Lance dataset version as a search chooses among them: which column, what
kind, which metric (vector) and whether positions are kept (full text, for phrases).

Reading an index's statistics costs milliseconds, so the answer is kept per dataset version
(a version's indexes never change); a REFRESH or a new commit is a new version.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from drydock.engine.support.lru import Lru

VECTOR = "vector"
INVERTED = "inverted"
SCALAR = "scalar"

# Lance's metric names → the one drydock's functions use (l2_distance_approximate: "l2",
# inner_product_approximate: "dot").
_METRICS = {"l2": "l2", "euclidean": "l2", "dot": "dot", "cosine": "cosine", "hamming": "hamming"}
_CACHED_VERSIONS = 256


@dataclass(frozen=True)
class IndexInfo:
    name: str
    column: str
    kind: str  # VECTOR | INVERTED | SCALAR
    index_type: str  # IVF_PQ, IVF_HNSW_SQ, Inverted, BTree, …
    metric: str = ""  # vector indexes: "l2" | "dot" | "cosine" | …
    with_position: bool = False  # inverted indexes: phrase queries need positions


_lock = threading.Lock()
_cache: Lru[tuple[str, int], tuple[IndexInfo, ...]] = Lru(_CACHED_VERSIONS)


def indexes_of(dataset: Any) -> tuple[IndexInfo, ...]:
    """The indexes of ``dataset`` (a LanceDataset at one version)."""
    key = (str(dataset.uri), int(dataset.version))
    with _lock:
        hit = _cache.get(key)
    if hit is not None:
        return hit
    found = tuple(_describe(dataset, d) for d in dataset.describe_indices())
    with _lock:
        _cache.put(key, found)
    return found


def _describe(dataset: Any, description: Any) -> IndexInfo:
    name = str(description.name)
    column = ",".join(description.field_names)
    url = str(description.type_url)
    if "Vector" in url:
        stats = dataset.stats.index_stats(name)
        details = (stats.get("indices") or [{}])[0]
        metric = str(details.get("metric_type", "")).lower()
        return IndexInfo(
            name, column, VECTOR, str(stats.get("index_type", "")), _METRICS.get(metric, metric)
        )
    if "Inverted" in url:
        stats = dataset.stats.index_stats(name)
        segments = stats.get("segments") or stats.get("indices") or [{}]
        params = segments[0].get("params") or {}
        return IndexInfo(
            name, column, INVERTED, "INVERTED", with_position=bool(params.get("with_position"))
        )
    kind = url.rsplit(".", 1)[-1].removesuffix("IndexDetails").upper()
    return IndexInfo(name, column, SCALAR, kind)


def vector_index(indexes: tuple[IndexInfo, ...], column: str, metric: str) -> IndexInfo | None:
    return next(
        (i for i in indexes if i.kind == VECTOR and i.column == column and i.metric == metric), None
    )


def vector_indexes(indexes: tuple[IndexInfo, ...], column: str) -> list[IndexInfo]:
    return [i for i in indexes if i.kind == VECTOR and i.column == column]


def inverted_index(indexes: tuple[IndexInfo, ...], column: str) -> IndexInfo | None:
    return next((i for i in indexes if i.kind == INVERTED and i.column == column), None)
