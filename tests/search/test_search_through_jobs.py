"""The loop the issue asks for: indexes built by drydock's own jobs (CREATE INDEX … USING ANN /
INVERTED) answer searches at once; privileges and audit are those of any SELECT."""

from __future__ import annotations

from pathlib import Path

import lance
import numpy as np
import pymysql
import pytest

from tests.conftest import ServerProcess
from tests.search.conftest import DIM, build_table, error, run, vector_text
from tests.support.lance_fixtures import admit, create_user, wait_job


@pytest.fixture
def built(server: ServerProcess, tmp_path: Path) -> tuple[ServerProcess, np.ndarray]:
    root = tmp_path / "wh"
    (root / "db").mkdir(parents=True)
    table, vectors, _, _ = build_table(seed=3)
    lance.write_dataset(table, str(root / "db" / "docs.lance"))
    server.query(f'CREATE CATALOG lc PROPERTIES ("type" = "lance", "warehouse" = "{root}")')
    before = run(server, "SELECT count(*) FROM lc.db.docs")  # the catalog caches this version
    assert before[0] == [(len(vectors),)]
    jobs = [
        admit(
            server,
            "CREATE INDEX emb_idx ON lc.db.docs (emb) USING ANN PROPERTIES ("
            '"index_type" = "IVF_PQ", "metric" = "l2", "num_partitions" = "4", '
            '"num_sub_vectors" = "4")',
        ),
        admit(
            server,
            "CREATE INDEX body_idx ON lc.db.docs (body) USING INVERTED PROPERTIES "
            '("support_phrase" = "true")',
        ),
    ]
    for job in jobs:
        assert wait_job(server, job)["State"] == "COMMITTED"
    return server, vectors


def test_indexes_built_by_jobs_answer_at_once(built: tuple[ServerProcess, np.ndarray]) -> None:
    server, vectors = built
    q = vectors[10] + np.float32(0.01)
    found, warnings = run(
        server,
        "SET ivf_nprobe = 4",
        "SET vector_refine_factor = 100",
        f"SELECT id FROM lc.db.docs ORDER BY l2_distance_approximate(emb, '{vector_text(q)}') "
        "LIMIT 3",
    )
    assert warnings == []  # no Note: the index built a moment ago was used
    exact = np.sqrt(((vectors.astype(np.float64) - q) ** 2).sum(axis=1))
    assert [r[0] for r in found] == list(np.argsort(exact, kind="stable")[:3])
    count, _ = run(server, "SELECT count(*) FROM lc.db.docs WHERE MATCH (body) AGAINST ('zebra')")
    assert count[0][0] > 0


def test_privileges_and_audit_are_those_of_select(
    built: tuple[ServerProcess, np.ndarray],
) -> None:
    server, vectors = built
    q = vector_text(vectors[0])
    search = f"SELECT id FROM lc.db.docs ORDER BY l2_distance_approximate(emb, '{q}') LIMIT 2"
    outsider = create_user(server, ["SELECT_PRIV ON internal.*.*"])
    code, _ = error_as(server, outsider, search)
    assert code == 1142
    code, _ = error_as(
        server, outsider, "SELECT id FROM lc.db.docs WHERE MATCH (body) AGAINST ('zebra')"
    )
    assert code == 1142
    reader = create_user(server, ["SELECT_PRIV ON lc.db.docs"])
    found, _ = run(server, search, user=reader, password="pw")
    assert found[0] == (0,)
    # audited as any SELECT: a read is not, a refusal is (with the statement, the user)
    with server.connect() as conn, conn.cursor(pymysql.cursors.DictCursor) as cur:
        cur.execute("SHOW AUDIT LIMIT 5")
        audited = list(cur.fetchall())
    denied = [r for r in audited if r["User"] == outsider]
    assert [(r["Kind"], r["ErrorCode"]) for r in denied] == [("Denied", 1142)] * 2
    assert "MATCH (body) AGAINST" in denied[0]["Statement"]
    assert not [r for r in audited if r["User"] == reader]


def error_as(server: ServerProcess, user: str, sql: str) -> tuple[int, str]:
    with server.connect(user=user, password="pw") as conn, conn.cursor() as cur:
        with pytest.raises(pymysql.err.MySQLError) as info:
            cur.execute(sql)
    return info.value.args[0], info.value.args[1]


def test_dimension_in_a_job_built_table(built: tuple[ServerProcess, np.ndarray]) -> None:
    server, _ = built
    _, message = error(
        server,
        "SELECT id FROM lc.db.docs ORDER BY l2_distance_approximate(emb, '[1,2]') LIMIT 1",
    )
    assert str(DIM) in message and "2" in message
