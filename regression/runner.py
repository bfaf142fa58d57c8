"""`python -m drydock.regression`: start a server (or use --url), run the selected suites, report.

Prints one line per suite (PASS, FAIL or SKIP with the reason) and a closing
`N passed, N failed, N skipped`; exits non-zero if any failed.
"""

from __future__ import annotations

import argparse
import fnmatch
import importlib
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

from drydock.regression.framework import SUITES, Config, Context, Suite, SuiteSkipped

ROOT = Path(__file__).resolve().parent.parent
SUITE_DIR = Path(__file__).resolve().parent / "suites"
DEFAULT_CONF = Path(__file__).resolve().parent / "conf" / "regression.toml"


def load_suites() -> None:
    for path in sorted(SUITE_DIR.glob("*.py")):
        if path.name != "__init__.py":
            importlib.import_module(f"regression.suites.{path.stem}")


def start_server(data_dir: Path) -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "drydock.server",
            "serve",
            "--port",
            "0",
            "--data-dir",
            str(data_dir),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    deadline = time.monotonic() + 60
    assert proc.stdout is not None
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if line.startswith("drydock ready on "):
            return proc, int(line.strip().rsplit(":", 1)[1])
        if not line and proc.poll() is not None:
            break
    proc.kill()
    raise SystemExit("regression: drydock did not start")


def start_s3() -> tuple[subprocess.Popen[bytes], str]:
    """moto's S3 server on a free loopback port."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return proc, f"http://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("regression: the local S3 server did not start")


def parse_url(url: str) -> tuple[str, int]:
    m = re.match(r"(?:jdbc:)?mysql://([^:/]+):(\d+)", url)
    if not m:
        raise SystemExit(f"regression: cannot parse url {url!r} (want jdbc:mysql://host:port/)")
    return m.group(1), int(m.group(2))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m drydock.regression", description=__doc__)
    parser.add_argument(
        "--url", help="jdbc:mysql://host:port/ of a running server (default: start one)"
    )
    parser.add_argument(
        "--suite", action="append", default=[], help="suite name or glob (repeatable)"
    )
    parser.add_argument(
        "--group", action="append", default=[], help="run suites in this group (repeatable)"
    )
    parser.add_argument(
        "--gen-out", action="store_true", help="write regression/data/<suite>.out files"
    )
    parser.add_argument(
        "--conf", type=Path, default=DEFAULT_CONF, help="TOML with an [otherConfigs] table"
    )
    args = parser.parse_args(argv)

    load_suites()
    selected = [
        s
        for s in SUITES
        if (not args.suite or any(fnmatch.fnmatch(s.name, p) for p in args.suite))
        and (not args.group or s.groups & set(args.group))
    ]
    other = {}
    if args.conf.exists():
        other = {
            k: str(v)
            for k, v in tomllib.loads(args.conf.read_text()).get("otherConfigs", {}).items()
        }
    server = None
    s3_proc: subprocess.Popen[bytes] | None = None
    tmp = tempfile.TemporaryDirectory(prefix="drydock-regression-")
    try:
        if args.url:
            host, port = parse_url(args.url)
        else:
            server, port = start_server(Path(tmp.name) / "data")
            host = "127.0.0.1"
        if any("s3" in d.groups for d in selected):  # a local S3 server for the S3 suites
            s3_proc, endpoint = start_s3()
            other.update(
                s3Endpoint=endpoint,
                s3AccessKey="regression-access",
                s3SecretKey="regression-secret",
            )
        other.setdefault("scratchDir", str(Path(tmp.name) / "scratch"))
        os.makedirs(other["scratchDir"], exist_ok=True)
        config = Config(
            jdbc_url=f"jdbc:mysql://{host}:{port}/", host=host, port=port, other_configs=other
        )
        passed = failed = skipped = 0
        for definition in selected:
            started = time.monotonic()
            suite = None
            try:
                suite = Suite(definition, Context(config), args.gen_out)
                definition.body(suite)
                if suite.statements == 0:  # returned early (a switch off?): it tested nothing
                    raise SuiteSkipped("the suite ran no statement")
                passed += 1
                print(f"PASS {definition.name} ({time.monotonic() - started:.1f}s)", flush=True)
            except SuiteSkipped as exc:
                skipped += 1
                print(
                    f"SKIP {definition.name} ({time.monotonic() - started:.1f}s): {exc}", flush=True
                )
            except Exception as exc:  # noqa: BLE001 - a failing suite is reported, the run goes on
                failed += 1
                print(
                    f"FAIL {definition.name} ({time.monotonic() - started:.1f}s): "
                    f"{type(exc).__name__}: {exc}",
                    flush=True,
                )
            finally:
                if suite is not None:
                    suite.close()
        print(f"regression: {passed} passed, {failed} failed, {skipped} skipped", flush=True)
        return 1 if failed or not selected else 0
    finally:
        if s3_proc is not None:
            s3_proc.kill()
            s3_proc.wait(timeout=20)
        if server is not None:
            server.terminate()
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
        tmp.cleanup()
