"""Login: the handshake, TLS, authentication and COM_CHANGE_USER of one connection
(server/connection.py runs them).

mysql-mimic defects closed here (tests/wire/test_mimic_defects.py, test_tls.py):
- failed login / failed COM_CHANGE_USER: upstream answers ERR and keeps serving; here the
  connection closes (:class:`LoginFailed`). Unknown user and wrong password get the same 1045.
- pre-auth freeze: packets with NUL-terminated strings are parsed by server/wire.py (bounded).
- TLS: upstream's STARTTLS races the ClientHello (it can sit unread in the StreamReader when
  start_tls begins); server/tls.py upgrades without losing it. With ``require_secure_transport``
  a plain-text login gets 3159. Without a certificate CLIENT_SSL is not offered.
- a bad database in the handshake or COM_CHANGE_USER fails the login before the OK.
"""

from __future__ import annotations

import logging
import os
import secrets
import ssl
from typing import Any

from mysql_mimic import packets
from mysql_mimic.auth import AuthInfo, Forbidden, IdentityProvider, Success, User
from mysql_mimic.errors import MysqlError
from mysql_mimic.packets import HandshakeResponse41, SSLRequest
from mysql_mimic.types import Capabilities

from drydock.engine.errors import DrydockError, Errors
from drydock.server import tls, wire
from drydock.server.auth import AccountUser
from drydock.server.result_writer import ResultWriter
from drydock.server.wire_session import WireSession

logger = logging.getLogger(__name__)


def _env_seconds(name: str, default: float) -> float:
    try:
        value = float(os.environ.get(name, default))
    except ValueError:
        return default
    return value if value > 0 else default


# A client that has not finished logging in within this time is dropped (tests lower it).
HANDSHAKE_TIMEOUT_SECONDS = _env_seconds("DRYDOCK_HANDSHAKE_TIMEOUT_SECONDS", 10.0)
MAX_AUTH_ROUNDS = 8  # a plugin conversation that never ends is a failed login


class LoginFailed(Exception):
    """Raised after the 1045 was sent: the connection must close."""


def peer_host(stream: wire.PacketStream) -> str:
    peer = stream.writer.get_extra_info("peername")
    return str(peer[0]) if peer else "localhost"


