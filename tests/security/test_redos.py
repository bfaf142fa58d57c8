"""LIKE patterns from clients cannot stall the server (no backtracking regex on user text)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pymysql
import pytest

from tests.conftest import ServerProcess
from tests.support.waiting import wait_until

PROMPT_SECONDS = 5.0
WILDCARDS = "%" * 4000 + "!"  # no name ends with "!"


@pytest.fixture
def proc(tmp_path: Path) -> Iterator[ServerProcess]:
    server = ServerProcess(data_dir=tmp_path / "data").start()
    yield server
    server.kill9()  # a server stalled by the old code would not stop on SIGTERM in time


def _quick_connection(proc: ServerProcess) -> pymysql.connections.Connection:
    return pymysql.connect(
        host=proc.host,
        port=proc.port,
        user="root",
        password="",
        autocommit=True,
        connect_timeout=PROMPT_SECONDS,
        read_timeout=PROMPT_SECONDS,
    )


def _run(proc: ServerProcess, sql: str) -> tuple[list[tuple], float]:
    start = time.monotonic()
    with _quick_connection(proc) as conn, conn.cursor() as cur:
        cur.execute(sql)
        rows = list(cur.fetchall())
    return rows, time.monotonic() - start


@pytest.mark.parametrize(
    "statement",
    [
        f"SHOW DATABASES LIKE '{WILDCARDS}'",
        f"SHOW TABLES FROM d LIKE '{WILDCARDS}'",
        f"SHOW CATALOGS LIKE '{WILDCARDS}'",
        f"ADMIN SHOW FRONTEND CONFIG LIKE '{WILDCARDS}'",
    ],
)
def test_thousands_of_wildcards_answer_promptly_while_other_sessions_work(
    proc: ServerProcess, statement: str
) -> None:
    proc.query("CREATE DATABASE d")
    proc.query("CREATE TABLE d.t (x INT)")
    outcome: dict[str, object] = {}

    def show() -> None:
        try:
            outcome["rows"], outcome["seconds"] = _run(proc, statement)
        except Exception as exc:  # noqa: BLE001 - reported by the assertions below
            outcome["error"] = exc

    alongside: list[float] = []

    def matching() -> bool:  # PROCESSLIST lists the LIKE: the pattern has reached the server
        rows, took = _run(proc, "SHOW FULL PROCESSLIST")
        alongside.append(took)  # answered while the pattern may be matching: timed like SELECT 1
        return any(row[4] == "Query" and str(row[7]).startswith(statement[:30]) for row in rows)

    worker = threading.Thread(target=show)
    worker.start()
    wait_until(
        lambda: matching() or bool(outcome), PROMPT_SECONDS * 2, "the pattern reaches the server"
    )
    one, seconds = _run(proc, "SELECT 1")
    worker.join(PROMPT_SECONDS * 2)
    print(
        f"SELECT 1 alongside took {seconds * 1000:.0f} ms (PROCESSLIST probes {alongside}); "
        f"LIKE took {outcome.get('seconds')}"
    )
    assert one == [(1,)]
    assert max(seconds, *alongside) < PROMPT_SECONDS
    assert "error" not in outcome, outcome.get("error")
    assert outcome["rows"] == []


def test_escaped_wildcards_in_like_are_literal(proc: ServerProcess) -> None:
    proc.query("CREATE DATABASE a_b")
    proc.query("CREATE DATABASE axb")
    assert proc.query("SHOW DATABASES LIKE 'a\\\\_b'") == [("a_b",)]  # SQL text 'a\\_b'
    assert proc.query("SHOW DATABASES LIKE 'a\\_b'") == [
        ("a_b",)
    ]  # MySQL keeps the \ of \_ in a literal
    assert sorted(proc.query("SHOW DATABASES LIKE 'a_b'")) == [("a_b",), ("axb",)]
