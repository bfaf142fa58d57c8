"""A multi-statement COM_QUERY cannot stall other sessions. Broke before the fix: the server cut a
CLIENT_MULTI_STATEMENTS query into statements (grammar/lexer.py split_statements) on the event
loop, one Python loop turn per character, so one logged-in user without any grant sending a few
MB of text froze every other connection for seconds (64 MiB, the packet limit: half a minute).
Now the cut runs in the statements pool, and plain runs and runs of semicolons pass in one step."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pymysql
import pytest
from pymysql.constants import CLIENT

from drydock.grammar.lexer import split_statements
from tests.conftest import ServerProcess
from tests.support.waiting import wait_until

PROMPT_SECONDS = 1.5
PAYLOADS = {
    "noise": "SELECT 1; " + "; ; " * 1_500_000 + "SELECT 2",  # 6 MB of empty statements
    "plain": "SELECT 1; SELECT " + "a " * 3_000_000,  # 6 MB of one statement's plain text
}


@pytest.fixture
def proc(tmp_path: Path) -> Iterator[ServerProcess]:
    server = ServerProcess(data_dir=tmp_path / "data").start()
    server.query("CREATE USER 'nobody'@'%' IDENTIFIED BY 'pw'")
    yield server
    server.kill9()


@pytest.mark.parametrize("name", sorted(PAYLOADS))
def test_a_huge_multi_statement_leaves_other_sessions_prompt(
    proc: ServerProcess, name: str
) -> None:
    outcome: dict[str, object] = {}

    def flood() -> None:
        start = time.monotonic()
        try:
            with (
                pymysql.connect(
                    host=proc.host,
                    port=proc.port,
                    user="nobody",
                    password="pw",
                    client_flag=CLIENT.MULTI_STATEMENTS,
                    read_timeout=120,
                ) as conn,
                conn.cursor() as cur,
            ):
                cur.execute(PAYLOADS[name])
                while cur.nextset():
                    pass
        except pymysql.err.MySQLError as exc:
            outcome["error"] = exc.args[0]
        outcome["seconds"] = time.monotonic() - start

    latencies: list[float] = []

    def other_session(sql: str) -> list[tuple]:
        start = time.monotonic()
        with (
            pymysql.connect(
                host=proc.host,
                port=proc.port,
                user="root",
                password="",
                connect_timeout=10,
                read_timeout=10,
            ) as conn,
            conn.cursor() as cur,
        ):
            cur.execute(sql)
            rows = list(cur.fetchall())
        latencies.append(time.monotonic() - start)
        return rows

    def flooding() -> bool:  # PROCESSLIST lists nobody's query: the payload has reached the server
        return any(
            row[1] == "nobody" and row[4] == "Query"
            for row in other_session("SHOW FULL PROCESSLIST")
        )

    worker = threading.Thread(target=flood)
    worker.start()
    wait_until(
        lambda: flooding() or bool(outcome), 30, "the payload reaches the server"
    )  # probes, timed
    for _ in range(3):
        assert other_session("SELECT 1") == [(1,)]
        time.sleep(0.2)
    worker.join(120)
    print(f"{name}: other sessions {[round(s, 3) for s in latencies]} s; flood {outcome}")
    assert max(latencies) < PROMPT_SECONDS
    assert not worker.is_alive()
    assert proc.alive()


def test_splitting_is_linear_and_keeps_its_answers() -> None:
    assert split_statements("SELECT 1;;;; SELECT 2") == ["SELECT 1;", " SELECT 2"]
    assert split_statements("SELECT 'a;b';SELECT `c;d`; -- x;\nSELECT 3 /* ; */") == [
        "SELECT 'a;b';",
        "SELECT `c;d`;",
        " -- x;\nSELECT 3 /* ; */",
    ]
    assert split_statements("SELECT 1 - 2; SELECT 3/4; SELECT 5 -- c;\n") == [
        "SELECT 1 - 2;",
        " SELECT 3/4;",
        " SELECT 5 -- c;\n",
    ]
    for text in (";" * 2_000_000, "SELECT " + "a" * 4_000_000, "SELECT 1;" + "x" * 4_000_000):
        start = time.monotonic()
        split_statements(text)
        assert time.monotonic() - start < 1.0, text[:20]
