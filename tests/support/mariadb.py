"""A real MariaDB server started by the test: the ground truth for how MySQL text reads
(tests/security/test_sql_mode_escaping.py, tests/grammar/test_lexer_mariadb.py)."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import pymysql
import pytest


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def mariadb_server(extra_args: Sequence[str] = ()) -> Iterator[tuple[str, int]]:
    """A MariaDB server of its own in a temporary directory, on 127.0.0.1: (host, port). Skips
    the test (printing why) when mariadbd or mariadb-install-db is not installed. ``extra_args``
    are more mariadbd options (server defaults such as ``--sql-mode=…``)."""
    mariadbd = (
        shutil.which("mariadbd")
        or shutil.which("mysqld")
        or ("/usr/sbin/mariadbd" if os.path.exists("/usr/sbin/mariadbd") else None)
    )
    install_db = shutil.which("mariadb-install-db") or shutil.which("mysql_install_db")
    if mariadbd is None or install_db is None:
        print("SKIP reason: mariadbd / mariadb-install-db not installed")
        pytest.skip("mariadbd / mariadb-install-db not installed: no ground truth to compare with")
    root = Path(tempfile.mkdtemp(prefix="drydock-mariadb-"))
    data, sock, port = root / "data", root / "mysqld.sock", _free_port()
    user = ["--user=root"] if os.geteuid() == 0 else []
    subprocess.run(
        [
            install_db,
            f"--datadir={data}",
            "--auth-root-authentication-method=normal",
            "--skip-test-db",
            *user,
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    proc = subprocess.Popen(
        [
            mariadbd,
            "--no-defaults",
            f"--datadir={data}",
            f"--socket={sock}",
            f"--port={port}",
            "--bind-address=127.0.0.1",
            "--skip-grant-tables",
            f"--pid-file={root / 'pid'}",
            *user,
            *extra_args,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                pymysql.connect(host="127.0.0.1", port=port, user="root", password="").close()
                break
            except pymysql.err.OperationalError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    pytest.fail("MariaDB did not start")  # installed: a failure, never a skip
                time.sleep(0.3)
        yield "127.0.0.1", port
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        shutil.rmtree(root, ignore_errors=True)
