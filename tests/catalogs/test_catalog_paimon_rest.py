"""Paimon catalogs whose table list lives in a Paimon REST catalog service (the test server of
tests/support/paimon_rest_server.py) or a JDBC database (SQLite), read through pypaimon's own REST
and JDBC clients: tables written by pypaimon through the same metastore, then listed, described,
queried, time-travelled and read as system tables through a real drydock server."""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.catalogs.test_catalog_paimon import (
    append,
    check_reads,
    create_sql,
    error_of,
    make_tables,
    order,
    paimon,
)
from tests.conftest import ServerProcess
from tests.support.paimon_rest_server import PaimonRestServer

TOKEN = "rest-secret-token-8d2f"


@pytest.fixture
def rest(tmp_path: Path) -> Iterator[PaimonRestServer]:
    server = PaimonRestServer(tmp_path / "rest-wh", warehouse="lake", token=TOKEN).start()
    yield server
    server.stop()


def rest_properties(rest: PaimonRestServer, **extra: str) -> dict[str, str]:
    return {
        "type": "paimon",
        "metastore": "rest",
        "uri": rest.uri,
        "warehouse": rest.warehouse,
        "token": rest.token,
        "meta.cache.ttl-second": "0",
        **extra,
    }


def test_rest_catalog_list_describe_select_time_travel(
    server: ServerProcess, rest: PaimonRestServer
) -> None:
    writer = paimon(rest.client_options())
    make_tables(writer)  # through the REST client: its commits go through the server
    assert ("POST", "/databases/sales/tables/orders/commit") in rest.requests
    server.query(create_sql("pr", rest_properties(rest)))
    rest.requests.clear()
    check_reads(server, "pr")
    # drydock asked the service, not the directory: the listing and the table both came from it
    assert ("GET", "/databases") in rest.requests
    assert ("GET", "/databases/sales/tables/orders") in rest.requests

    assert server.query("SELECT count(*) FROM pr.sales.orders FOR VERSION AS OF 1") == [(3,)]
    assert append(writer, "sales.orders", [order(6, "lime", 4)]) == 3
    assert server.query("SELECT count(*) FROM pr.sales.orders") == [(6,)]
    snapshots = server.query("SELECT snapshot_id FROM pr.sales.`orders$snapshots` ORDER BY 1")
    assert snapshots == [(1,), (2,), (3,)]


def test_rest_token_is_never_shown(server: ServerProcess, rest: PaimonRestServer) -> None:
    server.query(create_sql("pr", rest_properties(rest)))
    shown = server.query("SHOW CREATE CATALOG pr")[0][1]
    assert TOKEN not in shown and '"token" = "***"' in shown and rest.uri in shown
    assert TOKEN not in str(server.query("SHOW CATALOGS"))

    # A wrong token: the service refuses (401) and the error names the catalog, not the token.
    wrong = "wrong-token-51aa"
    server.query(create_sql("bad", rest_properties(rest, token=wrong)))
    code, message = error_of(server, "SHOW DATABASES FROM bad")
    assert code == 1105 and wrong not in message, message
    assert (
        f"Catalog 'bad': the Paimon REST service at {rest.uri} refused: Not authorized" in message
    )
    assert TOKEN not in message
    log = server.log_text()  # the server's log: the audit of both CREATE CATALOGs, the error
    assert TOKEN not in log and wrong not in log


def test_rest_unknown_warehouse_and_unreachable_service(
    server: ServerProcess, rest: PaimonRestServer
) -> None:
    server.query(create_sql("nowh", rest_properties(rest, warehouse="other")))
    code, message = error_of(server, "SHOW DATABASES FROM nowh")
    assert code == 1105 and "Catalog 'nowh': the Paimon REST service" in message, message
    assert "no warehouse ['other']" in message  # the service's own reason
    server.query(create_sql("gone", rest_properties(rest, uri="http://127.0.0.1:9")))
    code, message = error_of(server, "SHOW DATABASES FROM gone")
    assert code == 1105 and TOKEN not in message
    assert (
        "Catalog 'gone': the Paimon REST service at http://127.0.0.1:9 could not be used: Conn"
        in message
    )


BAD_REST = [
    ({"uri": "ftp://h"}, "needs 'uri' = the service's http:// or https:// address"),
    ({"token.provider": "dlf"}, "'token.provider' = 'dlf' is not supported: only 'bear'"),
    ({"token": ""}, "needs 'token'"),
    ({"paimon.catalog.type": "filesystem"}, "name different metastores"),
    ({"jdbc.user": "u"}, "'jdbc.user' is a property of a Paimon 'jdbc' metastore, not 'rest'"),
]


