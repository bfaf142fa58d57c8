"""Load: many concurrent clients mixing every kind of statement, on one real server (loopback only).

Each client holds one connection for the whole run and loops over a weighted mix: ``SELECT 1``
(latency recorded), SELECTs on a Lance table, ``SHOW LANCE INDEX JOBS`` / ``SHOW LANCE INDEX JOB``,
CREATE / CREATE OR REPLACE / DROP INDEX on a small pool of index names (so admissions collide on
the fence, in every letter case), CANCEL, ``RESOLVE ... AS FORCE_RELEASE`` of jobs other clients
were given, and ``CALL <catalog>.sys.create_tag / delete_tag`` (on a table of their own and on the
indexed
table, where they meet the job fence and concurrent commits). The dispatcher runs: jobs really go
PENDING → RUNNING → COMMITTED / NOT_COMMITTED while the clients hammer the server.

Checked:
- every error is one of the classified, expected conflicts (fence/quota/exists 5100, RESOLVE of a
  job that is not UNKNOWN 5104, a concurrent change under RESOLVE 5105, CANCEL of a finished job
  5107, a CALL refused by the job fence or stopped by a concurrent commit 1105 'PROCEDURE ...');
  anything else — and any dropped connection — fails the test;
- no lost or duplicated job: no JobId was handed to two clients, and every JobId a client received
  is listed exactly once by SHOW LANCE INDEX JOBS (during the run and after it);
- for each index name at most one unresolved job, sampled during the run and at the end;
- the server's RSS (VmRSS of its process, sampled every 0.25 s) stays under RSS_LIMIT_BYTES;
- p50 / p99 of ``SELECT 1`` are reported (printed, not asserted: this machine has 2 cores).

Size: DRYDOCK_LOAD_CLIENTS (default 16) clients for DRYDOCK_LOAD_SECONDS (default 10) seconds. The
full size of the robustness issue:

    DRYDOCK_LOAD_CLIENTS=64 DRYDOCK_LOAD_SECONDS=60 scripts/test tests/wire/test_load.py

Every wait is bounded: connections have 60 s read timeouts, threads are joined with a deadline.
"""

from __future__ import annotations

import os
import random
import re
import statistics
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pymysql
import pytest

from tests.conftest import ServerProcess
from tests.support.lance_fixtures import ANN_FAST, local_warehouse, set_config, vector_table

CLIENTS = int(os.environ.get("DRYDOCK_LOAD_CLIENTS", "16"))
SECONDS = float(os.environ.get("DRYDOCK_LOAD_SECONDS", "10"))
# The server (CPython + DuckDB + pylance + pyarrow) idles at roughly 250-400 MiB. Each session holds
# a DuckDB cursor and a few KiB of Python state, index builds run in worker processes (not counted
# here), and the datasets are a few hundred KiB. 2 GiB is several times what 64 clients need, so
# crossing it means something grows without bound (a per-statement leak), not a busy server.
RSS_LIMIT_BYTES = 2 * 1024**3
RSS_SAMPLE_SECONDS = 0.25

UNRESOLVED = ("PENDING", "RUNNING")

# (index name, column, USING, PROPERTIES): names are drawn in random letter case, so the fence is
# exercised on case variants of one name too.
INDEXES = [
    ("ld_id", "id", "BTREE", ""),
    ("ld_name", "name", "BITMAP", ""),
    ("ld_body", "body", "INVERTED", ""),
    ("ld_emb", "emb", "ANN", f'"index_type" = "IVF_FLAT", "num_partitions" = "2", {ANN_FAST}'),
]

# Expected errors: (code, pattern the message must match, label). Anything else is unexpected.
EXPECTED = [
    (5100, r"is fenced by unresolved job \d+", "fenced"),
    (5100, r"^unresolved lance index job quota exceeded", "quota"),
    (5100, r"^index '\w+' already exists", "index exists"),
    (5100, r"^index '\w+' not found on table", "index not found"),
    (5104, r"cannot be resolved: not in UNKNOWN state", "resolve: not UNKNOWN"),
    (5105, r"was not released: the job changed concurrently", "resolve: concurrent change"),
    (5107, r"cannot be cancelled: it is already", "cancel: already finished"),
    (1105, r"^PROCEDURE \w+ refused: table \S+ has unresolved Lance index job", "call: fenced"),
    (1105, r"^PROCEDURE \w+ stopped: concurrent commit", "call: concurrent commit"),
]


