"""The listening server: accepts sockets, builds a session + hardened connection for each."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import itertools
import time
import logging
from collections.abc import Callable
from typing import Any

from mysql_mimic.constants import DEFAULT_SERVER_CAPABILITIES, KillKind
from mysql_mimic.control import Control
from mysql_mimic.types import Capabilities

from drydock.engine.lakehouse.catalogs.calls import StatementSlots
from drydock.engine.support.config_keys import Key
from drydock.engine.core import Engine
from drydock.engine.errors import Errors
from drydock.engine.session import Process
from drydock.server import wire
from drydock.server.auth import DrydockIdentityProvider
from drydock.server.connection import DrydockConnection
from drydock.server.session import DrydockSession
from drydock.server.tls import TlsSettings

logger = logging.getLogger(__name__)

# CLIENT_SSL is added per connection when a certificate is configured (server/tls.py).
# No CLIENT_QUERY_ATTRIBUTES: query attributes carry a client-chosen count that mysql-mimic's
# compiled reader trusts (a long loop on a short packet).
# CLIENT_MULTI_STATEMENTS / MULTI_RESULTS: a client that asks for them gets one result per
# statement of a COM_QUERY (server/connection.py _multi_query); others keep one statement per query.
# CLIENT_FOUND_ROWS: a client that asks gets an UPDATE's rows matched as its affected rows.
# CLIENT_SESSION_TRACK: MySQL's server offers it, and drivers that parse the OK packet by the
# server's offer (Node mysql2) read its info string as length-encoded only then; without it they
# read the whole tail, length byte included ("(Rows matched: ..."). No session state is ever sent
# (SERVER_SESSION_STATE_CHANGED stays clear), so the info string is all a client reads.
CAPABILITIES = (
    (DEFAULT_SERVER_CAPABILITIES & ~Capabilities.CLIENT_QUERY_ATTRIBUTES)
    | Capabilities.CLIENT_FOUND_ROWS
    | Capabilities.CLIENT_TRANSACTIONS
    | Capabilities.CLIENT_MULTI_STATEMENTS
    | Capabilities.CLIENT_MULTI_RESULTS
    | Capabilities.CLIENT_SESSION_TRACK
)
MAX_CONNECTIONS = 1024


class Connections(Control):
    """Live connections by id; the engine's ConnectionRegistry (KILL)."""

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self._loop = loop
        self._ids = itertools.count(1)
        self._by_id: dict[int, DrydockConnection] = {}

    async def add(self, connection: DrydockConnection) -> int:
        connection_id = next(self._ids)
        self._by_id[connection_id] = connection
        return connection_id

    async def remove(self, connection_id: int) -> None:
        self._by_id.pop(connection_id, None)

    async def kill(self, connection_id: int, kind: KillKind = KillKind.CONNECTION) -> None:
        connection = self._by_id.get(connection_id)
        if connection is not None:
            connection.kill(kind)

    def __len__(self) -> int:
        return len(self._by_id)

    def processes(self) -> list[Process]:
        """A snapshot of the live connections (read from any thread: dict copy, plain fields)."""
        now = time.monotonic()
        out = []
        for connection_id, connection in list(self._by_id.items()):
            session, busy = connection.session, connection.busy
            out.append(
                Process(
                    id=connection_id,
                    user=session.username or "",
                    host=session.client_host,
                    db=session.database,
                    command="Query" if busy else "Sleep",
                    seconds=int(now - connection.command_started),
                    state="executing" if busy else "",
                    info=None,
                )
            )
        return out

    # ConnectionRegistry (called from the engine, possibly from a worker thread)
    def owner_of(self, connection_id: int) -> str | None:
        connection = self._by_id.get(connection_id)
        return None if connection is None else (connection.session.username or "")

    def kill_from_engine(self, connection_id: int, query_only: bool) -> None:
        kind = KillKind.QUERY if query_only else KillKind.CONNECTION
        connection = self._by_id.get(connection_id)
        if connection is None:
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:
            connection.kill(kind)
        else:
            self._loop.call_soon_threadsafe(connection.kill, kind)


