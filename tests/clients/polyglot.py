"""Running client programs written in other languages (tests/clients/programs/) against a drydock
server, and reading what they print.

Every program takes ``host port database`` as arguments, creates that database and its tables
through its own client library, and prints one line per observed value::

    <check>.<item>\t<type>\t<value>

where <type> is the language's own name for the value's type (``number``, ``integer``,
``[]uint8``, ``BigDecimal``, ...) and <value> its text (NULL prints as type ``null``, value
empty). A check that raised prints ``<check>.error\terror\t<message>`` and goes on with the next
check, so one failure shows exactly which statement broke and leaves the other checks assertable.
The program ends with ``DONE`` on a line of its own.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ServerProcess

PROGRAMS = Path(__file__).resolve().parent / "programs"
RUN_TIMEOUT_SECONDS = 60
# Built clients (node_modules, Go binaries) are kept between runs here, outside the repository
# (tests/unit/test_repo_text.py reads every file under it).
CACHE = Path(
    os.environ.get("DRYDOCK_CLIENT_CACHE")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "drydock" / "clients"
)

Observation = tuple[str, str]  # (type, value)


@dataclass(frozen=True)
class Output:
    """What one program run printed, by ``check.item``."""

    values: dict[str, Observation]
    text: str
    database: str

    def check(self, name: str) -> dict[str, Observation]:
        """The items of one check (without the ``check.`` prefix); a check that raised fails
        here with its error message."""
        prefix = f"{name}."
        items = {k[len(prefix) :]: v for k, v in self.values.items() if k.startswith(prefix)}
        assert "error" not in items, f"{name} raised: {items['error'][1]}\n{self.text}"
        assert items, f"{name} printed nothing\n{self.text}"
        return items


def require(program: str, install_hint: str) -> str:
    """The path of ``program``, or pytest.skip saying how to install it."""
    path = shutil.which(program)
    if path is None:
        pytest.skip(f"{program} is not installed: {install_hint}")
    return path


def fresh_database(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:10]}"


def run(
    command: list[str], server: ServerProcess, database: str, env: dict[str, str] | None = None
) -> Output:
    """Run ``command host port database`` with a bounded timeout and parse its lines."""
    result = subprocess.run(
        [*command, server.host, str(server.port), database],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_SECONDS,
        env={**os.environ, **(env or {})},
    )
    text = f"exit {result.returncode}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr[-3000:]}"
    values: dict[str, Observation] = {}
    lines = result.stdout.splitlines()
    for line in lines:
        if line == "DONE":
            continue
        key, kind, value = line.split("\t", 2)
        assert key not in values, f"{key} printed twice\n{text}"
        values[key] = (kind, value)
    assert lines and lines[-1] == "DONE", f"program did not finish\n{text}"
    assert result.returncode == 0, text
    return Output(values, text, database)
