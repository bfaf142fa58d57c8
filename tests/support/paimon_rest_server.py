"""A Paimon REST catalog server for tests, backed by a filesystem warehouse — as moto stands in
for S3, this stands in for a Paimon REST catalog service.

It serves the part of Paimon's REST API (the paths of pypaimon/api/resource_paths.py) that
pypaimon's REST catalog client calls for what drydock does: the config endpoint, databases,
tables (get answers the schema and the table's path, so the client reads and writes the files
itself), the latest snapshot, snapshot commits and the branch list. Each request is answered by
pypaimon's own filesystem catalog on the warehouse directory, and every answer is built from
pypaimon's own request/response classes, so the wire format is the one the client parses.
Anything else answers 501, as a server that does not offer an endpoint does.

Requests must carry ``Authorization: Bearer <token>`` (Paimon's 'bear' token provider) and name
the configured warehouse; otherwise 401 / 404, with Paimon's error body.
"""

from __future__ import annotations

import json
import re
import threading
import time
import urllib.request
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

_TABLE = r"/databases/(?P<db>[^/]+)/tables/(?P<table>[^/]+)"
_STARTUP_SECONDS = 10.0
_NEXT = "nextPageToken"  # every list answer is one page: no token for a next one


class RestError(Exception):
    """An HTTP error answer with Paimon's ErrorResponse body."""

    def __init__(self, code: int, message: str, kind: str | None = None, name: str | None = None):
        super().__init__(message)
        self.code, self.kind, self.name = code, kind, name


