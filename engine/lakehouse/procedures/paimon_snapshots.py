"""expire_snapshots, rollback_to, rollback_to_as_latest (Paimon's procedures; pypaimon 2.1.0 has
no expiry and no history-keeping rollback, so these work on the table layout: paimon_layout)."""

from __future__ import annotations

import time
import uuid
from typing import Any

from drydock.engine.lakehouse.procedures.base import Arg, Procedure, ProcedureContext
from drydock.engine.lakehouse.procedures.paimon_common import (
    MAIN,
    TABLE_ARG,
    Deleter,
    ResolvedPaimonTable,
    before_change,
    configured_max_deletes,
    duration_millis,
    exactly_one,
    not_supported,
    pause,
    pin_everything,
    pin_latest,
    pin_tags,
    refuse_over_limit,
    resolve_table,
    single_row,
    snapshot_or_fail,
    tag_or_fail,
    timestamp_millis,
)
from drydock.engine.lakehouse.procedures.paimon_layout import (
    Layout,
    paimon_named,
    snapshot_as_latest,
    write_hint,
    write_snapshot_file,
)
from drydock.engine.lakehouse.procedures.paimon_consumers import pin_consumers
from drydock.engine.results import Result

INT_MAX = 2**31 - 1
# Paimon's table options and their defaults (CoreOptions): what expire_snapshots falls back to.
RETAIN_MIN, RETAIN_MAX, TIME_RETAINED, EXPIRE_LIMIT = (
    "snapshot.num-retained.min",
    "snapshot.num-retained.max",
    "snapshot.time-retained",
    "snapshot.expire.limit",
)
_EXPIRE_OPTIONS = {
    RETAIN_MIN: "10",
    RETAIN_MAX: str(INT_MAX),
    TIME_RETAINED: "1 h",
    EXPIRE_LIMIT: "10",
}
_DECOUPLED_CHANGELOG = (
    "changelog.num-retained.min",
    "changelog.num-retained.max",
    "changelog.time-retained",
)


def _table_options(target: ResolvedPaimonTable, extra: str | None) -> dict[str, str]:
    options = dict(target.table.table_schema.options)
    for part in [p for p in (extra or "").split(",") if p.strip()]:
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or key not in _EXPIRE_OPTIONS:
            raise target.bad(
                f"options supports only {', '.join(sorted(_EXPIRE_OPTIONS))} as 'k=v,...'; got "
                f"'{part}'"
            )
        options[key] = value.strip()
    return options


def _positive(target: ResolvedPaimonTable, name: str, value: Any) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise target.bad(f"'{name}' must be an integer, got '{value}'") from None
    if number < 1:
        raise target.bad(f"'{name}' must be at least 1, got {number}")
    return number


def _expire_window(
    target: ResolvedPaimonTable, values: dict[str, Any]
) -> tuple[int, int, int, int]:
    """(retain_max, retain_min, threshold millis, max_deletes) after Paimon's defaulting."""
    options = _table_options(target, values["options"])
    if any(k in options for k in _DECOUPLED_CHANGELOG):
        raise not_supported(
            "expire_snapshots",
            "tables with decoupled changelog retention "
            f"({', '.join(_DECOUPLED_CHANGELOG)}) would need their changelogs kept "
            "apart from expired snapshots, which drydock does not do",
        )

    def pick(arg: str, option: str) -> int:
        chosen = (
            values[arg] if values[arg] is not None else options.get(option, _EXPIRE_OPTIONS[option])
        )
        return _positive(target, arg, chosen)

    retain_max, retain_min, limit = (
        pick("retain_max", RETAIN_MAX),
        pick("retain_min", RETAIN_MIN),
        pick("max_deletes", EXPIRE_LIMIT),
    )
    if retain_max < retain_min:
        raise target.bad(
            f"retain_max ({retain_max}) must not be smaller than retain_min ({retain_min})"
        )
    if values["older_than"]:
        threshold = timestamp_millis(target.procedure, "older_than", values["older_than"])
    else:
        threshold = int(time.time() * 1000) - duration_millis(
            target.procedure,
            TIME_RETAINED,
            options.get(TIME_RETAINED, _EXPIRE_OPTIONS[TIME_RETAINED]),
        )
    return retain_max, retain_min, threshold, limit


