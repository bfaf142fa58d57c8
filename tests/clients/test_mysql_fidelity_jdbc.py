"""Transactions and generated keys through a real JDBC driver (MariaDB Connector/J):
tests/jdbc/DrydockJdbcTransactions.java, compiled and run against a server started here."""

from __future__ import annotations

import subprocess
from pathlib import Path


from tests.conftest import ServerProcess
from tests.clients.test_jdbc import COMPILE_TIMEOUT_SECONDS, JAR, RUN_TIMEOUT_SECONDS, _toolchain

SOURCE = Path(__file__).resolve().parents[1] / "jdbc" / "DrydockJdbcTransactions.java"
CHECKS = ["uncommitted-invisible", "rollback", "generated-key", "commit", "autocommit-again"]


def test_jdbc_rollback_commit_and_generated_keys(server: ServerProcess, tmp_path: Path) -> None:
    javac, java = _toolchain()
    built = subprocess.run(
        [javac, "-cp", str(JAR), "-d", str(tmp_path), str(SOURCE)],
        capture_output=True,
        text=True,
        timeout=COMPILE_TIMEOUT_SECONDS,
    )
    assert built.returncode == 0, built.stderr
    server.query("CREATE DATABASE jdbc_tx")
    result = subprocess.run(
        [
            java,
            "-cp",
            f"{JAR}:{tmp_path}",
            "DrydockJdbcTransactions",
            server.host,
            str(server.port),
        ],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_SECONDS,
    )
    lines = result.stdout.splitlines()
    report = f"stdout:\n{result.stdout}\nstderr:\n{result.stderr[-3000:]}"
    assert [c for c in CHECKS if f"OK {c}" not in lines] == [], report
    assert "DONE failures=0" in lines and result.returncode == 0, report
