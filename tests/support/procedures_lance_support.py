"""Helpers for the Lance procedure tests: tables written by pylance (the external writer), CALL
over the wire, the cross-engine check, and the test-only pause point (DRYDOCK_FAULT_PROCEDURE_DIR).

The cross-engine check opens the table fresh with pylance *and* with DuckDB (over the pylance
dataset) and compares rows, versions, tags and branches with what the test expects; it also reads
the table through drydock, which must see the procedure's change without a manual REFRESH.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import lance
import pyarrow as pa
import pymysql

from tests.conftest import ServerProcess
from tests.support.lance_fixtures import Warehouse, create_catalog, unique

FAULT_DIR_ENV = "DRYDOCK_FAULT_PROCEDURE_DIR"
OLD = time.time() - 3 * 86400  # an mtime well before the default older_than (now - 1 day)


def ids_table(start: int, n: int) -> pa.Table:
    return pa.table(
        {
            "id": pa.array(range(start, start + n), pa.int64()),
            "cat": [f"c{i % 3}" for i in range(start, start + n)],
        }
    )


@dataclass
class Table:
    """``db.<name>`` in warehouse ``wh``, seen by drydock as catalog ``catalog``."""

    server: ServerProcess
    wh: Warehouse
    catalog: str
    name: str
    db: str = "db"
    next_id: int = 0
    ids: list[int] = field(
        default_factory=list
    )  # what the latest version holds (kept by the tests)

    @property
    def arg(self) -> str:
        return f"{self.db}.{self.name}"

    @property
    def fq(self) -> str:
        return f"{self.catalog}.{self.db}.{self.name}"

    @property
    def uri(self) -> str:
        return self.wh.uri(self.db, self.name)

    @property
    def local_path(self) -> Path:
        assert self.wh.kind == "local"
        return Path(self.uri)

    def ds(self, version: Any = None) -> lance.LanceDataset:
        return lance.dataset(
            self.uri, version=version, storage_options=self.wh.storage_options or None
        )

    def append(self, n: int = 10, **kwargs: Any) -> lance.LanceDataset:
        """An external commit of ``n`` new rows."""
        data = ids_table(self.next_id, n)
        mode = "append" if self.next_id else "create"
        ds = lance.write_dataset(
            data, self.uri, mode=mode, storage_options=self.wh.storage_options or None, **kwargs
        )
        self.ids += list(range(self.next_id, self.next_id + n))
        self.next_id += n
        return ds

    def versions(self) -> list[int]:
        return [v["version"] for v in self.ds().versions()]

    def tags(self) -> dict[str, int]:
        return {name: t["version"] for name, t in self.ds().tags.list().items()}

    def branches(self) -> list[str]:
        return sorted(self.ds().branches.list())

    def state(self) -> tuple[Any, ...]:
        return self.versions(), self.tags(), self.branches(), self.files()

    def files(self) -> list[str]:
        """Every file under the table root (local), relative."""
        if self.wh.kind != "local":
            return sorted(f"{r['path']}" for r in self.ds().all_files().read_all().to_pylist())
        root = self.local_path
        return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def make_table(
    server: ServerProcess,
    wh: Warehouse,
    versions: int = 3,
    rows: int = 10,
    catalog: str | None = None,
) -> Table:
    t = Table(server, wh, catalog or create_catalog(server, wh), unique("t"))
    for _ in range(versions):
        t.append(rows)
    return t


def check(
    t: Table,
    ids: list[int] | None = None,
    versions: list[int] | None = None,
    tags: dict[str, int] | None = None,
    branches: list[str] | None = None,
) -> None:
    """The cross-engine check: fresh pylance, DuckDB over a fresh dataset, and drydock."""
    expected = sorted(t.ids if ids is None else ids)
    ds = t.ds()
    assert sorted(ds.to_table(columns=["id"])["id"].to_pylist()) == expected
    con = duckdb.connect()
    con.register("lance_table", t.ds())
    assert [
        r[0] for r in con.execute("SELECT id FROM lance_table ORDER BY id").fetchall()
    ] == expected
    con.close()
    if versions is not None:
        assert t.versions() == versions
    if tags is not None:
        assert t.tags() == tags
    if branches is not None:
        assert t.branches() == branches
    count = call(t.server, f"SELECT count(*), coalesce(sum(id), 0) FROM {t.fq}")[1]
    assert count == [(len(expected), sum(expected))]


# -- over the wire
# ------------------------------------------------------------------------------------
def call(
    server: ServerProcess, sql: str, user: str = "root", password: str = ""
) -> tuple[list[str], list[tuple]]:
    with server.connect(user=user, password=password) as conn, conn.cursor() as cur:
        cur.execute(sql)
        return [d[0] for d in cur.description or []], list(cur.fetchall())


def warnings_of(server: ServerProcess, sql: str) -> tuple[list[tuple], list[tuple]]:
    with server.connect() as conn, conn.cursor() as cur:
        cur.execute(sql)
        result = list(cur.fetchall())
        cur.execute("SHOW WARNINGS")
        return result, list(cur.fetchall())


def fails(
    server: ServerProcess, sql: str, user: str = "root", password: str = ""
) -> tuple[int, str]:
    with server.connect(user=user, password=password) as conn, conn.cursor() as cur:
        try:
            cur.execute(sql)
        except pymysql.err.MySQLError as exc:
            return exc.args[0], exc.args[1]
    raise AssertionError(f"no error from {sql}")


# -- files
# -------------------------------------------------------------------------------------------------
def backdate(root: Path, mtime: float = OLD) -> None:
    """Every file under ``root`` looks old (so only references protect it)."""
    for p in root.rglob("*"):
        if p.is_file():
            os.utime(p, (mtime, mtime))


def stray(root: Path, rel: str, size: int = 64, mtime: float | None = OLD) -> str:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x" * size)
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return rel


# -- the pause point
# -------------------------------------------------------------------------------------
@dataclass
class PausedCall:
    outcome: dict[str, Any] = field(default_factory=dict)

    @property
    def error(self) -> tuple[int, str]:
        assert "error" in self.outcome, self.outcome
        return self.outcome["error"]

    @property
    def rows(self) -> list[tuple]:
        assert "rows" in self.outcome, self.outcome
        return self.outcome["rows"]


@contextmanager
def paused(
    server: ServerProcess, fault_dir: Path, point: str, sql: str, connection: Any = None
) -> Iterator[PausedCall]:
    """Run ``sql`` in a thread, stopped at pause point ``point`` while the body runs (the body
    commits from outside, or kills the query); then let it go on and wait for its outcome."""
    (fault_dir / f"{point}.paused").unlink(missing_ok=True)
    (fault_dir / f"{point}.arm").touch()
    call_state = PausedCall()

    def run() -> None:
        try:
            if connection is not None:
                with connection.cursor() as cur:
                    cur.execute(sql)
                    call_state.outcome["rows"] = list(cur.fetchall())
            else:
                call_state.outcome["rows"] = call(server, sql)[1]
        except pymysql.err.MySQLError as exc:
            call_state.outcome["error"] = (exc.args[0], exc.args[1])

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not (fault_dir / f"{point}.paused").exists():
        if not thread.is_alive() or time.monotonic() > deadline:
            (fault_dir / f"{point}.arm").unlink(missing_ok=True)
            raise AssertionError(f"the call never reached {point}: {call_state.outcome}")
        time.sleep(0.01)
    try:
        yield call_state
    finally:
        (fault_dir / f"{point}.resume").touch()
        thread.join(60)
        (fault_dir / f"{point}.paused").unlink(missing_ok=True)
        (fault_dir / f"{point}.resume").unlink(missing_ok=True)  # a cancelled call never took it
    assert not thread.is_alive()
