"""The generated DuckDB text cached per statement shape (engine/sql/text_cache.py) never changes
an answer: every hostile literal answers the same with the cache on and off (rows, columns, their
types and origins, warnings, errors), and a REVOKE, DROP TABLE, CREATE TABLE, USE or SET sql_mode
between two executions of one shape is honoured at once."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from drydock.engine.core import Engine
from drydock.engine.errors import DrydockError
from drydock.engine.session import SessionContext
from drydock.engine.sql import text_cache
from drydock.engine.sql.session_variables import ConfiguredSessionVariables
from drydock.engine.statements import execute
from drydock.server.session import GLOBAL_VARIABLES, parse
from sqlglot import exp

Run = Callable[[str], Any]


def _context(engine: Engine, user: str = "root") -> SessionContext:
    return SessionContext(
        user=user,
        host="127.0.0.1",
        connection_id=1,
        query=engine.query_session(),
        variables=ConfiguredSessionVariables(GLOBAL_VARIABLES, engine.config.get),
    )


def _runner(engine: Engine, ctx: SessionContext) -> Run:
    def run(sql: str) -> Any:
        return execute(engine, parse(sql), ctx, sql)

    return run


def _answer(run: Run, sql: str) -> tuple[Any, ...]:
    """Everything a client sees of ``sql``'s answer (or its error)."""
    try:
        r = run(sql)
    except DrydockError as error:
        return ("error", error.code, str(error))
    return (
        r.rows,
        r.columns,
        r.column_types,
        repr(r.column_origins),
        [repr(getattr(o, "definition", None)) for o in r.column_origins],  # declared types
        repr(r.column_expressions),
        [(w.level, w.code, w.message) for w in r.warnings],
    )


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    engine = Engine(Path(tmp_path_factory.mktemp("text_cache")) / "data")
    run = _runner(engine, _context(engine))
    for sql in (
        "CREATE DATABASE d",
        "CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(40), dt DATE, big BIGINT, n DECIMAL(8,2))",
        "INSERT INTO d.t VALUES (1, 'a', '2024-01-01', 1, 1.50), (2, 'abc', '2024-02-02', -5, 0),"
        " (3, 'it''s', '2020-05-06', 9999999999, 2.25), (4, 'é', NULL, 0, -1.5),"
        " (5, '', '2024-01-01', 5, 10), (6, 'NULL', '1999-12-31', 6, 3), (7, '123', NULL, 7, 7)",
    ):
        run(sql)
    yield engine
    engine.close()


SHAPES = [
    "SELECT id, v FROM t WHERE v = {x} ORDER BY id",
    "SELECT id FROM t WHERE dt = {x} ORDER BY id",
    "SELECT id, dt FROM t WHERE id = {x}",
    "SELECT id FROM t WHERE big > {x} ORDER BY id LIMIT 3",
    "SELECT id FROM t WHERE n >= {x} AND v <> {x} ORDER BY id",
    "SELECT id FROM t WHERE v LIKE {x} ORDER BY id",
    "SELECT COUNT(*) FROM t WHERE id IN ({x}, 2, 3) OR v BETWEEN {x} AND 'zz'",
]
# generated from the values themselves: a division's warning token, a string in arithmetic
# converted to its number when generated (never cached, and still the same answers)
UNCACHED_SHAPES = [
    "SELECT id FROM t WHERE id = 10 / {x} OR big = {x} ORDER BY id",
    "SELECT id FROM t WHERE id + {x} > 3 ORDER BY id",
]
HOSTILE = [
    "'abc'",
    "'a'",
    "'zz'",
    "'it''s'",
    "'a\\\\b'",
    "'\\''",
    "'; DROP TABLE t; --'",
    "'é'",
    "'日本語'",
    "'with space'",
    "''",
    "' '",
    "'NULL'",
    "'null'",
    "'true'",
    "'2024-01-01'",
    "'2024-02-30'",
    "'1999-12-31'",
    "'123'",
    "'0'",
    "'1e3'",
    "'-5'",
    "'a%'",
    "'_'",
    "1",
    "5",
    "0",
    "17",
    "-5",
    "2147483648",
    "99999999999999999999",
    "1.5",
    "0.0",
    "2.25",
    "1.50",
    "007",
]


