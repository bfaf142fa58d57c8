"""Roles, grants and the one privilege API every command uses.

Levels (Doris): global ``*.*.*``, catalog ``ctl.*.*``, database ``ctl.db.*``, table ``ctl.db.tbl``.
A grant at a level covers everything below it; ADMIN_PRIV (global only) implies every privilege.
A session's privileges are those of its account plus those of the account's roles.

- ``require_table / require_db / require_global`` raise MySQL's 1142 / 1044 / 1227, or — when the
  caller must not learn that an object exists — the ``not_found`` error it passes in.
- ``may_see_table / may_see_db`` (any privilege) filter SHOW output and information_schema.

Grants on a catalog follow its identity, not its name: ``follow_catalog`` runs inside the
transaction of ALTER CATALOG RENAME (the rows move to the new name) and of DROP CATALOG (they go),
so a catalog created later under an old name starts without them.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import TypeVar

from drydock.engine.errors import DrydockError, Errors
from drydock.engine.session import INTERNAL
from drydock.engine.store.metastore import MetadataStore, StoreConnection
from drydock.engine.session import SessionContext
from drydock.engine.security.users import ROOT, UserIdentity, Users


class Privilege(StrEnum):
    """A privilege by its one stored spelling (Doris'). A StrEnum, so stored grants (plain text)
    compare equal; checks take a Privilege, so a misspelling fails type-checking, not silently."""

    SELECT = "SELECT_PRIV"
    LOAD = "LOAD_PRIV"
    ALTER = "ALTER_PRIV"
    CREATE = "CREATE_PRIV"
    DROP = "DROP_PRIV"
    SHOW_VIEW = "SHOW_VIEW_PRIV"
    ADMIN = "ADMIN_PRIV"
    GRANT = "GRANT_PRIV"
    USAGE = "USAGE_PRIV"

    @property
    def verb(self) -> str:
        """What a denial message calls it (MySQL prints the statement verb): SHOW VIEW, ADMIN."""
        return VERB[self.value]


PRIVILEGES = tuple(p.value for p in Privilege)
ALL_PRIVILEGES = (
    "SELECT_PRIV",
    "LOAD_PRIV",
    "ALTER_PRIV",
    "CREATE_PRIV",
    "DROP_PRIV",
    "SHOW_VIEW_PRIV",
)
MYSQL_SPELLINGS = {
    "SELECT": "SELECT_PRIV",
    "INSERT": "LOAD_PRIV",
    "UPDATE": "LOAD_PRIV",
    "DELETE": "LOAD_PRIV",
    "LOAD": "LOAD_PRIV",
    "ALTER": "ALTER_PRIV",
    "CREATE": "CREATE_PRIV",
    "DROP": "DROP_PRIV",
    "SHOW_VIEW": "SHOW_VIEW_PRIV",
    "SHOW VIEW": "SHOW_VIEW_PRIV",
    "ADMIN": "ADMIN_PRIV",
    "GRANT": "GRANT_PRIV",
    "USAGE": "USAGE_PRIV",
    "GRANT OPTION": "GRANT_PRIV",
}
# What a denial message calls the privilege (MySQL prints the statement verb).
VERB = {
    "SELECT_PRIV": "SELECT",
    "LOAD_PRIV": "LOAD",
    "ALTER_PRIV": "ALTER",
    "CREATE_PRIV": "CREATE",
    "DROP_PRIV": "DROP",
    "SHOW_VIEW_PRIV": "SHOW VIEW",
    "ADMIN_PRIV": "ADMIN",
    "GRANT_PRIV": "GRANT",
    "USAGE_PRIV": "USAGE",
}
MAX_REMEMBERED_DECISIONS = 100_000  # then decisions are computed each time until the next reload
_T = TypeVar("_T")
ANY = "*"  # an open level, in memory and in the grants table; never a name (see stored_name)


def stored_name(name: str) -> str:
    """An object name as a :class:`GrantScope` part: a name spelled ``*`` (GRANT ON db.`*`) must not
    read as ANY, so names made of backslashes and one ``*`` gain a backslash (injective)."""
    return "\\" + name if name.lstrip("\\") == ANY else name


def real_name(part: str) -> str | None:
    """The inverse of :func:`stored_name`; None for an open level."""
    if part == ANY:
        return None
    return part[1:] if part.lstrip("\\") == ANY else part


def part_covers(part: str, name: str | None) -> bool:
    """Whether a GrantScope part (stored form) covers the object called ``name`` (None: no
    object)."""
    return part == ANY or (name is not None and part == stored_name(name))


def part_covers_folded(part: str, name: str | None) -> bool:
    """part_covers, case-insensitively (names of the internal catalog)."""
    return part == ANY or (name is not None and part.lower() == stored_name(name).lower())


def normalize_privileges(names: Iterable[str]) -> tuple[str, ...]:
    """GRANT's privilege list → canonical names; ALL [PRIVILEGES] expands; unknown → error."""
    out: list[str] = []
    for raw in names:
        name = " ".join(raw.upper().split())
        if name in ("ALL", "ALL PRIVILEGES"):
            out.extend(ALL_PRIVILEGES)
        elif name in PRIVILEGES:
            out.append(name)
        elif name in MYSQL_SPELLINGS:
            out.append(MYSQL_SPELLINGS[name])
        else:
            raise Errors.UNKNOWN_PRIVILEGE.error(name=raw)
    return tuple(dict.fromkeys(out))


def display(privilege: str) -> str:
    return privilege[0] + privilege[1:].lower()  # SELECT_PRIV → Select_priv (Doris)


@dataclass(frozen=True)
class GrantScope:
    """A grant's object; each part is ANY or a name in :func:`stored_name` form."""

    catalog: str = ANY
    db: str = ANY
    tbl: str = ANY

    @classmethod
    def of(cls, catalog: str | None, db: str | None = None, tbl: str | None = None) -> GrantScope:
        """From real names, None meaning an open level."""
        return cls(*(ANY if n is None else stored_name(n) for n in (catalog, db, tbl)))

    @property
    def level(self) -> str:
        if self.catalog == ANY:
            return "global"
        if self.db == ANY:
            return "catalog"
        return "database" if self.tbl == ANY else "table"

    def covers(self, catalog: str, db: str | None, tbl: str | None) -> bool:
        if catalog == ANY:  # a global question: only a global grant answers it
            return self.catalog == ANY
        if catalog.lower() == INTERNAL and part_covers_folded(self.catalog, INTERNAL):
            # DuckDB resolves internal names case-insensitively, so the check does too: a grant
            # on d.T must not differ from what `SELECT … FROM D.t` reads
            return part_covers_folded(self.db, db) and part_covers_folded(self.tbl, tbl)
        return (
            part_covers(self.catalog, catalog)
            and part_covers(self.db, db)
            and part_covers(self.tbl, tbl)
        )

    def encloses(self, other: GrantScope) -> bool:
        """Whether a grant here reaches everything a grant on ``other`` does: the same target or an
        enclosing level (``ctl.*.*`` encloses ``ctl.db.*`` and ``ctl.db.t``; only ``*.*.*`` encloses
        ``*.*.*``). Answered by :meth:`covers`, so it folds names exactly as privilege checks do."""
        return self.covers(
            real_name(other.catalog) or ANY, real_name(other.db), real_name(other.tbl)
        )

    def label(self, depth: int = 3) -> str:
        """The first ``depth`` parts as SHOW GRANTS prints them (a name ``*`` in backticks)."""
        return ".".join(_display_part(p) for p in (self.catalog, self.db, self.tbl)[:depth])

    def __str__(self) -> str:
        return self.label()


def _display_part(part: str) -> str:
    name = real_name(part)
    return ANY if name is None else f"`{name}`" if name.lstrip("\\") == ANY else name


class Privileges:
    def __init__(self, store: MetadataStore, users: Users):
        self._store = store
        self._users = users
        self._lock = threading.Lock()
        self._grants: dict[str, set[tuple[GrantScope, str]]] = {}
        self._roles: dict[str, set[str]] = {}  # grantee(user) → role names
        self._role_names: set[str] = set()
        # Decisions remembered per (account, question) for the current grant revision: every
        # change of grants, roles, role membership, users or catalogs reloads and starts afresh.
        self.revision = 0
        self._decisions: dict[tuple[object, ...], object] = {}
        self._bootstrap_root()
        self._reload()

    # -- state ------------------------------------------------------------------------------------
    def _bootstrap_root(self) -> None:
        root = UserIdentity(ROOT, "%").grantee
        with self._store.transaction() as db:
            for privilege in PRIVILEGES:
                db.execute(
                    "INSERT INTO grants VALUES (?, '*', '*', '*', ?) ON CONFLICT DO NOTHING",
                    (root, privilege),
                )

    def reload(self) -> None:
        self._reload()

    def _reload(self) -> None:
        grants: dict[str, set[tuple[GrantScope, str]]] = {}
        for r in self._store.query("SELECT grantee, catalog, db, tbl, privilege FROM grants"):
            grants.setdefault(r["grantee"], set()).add(
                (GrantScope(r["catalog"], r["db"], r["tbl"]), r["privilege"])
            )
        roles: dict[str, set[str]] = {}
        for r in self._store.query("SELECT role, user_name, user_host FROM role_members"):
            roles.setdefault(UserIdentity(r["user_name"], r["user_host"]).grantee, set()).add(
                r["role"]
            )
        names = {r["name"] for r in self._store.query("SELECT name FROM roles")}
        with self._lock:
            self._grants, self._roles, self._role_names = grants, roles, names
            self.revision += 1
            self._decisions = {}

    def _remembered(self, key: tuple[object, ...], decide: Callable[[], _T]) -> _T:
        """``decide()`` for ``key`` (the account and the question), computed once per revision.
        A decision computed while a reload ran is used but not kept."""
        with self._lock:
            revision = self.revision
            if key in self._decisions:
                return self._decisions[key]  # type: ignore[return-value]
        decision = decide()
        with self._lock:
            if self.revision == revision and len(self._decisions) < MAX_REMEMBERED_DECISIONS:
                self._decisions[key] = decision
        return decision

    def _held(self, ctx: SessionContext) -> set[tuple[GrantScope, str]]:
        return self._held_by(UserIdentity(ctx.user, ctx.account_host).grantee)

    def _held_by(self, user: str) -> set[tuple[GrantScope, str]]:
        with self._lock:
            held = set(self._grants.get(user, ()))
            for role in self._roles.get(user, ()):
                held |= self._grants.get(f"role:{role}", set())
        return held

    def held_by(self, identity: UserIdentity) -> frozenset[tuple[GrantScope, str]]:
        """Every grant an account holds: its own and those of its roles."""
        return frozenset(self._held_by(identity.grantee))

    def held_by_role(self, role: str) -> frozenset[tuple[GrantScope, str]]:
        with self._lock:
            return frozenset(self._grants.get(f"role:{role}", ()))

    # -- checks -----------------------------------------------------------------------------------
    def has(
        self,
        ctx: SessionContext,
        privilege: Privilege,
        catalog: str = ANY,
        db: str | None = None,
        tbl: str | None = None,
    ) -> bool:
        return self._remembered(
            ("has", ctx.user, ctx.account_host, privilege, catalog, db, tbl),
            lambda: self._has(ctx, privilege, catalog, db, tbl),
        )

    def _has(
        self,
        ctx: SessionContext,
        privilege: Privilege,
        catalog: str,
        db: str | None,
        tbl: str | None,
    ) -> bool:
        for target, held in self._held(ctx):
            if held == Privilege.ADMIN and target.level == "global":
                return True
            if held == privilege and target.covers(catalog, db, tbl):
                return True
        return False

    def has_global(self, ctx: SessionContext, privilege: Privilege) -> bool:
        return self.has(ctx, privilege)

    def require_global(self, ctx: SessionContext, privilege: Privilege) -> None:
        if not self.has(ctx, privilege):
            raise Errors.SPECIFIC_ACCESS_DENIED.error(priv=privilege.verb)

    def require_db(
        self,
        ctx: SessionContext,
        privilege: Privilege,
        catalog: str,
        db: str,
        not_found: DrydockError | None = None,
    ) -> None:
        if not self.has(ctx, privilege, catalog, db):
            raise not_found or Errors.DB_ACCESS_DENIED.error(user=ctx.user, host=ctx.host, db=db)

    def require_table(
        self,
        ctx: SessionContext,
        privilege: Privilege,
        catalog: str,
        db: str,
        tbl: str,
        not_found: DrydockError | None = None,
    ) -> None:
        if not self.has(ctx, privilege, catalog, db, tbl):
            raise not_found or Errors.TABLE_ACCESS_DENIED.error(
                priv=privilege.verb, user=ctx.user, host=ctx.host, table=f"{db}.{tbl}"
            )

    def may_see_table(self, ctx: SessionContext, catalog: str, db: str, tbl: str) -> bool:
        # remembered like has(): every admission and every external table a SELECT reads asks
        def decide() -> bool:
            return any(
                (p == Privilege.ADMIN and t.level == "global") or t.covers(catalog, db, tbl)
                for t, p in self._held(ctx)
            )

        return self._remembered(("see_table", ctx.user, ctx.account_host, catalog, db, tbl), decide)

    def may_see_db(self, ctx: SessionContext, catalog: str, db: str) -> bool:
        """Any privilege on the database or on some table in it."""
        return any(
            (p == Privilege.ADMIN and t.level == "global")
            or (part_covers(t.catalog, catalog) and part_covers(t.db, db))
            for t, p in self._held(ctx)
        )

    def sees_catalog(self, ctx: SessionContext, catalog: str) -> bool:
        """Any privilege anywhere in ``catalog`` (SHOW CATALOGS, SWITCH)."""
        return any(
            (p == Privilege.ADMIN and t.level == "global") or part_covers(t.catalog, catalog)
            for t, p in self._held(ctx)
        )

    def visibility(
        self, ctx: SessionContext, catalog: str
    ) -> tuple[bool, set[str], set[tuple[str, str]]]:
        """(sees everything, visible databases, visible (db, table) pairs) within ``catalog``.
        Callers must not change the sets (a remembered decision)."""
        return self._remembered(
            ("visibility", ctx.user, ctx.account_host, catalog),
            lambda: self._visibility(ctx, catalog),
        )

    def _visibility(
        self, ctx: SessionContext, catalog: str
    ) -> tuple[bool, set[str], set[tuple[str, str]]]:
        dbs: set[str] = set()
        tables: set[tuple[str, str]] = set()
        for t, p in self._held(ctx):
            if (p == Privilege.ADMIN and t.level == "global") or (
                part_covers(t.catalog, catalog) and t.db == ANY
            ):
                return True, set(), set()
            if t.catalog == stored_name(catalog) and t.tbl == ANY:
                dbs.add(real_name(t.db) or ANY)
            elif t.catalog == stored_name(catalog):
                tables.add((real_name(t.db) or ANY, real_name(t.tbl) or ANY))
        return False, dbs, tables

    # -- changes ----------------------------------------------------------------------------------
    @staticmethod
    def follow_catalog(db: StoreConnection, old_name: str, new_name: str | None) -> None:
        """Inside a catalog DDL's transaction: move grants on catalog ``old_name`` to ``new_name``,
        or drop them.

        Names compare case-insensitively, as catalog names do. Grants already written for the new
        name (granted ahead of any catalog of that name) merge with the moved ones.
        """
        # Read, delete, re-insert under the new name (duplicates merge): the same on SQLite and
        # PostgreSQL, which has no UPDATE OR REPLACE.
        moved = db.execute(
            "SELECT grantee, db, tbl, privilege FROM grants WHERE lower(catalog) = lower(?)",
            (old_name,),
        ).fetchall()
        db.execute("DELETE FROM grants WHERE lower(catalog) = lower(?)", (old_name,))
        if new_name is not None:
            for grantee, db_name, tbl, privilege in moved:
                db.execute(
                    "INSERT INTO grants VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                    (grantee, new_name, db_name, tbl, privilege),
                )

    def grant(self, grantee: str, target: GrantScope, privileges: tuple[str, ...]) -> None:
        with self._store.transaction() as db:
            for privilege in privileges:
                db.execute(
                    "INSERT INTO grants VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                    (grantee, target.catalog, target.db, target.tbl, privilege),
                )
        self._reload()

    def revoke(self, grantee: str, target: GrantScope, privileges: tuple[str, ...]) -> int:
        removed = 0
        with self._store.transaction() as db:
            for privilege in privileges:
                removed += db.execute(
                    "DELETE FROM grants WHERE grantee = ? AND catalog = ? AND db = ? AND tbl = ? "
                    "AND privilege = ?",
                    (grantee, target.catalog, target.db, target.tbl, privilege),
                ).rowcount
        self._reload()
        return removed

    def grants_of(self, grantee: str) -> list[tuple[GrantScope, str]]:
        with self._lock:
            return sorted(self._grants.get(grantee, ()), key=lambda g: (str(g[0]), g[1]))

    def roles_of(self, identity: UserIdentity) -> list[str]:
        with self._lock:
            return sorted(self._roles.get(identity.grantee, ()))

    def role_names(self) -> list[str]:
        with self._lock:
            return sorted(self._role_names)

    def create_role(self, name: str, if_not_exists: bool) -> bool:
        with self._store.transaction() as db:
            if db.execute("SELECT 1 FROM roles WHERE name = ?", (name,)).fetchone():
                if if_not_exists:
                    return False
                raise Errors.ROLE_EXISTS.error(role=name)
            db.execute("INSERT INTO roles(name, created_at) VALUES (?, ?)", (name, time.time()))
        self._reload()
        return True

    def drop_role(self, name: str, if_exists: bool) -> bool:
        with self._store.transaction() as db:
            if not db.execute("DELETE FROM roles WHERE name = ?", (name,)).rowcount:
                if if_exists:
                    return False
                raise Errors.ROLE_NOT_FOUND.error(role=name)
            db.execute("DELETE FROM grants WHERE grantee = ?", (f"role:{name}",))
        self._reload()
        return True

    def grant_role(self, role: str, identity: UserIdentity) -> None:
        if role not in self._role_names:
            raise Errors.ROLE_NOT_FOUND.error(role=role)
        with self._store.transaction() as db:
            db.execute(
                "INSERT INTO role_members VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                (role, identity.name, identity.host),
            )
        self._reload()

    def revoke_role(self, role: str, identity: UserIdentity) -> bool:
        with self._store.transaction() as db:
            gone = db.execute(
                "DELETE FROM role_members WHERE role = ? AND user_name = ? AND user_host = ?",
                (role, identity.name, identity.host),
            ).rowcount
        self._reload()
        return bool(gone)

    def forget_user(self, identity: UserIdentity) -> None:
        self._reload()

    def members(self, role: str) -> list[str]:
        return [
            str(UserIdentity(r["user_name"], r["user_host"]))
            for r in self._store.query(
                "SELECT user_name, user_host FROM role_members WHERE role = ? "
                "ORDER BY user_name, user_host",
                (role,),
            )
        ]
