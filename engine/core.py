"""The engine: everything with meaning, reachable without a socket.

``Engine`` is the composition root: it builds every collaborator (store, config, catalogs,
privileges, jobs, dispatcher) once and wires them together. Statements run through
``engine.statements.execute(engine, statement, ctx)``, which finds each statement's handler;
``Engine.query_session()`` gives a session its own handle on the SQL passthrough.

May import: `drydock.engine`, `drydock.engine.support`, `drydock.engine.store`,
`drydock.engine.security`,
`drydock.grammar`, `drydock.engine.lakehouse`, `drydock.engine.sql`, `drydock.engine.jobs`,
`drydock.engine.jobs.control`, `drydock.engine.jobs.runtime`.
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import Any

from drydock.engine.security.audit import AuditLog, AuditSettings
from drydock.engine.lakehouse.catalogs import lance_session
from drydock.engine.lakehouse.catalogs.calls import CallSettings, CatalogCalls, StatementSlots
from drydock.engine.lakehouse.catalogs.manager import CatalogManager
from drydock.engine.lakehouse.catalogs.placement import Placement
from drydock.engine.store.config import Config, frontend_table
from drydock.engine.support.config_keys import Key
from drydock.engine.store.frontends import FrontendIdentity, Membership
from drydock.engine.jobs.control.admission import Admitter
from drydock.engine.jobs.control.backend import Backend, BackendEvents, BackendFactory
from drydock.engine.jobs.control.catalog_guard import CatalogGuard
from drydock.engine.jobs.control.dispatcher import Dispatcher
from drydock.engine.jobs.control.manager import JobManager
from drydock.engine.jobs.control.records import JobRecord
from drydock.engine.jobs.control.retention import RetentionCleaner
from drydock.engine.jobs.runtime.supervisor import Supervisor
from drydock.engine.sql.metadata import Metadata
from drydock.engine.store.open import open_store
from drydock.engine.support.metrics import Metrics
from drydock.engine.security.privileges import Privileges
from drydock.engine.lakehouse.procedures.registry import default_registry
from drydock.engine.sql.query import QueryEngine, QuerySession
from drydock.engine.session import ConnectionRegistry
from drydock.grammar.redact import redact_sql
from drydock.engine.security.users import Users


def backends(config: Config, workers_dir: Path) -> BackendFactory:
    """The dispatcher's backends: local isolated workers, or Ray (lance_index_worker_backend, read
    each time the dispatcher starts a new epoch). ``ray`` is imported only when Ray is chosen."""

    def new(events: BackendEvents, epoch: str) -> Backend:
        if config.get(Key.LANCE_INDEX_WORKER_BACKEND) == "ray":
            from drydock.engine.jobs.runtime.ray_backend import RayBackend

            return RayBackend(config, events, epoch, workers_dir)
        return Supervisor(config, events, epoch, workers_dir)

    return new


class Engine:
    def __init__(
        self,
        data_dir: Path | str,
        config_file: Path | None = None,
        root_password: str = "",
        config_overrides: dict[str, Any] | None = None,
        metadata_store: str = "",
        frontend_name: str = "",
        query_port: int = 0,
    ):
        self.started_at = time.time()  # Uptime (COM_STATISTICS)
        self.questions = 0  # statements run (COM_STATISTICS' Questions)
        self.data_dir = Path(data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        # --metadata-store beats [frontend] metadata_store; neither: SQLite in the data directory.
        self.store = open_store(
            metadata_store or str(frontend_table(config_file).get("metadata_store", "")),
            self.data_dir,
        )
        self.config = Config.from_toml(self.store, config_file, config_overrides)
        lance_session.configure(
            lance_session.size_bytes(str(self.config.get(Key.LANCE_CACHE_SIZE)))
        )
        self.query = QueryEngine(
            self.data_dir / "internal.duckdb",
            memory_limit=str(self.config.get(Key.DUCKDB_MEMORY_LIMIT)),
            temp_directory=self.data_dir / "duckdb_temp",
            max_temp_directory_size=str(self.config.get(Key.DUCKDB_MAX_TEMP_DIRECTORY_SIZE)),
        )
        self.users = Users(self.store, root_password)
        self.privileges = Privileges(self.store, self.users)
        self.audit = AuditLog(
            self.data_dir / "audit.jsonl",
            redact_sql,
            settings=lambda: AuditSettings.from_config(self.config),
        )
        self.catalog_calls = CatalogCalls(
            lambda: CallSettings(
                timeout=float(self.config.get(Key.CATALOG_CALL_TIMEOUT_SECOND)),
                failure_ttl=float(self.config.get(Key.CATALOG_FAILURE_CACHE_SECOND)),
                max_stuck=int(self.config.get(Key.CATALOG_MAX_STUCK_CALLS)),
            ),
            StatementSlots(
                int(self.config.get(Key.STATEMENTS_THREADS)),
                int(self.config.get(Key.CATALOG_MAX_WAITING_STATEMENTS)),
            ),
        )
        self.catalogs = CatalogManager(self.store, self.catalog_calls)
        self.metadata = Metadata(self.catalogs, self.query, self.privileges, self.data_dir)
        self.procedures = default_registry()
        self.jobs = JobManager(self.store)
        self.admission = Admitter(
            self.config, self.catalogs, self.metadata, self.privileges, self.jobs
        )
        guard = CatalogGuard(self.jobs)
        self.catalogs.before_drop.append(guard.refuse_drop)
        self.catalogs.before_retarget.append(guard.refuse_retarget)
        self.catalogs.in_transaction.append(
            lambda db, record, new_name: self.privileges.follow_catalog(db, record.name, new_name)
        )
        self.catalogs.after_commit.append(self.privileges.reload)
        self.placement = Placement(self.config, self.data_dir)
        self.retention = RetentionCleaner(
            self.jobs, self.config, self.data_dir / "workers"
        )  # + worker stderr files
        self.epoch = uuid.uuid4().hex  # this process's epoch: workers of earlier epochs are foreign
        # Frontends sharing the store elect the one that dispatches (engine/store/frontends.py); the
        # first heartbeat runs now, so a lone frontend leads from its first statement.
        self.frontend = Membership(
            self.store,
            FrontendIdentity.of(self.data_dir, query_port, frontend_name),
            self.epoch,
            lambda: float(self.config.get(Key.FRONTEND_LEASE_SECOND)),
        )
        self.frontend.join()
        self.jobs.fence = self.frontend.check_fence
        self.jobs.frontend_name = self.frontend.identity.name
        self.metrics = Metrics()
        self.dispatcher = Dispatcher(
            jobs=self.jobs,
            config=self.config,
            catalogs=self.catalogs,
            metrics=self.metrics,
            audit=self.audit,
            backends=backends(self.config, self.data_dir / "workers"),
            epoch=self.epoch,
            alive_frontends=self.frontend.alive_count,  # local datasets: local_dispatch.py
        )
        # the backend is replaced when the lease is regained: read through the dispatcher each time
        self.metrics.attach(
            lambda: self.dispatcher.backend.status(), self.jobs.slots_in_use, self.store
        )
        self.connections: ConnectionRegistry | None = None

    def start_background(self) -> None:
        """Daemon threads a serving engine runs (tests of the engine alone may skip them):
        retention,
        the heartbeat, the dispatcher while this frontend leads, and the store's announcements."""
        self.retention.start()
        if self.frontend.is_leader:
            self.dispatcher.start()
        self.frontend.on_lead.append(lambda epoch: self.dispatcher.start())
        self.frontend.on_follow.append(self.dispatcher.stop)
        self.frontend.on_tick.append(self._catch_up_jobs)  # in case an announcement was missed
        self.frontend.on_tick.append(
            lambda: self.dispatcher.prove_own_earlier_workers(self.frontend.identity.name)
        )
        self.store.listen(self._on_store_change)
        self.frontend.start()

    def _on_store_change(self, tables: frozenset[str] | None) -> None:
        """Another frontend committed a change to something this one caches (None: anything)."""
        if tables is None or "config" in tables:
            self.config.reload()
        if tables is None or tables & {"users", "roles", "grants", "role_members", "catalogs"}:
            self.privileges.reload()
        if tables is None or "catalogs" in tables:
            self.catalogs.reload()
        if tables is None or "lance_index_jobs" in tables:
            self._catch_up_jobs()

    def _catch_up_jobs(self) -> None:
        if self.jobs.sync() and self.frontend.is_leader:
            self.dispatcher.wake()  # another frontend admitted (or cancelled): dispatch at once

    def cancel_running(self, job: JobRecord) -> bool:
        """Ask the supervisor to abort a RUNNING job's worker; False when no supervisor runs it."""
        return self.dispatcher.cancel(job)

    def query_session(self) -> QuerySession:
        return self.query.session()

    def close(self) -> None:
        self.retention.stop()
        self.frontend.stop_heartbeat()  # no leadership change from here on
        self.dispatcher.stop()
        # after the dispatcher: the lease is handed back once no worker runs
        self.frontend.release()
        self.metrics.close()
        self.query.close()
        self.audit.close()
        self.store.close()
