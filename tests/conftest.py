"""Shared fixtures: a real drydock server process on 127.0.0.1, started and stopped by the test."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pymysql
import pytest

# PostgreSQL fixtures for every module

ROOT = Path(__file__).resolve().parent.parent
# Fixtures every test may ask for by name (no import in the test module): PostgreSQL, a local S3
# server, the Paimon procedures' server and hook directory.
pytest_plugins = ["tests.support.pg", "tests.support.s3", "tests.support.paimon_procs"]
READY_TIMEOUT_SECONDS = 30.0


@dataclass
class ServerProcess:
    """A `drydock serve` child process. restart() keeps the data directory."""

    data_dir: Path
    extra_args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    host: str = "127.0.0.1"
    port: int = 0
    proc: subprocess.Popen[str] | None = None
    log_path: Path | None = None

    def start(self) -> ServerProcess:
        self.log_path = self.data_dir.parent / f"{self.data_dir.name}.server.log"
        log = open(self.log_path, "a")
        cmd = [
            sys.executable,
            "-m",
            "drydock.server",
            "serve",
            "--host",
            self.host,
            "--port",
            str(self.port),
            "--data-dir",
            str(self.data_dir),
            "--log-level",
            "INFO",
            *self.extra_args,
        ]
        self.proc = subprocess.Popen(
            cmd,
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
            env={**os.environ, **self.env},
        )
        deadline = time.monotonic() + READY_TIMEOUT_SECONDS
        assert self.proc.stdout is not None
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                if self.proc.poll() is not None:
                    raise RuntimeError(
                        f"drydock exited with {self.proc.returncode}: {self.log_text()}"
                    )
                continue
            if line.startswith("drydock ready on "):
                self.port = int(line.strip().rsplit(":", 1)[1])
                return self
        self.kill9()
        raise RuntimeError(f"drydock not ready within {READY_TIMEOUT_SECONDS}s: {self.log_text()}")

    def log_text(self) -> str:
        return self.log_path.read_text() if self.log_path and self.log_path.exists() else ""

    def stop(self) -> int | None:
        if self.proc is None or self.proc.poll() is not None:
            return None if self.proc is None else self.proc.returncode
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait(timeout=15)

    def kill9(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=15)

    def restart(self) -> ServerProcess:
        self.stop()
        return self.start()

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def connect(
        self, user: str = "root", password: str = "", database: str | None = None, **kwargs: Any
    ) -> pymysql.connections.Connection:
        return pymysql.connect(
            host=self.host,
            port=self.port,
            user=user,
            password=password,
            database=database,
            connect_timeout=10,
            read_timeout=60,
            write_timeout=60,
            autocommit=True,
            **kwargs,
        )

    def query(self, sql: str, *args: Any) -> list[tuple[Any, ...]]:
        with self.connect() as conn, conn.cursor() as cur:
            cur.execute(sql, args or None)
            return list(cur.fetchall())


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    """A fresh server with its own data directory, for one test."""
    proc = ServerProcess(data_dir=tmp_path / "data").start()
    yield proc
    proc.stop()


@pytest.fixture(scope="module")
def shared_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One server for a whole test module (tests must not depend on each other's state)."""
    proc = ServerProcess(data_dir=tmp_path_factory.mktemp("shared") / "data").start()
    yield proc
    proc.stop()


def make_server(tmp_path: Path, *args: str, **env: str) -> ServerProcess:
    return ServerProcess(data_dir=tmp_path / "data", extra_args=list(args), env=dict(env))


# -- markers: what a test needs beyond this machine's Python (pyproject.toml registers them)
# ---------------
# `scripts/test --fast` runs tests/unit and tests/grammar without them; CI runs everything.
SLOW_MODULES = frozenset(
    {  # over ~30 s each on 2 cores (measured with --durations)
        "tests/wire/test_fuzz.py",
        "tests/wire/test_load.py",
        "tests/jobs/test_crash_matrix.py",
        "tests/clients/test_clients.py",
        "tests/security/test_streaming.py",
    }
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        if "pg_cluster" in fixtures:
            item.add_marker(pytest.mark.pg)
        if item.path.name == "test_ray_backend.py":
            item.add_marker(pytest.mark.ray)
        if item.path.relative_to(ROOT).as_posix() in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
