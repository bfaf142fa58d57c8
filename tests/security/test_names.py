"""Names over the wire: GRANT ON db.`*` is one table, and index/tag/branch names are identifiers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ServerProcess
from tests.support.lance_fixtures import local_warehouse
from tests.support.paimon_procs import local_lake
from tests.support.procedures_lance_support import fails, make_table

BAD_NAMES = ["a" * 65, "..", "a/b", "x\\\\y"]  # as SQL text: x\\y is the value x\y


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(data_dir=tmp_path_factory.mktemp("names") / "data").start()
    yield proc
    proc.stop()


def _rows_as(server: ServerProcess, sql: str, user: str, password: str = "pw") -> list[tuple]:
    with server.connect(user=user, password=password) as conn, conn.cursor() as cur:
        cur.execute(sql)
        return list(cur.fetchall())


def test_grant_on_a_backticked_star_covers_that_table_only(server: ServerProcess) -> None:
    for sql in [
        "CREATE DATABASE gdb",
        "CREATE TABLE gdb.t (a INT)",
        'CREATE TABLE gdb."*" (b INT)',
        "CREATE USER 'star'@'%' IDENTIFIED BY 'pw'",
        "GRANT SELECT_PRIV ON gdb.`*` TO 'star'@'%'",
    ]:
        server.query(sql)
    assert _rows_as(server, 'SELECT * FROM gdb."*"', "star") == []
    assert fails(server, "SELECT * FROM gdb.t", "star", "pw")[0] == 1142
    grants = _rows_as(server, "SHOW GRANTS", "star")[0]
    assert grants[5] == "" and grants[6] == "internal.gdb.`*`: Select_priv"
    server.query("REVOKE SELECT_PRIV ON gdb.`*` FROM 'star'@'%'")
    assert fails(server, 'SELECT * FROM gdb."*"', "star", "pw")[0] == 1142


@pytest.mark.parametrize("name", BAD_NAMES)
def test_index_names_must_be_identifiers(server: ServerProcess, tmp_path: Path, name: str) -> None:
    t = make_table(server, local_warehouse(tmp_path / "wh"))
    code, message = fails(server, f"CREATE INDEX `{name}` ON {t.fq} (id) USING BTREE")
    assert code == 5100 and "index name" in message
    assert fails(server, f"DROP INDEX `{name}` ON {t.fq}")[0] == 5100


@pytest.mark.parametrize(
    "procedure,args,arg",
    [
        ("create_tag", "tag => '{name}', snapshot => 1", "tag"),
        ("create_branch", "branch => '{name}'", "branch"),
    ],
)
@pytest.mark.parametrize("name", BAD_NAMES)
def test_lance_ref_names_must_be_identifiers(
    server: ServerProcess, tmp_path: Path, procedure: str, args: str, arg: str, name: str
) -> None:
    t = make_table(server, local_warehouse(tmp_path / "wh"))
    sql = f"CALL {t.catalog}.sys.{procedure}(table => '{t.arg}', {args.format(name=name)})"
    code, message = fails(server, sql)
    assert code == 1108 and f"argument '{arg}'" in message, message


def test_lance_rename_tag_checks_the_new_name(server: ServerProcess, tmp_path: Path) -> None:
    t = make_table(server, local_warehouse(tmp_path / "wh"))
    server.query(f"CALL {t.catalog}.sys.create_tag(table => '{t.arg}', tag => 'v1', snapshot => 1)")
    code, message = fails(server, f"CALL {t.catalog}.sys.rename_tag('{t.arg}', 'v1', '{'n' * 65}')")
    assert code == 1108 and "argument 'target_tag'" in message and "too long" in message


@pytest.mark.parametrize(
    "procedure,args,arg",
    [
        ("create_tag", "tag => '{name}'", "tag"),
        ("create_branch", "branch => '{name}'", "branch"),
    ],
)
@pytest.mark.parametrize("name", BAD_NAMES)
def test_paimon_ref_names_must_be_identifiers(
    server: ServerProcess, tmp_path: Path, procedure: str, args: str, arg: str, name: str
) -> None:
    lake = local_lake(server, tmp_path)
    lake.create("db.t")
    lake.append("db.t", [{"id": 1, "item": "x", "qty": 1}])
    code, message = fails(
        server, f"CALL {lake.catalog}.sys.{procedure}(table => 'db.t', {args.format(name=name)})"
    )
    assert code == 1108 and f"argument '{arg}'" in message, message
