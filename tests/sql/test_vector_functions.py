"""The exact vector functions over the wire (engine/search/vector_functions.py): every function
against numpy brute force over a Lance table and internal FLOAT[] / DOUBLE[] tables, both argument
orders, array and string query vectors, ties, prepared statements (pymysql's text protocol and
mysql-connector's binary one), the typed errors, and vector columns as clients see them
(server/results.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import mysql.connector
import numpy as np
import pyarrow as pa
import pymysql
import pytest

from tests.conftest import ServerProcess
from tests.support.lance_fixtures import create_catalog, local_warehouse

DIM = 6
ROWS = 40
Q = [0.5, -1.25, 2.0, 0.0, 3.5, -0.75]  # a query vector every form below spells


def _data() -> np.ndarray:
    values = np.random.default_rng(7).normal(size=(ROWS, DIM)).astype(np.float32)
    values[10] = values[3]  # ties: the same vector under two ids
    values[20] = values[3]
    values[30] = np.asarray(Q, dtype=np.float32)  # distance 0 to the query
    return values


VALUES = _data()

# the function's SQL name → its exact value over float64 (the column's float32 values widened)
EXACT: dict[str, Callable[[np.ndarray, np.ndarray], float]] = {
    "l2_distance": lambda a, b: float(np.sqrt(np.sum((a - b) ** 2))),
    "l2_distance_approximate": lambda a, b: float(np.sqrt(np.sum((a - b) ** 2))),
    "inner_product": lambda a, b: float(np.dot(a, b)),
    "inner_product_approximate": lambda a, b: float(np.dot(a, b)),
    "cosine_distance": lambda a, b: float(
        1 - np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b))
    ),
    "l1_distance": lambda a, b: float(np.sum(np.abs(a - b))),
}


def _text(vector: Any) -> str:
    return "[" + ",".join(repr(float(v)) for v in vector) + "]"


@pytest.fixture(scope="module")
def tables(shared_server: ServerProcess, tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The same rows in a Lance table (fixed_size_list<float32>[DIM]) and internal FLOAT[] and
    DOUBLE[] tables."""
    wh = local_warehouse(Path(tmp_path_factory.mktemp("wh")))
    data = pa.table(
        {
            "id": pa.array(range(ROWS), pa.int64()),
            "emb": pa.FixedSizeListArray.from_arrays(pa.array(VALUES.reshape(-1)), DIM),
        }
    )
    wh.write("vdb", "vt", data)
    catalog = create_catalog(shared_server, wh)
    rows = ", ".join(f"({i}, '{_text(v)}')" for i, v in enumerate(VALUES))
    shared_server.query("CREATE DATABASE vint")
    for name, kind in (("f", "FLOAT[]"), ("d", "DOUBLE[]")):
        shared_server.query(f"CREATE TABLE vint.{name} (id INT, emb {kind})")
        shared_server.query(f"INSERT INTO vint.{name} VALUES {rows}")
    return [f"{catalog}.vdb.vt", "vint.f", "vint.d"]


@pytest.fixture(scope="module")
def conn(shared_server: ServerProcess) -> Iterator[pymysql.connections.Connection]:
    with shared_server.connect() as connection:
        yield connection


def _query(conn: pymysql.connections.Connection, sql: str, args: Any = None) -> list[Any]:
    with conn.cursor() as cur:
        cur.execute(sql, args)
        return list(cur.fetchall())


def _stored(table: str) -> np.ndarray:
    """The table's vectors as the engine holds them: float32 for Lance and FLOAT[], float64 of
    the same text for DOUBLE[]."""
    if table.endswith(".d"):
        return np.asarray([[float(repr(float(x))) for x in v] for v in VALUES], dtype=np.float64)
    return VALUES.astype(np.float64)


@pytest.mark.parametrize("function", sorted(EXACT))
@pytest.mark.parametrize("form", ["array", "string"])
def test_every_function_answers_numpy_in_both_argument_orders(
    conn: pymysql.connections.Connection, tables: list[str], function: str, form: str
) -> None:
    query = _text(Q) if form == "array" else f"'{_text(Q)}'"
    for table in tables:
        stored = _stored(table)
        # an approximate function orders a top k (it is refused elsewhere); with no index it
        # computes the exact value
        order = ""
        if function.endswith("_approximate"):
            direction = "DESC" if function.startswith("inner") else ""
            order = f" ORDER BY {function}(emb, {query}) {direction} LIMIT {ROWS}"
        got_left = dict(_query(conn, f"SELECT id, {function}(emb, {query}) FROM {table}{order}"))
        got_right = dict(_query(conn, f"SELECT id, {function}({query}, emb) FROM {table}{order}"))
        for i in range(ROWS):
            expected = EXACT[function](stored[i], np.asarray(Q, dtype=np.float64))
            assert got_left[i] == pytest.approx(expected, rel=1e-9, abs=1e-12), (table, i)
            assert got_right[i] == pytest.approx(expected, rel=1e-9, abs=1e-12), (table, i)
            assert isinstance(got_left[i], float)  # DOUBLE on the wire