@pytest.mark.parametrize(("change", "expected"), BAD_REST)
def test_rest_bad_properties(
    server: ServerProcess, rest: PaimonRestServer, change: dict[str, str], expected: str
) -> None:
    code, message = error_of(server, create_sql("b", rest_properties(rest, **change)))
    assert code == 1105 and expected in message, message
    assert TOKEN not in message


def test_filesystem_catalog_refuses_rest_properties(server: ServerProcess, tmp_path: Path) -> None:
    properties = {"type": "paimon", "warehouse": str(tmp_path), "token": TOKEN}
    code, message = error_of(server, create_sql("f", properties))
    assert (
        code == 1105
        and "'token' is a property of a Paimon 'rest' metastore, not 'filesystem'" in message
    )
    assert TOKEN not in message


def test_rest_and_jdbc_catalogs_need_admin(server: ServerProcess, rest: PaimonRestServer) -> None:
    server.query("CREATE USER maker IDENTIFIED BY 'pw'")
    server.query("GRANT CREATE ON *.*.* TO maker")
    with server.connect(user="maker", password="pw") as conn, conn.cursor() as cur:
        with pytest.raises(Exception) as info:
            cur.execute(create_sql("pr", rest_properties(rest)))
    assert info.value.args[0] == 1227 and "ADMIN" in info.value.args[1]


def test_hms_stays_refused_and_says_why(server: ServerProcess) -> None:
    code, message = error_of(
        server, create_sql("h", {"type": "paimon", "metastore": "hive", "warehouse": "/w"})
    )
    assert code == 1105 and "'metastore' = 'hive' is not supported" in message
    assert "no Hive Metastore can be installed or reached from this server" in message


# -- JDBC (SQLite, PostgreSQL) ---------------------------------------------------------------
def jdbc_options(tmp_path: Path) -> dict[str, str]:
    return {
        "metastore": "jdbc",
        "uri": f"jdbc:sqlite:{tmp_path / 'catalog.db'}",
        "warehouse": str(tmp_path / "jdbc-wh"),
    }


def pg_jdbc_options(tmp_path: Path, cluster: Any) -> dict[str, str]:
    from tests.support.pg import PG_DB, PG_PASSWORD, PG_USER

    return {
        "metastore": "jdbc",
        "uri": f"jdbc:postgresql://127.0.0.1:{cluster.port}/{PG_DB}",
        "jdbc.user": PG_USER,
        "jdbc.password": PG_PASSWORD,
        "catalog-key": f"k{uuid.uuid4().hex[:8]}",  # this test's rows in pypaimon's shared tables
        "warehouse": str(tmp_path / "jdbc-wh"),
    }


def test_jdbc_sqlite_catalog(server: ServerProcess, tmp_path: Path) -> None:
    options = jdbc_options(tmp_path)
    make_tables(paimon(options))
    # the table list lives in the database: pypaimon's JDBC catalog wrote it there
    with sqlite3.connect(tmp_path / "catalog.db") as db:
        names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert names, "pypaimon's JDBC catalog created no tables"
    check_jdbc_reads(server, options)


def test_jdbc_postgresql_catalog(server: ServerProcess, tmp_path: Path, pg_cluster: Any) -> None:
    from tests.support.pg import PG_PASSWORD

    options = pg_jdbc_options(tmp_path, pg_cluster)
    make_tables(paimon(options))
    check_jdbc_reads(server, options)
    shown = server.query("SHOW CREATE CATALOG pj")[0][1]
    assert PG_PASSWORD not in shown and '"jdbc.password" = "***"' in shown
    server.query(create_sql("pbad", {"type": "paimon", **options, "jdbc.password": "nope-77"}))
    code, message = error_of(server, "SHOW DATABASES FROM pbad")
    assert code == 1105 and "nope-77" not in message and PG_PASSWORD not in message, message


def check_jdbc_reads(server: ServerProcess, options: dict[str, str]) -> None:
    server.query(create_sql("pj", {"type": "paimon", **options, "meta.cache.ttl-second": "0"}))
    check_reads(server, "pj")
    assert server.query("SELECT count(*) FROM pj.sales.orders FOR VERSION AS OF 1") == [(3,)]
    assert server.query("SELECT count(*) FROM pj.sales.`orders$snapshots`") == [(2,)]


def test_jdbc_bad_uri(server: ServerProcess, tmp_path: Path) -> None:
    properties = {"type": "paimon", **jdbc_options(tmp_path), "uri": "jdbc:sqlite:rel.db"}
    code, message = error_of(server, create_sql("j", properties))
    assert code == 1105 and "needs an absolute database path" in message
    properties["uri"] = "jdbc:oracle:thin:@h:1521/x"
    code, message = error_of(server, create_sql("j", properties))
    assert code == 1105 and "A Paimon JDBC catalog needs 'uri' = jdbc:sqlite:" in message
