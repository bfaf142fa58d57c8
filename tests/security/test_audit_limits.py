"""Audit bounds: field truncation, failed logins aggregated per peer and budgeted, rotation by
size."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pymysql
import pytest

from drydock.grammar.redact import redact_sql
from drydock.engine.security.audit import AuditLog, AuditSettings, truncate_utf8
from tests.support import mysql_raw
from tests.conftest import ServerProcess


class FakeClock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def make_log(tmp_path: Path, clock: FakeClock | None = None, **settings: int) -> AuditLog:
    fixed = AuditSettings(**settings)  # type: ignore[arg-type]
    return AuditLog(
        tmp_path / "audit.jsonl", redact_sql, settings=lambda: fixed, clock=clock or FakeClock()
    )


def records(tmp_path: Path, name: str = "audit.jsonl") -> list[dict]:
    return [json.loads(line) for line in (tmp_path / name).read_text().splitlines()]


def statement(log: AuditLog, n: int, user: str = "root", host: str = "127.0.0.1") -> None:
    log.record(
        user=user,
        host=host,
        connection_id=n,
        kind="Insert",
        obj="internal.db.t",
        error_code=0,
        started=time.monotonic(),
        statement=f"INSERT INTO db.t VALUES ({n})",
    )


# -- truncation ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text", ["a" * 1000, "é" * 1000, "€" * 1000, "😀" * 1000, "a" + "😀" * 100]
)
def test_truncation_keeps_at_most_256_bytes_and_whole_characters(text: str) -> None:
    cut = truncate_utf8(text)
    assert len(cut.encode()) <= 256 and cut.endswith("...")
    assert text.startswith(cut[:-3])


def test_short_names_are_kept_and_lone_surrogates_become_valid_utf8() -> None:
    assert truncate_utf8("bob") == "bob"
    assert truncate_utf8("a\udcffb") == "a?b"


def test_every_record_has_user_and_host_cut_to_256_bytes(tmp_path: Path) -> None:
    log = make_log(tmp_path)
    statement(log, 1, user="ü" * 100_000, host="h" * 100_000)
    log.failed_login(user="x" * 130_000, host="é" * 1000, connection_id=2)
    log.close()
    for rec in records(tmp_path):
        assert len(rec["user"].encode()) <= 256 and len(rec["host"].encode()) <= 256
        assert len(rec["last_user"].encode()) <= 256


# -- failed logins ------------------------------------------------------------------------------
def test_failed_logins_of_one_peer_make_one_record_per_interval_with_a_count(
    tmp_path: Path,
) -> None:
    clock = FakeClock()
    log = make_log(tmp_path, clock, failed_login_interval=60)
    for i in range(100):
        log.failed_login(user=f"u{i}", host="10.0.0.1", connection_id=i)
        clock.now += 0.5  # 100 attempts in 50 s: one interval
    first = records(tmp_path)
    assert [(r["kind"], r["user"], r["count"], r["error_code"]) for r in first] == [
        ("Login", "u0", 1, 1045)
    ]
    clock.now += 15  # the interval is over: the rest is written as one record
    assert [(r.user, r.last_user, r.count) for r in log.tail(10)][-1] == ("u1", "u99", 99)
    log.failed_login(user="again", host="10.0.0.1", connection_id=200)
    log.close()
    assert [r["count"] for r in records(tmp_path)] == [1, 99, 1]


def test_peers_are_aggregated_separately(tmp_path: Path) -> None:
    clock = FakeClock()
    log = make_log(tmp_path, clock)
    for _ in range(10):
        log.failed_login(user="a", host="10.0.0.1", connection_id=1)
        log.failed_login(user="b", host="10.0.0.2", connection_id=2)
    log.close()
    counts = {(r["host"], r["count"]) for r in records(tmp_path)}
    assert counts == {("10.0.0.1", 1), ("10.0.0.2", 1), ("10.0.0.1", 9), ("10.0.0.2", 9)}


def test_failed_logins_over_the_byte_budget_are_counted_in_one_overflow_record(
    tmp_path: Path,
) -> None:
    clock = FakeClock()
    log = make_log(tmp_path, clock, failed_login_bytes_per_minute=4000)
    for i in range(1000):  # 1000 different peers in one minute
        log.failed_login(user="x" * 300, host=f"10.0.{i // 250}.{i % 250}", connection_id=i)
    size_in_first_minute = (tmp_path / "audit.jsonl").stat().st_size
    assert size_in_first_minute <= 4000
    clock.now += 61
    statement(log, 1)  # any later activity; the overflow is written by the next sweep
    log.tail(1)
    written = records(tmp_path)
    overflow = [r for r in written if r["host"] == "*"]
    assert len(overflow) == 1
    assert sum(r["count"] for r in written if r["kind"] == "Login") == 1000
    log.close()


def test_close_writes_the_failed_logins_still_pending(tmp_path: Path) -> None:
    log = make_log(tmp_path)
    for _ in range(5):
        log.failed_login(user="a", host="10.0.0.1", connection_id=1)
    log.close()
    assert [r["count"] for r in records(tmp_path)] == [1, 4]


# -- rotation -----------------------------------------------------------------------------------
def test_the_file_is_rotated_by_size_and_only_n_old_files_are_kept(tmp_path: Path) -> None:
    log = make_log(tmp_path, max_bytes=2000, files_kept=2)
    for n in range(200):
        statement(log, n)
    log.close()
    names = sorted(p.name for p in tmp_path.glob("audit.jsonl*"))
    assert names == ["audit.jsonl", "audit.jsonl.1", "audit.jsonl.2"]
    assert all((tmp_path / name).stat().st_size <= 2000 for name in names)
    newest = [r["connection_id"] for r in records(tmp_path)]
    assert newest[-1] == 199


def test_tail_reads_the_newest_records_across_a_rotation(tmp_path: Path) -> None:
    log = make_log(tmp_path, max_bytes=2000, files_kept=3)
    for n in range(60):
        statement(log, n)
    assert (tmp_path / "audit.jsonl.1").exists()
    current = len(records(tmp_path))
    tail = [r.connection_id for r in log.tail(current + 5)]
    assert tail == list(range(60 - current - 5, 60))
    everything = [r.connection_id for r in log.tail(10**30)]
    assert everything == list(range(everything[0], 60)) and len(everything) > current
    log.close()


# -- over the wire ------------------------------------------------------------------------------
NAME_BYTES = 130_000  # under the 128 KiB limit of a handshake response
FLOOD = 2000


def _failed_login(port: int, user: str) -> None:
    with mysql_raw.RawClient("127.0.0.1", port, timeout=30) as client:
        reply = client.login(user, "wrong")
        assert isinstance(reply, mysql_raw.Err) and reply.code == 1045


def audit_bytes(server: ServerProcess) -> int:
    return sum(p.stat().st_size for p in server.data_dir.glob("audit.jsonl*"))


def test_a_flood_of_failed_logins_with_huge_names_adds_little_to_the_audit(
    server: ServerProcess,
) -> None:
    before = audit_bytes(server)
    names = [chr(ord("a") + i % 26) * NAME_BYTES for i in range(FLOOD)]
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda name: _failed_login(server.port, name), names))
    assert audit_bytes(server) - before < 1 << 20
    server.query("CREATE DATABASE after_flood")  # a correct login is still served and audited
    with server.connect() as conn, conn.cursor(pymysql.cursors.DictCursor) as cur:
        cur.execute("SHOW AUDIT LIMIT 10")
        rows = cur.fetchall()
    assert (rows[0]["Kind"], rows[0]["User"], rows[0]["Outcome"]) == ("Create", "root", "ok")
    logins = [r for r in rows if r["Kind"] == "Login"]
    assert logins and all(len(r["User"].encode()) <= 256 for r in logins)
    assert audit_bytes(server) - before < 1 << 20
    assert len(server.log_text()) < 1 << 20  # the server log stays bounded too


def test_audit_config_is_listed_and_show_audit_reads_across_a_rotation(
    server: ServerProcess,
) -> None:
    with server.connect() as conn, conn.cursor() as cur:
        cur.execute("ADMIN SHOW FRONTEND CONFIG")
        names = {row[0] for row in cur.fetchall()}
        assert {
            "audit_log_max_bytes",
            "audit_log_files_kept",
            "audit_failed_login_interval_second",
            "audit_failed_login_max_bytes_per_minute",
        } <= names
        cur.execute("ADMIN SET FRONTEND CONFIG ('audit_log_max_bytes' = '1500')")
        for n in range(12):
            cur.execute(f"CREATE DATABASE rot{n}")
        cur.execute("SHOW AUDIT LIMIT 12")
        shown = [row[-1] for row in cur.fetchall()]
    assert (server.data_dir / "audit.jsonl.1").exists()
    assert shown == [f"CREATE DATABASE rot{n}" for n in range(11, -1, -1)]
