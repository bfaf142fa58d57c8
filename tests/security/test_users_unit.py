"""Account matching by host pattern, privilege names and targets (no server)."""

from __future__ import annotations

from pathlib import Path

import pytest

from drydock.engine import ast
from drydock.engine.errors import DrydockError
from drydock.engine.store.metastore import MetaStore
from drydock.engine.security.privileges import Privileges, GrantScope, normalize_privileges
from drydock.engine.session import SessionContext
from drydock.engine.statements.users import grant_scope_of
from drydock.engine.security.users import UserIdentity, Users, host_matches, native_password_hash


@pytest.mark.parametrize(
    "pattern,host,ok",
    [
        ("%", "10.1.2.3", True),
        ("10.%", "10.1.2.3", True),
        ("10.%", "192.168.0.1", False),
        ("127.0.0._", "127.0.0.1", True),
        ("localhost", "127.0.0.1", True),
        ("localhost", "::1", True),
        ("localhost", "10.0.0.1", False),
        ("db.example", "DB.EXAMPLE", True),
    ],
)
def test_host_patterns(pattern: str, host: str, ok: bool) -> None:
    assert host_matches(pattern, host) is ok


def test_login_uses_the_most_specific_account(tmp_path: Path) -> None:
    users = Users(MetaStore(tmp_path / "m.sqlite"))
    users.create(UserIdentity("amy", "%"), "a", False)
    users.create(UserIdentity("amy", "127.0.0.%"), "b", False)
    users.create(UserIdentity("amy", "127.0.0.1"), "c", False)
    assert users.lookup("amy", "127.0.0.1").host == "127.0.0.1"
    assert users.lookup("amy", "127.0.0.9").host == "127.0.0.%"
    assert users.lookup("amy", "10.0.0.1").host == "%"
    assert users.lookup("nobody", "127.0.0.1") is None


def test_native_password_hash_matches_mysql() -> None:
    # SELECT PASSWORD('secret') on MySQL 5.7
    assert native_password_hash("secret") == "*14E65567ABDB5135D0CFD9A70B3032C179A49EE7"
    assert native_password_hash("") == ""


def test_privilege_names() -> None:
    assert normalize_privileges(["select", "SELECT_PRIV", "insert"]) == ("SELECT_PRIV", "LOAD_PRIV")
    assert normalize_privileges(["ALL PRIVILEGES"]) == (
        "SELECT_PRIV",
        "LOAD_PRIV",
        "ALTER_PRIV",
        "CREATE_PRIV",
        "DROP_PRIV",
        "SHOW_VIEW_PRIV",
    )
    with pytest.raises(DrydockError):
        normalize_privileges(["FLY"])


@pytest.mark.parametrize(
    "parts,target",
    [
        ((None, None, None), GrantScope()),
        ((None, None), GrantScope()),
        (("c", None, None), GrantScope("c")),
        (("c", "d", None), GrantScope("c", "d")),
        (("d", None), GrantScope("internal", "d")),
        (("d",), GrantScope("internal", "d")),
        (("d", "t"), GrantScope("internal", "d", "t")),
        (("c", "d", "t"), GrantScope("c", "d", "t")),
    ],
)
def test_privilege_targets_resolve_in_the_current_catalog(
    parts: tuple[str | None, ...], target: GrantScope
) -> None:
    """None is a bare ``*`` as the parser gives it."""
    ctx = SessionContext("root", "h", 1)
    assert grant_scope_of(ast.PrivilegeTarget(parts), ctx) == target


def test_grants_cover_lower_levels_and_admin_covers_all(tmp_path: Path) -> None:
    store = MetaStore(tmp_path / "m.sqlite")
    users = Users(store)
    privileges = Privileges(store, users)
    users.create(UserIdentity("u"), "", False)
    ctx = SessionContext("u", "127.0.0.1", 1)
    privileges.grant("user:u@%", GrantScope("internal", "db1"), ("SELECT_PRIV",))
    assert privileges.has(ctx, "SELECT_PRIV", "internal", "db1", "t")
    assert not privileges.has(ctx, "SELECT_PRIV", "internal", "db2", "t")
    assert not privileges.has(ctx, "LOAD_PRIV", "internal", "db1", "t")
    assert privileges.may_see_db(ctx, "internal", "db1") and not privileges.may_see_db(
        ctx, "internal", "db2"
    )
    privileges.grant("user:u@%", GrantScope(), ("ADMIN_PRIV",))
    assert privileges.has(ctx, "DROP_PRIV", "other", "x", "y")
