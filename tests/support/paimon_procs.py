"""Helpers for the Paimon procedure tests: a warehouse (local or on the local S3 server) written and
read with pypaimon as an independent engine, a drydock catalog on it, and the test-only pause hook
(engine/lakehouse/procedures/paimon_common.py: DRYDOCK_TEST_PAIMON_HOOK_DIR)."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pymysql
import pytest

from drydock.engine.lakehouse.catalogs.paimon import PaimonConnector
from drydock.engine.lakehouse.procedures.paimon_common import HOOK_DIR_ENV
from tests.conftest import ServerProcess
from tests.support.paimon_rest_server import PaimonRestServer
from tests.support.s3 import S3Server

ROWS = pa.schema(
    [pa.field("id", pa.int64(), nullable=False), ("item", pa.string()), ("qty", pa.int32())]
)
PARTED = pa.schema(
    [pa.field("id", pa.int64(), nullable=False), ("item", pa.string()), ("dt", pa.string())]
)


def row(i: int, item: str = "x", qty: int = 1) -> dict[str, Any]:
    return {"id": i, "item": item, "qty": qty}


@dataclass
class Lake:
    """One Paimon warehouse, a drydock catalog on it, and pypaimon as the independent engine."""

    server: ServerProcess
    catalog: str
    warehouse: str
    options: dict[str, str]  # pypaimon's catalog options
    s3: S3Server | None = None
    schemas: dict[str, pa.Schema] = field(default_factory=dict)

    # -- the external engine ------------------------------------------------------------------
    def paimon(self) -> Any:
        from pypaimon import CatalogFactory

        return CatalogFactory.create(self.options)

    def table(self, name: str, branch: str | None = None) -> Any:
        return self.paimon().get_table(name if branch is None else f"{name}$branch_{branch}")

    def create(self, name: str, schema: pa.Schema = ROWS, **kwargs: Any) -> None:
        from pypaimon import Schema

        catalog = self.paimon()
        catalog.create_database(name.split(".")[0], True)
        catalog.create_table(name, Schema.from_pyarrow_schema(schema, **kwargs), False)
        self.schemas[name] = schema

    def append(self, name: str, rows: list[dict[str, Any]], branch: str | None = None) -> int:
        table = self.table(name, branch)
        builder = table.new_batch_write_builder()
        writer = builder.new_write()
        writer.write_arrow(pa.Table.from_pylist(rows, schema=self.schemas[name]))
        builder.new_commit().commit(writer.prepare_commit())
        writer.close()
        time.sleep(0.01)
        return int(self.table(name, branch).snapshot_manager().get_latest_snapshot().id)

    def overwrite(self, name: str, rows: list[dict[str, Any]]) -> int:
        table = self.table(name)
        builder = table.new_batch_write_builder().overwrite()
        writer = builder.new_write()
        writer.write_arrow(pa.Table.from_pylist(rows, schema=self.schemas[name]))
        builder.new_commit().commit(writer.prepare_commit())
        writer.close()
        time.sleep(0.01)
        return int(self.latest(name).id)

    def data_files(self, name: str, branch: str | None = None, **scan: Any) -> set[str]:
        """Relative paths of the data files a reader of that snapshot / tag opens."""
        table = self.table(name, branch)
        if "snapshot" in scan:
            table = table.copy({"scan.snapshot-id": str(scan["snapshot"])})
        if "tag" in scan:
            table = table.copy({"scan.tag-name": scan["tag"]})
        root = table.table_path.rstrip("/")
        return {
            f.file_path[len(root) + 1 :]
            if f.file_path and f.file_path.startswith(root)
            else f.file_name
            for s in table.new_read_builder().new_scan().plan().splits()
            for f in s.files
        }

    def rows(self, name: str, branch: str | None = None, **scan: Any) -> list[tuple[Any, ...]]:
        """Every row as a fresh pypaimon reader sees it (scan: snapshot=, tag=)."""
        table = self.table(name, branch)
        if "snapshot" in scan:
            table = table.copy({"scan.snapshot-id": str(scan["snapshot"])})
        if "tag" in scan:
            table = table.copy({"scan.tag-name": scan["tag"]})
        builder = table.new_read_builder()
        data = builder.new_read().to_arrow(builder.new_scan().plan().splits())
        return sorted(tuple(r.values()) for r in data.to_pylist())

    def snapshots(self, name: str, branch: str | None = None) -> list[int]:
        return [s.id for s in self.table(name, branch).snapshot_manager().list_snapshots()]

    def latest(self, name: str, branch: str | None = None) -> Any:
        return self.table(name, branch).snapshot_manager().get_latest_snapshot()

    def tags(self, name: str, branch: str | None = None) -> dict[str, int]:
        manager = self.table(name, branch).tag_manager()
        return {t: manager.get(t).id for t in sorted(manager.list_tags())}

    def branches(self, name: str) -> list[str]:
        return sorted(self.table(name).branch_manager().branches())

    def table_dir(self, name: str) -> str:
        db, table = name.split(".")
        return f"{self.warehouse}/{db}.db/{table}"

    def files(self, name: str, under: str = "") -> dict[str, int]:
        """Relative path → mtime (ms) of every file under the table directory (or a subdir)."""
        import pyarrow.fs as pafs

        table = self.table(name)
        filesystem = getattr(table.file_io, "filesystem", None) or pafs.LocalFileSystem()
        base = table.file_io.to_filesystem_path(table.table_path).rstrip("/")
        infos = filesystem.get_file_info(
            pafs.FileSelector(
                base + (f"/{under}" if under else ""), recursive=True, allow_not_found=True
            )
        )
        return {
            i.path[len(base) + 1 :]: int(i.mtime.timestamp() * 1000)
            for i in infos
            if i.type == pafs.FileType.File
        }

    def put(self, name: str, relative: str, data: bytes = b"orphan") -> None:
        table = self.table(name)
        with table.file_io.new_output_stream(f"{table.table_path}/{relative}") as out:
            out.write(data)

    def exists(self, name: str, relative: str) -> bool:
        table = self.table(name)
        return bool(table.file_io.exists(f"{table.table_path}/{relative}"))

    # -- drydock ----------------------------------------------------------------------------------
    def sql(self, text: str, user: str = "root", password: str = "") -> list[tuple[Any, ...]]:
        with self.server.connect(user=user, password=password) as conn, conn.cursor() as cur:
            cur.execute(text)
            return list(cur.fetchall()) if cur.description else []

    def call(
        self, procedure: str, args: str, user: str = "root", password: str = ""
    ) -> list[tuple[Any, ...]]:
        return self.sql(f"CALL {self.catalog}.sys.{procedure}({args})", user, password)

    def call_with_warnings(
        self, procedure: str, args: str
    ) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
        with self.server.connect() as conn, conn.cursor() as cur:
            cur.execute(f"CALL {self.catalog}.sys.{procedure}({args})")
            rows = list(cur.fetchall())
            cur.execute("SHOW WARNINGS")
            return rows, list(cur.fetchall())

    def error(
        self, procedure: str, args: str, user: str = "root", password: str = ""
    ) -> tuple[int, str]:
        with pytest.raises(pymysql.err.MySQLError) as info:
            self.call(procedure, args, user, password)
        return int(info.value.args[0]), str(info.value.args[1])


def make_lake(
    server: ServerProcess,
    root: str,
    options: dict[str, str],
    properties: dict[str, str],
    s3: S3Server | None = None,
    ttl: str = "0",
) -> Lake:
    catalog = f"p{uuid.uuid4().hex[:8]}"
    body = ", ".join(
        f"'{k}' = '{v}'"
        for k, v in {
            "type": "paimon",
            "warehouse": root,
            **properties,
            "meta.cache.ttl-second": ttl,
        }.items()
    )
    server.query(f"CREATE CATALOG {catalog} PROPERTIES ({body})")
    return Lake(server, catalog, root, options, s3)


def local_lake(server: ServerProcess, tmp_path: Path, ttl: str = "0") -> Lake:
    root = str(tmp_path / f"wh-{uuid.uuid4().hex[:6]}")
    return make_lake(server, root, {"warehouse": root}, {}, ttl=ttl)


def s3_lake(server: ServerProcess, s3: S3Server, ttl: str = "0") -> Lake:
    bucket = s3.make_bucket(f"paimon-{uuid.uuid4().hex[:10]}")
    root = f"s3://{bucket}/lake"
    connector = PaimonConnector(
        "x", {"type": "paimon", "warehouse": root, **s3.catalog_properties()}
    )
    return make_lake(server, root, connector.filesystem_options(), s3.catalog_properties(), s3, ttl)


def rest_lake(server: ServerProcess, rest: PaimonRestServer, ttl: str = "0") -> Lake:
    """A catalog on a Paimon REST service (tests/support/paimon_rest_server.py): drydock and the
    independent engine both reach the tables through pypaimon's REST client."""
    options = rest.client_options()
    properties = {k: v for k, v in options.items() if k != "token.provider"}
    lake = make_lake(server, options["warehouse"], options, properties, ttl=ttl)
    lake.warehouse = str(rest.root)  # where the service keeps the files (Lake.table_dir)
    return lake


