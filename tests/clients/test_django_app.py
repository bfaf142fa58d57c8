"""A Django application on drydock (tests/clients/programs/django_app.py, in its own process):
`migrate` of the contrib apps on a fresh database — CREATE TABLE, ALTER TABLE … ADD CONSTRAINT …
FOREIGN KEY, MODIFY, indexes, information_schema introspection — then the ORM as an application
uses it, nested atomic() (savepoints) and inspectdb (which reads the data dictionary)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ServerProcess

pytest.importorskip("django", reason="Django is in pyproject's test extra")
try:
    import MySQLdb  # noqa: F401  Django's MySQL backend needs mysqlclient
except ImportError as exc:
    pytest.skip(
        f"mysqlclient does not import (pyproject's 'mysqlclient' extra builds it against "
        f"libmariadb-dev): {exc}",
        allow_module_level=True,
    )

PROGRAM = Path(__file__).resolve().parent / "programs" / "django_app.py"
STEPS = [
    "migrate",
    "crud",
    "lookups",
    "aggregates",
    "nested_atomic",
    "sessions_delete_update",
    "inspectdb",
]


@pytest.fixture(scope="module")
def django_run(shared_server: ServerProcess) -> subprocess.CompletedProcess[str]:
    conn = shared_server.connect()
    conn.cursor().execute("CREATE DATABASE django_app")
    conn.close()
    return subprocess.run(
        [sys.executable, str(PROGRAM), shared_server.host, str(shared_server.port), "django_app"],
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.parametrize("step", STEPS)
def test_step(django_run: subprocess.CompletedProcess[str], step: str) -> None:
    done = {
        line.split(" ", 1)[1] for line in django_run.stdout.splitlines() if line.startswith("OK ")
    }
    assert step in done, (
        f"step {step} did not complete:\n{django_run.stdout}\n{django_run.stderr[-4000:]}"
    )