def expire_snapshots(ctx: ProcedureContext, values: dict[str, Any]) -> Result:
    from pypaimon.consumer.consumer_manager import ConsumerManager

    target = resolve_table(ctx, "expire_snapshots", values["table"])
    retain_max, retain_min, threshold, limit = _expire_window(target, values)
    # the consumers too: one reset meanwhile could lower the floor this call keeps
    pins = [pin_everything(target), pin_consumers(target)]
    snapshots = target.snapshot_manager().list_snapshots()
    if not snapshots:
        target.note(f"{target.display} has no snapshots; nothing to expire")
        return single_row(("deleted_snapshots_count",), (0,))
    earliest, latest = snapshots[0].id, snapshots[-1].id
    end = min(latest - retain_min + 1, earliest + limit)
    consumer_floor = ConsumerManager(target.file_io, target.table.table_path).min_next_snapshot()
    if consumer_floor is not None:
        end = min(end, consumer_floor)
    forced = max(latest - retain_max + 1, earliest)  # beyond retain_max: expired whatever their age
    for snapshot in snapshots:
        if forced <= snapshot.id < end and snapshot.time_millis >= threshold:
            end = snapshot.id
            break
    expiring = [s for s in snapshots if s.id < end]
    layout = Layout(target)
    roots, stored = layout.roots(), layout.files()
    files, count = _expire_plan(layout, roots, stored, expiring)
    wanted, cap = count, configured_max_deletes(ctx)
    while expiring and count > cap:
        expiring.pop()  # expire fewer snapshots until the deletes fit procedure_max_deletes
        files, count = _expire_plan(layout, roots, stored, expiring)
    if not expiring:
        if wanted:
            raise refuse_over_limit(
                target, wanted, "Raise procedure_max_deletes (ADMIN SET FRONTEND CONFIG)."
            )
        target.note(
            f"no snapshot of {target.display} is eligible (earliest {earliest}, latest {latest}, "
            f"retain_min {retain_min}, retain_max {retain_max})"
        )
        return single_row(("deleted_snapshots_count",), (0,))
    if count < wanted:
        target.warn(
            f"expired only up to snapshot {expiring[-1].id}: procedure_max_deletes ({cap}) bounds "
            f"one "
            "call; call again to continue"
        )
    before_change(target, pins)
    deleter = Deleter(target)
    manager = target.snapshot_manager()
    for snapshot in expiring:  # snapshot files first (oldest first), then the files they held
        deleter.delete(manager.get_snapshot_path(snapshot.id))
    new_earliest = expiring[-1].id + 1
    write_hint(target, MAIN, "EARLIEST", new_earliest)
    ctx.done.append(
        f"expired snapshots {expiring[0].id}..{expiring[-1].id} (EARLIEST is {new_earliest})"
    )
    pause(ctx, target.procedure, "files")  # test-only hook between the two phases
    # A tag or branch created meanwhile (on a now-expired snapshot) keeps what it references.
    keep = layout.referenced(layout.roots())
    doomed = [f for f in files if f.name not in keep]
    for item in doomed:
        deleter.delete(item.path, item.size)
    target.note(
        f"expired snapshots {expiring[0].id}..{expiring[-1].id} of {target.display}; deleted "
        f"{len(expiring)} snapshot files and {len(doomed)} unreferenced files ({deleter.bytes} "
        f"bytes)"
    )
    return single_row(("deleted_snapshots_count",), (len(expiring),))


def _expire_plan(
    layout: Layout, roots: list[Any], stored: list[Any], expiring: list[Any]
) -> tuple[list[Any], int]:
    """(files only the expiring snapshots reference, objects to delete in all)."""
    if not expiring:
        return [], 0
    end = expiring[-1].id + 1
    expired = [r.branch == MAIN and r.kind == "snapshot" and int(r.label) < end for r in roots]
    doomed = layout.referenced(r for r, gone in zip(roots, expired) if gone) - layout.referenced(
        r for r, gone in zip(roots, expired) if not gone
    )
    files = [f for f in stored if f.name in doomed and paimon_named(f.name)]
    return files, len(expiring) + len(files)


