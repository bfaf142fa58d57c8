"""Round trip of every statement family: text → statement → canonical text (grammar/render.py) →
the same statement again, over a corpus that must name every statement class the grammar or the
passthrough produces — a new family without a corpus entry fails ``test_the_corpus_covers...``.
"""

from __future__ import annotations

import inspect

import pytest

from drydock.engine import ast
from drydock.engine.statements import HANDLERS
from drydock.grammar import parser
from drydock.grammar.lark_parser import PARSER
from drydock.grammar.owned_prefixes import owns
from drydock.grammar import sql as sql_grammar
from drydock.grammar.render import MASK, render, string

# Written the way clients write them: lower case, keywords as names, quotes of both kinds, escapes,
# comments, optional clauses present and absent. One line per text (pytest ids are the texts).
CORPUS: tuple[str, ...] = (
    # admin
    """ADMIN SET FRONTEND CONFIG ("lance_index_job_max_unresolved_global" = "77")""",
    """admin set frontend config ('a' = 'x''y', "b" = 12, 'c' = true)""",
    "ADMIN SHOW FRONTEND CONFIG",
    "ADMIN SHOW FRONTEND CONFIG LIKE 'lance\\_%'",
    # diagnostics and session
    "SHOW WARNINGS",
    "SHOW ERRORS LIMIT 5",
    "show warnings limit 2, 10",
    "SHOW COUNT(*) WARNINGS",
    "SHOW COUNT(*) ERRORS",
    "KILL 42",
    "KILL QUERY 7",
    "kill connection 9 -- with a comment",
    # users, roles, privileges
    "CREATE USER 'u'@'%' IDENTIFIED BY 'pw'",
    "CREATE USER IF NOT EXISTS bob@localhost",
    "CREATE USER 'o''brien'@'10.0.0.%' IDENTIFIED BY PASSWORD 'p\\\\w' DEFAULT ROLE 'analyst'",
    "DROP USER 'u'@'%'",
    "DROP USER IF EXISTS u",
    "ALTER USER IF EXISTS 'u'@'h' IDENTIFIED BY 'new'",
    "SET PASSWORD = 'pw'",
    "SET PASSWORD FOR 'u'@'%' = PASSWORD('pw')",
    "GRANT SELECT_PRIV ON ctl.db.t TO 'u'@'%'",
    "GRANT select, ALTER, SHOW VIEW ON db.* TO ROLE 'r'",
    "GRANT ALL PRIVILEGES ON *.*.* TO 'admin'@'%'",
    "GRANT GRANT OPTION, usage ON `weird``name`.`*` TO u",
    "REVOKE ADMIN ON *.*.* FROM 'u'@'%'",
    "REVOKE CREATE, DROP ON ctl.*.* FROM ROLE r",
    "GRANT 'r1', 'r2' TO 'u'@'%'",
    "REVOKE 'r1' FROM u@h",
    "CREATE ROLE analyst",
    "CREATE ROLE IF NOT EXISTS 'r'",
    "DROP ROLE IF EXISTS analyst",
    "DROP ROLE r",
    "SHOW GRANTS",
    "SHOW GRANTS FOR 'u'@'%'",
    "SHOW GRANTS FOR CURRENT_USER()",
    "SHOW ALL GRANTS",
    "SHOW ROLES",
    # audit, internal catalog
    "SHOW AUDIT",
    "SHOW AUDIT LIMIT 3",
    "SHOW CREATE TABLE internal.db.t",
    "show create table `select`",
    # catalogs and metadata
    "CREATE CATALOG lc PROPERTIES ('type' = 'lance', 'warehouse' = '/w')",
    'CREATE CATALOG IF NOT EXISTS `my cat` COMMENT \'a "quoted" note\' PROPERTIES ("type" = '
    '"paimon")',
    "CREATE CATALOG s3c PROPERTIES ('type' = 'lance', 's3.secret_key' = 'shh', 's3.region' = 'eu')",
    "DROP CATALOG lc",
    "DROP CATALOG IF EXISTS lc",
    "ALTER CATALOG lc RENAME lc2",
    "ALTER CATALOG lc SET PROPERTIES ('meta.cache.ttl-second' = '0')",
    "SHOW CATALOGS",
    "SHOW CATALOGS LIKE 'l%'",
    "SHOW CREATE CATALOG lc",
    "SWITCH lc",
    "USE db",
    "use lc.`db`",
    "REFRESH CATALOG lc",
    "REFRESH DATABASE lc.db",
    "refresh table lc.db.t",
    "SHOW DATABASES",
    "SHOW SCHEMAS FROM lc LIKE 'd%'",
    "SHOW TABLES",
    "SHOW FULL TABLES IN lc.db LIKE 't\\_%'",
    "DESC t",
    "DESCRIBE lc.db.t",
    "DESC t 'i%'",
    "DESCRIBE db.t col",
    "SHOW CREATE DATABASE db",
    "SHOW CREATE SCHEMA IF NOT EXISTS `d b`",
    "SHOW TRIGGERS",
    "SHOW TRIGGERS FROM db LIKE 't%'",
    "LOCK TABLES t READ /*!32311 LOCAL */, db.u AS x WRITE",
    "UNLOCK TABLES",
    "FLUSH TABLES",
    "FLUSH /*!40101 LOCAL */ TABLES WITH READ LOCK",
    "FLUSH PRIVILEGES",
    "show full columns from `t` from lc.db like 'a%'",
    "SHOW EXTENDED FIELDS IN db.t",
    "SHOW COLUMNS FROM lc.db.t",
    "SHOW INDEX FROM db.t",
    "SHOW KEYS IN t IN db",
    "SHOW KEYS IN lc.db.t",
    # Lance index jobs
    "CREATE INDEX i ON lc.db.t (emb) USING ANN PROPERTIES ('index_type' = 'IVF_PQ', "
    "'num_partitions' = '4')",
    "CREATE OR REPLACE INDEX i ON db.t (emb) USING ann",
    "CREATE INDEX IF NOT EXISTS b ON t (id) USING BTREE",
    "create index plain on t (a, b)",
    "DROP INDEX i ON lc.db.t",
    "DROP INDEX IF EXISTS `index` ON t",
    "SHOW LANCE INDEX JOBS",
    "SHOW LANCE INDEX JOBS FROM lc.db",
    """SHOW LANCE INDEX JOBS IN db WHERE TableName = "t" AND State = 'PENDING'""",
    "SHOW LANCE INDEX JOBS WHERE JobId >= 3 OR 'x' != State",
    "SHOW LANCE INDEX JOBS WHERE TableName LIKE 't%' AND CreateTime < -5",
    "SHOW LANCE INDEX JOB 12",
    "RESOLVE LANCE INDEX JOB 12 AS FORCE_RELEASE COMMENT 'worker host is gone'",
    "CANCEL LANCE INDEX JOB 4",
    "SHOW BACKENDS",
    "SHOW FRONTENDS",
    # SQL-level prepared statements
    "PREPARE s FROM 'SELECT ? + 1'",
    "PREPARE `S 2` FROM @`my var`",
    "EXECUTE s",
    "EXECUTE s USING @a, @'b', @c",
    "DEALLOCATE PREPARE s",
    "DROP PREPARE s",
    # procedures
    "CALL lc.sys.create_tag(table => 'db.t', tag => 'v1', version => 3)",
    "CALL sys.expire_snapshots('db.t', 2, -1, 1.5e3, TRUE, false, NULL)",
    "CALL pc.sys.compact()",
    "SHOW PROCEDURES",
    "SHOW PROCEDURES FROM lc",
    "SHOW PROCEDURE lc.sys.compact",
    # server information
    "SHOW ENGINES",
    "SHOW STORAGE ENGINES",
    "SHOW CHARSET",
    "SHOW CHARACTER SET LIKE 'utf8%'",
    "SHOW COLLATION LIKE 'utf8mb4_0900%'",
    "SHOW PLUGINS",
    "SHOW PROCESSLIST",
    "SHOW FULL PROCESSLIST",
    "SHOW TABLE STATUS",
    "SHOW TABLE STATUS FROM lc.db LIKE 't%'",
    "SHOW PROCEDURE STATUS",
    "SHOW FUNCTION STATUS LIKE 'f%'",
    # plain SQL (the passthrough, with drydock's time-travel spellings)
    "SELECT a, COUNT(*) AS n FROM db.t WHERE b > 1 GROUP BY a ORDER BY n DESC LIMIT 10",
    "SELECT * FROM lc.db.t FOR VERSION AS OF 3",
    "SELECT count(*) FROM lc.db.t FOR TIME AS OF '2024-01-01 00:00:00'",
    "SELECT * FROM lc.db.t@tag('v1')",
    "INSERT INTO db.t (a, b) VALUES (1, 'x'), (2, NULL)",
    "REPLACE INTO db.t VALUES (1, 'y')",
    "UPDATE db.t SET b = 'z' WHERE a = 1",
    "DELETE FROM db.t WHERE a IN (1, 2)",
    "CREATE TABLE db.t2 (id INT PRIMARY KEY, name VARCHAR(20))",
    "RENAME TABLE db.a TO db.b, db.c TO db.d",
    "SET @x = 1",
    "WITH c AS (SELECT 1 AS x) SELECT x FROM c UNION ALL SELECT 2",
    # search: vector literals, Doris full-text predicates, MySQL's MATCH … AGAINST
    "SELECT id, l2_distance(emb, [0.1, -0.2, 3]) AS d FROM lc.db.t ORDER BY d LIMIT 10",
    "select a[1], [], cosine_distance(emb, '[1,2]') from db.t",
    "SELECT id FROM t WHERE body MATCH_ANY 'zebra' AND b MATCH_PHRASE 'a b' OR c match_all 'x'",
    "SELECT * FROM db.t WHERE MATCH (a, b) AGAINST ('x' IN BOOLEAN MODE)",
    "SELECT * FROM db.t WHERE MATCH (a) AGAINST ('x y' IN NATURAL LANGUAGE MODE)",
)


