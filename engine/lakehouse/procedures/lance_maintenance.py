"""compact, optimize_indices and expire_snapshots on Lance tables (declared in lance.py)."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any, cast

from drydock.engine.support import faults
from drydock.engine.lakehouse.procedures.base import ProcedureContext
from drydock.engine.lakehouse.procedures.lance_common import (
    at_least,
    bad,
    batch_size,
    batches,
    cancel_pending,
    max_deletes,
    name_list,
    open_target,
    parse_time,
    marker_pause,
    result,
    warn,
)
from drydock.engine.results import Result

if TYPE_CHECKING:
    from lance.optimize import CompactionOptions

# -- compact
# -------------------------------------------------------------------------------------------
COMPACT_COLUMNS = (
    ("result", "BOOLEAN"),
    ("fragments_removed", "BIGINT"),
    ("fragments_added", "BIGINT"),
    ("files_removed", "BIGINT"),
    ("files_added", "BIGINT"),
    ("previous_snapshot_id", "BIGINT"),
    ("current_snapshot_id", "BIGINT"),
)
_POSITIVE_INT = (
    "target_rows_per_fragment",
    "max_rows_per_group",
    "max_bytes_per_file",
    "num_threads",
    "batch_size",
    "max_source_fragments",
    "max_source_rows",
    "max_source_bytes",
)
COMPACT_OPTIONS = (
    *_POSITIVE_INT,
    "materialize_deletions",
    "materialize_deletions_threshold",
    "compaction_mode",
)
_MODES = ("reencode", "try_binary_copy", "force_binary_copy")


def compaction_options(text: str | None) -> CompactionOptions:
    """'k=v,k=v' → Lance CompactionOptions (every key and value checked here, nothing ignored)."""
    options: dict[str, Any] = {}
    if text is None or not text.strip():
        return cast("CompactionOptions", options)
    for item in text.split(","):
        key, sep, raw = item.partition("=")
        key, raw = key.strip().lower(), raw.strip()
        if not sep or not key or not raw:
            raise bad(
                "compact",
                f"options must be 'key=value' pairs separated by commas, got '{item.strip()}'",
            )
        if key in options:
            raise bad("compact", f"option '{key}' is given more than once")
        options[key] = _option_value(key, raw)
    return cast("CompactionOptions", options)  # keys checked against the TypedDict's above


def _option_value(key: str, raw: str) -> Any:
    if key in _POSITIVE_INT:
        if not raw.isdigit() or int(raw) < 1:
            raise bad("compact", f"option '{key}' must be a positive integer, got '{raw}'")
        return int(raw)
    if key == "materialize_deletions":
        if raw.lower() not in ("true", "false"):
            raise bad("compact", f"option '{key}' must be true or false, got '{raw}'")
        return raw.lower() == "true"
    if key == "materialize_deletions_threshold":
        try:
            value = float(raw)
        except ValueError:
            value = -1.0
        if not 0.0 <= value <= 1.0:
            raise bad("compact", f"option '{key}' must be a fraction between 0 and 1, got '{raw}'")
        return value
    if key == "compaction_mode":
        if raw.lower() not in _MODES:
            raise bad("compact", f"option '{key}' must be one of {', '.join(_MODES)}, got '{raw}'")
        return raw.lower()
    raise bad("compact", f"unknown option '{key}'; supported: {', '.join(COMPACT_OPTIONS)}")


def compact(ctx: ProcedureContext, values: dict[str, Any]) -> Result:
    from lance.optimize import Compaction

    options = compaction_options(values["options"])
    t = open_target(ctx, values, "compact")
    previous = t.version
    plan = Compaction.plan(t.ds, options)
    if plan.num_tasks() == 0:
        return result(COMPACT_COLUMNS, [(True, 0, 0, 0, 0, previous, previous)])
    marker_pause(ctx, "compact")
    t.check_unchanged()
    rewrites = []
    for number, task in enumerate(plan.tasks):
        if cancel_pending(ctx):
            ctx.done.append(
                f"rewrote {number} of {plan.num_tasks()} fragment groups into new files, not "
                "committed (the table is unchanged; remove_orphan_files reclaims the files)"
            )
        ctx.check_cancelled()
        rewrites.append(task.execute(t.ds))
    try:
        metrics = Compaction.commit(t.ds, rewrites, options)
    except OSError as exc:
        if type(exc).__name__ == "CommitConflictError":
            raise t.commit_conflict() from None
        raise
    ctx.done.append(f"compacted into version {t.ds.version}")
    return result(
        COMPACT_COLUMNS,
        [
            (
                True,
                metrics.fragments_removed,
                metrics.fragments_added,
                metrics.files_removed,
                metrics.files_added,
                previous,
                t.ds.version,
            )
        ],
    )


# -- optimize_indices
# ---------------------------------------------------------------------------------
OPTIMIZE_COLUMNS = (
    ("result", "BOOLEAN"),
    ("indexes", "VARCHAR"),
    ("unindexed_rows_before", "BIGINT"),
    ("unindexed_rows_after", "BIGINT"),
    ("previous_snapshot_id", "BIGINT"),
    ("current_snapshot_id", "BIGINT"),
)


def optimize_indices(ctx: ProcedureContext, values: dict[str, Any]) -> Result:
    merge = at_least("optimize_indices", "num_indices_to_merge", values["num_indices_to_merge"], 0)
    requested = (
        name_list("optimize_indices", "index_names", values["index_names"])
        if values["index_names"]
        else None
    )
    t = open_target(ctx, values, "optimize_indices")
    existing = sorted(d.name for d in t.ds.describe_indices())
    for name in requested or ():
        if name not in existing:
            raise bad(
                "optimize_indices",
                f"index '{name}' does not exist on table {t.name}"
                f" (indexes: {', '.join(existing) or 'none'})",
            )
    names = sorted(requested) if requested else existing
    before = _unindexed(t.ds, names)
    if not names:
        return result(OPTIMIZE_COLUMNS, [(True, "", 0, 0, t.version, t.version)])
    marker_pause(ctx, "optimize_indices")
    t.check_unchanged()
    kwargs: dict[str, Any] = {"index_names": names, "retrain": bool(values["retrain"])}
    if merge is not None:
        kwargs["num_indices_to_merge"] = merge
    try:
        t.ds.optimize.optimize_indices(**kwargs)
    except OSError as exc:
        if type(exc).__name__ == "CommitConflictError":
            raise t.commit_conflict() from None
        raise
    after_ds = t.connector.open_latest(t.db, t.table)
    ctx.done.append(f"optimized indexes {', '.join(names)} (version {after_ds.version})")
    return result(
        OPTIMIZE_COLUMNS,
        [(True, ",".join(names), before, _unindexed(after_ds, names), t.version, after_ds.version)],
    )


def _unindexed(ds: Any, names: list[str]) -> int:
    return sum(int(ds.stats.index_stats(name)["num_unindexed_rows"]) for name in names)


# -- expire_snapshots
# ---------------------------------------------------------------------------------
EXPIRE_COLUMNS = (
    ("deleted_snapshots_count", "BIGINT"),
    ("deleted_data_files_count", "BIGINT"),
    ("deleted_deletion_files_count", "BIGINT"),
    ("deleted_index_files_count", "BIGINT"),
    ("deleted_transaction_files_count", "BIGINT"),
    ("bytes_removed", "BIGINT"),
    ("kept_tagged_snapshots_count", "BIGINT"),
    ("kept_branch_snapshots_count", "BIGINT"),
    ("current_snapshot_id", "BIGINT"),
)
EXPIRE_DEFAULT_AGE = dt.timedelta(days=14)  # Lance's cleanup default when no bound is given
EXPIRE_BATCH = 1000  # versions per cleanup call (each call reads every retained manifest)
_STAT_FIELDS = (
    "old_versions",
    "data_files_removed",
    "deletion_files_removed",
    "index_files_removed",
    "transaction_files_removed",
    "bytes_removed",
    "failed_deletes",
)


def expire_snapshots(ctx: ProcedureContext, values: dict[str, Any]) -> Result:
    name = "expire_snapshots"
    retain_max = at_least(name, "retain_max", values["retain_max"], 1)
    retain_min = at_least(name, "retain_min", values["retain_min"], 1) or 1
    if retain_max is not None and retain_max < retain_min:
        raise bad(name, f"retain_max ({retain_max}) must be >= retain_min ({retain_min})")
    cutoff = (
        parse_time(name, "older_than", values["older_than"])
        if values["older_than"] is not None
        else None
    )
    if cutoff is None and retain_max is None:
        cutoff = dt.datetime.now(dt.UTC) - EXPIRE_DEFAULT_AGE
    limit = max_deletes(ctx, name, values["max_deletes"])
    t = open_target(ctx, values, name)
    expired = _expired_versions(t, retain_max, retain_min, cutoff)
    tagged = {int(v["version"]) for v in t.tags().values() if v.get("branch") in (None, "main")}
    bases = {
        int(b["parent_version"])
        for b in t.branches().values()
        if b.get("parent_branch") in (None, "main")
    }
    doomed = [v for v in expired if v not in tagged and v not in bases]
    kept_tagged = sum(1 for v in expired if v in tagged)
    kept_bases = sum(1 for v in expired if v in bases and v not in tagged)
    if len(doomed) > limit:
        warn(
            ctx,
            f"expire_snapshots stopped at max_deletes={limit}: {len(doomed) - limit} more expired "
            "snapshots remain; call it again",
        )
        doomed = doomed[:limit]
    totals = dict.fromkeys(_STAT_FIELDS, 0)
    if doomed:
        marker_pause(ctx, name)
        for number, batch in enumerate(batches(doomed, batch_size(EXPIRE_BATCH))):
            ctx.check_cancelled()
            t.check_unchanged(done=number > 0)
            faults.pause_point("during_procedure_delete")
            stats = t.ds.cleanup_old_versions(
                versions=list(batch), error_if_tagged_old_versions=False
            )
            for key in _STAT_FIELDS:
                totals[key] += int(getattr(stats, key))
            ctx.done.append(
                f"expired snapshots {batch[0]}..{batch[-1]} ({stats.old_versions} removed)"
            )
            marker_pause(ctx, f"{name}.batch")
    if totals["failed_deletes"]:
        warn(
            ctx,
            f"expire_snapshots: {totals['failed_deletes']} files could not be deleted; "
            "remove_orphan_files reclaims them later",
        )
    return result(
        EXPIRE_COLUMNS,
        [
            (
                totals["old_versions"],
                totals["data_files_removed"],
                totals["deletion_files_removed"],
                totals["index_files_removed"],
                totals["transaction_files_removed"],
                totals["bytes_removed"],
                kept_tagged,
                kept_bases,
                t.version,
            )
        ],
    )


def _expired_versions(
    t: Any, retain_max: int | None, retain_min: int, cutoff: dt.datetime | None
) -> list[int]:
    """Paimon's rule on the pinned version list, oldest first, as a prefix: the newest
    ``retain_min`` always stay; beyond the newest ``retain_max`` a version expires whatever its
    age; otherwise it expires when committed before ``cutoff``. Commit times are read only for
    the versions the age rule decides, by binary search (Lance stamps versions in commit order)."""
    versions = t.versions()
    end = max(0, len(versions) - retain_min)  # versions[end:] are always kept
    by_count = max(0, len(versions) - retain_max) if retain_max is not None else 0
    by_count = min(by_count, end)
    if cutoff is None:
        return versions[:by_count]

    def committed_before(index: int) -> bool:
        stamp = t.ds.checkout_version(versions[index]).get_version()["timestamp"]
        return bool(stamp.astimezone() < cutoff)

    lo, hi = by_count, end  # first index in [lo, hi) committed at or after the cutoff
    while lo < hi:
        mid = (lo + hi) // 2
        if committed_before(mid):
            lo = mid + 1
        else:
            hi = mid
    return versions[:lo]
