"""What an external catalog type must provide (Lance, Paimon, ...).

A connector is built from a catalog's properties and answers metadata questions and scans.
It knows nothing of SQL text, sessions or privileges: the engine asks it for
databases, tables, columns and an Arrow object DuckDB can scan, pinned to one version.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from drydock.engine.errors import Errors

if TYPE_CHECKING:
    from drydock.engine.lakehouse.catalogs.calls import CatalogCalls

# Paimon's separator between a table and its system table or branch (``t$snapshots``,
# ``t$branch_b``); drydock uses it for Lance's metadata tables too (``t$versions``).
SYSTEM_SEPARATOR = "$"


def split_system_name(name: str) -> tuple[str, str]:
    """``t$snapshots`` → ("t", "snapshots"); a plain name → (name, "")."""
    base, _, suffix = name.partition(SYSTEM_SEPARATOR)
    return base, suffix


@dataclass(frozen=True)
class Column:
    name: str
    type: str  # as shown by DESC, e.g. INT, VARCHAR, ARRAY<FLOAT>(128)
    nullable: bool
    comment: str = ""
    mysql_type: str = "text"  # information_schema DATA_TYPE
    key: str = ""  # DESC Key column: PRI for a primary-key column


@dataclass(frozen=True)
class TimeTravel:
    """FOR VERSION AS OF n | FOR TIME AS OF 'ts' | @tag('name') (one of the three)."""

    version: int | None = None
    timestamp: str | None = None
    tag: str | None = None


@dataclass(frozen=True)
class IndexRow:
    name: str
    type: str
    column: str
    uuid: str
    indexed_rows: int
    unindexed_rows: int


class Connector(ABC):
    """One instance per catalog; cached by the catalog manager until REFRESH/ALTER/DROP."""

    TYPE: ClassVar[str]
    REQUIRED: ClassVar[tuple[str, ...]] = ()
    OPTIONAL: ClassVar[tuple[str, ...]] = ()

    def __init__(self, name: str, properties: dict[str, str]):
        self.name = name
        self.properties = properties

    @classmethod
    def validate_properties(cls, properties: dict[str, str]) -> None:
        """Unknown keys and missing required keys are errors (a typo must not be ignored)."""
        known = set(cls.REQUIRED) | set(cls.OPTIONAL) | {"type"}
        for key in properties:
            if key not in known:
                raise Errors.CATALOG_BAD_PROPERTY.error(
                    detail=f"Unknown property '{key}' for catalog type {cls.TYPE}; "
                    f"known: {', '.join(sorted(known))}"
                )
        for key in cls.REQUIRED:
            if not properties.get(key):
                raise Errors.CATALOG_BAD_PROPERTY.error(
                    detail=f"Missing required property '{key}' for catalog type {cls.TYPE}"
                )

    def secrets(self) -> list[str]:
        """Secret property values, scrubbed from any error text a library produces."""
        from drydock.engine.security.redact import secret_values

        return secret_values(self.properties)

    @abstractmethod
    def list_databases(self) -> list[str]: ...

    @abstractmethod
    def list_tables(self, db: str) -> list[str]: ...

    @abstractmethod
    def columns(self, db: str, table: str) -> list[Column]: ...

    @abstractmethod
    def scan(self, db: str, table: str, travel: TimeTravel | None = None) -> Any:
        """An Arrow object DuckDB can register (pyarrow Dataset/Table), pinned to one version."""

    def table_exists(self, db: str, table: str) -> bool:
        return db in self.list_databases() and table in self.list_tables(db)

    def system_scan(
        self, db: str, table: str, suffix: str, travel: TimeTravel | None = None
    ) -> Any:
        """The rows of ``table$suffix`` (a read-only metadata table or a branch) as Arrow; the
        caller has checked that ``table`` exists and may be read."""
        raise Errors.UNKNOWN_EXTERNAL_TABLE.error(
            table=f"{db}.{table}{SYSTEM_SEPARATOR}{suffix}", catalog=self.name
        )

    def indexes(self, db: str, table: str) -> list[IndexRow]:
        return []

    def attach(self, calls: CatalogCalls) -> None:
        """Run remote metadata loads through ``calls`` (bounded in time, off the statements pool;
        the catalog manager attaches every connector it builds). Unattached connectors (index job
        workers, tests) load in the calling thread."""

    def prefetch_databases(self) -> None:
        """Start listing the databases without waiting (attached connectors; see attach)."""

    def refresh(self, db: str | None = None, table: str | None = None) -> None:
        """Drop cached metadata (REFRESH CATALOG/DATABASE/TABLE)."""

    def close(self) -> None:
        pass
