"""Audit: one record per changing or denied statement, secrets masked, readable by ADMIN."""

from __future__ import annotations

import json

import pymysql
import pytest

from drydock.engine.security.redact import redact_map
from drydock.grammar.redact import redact_sql
from tests.conftest import ServerProcess


def audit_rows(server: ServerProcess, limit: int = 50) -> list[dict]:
    with server.connect() as conn, conn.cursor(pymysql.cursors.DictCursor) as cur:
        cur.execute(f"SHOW AUDIT LIMIT {limit}")
        return list(cur.fetchall())


def test_changing_and_denied_statements_are_audited_without_secrets(server: ServerProcess) -> None:
    server.query("CREATE DATABASE db1")
    server.query("CREATE TABLE db1.t (a INT)")
    server.query("INSERT INTO db1.t VALUES (1)")
    server.query("CREATE USER 'bob'@'%' IDENTIFIED BY 'hunter2-secret'")
    server.query("SET PASSWORD FOR 'bob'@'%' = PASSWORD('another-secret')")
    server.query("SELECT * FROM db1.t")  # a read: not audited
    with server.connect(user="bob", password="another-secret") as conn, conn.cursor() as cur:
        with pytest.raises(pymysql.err.MySQLError):
            cur.execute("SELECT * FROM db1.t")
    with pytest.raises(pymysql.err.OperationalError):
        server.connect(user="bob", password="wrong-password")

    rows = audit_rows(server)
    kinds = [(r["Kind"], r["Outcome"], r["ErrorCode"]) for r in rows]
    assert kinds == [
        ("Login", "error", 1045),
        ("Denied", "error", 1142),
        ("SetPassword", "ok", 0),
        ("CreateUser", "ok", 0),
        ("Insert", "ok", 0),
        ("Create", "ok", 0),
        ("Create", "ok", 0),
    ]
    insert = next(r for r in rows if r["Kind"] == "Insert")
    assert insert["Object"] == "internal.db1.t" and insert["User"] == "root"
    assert insert["Host"] == "127.0.0.1" and insert["ConnectionId"] > 0
    denied = next(r for r in rows if r["Kind"] == "Denied")
    assert denied["User"] == "bob" and denied["Statement"] == "SELECT * FROM db1.t"

    text = (server.data_dir / "audit.jsonl").read_text()
    for secret in ("hunter2-secret", "another-secret", "wrong-password"):
        assert secret not in text
        assert all(secret not in str(r) for r in rows)
    assert server.log_path is not None and "hunter2-secret" not in server.log_text()
    records = [json.loads(line) for line in text.splitlines()]
    assert {
        "time",
        "user",
        "host",
        "connection_id",
        "kind",
        "object",
        "outcome",
        "error_code",
        "duration_ms",
        "statement",
    } <= set(records[0])


def test_config_changes_are_audited(server: ServerProcess) -> None:
    server.query("ADMIN SET FRONTEND CONFIG ('lance_index_job_dispatcher_paused' = 'true')")
    top = audit_rows(server, 1)[0]
    assert (top["Kind"], top["Outcome"]) == ("AdminSetFrontendConfig", "ok")


def test_redaction_of_statement_text() -> None:
    assert (
        redact_sql("CREATE USER 'a'@'%' IDENTIFIED BY 'p\\'w'")
        == "CREATE USER 'a'@'%' IDENTIFIED BY '***'"
    )
    assert (
        redact_sql('set password for a = password("x")') == "set password for a = password('***')"
    )
    assert redact_sql("SET PASSWORD = 'abc'") == "SET PASSWORD = '***'"
    masked = redact_sql(
        'CREATE CATALOG c PROPERTIES ("s3.secret_key" = "SK", "warehouse" = "s3://b")'
    )
    assert (
        masked == 'CREATE CATALOG c PROPERTIES ("s3.secret_key" = \'***\', "warehouse" = "s3://b")'
    )
    assert redact_map({"s3.secret_key": "x", "token": "y", "region": "z"}) == {
        "s3.secret_key": "***",
        "token": "***",
        "region": "z",
    }


def test_owned_statements_name_their_object(server: ServerProcess) -> None:
    server.query("CREATE USER 'obj'@'%' IDENTIFIED BY 'pw'")
    with pytest.raises(pymysql.err.MySQLError):
        server.query("CALL nocat.sys.compact(table => 'db.t')")
    rows = audit_rows(server, 2)
    assert (rows[0]["Kind"], rows[0]["Object"]) == ("CallProcedure", "nocat.db.t")
    assert (rows[1]["Kind"], rows[1]["Object"]) == ("CreateUser", "'obj'@'%'")
