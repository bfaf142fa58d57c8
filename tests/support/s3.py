"""A local S3-compatible server (moto) on 127.0.0.1 for tests, started and stopped by the test."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

ACCESS_KEY = "drydock-test-access"
SECRET_KEY = "drydock-test-secret-5f1c"  # tests assert this never shows up anywhere


@dataclass
class S3Server:
    endpoint: str  # http://127.0.0.1:PORT
    proc: subprocess.Popen[bytes]

    def client(self):  # type: ignore[no-untyped-def]
        import boto3

        return boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            aws_access_key_id=ACCESS_KEY,
            aws_secret_access_key=SECRET_KEY,
            region_name="us-east-1",
        )

    def make_bucket(self, name: str) -> str:
        self.client().create_bucket(Bucket=name)
        return name

    @property
    def lance_storage_options(self) -> dict[str, str]:
        return {
            "aws_access_key_id": ACCESS_KEY,
            "aws_secret_access_key": SECRET_KEY,
            "aws_endpoint": self.endpoint,
            "aws_region": "us-east-1",
            "allow_http": "true",
        }

    def catalog_properties(self) -> dict[str, str]:
        """drydock's S3 catalog properties for this server."""
        return {
            "s3.endpoint": self.endpoint,
            "s3.access_key": ACCESS_KEY,
            "s3.secret_key": SECRET_KEY,
            "s3.region": "us-east-1",
            "use_path_style": "true",
        }


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_s3(timeout: float = 30.0) -> S3Server:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"moto server exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return S3Server(endpoint=f"http://127.0.0.1:{port}", proc=proc)
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("moto server did not start")


@pytest.fixture(scope="session")
def s3() -> Iterator[S3Server]:
    server = start_s3()
    yield server
    server.proc.terminate()
    try:
        server.proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.proc.kill()
