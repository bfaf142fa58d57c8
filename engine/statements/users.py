"""Users, roles and privileges: CREATE/DROP/ALTER USER, SET PASSWORD, GRANT, REVOKE, roles, SHOW
GRANTS/ROLES."""

from __future__ import annotations

from drydock.engine import ast
from drydock.engine.security.account_rule import GLOBAL, AccountRequest, Act, Subject, refusal
from drydock.engine.core import Engine
from drydock.engine.errors import Errors
from drydock.engine.security.privileges import Privilege, GrantScope, display, normalize_privileges
from drydock.engine.results import Result
from drydock.engine.session import SessionContext
from drydock.engine.security.users import ROOT, UserIdentity, validate_identity
from drydock.engine.statements.registry import handles, user_target


def _identity(spec: ast.UserSpec) -> UserIdentity:
    return validate_identity(UserIdentity(spec.name, spec.host))


def _require_user_admin(engine: Engine, ctx: SessionContext) -> None:
    """Reading accounts (SHOW GRANTS FOR, SHOW ROLES); changing them goes through
    :func:`_authorize`."""
    if not engine.privileges.has(ctx, Privilege.GRANT):
        raise Errors.SPECIFIC_ACCESS_DENIED.error(priv=Privilege.GRANT.verb)


def _account(engine: Engine, identity: UserIdentity) -> Subject:
    return Subject(str(identity), engine.privileges.held_by(identity), identity)


def _role(engine: Engine, role: str) -> Subject:
    return Subject(f"role '{role}'", engine.privileges.held_by_role(role))


def _authorize(
    engine: Engine,
    ctx: SessionContext,
    act: Act,
    subjects: list[Subject],
    gate: GrantScope = GLOBAL,
    gives: frozenset[tuple[GrantScope, str]] = frozenset(),
) -> None:
    """The account rule (engine/security/account_rule.py), before the statement changes anything."""
    actor = UserIdentity(ctx.user, ctx.account_host)
    error = refusal(
        AccountRequest(actor, engine.privileges.held_by(actor), act, tuple(subjects), gate, gives)
    )
    if error is not None:
        raise error


def grant_scope_of(target: ast.PrivilegeTarget, ctx: SessionContext) -> GrantScope:
    """Parts as written (None = a bare ``*``; a backticked `*` is a name) → a
    :class:`GrantScope`."""
    parts = target.parts
    text = ".".join("*" if p is None else p for p in parts)
    if all(p is None for p in parts) and 1 <= len(parts) <= 3:
        return GrantScope()
    if len(parts) == 3:
        catalog, db, tbl = parts
    elif len(parts) == 2:
        catalog, (db, tbl) = ctx.catalog, parts
    elif len(parts) == 1:
        catalog, db, tbl = ctx.catalog, parts[0], None
    else:
        raise Errors.INVALID_PRIVILEGE_TARGET.error(target=text)
    # a wildcard may only stand for everything below a named level: ctl.*.* ok, *.db.t not
    if catalog is None or (db is None and tbl is not None):
        raise Errors.INVALID_PRIVILEGE_TARGET.error(target=text)
    return GrantScope.of(catalog, db, tbl)


def _grantee(
    engine: Engine, stmt: ast.GrantPrivileges | ast.RevokePrivileges
) -> tuple[str, Subject]:
    """The grantee as the grants table keys it, and as the account rule sees it. Whether it exists
    is checked after the rule (:func:`_check_grantee`): who may not grant must not learn that."""
    if stmt.role is not None:
        return f"role:{stmt.role}", _role(engine, stmt.role)
    assert stmt.user is not None
    identity = _identity(stmt.user)
    return identity.grantee, _account(engine, identity)


def _check_grantee(engine: Engine, stmt: ast.GrantPrivileges | ast.RevokePrivileges) -> None:
    if stmt.role is not None:
        if stmt.role not in engine.privileges.role_names():
            raise Errors.ROLE_NOT_FOUND.error(role=stmt.role)
        return
    assert stmt.user is not None
    identity = _identity(stmt.user)
    if identity.name == ROOT:
        raise Errors.CANNOT_CHANGE_ROOT_GRANTS.error()
    if not engine.users.exists(identity):
        raise Errors.NO_SUCH_USER.error(user=str(identity))


def _authorize_grant(
    engine: Engine,
    ctx: SessionContext,
    target: GrantScope,
    privileges: tuple[str, ...],
    grantee: Subject,
) -> None:
    """GRANT/REVOKE … ON: GRANT_PRIV on the target, the privileges held there, the grantee
    covered."""
    for privilege in privileges:
        if privilege == Privilege.ADMIN and target.level != "global":
            raise Errors.PRIVILEGE_LEVEL.error(priv=Privilege.ADMIN.value)
    _authorize(
        engine,
        ctx,
        Act.CHANGE,
        [grantee],
        gate=target,
        gives=frozenset((target, p) for p in privileges),
    )


