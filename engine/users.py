"""Accounts that may log in, with their mysql_native_password hashes.

The store of users arrives with issue 3; until then there is exactly one account, ``root``,
whose password comes from ``drydock serve --root-password`` (empty by default).
"""

from __future__ import annotations

from dataclasses import dataclass
from hashlib import sha1


def native_password_hash(password: str) -> str:
    """MySQL's stored form: '*' + HEX(SHA1(SHA1(password))); empty password → ''."""
    if not password:
        return ""
    return "*" + sha1(sha1(password.encode()).digest()).hexdigest().upper()


@dataclass(frozen=True)
class Account:
    name: str
    auth_string: str  # native password hash; '' means no password


class Users:
    def __init__(self, root_password: str = ""):
        self._accounts = {"root": Account("root", native_password_hash(root_password))}

    def lookup(self, name: str) -> Account | None:
        return self._accounts.get(name)
