"""Lance catalogs: a directory of Lance datasets, read through DuckDB.

Properties (``CREATE CATALOG c PROPERTIES (...)``):

- ``"type" = "lance"``; ``"warehouse"`` (required): an absolute local path, ``file:///path`` or
  ``s3://bucket/prefix``. Database = directory under the warehouse, table = ``<name>.lance``.
- ``"lance.catalog.type"``: only ``"filesystem"`` (the default) is supported.
- S3: ``"s3.endpoint"`` (an ``http://`` endpoint turns on Lance's ``allow_http``),
  ``"s3.access_key"`` + ``"s3.secret_key"`` (both or neither; absent: the default AWS credential
  chain), ``"s3.session_token"`` (temporary credentials), ``"s3.region"``, ``"use_path_style"``
  (true: ``bucket`` in the path, false: virtual-hosted; absent: Lance's default). They are ignored
  for a local warehouse, so that ALTER CATALOG can move a catalog between S3 and local.
- ``"meta.cache.ttl-second"``: how long listings and opened datasets are cached (default 60, as
  for Paimon catalogs; 0 = no cache).

Caching: the database and table listings and each table's opened dataset are kept for the TTL, and
dropped at once by REFRESH (CATALOG / DATABASE / TABLE) or ALTER/DROP CATALOG. A cached dataset is
pinned to the version it was opened at: a statement reads one version of each table, and an
external writer's commit becomes visible after REFRESH (or the TTL). ``open_latest`` is the
uncached, authoritative read (procedures); ``latest_snapshot`` is as authoritative — the store's
latest version is checked on every call — but reuses the dataset while that version has not moved
(index job admission).
"""

from __future__ import annotations

import datetime as dt
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar, cast

# index_stats() without IVF centroids: SHOW INDEX needs row counts only, and the centroids of a
# large index cost memory plus a warning on every call. An explicit setting still wins.
os.environ.setdefault("LANCE_INCLUDE_VECTOR_CENTROIDS", "false")

import lance  # noqa: E402 - after the environment default above
import pyarrow.fs as pafs  # noqa: E402

from drydock.engine.lakehouse.catalogs import lance_fs, lance_session, lance_system  # noqa: E402
from drydock.engine.lakehouse.catalogs.cache import MetadataCache  # noqa: E402
from drydock.engine.lakehouse.catalogs.lance_types import arrow_type, for_duckdb  # noqa: E402
from drydock.engine.lakehouse.catalogs.base import (  # noqa: E402
    Column,
    Connector,
    IndexRow,
    TimeTravel,
)
from drydock.engine.errors import DrydockError, Errors, exception_text  # noqa: E402
from drydock.engine.support.instants import BadInstant, parse_instant  # noqa: E402
from drydock.engine.support.names import shown  # noqa: E402
from drydock.engine.security.redact import redact_text  # noqa: E402

if TYPE_CHECKING:
    from drydock.engine.lakehouse.catalogs.calls import CatalogCalls

T = TypeVar("T")
CATALOG_TYPES = ("filesystem",)
DEFAULT_CACHE_TTL_SECONDS = 60.0
MAX_LATEST_SNAPSHOTS = 256  # datasets latest_snapshot() keeps; past that it starts afresh
# The one name under every catalog that SQL reserves (information_schema is answered by drydock).
RESERVED_DATABASES = ("information_schema",)


