"""Structural secret redaction: no secret survives redact_sql, the audit log, the server log or SHOW
AUDIT."""

from __future__ import annotations

import logging
from pathlib import Path

import pymysql
import pytest

from drydock.grammar.redact import redact_sql
from drydock.grammar.parser import carries_secret, parse
from tests.conftest import make_server
from tests.security.redaction_corpus import CORPUS, SECRETS


@pytest.mark.parametrize(("sql", "secrets"), CORPUS, ids=[f"c{i:02d}" for i in range(len(CORPUS))])
def test_no_secret_of_the_corpus_survives_redaction(sql: str, secrets: tuple[str, ...]) -> None:
    masked = redact_sql(sql)
    assert "'***'" in masked
    assert [s for s in secrets if s in masked] == []


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        (
            "CREATE CATALOG c PROPERTIES ('s3.secret_key' /*c*/ = 'SK', 'region' = 'eu')",
            "CREATE CATALOG c PROPERTIES ('s3.secret_key' /*c*/ = '***', 'region' = 'eu')",
        ),
        (
            'ALTER CATALOG c SET PROPERTIES ("s3.secret_key" = 12345)',
            "ALTER CATALOG c SET PROPERTIES (\"s3.secret_key\" = '***')",
        ),
        (
            "CREATE USER u IDENTIFIED /**/ BY /**/ 'x' PASSWORD EXPIRE",
            "CREATE USER u IDENTIFIED /**/ BY /**/ '***' PASSWORD EXPIRE",
        ),
        ("SET PASSWORD FOR u = /*x*/ 'p'", "SET PASSWORD FOR u = /*x*/ '***'"),
        ("SET PASSWORD FOR u = PASSWORD('p')", "SET PASSWORD FOR u = PASSWORD('***')"),
        (
            "CALL c.sys.p(table => 'db.t', token => 'tk')",
            "CALL c.sys.p(table => 'db.t', token => '***')",
        ),
    ],
)
def test_only_the_secret_value_is_replaced(sql: str, expected: str) -> None:
    assert redact_sql(sql) == expected


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT 'password' FROM t WHERE a = 'it''s' AND b = 'x\\'y'",
        "CREATE USER u IDENTIFIED BY RANDOM PASSWORD",
        "ALTER USER u PASSWORD EXPIRE INTERVAL 90 DAY",
        "INSERT INTO db.t VALUES ('a\\'b', 2), ('c', 3)",
        "CALL c.sys.compact(table => 'db.t', options => 'k=v')",
        "SHOW CREATE CATALOG c",
    ],
)
def test_statements_without_secrets_are_unchanged(sql: str) -> None:
    assert redact_sql(sql) == sql


def test_text_that_cannot_be_tokenized_is_masked_from_its_first_quote() -> None:
    assert redact_sql("SELECT 1 /* unterminated IDENTIFIED BY 'x'") == "SELECT '***'"
    assert redact_sql("CREATE USER u IDENTIFIED BY 'abc") == "CREATE USER u IDENTIFIED BY '***'"


def test_a_literal_read_without_backslash_escapes_is_masked_too() -> None:
    # Under NO_BACKSLASH_ESCAPES the first literal is 'x\' and the password is 'secret-nbe'.
    masked = redact_sql("CREATE USER u IDENTIFIED BY 'x\\' , v IDENTIFIED BY 'secret-nbe'")
    assert "secret-nbe" not in masked


@pytest.mark.parametrize(("sql", "secrets"), CORPUS[:3] + CORPUS[16:22] + CORPUS[25:31])
def test_the_parse_cache_never_keeps_a_secret_bearing_text(
    sql: str, secrets: tuple[str, ...]
) -> None:
    try:
        statement = parse(sql)
    except Exception:  # noqa: BLE001 - a syntax error is never cached either
        return
    if statement is not None:
        assert carries_secret(sql, statement)


def test_no_secret_reaches_the_audit_log_the_server_log_or_show_audit(tmp_path: Path) -> None:
    server = make_server(tmp_path, "--log-level", "DEBUG").start()
    try:
        with server.connect() as conn, conn.cursor() as cur:
            for sql, _ in CORPUS:
                try:
                    cur.execute(sql)
                except pymysql.err.MySQLError:
                    pass  # statements may fail: what matters is where their text goes
            cur.execute("SHOW AUDIT LIMIT 100000")
            shown = repr(cur.fetchall())
    finally:
        server.stop()
    audit_files = sorted(server.data_dir.glob("audit.jsonl*"))
    assert audit_files
    places = {
        "SHOW AUDIT": shown,
        "server log": server.log_text(),
        **{f.name: f.read_text(errors="replace") for f in audit_files},
    }
    leaks = [
        (secret, where) for secret in SECRETS for where, text in places.items() if secret in text
    ]
    assert leaks == []


def test_library_loggers_cannot_echo_statement_text() -> None:
    from drydock.server.cli import quiet_library_loggers

    quiet_library_loggers()
    assert not logging.getLogger("sqlglot").isEnabledFor(logging.CRITICAL)
    assert not logging.getLogger("mysql_mimic.connection").isEnabledFor(logging.DEBUG)


def test_a_long_statement_is_redacted_only_as_far_as_it_is_kept() -> None:
    assert (
        redact_sql("CREATE USER u IDENTIFIED BY '" + "s" * 10_000 + "'", 4096)
        == "CREATE USER u IDENTIFIED BY '***'"
    )
    near_the_end = redact_sql("x" * 4080 + " PASSWORD = 'secret-at-the-limit'", 4096)
    assert len(near_the_end) <= 4096 and "secret" not in near_the_end
    inserts = "INSERT INTO t VALUES " + ", ".join(f"({i}, 'it\\'s {i}')" for i in range(50_000))
    assert redact_sql(inserts, 4096) == inserts[:4096]
