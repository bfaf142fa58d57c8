"""Django on drydock through its MySQL backend (mysqlclient). A whole application
(tests/clients/programs/django_app.py, in its own process): `migrate` of the contrib apps on a
fresh database — CREATE TABLE, ALTER TABLE … ADD CONSTRAINT … FOREIGN KEY, MODIFY, indexes,
information_schema introspection — then the ORM as an application uses it, nested atomic() and
inspectdb (which reads the data dictionary). In this process: nested ``transaction.atomic()``
blocks are savepoints, and ``get_or_create`` is ``SAVEPOINT; INSERT … (1062); ROLLBACK TO
SAVEPOINT`` (engine/sql/savepoints.py). Settings are configured in this process."""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ServerProcess

django = pytest.importorskip("django", reason="Django is in pyproject's test extra")
try:
    import MySQLdb  # noqa: F401  Django's MySQL backend needs mysqlclient
except ImportError as exc:
    pytest.skip(
        f"mysqlclient does not import (pyproject's 'mysqlclient' extra builds it against "
        f"libmariadb-dev): {exc}",
        allow_module_level=True,
    )

from django.conf import settings  # noqa: E402

if not settings.configured:
    settings.configure(
        DATABASES={},
        INSTALLED_APPS=[],
        USE_TZ=False,
        DEFAULT_AUTO_FIELD="django.db.models.BigAutoField",
    )
    django.setup()

from django.db import IntegrityError, connections, models, transaction  # noqa: E402


class Item(models.Model):
    name = models.CharField(max_length=20, unique=True)
    code = models.CharField(max_length=20, unique=True)

    class Meta:
        app_label = "drydock_tests"
        db_table = "item"


def _use(server: ServerProcess, database: str) -> str:
    """A Django database alias for ``database`` on ``server`` (with Django's defaults)."""
    alias = f"drydock_{uuid.uuid4().hex[:8]}"
    database_settings = {
        "ENGINE": "django.db.backends.mysql",
        "NAME": database,
        "USER": "root",
        "PASSWORD": "",
        "HOST": server.host,
        "PORT": str(server.port),
        "OPTIONS": {"charset": "utf8mb4"},
    }
    configured = connections.configure_settings({"default": {}, alias: database_settings})
    connections.settings[alias] = configured[alias]
    return alias


def test_nested_atomic_and_get_or_create(shared_server: ServerProcess) -> None:
    database = f"dj_{uuid.uuid4().hex[:10]}"
    shared_server.query(f"CREATE DATABASE {database}")
    shared_server.query(
        f"CREATE TABLE {database}.item (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, "
        f"name VARCHAR(20) NOT NULL UNIQUE, code VARCHAR(20) NOT NULL UNIQUE)"
    )
    alias = _use(shared_server, database)
    items: Any = Item.objects.using(alias)
    try:
        with transaction.atomic(using=alias):
            first = items.create(name="a", code="1")
            found, created = items.get_or_create(name="a")
            assert (found.pk, created) == (first.pk, False)
            # the INSERT fails on `code` inside get_or_create's savepoint: rolled back to it
            with pytest.raises(IntegrityError):
                items.get_or_create(name="b", defaults={"code": "1"})
            made, created = items.get_or_create(name="c", defaults={"code": "3"})
            assert created and made.pk > first.pk  # the failed INSERT burnt an id, as in InnoDB
            with transaction.atomic(using=alias):  # a nested block that commits: RELEASE
                items.create(name="d", code="4")
            with pytest.raises(ValueError):
                with transaction.atomic(using=alias):  # one that fails: ROLLBACK TO
                    items.create(name="e", code="5")
                    raise ValueError("undo the block")
            assert sorted(items.values_list("name", flat=True)) == ["a", "c", "d"]
        assert sorted(items.values_list("name", flat=True)) == ["a", "c", "d"]
        assert shared_server.query(f"SELECT name FROM {database}.item ORDER BY name") == [
            ("a",),
            ("c",),
            ("d",),
        ]
    finally:
        connections[alias].close()


# -- a whole application, in a process of its own (Django's settings are per process)
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
