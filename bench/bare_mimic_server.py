"""The "bare mysql-mimic" baseline server for bench/bench_wire.py.

Two flavours, one process each:

- ``--session default``: an unmodified ``mysql_mimic.MysqlServer()`` with its default ``Session``.
  It answers ``SELECT 1`` the way every mysql-mimic application does out of the box: sqlglot
  parses the text, the middleware chain runs, and ``_static_query_middleware`` evaluates the
  SELECT with sqlglot's executor.
- ``--session custom``: the "bare mimic custom statement" baseline. sqlglot cannot parse drydock's
  extension statements (``ADMIN SHOW FRONTEND CONFIG LIKE 'x'`` is a ParseError in the MySQL
  dialect), so overriding ``Session.query()`` is never reached for them; the minimal mysql-mimic
  session that answers such a statement overrides ``handle_query()`` (mysql-mimic's documented
  entry point for queries) and returns a fixed one-row answer without parsing. Only ``SET …``
  (pymysql's ``SET NAMES`` / ``SET AUTOCOMMIT`` at connect, never timed) takes mysql-mimic's
  normal path, because a client expects an OK packet for it.

- ``--session duckdb`` / ``duckdb-inline``: the floor of any mysql-mimic server over DuckDB
  (bench/bench_lookup_floor.py). The session runs the text as it is on its own cursor of one
  in-process DuckDB holding ``pk`` (``--pk-rows`` rows, INTEGER PRIMARY KEY, built as
  bench_vs_mariadb.py builds it) and answers the rows: ``duckdb`` on a worker thread, as a server
  must (a statement cannot hold the event loop), ``duckdb-inline`` on the event loop itself (no
  thread hop at all, what no real server can afford).

Prints ``bare-mimic ready on HOST:PORT`` once it accepts connections; stops on SIGTERM/SIGINT.
Only the standard library, mysql-mimic and duckdb are imported, so nothing of drydock is loaded.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from typing import Any

from mysql_mimic import MysqlServer, Session

FIXED_ROWS = [("x", "1")]
FIXED_COLUMNS = ["Key", "Value"]


class FixedAnswerSession(Session):
    """Answers every statement but SET with the same one-row result, without parsing it."""

    async def handle_query(self, sql: str, attrs: dict[str, str]) -> Any:
        if sql.lstrip()[:4].upper() == "SET ":
            return await super().handle_query(sql, attrs)
        return FIXED_ROWS, FIXED_COLUMNS

    async def query(self, expression: Any, sql: str, attrs: dict[str, str]) -> Any:
        return FIXED_ROWS, FIXED_COLUMNS


class DuckDBSession(Session):
    """Runs every statement but SET on DuckDB as it is (no parsing, no checks)."""

    engine: Any = None  # the process's DuckDB connection (set in _duckdb_session)
    inline = False

    def __init__(self) -> None:
        super().__init__()
        self.cursor = self.engine.cursor()

    def _run(self, sql: str) -> Any:
        result = self.cursor.execute(sql)
        return result.fetchall(), [d[0] for d in result.description]

    async def handle_query(self, sql: str, attrs: dict[str, str]) -> Any:
        if sql.lstrip()[:4].upper() == "SET ":
            return await super().handle_query(sql, attrs)
        if self.inline:
            return self._run(sql)
        return await asyncio.get_running_loop().run_in_executor(None, self._run, sql)


def _duckdb_session(rows: int, inline: bool) -> type[Session]:
    import duckdb

    database = duckdb.connect()
    database.execute("CREATE TABLE pk (id INTEGER PRIMARY KEY, v VARCHAR, n INTEGER)")
    database.execute(
        f"INSERT INTO pk SELECT range, CONCAT('v', range), range % 100 FROM range({rows})"
    )
    return type("Session", (DuckDBSession,), {"engine": database, "inline": inline})


async def _serve(host: str, port: int, session: str, pk_rows: int = 10_000) -> None:
    if session.startswith("duckdb"):
        server = MysqlServer(session_factory=_duckdb_session(pk_rows, session == "duckdb-inline"))
    elif session == "default":
        server = MysqlServer()
    else:
        server = MysqlServer(session_factory=FixedAnswerSession)
    await server.start_server(host=host, port=port)
    bound_host, bound_port = server.sockets()[0].getsockname()[:2]
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    print(f"bare-mimic ready on {bound_host}:{bound_port}", flush=True)
    await stop.wait()
    server.close()
    await server.wait_closed()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 = any free port")
    parser.add_argument(
        "--session", choices=["default", "custom", "duckdb", "duckdb-inline"], default="default"
    )
    parser.add_argument("--pk-rows", type=int, default=10_000, help="rows of pk (duckdb)")
    args = parser.parse_args(argv)
    # Same as drydock's default (WARNING): no per-query log output on either side.
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    asyncio.run(_serve(args.host, args.port, args.session, args.pk_rows))


if __name__ == "__main__":
    main()
