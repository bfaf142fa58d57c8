"""create_tag, delete_tag, rename_tag (pypaimon's TagManager writes the tag files; drydock
resolves targets exactly, pins what it validated and bounds deletes)."""

from __future__ import annotations

from typing import Any

from drydock.engine.lakehouse.procedures.base import Arg, Procedure, ProcedureContext
from drydock.engine.lakehouse.procedures.paimon_common import (
    TABLE_ARG,
    Deleter,
    before_change,
    check_name,
    configured_max_deletes,
    duration_millis,
    name_list,
    pin_latest,
    pin_tags,
    refuse_over_limit,
    resolve_table,
    single_row,
    snapshot_or_fail,
    tag_or_fail,
)
from drydock.engine.results import Result

RESULT = ("result",)
BOOLEAN = ("BOOLEAN",)  # Paimon: result BooleanType


def create_tag(ctx: ProcedureContext, values: dict[str, Any]) -> Result:
    target = resolve_table(ctx, "create_tag", values["table"])
    name = check_name(target.procedure, "tag", values["tag"], "tag")
    if values["time_retained"] is not None:
        duration_millis(target.procedure, "time_retained", values["time_retained"])
    if target.tag_manager().tag_exists(name):
        raise target.bad(f"Tag '{name}' already exists in {target.display}")
    if values["snapshot"] is not None:
        snapshot = snapshot_or_fail(target, values["snapshot"])
    else:
        snapshot = target.snapshot_manager().get_latest_snapshot()
        if snapshot is None:
            raise target.fail(f"{target.display} has no snapshot to tag")
    before_change(target, [pin_latest(target), pin_tags(target)])
    target.tag_manager().create_tag(snapshot, name, False, values["time_retained"])
    if target.snapshot_manager().get_snapshot_by_id(snapshot.id) is None:  # expired meanwhile
        target.file_io.delete_quietly(target.tag_manager().tag_path(name))
        raise target.fail(
            f"snapshot {snapshot.id} was expired while the tag was created; the tag was removed"
        )
    target.note(f"tag '{name}' of {target.display} holds snapshot {snapshot.id}")
    return single_row(RESULT, (True,))


def delete_tag(ctx: ProcedureContext, values: dict[str, Any]) -> Result:
    target = resolve_table(ctx, "delete_tag", values["table"])
    names = name_list(target.procedure, "tag", values["tag"], "tag")
    held = {
        name: tag_or_fail(target, name).id for name in names
    }  # every name exists, or nothing is deleted
    if len(names) > configured_max_deletes(ctx):
        raise refuse_over_limit(target, len(names), "Delete fewer tags per call.")
    before_change(target, [pin_latest(target), pin_tags(target)])
    deleter = Deleter(target)
    for name in names:
        deleter.delete(target.tag_manager().tag_path(name))
    target.note(
        f"deleted tag(s) {', '.join(f'{n} (snapshot {held[n]})' for n in names)} of "
        f"{target.display}; "
        "files only they referenced are left for expire_snapshots / remove_orphan_files"
    )
    return single_row(RESULT, (True,))


def rename_tag(ctx: ProcedureContext, values: dict[str, Any]) -> Result:
    target = resolve_table(ctx, "rename_tag", values["table"])
    old = check_name(target.procedure, "tag", values["tag"], "tag")
    new = check_name(target.procedure, "tag", values["target_tag"], "target_tag")
    tag_or_fail(target, old)
    if old == new or target.tag_manager().tag_exists(new):
        raise target.bad(f"Tag '{new}' already exists in {target.display}")
    before_change(target, [pin_latest(target), pin_tags(target)])
    manager = target.tag_manager()
    content = target.file_io.read_file_utf8(manager.tag_path(old))
    # Create the new name atomically (never over another tag), then remove the old one.
    if not target.file_io.try_to_write_atomic(manager.tag_path(new), content):
        raise target.fail(f"tag '{new}' was created concurrently; '{old}' is unchanged")
    target.file_io.delete(manager.tag_path(old))
    target.note(f"renamed tag '{old}' of {target.display} to '{new}'")
    return single_row(RESULT, (True,))


PROCEDURES = [
    Procedure(
        name="create_tag",
        doc="Create a tag on a snapshot of main (default: the latest)",
        args=(
            TABLE_ARG,
            Arg("tag", "STRING", required=True, doc="the new tag's name"),
            Arg("snapshot", "LONG", doc="the snapshot id (default: the latest snapshot)"),
            Arg(
                "time_retained",
                "STRING",
                doc="how long the tag is kept, e.g. '1 d' (default: forever)",
            ),
        ),
        result_columns=RESULT,
        result_types=BOOLEAN,
        run=create_tag,
    ),
    Procedure(
        name="delete_tag",
        doc="Delete tags of main (comma-separated names; all must exist)",
        args=(TABLE_ARG, Arg("tag", "STRING", required=True, doc="tag name(s), comma-separated")),
        result_columns=RESULT,
        result_types=BOOLEAN,
        run=delete_tag,
    ),
    Procedure(
        name="rename_tag",
        doc="Rename a tag of main",
        args=(
            TABLE_ARG,
            Arg("tag", "STRING", required=True, doc="the existing tag"),
            Arg("target_tag", "STRING", required=True, doc="its new name"),
        ),
        result_columns=RESULT,
        result_types=BOOLEAN,
        run=rename_tag,
    ),
]
