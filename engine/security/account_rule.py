"""The account rule: who may act on an account or a role. One pure function, :func:`refusal`.

Every statement that changes an account or a role (engine/statements/users.py) describes what it
does as an :class:`AccountRequest` and asks :func:`refusal`:

1. It needs GRANT_PRIV — global, or for GRANT/REVOKE … ON at the level of its target. A user may
   always change their own password (MySQL allows it).
2. The actor must cover every privilege of every account and role the statement acts on (held
   directly or through roles). Otherwise acting on it would hand over what the actor lacks — set an
   ADMIN's password and log in as them — or take away more than the actor holds. CREATE USER acts
   on the accounts of the same name: a login picks the most specific host, so the new account may
   take over their logins from some hosts.
3. The actor must cover what the statement gives or takes: the privileges of GRANT/REVOKE … ON
   ("grant only what you hold"); a granted or revoked role, including a DEFAULT ROLE, is a subject
   of rule 2 (its privileges must be covered).
4. The login of an account named root (its password; another root account's creation) belongs to
   'root'@'%' alone: not even an ADMIN may change it (Doris: "except root itself").

"Covers": the actor holds the privilege at the same level or an enclosing one (``*.*.*`` encloses
``ctl.*.*``, which encloses ``ctl.db.*``, which encloses ``ctl.db.tbl``); global ADMIN_PRIV covers
every privilege.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

from drydock.engine.errors import DrydockError, Errors
from drydock.engine.security.privileges import VERB, Privilege, GrantScope
from drydock.engine.security.users import ROOT, ROOT_ACCOUNT, UserIdentity

Grant = tuple[GrantScope, str]  # (where, privilege) as Privileges stores it
GLOBAL = GrantScope()  # *.*.*


class Act(Enum):
    """What a statement does to its subjects."""

    PASSWORD = "change the password of"  # ALTER USER … IDENTIFIED BY, SET PASSWORD [FOR]
    CREATE = "create"  # CREATE USER: a new login for a name (subjects: it and the name's accounts)
    CHANGE = "change"  # DROP USER, GRANT/REVOKE of privileges or roles, CREATE/DROP ROLE


@dataclass(frozen=True)
class Subject:
    """An account or role a statement acts on, with every grant it holds (its roles' included)."""

    label: str  # as messages print it: 'bob'@'%', role 'readers'
    grants: frozenset[Grant] = frozenset()
    identity: UserIdentity | None = None  # None: a role


@dataclass(frozen=True)
class AccountRequest:
    actor: UserIdentity
    held: frozenset[Grant]  # every grant the actor holds, its roles' included
    act: Act
    subjects: tuple[Subject, ...] = ()
    gate: GrantScope = GLOBAL  # where the actor needs GRANT_PRIV (GRANT/REVOKE … ON: the target)
    gives: frozenset[Grant] = frozenset()  # the privileges GRANT/REVOKE … ON gives or takes


def covers(held: Iterable[Grant], target: GrantScope, privilege: str) -> bool:
    """Whether ``held`` holds ``privilege`` on ``target`` or on an enclosing level (or is ADMIN)."""
    return any(
        (p == Privilege.ADMIN and t.level == "global") or (p == privilege and t.encloses(target))
        for t, p in held
    )


def uncovered(held: frozenset[Grant], grants: Iterable[Grant]) -> Grant | None:
    """The first of ``grants`` (in SHOW GRANTS order, so messages are stable) ``held`` does not
    cover."""
    return next(
        (g for g in sorted(grants, key=lambda g: (str(g[0]), g[1])) if not covers(held, *g)), None
    )


def refusal(request: AccountRequest) -> DrydockError | None:
    """The error that refuses ``request``, or None when the rule allows it (see the module doc)."""
    actor, held = request.actor, request.held
    if (
        request.act is Act.PASSWORD
        and request.subjects
        and all(s.identity == actor for s in request.subjects)
    ):
        return None  # one's own password
    for subject in request.subjects:
        if (
            request.act in (Act.PASSWORD, Act.CREATE)
            and subject.identity is not None
            and subject.identity.name == ROOT
            and actor != ROOT_ACCOUNT
        ):
            return Errors.ROOT_LOGIN_RESERVED.error(op=request.act.value, user=subject.label)
    if not covers(held, request.gate, Privilege.GRANT):
        return Errors.SPECIFIC_ACCESS_DENIED.error(priv=Privilege.GRANT.verb)
    missing = uncovered(held, request.gives)
    if missing is not None:
        return Errors.GRANT_ABOVE_OWN.error(priv=missing[1], target=str(missing[0]))
    for subject in request.subjects:
        missing = uncovered(held, subject.grants)
        if missing is not None:
            target, privilege = missing
            return Errors.ACCOUNT_ABOVE_OWN.error(
                verb=VERB.get(privilege, privilege),
                subject=subject.label,
                priv=privilege,
                target=str(target),
            )
    return None