def _rollback_target(target: ResolvedPaimonTable, values: dict[str, Any]) -> tuple[Any, str | None]:
    """The snapshot named by exactly one of tag / snapshot_id (no fallback between them)."""
    exactly_one(target.procedure, values, ("tag", "snapshot_id"))
    if values["tag"]:
        return tag_or_fail(target, values["tag"]).trim_to_snapshot(), values["tag"]
    return snapshot_or_fail(target, values["snapshot_id"]), None


def _latest_or_fail(target: ResolvedPaimonTable) -> Any:
    latest = target.snapshot_manager().get_latest_snapshot()
    if latest is None:
        raise target.fail(f"{target.display} has no snapshot; there is nothing to roll back")
    return latest


def rollback_to(ctx: ProcedureContext, values: dict[str, Any]) -> Result:
    from pypaimon.changelog.changelog_manager import ChangelogManager

    target = resolve_table(ctx, "rollback_to", values["table"])
    rolled_back, tag = _rollback_target(target, values)
    latest = _latest_or_fail(target)
    if rolled_back.id > latest.id:
        raise target.bad(
            f"tag '{tag}' holds snapshot {rolled_back.id}, newer than the latest snapshot "
            f"{latest.id}"
        )
    manager = target.snapshot_manager()
    existing = manager.get_snapshot_by_id(rolled_back.id)
    if tag and existing is not None and existing.time_millis != rolled_back.time_millis:
        raise target.bad(
            f"tag '{tag}' holds a snapshot {rolled_back.id} that is not the table's snapshot "
            f"{rolled_back.id} (that id was rolled back and committed again)"
        )
    changelogs = ChangelogManager(
        target.file_io, target.table.table_path
    ).safely_get_all_changelogs()
    changelog_ids = [c.id for c in changelogs]
    if any(i > rolled_back.id for i in changelog_ids):
        raise not_supported(
            "rollback_to",
            "the table has long-lived changelogs newer than the target; drydock "
            "does not roll changelogs back",
        )
    pins = [pin_latest(target), pin_tags(target)]
    doomed = [s.id for s in manager.list_snapshots() if s.id > rolled_back.id]
    doomed_tags = sorted(
        n
        for n, t in ((n, target.tag_manager().get(n)) for n in target.tag_manager().list_tags())
        if t is not None and t.id > rolled_back.id
    )
    if len(doomed) + len(doomed_tags) > configured_max_deletes(ctx):
        raise refuse_over_limit(
            target, len(doomed) + len(doomed_tags), "Raise procedure_max_deletes."
        )
    if not doomed and existing is not None:
        target.note(f"{target.display} is already at snapshot {latest.id}; nothing to roll back")
        return single_row(("previous_snapshot_id", "current_snapshot_id"), (latest.id, latest.id))
    before_change(target, pins)
    if existing is None:  # rolling back to a tag whose snapshot file was expired: restore it
        write_snapshot_file(target, MAIN, rolled_back)
        ctx.done.append(f"restored snapshot file {rolled_back.id} from tag '{tag}'")
    deleter = Deleter(target)
    for snapshot_id in sorted(doomed, reverse=True):  # newest first: the table steps back
        deleter.delete(manager.get_snapshot_path(snapshot_id))
    write_hint(target, MAIN, "LATEST", rolled_back.id)
    if existing is None:  # the restored snapshot may precede the EARLIEST hint
        write_hint(target, MAIN, "EARLIEST", min(s.id for s in manager.list_snapshots()))
    for name in doomed_tags:
        deleter.delete(target.tag_manager().tag_path(name))
    target.note(
        f"rolled {target.display} back from snapshot {latest.id} to {rolled_back.id}; removed "
        f"snapshots "
        f"{', '.join(map(str, sorted(doomed))) or 'none'} and tags "
        f"{', '.join(doomed_tags) or 'none'}; "
        "their data files are left for remove_orphan_files"
    )
    return single_row(("previous_snapshot_id", "current_snapshot_id"), (latest.id, rolled_back.id))


