"""The Python drivers of the client matrix, behind one small interface: how to connect (with or
without CLIENT_MULTI_STATEMENTS) and which DB-API module holds the exception classes. A driver
that cannot load here is skipped with the reason (never silently)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import pytest

from tests.conftest import ServerProcess


@dataclass(frozen=True)
class Driver:
    name: str
    module: ModuleType  # the DB-API module: IntegrityError, ProgrammingError, … live here
    connect: Callable[..., Any]  # (server, database, multi=False, charset=None) -> connection
    # whether cursor.description carries the scale (DB-API item 5); mysql-connector leaves it None
    describes_scale: bool


def _pymysql(
    server: ServerProcess, database: str | None, multi: bool = False, charset: str | None = None
) -> Any:
    import pymysql
    from pymysql.constants import CLIENT

    return pymysql.connect(
        host=server.host,
        port=server.port,
        user="root",
        password="",
        database=database,
        autocommit=True,
        client_flag=CLIENT.MULTI_STATEMENTS if multi else 0,
        charset=charset or "utf8mb4",
        connect_timeout=10,
        read_timeout=60,
    )


def _connector(use_pure: bool) -> Callable[..., Any]:
    def connect(
        server: ServerProcess, database: str | None, multi: bool = False, charset: str | None = None
    ) -> Any:
        import mysql.connector
        from mysql.connector.constants import ClientFlag

        return mysql.connector.connect(
            host=server.host,
            port=server.port,
            user="root",
            password="",
            database=database,
            use_pure=use_pure,
            autocommit=True,
            client_flags=[ClientFlag.MULTI_STATEMENTS] if multi else None,
            charset=charset or "utf8mb4",
            connection_timeout=10,
        )

    return connect


def _mysqlclient(
    server: ServerProcess, database: str | None, multi: bool = False, charset: str | None = None
) -> Any:
    import MySQLdb
    from MySQLdb.constants import CLIENT

    kwargs: dict[str, Any] = {"db": database} if database else {}
    # mysqlclient sets CLIENT_MULTI_STATEMENTS unless told not to (its multi_statements=True
    # default)
    conn = MySQLdb.connect(
        host=server.host,
        port=server.port,
        user="root",
        passwd="",
        autocommit=True,
        client_flag=CLIENT.MULTI_STATEMENTS if multi else 0,
        multi_statements=multi,
        charset=charset or "utf8mb4",
        connect_timeout=10,
        **kwargs,
    )
    return conn


def load(name: str) -> Driver:
    """The driver ``name``, or pytest.skip with why it cannot run here."""
    if name == "pymysql":
        return Driver(name, importlib.import_module("pymysql"), _pymysql, True)
    if name == "connector-pure":
        return Driver(name, importlib.import_module("mysql.connector"), _connector(True), False)
    if name == "connector-c":
        try:
            importlib.import_module("_mysql_connector")
        except ImportError as exc:
            pytest.skip(f"mysql-connector's C extension does not load here: {exc}")
        return Driver(name, importlib.import_module("mysql.connector"), _connector(False), False)
    if name == "mysqlclient":
        try:
            module = importlib.import_module("MySQLdb")
        except ImportError as exc:
            pytest.skip(
                f"mysqlclient is not installed: pyproject's 'mysqlclient' extra builds against "
                f"libmariadb-dev + pkg-config (.ci/run installs all three): {exc}"
            )
        return Driver(name, module, _mysqlclient, True)
    raise ValueError(name)


NAMES = ["pymysql", "connector-pure", "connector-c", "mysqlclient"]
