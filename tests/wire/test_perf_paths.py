"""The fast paths of bench/bench_wire.py keep their meaning: typed result columns (mysql-mimic's own
inference, no peeking), the parse cache (never secrets, never errors, bounded) and inline statements
that never wait on I/O."""

from __future__ import annotations

import contextlib
import datetime as dt
import decimal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mysql_mimic import ResultColumn
from mysql_mimic.results import infer_type
from mysql_mimic.types import ColumnType

from drydock.engine.support.lru import Lru
from drydock.engine import ast
from drydock.engine.store.config import Config
from drydock.engine.errors import DrydockError
from drydock.engine.store.metastore import MetaStore
from drydock.engine.results import Result
from drydock.grammar import parser
from drydock.server.results import to_wire


# -- typed columns
# ------------------------------------------------------------------------------------
def test_untyped_result_gets_mimic_inferred_columns_from_the_first_non_null_value() -> None:
    rows = [(None, None, "a", None), (1, None, "b", 2.5), (None, None, None, dt.date(2024, 1, 1))]
    result = Result(columns=["i", "n", "s", "f"], rows=rows)
    wire_rows, columns = to_wire(result)  # type: ignore[misc]
    assert wire_rows is rows  # untouched: no conversion for inferred columns, as upstream
    assert all(isinstance(c, ResultColumn) for c in columns)
    assert [(c.name, c.type) for c in columns] == [
        ("i", infer_type(1)),
        ("n", ColumnType.NULL),
        ("s", infer_type("a")),
        ("f", infer_type(2.5)),
    ]


@pytest.mark.parametrize(
    "value",
    [
        1,
        True,
        "x",
        b"x",
        1.5,
        decimal.Decimal("1.5"),
        dt.date(2024, 1, 1),
        dt.datetime(2024, 1, 1, 2, 3),
        dt.timedelta(seconds=3),
    ],
)
def test_inference_is_mysql_mimics(value: Any) -> None:
    (column,) = to_wire(Result(columns=["c"], rows=[(value,)]))[1]  # type: ignore[index]
    assert column.type == infer_type(value)


# -- the parse cache
# ----------------------------------------------------------------------------------
@pytest.fixture
def empty_cache() -> Iterator[None]:
    parser.clear_cache()
    yield
    parser.clear_cache()


def test_repeated_owned_statement_is_parsed_once(empty_cache: None) -> None:
    sql = "ADMIN SHOW FRONTEND CONFIG LIKE 'x'"
    first = parser.parse(sql)
    assert first == ast.AdminShowFrontendConfig(like="x")
    assert parser.parse(sql) is first
    assert parser.parse("SELECT 1") is None and "SELECT 1" not in parser._cache  # noqa: SLF001


def test_errors_are_never_cached(empty_cache: None) -> None:
    sql = "ADMIN SHOW FRONTEND CONFIG LIK 'x'"
    for _ in range(2):
        with pytest.raises(DrydockError) as err:
            parser.parse(sql)
        assert err.value.code == 1064
    assert sql not in parser._cache  # noqa: SLF001


@pytest.mark.parametrize(
    "sql",
    [
        "CREATE USER 'u'@'%' IDENTIFIED BY 'hunter2'",
        "ALTER USER 'u'@'%' IDENTIFIED BY 'hunter2'",
        "SET PASSWORD FOR 'u'@'%' = PASSWORD('hunter2')",
        "SET PASSWORD = 'hunter2'",
        'CREATE CATALOG c PROPERTIES ("type" = "lance", "s3.secret_key" = "hunter2")',
        'ALTER CATALOG c SET PROPERTIES ("token" = "hunter2")',
        "PREPARE s FROM 'CREATE USER u IDENTIFIED BY \\'hunter2\\''",
    ],
)
def test_statements_carrying_secrets_are_never_cached(empty_cache: None, sql: str) -> None:
    assert parser.parse(sql) is not None
    assert sql not in parser._cache  # noqa: SLF001
    assert all("hunter2" not in str(parser._cache.peek(k)) for k in parser._cache)  # noqa: SLF001


def test_harmless_statements_with_ordinary_properties_are_cached(empty_cache: None) -> None:
    sql = 'ADMIN SET FRONTEND CONFIG ("lance_index_job_dispatcher_paused" = "true")'
    assert parser.parse(sql) is parser.parse(sql)
    assert sql in parser._cache  # noqa: SLF001


def test_the_cache_is_a_bounded_lru(empty_cache: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parser, "_cache", Lru(3))
    texts = [f"KILL {i}" for i in range(4)]
    for sql in texts[:3]:
        parser.parse(sql)
    parser.parse(texts[0])  # most recently used now
    parser.parse(texts[3])  # evicts the least recently used: KILL 1
    assert list(parser._cache) == ["KILL 2", "KILL 0", "KILL 3"]  # noqa: SLF001
    long_sql = "KILL 1" + " " * parser.CACHE_MAX_SQL_CHARS
    assert parser.parse(long_sql) == ast.Kill(1) and long_sql not in parser._cache  # noqa: SLF001


# -- inline statements never wait on I/O
# ---------------------------------------------------------------
def test_admin_show_frontend_config_is_inline() -> None:
    assert ast.AdminShowFrontendConfig.inline


def test_config_readers_do_not_wait_for_a_config_write(tmp_path: Path) -> None:
    """ADMIN SHOW FRONTEND CONFIG runs on the event loop: Config.rows() must not block while
    another thread's ADMIN SET FRONTEND CONFIG is inside its metadata-store transaction."""
    store = MetaStore(tmp_path / "meta.sqlite")
    config = Config(store)
    inside, release = threading.Event(), threading.Event()
    real_transaction = store.transaction

    @contextlib.contextmanager
    def slow_transaction() -> Iterator[Any]:
        with real_transaction() as db:
            inside.set()
            release.wait(10)
            yield db

    store.transaction = slow_transaction  # type: ignore[method-assign]
    writer = threading.Thread(target=config.set, args=("lance_index_job_keep_max_second", "99"))
    writer.start()
    try:
        assert inside.wait(10)
        started = time.monotonic()
        rows = {r[0]: r[1] for r in config.rows()}
        assert time.monotonic() - started < 1.0
        assert rows["lance_index_job_keep_max_second"] == "604800"  # not yet published
    finally:
        release.set()
        writer.join(10)
    assert config.get("lance_index_job_keep_max_second") == 99  # published before set() returned
    store.close()