def parse(text: str) -> ast.Statement:
    """The grammar's statement when drydock owns the text, else the passthrough's (server/session.py
    does the same, plus its shape cache)."""
    owned = parser.parse(text)
    return (
        owned
        if owned is not None
        else ast.SqlStatement(text=text, expression=sql_grammar.parse(text))
    )


def same(a: ast.Statement, b: ast.Statement) -> bool:
    """Statement equality; a plain-SQL statement (compared by identity) by its sqlglot tree."""
    if isinstance(a, ast.SqlStatement) and isinstance(b, ast.SqlStatement):
        return bool(a.expression == b.expression)
    return a == b


@pytest.mark.parametrize("text", CORPUS)
def test_text_statement_text_statement_is_the_same_statement(text: str) -> None:
    first = parse(text)
    canonical = render(first, secrets=True)
    second = parse(canonical)
    assert type(second) is type(first), canonical
    assert same(first, second), f"{text!r} → {canonical!r}: {first} != {second}"
    assert render(second, secrets=True) == canonical  # canonical text is a fixed point


def statement_classes() -> set[type[ast.Statement]]:
    """Every concrete statement class engine/ast.py declares (HANDLERS' and the prepared ones)."""
    return {
        c
        for _, c in inspect.getmembers(ast, inspect.isclass)
        if issubclass(c, ast.Statement) and c is not ast.Statement and c.__module__ == ast.__name__
    }


