"""Apache Paimon catalogs through pypaimon: a warehouse (local or S3) whose table list lives in the
warehouse itself, a Paimon REST catalog service or a JDBC database (paimon_metastores.py).

Tables are read with pypaimon (read builder → Arrow) and executed by DuckDB. Every read is pinned
to one snapshot, so one statement sees one consistent version of each table even while external
writers commit. Metadata (database and table lists, table schemas, the latest snapshot of each
table) is cached per connector for ``meta.cache.ttl-second`` and dropped by REFRESH.
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlparse

from drydock.engine.lakehouse.catalogs import paimon_metastores as metastores
from drydock.engine.lakehouse.catalogs.base import Column, Connector, TimeTravel
from drydock.engine.lakehouse.catalogs.cache import MetadataCache
from drydock.engine.errors import Errors
from drydock.engine.support.instants import BadInstant, instant_millis
from drydock.engine.support.names import shown

if TYPE_CHECKING:
    from drydock.engine.lakehouse.catalogs.calls import CatalogCalls

T = TypeVar("T")

# pypaimon logs every scan plan at INFO ("File store scan plan completed ..."): one line per table
# reference of every statement would drown the server log. Its warnings and errors still show.
logging.getLogger("pypaimon").setLevel(logging.WARNING)

# drydock's S3 property → pypaimon's option (pypaimon/filesystem/pyarrow_file_io.py reads these).
_S3_OPTIONS = {
    "s3.endpoint": "s3.endpoint",
    "s3.access_key": "s3.access-key",
    "s3.secret_key": "s3.secret-key",
    "s3.session_token": "s3.session-token",
    "s3.region": "s3.region",
    "use_path_style": "s3.path.style.access",
}
_LOCAL_SCHEMES = ("", "file")
_S3_SCHEMES = ("s3", "s3a")
DEFAULT_CACHE_TTL_SECONDS = 60.0

# Paimon atomic type (without parameters) → (DESC type, information_schema DATA_TYPE).
_ATOMIC = {
    "BOOLEAN": ("BOOLEAN", "tinyint"),
    "TINYINT": ("TINYINT", "tinyint"),
    "SMALLINT": ("SMALLINT", "smallint"),
    "INT": ("INT", "int"),
    "INTEGER": ("INT", "int"),
    "BIGINT": ("BIGINT", "bigint"),
    "FLOAT": ("FLOAT", "float"),
    "DOUBLE": ("DOUBLE", "double"),
    "DATE": ("DATE", "date"),
    "STRING": ("TEXT", "text"),
    "BYTES": ("BLOB", "blob"),
    "BLOB": ("BLOB", "blob"),
    "VARIANT": ("JSON", "json"),
}
# Parameterised types keep their parameters: VARCHAR(10), DECIMAL(10, 2), TIMESTAMP(3) ...
_PARAMETERISED = {
    "VARCHAR": ("VARCHAR", "varchar"),
    "CHAR": ("CHAR", "char"),
    "BINARY": ("BINARY", "binary"),
    "VARBINARY": ("VARBINARY", "varbinary"),
    "DECIMAL": ("DECIMAL", "decimal"),
    "TIME": ("TIME", "time"),
    "TIMESTAMP": ("DATETIME", "datetime"),
    "TIMESTAMP_LTZ": ("TIMESTAMP", "timestamp"),
}


def _type_name(paimon_type: Any) -> tuple[str, str]:
    """A pypaimon DataType → (MySQL-ish DESC name, information_schema DATA_TYPE)."""
    from pypaimon.schema.data_types import ArrayType, AtomicType, MapType, MultisetType, RowType

    if isinstance(paimon_type, ArrayType):
        return f"ARRAY<{_type_name(paimon_type.element)[0]}>", "json"
    if isinstance(paimon_type, MultisetType):
        return f"MAP<{_type_name(paimon_type.element)[0]},INT>", "json"
    if isinstance(paimon_type, MapType):
        return f"MAP<{_type_name(paimon_type.key)[0]},{_type_name(paimon_type.value)[0]}>", "json"
    if isinstance(paimon_type, RowType):
        inner = ",".join(f"{f.name}:{_type_name(f.type)[0]}" for f in paimon_type.fields)
        return f"STRUCT<{inner}>", "json"
    if isinstance(paimon_type, AtomicType):
        name = paimon_type.type.upper()
        if "WITH LOCAL TIME ZONE" in name:  # TIMESTAMP(p) WITH LOCAL TIME ZONE = TIMESTAMP_LTZ(p)
            name = "TIMESTAMP_LTZ" + name.removeprefix("TIMESTAMP").replace(
                " WITH LOCAL TIME ZONE", ""
            )
        if name in _ATOMIC:
            return _ATOMIC[name]
        base, _, params = name.partition("(")
        if base in _PARAMETERISED:
            shown, data_type = _PARAMETERISED[base]
            return (f"{shown}({params.replace(' ', '')}" if params else shown), data_type
        return name, "text"
    return str(paimon_type).removesuffix(
        " NOT NULL"
    ), "text"  # vector types etc.: shown as Paimon says


def _bool(value: str) -> bool | None:
    """The boolean spellings the Lance catalog accepts too, so both catalog types agree."""
    text = value.strip().lower()
    return (
        True
        if text in ("true", "1", "yes", "on")
        else False
        if text in ("false", "0", "no", "off")
        else None
    )


class PaimonConnector(Connector):
    TYPE = "paimon"
    REQUIRED = ("warehouse",)
    OPTIONAL = (
        *metastores.METASTORE_KEYS,
        "meta.cache.ttl-second",
        *_S3_OPTIONS,
        *dict.fromkeys(metastores.REST_KEYS + metastores.JDBC_KEYS),
    )

    @classmethod
    def validate_properties(cls, properties: dict[str, str]) -> None:
        # The metastore first: for HMS, 'hive.metastore.uris' is not the problem to report.
        kind = metastores.metastore_of(properties)
        super().validate_properties(properties)
        metastores.validate(kind, properties)
        if kind != "rest":  # a REST warehouse is the service's name for it, not a path
            cls._validate_warehouse_path(properties["warehouse"].strip())
        cls._validate_options(properties)

    @staticmethod
    def _validate_warehouse_path(warehouse: str) -> None:
        parsed = urlparse(warehouse)
        scheme = parsed.scheme.lower()
        if scheme in _LOCAL_SCHEMES:
            path = parsed.path if scheme else warehouse
            # Relative to what? The server's cwd is no answer. file://host/x names another host.
            if not path.startswith("/") or parsed.netloc not in ("", "localhost"):
                raise Errors.CATALOG_BAD_PROPERTY.error(
                    detail=f"'warehouse' must be an absolute local path, file:// or s3:// URI: "
                    f"'{warehouse}'"
                )
        elif scheme in _S3_SCHEMES:
            if not parsed.netloc:
                raise Errors.CATALOG_BAD_PROPERTY.error(
                    detail=f"'warehouse' names no bucket: '{warehouse}'"
                )
        else:
            raise Errors.CATALOG_BAD_PROPERTY.error(
                detail=f"Unsupported 'warehouse' scheme '{scheme}'; use a local path, file:// or "
                f"s3://"
            )

    @staticmethod
    def _validate_options(properties: dict[str, str]) -> None:
        if "use_path_style" in properties and _bool(properties["use_path_style"]) is None:
            raise Errors.CATALOG_BAD_PROPERTY.error(detail="'use_path_style' must be true or false")
        ttl = properties.get("meta.cache.ttl-second")
        if ttl is not None:
            try:
                if not math.isfinite(float(ttl)) or float(ttl) < 0:
                    raise ValueError
            except ValueError:
                raise Errors.CATALOG_BAD_PROPERTY.error(
                    detail="'meta.cache.ttl-second' must be a number of seconds >= 0"
                ) from None

    def __init__(self, name: str, properties: dict[str, str]):
        super().__init__(name, properties)
        self.metastore = metastores.metastore_of(properties)
        self._ttl = float(properties.get("meta.cache.ttl-second", DEFAULT_CACHE_TTL_SECONDS))
        self._lock = threading.RLock()
        self._catalog: Any = None
        # ("dbs",) | ("tables", db) | ("table", db, t) | ("snapshot", db, t)
        self._cache = MetadataCache(self._ttl)

    # -- for the procedures subsystem -----------------------------------------------------------
    def warehouse_path(self) -> str:
        """The warehouse as pypaimon opens it: an absolute local path or an s3:// URI."""
        warehouse = self.properties["warehouse"].strip()
        parsed = urlparse(warehouse)
        path = parsed.path if parsed.scheme.lower() == "file" else warehouse
        return path.rstrip("/") or "/"

    def filesystem_options(self) -> dict[str, str]:
        """pypaimon catalog options: the warehouse plus S3 settings under pypaimon's names."""
        options = {"warehouse": self.warehouse_path()}
        for ours, theirs in _S3_OPTIONS.items():
            if self.properties.get(ours):
                options[theirs] = self.properties[ours].strip()
        if "s3.path.style.access" in options:
            options["s3.path.style.access"] = str(_bool(options["s3.path.style.access"])).lower()
        return options

    def catalog_options(self) -> dict[str, str]:
        """pypaimon's catalog options: the warehouse and S3 settings (the table files' store, for
        every metastore) and the metastore's own options (a REST warehouse is a name)."""
        options = self.filesystem_options()
        if self.metastore == "rest":
            del options["warehouse"]
        return options | metastores.pypaimon_options(self.metastore, self.properties)

    def catalog(self) -> Any:
        """The pypaimon catalog (built once per connector; REFRESH CATALOG builds a new connector).

        Built outside the lock: building it may reach the warehouse's endpoint, which may hang,
        and close() (REFRESH, ALTER, DROP) must never wait for that. Two threads building it at
        once both succeed; the first one kept wins."""
        with self._lock:
            if self._catalog is not None:
                return self._catalog
        from pypaimon import CatalogFactory

        with metastores.service_errors(self.name, self.properties):
            built = CatalogFactory.create(self.catalog_options())
        with self._lock:
            if self._catalog is None:
                self._catalog = built
            return self._catalog

    def table(self, db: str, name: str) -> Any:
        """The pypaimon FileStoreTable (cached schema; raise UNKNOWN_EXTERNAL_* when missing)."""
        if not self.table_exists(db, name):
            if db not in self.list_databases():
                raise Errors.UNKNOWN_EXTERNAL_DATABASE.error(db=db, catalog=self.name)
            raise Errors.UNKNOWN_EXTERNAL_TABLE.error(table=f"{db}.{name}", catalog=self.name)
        return self._cached(("table", db, name), lambda: self.catalog().get_table(f"{db}.{name}"))

    # -- cache ------------------------------------------------------------------------------------
    def _cached(self, key: tuple[str, ...], load: Callable[[], T]) -> T:
        def service_load() -> T:
            with metastores.service_errors(self.name, self.properties):
                return load()

        return self._cache.get(key, service_load)

    def attach(self, calls: CatalogCalls) -> None:
        self._cache.attach(self.name, calls)

    def refresh(self, db: str | None = None, table: str | None = None) -> None:
        self._cache.invalidate(db, table)

    # -- metadata ---------------------------------------------------------------------------------
    def list_databases(self) -> list[str]:
        return list(self._cached(("dbs",), self._load_databases))

    def prefetch_databases(self) -> None:
        self._cache.prefetch(("dbs",), self._load_databases)

    def _load_databases(self) -> list[str]:
        return sorted(self.catalog().list_databases())

    def list_tables(self, db: str) -> list[str]:
        from pypaimon.catalog.catalog_exception import DatabaseNotExistException

        def load() -> list[str]:
            try:
                return sorted(self.catalog().list_tables(db))
            except DatabaseNotExistException:
                raise Errors.UNKNOWN_EXTERNAL_DATABASE.error(db=db, catalog=self.name) from None

        return list(self._cached(("tables", db), load))

    def table_exists(self, db: str, table: str) -> bool:
        return db in self.list_databases() and table in self.list_tables(db)

    def columns(self, db: str, table: str) -> list[Column]:
        paimon_table = self.table(db, table)
        keys = set(paimon_table.primary_keys or [])
        columns = []
        for field in paimon_table.fields:
            shown, data_type = _type_name(field.type)
            columns.append(
                Column(
                    name=field.name,
                    type=shown,
                    nullable=bool(field.type.nullable),
                    comment=field.description or "",
                    mysql_type=data_type,
                    key="PRI" if field.name in keys else "",
                )
            )
        return columns

    # -- reads ------------------------------------------------------------------------------------
    def scan(self, db: str, table: str, travel: TimeTravel | None = None) -> Any:
        """The rows of one snapshot as a pyarrow Dataset or Table (DuckDB may scan it more than
        once, so never a one-shot stream)."""
        base = self.table(db, table)
        if travel is not None and travel.tag is not None:
            pinned = self._at_tag(base, db, table, travel.tag)
        else:
            snapshot_id = self._snapshot_id(base, db, table, travel)
            # No snapshot yet: an empty table; its read yields the schema with no rows.
            pinned = (
                base if snapshot_id is None else base.copy({"scan.snapshot-id": str(snapshot_id)})
            )
        return _read(pinned)

    def system_scan(
        self, db: str, table: str, suffix: str, travel: TimeTravel | None = None
    ) -> Any:
        """``table$snapshots`` & co. (engine/lakehouse/catalogs/paimon_system.py) or
        ``table$branch_<b>``:
        a branch is read like the table itself, pinned to one of its snapshots (time travel
        included); a system table always describes the table now."""
        from drydock.engine.lakehouse.catalogs import paimon_system

        branch, system = paimon_system.parse_suffix(suffix)
        if branch is None and system is None:
            return super().system_scan(db, table, suffix, travel)
        base = self.table(db, table)
        if branch is not None:
            paimon_system.require_branch(base, branch, db, table, self.name)
        if system is not None:
            if travel is not None:
                raise paimon_system.no_time_travel(db, table, suffix)
            return paimon_system.read_system_table(self.catalog(), db, table, suffix)
        on_branch = self.catalog().get_table(f"{db}.{table}$branch_{branch}")
        shown_name = f"{table}$branch_{branch}"
        if travel is not None and travel.tag is not None:
            return _read(self._at_tag(on_branch, db, shown_name, travel.tag))
        # never cached: REFRESH TABLE t could not name this key
        snapshot_id = (
            _snapshot_of(on_branch.snapshot_manager().get_latest_snapshot())
            if travel is None
            else self._snapshot_id(on_branch, db, shown_name, travel)
        )
        return _read(
            on_branch
            if snapshot_id is None
            else on_branch.copy({"scan.snapshot-id": str(snapshot_id)})
        )

    def _snapshot_id(self, base: Any, db: str, table: str, travel: TimeTravel | None) -> int | None:
        manager = base.snapshot_manager()
        if travel is None:  # the latest snapshot, cached so a statement burst shares one version
            return self._cached(
                ("snapshot", db, table), lambda: _snapshot_of(manager.get_latest_snapshot())
            )
        if travel.version is not None:
            latest = manager.get_latest_snapshot()
            try:
                exists = (
                    latest is not None and manager.get_snapshot_by_id(travel.version) is not None
                )
            except FileNotFoundError:
                exists = False
            if not exists:
                raise Errors.TIME_TRAVEL_INVALID.error(
                    detail=f"Snapshot {travel.version} doesn't exist in table {db}.{table} of "
                    f"catalog "
                    f"'{self.name}'"
                    + (
                        f" (latest snapshot: {latest.id})"
                        if latest
                        else " (the table has no snapshots)"
                    )
                )
            return travel.version
        millis = _epoch_millis(travel.timestamp or "")
        found = manager.earlier_or_equal_time_mills(millis)
        if found is None:
            raise Errors.TIME_TRAVEL_INVALID.error(
                detail=f"No snapshot of table {db}.{table} in catalog '{self.name}' at or before "
                f"'{travel.timestamp}'"
            )
        return int(found.id)

    def _at_tag(self, base: Any, db: str, table: str, tag: str) -> Any:
        if not base.tag_manager().tag_exists(tag):
            raise Errors.TIME_TRAVEL_INVALID.error(
                detail=f"Tag '{tag}' doesn't exist in table {db}.{table} of catalog '{self.name}'"
            )
        return base.copy({"scan.tag-name": tag})

    def close(self) -> None:
        self._cache.invalidate()
        with self._lock:
            self._catalog = None


def _read(pinned: Any) -> Any:
    """The pinned snapshot's rows: streamed from its files when that is exact (append tables,
    engine/lakehouse/catalogs/paimon_scan.py), else read whole by pypaimon's reader (it merges)."""
    from drydock.engine.lakehouse.catalogs.paimon_scan import direct_dataset

    builder = pinned.new_read_builder()
    splits = builder.new_scan().plan().splits()
    direct = direct_dataset(pinned, splits)
    return direct if direct is not None else builder.new_read().to_arrow(splits)


def _snapshot_of(snapshot: Any) -> int | None:
    return None if snapshot is None else int(snapshot.id)


def _epoch_millis(text: str) -> int:
    """'YYYY-MM-DD[ HH:MM:SS[.ffffff]][+zone]' → epoch ms (Paimon stamps snapshots in epoch ms); a
    literal without a zone is read in the server's local time zone; all digits = epoch ms."""
    try:
        return instant_millis(text)
    except BadInstant as exc:
        raise Errors.TIME_TRAVEL_INVALID.error(
            detail=f"Invalid time travel timestamp {shown(text)}: it {exc}"
        ) from None
