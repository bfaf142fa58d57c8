"""Browsing a Lance catalog from the internal one, as BI tools do (issue 14 items 10/11, checked
through real clients): SHOW DATABASES / SQLAlchemy get_schema_names list ``catalog.db``; the
name then works as given in SHOW TABLES, SHOW CREATE TABLE (reflection), pandas read_sql_table
and SELECT, and in information_schema.TABLES/COLUMNS filtered by it (JDBC getTables/getColumns
with that catalog); vectors come back as JSON arrays; information_schema columns are labelled in
upper case as MySQL 8 names them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ServerProcess

sa = pytest.importorskip(
    "sqlalchemy", minversion="2", reason="SQLAlchemy 2 is in pyproject's test extra"
)
pd = pytest.importorskip("pandas", minversion="2", reason="pandas 2 is in pyproject's test extra")


@pytest.fixture(scope="module")
def lance_db(shared_server: ServerProcess, tmp_path_factory: pytest.TempPathFactory) -> str:
    import lance
    import pyarrow as pa

    warehouse = tmp_path_factory.mktemp("browse") / "lance"
    values = pa.array([float(i) for i in range(8)], pa.float32())
    lance.write_dataset(
        pa.table(
            {
                "id": pa.array([1, 2], pa.int64()),
                "cat": ["a", "b"],
                "emb": pa.FixedSizeListArray.from_arrays(values, 4),
            }
        ),
        Path(warehouse) / "vec" / "items.lance",
    )
    shared_server.query(
        f"CREATE CATALOG browse_lc PROPERTIES ('type' = 'lance', 'warehouse' = '{warehouse}')"
    )
    return "browse_lc.vec"


@pytest.fixture
def engine(shared_server: ServerProcess) -> Iterator[object]:
    eng = sa.create_engine(f"mysql+pymysql://root@{shared_server.host}:{shared_server.port}/")
    yield eng
    eng.dispose()


def test_show_databases_lists_external_databases_as_catalog_dot_db(
    shared_server: ServerProcess, lance_db: str
) -> None:
    assert (lance_db,) in shared_server.query("SHOW DATABASES")
    assert shared_server.query(f"SHOW TABLES FROM `{lance_db}`") == [("items",)]


def test_sqlalchemy_and_pandas_browse_the_lance_database_by_that_name(
    engine: object, lance_db: str
) -> None:
    inspector = sa.inspect(engine)
    assert lance_db in inspector.get_schema_names()
    assert inspector.get_table_names(schema=lance_db) == ["items"]
    assert [c["name"] for c in inspector.get_columns("items", schema=lance_db)] == [
        "id",
        "cat",
        "emb",
    ]
    frame = pd.read_sql_table("items", engine, schema=lance_db)
    assert frame["id"].tolist() == [1, 2]
    assert [json.loads(v) for v in frame["emb"]] == [[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]]


def test_vectors_are_json_arrays(shared_server: ServerProcess, lance_db: str) -> None:
    """A vector column reads as JSON array text, each element its shortest float32 form."""
    ((text,),) = shared_server.query(f"SELECT emb FROM `{lance_db}`.items WHERE id = 2")
    assert text == "[4,5,6,7]"


def test_information_schema_columns_are_labelled_in_upper_case(
    shared_server: ServerProcess,
) -> None:
    with shared_server.connect() as conn, conn.cursor() as cur:
        cur.execute("SELECT table_name, table_schema AS s FROM information_schema.tables LIMIT 1")
        assert [d[0] for d in cur.description] == ["TABLE_NAME", "s"]
        cur.execute("SELECT * FROM information_schema.schemata LIMIT 1")
        assert [d[0] for d in cur.description][:2] == ["CATALOG_NAME", "SCHEMA_NAME"]


def test_external_databases_are_listed_only_to_users_who_may_see_them(
    shared_server: ServerProcess, lance_db: str
) -> None:
    shared_server.query("CREATE USER 'browse_nobody'@'%' IDENTIFIED BY 'pw'")
    with shared_server.connect(user="browse_nobody", password="pw") as conn, conn.cursor() as cur:
        cur.execute("SHOW DATABASES")
        assert (lance_db,) not in cur.fetchall()
        cur.execute("SELECT schema_name FROM information_schema.schemata")
        assert (lance_db,) not in cur.fetchall()
    with shared_server.connect() as conn, conn.cursor() as cur:  # root sees it in both
        cur.execute(
            "SELECT schema_name FROM information_schema.schemata WHERE schema_name = %s",
            (lance_db,),
        )
        assert cur.fetchall() == ((lance_db,),)


# MariaDB Connector/J's getTables/getColumns with the catalog named (its DatabaseMetaData text,
# client-side: the catalog is inlined as a literal); tests/clients/test_jdbc_matrix.py runs the
# driver
_GET_TABLES = (
    "SELECT TABLE_SCHEMA TABLE_CAT, NULL  TABLE_SCHEM,  TABLE_NAME, IF(TABLE_TYPE='BASE TABLE' or "
    "TABLE_TYPE='SYSTEM VERSIONED', 'TABLE', TABLE_TYPE) as TABLE_TYPE, TABLE_COMMENT REMARKS "
    "FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA = %s AND TABLE_NAME LIKE '%%' "
    "ORDER BY TABLE_TYPE, TABLE_SCHEMA, TABLE_NAME"
)
_GET_COLUMNS = (
    "SELECT TABLE_SCHEMA TABLE_CAT, COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, IS_NULLABLE, "
    "ORDINAL_POSITION "
    "FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = %s AND TABLE_NAME LIKE 'items' "
    "AND COLUMN_NAME LIKE '%%' ORDER BY TABLE_CAT, TABLE_SCHEMA, TABLE_NAME, ORDINAL_POSITION"
)


def test_information_schema_names_the_external_database_as_catalog_dot_db(
    shared_server: ServerProcess, lance_db: str
) -> None:
    with shared_server.connect() as conn, conn.cursor() as cur:  # the internal catalog
        cur.execute(_GET_TABLES, (lance_db,))
        assert cur.fetchall() == ((lance_db, None, "items", "TABLE", ""),)
        cur.execute(_GET_COLUMNS, (lance_db,))
        rows = cur.fetchall()
        assert [(r[0], r[1], r[5]) for r in rows] == [
            (lance_db, "id", 1),
            (lance_db, "cat", 2),
            (lance_db, "emb", 3),
        ]
        assert rows[0][2:4] == ("bigint", "bigint")
        # without the name, no external catalog is listed (an unfiltered read lists nothing more)
        cur.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema LIKE 'browse%'"
        )
        assert cur.fetchall() == ((0,),)


def test_information_schema_hides_external_tables_from_users_who_may_not_see_them(
    shared_server: ServerProcess, lance_db: str
) -> None:
    shared_server.query("CREATE USER IF NOT EXISTS 'browse_blind'@'%' IDENTIFIED BY 'pw'")
    with shared_server.connect(user="browse_blind", password="pw") as conn, conn.cursor() as cur:
        cur.execute(_GET_TABLES, (lance_db,))
        assert cur.fetchall() == ()
        cur.execute(_GET_COLUMNS, (lance_db,))
        assert cur.fetchall() == ()