def classify(code: int, message: str) -> str | None:
    for want, pattern, label in EXPECTED:
        if code == want and re.search(pattern, message):
            return label
    return None


def server_rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no VmRSS for pid {pid}")


@dataclass
class Shared:
    """What all clients know: the JobIds handed out (to whom) and the tally."""

    deadline: float
    lock: threading.Lock = field(default_factory=threading.Lock)
    job_owner: dict[int, int] = field(default_factory=dict)  # JobId → client
    duplicates: list[tuple[int, int, int]] = field(default_factory=list)
    expected: Counter[str] = field(default_factory=Counter)
    unexpected: list[str] = field(default_factory=list)
    ops: Counter[str] = field(default_factory=Counter)
    select1: list[float] = field(default_factory=list)

    def received(self, client: int, job_id: int) -> None:
        with self.lock:
            if job_id in self.job_owner:
                self.duplicates.append((job_id, self.job_owner[job_id], client))
            self.job_owner.setdefault(job_id, client)

    def some_job(self, rng: random.Random) -> int | None:
        with self.lock:
            if not self.job_owner:
                return None
            return rng.choice(list(self.job_owner))


class Client(threading.Thread):
    def __init__(self, number: int, server: ServerProcess, catalog: str, shared: Shared):
        super().__init__(name=f"load-{number}", daemon=True)
        self.number = number
        self.server = server
        self.catalog = catalog
        self.shared = shared
        self.rng = random.Random(number)
        self.tags: list[str] = []
        self.tag_seq = 0
        self.ops = [
            (self.select1, 30),
            (self.select_table, 8),
            (self.show_jobs, 12),
            (self.show_job, 5),
            (self.create_index, 12),
            (self.drop_index, 4),
            (self.cancel, 3),
            (self.resolve, 5),
            (self.create_tag, 8),
            (self.delete_tag, 6),
            (self.call_on_indexed, 3),
            (self.show_procedures, 2),
        ]

    # -- plumbing ----------------------------------------------------------------------------------
    def run(self) -> None:
        try:
            self.conn = self.server.connect()  # 60 s read/write timeouts (conftest)
        except Exception as exc:  # noqa: BLE001
            self.shared.unexpected.append(f"client {self.number}: cannot connect: {exc!r}")
            return
        functions, weights = zip(*self.ops)
        try:
            while time.monotonic() < self.shared.deadline:
                op = self.rng.choices(functions, weights)[0]
                op()
        except Exception as exc:  # noqa: BLE001 - anything that escapes is an unexpected failure
            self.shared.unexpected.append(f"client {self.number}: {type(exc).__name__}: {exc}")
        finally:
            self.conn.close()

    def sql(self, text: str, op: str) -> list[tuple[Any, ...]] | None:
        """Run one statement: rows, or None after an expected error (tallied)."""
        self.shared.ops[op] += 1
        try:
            with self.conn.cursor() as cur:
                cur.execute(text)
                return list(cur.fetchall()) if cur.description else []
        except pymysql.err.MySQLError as exc:
            code = exc.args[0] if exc.args and isinstance(exc.args[0], int) else None
            if code is None or 2000 <= code < 3000:  # CR_* client errors: the connection broke
                raise AssertionError(f"connection failed on {text!r}: {exc!r}") from None
            return self._server_error(text, code, str(exc.args[1]))

    def _server_error(self, text: str, code: int, message: str) -> None:
        label = classify(code, message)
        if label is None:
            self.shared.unexpected.append(f"{text!r} -> {code} {message}")
        else:
            self.shared.expected[label] += 1

    def table(self, name: str = "t") -> str:
        return f"{self.catalog}.db.{name}"

    def index_name(self, name: str) -> str:
        return "".join(c.upper() if self.rng.random() < 0.3 else c for c in name)

    # -- the mix
    # -------------------------------------------------------------------------------------
    def select1(self) -> None:
        started = time.perf_counter()
        rows = self.sql("SELECT 1", "SELECT 1")
        elapsed = time.perf_counter() - started
        assert rows == [(1,)], rows
        with self.shared.lock:
            self.shared.select1.append(elapsed)

    def select_table(self) -> None:
        if self.rng.random() < 0.5:
            rows = self.sql(f"SELECT count(*) FROM {self.table()}", "SELECT count")
            assert rows is None or rows == [(2000,)], rows
        else:
            rows = self.sql(
                f"SELECT id, name FROM {self.table()} WHERE id < 5 ORDER BY id", "SELECT rows"
            )
            assert rows is None or [r[0] for r in rows] == [0, 1, 2, 3, 4], rows

    def show_jobs(self) -> None:
        suffix = self.rng.choice(
            [
                "",
                f"FROM {self.catalog}.db",
                'WHERE TableName = "t"',
                f'FROM {self.catalog}.db WHERE State = "PENDING"',
            ]
        )
        self.sql(f"SHOW LANCE INDEX JOBS {suffix}", "SHOW JOBS")

    def show_job(self) -> None:
        job = self.shared.some_job(self.rng)
        if job is not None:
            rows = self.sql(f"SHOW LANCE INDEX JOB {job}", "SHOW JOB")
            assert rows is None or (len(rows) == 1 and int(rows[0][0]) == job), rows

    def create_index(self) -> None:
        name, column, using, props = self.rng.choice(INDEXES)
        head = self.rng.choice(["CREATE INDEX", "CREATE INDEX", "CREATE OR REPLACE INDEX"])
        tail = f" PROPERTIES ({props})" if props else ""
        rows = self.sql(
            f"{head} {self.index_name(name)} ON {self.table()} ({column}) USING {using}{tail}",
            "CREATE INDEX",
        )
        self._job_ids(rows)

    def drop_index(self) -> None:
        name = self.rng.choice(INDEXES)[0]
        head = self.rng.choice(["DROP INDEX", "DROP INDEX IF EXISTS"])
        self._job_ids(self.sql(f"{head} {self.index_name(name)} ON {self.table()}", "DROP INDEX"))

    def _job_ids(self, rows: list[tuple[Any, ...]] | None) -> None:
        if rows is None:
            return
        assert len(rows) <= 1, rows  # one JobId, or none for an IF [NOT] EXISTS no-op
        for (job_id,) in rows:
            self.shared.received(self.number, int(job_id))

    def cancel(self) -> None:
        job = self.shared.some_job(self.rng)
        if job is not None:
            self.sql(f"CANCEL LANCE INDEX JOB {job}", "CANCEL")

    def resolve(self) -> None:
        job = self.shared.some_job(self.rng)
        if job is not None:
            self.sql(
                f"RESOLVE LANCE INDEX JOB {job} AS FORCE_RELEASE COMMENT 'load test {self.number}'",
                "RESOLVE",
            )

    def create_tag(self) -> None:
        self.tag_seq += 1
        tag = f"c{self.number}_{self.tag_seq}"
        rows = self.sql(f"CALL {self.catalog}.sys.create_tag('db.p', '{tag}')", "CALL create_tag")
        if rows is not None:
            assert rows[0][:2] == (1, tag) or rows[0][:2] == (True, tag), rows
            self.tags.append(tag)

    def delete_tag(self) -> None:
        if not self.tags:
            return
        tag = self.tags.pop(self.rng.randrange(len(self.tags)))
        if (
            self.sql(f"CALL {self.catalog}.sys.delete_tag('db.p', '{tag}')", "CALL delete_tag")
            is None
        ):
            self.tags.append(tag)  # a concurrent commit stopped it: the tag is still there

    def call_on_indexed(self) -> None:
        """On the table the index jobs work on: refused while a job is unresolved (the fence)."""
        self.tag_seq += 1
        tag = f"x{self.number}_{self.tag_seq}"
        if (
            self.sql(f"CALL {self.catalog}.sys.create_tag('db.t', '{tag}')", "CALL on indexed")
            is not None
        ):
            self.sql(f"CALL {self.catalog}.sys.delete_tag('db.t', '{tag}')", "CALL on indexed")

    def show_procedures(self) -> None:
        rows = self.sql(f"SHOW PROCEDURES FROM {self.catalog}", "SHOW PROCEDURES")
        assert rows is None or any("create_tag" in str(r) for r in rows), rows


