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
from engine.catalogs.manager import CatalogManager
from engine.catalogs.placement import Placement
from engine.config import Config, frontend_table
from engine.errors import DrydockError
from engine.jobs.admission import Admission
from engine.jobs.catalog_guard import CatalogGuard
from engine.jobs.dispatcher import Dispatcher
from engine.jobs.manager import JobManager
from engine.jobs.records import JobRecord
from engine.jobs.retention import RetentionCleaner
from engine.metadata import Metadata
from engine.metastore import MetadataStoreUnavailable, open_store
from engine.metrics import Metrics
from engine.privileges import Privileges
from engine.procedures.registry import default_registry
from engine.query import QueryEngine, QuerySession
from engine.results import Result
from engine.session import ConnectionRegistry, SessionContext
from engine.users import Users


class Engine:
    def __init__(self, data_dir: Path | str, config_file: Path | None = None, root_password: str = "",
                 config_overrides: dict[str, Any] | None = None, metadata_store: str = ""):
        self.started_at = time.time()  # Uptime (COM_STATISTICS)
        self.questions = 0  # statements run (COM_STATISTICS' Questions)
        self.data_dir = Path(data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        # --metadata-store beats [frontend] metadata_store; neither: SQLite in the data directory.
        self.store = open_store(metadata_store or str(frontend_table(config_file).get("metadata_store", "")),
                                self.data_dir)
        try:
            self.store.claim_sole_frontend()
        except MetadataStoreUnavailable:
            self.store.close()
            raise
        self.config = Config.from_toml(self.store, config_file, config_overrides)
        self.query = QueryEngine(self.data_dir / "internal.duckdb")
        self.users = Users(self.store, root_password)
        self.privileges = Privileges(self.store, self.users)
        self.audit = AuditLog(self.data_dir / "audit.jsonl",
                              settings=lambda: AuditSettings.from_config(self.config))
        self.catalogs = CatalogManager(self.store)
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
        self.metrics = Metrics()
        self.dispatcher = Dispatcher(jobs=self.jobs, config=self.config, catalogs=self.catalogs, metrics=self.metrics,
                                     audit=self.audit, workers_dir=self.data_dir / "workers", epoch=self.epoch)
        self.metrics.attach(self.dispatcher.supervisor.status, self.jobs.slots_in_use, self.store)
        self.connections: ConnectionRegistry | None = None

    def start_background(self) -> None:
        """Daemon threads a serving engine runs (tests of the engine alone may skip them)."""
        self.retention.start()
        self.dispatcher.start()

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
        self.dispatcher.stop()
        self.metrics.close()
        self.query.close()
        self.audit.close()
        self.store.close()
