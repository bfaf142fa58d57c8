"""The answers of a set of search statements — values and column definitions as the client sees
them — against the answers recorded before the fixed cost of a search statement was cut
(search_answers.json). Any change to how found rows reach DuckDB (or bypass it) must keep every
one identical; a deliberate change of an answer re-records the file (run this test with
DRYDOCK_RECORD_SEARCH_ANSWERS=1, then review the diff)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from tests.conftest import ServerProcess
from tests.search.conftest import SearchData, vector_text

RECORDED = Path(__file__).with_name("search_answers.json")
# searched exhaustively (every partition, 100 × k re-ranked exactly): the answers do not depend
# on how the index was trained
SETTINGS = ("SET ivf_nprobe = 8", "SET vector_refine_factor = 100")
SETUP = (
    "CREATE DATABASE IF NOT EXISTS answers",
    "CREATE TABLE IF NOT EXISTS answers.cat (category INT, name VARCHAR(20))",
    "DELETE FROM answers.cat",
    "INSERT INTO answers.cat VALUES (1, 'one'), (3, 'three'), (7, 'seven'), (17, 'seventeen'), "
    "(23, 'twenty-three'), (47, 'forty-seven')",
)


def statements(data: SearchData) -> list[str]:
    q = vector_text((data.vectors[123] + np.float32(0.05)).astype(np.float32))
    r = vector_text((data.vectors[42] + np.float32(0.05)).astype(np.float32))
    order = f"ORDER BY l2_distance_approximate(emb, '{q}')"
    top = f"SELECT id, category FROM lc.db.docs {order} LIMIT 10"
    return [
        f"SELECT id FROM lc.db.docs {order} LIMIT 10",
        f"SELECT id, category, body FROM lc.db.docs {order} LIMIT 7",
        f"SELECT * FROM lc.db.docs {order} LIMIT 3",
        f"SELECT id, l2_distance_approximate(emb, '{q}') AS d FROM lc.db.docs {order} LIMIT 5",
        f"SELECT id, category FROM lc.db.docs WHERE category = 17 AND id < 2500 {order} LIMIT 5",
        f"SELECT id FROM lc.db.docs WHERE l2_distance_approximate(emb, '{q}') < 3.5 "
        f"{order} LIMIT 8",
        f"SELECT id, inner_product_approximate(emb, '{r}') AS s FROM lc.db.dots "
        f"ORDER BY inner_product_approximate(emb, '{r}') DESC LIMIT 5",
        f"SELECT id FROM lc.db.docs_v FOR VERSION AS OF 1 {order} LIMIT 4",
        f"WITH top AS ({top}) SELECT top.id, c.name FROM top JOIN answers.cat c "
        "ON c.category = top.category ORDER BY top.id",
        f"SELECT count(*), sum(category), min(id), avg(category) FROM ({top}) t",
        f"SELECT category, count(*) FROM ({top}) t GROUP BY category ORDER BY category",
        f"SELECT id, category FROM lc.db.docs WHERE category IN (3, 17, 23) {order} LIMIT 6",
        f"SELECT category, id FROM lc.db.docs WHERE id >= 100 AND category <> 23 {order} LIMIT 5",
        "SELECT id, MATCH (body) AGAINST ('river') AS s FROM lc.db.docs "
        "WHERE MATCH (body) AGAINST ('river') AND category < 10 ORDER BY s DESC LIMIT 4",
        "SELECT id, MATCH (body) AGAINST ('zebra w5') AS score FROM lc.db.docs "
        "WHERE MATCH (body) AGAINST ('zebra w5') ORDER BY score DESC, id LIMIT 6",
        "SELECT id, MATCH (body) AGAINST ('harbor') AS score FROM lc.db.docs "
        "WHERE MATCH (body) AGAINST ('harbor') ORDER BY score DESC LIMIT 1",
        "SELECT id, body FROM lc.db.docs WHERE body MATCH_ANY 'grove frost' ORDER BY id LIMIT 5",
        "SELECT count(*) FROM lc.db.docs WHERE body MATCH_ALL 'grove zebra'",
        "SELECT id FROM lc.db.docs WHERE body MATCH_PHRASE 'grove zebra' ORDER BY id LIMIT 5",
        "SELECT count(*), max(category) FROM lc.db.docs WHERE MATCH (body) AGAINST ('river') "
        "AND category < 10",
        "SELECT c.name, count(*) FROM lc.db.docs d JOIN answers.cat c ON c.category = d.category "
        "WHERE MATCH (d.body) AGAINST ('ember') GROUP BY c.name ORDER BY c.name",
    ]


def answers(server: ServerProcess, data: SearchData) -> list[dict[str, Any]]:
    """Each statement's rows (repr of every value, so a float's last bit counts) and column
    definitions (pymysql's description: name, type, length, decimals, nullability), run twice
    on one connection (the second time after the others: nothing a statement leaves behind may
    change the next one's answer)."""
    found: list[dict[str, Any]] = []
    with server.connect() as conn, conn.cursor() as cur:
        for sql in (*SETTINGS, *SETUP):
            cur.execute(sql)
        for _ in range(2):
            for sql in statements(data):
                cur.execute(sql)
                rows = [[repr(v) for v in row] for row in cur.fetchall()]
                columns = [list(d) for d in cur.description]
                found.append({"sql": sql, "rows": rows, "columns": columns})
    return found


def test_search_answers_are_unchanged(
    search_server: ServerProcess, search_data: SearchData
) -> None:
    now = answers(search_server, search_data)
    if os.environ.get("DRYDOCK_RECORD_SEARCH_ANSWERS"):
        RECORDED.write_text(json.dumps(now[: len(now) // 2], indent=1) + "\n")
    recorded = json.loads(RECORDED.read_text())
    assert len(now) == 2 * len(recorded)
    for got, want in zip(now, recorded + recorded, strict=True):
        assert got["sql"] == want["sql"]
        assert got["columns"] == want["columns"], got["sql"]
        assert got["rows"] == want["rows"], got["sql"]
