"""The search benchmarks' dataset: seeded, cached, with its indexes and exact answers.

Rows (``--rows``, default 1M): ``id BIGINT`` (0..n-1), ``category INT`` (100 values, so one
category is a 1% filter), ``emb FLOAT[128]`` drawn from a Gaussian mixture (clustered, with a
low intrinsic dimension like real embeddings: see ``Mixture``), ``body VARCHAR`` (8 words drawn
Zipf-like from a 5,000-word vocabulary, for full-text search). Queries are held-out samples of
the same mixture (another seed), so no query is a row of the table.

Three Lance datasets under ``<cache>/warehouse/bench/``, the same rows in each, because Lance
keeps one vector index per column and the two index types are measured side by side:

- ``vec_pq``: IVF_PQ on ``emb`` (``IVF_PQ_BUILD``), BTREE on ``category``;
- ``vec_hnsw``: IVF_HNSW_SQ on ``emb`` (``IVF_HNSW_SQ_BUILD``), BTREE on ``category``;
- ``docs``: ``id, category, body`` with an INVERTED index on ``body``.

Indexes are built with pylance directly (``create_index``), not through drydock's ``CREATE INDEX
… USING ANN`` job (which accepts both types with the same parameters) — a job per index would add
the job machinery's time to a build this benchmark caches anyway. The cache directory holds a
``manifest.json`` of the parameters; a run whose parameters match reuses it, others rebuild.
Exact answers (numpy brute force, squared L2) are cached next to it as ``truth-*.npy``.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import lance
import numpy as np
import pyarrow as pa

DIM = 128
CATEGORIES = 100
CLUSTERS = 100
LATENT = 16
NOISE = 0.05
VOCABULARY = 5_000
WORDS_PER_ROW = 8
BATCH_ROWS = 100_000
DATA_SEED = 20_240_601
QUERY_SEED = 7_777
K = 10

# Index build parameters (documented in bench/README.md). IVF partitions ≈ sqrt(rows); 16
# sub-vectors = 8 dimensions each, 8 bits (Lance's defaults for 128 dims would be similar).
IVF_PQ_BUILD: dict[str, Any] = {"num_sub_vectors": 16, "num_bits": 8}
IVF_HNSW_SQ_BUILD: dict[str, Any] = {"m": 20, "ef_construction": 150}
TABLES = ("vec_pq", "vec_hnsw", "docs")


def num_partitions(rows: int) -> int:
    """IVF partitions for ``rows``: about sqrt(rows), at least 4, at most 1,024."""
    return int(min(1_024, max(4, round(rows**0.5))))


@dataclass(frozen=True)
class Spec:
    rows: int
    dim: int = DIM
    seed: int = DATA_SEED
    layout: int = 2  # bump when the generator or the index parameters change

    def manifest(self) -> dict[str, Any]:
        return {
            **asdict(self),
            "num_partitions": num_partitions(self.rows),
            "ivf_pq": IVF_PQ_BUILD,
            "ivf_hnsw_sq": IVF_HNSW_SQ_BUILD,
        }


class Mixture:
    """The Gaussian mixture the rows and the queries are drawn from (fixed by ``seed``): each of
    ``CLUSTERS`` clusters is a centre (N(0, 1)) plus a Gaussian on its own random
    ``LATENT``-dimensional subspace plus a little isotropic noise. Real embeddings have a low
    intrinsic dimension; an isotropic 128-dimensional blob would make every neighbour about
    equally far (PQ recall@10 ~0.24 measured), which is not what search sees in practice."""

    def __init__(self, dim: int, seed: int) -> None:
        rng = np.random.default_rng(seed)
        self.centres = rng.standard_normal((CLUSTERS, dim)).astype(np.float32)
        self.bases = (rng.standard_normal((CLUSTERS, dim, LATENT)) / LATENT**0.5).astype(np.float32)
        self.scale = rng.uniform(0.5, 1.0, CLUSTERS).astype(np.float32)

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray:
        which = rng.integers(0, CLUSTERS, n)
        z = rng.standard_normal((n, LATENT), dtype=np.float32) * self.scale[which, None]
        x = self.centres[which] + np.einsum("ndl,nl->nd", self.bases[which], z)
        noise = rng.standard_normal(x.shape, dtype=np.float32) * NOISE
        return (x + noise).astype(np.float32)


def vocabulary() -> list[str]:
    """5,000 pronounceable made-up words (consonant-vowel syllables), the same every run."""
    consonants, vowels = "bdfgklmnprstvz", "aeiou"
    syllables = [c + v for c in consonants for v in vowels]  # 70
    words = [a + b + c for a in syllables for b in syllables for c in syllables[:2]]
    return words[:VOCABULARY]


def _word_probabilities() -> np.ndarray:
    ranks = np.arange(1, VOCABULARY + 1, dtype=np.float64)
    p = 1.0 / ranks**1.05  # Zipf-like, as words in text are
    return p / p.sum()


def batches(spec: Spec) -> Iterator[pa.RecordBatch]:
    mixture = Mixture(spec.dim, spec.seed)
    rng = np.random.default_rng(spec.seed + 1)
    words, p = np.array(vocabulary()), _word_probabilities()
    for start in range(0, spec.rows, BATCH_ROWS):
        n = min(BATCH_ROWS, spec.rows - start)
        vectors = mixture.sample(rng, n)
        picked = words[rng.choice(VOCABULARY, size=(n, WORDS_PER_ROW), p=p)]
        yield pa.record_batch(
            {
                "id": pa.array(np.arange(start, start + n, dtype=np.int64)),
                "category": pa.array(rng.integers(0, CATEGORIES, n, dtype=np.int32)),
                "emb": pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel()), spec.dim),
                "body": pa.array([" ".join(r) for r in picked.tolist()]),
            }
        )


def queries(spec: Spec, count: int) -> np.ndarray:
    """``count`` held-out mixture samples (float32, shape (count, dim)), rounded to 4 decimals so
    that the SQL literal (``f"{x:.4f}"``) carries exactly the vector pylance searches."""
    qs = Mixture(spec.dim, spec.seed).sample(np.random.default_rng(QUERY_SEED), count)
    return np.round(qs, 4).astype(np.float32)


def query_categories(count: int) -> np.ndarray:
    return np.random.default_rng(QUERY_SEED + 1).integers(0, CATEGORIES, count, dtype=np.int32)


def fulltext_words(count: int) -> list[str]:
    """Mid-frequency words (ranks 50..549): each matches ~0.1–1% of the rows."""
    words = vocabulary()
    rng = np.random.default_rng(QUERY_SEED + 2)
    return [words[int(i)] for i in rng.integers(50, 550, count)]


@dataclass
class Dataset:
    root: Path
    spec: Spec
    build_seconds: dict[str, float]

    @property
    def warehouse(self) -> Path:
        return self.root / "warehouse"

    def uri(self, table: str) -> Path:
        return self.warehouse / "bench" / f"{table}.lance"

    def open(self, table: str) -> lance.LanceDataset:
        return lance.dataset(str(self.uri(table)))


def _timed(label: str, seconds: dict[str, float], fn: Callable[[], object]) -> None:
    start = time.perf_counter()
    fn()
    seconds[label] = time.perf_counter() - start
    print(f"  {label}: {seconds[label]:.1f}s", flush=True)


def _build(root: Path, spec: Spec) -> dict[str, float]:
    seconds: dict[str, float] = {}
    base = root / "warehouse" / "bench"
    schema = next(batches(Spec(1, spec.dim, spec.seed))).schema
    parts = num_partitions(spec.rows)

    def write_all() -> None:  # generated once; the other two are copies of it
        reader = pa.RecordBatchReader.from_batches(schema, batches(spec))
        lance.write_dataset(reader, str(base / "vec_pq.lance"))
        shutil.copytree(base / "vec_pq.lance", base / "vec_hnsw.lance")
        text = lance.dataset(str(base / "vec_pq.lance")).scanner(columns=["id", "category", "body"])
        lance.write_dataset(text.to_reader(), str(base / "docs.lance"))

    _timed("write the three datasets", seconds, write_all)
    pq, hnsw, docs = (lance.dataset(str(base / f"{t}.lance")) for t in TABLES)
    _timed(
        f"IVF_PQ build (num_partitions={parts}, {IVF_PQ_BUILD})",
        seconds,
        lambda: pq.create_index("emb", "IVF_PQ", num_partitions=parts, **IVF_PQ_BUILD),
    )
    _timed(
        f"IVF_HNSW_SQ build (num_partitions={parts}, {IVF_HNSW_SQ_BUILD})",
        seconds,
        lambda: hnsw.create_index("emb", "IVF_HNSW_SQ", num_partitions=parts, **IVF_HNSW_SQ_BUILD),
    )
    for ds in (pq, hnsw):
        ds.create_scalar_index("category", "BTREE")
    _timed(
        "INVERTED build on docs.body", seconds, lambda: docs.create_scalar_index("body", "INVERTED")
    )
    return seconds


def load_or_build(cache: Path, spec: Spec) -> Dataset:
    """The dataset of ``spec`` under ``cache/rows-<n>``, built (and its old copy removed) unless
    a complete one with the same manifest is there."""
    root = cache / f"rows-{spec.rows}"
    manifest_path = root / "manifest.json"
    if manifest_path.exists():
        saved = json.loads(manifest_path.read_text())
        if saved.get("spec") == spec.manifest():
            print(f"dataset: reusing {root} (built earlier; build times below are from then)")
            return Dataset(root, spec, saved["build_seconds"])
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    print(f"dataset: building {spec.rows:,} x {spec.dim} under {root} (pylance create_index)")
    seconds = _build(root, spec)
    manifest_path.write_text(json.dumps({"spec": spec.manifest(), "build_seconds": seconds}))
    return Dataset(root, spec, seconds)


def _vectors(ds: lance.LanceDataset) -> tuple[np.ndarray, np.ndarray]:
    table = ds.to_table(columns=["emb", "category"])
    flat = table.column("emb").combine_chunks().values.to_numpy(zero_copy_only=False)
    return flat.reshape(-1, ds.schema.field("emb").type.list_size), table.column(
        "category"
    ).to_numpy()


def exact_top_k(data: Dataset, qs: np.ndarray, cats: np.ndarray | None = None) -> np.ndarray:
    """Ids (= row positions) of the exact k nearest rows (squared L2) per query; with ``cats``,
    among the rows of that query's category. Cached as ``truth-r4-<n>[-filtered].npy``."""
    name = f"truth-r4-{len(qs)}{'-filtered' if cats is not None else ''}.npy"
    path = data.root / name
    if path.exists():
        cached = np.load(path)
        if cached.shape == (len(qs), K):
            return cached
    vectors, categories = _vectors(data.open("vec_pq"))
    norms = np.einsum("ij,ij->i", vectors, vectors)
    out = np.empty((len(qs), K), dtype=np.int64)
    if cats is None:
        for start in range(0, len(qs), 100):
            q = qs[start : start + 100]
            d = norms[None, :] - 2.0 * (q @ vectors.T)  # + |q|^2, the same for every row
            top = np.argpartition(d, K, axis=1)[:, :K]
            order = np.take_along_axis(d, top, axis=1).argsort(axis=1)
            out[start : start + 100] = np.take_along_axis(top, order, axis=1)
    else:
        for i, (q, c) in enumerate(zip(qs, cats, strict=True)):
            rows = np.flatnonzero(categories == c)
            d = norms[rows] - 2.0 * (vectors[rows] @ q)
            top = np.argpartition(d, K)[:K]
            out[i] = rows[top[np.argsort(d[top])]]
    np.save(path, out)
    return out


def recall(found: list[list[int]], truth: np.ndarray) -> float:
    """Mean recall@k: the share of each query's exact k ids among the ids found."""
    if not found:
        return 0.0
    hits = sum(len(set(f) & set(t.tolist())) for f, t in zip(found, truth, strict=True))
    return hits / (len(found) * truth.shape[1])
