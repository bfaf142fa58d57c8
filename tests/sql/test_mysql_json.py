"""MySQL 8's JSON functions over the wire (engine/sql/mysql_json_calls.py and the Python
functions it calls): values as MySQL 8 prints them (MySQL 8.0 manual 12.18), typed JSON columns
and MySQL's error codes. MariaDB differs where noted: it keeps an object's written key order and
answers NULL where MySQL 8 raises 3141/3143/3149/3153/3154/3165; MySQL 8 is followed."""

from __future__ import annotations

import pymysql
import pytest
from mysql_mimic.types import ColumnType

from tests.conftest import ServerProcess
from tests.support.select_answers import wrong_answers

D = '{"a": 1, "b": [1, 2]}'

CASES = [
    (f"JSON_SET('{D}', '$.c', 3)", '{"a": 1, "b": [1, 2], "c": 3}'),
    (f"JSON_SET('{D}', '$.b[last]', 9, '$.b[5]', 'x')", '{"a": 1, "b": [1, 9, "x"]}'),
    ("JSON_SET('1', '$[1]', 2)", "[1, 2]"),
    ("JSON_SET('{\"a\": 1}', '$', '[1]')", '"[1]"'),
    (
        "JSON_SET('{\"a\": 1}', '$.b', CAST('[1]' AS JSON), '$.c', JSON_ARRAY(1, 'x'))",
        '{"a": 1, "b": [1], "c": [1, "x"]}',
    ),
    ("JSON_SET('{\"a\": 1}', '$.b', NULL)", '{"a": 1, "b": null}'),
    ("JSON_SET('{\"a\": 1}', NULL, 2)", None),
    ("JSON_INSERT('{\"a\": 1}', '$.a', 2, '$.b', '[1]')", '{"a": 1, "b": "[1]"}'),
    ("JSON_REPLACE('{\"a\": 1}', '$.a', 2, '$.b', 3)", '{"a": 2}'),
    ("JSON_REMOVE('[1, [2, 3], 4]', '$[1]', '$[9]')", "[1, 4]"),
    ("JSON_ARRAY_APPEND('[1, [2, 3]]', '$[1]', 4, '$[0]', 5)", "[[1, 5], [2, 3, 4]]"),
    ("JSON_ARRAY_INSERT('[1, 2]', '$[1]', 'x', '$[100]', 'y')", '[1, "x", 2, "y"]'),
    ('JSON_MERGE_PATCH(\'{"a": 1, "b": 2}\', \'{"b": null, "c": 3}\')', '{"a": 1, "c": 3}'),
    ("JSON_MERGE_PATCH(NULL, '1')", "1"),
    ("JSON_MERGE_PATCH('{}', NULL)", None),
    ("JSON_MERGE_PRESERVE('{\"a\": 1}', '{\"a\": 2}', '3')", '[{"a": [1, 2]}, 3]'),
    ("JSON_MERGE('[1]', '[2]')", "[1, 2]"),
    ('JSON_KEYS(\'{"bb": 1, "a": {"c": 2}}\')', '["a", "bb"]'),
    ("JSON_KEYS('{\"a\": {\"c\": 2}}', '$.a')", '["c"]'),
    ("JSON_KEYS('[1]')", None),
    ("JSON_LENGTH('[1, 2, {\"a\": 3}]')", "3"),
    ("JSON_LENGTH('{\"a\": 1, \"b\": [1, 2]}', '$.b')", "2"),
    ("JSON_LENGTH('{\"a\": 1}', '$.z')", None),
    ("JSON_DEPTH('[10, {\"a\": 20}]')", "3"),
    ("JSON_DEPTH('[]')", "1"),
    ("JSON_TYPE('1')", "INTEGER"),
    ("JSON_TYPE('\"a\"')", "STRING"),
    ("JSON_TYPE(JSON_EXTRACT('{\"a\": [1]}', '$.a'))", "ARRAY"),
    ("JSON_QUOTE('a\"b')", '"a\\"b"'),
    ("JSON_UNQUOTE('\"a\\\\tb\"')", "a\tb"),
    ("JSON_UNQUOTE('abc')", "abc"),
    ("JSON_UNQUOTE(JSON_EXTRACT('{\"a\": {\"x\":1}}', '$.a'))", '{"x": 1}'),
    (
        'JSON_SEARCH(\'["abc", [{"k": "10"}, "def"], {"x": "abc"}]\', \'all\', \'abc\')',
        '["$[0]", "$[2].x"]',
    ),
    ("JSON_SEARCH('[\"abc\", {\"x\": \"abc\"}]', 'one', 'ab%')", '"$[0]"'),
    ("JSON_SEARCH('[\"abc\", {\"x\": \"abc\"}]', 'all', 'ABC')", None),
    ("JSON_SEARCH('[\"a_c\", \"abc\"]', 'all', 'a|_c', '|')", '"$[0]"'),
    ("JSON_SEARCH('{\"a b\": \"x\", \"c\": [\"x\"]}', 'all', 'x', NULL, '$.c')", '"$.c[0]"'),
    ("JSON_OVERLAPS('[1, 3, 5]', '[2, 5]')", "1"),
    ("JSON_OVERLAPS('{\"a\": 1}', '{\"a\": 2}')", "0"),
    ("JSON_OVERLAPS('[true]', '[1]')", "0"),
    ("3 MEMBER OF('[1, 3, 5]')", "1"),
    ("'ab' MEMBER OF('[\"ab\", 1]')", "1"),
    ("'[1]' MEMBER OF('[[1]]')", "0"),
    ("JSON_EXTRACT('{\"a\": [1, {\"b\": 2}]}', '$.a[last]')", '{"b": 2}'),
    ("JSON_EXTRACT('{\"a\": [1, {\"b\": 2}]}', '$.a[*]')", '[1, {"b": 2}]'),
    ("JSON_EXTRACT('{\"a\": [1, 2]}', '$.a[0]', '$.z', '$.a[1]')", "[1, 2]"),
    ("JSON_EXTRACT('{\"a\": [1, {\"b\": 2}]}', '$.a')", '[1, {"b": 2}]'),
    ("JSON_OBJECT('b', 1, 'a', 2, 'aa', JSON_ARRAY(1, 2))", '{"a": 2, "b": 1, "aa": [1, 2]}'),
]


