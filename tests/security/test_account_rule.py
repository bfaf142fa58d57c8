"""The account rule (engine/security/account_rule.py) as a table: every account statement × actor ×
target.

Actors: no grant at all, GRANT_PRIV only, GRANT_PRIV + table privileges, an ADMIN user, root.
Targets: users holding nothing / a table privilege / ADMIN_PRIV, root, and roles holding nothing /
a table privilege / ADMIN_PRIV. A refused statement must change nothing (accounts, passwords,
grants, roles, memberships); an allowed one must succeed and change something. Before the rule,
a GRANT_PRIV user could set root's or an ADMIN's password and grant itself an ADMIN role.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pymysql
import pytest

from drydock.engine.statements import execute as execute_statement
from drydock.engine.security.account_rule import (
    GLOBAL,
    AccountRequest,
    Act,
    Subject,
    covers,
    refusal,
)
from drydock.engine.core import Engine
from drydock.engine.errors import DrydockError, Errors
from drydock.engine.security.privileges import GrantScope
from drydock.engine.session import SessionContext
from drydock.engine.security.users import ROOT_ACCOUNT, UserIdentity
from drydock.grammar.parser import parse
from tests.conftest import ServerProcess

# -- "covers": a privilege held at the target's level or an enclosing one
# ---------------------------
SEL, GRANT, ADMIN = "SELECT_PRIV", "GRANT_PRIV", "ADMIN_PRIV"
DB = GrantScope.of("internal", "d")
TBL = GrantScope.of("internal", "d", "t")


@pytest.mark.parametrize(
    "held,target,privilege,expected",
    [
        ({(TBL, SEL)}, TBL, SEL, True),
        ({(DB, SEL)}, TBL, SEL, True),  # a database grant encloses its tables
        ({(GrantScope.of("internal"), SEL)}, TBL, SEL, True),
        ({(GLOBAL, SEL)}, DB, SEL, True),
        ({(GLOBAL, ADMIN)}, TBL, GRANT, True),  # ADMIN covers every privilege
        ({(GLOBAL, ADMIN)}, GLOBAL, "USAGE_PRIV", True),
        ({(TBL, SEL)}, DB, SEL, False),  # a table grant does not reach the database level
        ({(DB, SEL)}, GrantScope.of("internal"), SEL, False),
        ({(GrantScope.of("internal"), SEL)}, GLOBAL, SEL, False),
        ({(GrantScope.of("lc"), SEL)}, TBL, SEL, False),  # another catalog
        ({(DB, SEL)}, GrantScope.of("internal", "e", "t"), SEL, False),
        ({(DB, "LOAD_PRIV")}, TBL, SEL, False),  # another privilege
        ({(GrantScope.of("internal", "*"), SEL)}, TBL, SEL, False),
        # a database named `*` is no wildcard
        (
            {(GrantScope.of("internal", "D"), SEL)},
            TBL,
            SEL,
            True,
        ),  # internal names fold, as checks do
        ({(DB, ADMIN)}, TBL, SEL, False),  # only a global ADMIN is ADMIN
        (set(), GLOBAL, SEL, False),
    ],
)
def test_covers_means_held_at_the_level_or_an_enclosing_one(
    held: set[tuple[GrantScope, str]], target: GrantScope, privilege: str, expected: bool
) -> None:
    assert covers(held, target, privilege) is expected


def test_the_rule_names_what_is_missing_on_which_account() -> None:
    boss = UserIdentity("boss")
    request = AccountRequest(
        UserIdentity("mallory"),
        frozenset({(GLOBAL, GRANT)}),
        Act.PASSWORD,
        (Subject(str(boss), frozenset({(GLOBAL, ADMIN), (TBL, SEL)}), boss),),
    )
    error = refusal(request)
    assert error is not None and (error.code, error.sqlstate) == (1227, "42000")
    assert error.message == (
        "Access denied; you need (at least one of) the ADMIN privilege(s) for this "
        "operation: 'boss'@'%' holds ADMIN_PRIV on *.*.*, which you do not hold "
        "(acting on an account or role needs every privilege it holds)"
    )
    root = Subject(str(ROOT_ACCOUNT), frozenset({(GLOBAL, ADMIN)}), ROOT_ACCOUNT)
    admin = refusal(
        AccountRequest(UserIdentity("admin"), frozenset({(GLOBAL, ADMIN)}), Act.PASSWORD, (root,))
    )
    assert (
        admin is not None
        and admin.message
        == "Access denied; only 'root'@'%' itself can change the password of 'root'@'%'"
    )
    assert (
        refusal(AccountRequest(ROOT_ACCOUNT, frozenset({(GLOBAL, ADMIN)}), Act.PASSWORD, (root,)))
        is None
    )
    # one's own password needs nothing
    assert (
        refusal(
            AccountRequest(
                boss,
                frozenset(),
                Act.PASSWORD,
                (Subject(str(boss), frozenset({(TBL, SEL)}), boss),),
            )
        )
        is None
    )


# -- the statement table, run on an engine (no socket) ---------------------------------------------
ACTORS = {  # name → grants given by root (besides root itself)
    "nogrant": [],
    "granter": ["GRANT GRANT_PRIV ON *.*.* TO {u}"],
    "granter_t": [
        "GRANT GRANT_PRIV ON *.*.* TO {u}",
        "GRANT SELECT_PRIV, LOAD_PRIV ON internal.d.t TO {u}",
    ],
    "admin": ["GRANT ADMIN_PRIV ON *.*.* TO {u}"],
    "root": None,
}
USER_TARGETS = {  # name → grants; 'root' is root
    "empty": [],
    "plain": ["GRANT SELECT_PRIV ON internal.d.t TO {u}"],
    "boss": ["GRANT ADMIN_PRIV ON *.*.* TO {u}"],
    "root": None,
}
ROLE_TARGETS = {
    "r_empty": [],
    "r_readers": ["GRANT SELECT_PRIV ON internal.d.t TO ROLE '{r}'"],
    "r_admins": ["GRANT ADMIN_PRIV ON *.*.* TO ROLE '{r}'"],
}
# who passes the rule, by what the target holds
EVERY_GRANTER = {"granter", "granter_t", "admin", "root"}
COVERS_TABLE = {"granter_t", "admin", "root"}
ADMINS = {"admin", "root"}
ALLOWED = {
    "empty": EVERY_GRANTER,
    "plain": COVERS_TABLE,
    "boss": ADMINS,
    "r_empty": EVERY_GRANTER,
    "r_readers": COVERS_TABLE,
    "r_admins": ADMINS,
}

# Refusal codes on root: 1227 from the rule; for those it lets pass, 1105 where root's account is
# fixed (it cannot be dropped, its grants cannot change).
RULE = {a: 1227 for a in ACTORS}
RULE_THEN_FIXED = {a: 1105 if a in ADMINS else 1227 for a in ACTORS}
# statement on a user target: (sql, setup run by root first (not on root: its grants are fixed),
# who may act on root, codes refusing the others)
USER_STATEMENTS: dict[str, tuple[str, list[str], set[str], dict[str, int]]] = {
    "alter user": ("ALTER USER {u} IDENTIFIED BY 'new-pw'", [], {"root"}, RULE),
    "set password for": ("SET PASSWORD FOR {u} = 'new-pw'", [], {"root"}, RULE),
    "create namesake": (
        "CREATE USER '{name}'@'localhost' IDENTIFIED BY 'new-pw'",
        [],
        {"root"},
        RULE,
    ),
    "drop user": ("DROP USER {u}", [], set(), RULE_THEN_FIXED),
    "grant privilege": ("GRANT GRANT_PRIV ON internal.d.t TO {u}", [], set(), RULE_THEN_FIXED),
    "revoke privilege": (
        "REVOKE GRANT_PRIV ON internal.d.t FROM {u}",
        ["GRANT GRANT_PRIV ON internal.d.t TO {u}"],
        set(),
        RULE_THEN_FIXED,
    ),
    "grant role": ("GRANT 'r_empty' TO {u}", [], ADMINS, RULE),
    "revoke role": ("REVOKE 'r_empty' FROM {u}", ["GRANT 'r_empty' TO {u}"], ADMINS, RULE),
}
# statement on a role target (the account it touches holds nothing)
ROLE_STATEMENTS: dict[str, tuple[str, list[str]]] = {
    "grant role": ("GRANT '{r}' TO 'victim'@'%'", []),
    "revoke role": ("REVOKE '{r}' FROM 'victim'@'%'", ["GRANT '{r}' TO 'victim'@'%'"]),
    "default role": ("CREATE USER 'newbie'@'%' IDENTIFIED BY 'pw' DEFAULT ROLE '{r}'", []),
    "grant to role": ("GRANT GRANT_PRIV ON internal.d.t TO ROLE '{r}'", []),
    "revoke from role": (
        "REVOKE GRANT_PRIV ON internal.d.t FROM ROLE '{r}'",
        ["GRANT GRANT_PRIV ON internal.d.t TO ROLE '{r}'"],
    ),
    "drop role": ("DROP ROLE {r}", []),
}


def ctx_of(name: str, connection_id: int = 7) -> SessionContext:
    return SessionContext(
        user=name, host="127.0.0.1", connection_id=connection_id, account_host="%"
    )


ROOT_CTX = ctx_of("root", 1)


def run(engine: Engine, sql: str, ctx: SessionContext = ROOT_CTX) -> None:
    statement = parse(sql)
    assert statement is not None, sql
    execute_statement(engine, statement, ctx)


def state(engine: Engine) -> dict[str, list[Any]]:
    """Everything an account statement may change, as stored (password hashes included)."""
    queries = {
        "users": "SELECT name, host, auth_string, revision FROM users ORDER BY 1, 2",
        "grants": "SELECT * FROM grants ORDER BY 1, 2, 3, 4, 5",
        "roles": "SELECT name FROM roles ORDER BY 1",
        "role_members": "SELECT * FROM role_members ORDER BY 1, 2, 3",
    }
    return {k: [tuple(r) for r in engine.store.query(q)] for k, q in queries.items()}


@pytest.fixture
def world(tmp_path: Path) -> Iterator[Engine]:
    engine = Engine(tmp_path / "data")
    try:
        for name, grants in {**ACTORS, **USER_TARGETS, "victim": []}.items():
            if grants is None:
                continue
            run(engine, f"CREATE USER '{name}'@'%' IDENTIFIED BY 'old-pw'")
            for sql in grants:
                run(engine, sql.format(u=f"'{name}'@'%'"))
        for role, grants in ROLE_TARGETS.items():
            run(engine, f"CREATE ROLE {role}")
            for sql in grants:
                run(engine, sql.format(r=role))
        yield engine
    finally:
        engine.close()


def check(engine: Engine, sql: str, actor: str, allowed: bool, refused_code: int = 1227) -> None:
    before = state(engine)
    if allowed:
        run(engine, sql, ctx_of(actor))
        assert state(engine) != before, f"{actor}: {sql} succeeded but changed nothing"
        return
    with pytest.raises(DrydockError) as info:
        run(engine, sql, ctx_of(actor))
    assert info.value.code == refused_code, (actor, sql, info.value.message)
    assert state(engine) == before, f"{actor}: refused {sql} changed something"


@pytest.mark.parametrize("actor", list(ACTORS))
@pytest.mark.parametrize("target", list(USER_TARGETS))
@pytest.mark.parametrize("statement", list(USER_STATEMENTS))
def test_acting_on_an_account_needs_every_privilege_it_holds(
    world: Engine, statement: str, target: str, actor: str
) -> None:
    sql, setup, on_root, root_codes = USER_STATEMENTS[statement]
    account = f"'{target}'@'%'"
    for step in setup:
        if target != "root" or not step.startswith("GRANT GRANT_PRIV ON"):
            run(world, step.format(u=account))
    allowed = actor in (on_root if target == "root" else ALLOWED[target])
    refused_code = root_codes[actor] if target == "root" else 1227
    check(world, sql.format(u=account, name=target), actor, allowed, refused_code)


@pytest.mark.parametrize("actor", list(ACTORS))
@pytest.mark.parametrize("target", list(ROLE_TARGETS))
@pytest.mark.parametrize("statement", list(ROLE_STATEMENTS))
def test_granting_or_dropping_a_role_needs_every_privilege_of_the_role(
    world: Engine, statement: str, target: str, actor: str
) -> None:
    sql, setup = ROLE_STATEMENTS[statement]
    for step in setup:
        run(world, step.format(r=target))
    check(world, sql.format(r=target), actor, actor in ALLOWED[target])


@pytest.mark.parametrize("actor", list(ACTORS))
@pytest.mark.parametrize(
    "sql",
    [
        "SET PASSWORD = 'mine'",
        "SET PASSWORD FOR '{a}'@'%' = 'mine'",
        "ALTER USER '{a}'@'%' IDENTIFIED BY 'mine'",
    ],
)
def test_everyone_may_change_their_own_password(world: Engine, sql: str, actor: str) -> None:
    check(world, sql.format(a=actor), actor, allowed=True)


@pytest.mark.parametrize("actor", list(ACTORS))
def test_creating_accounts_and_roles_needs_grant_priv(world: Engine, actor: str) -> None:
    for sql in ["CREATE USER 'fresh'@'%' IDENTIFIED BY 'pw'", "CREATE ROLE fresh_role"]:
        check(world, sql, actor, actor in EVERY_GRANTER)


def test_only_root_creates_an_account_named_root(world: Engine) -> None:
    """'root'@'localhost' would take over root's logins from the loopback (the most specific
    host)."""
    for actor in ("granter", "admin"):
        check(world, "CREATE USER 'root'@'localhost' IDENTIFIED BY 'pw'", actor, allowed=False)
    check(world, "CREATE USER 'root'@'localhost' IDENTIFIED BY 'pw'", "root", allowed=True)
    check(world, "SET PASSWORD FOR 'root'@'localhost' = 'other'", "admin", allowed=False)


def test_grant_on_needs_grant_priv_where_it_grants_and_each_privilege_there(world: Engine) -> None:
    run(world, "CREATE USER 'dbgranter'@'%' IDENTIFIED BY 'pw'")
    run(world, "GRANT GRANT_PRIV, SELECT_PRIV ON internal.d.* TO 'dbgranter'@'%'")
    check(world, "GRANT SELECT_PRIV ON internal.d.t TO 'empty'@'%'", "dbgranter", allowed=True)
    check(world, "GRANT SELECT_PRIV ON internal.e.t TO 'empty'@'%'", "dbgranter", allowed=False)
    check(world, "GRANT LOAD_PRIV ON internal.d.t TO 'empty'@'%'", "dbgranter", allowed=False)
    # 'plain' holds SELECT on internal.d.t, which the database grant encloses
    check(world, "REVOKE SELECT_PRIV ON internal.d.t FROM 'plain'@'%'", "dbgranter", allowed=True)


@pytest.mark.parametrize(
    "sql",
    [
        "GRANT 'ghost_role' TO 'empty'@'%'",
        "GRANT 'r_empty' TO 'ghost'@'%'",
        "REVOKE 'r_empty' FROM 'ghost'@'%'",
        "CREATE USER 'fresh'@'%' IDENTIFIED BY 'pw' DEFAULT ROLE 'ghost_role'",
        "GRANT SELECT_PRIV ON internal.d.t TO 'ghost'@'%'",
        "GRANT SELECT_PRIV ON internal.d.t TO ROLE 'ghost_role'",
        "REVOKE SELECT_PRIV ON internal.d.t FROM 'ghost'@'%'",
        "DROP USER 'ghost'@'%'",
        "DROP ROLE ghost_role",
        "ALTER USER 'ghost'@'%' IDENTIFIED BY 'pw'",
        "SET PASSWORD FOR 'ghost'@'%' = 'pw'",
    ],
)
def test_who_may_not_act_does_not_learn_which_accounts_and_roles_exist(
    world: Engine, sql: str
) -> None:
    """The rule runs before existence checks: 1227, never 1133 / 'Role … does not exist'."""
    check(world, sql, "nogrant", allowed=False)


def test_refusals_say_what_is_missing(world: Engine) -> None:
    with pytest.raises(DrydockError) as info:
        run(world, "GRANT 'r_admins' TO 'granter'@'%'", ctx_of("granter"))
    assert (
        info.value.message
        == Errors.ACCOUNT_ABOVE_OWN.error(
            verb="ADMIN", subject="role 'r_admins'", priv="ADMIN_PRIV", target="*.*.*"
        ).message
    )
    with pytest.raises(DrydockError) as info:
        run(world, "ALTER USER 'plain'@'%' IDENTIFIED BY 'x'", ctx_of("granter"))
    assert "'plain'@'%' holds SELECT_PRIV on internal.d.t" in info.value.message


# -- over the wire: the escalation path the red team used
# --------------------------------------------
def wire_error(server: ServerProcess, user: str, password: str, sql: str) -> int:
    with server.connect(user=user, password=password) as conn, conn.cursor() as cur:
        with pytest.raises(pymysql.err.MySQLError) as info:
            cur.execute(sql)
    return int(info.value.args[0])


def test_a_grant_priv_user_cannot_take_over_root_or_an_admin(server: ServerProcess) -> None:
    with server.connect() as conn, conn.cursor() as cur:
        cur.execute("SET PASSWORD = 'root-pw'")
    with server.connect(password="root-pw") as conn, conn.cursor(pymysql.cursors.DictCursor) as cur:
        for sql in [
            "CREATE USER 'mallory'@'%' IDENTIFIED BY 'm-pw'",
            "GRANT GRANT_PRIV ON *.*.* TO 'mallory'@'%'",
            "CREATE USER 'boss'@'%' IDENTIFIED BY 'boss-pw'",
            "GRANT ADMIN_PRIV ON *.*.* TO 'boss'@'%'",
            "CREATE ROLE admins",
            "GRANT ADMIN_PRIV ON *.*.* TO ROLE 'admins'",
        ]:
            cur.execute(sql)
        cur.execute("SHOW ALL GRANTS")
        grants_before = cur.fetchall()
    for sql in [
        "ALTER USER 'root'@'%' IDENTIFIED BY 'pwned'",
        "SET PASSWORD FOR 'root'@'%' = 'pwned'",
        "ALTER USER 'boss'@'%' IDENTIFIED BY 'pwned'",
        "SET PASSWORD FOR 'boss'@'%' = 'pwned'",
        "GRANT 'admins' TO 'mallory'@'%'",
        "CREATE USER 'root'@'localhost' IDENTIFIED BY 'pwned'",
        "CREATE USER 'boss'@'localhost' IDENTIFIED BY 'pwned'",
        "DROP USER 'boss'@'%'",
    ]:
        assert wire_error(server, "mallory", "m-pw", sql) == 1227, sql
    with server.connect(password="root-pw") as conn, conn.cursor(pymysql.cursors.DictCursor) as cur:
        cur.execute("SHOW AUDIT LIMIT 8")  # the refusals are audited as denials
        assert {(r["User"], r["Outcome"], r["ErrorCode"]) for r in cur.fetchall()} == {
            ("mallory", "error", 1227)
        }
    for user in ("root", "boss"):
        with pytest.raises(pymysql.err.OperationalError) as info:
            server.connect(user=user, password="pwned")
        assert info.value.args[0] == 1045
    with server.connect(user="boss", password="boss-pw") as conn, conn.cursor() as cur:
        cur.execute("SELECT 1")
    with server.connect(password="root-pw") as conn, conn.cursor(pymysql.cursors.DictCursor) as cur:
        cur.execute("SHOW ALL GRANTS")
        assert cur.fetchall() == grants_before
