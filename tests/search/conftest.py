"""A Lance warehouse for search tests: seeded clustered vectors, a category, a text column, with
indexes built by pylance directly (drydock's own index jobs are tested in tests/jobs; one test
there builds through CREATE INDEX and searches)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import lance
import numpy as np
import pyarrow as pa
import pymysql
import pytest

from tests.conftest import ServerProcess, make_server

ROWS = 3000
DIM = 16
WORDS = ["zebra", "apple", "river", "stone", "cloud", "ember", "frost", "grove", "harbor", "island"]


@dataclass
class SearchData:
    vectors: np.ndarray  # (ROWS, DIM) float32
    category: np.ndarray  # (ROWS,) int
    body: list[str]
    warehouse: Path

    def exact_l2(self, q: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        base = self.vectors.astype(np.float64)
        d = np.sqrt(((base - q.astype(np.float64)) ** 2).sum(axis=1))
        if rows is not None:
            d = np.where(rows, d, np.inf)
        return d

    def exact_dot(self, q: np.ndarray) -> np.ndarray:
        return self.vectors.astype(np.float64) @ q.astype(np.float64)


def vector_text(q: np.ndarray) -> str:
    return "[" + ",".join(repr(float(x)) for x in q) + "]"


def build_table(seed: int = 7) -> tuple[pa.Table, np.ndarray, np.ndarray, list[str]]:
    rng = np.random.default_rng(seed)
    centers = rng.normal(size=(12, DIM)) * 4
    labels = rng.integers(0, len(centers), ROWS)
    vectors = (centers[labels] + rng.normal(size=(ROWS, DIM))).astype(np.float32)
    category = np.arange(ROWS) % 50
    body = [
        " ".join(WORDS[(i * 7 + j * 3) % len(WORDS)] for j in range(1 + i % 3)) + f" w{i % 97}"
        for i in range(ROWS)
    ]
    schema = pa.schema(
        [
            pa.field("id", pa.int64()),
            pa.field("category", pa.int32()),
            pa.field("body", pa.string()),
            pa.field("emb", pa.list_(pa.float32(), DIM), nullable=False),  # ANN needs NOT NULL
        ]
    )
    table = pa.table(
        [
            pa.array(np.arange(ROWS), pa.int64()),
            pa.array(category, pa.int32()),
            pa.array(body),
            pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel()), DIM),
        ],
        schema=schema,
    )
    return table, vectors, category, body


@pytest.fixture(scope="module")
def search_data(tmp_path_factory: pytest.TempPathFactory) -> SearchData:
    """lance warehouse: db.docs (IVF_PQ l2 on emb, INVERTED with positions on body, BTREE on id),
    db.dots (IVF_PQ dot, INVERTED without positions), db.plain (no index), db.docs_v (two
    versions: v2 adds rows)."""
    root = tmp_path_factory.mktemp("search") / "wh"
    (root / "db").mkdir(parents=True)
    table, vectors, category, body = build_table()
    docs = lance.write_dataset(table, str(root / "db" / "docs.lance"))
    docs.create_index("emb", "IVF_PQ", num_partitions=8, num_sub_vectors=4, metric="l2")
    docs.create_scalar_index("body", "INVERTED", with_position=True)
    docs.create_scalar_index("id", "BTREE")
    dots = lance.write_dataset(table, str(root / "db" / "dots.lance"))
    dots.create_index("emb", "IVF_PQ", num_partitions=8, num_sub_vectors=4, metric="dot")
    dots.create_scalar_index("body", "INVERTED")  # no positions: no phrase search
    lance.write_dataset(table, str(root / "db" / "plain.lance"))
    versioned = lance.write_dataset(table.slice(0, 1000), str(root / "db" / "docs_v.lance"))
    versioned.create_index("emb", "IVF_PQ", num_partitions=4, num_sub_vectors=4, metric="l2")
    lance.write_dataset(table.slice(1000, 1000), str(root / "db" / "docs_v.lance"), mode="append")
    return SearchData(vectors, category, body, root)


@pytest.fixture(scope="module")
def search_server(
    tmp_path_factory: pytest.TempPathFactory, search_data: SearchData
) -> Iterator[ServerProcess]:
    server = make_server(tmp_path_factory.mktemp("search_server")).start()
    try:
        server.query(
            f'CREATE CATALOG lc PROPERTIES ("type" = "lance", "warehouse" = '
            f'"{search_data.warehouse}")'
        )
        yield server
    finally:
        server.stop()


def run(server: ServerProcess, *statements: str, user: str = "root", password: str = "") -> Any:
    """Run statements on one connection; the last one's (rows, warnings)."""
    with server.connect(user=user, password=password) as conn, conn.cursor() as cur:
        for sql in statements:
            cur.execute(sql)
        found = list(cur.fetchall())
        cur.execute("SHOW WARNINGS")
        return found, list(cur.fetchall())


def error(server: ServerProcess, *statements: str, user: str = "root") -> tuple[int, str]:
    with server.connect(user=user) as conn, conn.cursor() as cur:
        for sql in statements[:-1]:
            cur.execute(sql)
        with pytest.raises(pymysql.err.MySQLError) as info:
            cur.execute(statements[-1])
        cur.execute("SELECT 1")  # the connection is still usable
        assert cur.fetchall() == ((1,),)
    return info.value.args[0], info.value.args[1]
