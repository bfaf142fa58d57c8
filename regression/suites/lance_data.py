"""Shared helpers for the Lance suites: small datasets written with pylance into scratchDir."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa


def write_vectors(
    path: str, rows: int = 2000, dim: int = 16, storage_options: dict[str, str] | None = None
) -> None:
    import lance

    schema = pa.schema(
        [
            pa.field("id", pa.int64(), nullable=False),
            pa.field("embedding", pa.list_(pa.float32(), dim), nullable=False),
            pa.field("category", pa.string()),
        ]
    )
    rng = np.random.default_rng(7)
    table = pa.table(
        {
            "id": pa.array(range(rows), pa.int64()),
            "embedding": pa.FixedSizeListArray.from_arrays(
                pa.array(rng.random(rows * dim, dtype=np.float32)), dim
            ),
            "category": pa.array([f"cat_{i % 5}" for i in range(rows)]),
        },
        schema=schema,
    )
    lance.write_dataset(table, path, mode="overwrite", storage_options=storage_options)


def lance_warehouse(s: Any, name: str) -> str:
    warehouse = Path(s.context.config.otherConfigs["scratchDir"]) / name
    (warehouse / "db").mkdir(parents=True, exist_ok=True)
    return str(warehouse)


def wait_for_job(
    s: Any,
    job_id: str,
    states: tuple[str, ...] = ("COMMITTED", "NOT_COMMITTED", "UNKNOWN"),
    timeout: float = 120.0,
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        row = s.sql_return_maparray(f"SHOW LANCE INDEX JOB {job_id}")[0]
        if (
            row["State"] in states
            and row["RefreshState"] in ("NOT_REQUIRED", "DONE")
            and row["PossibleLive"] == "NO"
        ):
            return row
        time.sleep(0.2)
    raise AssertionError(f"job {job_id} did not finish in {timeout}s")


def write_documents(path: str, rows: int = 1200, dim: int = 8) -> None:
    """Seeded clustered vectors with a category and a short text: the search suite's table."""
    import lance

    rng = np.random.default_rng(21)
    centers = rng.normal(size=(6, dim)) * 3
    vectors = (centers[rng.integers(0, 6, rows)] + rng.normal(size=(rows, dim))).astype(np.float32)
    words = ["zebra", "apple", "river", "stone", "cloud", "ember", "frost", "grove"]
    schema = pa.schema(
        [
            pa.field("id", pa.int64(), nullable=False),
            pa.field("category", pa.int32()),
            pa.field("body", pa.string()),
            pa.field("embedding", pa.list_(pa.float32(), dim), nullable=False),
        ]
    )
    table = pa.table(
        [
            pa.array(range(rows), pa.int64()),
            pa.array([i % 10 for i in range(rows)], pa.int32()),
            pa.array(
                [
                    " ".join(words[(i * 5 + j) % len(words)] for j in range(1 + i % 3))
                    for i in range(rows)
                ]
            ),
            pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel()), dim),
        ],
        schema=schema,
    )
    lance.write_dataset(table, path, mode="overwrite")