def jobs_by_id(
    conn: pymysql.connections.Connection,
) -> tuple[Counter[int], dict[int, dict[str, str]]]:
    with conn.cursor() as cur:
        cur.execute("SHOW LANCE INDEX JOBS")
        names = [d[0] for d in cur.description]
        listed = [dict(zip(names, r)) for r in cur.fetchall()]
    return Counter(int(j["JobId"]) for j in listed), {int(j["JobId"]): j for j in listed}


def unresolved_per_name(jobs: dict[int, dict[str, str]]) -> dict[tuple[str, ...], list[int]]:
    """(catalog, db, table, lower(index)) → the unresolved jobs; UNKNOWN counts until
    force-released."""
    out: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for job_id, j in jobs.items():
        unresolved = (
            j["State"] in UNRESOLVED
            or (j["State"] == "UNKNOWN" and j["ForceReleased"] != "YES")
            or j["RefreshState"] in ("REQUIRED", "RUNNING", "FAILED")
        )
        if unresolved:
            out[(j["CatalogName"], j["DbName"], j["TableName"], j["IndexName"].lower())].append(
                job_id
            )
    return out


class Monitor(threading.Thread):
    """Samples the server's RSS and the job invariants while the clients run."""

    def __init__(self, server: ServerProcess, shared: Shared):
        super().__init__(name="load-monitor", daemon=True)
        assert server.proc is not None
        self.pid = server.proc.pid
        self.server = server
        self.shared = shared
        self.rss: list[int] = []
        self.snapshots = 0
        self.violations: list[str] = []

    def run(self) -> None:
        conn = self.server.connect()
        next_snapshot = 0.0
        try:
            while time.monotonic() < self.shared.deadline:
                self.rss.append(server_rss_bytes(self.pid))
                if time.monotonic() >= next_snapshot:
                    self.snapshot(conn)
                    next_snapshot = time.monotonic() + 1.0
                time.sleep(RSS_SAMPLE_SECONDS)
        except Exception as exc:  # noqa: BLE001
            self.violations.append(f"monitor: {type(exc).__name__}: {exc}")
        finally:
            conn.close()

    def snapshot(self, conn: pymysql.connections.Connection) -> None:
        with self.shared.lock:
            handed_out = set(self.shared.job_owner)
        counts, jobs = jobs_by_id(conn)
        self.snapshots += 1
        lost = handed_out - set(counts)  # handed out before the listing started: must be there
        if lost:
            self.violations.append(f"jobs missing from SHOW LANCE INDEX JOBS: {sorted(lost)}")
        doubled = [j for j, n in counts.items() if n > 1]
        if doubled:
            self.violations.append(f"jobs listed twice: {doubled}")
        for name, ids in unresolved_per_name(jobs).items():
            if len(ids) > 1:
                self.violations.append(f"{len(ids)} unresolved jobs for index {name}: {ids}")