def test_json_functions_answer_as_mysql_8(shared_server: ServerProcess) -> None:
    with shared_server.connect() as conn, conn.cursor() as cur:
        wrong = wrong_answers(cur, CASES)
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize(
    ("expression", "code"),
    [
        ("JSON_SET('{\"a\": 1}', '$.*', 2)", 3149),
        ("JSON_LENGTH('[1]', '$[*]')", 3149),
        ("JSON_REMOVE('{\"a\": 1}', '$')", 3153),
        ("JSON_ARRAY_INSERT('{\"a\": 1}', '$.a', 1)", 3165),
        ("JSON_SEARCH('{\"a\": 1}', 'some', 'a')", 3154),
        ("JSON_CONTAINS_PATH('{\"a\": 1}', 'some', '$.a')", 3154),
        ("JSON_EXTRACT('{\"a\": 1}', '$.a[')", 3143),
        ("JSON_SET('{\"a\": 1}', 'a', 2)", 3143),
        ("JSON_SET('{a', '$.a', 2)", 3141),
        ("JSON_DEPTH('[1')", 3141),
        ("JSON_EXTRACT('{a', '$.a')", 3141),
        ("'{a' ->> '$.a'", 3141),
        ("JSON_CONTAINS('{a', '1')", 3141),
        ("JSON_INSERT('{}', '$.a')", 1582),
        ("JSON_OVERLAPS('[1]')", 1582),
    ],
)
def test_json_errors_are_mysqls(shared_server: ServerProcess, expression: str, code: int) -> None:
    with shared_server.connect() as conn, conn.cursor() as cur:
        with pytest.raises(pymysql.MySQLError) as caught:
            cur.execute(f"SELECT {expression}")
    assert caught.value.args[0] == code, caught.value.args


def test_json_results_are_typed_json_and_printed_as_mysql(server: ServerProcess) -> None:
    """A JSON column reads back as MySQL prints it, and the modification functions' results are
    JSON (type 245) as MySQL sends them."""
    with server.connect() as conn, conn.cursor() as cur:
        cur.execute("CREATE DATABASE j")
        cur.execute("CREATE TABLE j.t (id INT, doc JSON)")
        cur.execute("""INSERT INTO j.t VALUES (1, '{"b":[1,2],"a":{"y":true,"x":null}}')""")
        cur.execute("SELECT doc, JSON_SET(doc, '$.a.x', 1.5), JSON_LENGTH(doc) FROM j.t")
        row = cur.fetchone()
        types = [d[1] for d in cur.description]
    assert row == (
        '{"a": {"x": null, "y": true}, "b": [1, 2]}',
        '{"a": {"x": 1.5, "y": true}, "b": [1, 2]}',
        2,
    )
    assert types[:2] == [ColumnType.JSON, ColumnType.JSON]