def test_the_corpus_covers_every_statement_family() -> None:
    covered = {type(parse(text)) for text in CORPUS}
    assert set(HANDLERS) <= statement_classes()
    missing = sorted(c.__name__ for c in statement_classes() - covered)
    assert not missing, f"statement classes without a round-trip corpus entry: {missing}"


def test_every_grammar_rule_that_builds_a_statement_is_in_the_corpus() -> None:
    """The grammar's statement alternatives (the ``?statement`` rule): each reached by a text."""
    alternatives = {
        rule.expansion[0].name for rule in PARSER.rules if rule.origin.name == "statement"
    }
    reached = set()
    for text in CORPUS:
        tree = PARSER.parse(text) if owns(text) else None
        if tree is not None:
            reached.add(tree.children[0].data)
    assert alternatives - reached == set()


def test_secrets_are_masked_unless_asked_for() -> None:
    create = parse("CREATE USER 'u'@'%' IDENTIFIED BY 'hunter2'")
    assert "hunter2" not in render(create) and string(MASK) in render(create)
    catalog = parse("CREATE CATALOG c PROPERTIES ('type' = 'lance', 's3.secret_key' = 'shh')")
    assert "shh" not in render(catalog) and "'lance'" in render(catalog)
    assert "shh" in render(catalog, secrets=True)
    assert "pw" not in render(parse("SET PASSWORD FOR 'u'@'%' = 'pw'"))


@pytest.mark.parametrize(
    "value", ["", "plain", "it's", "back\\slash", "\\%", "new\nline", 'dq"', "``"]
)
def test_string_literals_survive_the_round_trip(value: str) -> None:
    statement = ast.ResolveLanceIndexJob(job_id=1, note=value)
    assert parse(render(statement)) == statement
