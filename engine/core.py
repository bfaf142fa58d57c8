"""The engine: everything with meaning, reachable without a socket.

``Engine.execute(statement, ctx)`` runs one statement object from the grammar;
``Engine.query_session()`` gives a session its own handle on the SQL passthrough. The table of
contents of the statements is ``engine.statements.HANDLERS``.
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import Any

from engine import ast, statement_info
from engine.audit import DENIAL_CODES, AuditLog, AuditSettings
from engine.audit_object import audit_object, is_audited, statement_kind
from engine.catalogs.calls import CallSettings, CatalogCalls, StatementSlots
from engine.catalogs.manager import CatalogManager
from engine.catalogs.placement import Placement
from engine.config import Config, frontend_table
from engine.config_keys import Key
from engine.errors import DrydockError
from engine.frontends import FrontendIdentity, Membership
from engine.jobs.admission import Admission
from engine.jobs.catalog_guard import CatalogGuard
from engine.jobs.dispatcher import Dispatcher
from engine.jobs.manager import JobManager
from engine.jobs.records import JobRecord
from engine.jobs.retention import RetentionCleaner
from engine.metadata import Metadata
from engine.metastore import open_store
from engine.metrics import Metrics
from engine.privileges import Privileges
from engine.procedures.registry import default_registry
from engine.query import QueryEngine, QuerySession
from engine.results import Result
from engine.session import ConnectionRegistry, SessionContext
from engine.users import Users


class Engine:
    def __init__(self, data_dir: Path | str, config_file: Path | None = None, root_password: str = "",
                 config_overrides: dict[str, Any] | None = None, metadata_store: str = "",
                 frontend_name: str = "", query_port: int = 0):
        self.started_at = time.time()  # Uptime (COM_STATISTICS)
        self.questions = 0  # statements run (COM_STATISTICS' Questions)
        self.data_dir = Path(data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        # --metadata-store beats [frontend] metadata_store; neither: SQLite in the data directory.
        self.store = open_store(metadata_store or str(frontend_table(config_file).get("metadata_store", "")),
                                self.data_dir)
        self.config = Config.from_toml(self.store, config_file, config_overrides)
        self.query = QueryEngine(self.data_dir / "internal.duckdb",
                                 memory_limit=str(self.config.get(Key.DUCKDB_MEMORY_LIMIT)),
                                 temp_directory=self.data_dir / "duckdb_temp",
                                 max_temp_directory_size=str(self.config.get(Key.DUCKDB_MAX_TEMP_DIRECTORY_SIZE)))
        self.users = Users(self.store, root_password)
        self.privileges = Privileges(self.store, self.users)
        self.audit = AuditLog(self.data_dir / "audit.jsonl",
                              settings=lambda: AuditSettings.from_config(self.config))
        self.catalog_calls = CatalogCalls(
            lambda: CallSettings(timeout=float(self.config.get(Key.CATALOG_CALL_TIMEOUT_SECOND)),
                                 failure_ttl=float(self.config.get(Key.CATALOG_FAILURE_CACHE_SECOND)),
                                 max_stuck=int(self.config.get(Key.CATALOG_MAX_STUCK_CALLS))),
            StatementSlots(int(self.config.get(Key.STATEMENTS_THREADS)),
                           int(self.config.get(Key.CATALOG_MAX_WAITING_STATEMENTS))))
        self.catalogs = CatalogManager(self.store, self.catalog_calls)
        self.metadata = Metadata(self.catalogs, self.query, self.privileges, self.data_dir)
        self.procedures = default_registry()
        self.jobs = JobManager(self.store)
        self.admission = Admission(self.config, self.catalogs, self.metadata, self.privileges, self.jobs)
        guard = CatalogGuard(self.jobs)
        self.catalogs.before_drop.append(guard.refuse_drop)
        self.catalogs.before_retarget.append(guard.refuse_retarget)
        self.catalogs.in_transaction.append(self.privileges.follow_catalog)
        self.catalogs.after_commit.append(self.privileges.reload)
        self.placement = Placement(self.config, self.data_dir)
        self.retention = RetentionCleaner(self.jobs, self.config, self.data_dir / "workers")  # + worker stderr files
        self.epoch = uuid.uuid4().hex  # this process's epoch: workers of earlier epochs are foreign
        # Frontends sharing the store elect the one that dispatches (engine/frontends.py); the first
        # heartbeat runs now, so a lone frontend leads from its first statement.
        self.frontend = Membership(self.store, FrontendIdentity.of(self.data_dir, query_port, frontend_name),
                                   self.epoch, lambda: float(self.config.get(Key.FRONTEND_LEASE_SECOND)))
        self.frontend.join()
        self.jobs.fence = self.frontend.check_fence
        self.jobs.frontend_name = self.frontend.identity.name
        self.metrics = Metrics()
        self.dispatcher = Dispatcher(jobs=self.jobs, config=self.config, catalogs=self.catalogs, metrics=self.metrics,
                                     audit=self.audit, workers_dir=self.data_dir / "workers", epoch=self.epoch)
        # the supervisor is replaced when the lease is regained: read through the dispatcher each time
        self.metrics.attach(lambda: self.dispatcher.supervisor.status(), self.jobs.slots_in_use, self.store)
        self.connections: ConnectionRegistry | None = None

    def start_background(self) -> None:
        """Daemon threads a serving engine runs (tests of the engine alone may skip them): retention,
        the heartbeat, the dispatcher while this frontend leads, and the store's announcements."""
        self.retention.start()
        if self.frontend.is_leader:
            self.dispatcher.start()
        self.frontend.on_lead.append(lambda epoch: self.dispatcher.start())
        self.frontend.on_follow.append(self.dispatcher.stop)
        self.frontend.on_tick.append(self._catch_up_jobs)  # in case an announcement was missed
        self.frontend.on_tick.append(lambda: self.dispatcher.prove_own_earlier_workers(self.frontend.identity.name))
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

    def execute(self, statement: ast.Statement, ctx: SessionContext, text: str = "") -> Result:
        """The one way any statement runs: its handler (authorize → validate → execute), wrapped
        once in the audit (changing and denied statements; ``text`` is what the client sent,
        masked by the audit log) and the statement-duration metric."""
        from engine.statements import HANDLERS  # the statement modules import Engine

        handler = HANDLERS[type(statement)]
        started = time.monotonic()
        self.questions += 1
        kind = statement_kind(statement)
        try:
            result = handler(self, statement, ctx)
        except DrydockError as exc:
            self._audit(statement, ctx, kind, started, exc.code, text)
            raise
        finally:
            self.metrics.statement_seconds.labels(kind).observe(time.monotonic() - started)
        self._audit(statement, ctx, kind, started, 0, text)
        statement_info.record(ctx, result)
        return result

    def _audit(self, statement: ast.Statement, ctx: SessionContext, kind: str, started: float,
               error_code: int, text: str) -> None:
        denied = error_code in DENIAL_CODES
        if not denied and not is_audited(statement):
            return
        self.audit.record(user=ctx.user, host=ctx.host, connection_id=ctx.connection_id,
                          kind=kind if is_audited(statement) or not denied else "Denied",
                          obj=audit_object(statement, ctx), error_code=error_code, started=started,
                          statement=text or getattr(statement, "text", ""))

    def query_session(self) -> QuerySession:
        return self.query.session()

    def close(self) -> None:
        self.retention.stop()
        self.frontend.stop_heartbeat()  # no leadership change from here on
        self.dispatcher.stop()
        self.frontend.release()  # after the dispatcher: the lease is handed back once no worker runs
        self.metrics.close()
        self.query.close()
        self.audit.close()
        self.store.close()