@pytest.mark.parametrize("function", ["l2_distance", "cosine_distance", "l1_distance"])
def test_nearest_order_with_ties_matches_brute_force(
    conn: pymysql.connections.Connection, tables: list[str], function: str
) -> None:
    query = np.asarray(VALUES[3], dtype=np.float64)
    for table in tables:
        stored = _stored(table)
        got = [
            r[0]
            for r in _query(
                conn,
                f"SELECT id FROM {table} ORDER BY {function}(emb, '{_text(VALUES[3])}'), id "
                f"LIMIT 8",
            )
        ]
        distances = [EXACT[function](stored[i], query) for i in range(ROWS)]
        expected = sorted(range(ROWS), key=lambda i: (round(distances[i], 9), i))[:8]
        assert got == expected, table
        assert got[:3] == [3, 10, 20]  # the tie, by id


def test_query_vectors_differing_only_in_values_answer_each_their_own(
    conn: pymysql.connections.Connection, tables: list[str]
) -> None:
    """The statement-shape cache (grammar/shapes.py) binds each execution's own values."""
    lance = tables[0]
    for query in (Q, [1.0] * DIM, [-2.0, 0.5, 0.25, 1.0, 0.0, 4.0]):
        got = _query(conn, f"SELECT l2_distance(emb, {_text(query)}) FROM {lance} WHERE id = 5")
        expected = EXACT["l2_distance"](_stored(lance)[5], np.asarray(query))
        assert got[0][0] == pytest.approx(expected, rel=1e-9)


def test_prepared_statements_bind_a_whole_vector(
    shared_server: ServerProcess, conn: pymysql.connections.Connection, tables: list[str]
) -> None:
    lance = tables[0]
    expected = EXACT["l2_distance"](_stored(lance)[7], np.asarray(Q))
    text_rows = _query(conn, f"SELECT l2_distance(emb, %s) FROM {lance} WHERE id = 7", (_text(Q),))
    assert text_rows[0][0] == pytest.approx(expected, rel=1e-9)
    binary = mysql.connector.connect(
        host=shared_server.host, port=shared_server.port, user="root", password=""
    )
    try:
        cur = binary.cursor(prepared=True)
        cur.execute(f"SELECT l2_distance(emb, ?), emb FROM {lance} WHERE id = ?", (_text(Q), 7))
        [(distance, vector)] = cur.fetchall()
        assert distance == pytest.approx(expected, rel=1e-9)
        assert np.array_equal(np.asarray(str(vector).strip("[]").split(","), np.float32), VALUES[7])
    finally:
        binary.close()


def test_vector_columns_read_as_shortest_float32_text(
    conn: pymysql.connections.Connection, tables: list[str]
) -> None:
    with conn.cursor() as cur:
        cur.execute(f"SELECT emb FROM {tables[0]} WHERE id = 30")
        [(text,)] = cur.fetchall()
        assert cur.description[0][1] == pymysql.constants.FIELD_TYPE.VAR_STRING
    assert text == "[0.5,-1.25,2,0,3.5,-0.75]"
    [(first,)] = _query(conn, f"SELECT emb FROM {tables[0]} WHERE id = 0")
    assert np.array_equal(np.asarray(first.strip("[]").split(","), np.float32), VALUES[0])
    assert all(len(x) <= 12 for x in first.strip("[]").split(","))  # no float64 widening noise
    assert _query(conn, "SELECT [0.1, -0.2]") == [("[0.1, -0.2]",)]


def test_string_to_vector_and_back(conn: pymysql.connections.Connection) -> None:
    assert _query(conn, "SELECT VECTOR_TO_STRING(STRING_TO_VECTOR('[1.05, -17.8, 32]'))") == [
        ("[1.05,-17.8,32]",)
    ]
    assert _query(conn, "SELECT l2_distance(STRING_TO_VECTOR('[0, 0]'), TO_VECTOR('[3,4]'))") == [
        (5.0,)
    ]
    assert _query(conn, "SELECT STRING_TO_VECTOR(NULL), l2_distance(NULL, '[1]')") == [(None, None)]
    assert _query(conn, "SELECT cosine_distance('[0,0]', '[1,2]')") == [(None,)]  # zero vector