@handles(ast.CreateUser, audit=user_target)
def create_user(engine: Engine, stmt: ast.CreateUser, ctx: SessionContext) -> Result:
    identity = _identity(stmt.user)
    # A login picks the most specific account of its name, so a new account acts on the name's
    # existing ones (it may take over their logins from some hosts); its DEFAULT ROLE is granted.
    namesakes = [
        _account(engine, a.identity) for a in engine.users.accounts() if a.name == identity.name
    ]
    role = [_role(engine, stmt.default_role)] if stmt.default_role is not None else []
    _authorize(
        engine, ctx, Act.CREATE, [Subject(str(identity), identity=identity), *namesakes, *role]
    )
    if stmt.default_role is not None and stmt.default_role not in engine.privileges.role_names():
        raise Errors.ROLE_NOT_FOUND.error(role=stmt.default_role)
    if not engine.users.create(identity, stmt.password, stmt.if_not_exists):
        return Result.ok(warnings=[Errors.USER_EXISTS.note(op="CREATE USER", user=str(identity))])
    if stmt.default_role is not None:
        engine.privileges.grant_role(stmt.default_role, identity)
    return Result.ok()


@handles(ast.DropUser, audit=user_target)
def drop_user(engine: Engine, stmt: ast.DropUser, ctx: SessionContext) -> Result:
    identity = _identity(stmt.user)
    _authorize(engine, ctx, Act.CHANGE, [_account(engine, identity)])
    if not engine.users.drop(identity, stmt.if_exists):
        return Result.ok(warnings=[Errors.USER_EXISTS.note(op="DROP USER", user=str(identity))])
    engine.privileges.forget_user(identity)
    return Result.ok()


@handles(ast.AlterUser, audit=user_target)
def alter_user(engine: Engine, stmt: ast.AlterUser, ctx: SessionContext) -> Result:
    identity = _identity(stmt.user)
    _authorize(engine, ctx, Act.PASSWORD, [_account(engine, identity)])
    if not engine.users.exists(identity):
        if stmt.if_exists:
            return Result.ok(
                warnings=[Errors.USER_EXISTS.note(op="ALTER USER", user=str(identity))]
            )
        raise Errors.USER_EXISTS.error(op="ALTER USER", user=str(identity))
    engine.users.set_password(identity, stmt.password)
    return Result.ok()


@handles(ast.SetPassword)
def set_password(engine: Engine, stmt: ast.SetPassword, ctx: SessionContext) -> Result:
    identity = (
        UserIdentity(ctx.user, ctx.account_host) if stmt.user is None else _identity(stmt.user)
    )
    _authorize(engine, ctx, Act.PASSWORD, [_account(engine, identity)])
    engine.users.set_password(identity, stmt.password)
    return Result.ok()


@handles(ast.GrantPrivileges)
def grant_privileges(engine: Engine, stmt: ast.GrantPrivileges, ctx: SessionContext) -> Result:
    privileges = normalize_privileges(stmt.privileges)
    target = grant_scope_of(stmt.target, ctx)
    grantee, subject = _grantee(engine, stmt)
    _authorize_grant(engine, ctx, target, privileges, subject)
    _check_grantee(engine, stmt)
    engine.privileges.grant(grantee, target, privileges)
    return Result.ok()


@handles(ast.RevokePrivileges)
def revoke_privileges(engine: Engine, stmt: ast.RevokePrivileges, ctx: SessionContext) -> Result:
    privileges = normalize_privileges(stmt.privileges)
    target = grant_scope_of(stmt.target, ctx)
    grantee, subject = _grantee(engine, stmt)
    _authorize_grant(engine, ctx, target, privileges, subject)
    _check_grantee(engine, stmt)
    held = {p for t, p in engine.privileges.grants_of(grantee) if t == target}
    missing = [p for p in privileges if p not in held]
    if missing:
        name, _, host = grantee.partition(":")[2].rpartition("@")
        raise Errors.NONEXISTING_GRANT.error(user=name or grantee, host=host or "%")
    engine.privileges.revoke(grantee, target, privileges)
    return Result.ok()


