"""Durable catalog records (metadata store) and their live connectors.

Catalog DDL changes one row in one transaction; the cached connector of a catalog is dropped on
ALTER, DROP and REFRESH so that no statement after them sees stale metadata.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from drydock.engine.session import INTERNAL
from drydock.engine.lakehouse.catalogs.base import Connector
from drydock.engine.errors import Errors
from drydock.engine.store.metastore import MetadataStore, StoreConnection

if (
    TYPE_CHECKING
):  # the connector modules import pylance/pypaimon: only the type checker reads them here
    from drydock.engine.lakehouse.catalogs.calls import CatalogCalls
    from drydock.engine.lakehouse.catalogs.lance import LanceConnector

INTERNAL_ID = 0
# Doris' catalog types for a Hive Metastore ('hms'; 'hive' in Paimon's and Iceberg's words)
HMS_TYPES = ("hms", "hive")
MAX_CACHED_NAMES = 1024  # spellings remembered by find(); past that the cache starts afresh


# A statement's last word before a change is written: raise to refuse (placement, privileges).
CreateCheck = Callable[[dict[str, str]], None]
ChangeCheck = Callable[["CatalogRecord", dict[str, str]], None]


@dataclass(frozen=True)
class CatalogRecord:
    id: int
    name: str
    type: str
    properties: dict[str, str]
    comment: str
    created_at: float
    updated_at: float
    revision: int


_CONNECTOR_MODULES = (
    ("drydock.engine.lakehouse.catalogs.lance", "LanceConnector"),
    ("drydock.engine.lakehouse.catalogs.paimon", "PaimonConnector"),
)


def connector_types() -> dict[str, type[Connector]]:
    """Catalog type name → connector class (imported lazily: pylance/pypaimon are heavy).

    Each module is imported on its own so that a connector that is absent (not built yet) leaves
    the others usable; its type is then reported as unknown by CREATE CATALOG.
    """
    import importlib

    types: dict[str, type[Connector]] = {}
    for module_name, class_name in _CONNECTOR_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:  # a missing dependency inside it is a real error
                raise
            continue
        cls = getattr(module, class_name)
        types[cls.TYPE] = cls
    return types


class CatalogManager:
    def __init__(self, store: MetadataStore, calls: CatalogCalls | None = None):
        self._store = store
        # remote metadata loads of every connector built here (engine/lakehouse/catalogs/calls.py)
        self._calls = calls
        self._lock = threading.Lock()
        self._connectors: dict[int, Connector] = {}
        # find() answers per catalog DDL generation: every statement naming a catalog looks it up
        # (an admission did 4 SQLite reads for it). Only this class writes the table, and every
        # write bumps the generation after its transaction ends; a reader stores its answer only
        # if no write ended while it read. Misses are not remembered (unbounded names).
        self._found: dict[str, CatalogRecord] = {}
        self._generation = 0
        # Hooks other subsystems install (index jobs): raise to veto a drop / a target change.
        self.before_drop: list[Callable[[CatalogRecord], None]] = []
        self.before_retarget: list[Callable[[CatalogRecord, dict[str, str]], None]] = []
        # Hooks that move state keyed by the catalog (grants) in the DDL's own transaction:
        # (transaction, record, new name — None when the catalog is dropped); then after commit.
        self.in_transaction: list[Callable[[StoreConnection, CatalogRecord, str | None], None]] = []
        self.after_commit: list[Callable[[], None]] = []

    # -- records ----------------------------------------------------------------------------------
    @staticmethod
    def _record(row: object) -> CatalogRecord:
        r: dict = dict(row)  # type: ignore[call-overload]
        return CatalogRecord(
            id=r["id"],
            name=r["name"],
            type=r["type"],
            properties=json.loads(r["properties"]),
            comment=r["comment"],
            created_at=r["created_at"],
            updated_at=r["updated_at"],
            revision=r["revision"],
        )

    def list(self) -> list[CatalogRecord]:
        return [self._record(r) for r in self._store.query("SELECT * FROM catalogs ORDER BY id")]

    def find(self, name: str) -> CatalogRecord | None:
        """The catalog ``name`` (case-insensitive). Records are shared: never change one."""
        with self._lock:
            found, generation = self._found.get(name), self._generation
        if found is not None:
            return found
        row = self._store.query_one("SELECT * FROM catalogs WHERE lower(name) = lower(?)", (name,))
        record = self._record(row) if row else None
        if record is not None:
            with self._lock:
                if generation == self._generation:
                    if len(self._found) >= MAX_CACHED_NAMES:
                        self._found.clear()
                    self._found[name] = record
        return record

    @contextmanager
    def _writing(self) -> Iterator[StoreConnection]:
        """A catalog DDL transaction; whatever its outcome, find() forgets what it knew after it."""
        try:
            with self._store.transaction() as db:
                yield db
        finally:
            with self._lock:
                self._generation += 1
                self._found.clear()

    def reload(self) -> None:
        """Another frontend changed a catalog: every name is looked up afresh (connectors are
        checked against the record they were built from, so they follow by themselves)."""
        with self._lock:
            self._generation += 1
            self._found.clear()

    def by_id(self, catalog_id: int) -> CatalogRecord | None:
        row = self._store.query_one("SELECT * FROM catalogs WHERE id = ?", (catalog_id,))
        return self._record(row) if row else None

    def get(self, name: str) -> CatalogRecord:
        record = self.find(name)
        if record is None:
            raise Errors.UNKNOWN_CATALOG.error(name=name)
        return record

    def exists(self, name: str) -> bool:
        return name.lower() == INTERNAL or self.find(name) is not None

    # -- DDL --------------------------------------------------------------------------------------
    @staticmethod
    def _connector_class(properties: dict[str, str]) -> type[Connector]:
        kind = properties.get("type", "").lower()
        if not kind:
            raise Errors.CATALOG_BAD_PROPERTY.error(detail="Missing required property 'type'")
        types = connector_types()
        if kind in HMS_TYPES and kind not in types:
            raise Errors.CATALOG_BAD_PROPERTY.error(
                detail=f"Catalog type '{kind}' is not supported: there is no Hive Metastore client "
                f"here (no "
                "Thrift metastore client is installed, and pypaimon has no Hive catalog). "
                "Supported "
                f"types: {', '.join(sorted(types))}; a Paimon warehouse is read directly with "
                "'type' = 'paimon', 'warehouse' = '<local path or s3://…>'"
            )
        if kind not in types:
            raise Errors.CATALOG_BAD_PROPERTY.error(
                detail=f"Unknown catalog type '{kind}'; supported: {', '.join(sorted(types))}"
            )
        return types[kind]

    @staticmethod
    def normalize_keys(properties: dict[str, str]) -> dict[str, str]:
        """Keys as stored: stripped, ``type`` in lower case."""
        return {
            k.strip().lower() if k.strip().lower() == "type" else k.strip(): v
            for k, v in properties.items()
        }

    def create(
        self,
        name: str,
        properties: dict[str, str],
        comment: str,
        if_not_exists: bool,
        check: CreateCheck | None = None,
    ) -> bool:
        if name.lower() == INTERNAL:
            raise Errors.CATALOG_EXISTS.error(name=name)
        properties = self.normalize_keys(properties)
        cls = self._connector_class(properties)
        properties["type"] = cls.TYPE
        cls.validate_properties(properties)
        if check is not None:
            check(properties)
        now = time.time()
        with self._writing() as db:
            if db.execute(
                "SELECT 1 FROM catalogs WHERE lower(name) = lower(?)", (name,)
            ).fetchone():
                if if_not_exists:
                    return False
                raise Errors.CATALOG_EXISTS.error(name=name)
            db.execute(
                "INSERT INTO catalogs(name, type, properties, comment, created_at, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (name, cls.TYPE, json.dumps(properties), comment, now, now),
            )
        return True

    def drop(self, name: str, if_exists: bool, check: ChangeCheck | None = None) -> bool:
        record = self.find(name)
        if record is None:
            if if_exists:
                return False
            raise Errors.UNKNOWN_CATALOG.error(name=name)
        if check is not None:
            check(record, record.properties)
        for hook in self.before_drop:
            hook(record)
        with self._writing() as db:
            # a real column to set: compare_and_set builds "SET <changes>, revision = ..."
            self._store.compare_and_set(
                db, "catalogs", {"id": record.id}, record.revision, {"updated_at": time.time()}
            )
            db.execute("DELETE FROM catalogs WHERE id = ?", (record.id,))
            self._follow(db, record, None)
        self._committed(record.id)
        return True

    def rename(self, name: str, new_name: str, check: ChangeCheck | None = None) -> None:
        record = self.get(name)
        if self.exists(new_name):
            raise Errors.CATALOG_EXISTS.error(name=new_name)
        if check is not None:
            check(record, record.properties)
        with self._writing() as db:
            self._store.compare_and_set(
                db,
                "catalogs",
                {"id": record.id},
                record.revision,
                {"name": new_name, "updated_at": time.time()},
            )
            self._follow(db, record, new_name)
        self._committed(record.id)

    def set_properties(
        self, name: str, changes: dict[str, str], check: ChangeCheck | None = None
    ) -> None:
        record = self.get(name)
        merged = {**record.properties, **{k.strip(): v for k, v in changes.items()}}
        if merged.get("type", "").lower() != record.type:
            raise Errors.CATALOG_BAD_PROPERTY.error(
                detail="The type of a catalog cannot be changed"
            )
        cls = self._connector_class(merged)
        cls.validate_properties(merged)
        if check is not None:
            check(record, merged)
        for hook in self.before_retarget:
            hook(record, merged)
        with self._writing() as db:
            self._store.compare_and_set(
                db,
                "catalogs",
                {"id": record.id},
                record.revision,
                {"properties": json.dumps(merged), "updated_at": time.time()},
            )
        self._forget(record.id)

    def _follow(self, db: StoreConnection, record: CatalogRecord, new_name: str | None) -> None:
        for hook in self.in_transaction:
            hook(db, record, new_name)

    def _committed(self, catalog_id: int) -> None:
        self._forget(catalog_id)
        for hook in self.after_commit:
            hook()

    # -- connectors
    # ---------------------------------------------------------------------------------
    def connector(self, name: str) -> Connector:
        record = self.get(name)
        with self._lock:
            cached = self._connectors.get(record.id)
            if (
                cached is not None
                and cached.name == record.name
                and cached.properties == record.properties
            ):
                return cached
        connector = self._connector_class(record.properties)(record.name, record.properties)
        if self._calls is not None:
            connector.attach(self._calls)
        with self._lock:
            self._connectors[record.id] = connector
        return connector

    def lance_connector(self, name: str) -> LanceConnector:
        """The connector of a catalog its caller already knows to be Lance (index jobs only exist
        there)."""
        connector = self.connector(name)
        if not hasattr(connector, "dataset_uri"):
            raise Errors.INTERNAL.error(detail=f"catalog '{name}' is not a Lance catalog")
        return cast("LanceConnector", connector)

    def refresh(self, name: str, db: str | None = None, table: str | None = None) -> None:
        record = self.get(name)
        with self._lock:
            cached = self._connectors.get(record.id)
        if cached is None:
            return
        if db is None:
            self._forget(record.id)
        else:
            cached.refresh(db, table)

    def _forget(self, catalog_id: int) -> None:
        with self._lock:
            connector = self._connectors.pop(catalog_id, None)
        if connector is not None:
            connector.close()
