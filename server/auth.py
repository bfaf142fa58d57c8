"""Identity: the accounts of engine/security/users.py, checked with mysql_native_password."""

from __future__ import annotations

from collections.abc import Sequence

from mysql_mimic.auth import AuthPlugin, IdentityProvider, NativePasswordAuthPlugin, User

from drydock.engine.security.users import Users


class AccountUser(User):
    """mysql-mimic's User plus the host pattern of the matched account ('bob'@'10.%')."""

    def __init__(self, name: str, host: str, auth_string: str | None):
        super().__init__(
            name=name, auth_string=auth_string, auth_plugin=NativePasswordAuthPlugin.name
        )
        self.host = host


class DrydockIdentityProvider(IdentityProvider):
    def __init__(self, users: Users):
        self._users = users
        self._plugins: list[AuthPlugin] = [NativePasswordAuthPlugin()]

    def get_plugins(self) -> Sequence[AuthPlugin]:
        return self._plugins

    async def get_user(self, username: str, host: str = "127.0.0.1") -> User | None:
        account = self._users.lookup(username, host)
        if account is None:
            return None
        # mysql-mimic wants the SHA1(SHA1(pw)) hex without MySQL's leading '*'.
        return AccountUser(
            account.name, account.host, account.auth_string.lstrip("*").lower() or None
        )