class LanceConnector(Connector):
    TYPE = "lance"
    REQUIRED = ("warehouse",)
    OPTIONAL = (
        "lance.catalog.type",
        "meta.cache.ttl-second",
        "s3.endpoint",
        "s3.access_key",
        "s3.secret_key",
        "s3.session_token",
        "s3.region",
        "use_path_style",
        lance_fs.SHARED_FILESYSTEM,
    )

    @classmethod
    def validate_properties(cls, properties: dict[str, str]) -> None:
        super().validate_properties(properties)
        kind = properties.get("lance.catalog.type", "filesystem").strip().lower()
        if kind not in CATALOG_TYPES:
            raise Errors.CATALOG_BAD_PROPERTY.error(
                detail=f"Unsupported lance.catalog.type '{properties['lance.catalog.type']}'; "
                f"supported: {', '.join(CATALOG_TYPES)}"
            )
        lance_fs.parse_warehouse(properties["warehouse"])
        if properties.get("s3.endpoint"):
            lance_fs.validate_endpoint(properties["s3.endpoint"])
        if properties.get("use_path_style"):
            lance_fs.parse_bool("use_path_style", properties["use_path_style"])
        if bool(properties.get("s3.access_key")) != bool(properties.get("s3.secret_key")):
            raise Errors.CATALOG_BAD_PROPERTY.error(
                detail="Properties 's3.access_key' and 's3.secret_key' must be given together"
            )
        _ttl(properties)
        lance_fs.validate_shared_filesystem(properties)

    def __init__(self, name: str, properties: dict[str, str]):
        super().__init__(name, properties)
        self.warehouse = lance_fs.parse_warehouse(properties["warehouse"])
        self._options = (
            lance_fs.lance_storage_options(properties) if self.warehouse.scheme == "s3" else {}
        )
        self._ttl = _ttl(properties)
        self._fs: pafs.FileSystem | None = None
        self._lock = threading.Lock()
        # ("dbs",) | ("tables", db) | ("ds", db, table)
        self._cache = MetadataCache(self._ttl)
        self._latest: dict[tuple[str, str], lance.LanceDataset] = {}  # latest_snapshot()

    # -- errors -----------------------------------------------------------------------------------
    @contextmanager
    def _typed_errors(self) -> Iterator[None]:
        """Any library exception leaves as CATALOG_ACCESS_FAILED, first line only, secrets masked.

        Index jobs call this connector directly (not through Metadata's guard), so it guards itself.
        """
        try:
            yield
        except DrydockError:
            raise
        except Exception as exc:  # noqa: BLE001 - converted, never swallowed
            detail = redact_text(exception_text(exc), self.secrets())
            raise Errors.CATALOG_ACCESS_FAILED.error(name=self.name, detail=detail) from None

    def _missing_table(self, db: str, table: str) -> DrydockError:
        return Errors.UNKNOWN_EXTERNAL_TABLE.error(table=f"{db}.{table}", catalog=self.name)

    def _filesystem(self) -> pafs.FileSystem:
        if self._fs is None:
            self._fs = lance_fs.filesystem(self.warehouse, self.properties)
        return self._fs

    # -- locations (also used by index jobs)
    # --------------------------------------------------------
    def dataset_uri(self, db: str, table: str) -> str:
        """Normalized URI of ``db.table``: an absolute local path or ``s3://bucket/key``, no
        trailing /."""
        if not (lance_fs.safe_name(db) and lance_fs.safe_name(table)):
            raise self._missing_table(db, table)
        return self.warehouse.uri(db, table + lance_fs.TABLE_SUFFIX)

    def storage_options(self) -> dict[str, str]:
        """Lance ``storage_options`` for this catalog (a copy; contains the secret, never log
        it)."""
        return dict(self._options)

    # -- listings
    # -----------------------------------------------------------------------------------
    def _cached(self, key: tuple[str, ...], load: Callable[[], T]) -> T:
        return self._cache.get(key, load)

    def list_databases(self) -> list[str]:
        return list(self._cached(("dbs",), self._load_databases))

    def prefetch_databases(self) -> None:
        self._cache.prefetch(("dbs",), self._load_databases)

    def _load_databases(self) -> list[str]:
        with self._typed_errors():
            names = lance_fs.list_dirs(self._filesystem(), self.warehouse.fs_path())
        if names is None:
            if self.warehouse.scheme == "file":  # a typo in a local path must not look like "empty"
                raise Errors.CATALOG_ACCESS_FAILED.error(
                    name=self.name, detail=f"warehouse '{self.warehouse.uri()}' does not exist"
                )
            names = []  # S3: an empty warehouse has no key under its prefix yet
        return [
            n
            for n in names
            if lance_fs.safe_name(n)
            and not n.endswith(lance_fs.TABLE_SUFFIX)
            and n.lower() not in RESERVED_DATABASES
        ]

    def list_tables(self, db: str) -> list[str]:
        if db not in self.list_databases():
            raise Errors.UNKNOWN_EXTERNAL_DATABASE.error(db=db, catalog=self.name)
        return list(self._cached(("tables", db), lambda: self._load_tables(db)))

    def _load_tables(self, db: str) -> list[str]:
        with self._typed_errors():
            names = lance_fs.list_dirs(self._filesystem(), self.warehouse.fs_path(db))
        if names is None:  # dropped since the database listing was cached
            raise Errors.UNKNOWN_EXTERNAL_DATABASE.error(db=db, catalog=self.name)
        suffix = lance_fs.TABLE_SUFFIX
        tables = [n[: -len(suffix)] for n in names if n.endswith(suffix) and len(n) > len(suffix)]
        return [t for t in tables if lance_fs.safe_name(t)]

    def table_exists(self, db: str, table: str) -> bool:
        return db in self.list_databases() and table in self.list_tables(db)

    # -- datasets
    # -----------------------------------------------------------------------------------
    def _open(self, db: str, table: str) -> lance.LanceDataset:
        uri = self.dataset_uri(db, table)
        try:
            with self._typed_errors():
                return lance.dataset(
                    uri, storage_options=self._options or None, session=lance_session.session()
                )
        except DrydockError:
            # Tell "not there" from "unreachable" by looking, never by parsing the library's text.
            versions = self.warehouse.fs_path(db, table + lance_fs.TABLE_SUFFIX, "_versions")
            with self._typed_errors():
                if not lance_fs.is_dir(self._filesystem(), self.warehouse.fs_path(db)):
                    raise Errors.UNKNOWN_EXTERNAL_DATABASE.error(db=db, catalog=self.name) from None
                present = lance_fs.is_dir(self._filesystem(), versions)
            if not present:
                raise self._missing_table(db, table) from None
            raise

    def _pinned(self, db: str, table: str) -> tuple[lance.LanceDataset, Any]:
        """(dataset, what DuckDB scans) of ``db.table``, cached: pinned at the version first
        opened until REFRESH or the TTL."""
        if table not in self.list_tables(
            db
        ):  # list_tables: UNKNOWN_EXTERNAL_DATABASE for a missing db
            raise self._missing_table(db, table)

        def load() -> tuple[lance.LanceDataset, Any]:
            ds = self._open(db, table)
            return ds, for_duckdb(ds)

        return self._cached(("ds", db, table), load)

    def _dataset(self, db: str, table: str) -> lance.LanceDataset:
        return self._pinned(db, table)[0]

    def open_latest(self, db: str, table: str) -> lance.LanceDataset:
        """An authoritative read of the latest version: no cache, no listing (procedures)."""
        return self._open(db, table)

    def latest_snapshot(self, db: str, table: str) -> lance.LanceDataset:
        """The latest version, as authoritative as :meth:`open_latest`, for reading only (index
        job admission: schema, indexes, row count). A version's manifest never changes, so the
        dataset opened last time is reused while the store's latest version (the same resolution
        an open does, without reading and decoding the manifest: ~10 µs instead of ~150 µs and
        more) is still its version; otherwise it is opened afresh. The object is shared between
        threads: never write through it (procedures use open_latest)."""
        key = (db, table)
        with self._lock:
            cached = self._latest.get(key)
        if cached is not None:
            try:
                with self._typed_errors():
                    current = cached.latest_version
            except DrydockError:
                current = None  # gone or unreachable: the open below says which, typed
            if current == cached.version:
                return cached
        dataset = self._open(db, table)
        with self._lock:
            if len(self._latest) >= MAX_LATEST_SNAPSHOTS and key not in self._latest:
                self._latest.clear()
            self._latest[key] = dataset
        return dataset

    def columns(self, db: str, table: str) -> list[Column]:
        schema = self._dataset(db, table).schema
        out = []
        for f in schema:
            desc, mysql_type = arrow_type(f.type)
            comment = (f.metadata or {}).get(b"comment", b"").decode("utf-8", "replace")
            out.append(Column(f.name, desc, f.nullable, comment, mysql_type))
        return out

    def scan(self, db: str, table: str, travel: TimeTravel | None = None) -> Any:
        ds, view = self._pinned(db, table)
        if travel is None:
            return view
        with self._typed_errors():
            return for_duckdb(self._travel(ds, db, table, travel))

    def system_scan(
        self, db: str, table: str, suffix: str, travel: TimeTravel | None = None
    ) -> Any:
        """``table$versions`` / ``$tags`` / ``$indices`` (engine/lakehouse/catalogs/lance_system.py)
        of the
        pinned dataset; they describe the table now, so time travel is refused."""
        build = lance_system.BUILDERS.get(suffix)
        if build is None:
            return super().system_scan(db, table, suffix, travel)
        if travel is not None:
            raise Errors.TIME_TRAVEL_INVALID.error(
                detail=f"System table {db}.{table}${suffix} describes the table now: "
                "FOR VERSION/TIME AS OF and @tag are not supported on it"
            )
        ds = self._dataset(db, table)
        with self._typed_errors():
            return build(ds)

    def _travel(
        self, ds: lance.LanceDataset, db: str, table: str, travel: TimeTravel
    ) -> lance.LanceDataset:
        """Check out the version a time travel clause names; a missing one is a typed error."""
        name = f"{db}.{table}"
        if travel.tag is not None:
            # The listing races concurrent tag deletes (lance_system.list_refs re-reads it), and
            # the tag is checked out by the version it names, not by re-reading its file: a tag
            # deleted right after the listing still reads the version it named then.
            tag = lance_system.list_refs(ds.tags).get(travel.tag)
            if tag is None:
                raise Errors.UNKNOWN_TABLE_TAG.error(tag=travel.tag, table=name, catalog=self.name)
            branch, version = tag.get("branch"), int(tag["version"])
            return ds.checkout_version(version if branch is None else (branch, version))
        versions = ds.versions()
        if travel.version is not None:
            if travel.version not in {v["version"] for v in versions}:
                raise Errors.UNKNOWN_TABLE_VERSION.error(
                    version=travel.version, table=name, catalog=self.name
                )
            return ds.checkout_version(travel.version)
        assert travel.timestamp is not None
        cutoff = parse_timestamp(travel.timestamp)
        # versions() gives naive local times (datetime.fromtimestamp); astimezone() reads them so.
        eligible = [
            v["version"]
            for v in versions
            if cast(dt.datetime, v["timestamp"]).astimezone() <= cutoff
        ]
        if not eligible:
            raise Errors.TABLE_NO_VERSION_AT_TIME.error(
                table=name, catalog=self.name, timestamp=travel.timestamp
            )
        return ds.checkout_version(max(eligible))

    def indexes(self, db: str, table: str) -> list[IndexRow]:
        ds = self._dataset(db, table)
        rows = []
        with self._typed_errors():
            for index in ds.describe_indices():  # one per name; delta segments share it
                stats = ds.stats.index_stats(index.name)
                rows.append(
                    IndexRow(
                        name=index.name,
                        type=str(index.index_type),
                        column=",".join(index.field_names),
                        uuid=",".join(str(s.uuid) for s in index.segments),
                        indexed_rows=int(stats["num_indexed_rows"]),
                        unindexed_rows=int(stats["num_unindexed_rows"]),
                    )
                )
        return sorted(rows, key=lambda r: r.name)

    # -- cache
    # --------------------------------------------------------------------------------------
    def attach(self, calls: CatalogCalls) -> None:
        self._cache.attach(self.name, calls)

    def refresh(self, db: str | None = None, table: str | None = None) -> None:
        self._cache.invalidate(db, table)
        with self._lock:
            for key in [
                k for k in self._latest if db is None or (k[0] == db and table in (None, k[1]))
            ]:
                del self._latest[key]

    def close(self) -> None:
        self.refresh()


def _ttl(properties: dict[str, str]) -> float:
    raw = properties.get("meta.cache.ttl-second")
    if raw is None:
        return DEFAULT_CACHE_TTL_SECONDS
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value >= 0:  # also rejects nan
        raise Errors.CATALOG_BAD_PROPERTY.error(
            detail=f"'meta.cache.ttl-second' must be a number of seconds >= 0, got '{raw}'"
        )
    return value


def parse_timestamp(text: str) -> dt.datetime:
    """``FOR TIME AS OF`` value → an aware datetime. Naive times are the server's local time (as
    Lance's ``versions()`` shows them); digits alone are epoch milliseconds (Doris accepts both)."""
    try:
        return parse_instant(text)
    except BadInstant as exc:
        raise Errors.TIME_TRAVEL_INVALID.error(
            detail=f"Invalid timestamp {shown(text)} in FOR TIME AS OF: it {exc}"
        ) from None