def rollback_to_as_latest(ctx: ProcedureContext, values: dict[str, Any]) -> Result:
    from drydock.engine.errors import Errors

    target = resolve_table(ctx, "rollback_to_as_latest", values["table"])
    rolled_back, tag = _rollback_target(target, values)
    latest = _latest_or_fail(target)
    if str(target.table.table_schema.options.get("branch-merge.enabled", "")).lower() == "true":
        raise not_supported(
            "rollback_to_as_latest",
            "the table has 'branch-merge.enabled' = 'true', which allows "
            "only pure-append commits; a rollback snapshot is an overwrite",
        )
    pins = [pin_latest(target)]
    before_change(target, pins)
    protection = None
    if tag is None:  # as Paimon does: a tag keeps the target's files from any engine's expiry
        protection = f"rollback-to-as-latest-{rolled_back.id}-{uuid.uuid4()}"
        target.tag_manager().create_tag(rolled_back, protection)
        ctx.done.append(f"created protection tag '{protection}'")
    properties = {
        "drydock.procedure": "rollback_to_as_latest",
        "drydock.rolled-back-snapshot-id": str(rolled_back.id),
    }
    committed = snapshot_as_latest(target, latest, rolled_back, properties)
    if committed is None:
        if protection:
            target.file_io.delete_quietly(target.tag_manager().tag_path(protection))
        raise Errors.PROCEDURE_CONCURRENT_COMMIT.error(
            procedure=target.procedure,
            table=target.display,
            expected=f"snapshot {latest.id} as the latest",
            actual=f"snapshot {latest.id + 1} committed by another writer",
        )
    target.note(
        f"snapshot {committed.id} of {target.display} now holds the contents of snapshot "
        f"{rolled_back.id}; "
        f"snapshots up to {latest.id} and all tags are kept"
        + (f"; protection tag '{protection}' keeps its files" if protection else "")
    )
    return single_row(
        ("previous_snapshot_id", "rolled_back_snapshot_id", "current_snapshot_id"),
        (latest.id, rolled_back.id, committed.id),
    )


def _tag_snapshot_args() -> tuple[Arg, ...]:
    return (
        TABLE_ARG,
        Arg("tag", "STRING", doc="the tag to roll back to"),
        Arg("snapshot_id", "LONG", doc="the snapshot to roll back to"),
    )


PROCEDURES = [
    Procedure(
        name="expire_snapshots",
        doc="Expire old snapshots of main and delete the files no remaining snapshot, tag or "
        "branch references",
        args=(
            TABLE_ARG,
            Arg(
                "retain_max",
                "INT",
                doc="snapshots to keep at most (default: snapshot.num-retained.max)",
            ),
            Arg(
                "retain_min",
                "INT",
                doc="snapshots to keep at least (default: snapshot.num-retained.min, 10)",
            ),
            Arg(
                "older_than",
                "STRING",
                doc="expire snapshots committed before this time (default: now - "
                "snapshot.time-retained, 1 h)",
            ),
            Arg(
                "max_deletes",
                "INT",
                doc="snapshots to expire at most (default: snapshot.expire.limit, 10)",
            ),
            Arg("options", "STRING", doc="'k=v,...' overrides of the snapshot.* retention options"),
        ),
        result_columns=("deleted_snapshots_count",),
        result_types=("INTEGER",),
        run=expire_snapshots,
    ),
    Procedure(
        name="rollback_to",
        doc="Roll main back to a snapshot or tag; later snapshots and tags are removed (Flink's "
        "rollback_to; "
        "Spark's rollback with version/snapshot/tag is not offered)",
        args=_tag_snapshot_args(),
        result_columns=("previous_snapshot_id", "current_snapshot_id"),
        result_types=("BIGINT", "BIGINT"),
        run=rollback_to,
    ),
    Procedure(
        name="rollback_to_as_latest",
        doc="Commit a new latest snapshot with the contents of a snapshot or tag; later history is "
        "kept",
        args=_tag_snapshot_args(),
        result_columns=("previous_snapshot_id", "rolled_back_snapshot_id", "current_snapshot_id"),
        result_types=("BIGINT", "BIGINT", "BIGINT"),
        run=rollback_to_as_latest,
    ),
]