class _Registry:
    def __init__(self, connections: Connections):
        self._connections = connections

    def owner_of(self, connection_id: int) -> str | None:
        return self._connections.owner_of(connection_id)

    def kill(self, connection_id: int, query_only: bool) -> None:
        self._connections.kill_from_engine(connection_id, query_only)

    def processes(self) -> list[Process]:
        return self._connections.processes()


class StatementsPool(concurrent.futures.ThreadPoolExecutor):
    """statements_threads statements at once (each task holds one of ``slots``), on as many
    threads plus catalog_max_waiting_statements: a statement waiting on a remote catalog call
    gives its slot back and keeps its thread (engine/lakehouse/catalogs/calls.py), so the spare
    threads
    let other statements run meanwhile instead of queueing behind a slow catalog."""

    def __init__(self, slots: StatementSlots):
        super().__init__(
            slots.running + slots.waiting_limit, thread_name_prefix="drydock-statements"
        )
        self._slots = slots

    def submit(
        self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any
    ) -> concurrent.futures.Future[Any]:
        return super().submit(self._slots.run, fn, *args, **kwargs)


class DrydockServer:
    def __init__(self, engine: Engine, tls: TlsSettings | None = None):
        self.engine = engine
        self.tls = tls or TlsSettings(context=None, required=False)
        self.identity = DrydockIdentityProvider(engine.users)
        self.connections: Connections | None = None
        self._server: asyncio.base_events.Server | None = None
        # Separate worker pools, so long CALLs and index administration cannot starve queries.
        slots = engine.catalog_calls.slots
        assert slots is not None
        self.pools: dict[str, concurrent.futures.ThreadPoolExecutor] = {
            "statements": StatementsPool(slots),
            "maintenance": concurrent.futures.ThreadPoolExecutor(
                int(engine.config.get(Key.MAINTENANCE_THREADS)),
                thread_name_prefix="drydock-maintenance",
            ),
        }

    async def start(self, host: str, port: int) -> tuple[str, int]:
        self.connections = Connections(asyncio.get_running_loop())
        self.engine.connections = _Registry(self.connections)
        self._server = await asyncio.start_server(self._on_client, host=host, port=port)
        sock = self._server.sockets[0].getsockname()
        return sock[0], sock[1]

    async def _on_client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        assert self.connections is not None
        stream = wire.PacketStream(reader, writer)  # bounded, correct read() (server/wire.py)
        session = DrydockSession(self.engine, self.pools)
        connection = DrydockConnection(
            stream=stream,
            session=session,
            connections=self.connections,
            identity_provider=self.identity,
            server_capabilities=CAPABILITIES,
            ssl_context=self.tls.context,
            require_secure_transport=self.tls.required,
        )
        if len(self.connections) >= MAX_CONNECTIONS:
            with contextlib.suppress(OSError):
                await stream.write(connection.writer.error(Errors.TOO_MANY_CONNECTIONS.error()))
            writer.close()
            session.query_session.close()
            return
        connection_id = await self.connections.add(connection)
        connection.connection_id = connection_id
        try:
            await connection.start()
        except asyncio.CancelledError:
            # mysql-mimic runs the connection in an inner task; KILL cancels that one. Only a
            # cancellation of this task itself (server shutdown) may propagate.
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise
        except OSError as exc:  # the socket failed under a write (reset, broken pipe): not a bug
            logger.info("connection %s ended: %s: %s", connection_id, type(exc).__name__, exc)
        except Exception:  # noqa: BLE001 - one broken connection must never stop the server
            logger.exception("connection %s ended with an error", connection_id)
        finally:
            await self.connections.remove(connection_id)
            session.query_session.close()
            writer.close()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        for pool in self.pools.values():
            pool.shutdown(wait=False, cancel_futures=True)