@pytest.mark.parametrize("shape", SHAPES + UNCACHED_SHAPES)
def test_every_hostile_literal_answers_as_without_the_cache(engine: Engine, shape: str) -> None:
    ctx = _context(engine)
    run = _runner(engine, ctx)
    run("USE d")
    cache = engine.query.texts
    before = cache.hits
    texts = [shape.format(x=x) for x in HOSTILE]
    try:
        cache.enabled = True
        for text in texts * 2:  # learn every class first, then answer from the templates
            _answer(run, text)
        cached = [_answer(run, text) for text in texts]
        cache.enabled = False
        plain = [_answer(run, text) for text in texts]
    finally:
        cache.enabled = True
    for text, with_cache, without in zip(texts, cached, plain):
        assert with_cache == without, text
    if shape in SHAPES:
        assert cache.hits > before  # the cache did answer


def test_the_switch_turns_the_cache_off(engine: Engine) -> None:
    run = _runner(engine, _context(engine))
    run("USE d")
    cache = engine.query.texts
    try:
        cache.enabled = False
        before = cache.hits
        for i in range(2, 6):
            run(f"SELECT v FROM t WHERE id = {i}")
        assert cache.hits == before
    finally:
        cache.enabled = True
    for i in range(2, 6):
        run(f"SELECT v FROM t WHERE id = {i}")
    assert cache.hits > before


@pytest.mark.parametrize(
    "value, cacheable",
    [
        (exp.Literal.number("17"), True),
        (exp.Literal.number("0"), False),
        (exp.Literal.number("007"), False),
        (exp.Literal.number("2147483648"), False),
        (exp.Literal.number("1.5"), True),
        (exp.Literal.string("abc"), True),
        (exp.Literal.string("it's"), False),
        (exp.Literal.string(""), False),
        (exp.Literal.string("NULL"), False),
        (exp.Literal.string("a%"), False),
        (exp.Literal.string("1e3"), False),
        (exp.Literal.string("2024-01-01"), True),
        (exp.Literal.string("2024-02-30"), False),
    ],
)
def test_value_classes(value: exp.Literal, cacheable: bool) -> None:
    assert (text_cache.value_class(value) is not None) == cacheable


# -- changes between two executions of one shape ------------------------------------------------
@pytest.fixture
def fresh(tmp_path: Path) -> Iterator[tuple[Engine, Run]]:
    engine = Engine(tmp_path / "data")
    run = _runner(engine, _context(engine))
    for sql in (
        "CREATE DATABASE d1",
        "CREATE DATABASE d2",
        "CREATE TABLE d1.t (id INT PRIMARY KEY, v VARCHAR(10))",
        "CREATE TABLE d2.t (id INT PRIMARY KEY, v VARCHAR(10))",
        "INSERT INTO d1.t VALUES (1, 'one'), (2, 'two'), (3, 'three')",
        "INSERT INTO d2.t VALUES (1, 'uno'), (2, 'dos'), (3, 'tres')",
    ):
        run(sql)
    yield engine, run
    engine.close()


def _learnt(engine: Engine, run: Run, template: str, values: list[Any]) -> list[Any]:
    """Run ``template`` once per value; the answers, after checking the last ones hit."""
    before = engine.query.texts.hits
    answers = [run(template.format(v)).rows for v in values]
    assert engine.query.texts.hits > before
    return answers


def test_use_between_two_executions(fresh: tuple[Engine, Run]) -> None:
    engine, run = fresh
    run("USE d1")
    assert _learnt(engine, run, "SELECT v FROM t WHERE id = {}", [1, 2, 3]) == [
        [("one",)],
        [("two",)],
        [("three",)],
    ]
    run("USE d2")
    assert run("SELECT v FROM t WHERE id = 2").rows == [("dos",)]