@handles(ast.GrantRole)
def grant_role(engine: Engine, stmt: ast.GrantRole, ctx: SessionContext) -> Result:
    identity = _identity(stmt.user)
    _authorize(
        engine,
        ctx,
        Act.CHANGE,
        [_account(engine, identity), *(_role(engine, r) for r in stmt.roles)],
    )
    if not engine.users.exists(identity):
        raise Errors.NO_SUCH_USER.error(user=str(identity))
    for role in stmt.roles:  # validate all before changing anything
        if role not in engine.privileges.role_names():
            raise Errors.ROLE_NOT_FOUND.error(role=role)
    for role in stmt.roles:
        engine.privileges.grant_role(role, identity)
    return Result.ok()


@handles(ast.RevokeRole)
def revoke_role(engine: Engine, stmt: ast.RevokeRole, ctx: SessionContext) -> Result:
    identity = _identity(stmt.user)
    _authorize(
        engine,
        ctx,
        Act.CHANGE,
        [_account(engine, identity), *(_role(engine, r) for r in stmt.roles)],
    )
    held = engine.privileges.roles_of(identity)
    for role in stmt.roles:
        if role not in held:
            raise Errors.NONEXISTING_GRANT.error(user=identity.name, host=identity.host)
    for role in stmt.roles:
        engine.privileges.revoke_role(role, identity)
    return Result.ok()


@handles(ast.CreateRole)
def create_role(engine: Engine, stmt: ast.CreateRole, ctx: SessionContext) -> Result:
    _authorize(engine, ctx, Act.CHANGE, [])
    if not engine.privileges.create_role(stmt.name, stmt.if_not_exists):
        return Result.ok(warnings=[Errors.ROLE_EXISTS.note(role=stmt.name)])
    return Result.ok()


@handles(ast.DropRole)
def drop_role(engine: Engine, stmt: ast.DropRole, ctx: SessionContext) -> Result:
    # its members lose what it holds
    _authorize(engine, ctx, Act.CHANGE, [_role(engine, stmt.name)])
    if not engine.privileges.drop_role(stmt.name, stmt.if_exists):
        return Result.ok(warnings=[Errors.ROLE_NOT_FOUND.note(role=stmt.name)])
    return Result.ok()


GRANT_COLUMNS = [
    "UserIdentity",
    "Password",
    "Roles",
    "GlobalPrivs",
    "CatalogPrivs",
    "DatabasePrivs",
    "TablePrivs",
]


def _privilege_columns(grants: list[tuple[GrantScope, str]]) -> tuple[str, str, str, str]:
    by_level: dict[str, dict[str, list[str]]] = {
        "global": {},
        "catalog": {},
        "database": {},
        "table": {},
    }
    for target, privilege in grants:
        key = {
            "global": "",
            "catalog": target.label(1),
            "database": target.label(2),
            "table": target.label(),
        }[target.level]
        by_level[target.level].setdefault(key, []).append(display(privilege))

    def fmt(level: str) -> str:
        entries = by_level[level]
        if level == "global":
            return ",".join(entries.get("", [])) if entries else ""
        return "; ".join(f"{k}: {','.join(v)}" for k, v in sorted(entries.items()))

    return fmt("global"), fmt("catalog"), fmt("database"), fmt("table")


@handles(ast.ShowGrants, columns=GRANT_COLUMNS)
def show_grants(engine: Engine, stmt: ast.ShowGrants, ctx: SessionContext) -> Result:
    me = UserIdentity(ctx.user, ctx.account_host)
    if stmt.all_users:
        _require_user_admin(engine, ctx)
        identities = [a.identity for a in engine.users.accounts()]
    else:
        identity = _identity(stmt.user) if stmt.user else me
        if identity != me:
            _require_user_admin(engine, ctx)
        if not engine.users.exists(identity):
            raise Errors.NO_SUCH_USER.error(user=str(identity))
        identities = [identity]
    rows = []
    for identity in identities:
        account = engine.users.get(identity)
        roles = engine.privileges.roles_of(identity)
        grants = engine.privileges.grants_of(identity.grantee)
        rows.append(
            (
                str(identity),
                "Yes" if account and account.auth_string else "No",
                ",".join(roles),
                *_privilege_columns(grants),
            )
        )
    return Result(columns=GRANT_COLUMNS, rows=rows)


@handles(ast.ShowRoles)
def show_roles(engine: Engine, stmt: ast.ShowRoles, ctx: SessionContext) -> Result:
    _require_user_admin(engine, ctx)
    rows = []
    for role in engine.privileges.role_names():
        grants = engine.privileges.grants_of(f"role:{role}")
        rows.append((role, ", ".join(engine.privileges.members(role)), *_privilege_columns(grants)))
    return Result(
        columns=["Name", "Users", "GlobalPrivs", "CatalogPrivs", "DatabasePrivs", "TablePrivs"],
        rows=rows,
    )
