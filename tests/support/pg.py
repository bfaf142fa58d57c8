"""A real PostgreSQL cluster for the tests: initdb + pg_ctl in a temp dir, on 127.0.0.1, stopped at
the end.

Session-scoped: one cluster for the whole run; each test gets its own schema (``pg_dsn``), so tests
never see each other's rows. Tests run as root here, and PostgreSQL refuses to run as root, so the
cluster belongs to the ``postgres`` system user (``runuser``). Skips, saying why, when the
PostgreSQL binaries or psycopg are missing (``.ci/run`` installs the ``postgresql`` package).
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import pytest

from drydock.engine.store.metastore import MetadataStore, MetaStore

PG_USER = "drydock"
PG_PASSWORD = "pg-secret-Zq7"  # tests assert this text never reaches logs or errors
PG_DB = "drydock"
START_TIMEOUT_SECONDS = 30


def _bin_dir() -> Path | None:
    # Debian's versioned directory first: it has every tool (PATH may hold only an initdb link).
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), reverse=True)
    if candidates:
        return Path(candidates[0]).parent
    found = shutil.which("initdb")
    return Path(found).parent if found and Path(found).with_name("pg_ctl").exists() else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class PgCluster:
    bin_dir: Path
    root: Path
    port: int
    as_user: list[str]

    @property
    def data(self) -> Path:
        return self.root / "data"

    def run(self, tool: str, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*self.as_user, str(self.bin_dir / tool), *args],
            capture_output=True,
            text=True,
            timeout=START_TIMEOUT_SECONDS + 30,
            check=True,
            cwd=self.root,
        )

    def start(self) -> None:
        self.run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-l",
            str(self.root / "server.log"),
            "-w",
            "-t",
            str(START_TIMEOUT_SECONDS),
            "-o",
            f"-h 127.0.0.1 -p {self.port} -k {self.root}",
            "start",
        )

    def stop(self, mode: str = "fast") -> None:
        subprocess.run(
            [
                *self.as_user,
                str(self.bin_dir / "pg_ctl"),
                "-D",
                str(self.data),
                "-m",
                mode,
                "-w",
                "-t",
                str(START_TIMEOUT_SECONDS),
                "stop",
            ],
            capture_output=True,
            timeout=60,
            check=False,
        )

    def dsn(self, schema: str | None = None, password: bool = True) -> str:
        secret = f":{quote(PG_PASSWORD)}" if password else ""
        dsn = f"postgresql://{PG_USER}{secret}@127.0.0.1:{self.port}/{PG_DB}"
        return dsn + (f"?options=-csearch_path%3D{schema}" if schema else "")

    def new_schema(self) -> str:
        import psycopg

        schema = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.dsn(), autocommit=True, connect_timeout=10) as conn:
            conn.execute(f"CREATE SCHEMA {schema}")
        return schema


class Unavailable(Exception):
    """Why no cluster can be started here (the fixture skips with it)."""


@contextlib.contextmanager
def bench_cluster(prefix: str) -> Iterator[tuple[PgCluster, Path] | None]:
    """For a benchmark: a started cluster and a temp directory, both removed after; None (with the
    reason printed) when no cluster can be started here."""
    try:
        cluster = start_cluster()
    except Unavailable as why:
        print(f"skipped: {why}")
        yield None
        return
    tmp = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield cluster, tmp
    finally:
        cluster.stop()
        shutil.rmtree(cluster.root, ignore_errors=True)
        shutil.rmtree(tmp, ignore_errors=True)


def start_cluster() -> PgCluster:
    """A new cluster, started; the caller stops it (``stop()``) and removes ``root``."""
    bin_dir = _bin_dir()
    if bin_dir is None:
        raise Unavailable(
            "PostgreSQL is not installed (no initdb on PATH or under /usr/lib/postgresql/*/bin)"
        )
    as_user: list[str] = []
    if os.geteuid() == 0:  # initdb refuses root
        runuser = shutil.which("runuser")
        if runuser is None:
            raise Unavailable(
                "running as root without runuser: cannot start PostgreSQL as the postgres user"
            )
        as_user = [runuser, "-u", "postgres", "--"]
    # Not under pytest's tmp dir: its 0700 parents would keep the postgres user out.
    root = Path(tempfile.mkdtemp(prefix="drydock-pg-"))
    if as_user:
        shutil.chown(root, "postgres", "postgres")
    cluster = PgCluster(bin_dir=bin_dir, root=root, port=_free_port(), as_user=as_user)
    pwfile = root / "pw"
    pwfile.write_text(PG_PASSWORD + "\n")
    if as_user:
        shutil.chown(pwfile, "postgres", "postgres")
    try:
        # Local socket connections (the fixture's own setup) trust the OS user; TCP needs the
        # password.
        cluster.run(
            "initdb",
            "-D",
            str(cluster.data),
            "-U",
            PG_USER,
            f"--pwfile={pwfile}",
            "-E",
            "UTF8",
            "--auth-local=trust",
            "--auth-host=scram-sha-256",
            "--no-sync",
        )
        cluster.start()
        cluster.run("createdb", "-h", str(root), "-p", str(cluster.port), "-U", PG_USER, PG_DB)
    except subprocess.CalledProcessError as exc:
        log = (root / "server.log").read_text() if (root / "server.log").exists() else ""
        cluster.stop("immediate")
        shutil.rmtree(root, ignore_errors=True)
        raise RuntimeError(f"PostgreSQL did not start: {exc.stderr}\n{log}") from None
    return cluster


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    pytest.importorskip(
        "psycopg", reason="psycopg is not installed (pip install 'psycopg[binary]')"
    )
    try:
        cluster = start_cluster()
    except Unavailable as why:
        pytest.skip(str(why))
    try:
        yield cluster
    finally:
        cluster.stop()
        shutil.rmtree(cluster.root, ignore_errors=True)


@pytest.fixture
def pg_dsn(pg_cluster: PgCluster) -> str:
    """A PostgreSQL metadata store URL of its own (a fresh schema) for one test."""
    return pg_cluster.dsn(pg_cluster.new_schema())


@pytest.fixture(params=["sqlite", "postgresql"])
def store_opener(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[Callable[[], MetadataStore]]:
    """Opens (and re-opens) one metadata store, SQLite in ``tmp_path`` or a fresh PostgreSQL schema:
    the tests that take it run against both implementations."""
    if request.param == "sqlite":

        def opener() -> MetadataStore:
            return MetaStore(tmp_path / "meta.sqlite")
    else:
        dsn = request.getfixturevalue("pg_dsn")

        def opener() -> MetadataStore:
            from drydock.engine.store.metastore_pg import PostgresStore

            return PostgresStore(dsn)

    opened: list[MetadataStore] = []

    def tracked() -> MetadataStore:
        opened.append(opener())
        return opened[-1]

    yield tracked
    for store in opened:
        with contextlib.suppress(Exception):  # a test may have closed it already
            store.close()


@dataclass
class StoreChoice:
    """Which metadata store a server-level test runs on: ``args`` for ``drydock serve``, ``open``
    to inspect the store directly (after the server stopped)."""

    kind: str
    data_dir: Path
    dsn: str = ""

    @property
    def args(self) -> list[str]:
        return ["--metadata-store", self.dsn] if self.dsn else []

    def open(self) -> MetadataStore:
        if not self.dsn:
            return MetaStore(self.data_dir / "meta.sqlite")
        from drydock.engine.store.metastore_pg import PostgresStore

        return PostgresStore(self.dsn)


def store_choice_for(request: pytest.FixtureRequest, data_dir: Path, kind: str) -> StoreChoice:
    if kind == "sqlite":
        return StoreChoice(kind, data_dir)
    return StoreChoice(kind, data_dir, request.getfixturevalue("pg_dsn"))
