"""Search over MariaDB Connector/J, text and server-side prepared statements (the query vector
bound as one string parameter): the ids equal numpy's exact answers (every partition probed)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np

from tests.clients.test_jdbc import JAR, RUN_TIMEOUT_SECONDS, _toolchain
from tests.conftest import ServerProcess
from tests.search.conftest import SearchData, vector_text

SOURCE = Path(__file__).resolve().parents[1] / "jdbc" / "DrydockJdbcSearch.java"
CHECKS = (
    "client_side",
    "vector_column_text",
    "exact_note_as_warning",
    "no_limit_error",
    "server_side",
)


def test_search_over_jdbc(
    search_server: ServerProcess, search_data: SearchData, tmp_path: Path
) -> None:
    javac, java = _toolchain()
    built = subprocess.run(
        [javac, "-cp", str(JAR), "-d", str(tmp_path), str(SOURCE)], capture_output=True, text=True
    )
    assert built.returncode == 0, built.stderr
    q = (search_data.vectors[321] + np.float32(0.03)).astype(np.float32)
    result = subprocess.run(
        [
            java,
            "-cp",
            f"{JAR}:{tmp_path}",
            "DrydockJdbcSearch",
            search_server.host,
            str(search_server.port),
            vector_text(q),
        ],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_SECONDS,
    )
    lines = result.stdout.splitlines()
    report = f"stdout:\n{result.stdout}\nstderr:\n{result.stderr[-3000:]}"
    assert [c for c in CHECKS if f"OK {c}" not in lines] == [], report
    assert "DONE failures=0" in lines, report
    found = {
        line.split()[1]: [int(i) for i in line.split()[2].split(",")]
        if len(line.split()) > 2
        else []
        for line in lines
        if line.startswith("ROWS ")
    }
    exact = search_data.exact_l2(q)
    category = search_data.category == 17
    harbor = sorted(i for i, b in enumerate(search_data.body) if "harbor" in b.split())
    for mode in ("client", "server"):
        assert found[f"top_k_{mode}"] == list(np.argsort(exact, kind="stable")[:5]), report
        assert found[f"filtered_{mode}"] == list(
            np.argsort(search_data.exact_l2(q, category), kind="stable")[:5]
        ), report
        assert found[f"match_any_{mode}"] == harbor, report