class Login:
    """One connection's login state: what the client said in its handshake response."""

    def __init__(
        self,
        stream: wire.PacketStream,
        session: WireSession,
        writer: ResultWriter,
        identity_provider: IdentityProvider,
        server_capabilities: Capabilities,
        ssl_context: ssl.SSLContext | None,
        require_secure_transport: bool,
    ) -> None:
        self.stream, self.session, self.writer = stream, session, writer
        self.identity_provider = identity_provider
        self.ssl = ssl_context
        self.require_secure_transport = require_secure_transport
        self.server_capabilities = server_capabilities
        if ssl_context is not None:  # CLIENT_SSL only with a certificate to offer
            self.server_capabilities |= Capabilities.CLIENT_SSL
        self.handshake_auth_data: bytes | None = None
        self.handshake_auth_plugin: str | None = None
        self.max_packet_size = 0
        self.client_plugin_name: str | None = None
        self.client_connect_attrs: dict[str, str] = {}

    async def handshake(self, connection_id: int) -> None:
        """The connection phase, up to the OK of a successful login."""
        plugin = self.identity_provider.get_default_plugin()
        auth_data, auth_state = await plugin.start()
        assert isinstance(auth_data, bytes)
        self.handshake_auth_data = auth_data
        self.handshake_auth_plugin = plugin.name
        await self.stream.write(
            packets.make_handshake_v10(
                capabilities=self.server_capabilities,
                server_charset=self.session.server_charset,
                server_version=self.session.server_version,
                connection_id=connection_id,
                auth_data=auth_data,
                status_flags=self.writer.status_flags,
                auth_plugin_name=plugin.name,
            )
        )
        response = await self._handshake_response(connection_id)
        self.writer.capabilities = response.capabilities
        self.max_packet_size = response.max_packet_size
        self.session.client_connected(response.username, response.client_charset)
        self.client_plugin_name = response.client_plugin
        self.client_connect_attrs = response.connect_attrs
        await self.authenticate(
            connection_id,
            auth_state=auth_state,
            server_plugin=plugin,
            username=response.username,
            client_plugin_name=response.client_plugin,
            auth_response=response.auth_response,
            connect_attrs=response.connect_attrs,
            database=response.database,
        )
        self.stream.reset_seq()

    async def _handshake_response(self, connection_id: int) -> HandshakeResponse41:
        """The client's HandshakeResponse41, read over TLS when it sent an SSLRequest first."""
        response = wire.parse_handshake_response(self.server_capabilities, await self.stream.read())
        if isinstance(response, SSLRequest):
            if self.ssl is None:
                raise wire.MalformedPacket("TLS was requested but this server does not offer it")
            await tls.upgrade(
                self.stream.reader, self.stream.writer, self.ssl, HANDSHAKE_TIMEOUT_SECONDS
            )
            response = wire.parse_handshake_response(
                self.server_capabilities, await self.stream.read()
            )
            if isinstance(response, SSLRequest):
                raise wire.MalformedPacket("a second SSLRequest inside TLS")
        elif self.require_secure_transport:
            logger.info(
                "connection %s refused: plain-text login while require_secure_transport is on",
                connection_id,
            )
            await self.writer.write_quietly(self.writer.error(Errors.INSECURE_TRANSPORT.error()))
            raise LoginFailed(response.username)
        return response

    async def authenticate(
        self,
        connection_id: int,
        username: str,
        auth_response: bytes,
        client_plugin_name: str | None,
        connect_attrs: dict[str, str],
        auth_state: Any = None,
        server_plugin: Any = None,
        database: str | None = None,
    ) -> None:
        """Upstream answers ERR and carries on serving; this raises LoginFailed after the ERR.

        An unknown user is checked against a random password so that it fails exactly like a
        wrong password (same code, same text, same round trips).
        """
        self.session.logged_out()
        host = peer_host(self.stream)
        user = await self.identity_provider.get_user(username, host)  # type: ignore[call-arg]
        known = user is not None
        if user is None:
            user = User(name=username, auth_string=secrets.token_hex(20), auth_plugin=None)
        decision = await self._run_auth_plugin(
            user,
            username,
            auth_response,
            client_plugin_name,
            connect_attrs,
            auth_state,
            server_plugin,
        )
        if known and isinstance(decision, Success):
            account_host = user.host if isinstance(user, AccountUser) else "%"
            self.session.logged_in(decision.authenticated_as, account_host, host, connection_id)
            if database:  # checked before the OK, so a bad database fails the login cleanly
                try:
                    await self.session.use(database)
                except (DrydockError, MysqlError) as exc:
                    await self.writer.write_quietly(self.writer.error_of(exc))
                    raise LoginFailed(username) from None
            self.writer.reported_database = self.session.database  # the client asked for it
            await self.stream.write(self.writer.ok())
            return
        using = "YES" if auth_response else "NO"
        self.session.failed_login(username, host, connection_id)
        await self.writer.write_quietly(
            self.writer.error(Errors.ACCESS_DENIED.error(user=username, host=host, using=using))
        )
        raise LoginFailed(username)

    async def _run_auth_plugin(
        self,
        user: User,
        username: str,
        auth_response: bytes,
        client_plugin_name: str | None,
        connect_attrs: dict[str, str],
        auth_state: Any,
        server_plugin: Any,
    ) -> Any:
        user_plugin = (
            self.identity_provider.get_plugin(user.auth_plugin or "")
            or self.identity_provider.get_default_plugin()
        )
        assert self.handshake_auth_plugin is not None
        info = AuthInfo(
            username=username,
            data=auth_response,
            connect_attrs=connect_attrs,
            user=user,
            client_plugin_name=client_plugin_name,
            handshake_auth_data=self.handshake_auth_data,
            handshake_plugin_name=self.handshake_auth_plugin,
        )
        if (
            server_plugin is not None
            and auth_state is not None
            and server_plugin.client_plugin_name in (None, client_plugin_name)
            and server_plugin.name == user_plugin.name
        ):
            decision = await auth_state.asend(info)
        elif user_plugin.client_plugin_name in (None, client_plugin_name):
            decision, auth_state = await user_plugin.start(info)
        else:
            decision, auth_state = await user_plugin.start()
            if user_plugin.client_plugin_name and isinstance(decision, bytes):
                await self.stream.write(
                    packets.make_auth_switch_request(
                        server_charset=self.session.server_charset,
                        plugin_name=user_plugin.client_plugin_name,
                        plugin_provided_data=decision,
                    )
                )
                info = info.copy(await self.stream.read())
                decision = await auth_state.asend(info)
        rounds = 0
        while not isinstance(decision, (Success, Forbidden)):
            rounds += 1
            if rounds > MAX_AUTH_ROUNDS:
                return Forbidden()
            await self.stream.write(packets.make_auth_more_data(decision))
            info = info.copy(await self.stream.read())
            decision = await auth_state.asend(info)
        return decision

    async def change_user(self, data: bytes, connection_id: int) -> None:
        change = wire.parse_com_change_user(
            self.writer.capabilities, self.session.client_charset, data
        )
        self.session.client_changed_user(change.username, change.client_charset)
        if change.connect_attrs:
            self.client_connect_attrs = change.connect_attrs
        # The session is reset first and the database goes through the same access check as the
        # handshake, COM_INIT_DB and USE (DrydockSession.use), before the OK.
        await self.session.reset()
        self.session.database = None
        try:
            await self.authenticate(
                connection_id,
                username=change.username,
                auth_response=change.auth_response,
                client_plugin_name=change.client_plugin,
                connect_attrs=change.connect_attrs,
                database=change.database or None,
            )
        except LoginFailed:
            raise
        except Exception as exc:  # fail closed: never keep serving after a broken re-login
            logger.exception("COM_CHANGE_USER failed; closing the connection")
            await self.writer.write_quietly(
                self.writer.error(Errors.INTERNAL.error(detail=f"change user failed: {exc}"))
            )
            raise LoginFailed(change.username) from None