def jdbc_lake(server: ServerProcess, tmp_path: Path, ttl: str = "0") -> Lake:
    """A catalog whose table list is in a SQLite database (pypaimon's JDBC catalog)."""
    root = str(tmp_path / f"wh-{uuid.uuid4().hex[:6]}")
    options = {"metastore": "jdbc", "uri": f"jdbc:sqlite:{root}.db", "warehouse": root}
    return make_lake(server, root, options, options, ttl=ttl)


@pytest.fixture
def rest(tmp_path: Path) -> Iterator[PaimonRestServer]:
    """A Paimon REST service on its own warehouse directory, one per test."""
    service = PaimonRestServer(tmp_path / "rest-warehouse").start()
    yield service
    service.stop()


def any_lake(request: pytest.FixtureRequest, server: ServerProcess, tmp_path: Path) -> Lake:
    """The ``lake`` of a test parametrized over local, s3, rest and jdbc."""
    if request.param == "local":
        return local_lake(server, tmp_path)
    if request.param == "rest":
        return rest_lake(server, request.getfixturevalue("rest"))
    if request.param == "jdbc":
        return jdbc_lake(server, tmp_path)
    return s3_lake(server, request.getfixturevalue("s3"))


@pytest.fixture(scope="module")
def hook_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("hook")


