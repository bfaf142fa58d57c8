"""Django's ORM on drydock through its MySQL backend (mysqlclient): nested ``transaction.atomic()``
blocks are savepoints, and ``get_or_create`` is ``SAVEPOINT; INSERT … (1062); ROLLBACK TO
SAVEPOINT`` (engine/sql/savepoints.py). Settings are configured in this process."""

from __future__ import annotations

import uuid
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
