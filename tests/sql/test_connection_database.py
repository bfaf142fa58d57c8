"""A Lance database as the connection's database: the handshake (pymysql ``database=``, the CLI
argument, a JDBC URL path), COM_INIT_DB (``select_db``) and ``USE `lc.db``` all take
``catalog.db``, with the same access check as ``USE lc.db``."""

from __future__ import annotations

from collections.abc import Iterator

import lance
import pyarrow as pa
import pymysql
import pytest

from tests.conftest import ServerProcess


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    root = tmp_path_factory.mktemp("conndb")
    warehouse = root / "wh"
    (warehouse / "db").mkdir(parents=True)
    lance.write_dataset(pa.table({"id": [1, 2, 3]}), str(warehouse / "db" / "t.lance"))
    proc = ServerProcess(data_dir=root / "data").start()
    proc.query(f"CREATE CATALOG lc PROPERTIES ('type' = 'lance', 'warehouse' = '{warehouse}')")
    proc.query("CREATE USER 'outsider'@'%' IDENTIFIED BY 'pw'")
    yield proc
    proc.stop()


def test_handshake_database_may_name_a_catalog(srv: ServerProcess) -> None:
    with srv.connect(database="lc.db") as conn, conn.cursor() as cur:
        cur.execute("SELECT count(*) FROM t")
        assert cur.fetchone() == (3,)
        cur.execute("SELECT DATABASE()")
        assert cur.fetchone() == ("db",)


def test_init_db_and_use_with_one_quoted_name(srv: ServerProcess) -> None:
    with srv.connect() as conn, conn.cursor() as cur:
        conn.select_db("lc.db")  # COM_INIT_DB
        cur.execute("SELECT count(*) FROM t")
        assert cur.fetchone() == (3,)
        cur.execute("USE internal.information_schema")
        cur.execute("USE `lc.db`")
        cur.execute("SELECT count(*) FROM t")
        assert cur.fetchone() == (3,)


def test_the_access_check_applies(srv: ServerProcess) -> None:
    with pytest.raises(pymysql.err.MySQLError) as info:
        srv.connect(user="outsider", password="pw", database="lc.db")
    assert info.value.args[0] in (1044, 1049, 1105)
