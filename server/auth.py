"""Identity: the accounts of engine/users.py, checked with mysql_native_password."""

from __future__ import annotations

from collections.abc import Sequence

from mysql_mimic.auth import AuthPlugin, IdentityProvider, NativePasswordAuthPlugin, User

from engine.users import Users


class DrydockIdentityProvider(IdentityProvider):
    def __init__(self, users: Users):
        self._users = users
        self._plugins: list[AuthPlugin] = [NativePasswordAuthPlugin()]

    def get_plugins(self) -> Sequence[AuthPlugin]:
        return self._plugins

    async def get_user(self, username: str) -> User | None:
        account = self._users.lookup(username)
        if account is None:
            return None
        # mysql-mimic wants the SHA1(SHA1(pw)) hex without MySQL's leading '*'.
        return User(name=account.name, auth_string=account.auth_string.lstrip("*").lower() or None,
                    auth_plugin=NativePasswordAuthPlugin.name)
