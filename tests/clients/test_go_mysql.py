"""Go's database/sql with go-sql-driver/mysql (tests/clients/programs/go_mysql.go) against
drydock: ``parseTime=true`` DATE / DATETIME into time.Time, prepared statements (the driver
prepares on the server: binary protocol) with int64 min / max, uint64 max, float64, []byte and
NULL parameters, and a transaction committed and one rolled back.

Built offline against Debian's golang-github-go-sql-driver-mysql-dev (sources under
/usr/share/gocode, GOPATH mode); the binary is cached in the client cache by source hash.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

import pytest

from tests.clients import polyglot
from tests.conftest import ServerProcess

HINT = "apt-get install golang-go golang-github-go-sql-driver-mysql-dev"
GOPATH = Path(os.environ.get("DRYDOCK_GOPATH", "/usr/share/gocode"))
BUILD_TIMEOUT_SECONDS = 300
SOURCE = polyglot.PROGRAMS / "go_mysql.go"


@pytest.fixture(scope="module")
def binary() -> Path:
    go = polyglot.require("go", HINT)
    if not (GOPATH / "src" / "github.com" / "go-sql-driver" / "mysql").is_dir():
        pytest.skip(f"go-sql-driver/mysql is not under {GOPATH}/src: {HINT}")
    digest = hashlib.sha256(SOURCE.read_bytes()).hexdigest()[:16]
    out_dir = polyglot.CACHE / "go"
    target = out_dir / f"go_mysql-{digest}"
    if target.exists():
        return target
    work = out_dir / f"src-{digest}"
    work.mkdir(parents=True, exist_ok=True)
    (work / "main.go").write_bytes(SOURCE.read_bytes())
    env = {
        **os.environ,
        "GO111MODULE": "off",  # GOPATH mode: no module proxy, no network
        "GOPATH": str(GOPATH),
        "GOCACHE": str(out_dir / "build-cache"),
        "GOFLAGS": "",
    }
    result = subprocess.run(
        [go, "build", "-o", str(target), "main.go"],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT_SECONDS,
        env=env,
    )
    assert result.returncode == 0, f"go build failed:\n{result.stdout}\n{result.stderr}"
    return target


@pytest.fixture(scope="module")
def output(binary: Path, shared_server: ServerProcess) -> polyglot.Output:
    return polyglot.run(
        [str(binary)], shared_server, polyglot.fresh_database("go"), env={"TZ": "UTC"}
    )


def test_prepared_statement_parameters_and_types(output: polyglot.Output) -> None:
    assert output.check("setup") == {"ok": ("int", "1")}
    assert output.check("prepared") == {
        "affected": ("int64", "1"),
        "0.id": ("int64", "-9223372036854775808"),
        "0.u": ("null", ""),
        "0.f": ("null", ""),
        "0.b": ("null", ""),
        "0.s": ("null", ""),
        "0.d": ("null", ""),
        "0.ts": ("null", ""),
        "1.id": ("int64", "9223372036854775807"),
        # the driver hands an unsigned BIGINT above int64's range over as its decimal text
        "1.u": ("[]uint8", '"18446744073709551615"'),
        "1.f": ("float64", "0.25"),
        "1.b": ("[]uint8", '"\\x00\\xffa"'),
        "1.s": ("[]uint8", '"it\'s"'),
        "1.d": ("time.Time", "2024-05-06T00:00:00Z"),
        "1.ts": ("time.Time", "2024-05-06T07:08:09Z"),
    }


def test_parse_time_into_time_values(output: polyglot.Output) -> None:
    assert output.check("parse_time") == {
        "d": ("time.Time", "2024-05-06T00:00:00Z"),
        "ts": ("time.Time", "2024-05-06T07:08:09Z"),
    }


def test_transactions_commit_and_rollback(output: polyglot.Output) -> None:
    assert output.check("tx") == {
        "inside": ("int64", "2"),  # the open transaction sees its own insert
        "0.id": ("[]uint8", '"1"'),  # a query without arguments is sent as text
        "0.s": ("[]uint8", '"committed"'),
    }


def test_varbinary_column(output: polyglot.Output) -> None:
    assert output.check("varbinary") == {"ok": ("int", "1")}
