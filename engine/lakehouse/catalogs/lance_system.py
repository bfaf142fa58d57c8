"""Lance metadata tables: ``t$versions``, ``t$tags``, ``t$indices`` (the Paimon idea, on pylance).

Each is built from one pylance API of the table's pinned dataset and has pylance's own names
(docs/catalog-system-tables.md): ``LanceDataset.versions()``, ``ds.tags.list()``,
``LanceDataset.describe_indices()`` with ``ds.stats.index_stats()``. Also the bounded re-read of
a ref listing that races a concurrent delete (used by time travel and by the procedures).
"""

from __future__ import annotations

import json
import time
from typing import Any

import pyarrow as pa

SYSTEM_TABLES = ("versions", "tags", "indices")
REF_LIST_ATTEMPTS = 20


def list_refs(refs: Any) -> dict[str, dict[str, Any]]:
    """``ds.tags.list()`` / ``ds.branches.list()``. pylance lists the refs directory, then reads
    each ref file: a ref another call deletes in between fails the listing with "Not found" (seen
    under concurrent create_tag / delete_tag). The deletion is then complete, so the listing is
    read again (bounded); any other error, or one that persists, propagates as before."""
    for attempt in range(REF_LIST_ATTEMPTS):
        try:
            return dict(refs.list())
        except (ValueError, OSError) as exc:
            if "Not found" not in str(exc) or attempt == REF_LIST_ATTEMPTS - 1:
                raise
            time.sleep(0.001 * attempt)
    raise AssertionError("unreachable")


def _json(value: Any) -> str | None:
    return None if value is None else json.dumps(value, sort_keys=True, default=str)


def _utc(value: Any) -> Any:
    """pylance gives naive local times for versions and aware UTC times for tags; Arrow wants
    one."""
    return value.astimezone() if value is not None else None


def versions(ds: Any) -> pa.Table:
    rows = sorted(ds.versions(), key=lambda v: v["version"])
    return pa.table(
        {
            "version": pa.array([int(v["version"]) for v in rows], pa.int64()),
            "timestamp": pa.array(
                [_utc(v["timestamp"]) for v in rows], pa.timestamp("us", tz="UTC")
            ),
            "metadata": pa.array([_json(v.get("metadata")) for v in rows], pa.string()),
        }
    )


def tags(ds: Any) -> pa.Table:
    items = sorted(list_refs(ds.tags).items())
    return pa.table(
        {
            "tag_name": pa.array([n for n, _ in items], pa.string()),
            "branch": pa.array([t.get("branch") for _, t in items], pa.string()),
            "version": pa.array([int(t["version"]) for _, t in items], pa.int64()),
            "created_at": pa.array(
                [_utc(t.get("created_at")) for _, t in items], pa.timestamp("us", tz="UTC")
            ),
            "updated_at": pa.array(
                [_utc(t.get("updated_at")) for _, t in items], pa.timestamp("us", tz="UTC")
            ),
            "manifest_size": pa.array([t.get("manifest_size") for _, t in items], pa.int64()),
            "metadata": pa.array([_json(t.get("metadata") or {}) for _, t in items], pa.string()),
        }
    )


def indices(ds: Any) -> pa.Table:
    described = sorted(ds.describe_indices(), key=lambda d: d.name)
    stats = [ds.stats.index_stats(d.name) for d in described]
    return pa.table(
        {
            "index_name": pa.array([d.name for d in described], pa.string()),
            "index_type": pa.array([str(s.get("index_type", "")) for s in stats], pa.string()),
            "fields": pa.array([list(d.field_names) for d in described], pa.list_(pa.string())),
            "num_segments": pa.array([len(d.segments) for d in described], pa.int64()),
            "segment_uuids": pa.array(
                [",".join(str(x.uuid) for x in d.segments) for d in described], pa.string()
            ),
            "num_indexed_rows": pa.array([int(s["num_indexed_rows"]) for s in stats], pa.int64()),
            "num_unindexed_rows": pa.array(
                [int(s["num_unindexed_rows"]) for s in stats], pa.int64()
            ),
            "total_size_bytes": pa.array([d.total_size_bytes for d in described], pa.int64()),
            "type_url": pa.array([d.type_url for d in described], pa.string()),
        }
    )


BUILDERS = {"versions": versions, "tags": tags, "indices": indices}
