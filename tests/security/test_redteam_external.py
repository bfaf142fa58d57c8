"""Red-team pass over external-catalog names: Paimon system tables and branches (``t$snapshots``,
``t$branch_b``, ``t$branch_b$files``) and dotted ``catalog.db`` database names (SHOW, SELECT,
information_schema). The attacker holds SELECT on one Paimon table (``db.other``) and attacks its
neighbour ``db.t``; ``nobody`` holds no grant at all. Every attempt here held (no fix needed); the
tests pin it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pymysql
import pytest

from tests.conftest import ServerProcess
from tests.support.paimon_procs import Lake, local_lake, s3_lake
from tests.support.s3 import ACCESS_KEY, SECRET_KEY, S3Server

USER = "neighbour"


@pytest.fixture(scope="module")
def lake(proc_server: ServerProcess, tmp_path_factory: pytest.TempPathFactory) -> Lake:  # noqa: F811
    lake = local_lake(proc_server, tmp_path_factory.mktemp("redteam-lake"))
    lake.create("db.t")
    lake.create("db.other")
    lake.append("db.t", [{"id": 1, "item": "secret-t"}])
    lake.append("db.other", [{"id": 2, "item": "mine"}])
    lake.call("create_branch", "'db.t', 'dev'")
    lake.append("db.t", [{"id": 3, "item": "secret-dev"}], branch="dev")
    lake.sql(f"CREATE USER '{USER}'@'%' IDENTIFIED BY 'pw'")
    lake.sql("CREATE USER 'nobody'@'%' IDENTIFIED BY 'pw'")
    lake.sql(f"GRANT SELECT_PRIV ON {lake.catalog}.db.other TO '{USER}'@'%'")
    return lake


def as_user(lake: Lake, sql: str, user: str = USER) -> list[tuple[Any, ...]]:
    with lake.server.connect(user=user, password="pw") as conn, conn.cursor() as cur:
        cur.execute(sql)
        return list(cur.fetchall())


def refused(lake: Lake, sql: str, user: str = USER) -> int:
    with pytest.raises(pymysql.err.MySQLError) as info:
        as_user(lake, sql, user)
    assert "secret-" not in str(info.value.args[1])
    return int(info.value.args[0])


SYSTEM_NAME_TRICKS = [
    "{c}.db.`t$snapshots`",
    "{c}.db.t$snapshots",
    "{c}.db.`T$SNAPSHOTS`",
    "{c}.db.`t$files`",
    "{c}.db.`t$options`",
    "{c}.db.`t$branch_dev`",
    "{c}.db.t$branch_dev",
    "{c}.db.`t$branch_dev$files`",
    "`{c}.db`.`t$snapshots`",
    "`{c}.db`.`t$branch_dev`",
    "{c}.db.`T$branch_dev`",
]


@pytest.mark.parametrize("name", SYSTEM_NAME_TRICKS)
def test_a_system_table_or_branch_is_checked_like_its_base_table(lake: Lake, name: str) -> None:
    assert refused(lake, f"SELECT * FROM {name.format(c=lake.catalog)}") in (1142, 1146)
    assert as_user(lake, f"SELECT item FROM {lake.catalog}.db.other") == [("mine",)]


@pytest.mark.parametrize(
    "branch", ["../t", "../../db/t", "dev/../../t", "dev", "DEV", "main/../dev", "%2e%2e"]
)
def test_a_branch_name_cannot_reach_another_tables_branch(lake: Lake, branch: str) -> None:
    code = refused(lake, f"SELECT * FROM {lake.catalog}.db.`other$branch_{branch}`")
    assert code in (1105, 1146, 1064) or code >= 5000, code


def test_system_tables_and_branches_are_read_only_even_for_root(lake: Lake) -> None:
    before = lake.snapshots("db.t")
    for name in ("t$snapshots", "t$branch_dev", "t$branch_dev$tags"):
        for sql in (
            f"INSERT INTO {lake.catalog}.db.`{name}` VALUES (9, 'x')",
            f"DELETE FROM {lake.catalog}.db.`{name}`",
            f"DROP TABLE {lake.catalog}.db.`{name}`",
        ):
            with pytest.raises(pymysql.err.MySQLError):
                lake.sql(sql)
    assert lake.snapshots("db.t") == before and sorted(lake.branches("db.t")) == ["dev"]


def test_metadata_of_a_neighbour_is_never_listed(lake: Lake) -> None:
    c = lake.catalog
    assert [t for (t,) in as_user(lake, f"SHOW TABLES FROM `{c}.db`")] == ["other"]
    assert [t for (t, *_) in as_user(lake, f"SHOW TABLES FROM {c}.db")] == ["other"]
    rows = as_user(
        lake,
        f"SELECT DISTINCT TABLE_NAME FROM information_schema.tables WHERE TABLE_SCHEMA = '{c}.db'",
    )
    assert rows == [("other",)]
    rows = as_user(
        lake,
        f"SELECT DISTINCT TABLE_NAME FROM information_schema.columns WHERE TABLE_SCHEMA = '{c}.db'",
    )
    assert rows == [("other",)]
    for sql in (
        f"DESC {c}.db.t",
        f"SHOW CREATE TABLE {c}.db.t",
        f"SHOW COLUMNS FROM `{c}.db`.t",
        f"SHOW FULL COLUMNS FROM t IN `{c}.db`",
        f"SHOW FIELDS FROM {c}.db.t",
    ):
        with lake.server.connect() as conn, conn.cursor() as cur:
            cur.execute(sql)  # root: described
            assert cur.fetchall(), sql
        assert refused(lake, sql) in (1142, 1146), sql
    # system tables and branches of t: whatever they answer, the neighbour learns no column of t
    for sql in (
        f"DESC {c}.db.t$branch_dev",
        f"SHOW COLUMNS FROM `t$files` FROM `{c}.db`",
        f"SHOW COLUMNS FROM `{c}.db`.t",
        f"SHOW FULL COLUMNS FROM `t$branch_dev` IN `{c}.db`",
        f"SHOW CREATE TABLE {c}.db.`t$snapshots`",
    ):
        try:
            assert as_user(lake, sql) == [], sql
        except pymysql.err.MySQLError as exc:
            assert exc.args[0] in (1142, 1146), sql


def test_no_grant_lists_no_external_database(lake: Lake) -> None:
    databases = [d for (d,) in as_user(lake, "SHOW DATABASES", user="nobody")]
    assert not any(d.startswith(f"{lake.catalog}.") for d in databases)
    rows = as_user(lake, "SELECT SCHEMA_NAME FROM information_schema.schemata", user="nobody")
    assert not any(str(r[0]).startswith(f"{lake.catalog}.") for r in rows)
    assert f"{lake.catalog}.db" in [d for (d,) in as_user(lake, "SHOW DATABASES")]
    assert refused(lake, f"SELECT * FROM `{lake.catalog}.db`.other", user="nobody") in (
        1142,
        1146,
        1044,
    )


def test_branch_of_a_granted_table_still_reads(lake: Lake, tmp_path: Path) -> None:
    lake.sql(f"GRANT SELECT_PRIV ON {lake.catalog}.db.t TO 'nobody'@'%'")
    try:
        rows = as_user(
            lake, f"SELECT item FROM {lake.catalog}.db.`t$branch_dev` ORDER BY id", user="nobody"
        )
        assert (
            rows == [(r[1],) for r in sorted(lake.rows("db.t", branch="dev"))] == [("secret-dev",)]
        )
    finally:
        lake.sql(f"REVOKE SELECT_PRIV ON {lake.catalog}.db.t FROM 'nobody'@'%'")
    assert refused(lake, f"SELECT * FROM {lake.catalog}.db.`t$branch_dev`", user="nobody") in (
        1142,
        1146,
    )


def test_system_tables_of_an_s3_table_carry_no_credentials(
    proc_server: ServerProcess,  # noqa: F811
    s3: S3Server,
) -> None:  # noqa: F811
    lake = s3_lake(proc_server, s3)
    lake.create("db.t")
    lake.append("db.t", [{"id": 1, "item": "a"}])
    lake.call("create_tag", "'db.t', 'first', 1")
    texts = {}
    for suffix in ("options", "snapshots", "files", "manifests", "schemas", "tags", "partitions"):
        with proc_server.connect() as conn, conn.cursor() as cur:
            cur.execute(f"SELECT * FROM {lake.catalog}.db.`t${suffix}`")
            texts[suffix] = str(cur.fetchall())
        assert SECRET_KEY not in texts[suffix] and ACCESS_KEY not in texts[suffix], suffix
    assert (
        "first" in texts["tags"] and "manifest-list" in texts["snapshots"]
    )  # rows were really read
    with proc_server.connect() as conn, conn.cursor() as cur:
        cur.execute(f"SHOW CREATE CATALOG {lake.catalog}")
        assert SECRET_KEY not in str(cur.fetchall())