def small_table(rows: int = 20) -> pa.Table:
    return pa.table({"id": pa.array(range(rows), pa.int64()), "v": [f"v{i}" for i in range(rows)]})


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


@pytest.fixture
def rig(tmp_path: Path) -> Any:
    wh = local_warehouse(tmp_path / "wh")
    wh.write("db", "t", vector_table())
    wh.write("db", "p", small_table())
    server = ServerProcess(data_dir=tmp_path / "data").start()
    try:
        set_config(
            server,
            enable_lance_index_mutation=True,
            enable_lance_index_local_file_mutation=True,
            lance_index_job_dispatcher_paused=False,
        )
        server.query(f"CREATE CATALOG lc PROPERTIES ('type' = 'lance', 'warehouse' = '{wh.root}')")
        yield server, "lc"
    finally:
        server.stop()


@pytest.mark.timeout(SECONDS + 240)
def test_concurrent_clients_mixing_everything(rig: Any, capsys: pytest.CaptureFixture[str]) -> None:
    server, catalog = rig
    shared = Shared(deadline=time.monotonic() + SECONDS)
    clients = [Client(i, server, catalog, shared) for i in range(CLIENTS)]
    monitor = Monitor(server, shared)
    rss_before = server_rss_bytes(monitor.pid)
    started = time.monotonic()
    monitor.start()
    for client in clients:
        client.start()
    for thread in [*clients, monitor]:
        thread.join(max(1.0, shared.deadline - time.monotonic()) + 90)
    elapsed = time.monotonic() - started
    stuck = [t.name for t in [*clients, monitor] if t.is_alive()]
    assert not stuck, f"threads still running 90 s after the deadline (a statement hung): {stuck}"
    assert server.alive(), server.log_text()[-3000:]

    # after the run: every JobId handed out is listed exactly once; the fence held
    set_config(server, lance_index_job_dispatcher_paused=True)
    with server.connect() as conn:
        counts, jobs = jobs_by_id(conn)
    handed_out = set(shared.job_owner)
    rss_after = server_rss_bytes(monitor.pid)
    samples = shared.select1
    total_ops = sum(shared.ops.values())
    latency = (
        f"p50 {percentile(samples, 0.5) * 1000:.1f} ms, p99 {percentile(samples, 0.99) * 1000:.1f} "
        f"ms, "
        f"mean {statistics.fmean(samples) * 1000:.1f} ms, max {max(samples) * 1000:.1f} ms"
        if samples
        else "no sample"
    )
    summary = [
        (
            f"load: {CLIENTS} clients x {SECONDS:g} s ({elapsed:.1f} s wall): {total_ops} "
            f"statements "
            f"({total_ops / elapsed:.0f}/s), {len(handed_out)} jobs admitted, {len(jobs)} listed"
        ),
        f"load: SELECT 1 latency over {len(samples)} samples: {latency}",
        (
            f"load: server RSS before {rss_before / 2**20:.0f} MiB, max during "
            f"{max(monitor.rss) / 2**20:.0f} MiB "
            f"({len(monitor.rss)} samples), after {rss_after / 2**20:.0f} MiB; limit "
            f"{RSS_LIMIT_BYTES / 2**20:.0f} MiB"
        ),
        f"load: invariant snapshots during the run: {monitor.snapshots}",
        f"load: statements {dict(sorted(shared.ops.items()))}",
        f"load: expected errors {dict(sorted(shared.expected.items()))}",
        f"load: job states at the end {dict(Counter(j['State'] for j in jobs.values()))}",
    ]
    with capsys.disabled():
        print("\n" + "\n".join(summary))

    assert not shared.unexpected, (
        f"{len(shared.unexpected)} unexpected errors, e.g. {shared.unexpected[:10]}"
    )
    assert not shared.duplicates, f"one JobId handed to two clients: {shared.duplicates[:10]}"
    assert not monitor.violations, monitor.violations[:10]
    assert handed_out <= set(counts), f"lost jobs: {sorted(handed_out - set(counts))}"
    assert all(n == 1 for n in counts.values()), [j for j, n in counts.items() if n > 1]
    overlapping = {k: v for k, v in unresolved_per_name(jobs).items() if len(v) > 1}
    assert not overlapping, overlapping
    assert max(monitor.rss) < RSS_LIMIT_BYTES and rss_after < RSS_LIMIT_BYTES
    assert (
        shared.ops["SELECT 1"] > 0
        and shared.ops["CREATE INDEX"] > 0
        and shared.ops["CALL create_tag"] > 0
    )
    assert handed_out, "no admission succeeded: the mix did not exercise admissions"