def test_drop_and_create_table_between_two_executions(fresh: tuple[Engine, Run]) -> None:
    engine, run = fresh
    run("USE d1")
    _learnt(engine, run, "SELECT * FROM t WHERE v = '{}'", ["one", "two", "three"])
    run("DROP TABLE t")
    with pytest.raises(DrydockError) as dropped:
        run("SELECT * FROM t WHERE v = 'two'")
    assert dropped.value.code == 1146
    run("CREATE TABLE t (id INT PRIMARY KEY, w INT, v VARCHAR(30) NOT NULL)")
    run("INSERT INTO t VALUES (2, 20, 'two')")
    with_cache = _answer(run, "SELECT * FROM t WHERE v = 'two'")
    engine.query.texts.enabled = False
    try:
        without = _answer(run, "SELECT * FROM t WHERE v = 'two'")
    finally:
        engine.query.texts.enabled = True
    assert with_cache == without
    assert with_cache[:2] == ([(2, 20, "two")], ["id", "w", "v"])
    # a shape learnt on the new table answers with its definition
    _learnt(engine, run, "SELECT v FROM t WHERE id = {}", [2, 3, 4])
    run("DROP TABLE t")
    run("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    run("INSERT INTO t VALUES (2, 7)")
    with_cache = _answer(run, "SELECT v FROM t WHERE id = 2")
    engine.query.texts.enabled = False
    try:
        without = _answer(run, "SELECT v FROM t WHERE id = 2")
    finally:
        engine.query.texts.enabled = True
    assert with_cache == without and with_cache[0] == [(7,)]


def test_alter_table_between_two_executions(fresh: tuple[Engine, Run]) -> None:
    engine, run = fresh
    run("USE d1")
    _learnt(engine, run, "SELECT * FROM t WHERE id = {}", [1, 2, 3])
    run("ALTER TABLE t MODIFY v VARCHAR(30) NOT NULL DEFAULT 'x'")
    run("ALTER TABLE t ADD COLUMN w INT")
    with_cache = _answer(run, "SELECT * FROM t WHERE id = 2")
    engine.query.texts.enabled = False
    try:
        without = _answer(run, "SELECT * FROM t WHERE id = 2")
    finally:
        engine.query.texts.enabled = True
    assert with_cache == without and with_cache[:2] == ([(2, "two", None)], ["id", "v", "w"])


def test_set_sql_mode_between_two_executions(fresh: tuple[Engine, Run]) -> None:
    engine, run = fresh
    run("USE d1")
    loose = "SELECT v FROM t WHERE id > {} GROUP BY id % 2"
    run("SET sql_mode = 'ONLY_FULL_GROUP_BY'")
    with pytest.raises(DrydockError) as strict:
        run(loose.format(1))
    assert strict.value.code == 1055
    run("SET sql_mode = ''")
    _learnt(engine, run, loose, [1, 2, 3])
    run("SET sql_mode = 'ONLY_FULL_GROUP_BY'")
    with pytest.raises(DrydockError) as again:
        run(loose.format(2))
    assert again.value.code == 1055


def test_revoke_between_two_executions(fresh: tuple[Engine, Run]) -> None:
    engine, run = fresh
    run("CREATE USER 'u'@'%'")
    run("GRANT SELECT ON d1.t TO 'u'@'%'")
    user = _runner(engine, _context(engine, "u"))
    user("USE d1")
    _learnt(engine, user, "SELECT v FROM t WHERE id = {}", [1, 2, 3])
    run("REVOKE SELECT ON d1.t FROM 'u'@'%'")
    with pytest.raises(DrydockError) as refused:
        user("SELECT v FROM t WHERE id = 2")
    assert refused.value.code == 1142


def test_session_values_are_never_cached(fresh: tuple[Engine, Run]) -> None:
    engine, run = fresh
    other_ctx = _context(engine)
    other_ctx.connection_id = 2
    other = _runner(engine, other_ctx)
    for session in (run, other):
        session("USE d1")
        session("SET @k = 'zz'")
    before = engine.query.texts.hits
    query = "SELECT id FROM t WHERE id = CONNECTION_ID() + {}"
    for x in (2, 1, 1):
        assert run(query.format(x)).rows == [(x + 1,)]
    assert other(query.format(1)).rows == [(3,)]  # its own connection id
    query = "SELECT id FROM t WHERE id = {} AND v <> @k"
    for x in (2, 1, 3):
        assert run(query.format(x)).rows == [(x,)]
    run("SET @k = 'two'")
    assert run(query.format(2)).rows == []
    assert run("SELECT v FROM t WHERE id = 1 AND DATABASE() = 'd1'").rows == [("one",)]
    assert run("SELECT v FROM t WHERE id = 1 AND DATABASE() = 'd1'").rows == [("one",)]
    run("USE d2")
    assert run("SELECT v FROM t WHERE id = 1 AND DATABASE() = 'd1'").rows == []
    assert engine.query.texts.hits == before
