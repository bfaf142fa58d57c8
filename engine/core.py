"""The engine: everything with meaning, reachable without a socket.

``Engine.execute(statement, ctx)`` runs one statement object from the grammar;
``Engine.query_session()`` gives a session its own handle on the SQL passthrough. The table of
contents of the statements is ``engine.statements.HANDLERS``.
"""

from __future__ import annotations

from pathlib import Path

from engine import ast
from engine.audit import AuditLog
from engine.catalogs.manager import CatalogManager
from engine.metadata import Metadata
from engine.config import Config
from engine.metastore import MetaStore
from engine.privileges import Privileges
from engine.query import QueryEngine, QuerySession
from engine.results import Result
from engine.session import ConnectionRegistry, SessionContext
from engine.users import Users


class Engine:
    def __init__(self, data_dir: Path | str, config_file: Path | None = None, root_password: str = ""):
        self.data_dir = Path(data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.store = MetaStore(self.data_dir / "meta.sqlite")
        self.config = Config.from_toml(self.store, config_file)
        self.query = QueryEngine(self.data_dir / "internal.duckdb")
        self.users = Users(self.store, root_password)
        self.privileges = Privileges(self.store, self.users)
        self.audit = AuditLog(self.data_dir / "audit.jsonl")
        self.catalogs = CatalogManager(self.store)
        self.metadata = Metadata(self)
        self.connections: ConnectionRegistry | None = None

    def execute(self, statement: ast.Statement, ctx: SessionContext) -> Result:
        from engine.statements import HANDLERS  # the statement modules import Engine

        handler = HANDLERS[type(statement)]
        return handler(self, statement, ctx)

    def query_session(self) -> QuerySession:
        return self.query.session()

    def close(self) -> None:
        self.query.close()
        self.audit.close()
        self.store.close()