BAD = [
    ("SELECT l2_distance('[1,2]', '[1,2,3]')", 1210, "the first vector has 2"),
    ("SELECT inner_product([1,2,3], [1])", 1210, "the second vector has 1"),
    ("SELECT l1_distance([1,2], '[1,2,3]')", 1210, "Vector dimensions differ"),
    ("SELECT l2_distance('[1,nan]', '[1,2]')", 6138, "'[1,nan]'"),
    ("SELECT cosine_distance('[1,inf]', '[1,2]')", 6138, "valid vector"),
    ("SELECT l2_distance('[1,NULL]', '[1,2]')", 6138, "NULL"),
    ("SELECT l1_distance('[1,NULL]', '[1,2]')", 6138, "NULL"),
    (
        "SELECT inner_product('abc', '[1,2]')",
        6138,
        "Data cannot be converted to a valid vector: 'abc'",
    ),
    ("SELECT STRING_TO_VECTOR('[1,x]')", 6138, "'[1,x]'"),
    ("SELECT STRING_TO_VECTOR('[1e39]')", 6138, "valid vector"),
    ("SELECT STRING_TO_VECTOR('[]')", 6138, "'[]'"),
    ("SELECT l2_distance('[1]')", 1582, "l2_distance"),
    ("SELECT l2_distance(1, '[1]')", 6138, "a value of type INTEGER"),
    ("SELECT l2_distance([1, NULL], '[1,2]')", 6138, "[1, NULL]"),
]


@pytest.mark.parametrize(("sql", "code", "text"), BAD)
def test_bad_vectors_are_typed_errors_and_the_connection_stays_usable(
    conn: pymysql.connections.Connection, sql: str, code: int, text: str
) -> None:
    with pytest.raises(pymysql.MySQLError) as info:
        _query(conn, sql)
    assert info.value.args[0] == code
    assert text in info.value.args[1]
    assert _query(conn, "SELECT 1") == [(1,)]


def test_dimension_mismatch_against_a_column_names_both(
    conn: pymysql.connections.Connection, tables: list[str]
) -> None:
    for table in tables:
        with pytest.raises(pymysql.MySQLError) as info:
            _query(conn, f"SELECT l2_distance(emb, '[1,2,3]') FROM {table}")
        assert info.value.args[0] == 1210
        assert f"has {DIM}" in info.value.args[1] and "has 3" in info.value.args[1]


def test_full_text_predicates_parse_and_bind_over_the_wire(
    conn: pymysql.connections.Connection, tables: list[str]
) -> None:
    """``MATCH_ANY`` was read as a ``_any`` charset introducer (1835) and failed to parse; with a
    bound ``?``. On an expression it is 1210 (a full-text search reads a column); on a column
    no INVERTED index covers, MySQL's 1191."""
    for sql, args, code in (
        (f"SELECT id FROM {tables[0]} WHERE CAST(id AS CHAR) MATCH_ANY 'x'", None, 1210),
        (f"SELECT id FROM {tables[0]} WHERE CAST(id AS CHAR) MATCH_PHRASE %s", ("a 'b",), 1210),
        (f"SELECT id FROM {tables[0]} WHERE emb MATCH_PHRASE %s", ("a 'b",), 1191),
    ):
        with pytest.raises(pymysql.MySQLError) as info:
            _query(conn, sql, args)
        assert info.value.args[0] == code, info.value.args
    assert _query(conn, "SELECT 1") == [(1,)]


def test_column_values_with_null_or_zero_vectors(
    shared_server: ServerProcess, conn: pymysql.connections.Connection
) -> None:
    """A stored vector with a NULL element is an error naming it; a NULL vector gives NULL; a
    zero vector has no cosine distance (NULL)."""
    shared_server.query("CREATE DATABASE IF NOT EXISTS vodd")
    shared_server.query("CREATE TABLE vodd.n (id INT, emb DOUBLE[])")
    shared_server.query("INSERT INTO vodd.n VALUES (1, '[0,0]'), (2, NULL)")
    assert _query(
        conn,
        "SELECT id, cosine_distance(emb, '[1,2]'), l2_distance(emb, '[3,4]') FROM vodd.n "
        "ORDER BY id",
    ) == [(1, None, 5.0), (2, None, None)]
    shared_server.query("INSERT INTO vodd.n VALUES (3, '[1,NULL]')")
    for function in ("l2_distance", "inner_product", "cosine_distance", "l1_distance"):
        with pytest.raises(pymysql.MySQLError) as info:
            _query(conn, f"SELECT {function}(emb, '[1,2]') FROM vodd.n")
        assert info.value.args[0] == 6138, function
        assert "NULL" in info.value.args[1]
    assert _query(conn, "SELECT VECTOR_TO_STRING(emb) FROM vodd.n ORDER BY id") == [
        ("[0,0]",),
        (None,),
        ("[1,NULL]",),
    ]


def test_sql_prepare_binds_a_vector_from_a_user_variable(
    conn: pymysql.connections.Connection, tables: list[str]
) -> None:
    expected = EXACT["l2_distance"](_stored(tables[0])[4], np.asarray(Q))
    _query(conn, f"SET @q = '{_text(Q)}'")
    _query(conn, f"PREPARE s FROM 'SELECT l2_distance(emb, ?) FROM {tables[0]} WHERE id = 4'")
    [(got,)] = _query(conn, "EXECUTE s USING @q")
    assert got == pytest.approx(expected, rel=1e-9)
