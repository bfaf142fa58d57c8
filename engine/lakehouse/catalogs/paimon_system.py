"""Paimon system tables and branch reads: ``t$snapshots`` … ``t$consumers``, ``t$branch_<b>``.

The rows come from pypaimon's own system tables (pypaimon/table/system/*, the same column names
and types as Paimon's Java ``org.apache.paimon.table.system`` classes; see
docs/catalog-system-tables.md), read through the catalog's pypaimon client (filesystem, REST or
JDBC) exactly as a pypaimon user reads them. drydock only decides which names exist, refuses
time travel on them (they describe the table now), and maps a missing branch to a typed error.
"""

from __future__ import annotations

from typing import Any

from drydock.engine.lakehouse.catalogs.base import SYSTEM_SEPARATOR
from drydock.engine.errors import Errors

# The system tables Doris and Paimon document for a Paimon table (Paimon's SystemTableLoader
# has more; these are the ones drydock checks against Paimon's source).
SYSTEM_TABLES = (
    "snapshots",
    "tags",
    "branches",
    "options",
    "schemas",
    "files",
    "manifests",
    "partitions",
    "consumers",
)
BRANCH_PREFIX = "branch_"


def parse_suffix(suffix: str) -> tuple[str | None, str | None]:
    """What follows ``t$``: (branch, system table); one of them may be None.

    ``snapshots`` → (None, "snapshots"); ``branch_b1`` → ("b1", None);
    ``branch_b1$snapshots`` → ("b1", "snapshots"). Anything else: (None, None)."""
    first, _, rest = suffix.partition(SYSTEM_SEPARATOR)
    if first.startswith(BRANCH_PREFIX) and len(first) > len(BRANCH_PREFIX):
        branch = first[len(BRANCH_PREFIX) :]
        if not rest:
            return branch, None
        return (branch, rest) if rest in SYSTEM_TABLES else (None, None)
    return (None, first) if not rest and first in SYSTEM_TABLES else (None, None)


def read_system_table(catalog: Any, db: str, table: str, suffix: str) -> Any:
    """All rows of ``db.table$suffix`` as a pyarrow Table (system tables are small metadata)."""
    system = catalog.get_table(f"{db}.{table}{SYSTEM_SEPARATOR}{suffix}")
    if not hasattr(system, "system_table_name"):
        system = _system_table_over(catalog, db, table, suffix)
    builder = system.new_read_builder()
    rows = builder.new_read().to_arrow(builder.new_scan().plan().splits())
    if system.system_table_name() == "snapshots" and "operation" not in rows.column_names:
        rows = _with_operation(system.base_table, rows)
    return rows


def _system_table_over(catalog: Any, db: str, table: str, suffix: str) -> Any:
    """pypaimon 2.1's JDBC catalog answers ``t$snapshots`` with the table itself: build the
    system table over the (branch's) table as its REST and filesystem catalogs do."""
    from pypaimon.table.system import system_table_loader

    branch, system_name = parse_suffix(suffix)
    on = f"{db}.{table}" + (f"{SYSTEM_SEPARATOR}{BRANCH_PREFIX}{branch}" if branch else "")
    return system_table_loader.load(system_name, catalog.get_table(on))


def _with_operation(base: Any, rows: Any) -> Any:
    """pypaimon 2.1's snapshots table lacks Java's column 14 ``operation`` (it reserves the id):
    read it from each snapshot file's JSON, where Paimon writes it (null when a writer did not)."""
    import json

    import pyarrow as pa

    manager = base.snapshot_manager()
    values = []
    for snapshot_id in rows.column("snapshot_id").to_pylist():
        try:
            text = base.file_io.read_file_utf8(manager.get_snapshot_path(snapshot_id))
            values.append(json.loads(text).get("operation"))
        except FileNotFoundError:  # expired since the listing: Paimon's own table skips it too
            values.append(None)
    position = rows.column_names.index("writer_version")
    return rows.add_column(
        position, pa.field("operation", pa.string()), pa.array(values, pa.string())
    )


def require_branch(base: Any, branch: str, db: str, table: str, catalog_name: str) -> None:
    if branch not in base.branch_manager().branches():
        raise Errors.UNKNOWN_TABLE_BRANCH.error(
            branch=branch, table=f"{db}.{table}", catalog=catalog_name
        )


def no_time_travel(db: str, table: str, suffix: str) -> Exception:
    return Errors.TIME_TRAVEL_INVALID.error(
        detail=f"System table {db}.{table}{SYSTEM_SEPARATOR}{suffix} describes the table now: "
        "FOR VERSION/TIME AS OF and @tag are not supported on it"
    )
