"""TLS for the MySQL wire: the server's context, and STARTTLS that loses no byte.

MySQL upgrades in the middle of the connection phase: the client answers the greeting with a
32-byte SSLRequest and, without waiting for any reply, starts its TLS handshake on the same socket.
https://dev.mysql.com/doc/dev/mysql-server/latest/page_protocol_connection_phase.html

mysql-mimic calls ``loop.start_tls`` after reading the SSLRequest, but the asyncio StreamReader may
already hold the ClientHello (it reads whatever the socket has): the TLS layer then never sees it
and the handshake hangs (docs/upstream-facts.md). :func:`upgrade` hands those buffered
bytes to the TLS protocol before anything is read from the socket again.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
from dataclasses import dataclass
from typing import Any, cast

from drydock.engine.support.config_keys import Key

logger = logging.getLogger(__name__)

# How many event-loop turns start_tls may take to install its protocol (it takes one or two).
_INSTALL_TURNS = 100


class TlsConfigError(Exception):
    """The TLS settings cannot be used; the server refuses to start."""


@dataclass(frozen=True)
class TlsSettings:
    context: ssl.SSLContext | None  # None: TLS is off
    required: bool  # require_secure_transport
    cert_path: str = ""

    def describe(self) -> str:
        """The one start-up line saying whether TLS is on (no secrets: paths only)."""
        if self.context is None:
            return (
                "TLS is off: no tls_cert is configured; clients connect in plain text "
                "(set --tls-cert/--tls-key or [frontend] tls_cert/tls_key)"
            )
        required = "required" if self.required else "optional"
        return f"TLS is on ({required}): certificate {self.cert_path}"


def settings_from_config(config: Any) -> TlsSettings:
    """The TLS settings of ``config`` (engine.store.config.Config); raises TlsConfigError."""
    cert, key = str(config.get(Key.TLS_CERT)), str(config.get(Key.TLS_KEY))
    required = bool(config.get(Key.REQUIRE_SECURE_TRANSPORT))
    if not cert:
        if key:
            raise TlsConfigError("tls_key is set but tls_cert is not")
        if required:
            raise TlsConfigError("require_secure_transport = true needs tls_cert (and tls_key)")
        return TlsSettings(context=None, required=False)
    return TlsSettings(context=server_context(cert, key or None), required=required, cert_path=cert)


def server_context(cert: str, key: str | None) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        context.load_cert_chain(cert, key)
    except (OSError, ssl.SSLError) as exc:
        raise TlsConfigError(
            f"cannot load the TLS certificate {cert!r} / key {key!r}: "
            f"{type(exc).__name__}: {exc.strerror or exc}"
        ) from None
    return context


async def upgrade(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    context: ssl.SSLContext,
    timeout: float,
) -> None:
    """Start TLS (server side) on a connection whose reader may already hold the ClientHello.

    After it returns, ``reader`` and ``writer`` carry plaintext over TLS.
    """
    early = _take_buffered(reader)
    transport = writer.transport
    plain_protocol = transport.get_protocol()
    task = asyncio.ensure_future(writer.start_tls(context, ssl_handshake_timeout=timeout))
    try:
        if early:
            await _hand_over(task, transport, plain_protocol, early)
        await task
    finally:
        if not task.done():
            task.cancel()


def _take_buffered(reader: asyncio.StreamReader) -> bytes:
    # StreamReader has no public way to take what it already buffered without waiting for more.
    buffered: bytearray = getattr(reader, "_buffer")  # noqa: B009 - private; see above
    early = bytes(buffered)
    buffered.clear()
    return early


async def _hand_over(
    task: asyncio.Future[Any], transport: asyncio.BaseTransport, plain_protocol: Any, early: bytes
) -> None:
    """Feed ``early`` to the TLS protocol start_tls installs, before it reads the socket.

    start_tls swaps the transport's protocol, then schedules the TLS protocol's connection_made
    and the transport's resume_reading with call_soon. The first turn that sees the new protocol
    schedules the feed; callbacks run in order and socket reads come only in a later turn, so the
    feed runs after connection_made and before any byte read from the socket.
    """
    for _ in range(_INSTALL_TURNS):
        if task.done():
            return  # start_tls failed before installing its protocol; awaiting it raises
        protocol = transport.get_protocol()
        if protocol is not plain_protocol:
            asyncio.get_running_loop().call_soon(_feed, protocol, transport, early)
            return
        await asyncio.sleep(0)
    raise ConnectionAbortedError("the TLS layer was not installed")


def _feed(protocol: Any, transport: asyncio.BaseTransport, data: bytes) -> None:
    try:
        if isinstance(protocol, asyncio.BufferedProtocol):
            view = memoryview(data)
            while view:
                buffer = memoryview(protocol.get_buffer(len(view)))
                n = min(len(buffer), len(view))
                buffer[:n] = view[:n]
                protocol.buffer_updated(n)
                view = view[n:]
        else:
            protocol.data_received(data)
    # a loop callback: end the connection in one log line, never a traceback from the loop
    except Exception as exc:  # noqa: BLE001
        logger.info("TLS handshake failed: %s: %s", type(exc).__name__, exc)
        cast(asyncio.Transport, transport).abort()


def cipher(writer: asyncio.StreamWriter) -> tuple[str, str] | None:
    """(cipher name, protocol version) of a TLS connection, or None for plain text."""
    info = writer.get_extra_info("cipher")
    return (str(info[0]), str(info[1])) if info else None
