"""Vector and full-text search of a Lance table on S3 (a local moto server): the same answers as
a local warehouse gives."""

from __future__ import annotations

from typing import Any

import numpy as np

from tests.conftest import ServerProcess
from tests.search.conftest import build_table, run, vector_text
from tests.support.lance_fixtures import create_catalog, s3_warehouse


def test_search_on_s3(server: ServerProcess, s3: Any) -> None:
    warehouse = s3_warehouse(s3)
    table, vectors, _, body = build_table(seed=5)
    ds = warehouse.write("db", "docs", table)
    ds.create_index("emb", "IVF_PQ", num_partitions=4, num_sub_vectors=4, metric="l2")
    ds.create_scalar_index("body", "INVERTED")
    catalog = create_catalog(server, warehouse)
    q = vectors[33] + np.float32(0.02)
    found, warnings = run(
        server,
        "SET ivf_nprobe = 4",
        "SET vector_refine_factor = 100",
        f"SELECT id FROM {catalog}.db.docs WHERE category < 25 "
        f"ORDER BY l2_distance_approximate(emb, '{vector_text(q)}') LIMIT 4",
    )
    assert warnings == []
    exact = np.sqrt(((vectors.astype(np.float64) - q) ** 2).sum(axis=1))
    exact[np.arange(len(vectors)) % 50 >= 25] = np.inf
    assert [r[0] for r in found] == list(np.argsort(exact, kind="stable")[:4])
    matched, _ = run(
        server, f"SELECT id FROM {catalog}.db.docs WHERE MATCH (body) AGAINST ('island')"
    )
    assert {r[0] for r in matched} == {i for i, b in enumerate(body) if "island" in b.split()}
