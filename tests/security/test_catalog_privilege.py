"""Catalogs over host paths (hardening): who may point a catalog where, over the wire.

Global CREATE_PRIV alone must not open the host's file system: without ADMIN a warehouse must lie
under ``catalog_allowed_local_roots`` (realpath), and no one may use drydock's data directory.
Grants follow a catalog's identity through RENAME and do not survive its DROP.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import lance
import pyarrow as pa
import pymysql
import pytest

from tests.conftest import ServerProcess

ADMIN_NEEDED = "Access denied; you need (at least one of) the ADMIN privilege(s) for this operation"


def unique(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:8]}"


def error_of(server: ServerProcess, sql: str, user: str, password: str = "pw") -> tuple[int, str]:
    with server.connect(user=user, password=password) as conn, conn.cursor() as cur:
        with pytest.raises(pymysql.err.MySQLError) as info:
            cur.execute(sql)
    return info.value.args[0], info.value.args[1]


def run_as(server: ServerProcess, sql: str, user: str, password: str = "pw") -> list[tuple]:
    with server.connect(user=user, password=password) as conn, conn.cursor() as cur:
        cur.execute(sql)
        return list(cur.fetchall())


def lance_sql(name: str, warehouse: str) -> str:
    return f"CREATE CATALOG {name} PROPERTIES ('type' = 'lance', 'warehouse' = '{warehouse}')"


def user_with(server: ServerProcess, grant: str) -> str:
    name = unique("u")
    server.query(f"CREATE USER '{name}'@'%' IDENTIFIED BY 'pw'")
    server.query(f"GRANT {grant} TO '{name}'@'%'")
    return name


@pytest.fixture
def roots(shared_server: ServerProcess, tmp_path: Path) -> Iterator[Path]:
    """``<tmp>/allowed`` is the one allowed local root for this test; a symlink in it points at
    /etc."""
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    os.symlink("/etc", allowed / "to-etc")
    shared_server.query(f"ADMIN SET FRONTEND CONFIG ('catalog_allowed_local_roots' = '{allowed}')")
    yield allowed
    shared_server.query("ADMIN SET FRONTEND CONFIG ('catalog_allowed_local_roots' = '')")


def escapes(allowed: Path, data_dir: Path) -> dict[str, str]:
    return {
        "root": "/",
        "etc": "/etc",
        "dotdot": f"{allowed}/../outside",
        "symlink": f"{allowed}/to-etc/x",
        "file-uri": "file:///etc",
        "data-dir": str(data_dir),
        "in-data-dir": f"{data_dir}/wh",
    }


@pytest.mark.parametrize(
    "case", ["root", "etc", "dotdot", "symlink", "file-uri", "data-dir", "in-data-dir"]
)
def test_create_privilege_alone_cannot_reach_outside_the_allowed_roots(
    shared_server: ServerProcess, roots: Path, case: str
) -> None:
    user = user_with(shared_server, "CREATE_PRIV ON *.*.*")
    name = unique("c")
    warehouse = escapes(roots, shared_server.data_dir)[case]
    code, message = error_of(shared_server, lance_sql(name, warehouse), user)
    assert code == 1227 and message.startswith(ADMIN_NEEDED), message
    assert "catalog_allowed_local_roots" in message
    assert f"'{warehouse}'" in message  # only what the user wrote is echoed
    assert str(shared_server.data_dir) not in message.replace(warehouse, "")
    assert (name,) not in [(r[1],) for r in shared_server.query("SHOW CATALOGS")]


def test_create_privilege_creates_under_an_allowed_root_and_only_once_configured(
    shared_server: ServerProcess, tmp_path: Path
) -> None:
    user = user_with(shared_server, "CREATE_PRIV ON *.*.*")
    allowed = tmp_path / "allowed"
    name = unique("c")
    assert (
        error_of(shared_server, lance_sql(name, f"{allowed}/wh"), user)[0] == 1227
    )  # default: none
    shared_server.query(
        f"ADMIN SET FRONTEND CONFIG ('catalog_allowed_local_roots' = '/nonexistent, {allowed}')"
    )
    try:
        assert run_as(shared_server, lance_sql(name, f"{allowed}/wh"), user) == []
        paimon = unique("p")
        run_as(
            shared_server,
            f"CREATE CATALOG {paimon} PROPERTIES ('type' = 'paimon', "
            f"'warehouse' = 'file://{allowed}/p')",
            user,
        )
    finally:
        shared_server.query("ADMIN SET FRONTEND CONFIG ('catalog_allowed_local_roots' = '')")
    names = [r[1] for r in shared_server.query("SHOW CATALOGS")]
    assert name in names and paimon in names


def test_object_store_warehouse_needs_an_allowed_prefix(shared_server: ServerProcess) -> None:
    user = user_with(shared_server, "CREATE_PRIV ON *.*.*")
    sql = f"CREATE CATALOG {unique('c')} PROPERTIES ('type' = 'lance', 'warehouse' = 's3://lake/team-a/wh')"
    code, message = error_of(shared_server, sql, user)
    assert code == 1227 and "catalog_allowed_object_prefixes" in message
    shared_server.query(
        "ADMIN SET FRONTEND CONFIG ('catalog_allowed_object_prefixes' = 's3://lake/team-a')"
    )
    try:
        assert run_as(shared_server, sql, user) == []
        other = f"CREATE CATALOG {unique('c')} PROPERTIES ('type' = 'lance', 'warehouse' = 's3://lake/team-b')"
        assert error_of(shared_server, other, user)[0] == 1227
    finally:
        shared_server.query("ADMIN SET FRONTEND CONFIG ('catalog_allowed_object_prefixes' = '')")


def test_no_create_privilege_is_told_admin_is_needed(
    shared_server: ServerProcess, roots: Path
) -> None:
    user = user_with(shared_server, "SELECT_PRIV ON *.*.*")
    assert error_of(shared_server, lance_sql(unique("c"), f"{roots}/wh"), user) == (
        1227,
        ADMIN_NEEDED,
    )


@pytest.mark.parametrize("where", ["data-dir", "in-data-dir", "parent-of-data-dir"])
def test_admin_creates_anywhere_except_the_data_dir(
    shared_server: ServerProcess, where: str
) -> None:
    data_dir = shared_server.data_dir
    shared_server.query(
        lance_sql(unique("c"), "/etc")
    )  # ADMIN may point a catalog at any other place
    warehouse = {
        "data-dir": f"file://{data_dir}",
        "in-data-dir": f"{data_dir}/../data/x",
        "parent-of-data-dir": str(data_dir.parent),
    }[where]
    code, message = error_of(shared_server, lance_sql(unique("c"), warehouse), "root", "")
    assert code == 1227 and "data directory" in message, message


def test_alter_cannot_move_a_warehouse_outside_the_roots(
    shared_server: ServerProcess, roots: Path
) -> None:
    name = unique("c")
    shared_server.query(lance_sql(name, f"{roots}/wh"))
    user = user_with(shared_server, f"ALTER_PRIV ON {name}.*.*")
    assert (
        run_as(
            shared_server,
            f"ALTER CATALOG {name} SET PROPERTIES ('warehouse' = '{roots}/wh2')",
            user,
        )
        == []
    )
    for outside in ("/etc", f"{roots}/../x", f"{roots}/to-etc"):
        sql = f"ALTER CATALOG {name} SET PROPERTIES ('warehouse' = '{outside}')"
        code, message = error_of(shared_server, sql, user)
        assert code == 1227 and "catalog_allowed_local_roots" in message, outside
    code, message = error_of(
        shared_server,
        f"ALTER CATALOG {name} SET PROPERTIES ('warehouse' = '{shared_server.data_dir}')",
        "root",
        "",
    )
    assert code == 1227 and "data directory" in message
    [(_, text)] = shared_server.query(f"SHOW CREATE CATALOG {name}")
    assert f'"warehouse" = "{roots}/wh2"' in text


def test_a_catalog_outside_the_roots_is_left_to_admin(
    shared_server: ServerProcess, roots: Path
) -> None:
    name = unique("c")
    shared_server.query(lance_sql(name, "/srv/elsewhere"))
    user = user_with(shared_server, f"ALTER_PRIV, DROP_PRIV ON {name}.*.*")
    for sql in (
        f"ALTER CATALOG {name} RENAME {unique('d')}",
        f"DROP CATALOG {name}",
        f"ALTER CATALOG {name} SET PROPERTIES ('warehouse' = '{roots}/wh')",
    ):
        code, message = error_of(shared_server, sql, user)
        assert code == 1227 and "/srv/elsewhere" not in message, sql
    assert name in [r[1] for r in shared_server.query("SHOW CATALOGS")]


# -- grants follow the catalog's identity
# -----------------------------------------------------------
def write_table(warehouse: Path) -> None:
    lance.write_dataset(
        pa.table({"id": pa.array([1, 2, 3], pa.int64())}), warehouse / "db1" / "t.lance"
    )


def test_rename_keeps_a_select_grant_working_under_the_new_name(
    shared_server: ServerProcess, tmp_path: Path
) -> None:
    write_table(tmp_path / "wh")
    old, new = unique("c"), unique("d")
    shared_server.query(lance_sql(old, str(tmp_path / "wh")))
    user = user_with(shared_server, f"SELECT_PRIV ON {old}.*.*")
    assert run_as(shared_server, f"SELECT count(*) FROM {old}.db1.t", user) == [(3,)]
    shared_server.query(f"ALTER CATALOG {old} RENAME {new}")
    assert run_as(shared_server, f"SELECT count(*) FROM {new}.db1.t", user) == [(3,)]
    assert new in [r[1] for r in run_as(shared_server, "SHOW CATALOGS", user)]
    [grants] = run_as(shared_server, "SHOW GRANTS", user)
    assert grants[4] == f"{new}: Select_priv"  # CatalogPrivs, by name


def test_drop_and_recreate_does_not_inherit_grants(
    shared_server: ServerProcess, tmp_path: Path
) -> None:
    write_table(tmp_path / "wh")
    name = unique("c")
    shared_server.query(lance_sql(name, str(tmp_path / "wh")))
    user = user_with(shared_server, f"SELECT_PRIV ON {name}.*.*")
    assert run_as(shared_server, f"SELECT count(*) FROM {name}.db1.t", user) == [(3,)]
    shared_server.query(f"DROP CATALOG {name}")
    shared_server.query(lance_sql(name, str(tmp_path / "wh")))
    assert name not in [r[1] for r in run_as(shared_server, "SHOW CATALOGS", user)]
    assert error_of(shared_server, f"SELECT count(*) FROM {name}.db1.t", user)[0] in (1142, 1105)
    [grants] = run_as(shared_server, "SHOW GRANTS", user)
    assert grants[4] == ""
