"""Accounts ('name'@'host'), stored with mysql_native_password hashes only.

Host patterns follow MySQL: ``%`` and ``_`` are wildcards, ``localhost`` also matches loopback
addresses, and a login picks the most specific matching account (literal hosts before patterns,
longer literal parts first, ``%`` last). ``root``@``%`` exists from the first start and cannot be
dropped.
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass
from hashlib import sha1

from drydock.engine.errors import Errors
from drydock.engine.support.like import like
from drydock.engine.store.metastore import MetadataStore

ROOT = "root"
_HOST_RE = re.compile(r"[A-Za-z0-9.%_:\-]{1,255}")
_NAME_RE = re.compile(r"[^\s'\"`@]{1,64}")
LOOPBACK = {"127.0.0.1", "::1", "localhost"}


def native_password_hash(password: str) -> str:
    """MySQL's stored form: '*' + HEX(SHA1(SHA1(password))); the empty password is ''."""
    if not password:
        return ""
    return "*" + sha1(sha1(password.encode()).digest()).hexdigest().upper()


@dataclass(frozen=True)
class UserIdentity:
    name: str
    host: str = "%"

    def __str__(self) -> str:
        return f"'{self.name}'@'{self.host}'"

    @property
    def grantee(self) -> str:
        return f"user:{self.name}@{self.host}"


ROOT_ACCOUNT = UserIdentity(
    ROOT, "%"
)  # the account created at the first start, holding every privilege


@dataclass(frozen=True)
class Account:
    name: str
    host: str
    auth_string: str  # native password hash; '' = no password

    @property
    def identity(self) -> UserIdentity:
        return UserIdentity(self.name, self.host)


def validate_identity(identity: UserIdentity) -> UserIdentity:
    if not _NAME_RE.fullmatch(identity.name):
        raise Errors.INVALID_USER_NAME.error(name=identity.name)
    host = identity.host or "%"
    if not _HOST_RE.fullmatch(host):
        raise Errors.INVALID_HOST.error(host=host)
    return UserIdentity(identity.name, host)


def host_matches(pattern: str, client_host: str) -> bool:
    if pattern == "localhost":
        return client_host in LOOPBACK
    return like(client_host, pattern, case_insensitive=True, escapes=False)


def _specificity(host: str) -> tuple[int, int]:
    wildcards = host.count("%") + host.count("_")
    return (1 if wildcards else 0, -len(host.replace("%", "").replace("_", "")))


class Users:
    def __init__(self, store: MetadataStore, root_password: str = ""):
        self._store = store
        self._lock = threading.Lock()
        with store.transaction() as db:
            exists = db.execute(
                "SELECT 1 FROM users WHERE name = ? AND host = '%'", (ROOT,)
            ).fetchone()
            if not exists:
                db.execute(
                    "INSERT INTO users(name, host, auth_string, created_at) VALUES (?, '%', ?, ?)",
                    (ROOT, native_password_hash(root_password), time.time()),
                )
            elif root_password:
                db.execute(
                    "UPDATE users SET auth_string = ?, revision = revision + 1 "
                    "WHERE name = ? AND host = '%'",
                    (native_password_hash(root_password), ROOT),
                )

    def accounts(self) -> list[Account]:
        return [
            Account(r["name"], r["host"], r["auth_string"])
            for r in self._store.query(
                "SELECT name, host, auth_string FROM users ORDER BY name, host"
            )
        ]

    def lookup(self, name: str, client_host: str = "127.0.0.1") -> Account | None:
        """The account a login as ``name`` from ``client_host`` uses (most specific host)."""
        rows = self._store.query(
            "SELECT name, host, auth_string FROM users WHERE name = ?", (name,)
        )
        candidates = [r for r in rows if host_matches(r["host"], client_host)]
        if not candidates:
            return None
        best = min(candidates, key=lambda r: _specificity(r["host"]))
        return Account(best["name"], best["host"], best["auth_string"])

    def get(self, identity: UserIdentity) -> Account | None:
        row = self._store.query_one(
            "SELECT name, host, auth_string FROM users WHERE name = ? AND host = ?",
            (identity.name, identity.host),
        )
        return Account(row["name"], row["host"], row["auth_string"]) if row else None

    def exists(self, identity: UserIdentity) -> bool:
        return self.get(identity) is not None

    def create(self, identity: UserIdentity, password: str, if_not_exists: bool) -> bool:
        """Returns False when IF NOT EXISTS found the account already there."""
        identity = validate_identity(identity)
        with self._store.transaction() as db:
            if db.execute(
                "SELECT 1 FROM users WHERE name = ? AND host = ?", (identity.name, identity.host)
            ).fetchone():
                if if_not_exists:
                    return False
                raise Errors.USER_EXISTS.error(op="CREATE USER", user=str(identity))
            db.execute(
                "INSERT INTO users(name, host, auth_string, created_at) VALUES (?, ?, ?, ?)",
                (identity.name, identity.host, native_password_hash(password), time.time()),
            )
        return True

    def drop(self, identity: UserIdentity, if_exists: bool) -> bool:
        if identity.name == ROOT:
            raise Errors.CANNOT_DROP_ROOT.error()
        with self._store.transaction() as db:
            gone = db.execute(
                "DELETE FROM users WHERE name = ? AND host = ?", (identity.name, identity.host)
            ).rowcount
            if not gone:
                if if_exists:
                    return False
                raise Errors.USER_EXISTS.error(op="DROP USER", user=str(identity))
            db.execute("DELETE FROM grants WHERE grantee = ?", (identity.grantee,))
        return True

    def set_password(self, identity: UserIdentity, password: str) -> None:
        with self._store.transaction() as db:
            changed = db.execute(
                "UPDATE users SET auth_string = ?, revision = revision + 1 "
                "WHERE name = ? AND host = ?",
                (native_password_hash(password), identity.name, identity.host),
            ).rowcount
            if not changed:
                raise Errors.NO_SUCH_USER.error(user=str(identity))
