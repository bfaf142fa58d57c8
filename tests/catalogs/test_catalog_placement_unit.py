"""Where a catalog may point, and grants that follow a catalog's identity (an engine, no server)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from drydock.engine.statements import execute as execute_statement
from drydock.engine.support.locations import (
    Location,
    check_local_roots,
    check_object_prefixes,
    is_allowed,
    local_roots,
    locate,
    object_prefixes,
    overlaps,
)
from drydock.engine.core import Engine
from drydock.engine.errors import DrydockError, Errors
from drydock.engine.store.metastore import MetaStore
from drydock.engine.security.privileges import Privileges
from drydock.engine.session import SessionContext
from drydock.engine.security.users import Users
from drydock.grammar.parser import parse

ROOT_CTX = SessionContext(user="root", host="127.0.0.1", connection_id=1)
BOB = SessionContext(user="bob", host="127.0.0.1", connection_id=2)


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    e = Engine(tmp_path / "data")
    yield e
    e.close()


def run(engine: Engine, sql: str, ctx: SessionContext = ROOT_CTX) -> None:
    statement = parse(sql)
    assert statement is not None, sql
    execute_statement(engine, statement, ctx)


def code_of(engine: Engine, sql: str, ctx: SessionContext = BOB) -> tuple[int, str]:
    with pytest.raises(DrydockError) as info:
        run(engine, sql, ctx)
    return info.value.code, info.value.message


def lance(name: str, warehouse: str) -> str:
    return f"CREATE CATALOG {name} PROPERTIES ('type' = 'lance', 'warehouse' = '{warehouse}')"


# -- locations ------------------------------------------------------------------------------------
def test_local_readings_fold_dotdot_and_follow_symlinks(tmp_path: Path) -> None:
    (tmp_path / "allowed").mkdir()
    os.symlink("/etc", tmp_path / "allowed" / "link")
    roots = local_roots(f" {tmp_path}/allowed , ")
    assert is_allowed(locate(f"{tmp_path}/allowed/wh"), roots, [])
    assert is_allowed(locate(f"file://{tmp_path}/allowed/wh"), roots, [])
    assert not is_allowed(locate(f"{tmp_path}/allowed/../outside"), roots, [])
    assert not is_allowed(locate(f"{tmp_path}/allowed/link/x"), roots, [])
    assert not is_allowed(locate(f"file://{tmp_path}/allowed/%2e%2e/outside"), roots, [])
    assert not is_allowed(locate(f"{tmp_path}/allowedx"), roots, [])  # a sibling sharing a prefix
    assert not is_allowed(locate("//etc"), roots, [])
    assert not is_allowed(locate("/"), [], [])  # no roots: nothing is allowed


def test_object_prefixes_compare_by_segment() -> None:
    prefixes = object_prefixes("s3://lake/teams/a, s3://scratch")
    assert is_allowed(locate("s3://lake/teams/a/wh"), [], prefixes)
    assert is_allowed(locate("s3a://lake/teams/a"), [], prefixes)
    assert is_allowed(locate("s3://scratch/anything"), [], prefixes)
    assert not is_allowed(locate("s3://lake/teams/ab"), [], prefixes)
    assert not is_allowed(locate("s3://lake/teams/a/../b"), [], prefixes)
    assert not is_allowed(locate("s3://lake"), [], prefixes)
    assert not is_allowed(locate("s3://lake/teams/a"), [], [])


def test_overlap_with_the_data_dir_is_checked_both_ways(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    os.symlink(data, tmp_path / "alias")
    assert overlaps(locate(str(data)), str(data))
    assert overlaps(locate(f"{data}/sub"), str(data))
    assert overlaps(locate(str(tmp_path)), str(data))
    assert overlaps(locate("/"), str(data))
    assert overlaps(locate(f"{tmp_path}/alias/x"), str(data))
    assert not overlaps(locate(f"{tmp_path}/wh"), str(data))
    assert not overlaps(Location("s3", (("b",),)), str(data))


@pytest.mark.parametrize("value", ["relative/x", "file://host/x", "s3:///nobucket", "hdfs://nn/x"])
def test_a_warehouse_not_understood_is_an_error(value: str) -> None:
    with pytest.raises(DrydockError) as info:
        locate(value)
    assert info.value.spec is Errors.CATALOG_BAD_PROPERTY


def test_config_validators() -> None:
    assert check_local_roots("/a, /b") is None and check_local_roots("") is None
    assert check_local_roots("/a,rel") == "not an absolute path: rel"
    assert check_object_prefixes("s3://b/p, s3a://c") is None
    assert check_object_prefixes("/local") is not None
    assert check_object_prefixes("s3://b/../c") is not None


# -- CREATE / ALTER / DROP CATALOG through the engine ---------------------------------------------
@pytest.fixture
def bob(engine: Engine) -> Engine:
    run(engine, "CREATE USER 'bob'@'%' IDENTIFIED BY 'pw'")
    run(engine, "GRANT CREATE_PRIV ON *.*.* TO 'bob'@'%'")
    return engine


def test_create_privilege_alone_needs_an_allowed_root(bob: Engine, tmp_path: Path) -> None:
    code, message = code_of(bob, lance("c1", f"{tmp_path}/allowed/wh"))
    assert (code, message) == (
        1227,
        "Access denied; you need (at least one of) the ADMIN privilege(s) for this "
        f"operation: warehouse '{tmp_path}/allowed/wh' is not under a location "
        "listed in config 'catalog_allowed_local_roots'",
    )
    bob.config.set("catalog_allowed_local_roots", f"{tmp_path}/allowed")
    run(bob, lance("c1", f"{tmp_path}/allowed/wh"), BOB)
    assert bob.catalogs.get("c1").properties["warehouse"] == f"{tmp_path}/allowed/wh"


def test_no_privilege_at_all_names_admin(engine: Engine) -> None:
    run(engine, "CREATE USER 'bob'@'%' IDENTIFIED BY 'pw'")
    assert code_of(engine, lance("c1", "/x")) == (
        1227,
        "Access denied; you need (at least one of) the ADMIN privilege(s) for this operation",
    )


def test_admin_is_refused_the_data_dir_only(engine: Engine, tmp_path: Path) -> None:
    run(engine, lance("c1", "/etc"))
    for warehouse in (str(tmp_path / "data"), f"{tmp_path}/data/sub", str(tmp_path), "/"):
        code, message = code_of(engine, lance("c2", warehouse), ROOT_CTX)
        assert code == 1227 and "data directory" in message, warehouse
    assert engine.catalogs.find("c2") is None


def test_denial_of_an_existing_catalog_does_not_echo_its_path(bob: Engine, tmp_path: Path) -> None:
    bob.config.set("catalog_allowed_local_roots", f"{tmp_path}/allowed")
    run(bob, lance("c1", "/srv/secret-place"))
    run(bob, "GRANT ALTER_PRIV, DROP_PRIV ON c1.*.* TO 'bob'@'%'")
    for sql in (
        "ALTER CATALOG c1 RENAME c2",
        "DROP CATALOG c1",
        "ALTER CATALOG c1 SET PROPERTIES ('meta.cache.ttl-second' = '5')",
    ):
        code, message = code_of(bob, sql)
        assert code == 1227 and "secret-place" not in message and "catalog 'c1'" in message, sql
    assert bob.catalogs.get("c1").properties["warehouse"] == "/srv/secret-place"


# -- grants follow identity -----------------------------------------------------------------------
def test_rename_moves_grants_in_the_same_transaction(engine: Engine) -> None:
    run(engine, lance("c1", "/srv/a"))
    run(engine, "CREATE USER 'bob'@'%' IDENTIFIED BY 'pw'")
    run(engine, "GRANT SELECT_PRIV ON c1.db.t TO 'bob'@'%'")
    run(engine, "GRANT SELECT_PRIV ON C1.*.* TO 'bob'@'%'")  # names compare case-insensitively
    run(engine, "ALTER CATALOG c1 RENAME c2")
    assert engine.privileges.has(BOB, "SELECT_PRIV", "c2", "db", "t")
    assert not engine.privileges.has(BOB, "SELECT_PRIV", "c1", "db", "t")
    rows = engine.store.query("SELECT catalog FROM grants WHERE grantee = 'user:bob@%'")
    assert sorted(r["catalog"] for r in rows) == ["c2", "c2"]
    store = MetaStore(engine.store.path)  # durable, not only in memory
    try:
        assert Privileges(store, Users(store)).has(BOB, "SELECT_PRIV", "c2", "db", "t")
    finally:
        store.close()


def test_drop_takes_the_grants_with_it(engine: Engine) -> None:
    run(engine, lance("c1", "/srv/a"))
    run(engine, "CREATE USER 'bob'@'%' IDENTIFIED BY 'pw'")
    run(engine, "GRANT SELECT_PRIV ON c1.*.* TO 'bob'@'%'")
    run(engine, "GRANT SELECT_PRIV ON internal.*.* TO 'bob'@'%'")
    run(engine, "DROP CATALOG c1")
    run(engine, lance("c1", "/srv/b"))
    assert not engine.privileges.sees_catalog(BOB, "c1")
    assert engine.privileges.has(BOB, "SELECT_PRIV", "internal", "db", "t")  # other grants stay
