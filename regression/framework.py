"""The groovy-style suite DSL of Doris' regression framework, in Python
(docs/doris-compatibility.md).

A suite file registers one or more suites::

    from regression.framework import suite

    @suite("test_config", "p0,nonConcurrent")
    def body(s):
        s.sql("ADMIN SET FRONTEND CONFIG ('lance_index_job_dispatcher_paused' = 'true')")
        with s.test() as t:
            t.sql("ADMIN SET FRONTEND CONFIG ('lance_index_job_keep_max_second' = '0')")
            t.exception("must be a positive long")
        s.qt_paused("ADMIN SHOW FRONTEND CONFIG LIKE '%paused'")

``sql`` returns rows (lists); ``try_sql`` swallows errors and returns None; ``order_sql`` sorts
rows by their string form; ``master_sql`` is ``sql`` (one frontend); ``sql_return_maparray``
returns dicts keyed by column; ``qt_<tag>`` / ``order_qt_<tag>`` compare against
regression/data/<suite>.out; ``connect(user, password, url)`` runs a block as another user.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pymysql

from drydock.regression import outfile

DATA_DIR = Path(__file__).resolve().parent / "data"
SUITES: list[SuiteDef] = []


class SuiteFailure(AssertionError):
    pass


class SuiteSkipped(Exception):
    """``s.skip(reason)``: the suite did not run; the runner reports SKIP with the reason."""


@dataclass
class SuiteDef:
    name: str
    groups: set[str]
    body: Callable[[Suite], None]
    source: str


def suite(
    name: str, groups: str = ""
) -> Callable[[Callable[[Suite], None]], Callable[[Suite], None]]:
    def register(body: Callable[[Suite], None]) -> Callable[[Suite], None]:
        SUITES.append(
            SuiteDef(
                name,
                {g.strip() for g in groups.split(",") if g.strip()},
                body,
                getattr(body, "__module__", ""),
            )
        )
        return body

    return register


@dataclass
class Config:
    jdbc_url: str
    host: str
    port: int
    user: str = "root"
    password: str = ""
    other_configs: dict[str, str] = field(default_factory=dict)

    @property
    def otherConfigs(self) -> dict[str, str]:  # noqa: N802 - the groovy name
        return self.other_configs


@dataclass
class Context:
    config: Config


class TestAction:
    """``with s.test() as t: t.sql(...); t.exception(...) | t.result([...]) | t.rowNum(n) |
    t.check(fn)``."""

    def __init__(self, owner: Suite):
        self._owner = owner
        self._sql: str | None = None
        self._exception: str | None = None
        self._result: list[list[Any]] | None = None
        self._row_num: int | None = None
        self._check: Callable[..., None] | None = None
        self._order = False

    def sql(self, text: str) -> None:
        self._sql = text

    def exception(self, text: str) -> None:
        self._exception = text

    def result(self, rows: list[list[Any]]) -> None:
        self._result = rows

    def rowNum(self, n: int) -> None:  # noqa: N802
        self._row_num = n

    def order(self, flag: bool) -> None:
        self._order = flag

    def check(self, fn: Callable[..., None]) -> None:
        self._check = fn

    def run(self) -> None:
        if self._sql is None:
            raise SuiteFailure("test {} without sql")
        rows: list[list[Any]] | None = None
        error: Exception | None = None
        try:
            rows = self._owner.sql(self._sql)
        except pymysql.err.MySQLError as exc:
            error = exc
        if self._check is not None:  # check disables every other assertion (groovy semantics)
            self._check(rows, error)
            return
        if self._exception is not None:
            if error is None:
                raise SuiteFailure(
                    f"expected an exception containing {self._exception!r}: {self._sql}"
                )
            if self._exception not in str(error):
                raise SuiteFailure(f"exception {error} does not contain {self._exception!r}")
            return
        if error is not None:
            raise SuiteFailure(f"unexpected error {error}: {self._sql}")
        assert rows is not None
        if self._order:
            rows = sorted(rows, key=lambda r: [str(v) for v in r])
        if self._result is not None and [list(r) for r in rows] != [list(r) for r in self._result]:
            raise SuiteFailure(f"result {rows} != expected {self._result}")
        if self._row_num is not None and len(rows) != self._row_num:
            raise SuiteFailure(f"{len(rows)} rows, expected {self._row_num}")


class Suite:
    def __init__(self, definition: SuiteDef, context: Context, gen_out: bool):
        self.name = definition.name
        self.context = context
        self.logger = logging.getLogger(f"suite.{definition.name}")
        self._gen_out = gen_out
        self._out_path = DATA_DIR / f"{definition.name}.out"
        self._expected = (
            outfile.parse(self._out_path) if self._out_path.exists() and not gen_out else {}
        )
        self._generated: dict[str, list[str]] = {}
        self._connections: list[pymysql.connections.Connection] = []
        self._conn = self._open(context.config.user, context.config.password)
        self.statements = 0  # a suite that ran none did not test anything: SKIP, never PASS

    # -- connections -------------------------------------------------------------------------------
    def _open(self, user: str, password: str) -> pymysql.connections.Connection:
        cfg = self.context.config
        conn = pymysql.connect(
            host=cfg.host,
            port=cfg.port,
            user=user,
            password=password,
            autocommit=True,
            connect_timeout=10,
            read_timeout=120,
            write_timeout=120,
        )
        self._connections.append(conn)
        return conn

    @contextlib.contextmanager
    def connect(self, user: str, password: str, url: str | None = None) -> Iterator[Suite]:
        """Run the block as another user (the url is accepted for groovy compatibility)."""
        previous = self._conn
        self._conn = self._open(user, password)
        try:
            yield self
        finally:
            self._conn.close()
            self._conn = previous

    def close(self) -> None:
        for conn in self._connections:
            with contextlib.suppress(Exception):
                conn.close()
        if self._gen_out and self._generated:
            outfile.write(self._out_path, self._generated)

    # -- the DSL -----------------------------------------------------------------------------------
    def skip(self, reason: str) -> None:
        """Stop here: the suite is reported as SKIP with ``reason`` (the groovy suites' early
        ``return`` when a switch such as enableLanceTest is off)."""
        raise SuiteSkipped(reason)

    def skip_unless_enabled(self, switch: str) -> None:
        """Doris' ``if (context.config.otherConfigs.get(switch) != "true") return``, reported as
        SKIP."""
        value = self.context.config.otherConfigs.get(switch)
        if value != "true":
            self.skip(f"{switch} is {value!r} in otherConfigs (needs 'true')")

    def sql(self, text: str) -> list[list[Any]]:
        self.statements += 1
        with self._conn.cursor() as cur:
            affected = cur.execute(text)
            if cur.description is None:
                return [[affected]]  # DDL/DML: one row, one column = update count
            return [list(r) for r in cur.fetchall()]

    master_sql = sql

    def try_sql(self, text: str) -> list[list[Any]] | None:
        try:
            return self.sql(text)
        except pymysql.err.MySQLError as exc:
            self.logger.info("try_sql swallowed: %s", exc)
            return None

    def order_sql(self, text: str) -> list[list[Any]]:
        return sorted(self.sql(text), key=lambda r: [str(v) for v in r])

    def sql_return_maparray(self, text: str) -> list[dict[str, Any]]:
        self.statements += 1
        with self._conn.cursor(pymysql.cursors.DictCursor) as cur:
            cur.execute(text)
            return list(cur.fetchall())

    def test(self) -> _TestBlock:
        return _TestBlock(self)

    def assertEquals(self, expected: Any, actual: Any, message: str = "") -> None:  # noqa: N802
        if expected != actual:
            raise SuiteFailure(
                f"assertEquals failed: expected {expected!r}, got {actual!r} {message}".strip()
            )

    def assertTrue(self, condition: Any, message: str = "") -> None:  # noqa: N802
        if not condition:
            raise SuiteFailure(f"assertTrue failed {message}".strip())

    def __getattr__(self, name: str) -> Callable[[str], None]:
        if name.startswith("order_qt_"):
            return lambda text: self._quick_test(name[len("order_qt_") :], text, ordered=True)
        if name.startswith("qt_"):
            return lambda text: self._quick_test(name[len("qt_") :], text, ordered=False)
        raise AttributeError(name)

    def _quick_test(self, tag: str, text: str, ordered: bool) -> None:
        rows = self.order_sql(text) if ordered else self.sql(text)
        lines = outfile.render_rows([tuple(r) for r in rows])
        if self._gen_out:
            self._generated[tag] = lines
            return
        if tag not in self._expected:
            raise SuiteFailure(
                f"no block '-- !{tag} --' in {self._out_path.name}; run with --gen-out"
            )
        if lines != self._expected[tag]:
            raise SuiteFailure(
                f"qt_{tag} differs from {self._out_path.name}:\nexpected {self._expected[tag]}\n"
                f"got      {lines}"
            )


class _TestBlock:
    def __init__(self, owner: Suite):
        self._action = TestAction(owner)

    def __enter__(self) -> TestAction:
        return self._action

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: object
    ) -> None:
        if exc_type is None:
            self._action.run()