class PaimonRestServer:
    """``start()`` serves on 127.0.0.1 on a free port; ``uri`` is what a client's 'uri' names."""

    def __init__(self, root: Path, warehouse: str = "lake", token: str = "test-token-1234"):
        self.root, self.warehouse, self.token = root, warehouse, token
        self.requests: list[tuple[str, str]] = []  # (method, path) of every answered request
        self._http: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()  # commits are atomic per file, listings need no lock
        self._routes: list[tuple[str, re.Pattern[str], Callable[..., Any]]] = [
            ("GET", re.compile(r"/databases"), self._list_databases),
            ("POST", re.compile(r"/databases"), self._create_database),
            ("GET", re.compile(r"/databases/(?P<db>[^/]+)"), self._get_database),
            ("DELETE", re.compile(r"/databases/(?P<db>[^/]+)"), self._drop_database),
            ("GET", re.compile(r"/databases/(?P<db>[^/]+)/tables"), self._list_tables),
            ("POST", re.compile(r"/databases/(?P<db>[^/]+)/tables"), self._create_table),
            ("GET", re.compile(_TABLE), self._get_table),
            ("DELETE", re.compile(_TABLE), self._drop_table),
            ("GET", re.compile(_TABLE + "/snapshot"), self._latest_snapshot),
            ("POST", re.compile(_TABLE + "/commit"), self._commit),
            ("GET", re.compile(_TABLE + "/branches"), self._list_branches),
        ]

    # -- lifecycle --------------------------------------------------------------------------------
    @property
    def uri(self) -> str:
        assert self._http is not None
        return f"http://127.0.0.1:{self._http.server_address[1]}"

    def start(self) -> PaimonRestServer:
        self.root.mkdir(parents=True, exist_ok=True)
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._http.daemon_threads = True
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + _STARTUP_SECONDS
        while True:  # bounded: the config endpoint must answer before a test uses the server
            try:
                request = urllib.request.Request(
                    f"{self.uri}/v1/config?warehouse={self.warehouse}",
                    headers={"Authorization": f"Bearer {self.token}"},
                )
                with urllib.request.urlopen(request, timeout=1):
                    return self
            except OSError:
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError("the Paimon REST test server did not start") from None
                time.sleep(0.05)

    def stop(self) -> None:
        if self._http is not None:
            self._http.shutdown()
            self._http.server_close()
            self._http = None

    def client_options(self) -> dict[str, str]:
        """pypaimon's catalog options for this server (the test's independent engine)."""
        return {
            "metastore": "rest",
            "uri": self.uri,
            "warehouse": self.warehouse,
            "token.provider": "bear",
            "token": self.token,
        }

    # -- dispatch ---------------------------------------------------------------------------------
    def answer(self, method: str, target: str, headers: Any, body: bytes) -> tuple[int, str]:
        parts = urlsplit(target)
        try:
            if headers.get("Authorization") != f"Bearer {self.token}":
                raise RestError(401, "missing or wrong bearer token")
            if method == "GET" and parts.path == "/v1/config":
                return 200, self._config(parse_qs(parts.query))
            prefix = f"/v1/{self.warehouse}"
            if not parts.path.startswith(prefix + "/"):
                raise RestError(404, f"no warehouse at {parts.path}")
            path = parts.path[len(prefix) :]
            for verb, pattern, route in self._routes:
                found = pattern.fullmatch(path)
                if verb == method and found:
                    self.requests.append((method, path))
                    args = {k: unquote(v) for k, v in found.groupdict().items()}
                    data = json.loads(body) if body else None
                    return 200, route(data, **args) if data is not None else route(**args)
            raise RestError(501, f"{method} {path} is not offered by this server")
        except RestError as exc:
            error = {"message": str(exc), "code": exc.code}
            error |= {"resourceType": exc.kind, "resourceName": exc.name} if exc.kind else {}
            return exc.code, json.dumps(error)

    # -- endpoints --------------------------------------------------------------------------------
    def _config(self, query: dict[str, list[str]]) -> str:
        if query.get("warehouse") != [self.warehouse]:
            raise RestError(404, f"no warehouse {query.get('warehouse')}", "WAREHOUSE")
        # The prefix puts the warehouse into every later path; defaults the client may override.
        return json.dumps({"defaults": {}, "overrides": {"prefix": self.warehouse}})

    def _catalog(self) -> Any:
        from pypaimon import CatalogFactory

        return CatalogFactory.create({"warehouse": str(self.root)})

    def _list_databases(self) -> str:
        return json.dumps({"databases": sorted(self._catalog().list_databases()), _NEXT: None})

    def _create_database(self, data: dict[str, Any]) -> str:
        from pypaimon.catalog.catalog_exception import DatabaseAlreadyExistException

        try:
            self._catalog().create_database(data["name"], False, data.get("options") or {})
        except DatabaseAlreadyExistException:
            raise RestError(409, f"database {data['name']} exists", "DATABASE", data["name"])
        return "{}"

    def _get_database(self, db: str) -> str:
        self._require_database(db)
        location = f"{self.root}/{db}.db"
        return json.dumps({"id": db, "name": db, "location": location, "options": {}})

    def _drop_database(self, db: str) -> str:
        self._require_database(db)
        self._catalog().drop_database(db, False, True)
        return "{}"

    def _list_tables(self, db: str) -> str:
        self._require_database(db)
        return json.dumps({"tables": sorted(self._catalog().list_tables(db)), _NEXT: None})

    def _create_table(self, data: dict[str, Any], db: str) -> str:
        from pypaimon.api.api_request import CreateTableRequest
        from pypaimon.catalog.catalog_exception import TableAlreadyExistException
        from pypaimon.common.json_util import JSON

        self._require_database(db)
        request = JSON.from_json(json.dumps(data), CreateTableRequest)
        try:
            self._catalog().create_table(request.identifier, request.schema, False)
        except TableAlreadyExistException:
            name = request.identifier.get_full_name()
            raise RestError(409, f"table {name} exists", "TABLE", name)
        return "{}"

    def _get_table(self, db: str, table: str) -> str:
        from pypaimon.api.api_response import GetTableResponse
        from pypaimon.common.json_util import JSON
        from pypaimon.schema.schema import Schema

        found = self._table(db, table)
        schema = found.table_schema
        return JSON.to_json(
            GetTableResponse(
                id=f"{db}.{table.split('$')[0]}",  # one id per table, branches included
                name=table,
                path=found.table_path,
                is_external=False,
                schema_id=schema.id,
                schema=Schema(
                    fields=schema.fields,
                    partition_keys=schema.partition_keys,
                    primary_keys=schema.primary_keys,
                    options=schema.options,
                    comment=schema.comment,
                ),
            )
        )

    def _drop_table(self, db: str, table: str) -> str:
        self._table(db, table)
        self._catalog().drop_table(f"{db}.{table}", False)
        return "{}"

    def _latest_snapshot(self, db: str, table: str) -> str:
        from pypaimon.common.json_util import JSON

        snapshot = self._filesystem_latest(self._table(db, table))
        if snapshot is None:
            raise RestError(404, f"{db}.{table} has no snapshot", "SNAPSHOT", table)
        # Paimon's server also answers statistics; pypaimon reads only the snapshot of them.
        return json.dumps(
            {
                "snapshot": {
                    "snapshot": json.loads(JSON.to_json(snapshot)),
                    "recordCount": snapshot.total_record_count or 0,
                    "fileSizeInBytes": 0,
                    "fileCount": 0,
                    "lastFileCreationTime": snapshot.time_millis,
                }
            }
        )

    def _commit(self, data: dict[str, Any], db: str, table: str) -> str:
        from pypaimon.api.api_request import CommitTableRequest
        from pypaimon.common.json_util import JSON
        from pypaimon.snapshot.renaming_snapshot_commit import RenamingSnapshotCommit
        from pypaimon.snapshot.snapshot_manager import SnapshotManager

        request = JSON.from_json(json.dumps(data), CommitTableRequest)
        found = self._table(db, table)
        if request.table_id not in (None, f"{db}.{table.split('$')[0]}"):
            raise RestError(409, f"table {db}.{table} was replaced", "TABLE", table)
        manager = SnapshotManager(found.file_io, found.table_path, found.current_branch())
        with self._lock:  # the rename commit fails (False) when that snapshot id exists
            done = RenamingSnapshotCommit(manager).commit(
                request.base_snapshot_uuid, request.snapshot, request.statistics or []
            )
        return json.dumps({"success": bool(done)})

    def _list_branches(self, db: str, table: str) -> str:
        # The filesystem catalog's table lists its branch directories.
        return json.dumps({"branches": sorted(self._table(db, table).branch_manager().branches())})

    # -- helpers ----------------------------------------------------------------------------------
    def _require_database(self, db: str) -> None:
        if db not in self._catalog().list_databases():
            raise RestError(404, f"database {db} does not exist", "DATABASE", db)

    def _table(self, db: str, table: str) -> Any:
        from pypaimon.catalog.catalog_exception import TableNotExistException

        self._require_database(db)
        try:
            return self._catalog().get_table(f"{db}.{table}")
        except TableNotExistException:
            raise RestError(404, f"table {db}.{table} does not exist", "TABLE", table)

    @staticmethod
    def _filesystem_latest(table: Any) -> Any:
        from pypaimon.snapshot.snapshot_manager import SnapshotManager

        # No snapshot loader: the files are the truth this server stands on.
        return SnapshotManager(
            table.file_io, table.table_path, table.current_branch()
        ).get_latest_snapshot()


def _handler(server: PaimonRestServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            status, text = server.answer(
                self.command, self.path, self.headers, self.rfile.read(length)
            )
            payload = text.encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = do_DELETE = _serve

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
            pass

    return Handler