@pytest.fixture(scope="module")
def proc_server(
    tmp_path_factory: pytest.TempPathFactory, hook_dir: Path
) -> Iterator[ServerProcess]:
    """One server per module, with the (inert until armed) test hook enabled."""
    server = ServerProcess(
        data_dir=tmp_path_factory.mktemp("procs") / "data", env={HOOK_DIR_ENV: str(hook_dir)}
    ).start()
    yield server
    server.stop()


class Paused:
    """Run a CALL in the background, stopped at a hook point until resume()."""

    def __init__(
        self, lake: Lake, hook_dir: Path, procedure: str, args: str, point: str = "before"
    ):
        self.base = hook_dir / f"{procedure}.{point}"
        Path(f"{self.base}.arm").write_text("1")
        self.result: list[tuple[Any, ...]] | None = None
        self.error: tuple[int, str] | None = None
        self.connection_id: int | None = None
        self._lake, self._sql = lake, f"CALL {lake.catalog}.sys.{procedure}({args})"
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 60
        while not Path(f"{self.base}.reached").exists():
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise AssertionError(f"the call never reached {self.base.name}: {self.error}")
            time.sleep(0.02)
        Path(f"{self.base}.reached").unlink()

    def _run(self) -> None:
        try:
            with self._lake.server.connect() as conn, conn.cursor() as cur:
                cur.execute("SELECT CONNECTION_ID()")
                self.connection_id = int(cur.fetchone()[0])
                cur.execute(self._sql)
                self.result = list(cur.fetchall())
        except pymysql.err.MySQLError as exc:
            self.error = (int(exc.args[0]), str(exc.args[1]))

    def resume(self) -> Paused:
        Path(f"{self.base}.resume").write_text("1")
        self._thread.join(120)
        assert not self._thread.is_alive()
        Path(f"{self.base}.resume").unlink(missing_ok=True)  # unconsumed if the call was cancelled
        return self


def concurrently(
    lake: Lake,
    hook_dir: Path,
    procedure: str,
    args: str,
    commit: Callable[[], Any],
    point: str = "before",
) -> tuple[int, str]:
    """The call pauses after validation; ``commit`` runs; the call must fail with a concurrent
    commit."""
    paused = Paused(lake, hook_dir, procedure, args, point)
    commit()
    paused.resume()
    assert paused.error is not None, paused.result
    return paused.error
