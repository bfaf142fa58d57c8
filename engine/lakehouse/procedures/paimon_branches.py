"""create_branch, delete_branch, rename_branch, fast_forward, merge_branch.

Branches live in ``branch/branch-<name>/{snapshot,schema,tag}`` and share main's manifests and data
files. drydock writes these directories itself (paimon_layout) because pypaimon's versions break:
create_branch from a tag fails once the tag's snapshot expired, rename_branch silently does
nothing on S3, and fast_forward corrupts main once main has advanced past the branch point.

fast_forward is only a fast-forward: main must still be at the branch's base snapshot (the same
commit). Otherwise it is refused; nothing of main is discarded. merge_branch follows Paimon's
file-level merge for append-only tables guarded by 'branch-merge.enabled' = 'true'.
"""

from __future__ import annotations

from typing import Any

from drydock.engine.errors import Errors, exception_text
from drydock.engine.lakehouse.procedures.base import Arg, Procedure, ProcedureContext
from drydock.engine.lakehouse.procedures.paimon_common import (
    MAIN,
    TABLE_ARG,
    ResolvedPaimonTable,
    before_change,
    branch_or_fail,
    check_name,
    configured_max_deletes,
    name_list,
    not_supported,
    pin_latest,
    pin_tags,
    refuse_over_limit,
    resolve_table,
    single_row,
    tag_or_fail,
)
from drydock.engine.lakehouse.procedures.paimon_layout import (
    Layout,
    branch_dir,
    copy_tree,
    same_commit,
    schema_files,
    schema_path,
    write_hint,
    write_snapshot_file,
)
from drydock.engine.results import Result

RESULT = ("result",)
BOOLEAN = ("BOOLEAN",)  # Paimon: result BooleanType


def create_branch(ctx: ProcedureContext, values: dict[str, Any]) -> Result:
    target = resolve_table(ctx, "create_branch", values["table"])
    name = check_name(target.procedure, "branch", values["branch"], "branch")
    if name in target.branches():
        if values["ignoreIfExists"]:
            target.note(f"branch '{name}' of {target.display} already exists; nothing done")
            return single_row(RESULT, (True,))
        raise target.bad(f"Branch name '{name}' already exists in {target.display}")
    tag = tag_or_fail(target, values["tag"]) if values["tag"] is not None else None
    latest_schema = target.table.schema_manager.latest()
    schema_id = tag.schema_id if tag is not None else latest_schema.id
    before_change(target, [pin_latest(target), pin_tags(target)])
    io = target.file_io
    for i in range(schema_id + 1):  # the branch starts with main's schemas up to its base
        if io.exists(schema_path(target, MAIN, i)):
            io.copy_file(
                schema_path(target, MAIN, i), schema_path(target, name, i), overwrite=False
            )
    if tag is not None:
        snapshot = tag.trim_to_snapshot()
        io.write_file(
            target.tag_manager(name).tag_path(values["tag"]),
            io.read_file_utf8(target.tag_manager().tag_path(values["tag"])),
            overwrite=False,
        )
        main_copy = target.snapshot_manager().get_snapshot_by_id(snapshot.id)
        source = (
            main_copy if same_commit(main_copy, snapshot) else snapshot
        )  # expired: rebuild from the tag
        write_snapshot_file(target, name, source)
        write_hint(target, name, "EARLIEST", snapshot.id)
        write_hint(target, name, "LATEST", snapshot.id)
    target.note(
        f"created branch '{name}' of {target.display} "
        + (f"from tag '{values['tag']}' (snapshot {tag.id})" if tag is not None else "(empty)")
    )
    return single_row(RESULT, (True,))


def delete_branch(ctx: ProcedureContext, values: dict[str, Any]) -> Result:
    target = resolve_table(ctx, "delete_branch", values["table"])
    names = [
        branch_or_fail(target, n)
        for n in name_list(target.procedure, "branch", values["branch"], "branch")
    ]
    if len(names) > configured_max_deletes(ctx):
        raise refuse_over_limit(target, len(names), "Delete fewer branches per call.")
    before_change(
        target, [pin_latest(target, n) for n in names] + [pin_tags(target, n) for n in names]
    )
    for name in names:
        ctx.check_cancelled()
        target.file_io.delete(branch_dir(target, name), recursive=True)
        ctx.done.append(f"deleted branch '{name}' of {target.display}")
    target.note(
        f"deleted branch(es) {', '.join(names)} of {target.display}; data files only they "
        f"referenced "
        "are left for remove_orphan_files"
    )
    return single_row(RESULT, (True,))


def rename_branch(ctx: ProcedureContext, values: dict[str, Any]) -> Result:
    target = resolve_table(ctx, "rename_branch", values["table"])
    old = branch_or_fail(
        target, check_name(target.procedure, "branch", values["from_branch"], "from_branch")
    )
    new = check_name(target.procedure, "branch", values["to_branch"], "to_branch")
    if new in target.branches():
        raise target.bad(f"Branch name '{new}' already exists in {target.display}")
    before_change(target, [pin_latest(target, old), pin_tags(target, old)])
    io, source, destination = target.file_io, branch_dir(target, old), branch_dir(target, new)
    if not io.rename(source, destination) or io.exists(source):
        # Object stores cannot rename a directory (pypaimon then reports success and does nothing):
        # copy every object, then delete the old branch directory.
        copy_tree(target, source, destination)
        io.delete(source, recursive=True)
    if new not in target.branches() or old in target.branches():
        raise target.fail(f"renaming branch '{old}' to '{new}' did not take effect")
    target.note(f"renamed branch '{old}' of {target.display} to '{new}'")
    return single_row(RESULT, (True,))


def fast_forward(ctx: ProcedureContext, values: dict[str, Any]) -> Result:
    target = resolve_table(ctx, "fast_forward", values["table"])
    branch = branch_or_fail(
        target, check_name(target.procedure, "branch", values["branch"], "branch")
    )
    source = target.snapshot_manager(branch).list_snapshots()
    if not source:
        raise target.fail(
            f"Cannot fast forward branch {branch}, because it does not have snapshot."
        )
    base, main = source[0], target.snapshot_manager()
    latest = main.get_latest_snapshot()
    # A fast-forward only: main's latest snapshot must be a commit the branch also has.
    if latest is not None and not same_commit(
        latest, target.snapshot_manager(branch).get_snapshot_by_id(latest.id)
    ):
        raise not_supported(
            "fast_forward",
            (
                f"main of {target.display} is at snapshot {latest.id}, a commit branch '{branch}' "
                f"does not have "
                f"(the branch starts at base snapshot {base.id}): main has commits the branch "
                f"lacks. A fast-forward "
                "would discard them; pypaimon's own fast_forward corrupts main in this case. Use "
                "merge_branch, "
                f"or roll main back to snapshot {base.id} first."
            ),
        )
    ahead = [s for s in source if latest is None or s.id > latest.id]
    if not ahead:
        target.note(f"main of {target.display} already is at branch '{branch}''s head {latest.id}")
        return single_row(RESULT, (True,))
    main_schemas, ours = schema_files(target, MAIN), schema_files(target, branch)
    if any(main_schemas[i] != ours[i] for i in main_schemas.keys() & ours.keys()) or set(
        main_schemas
    ) - set(ours):
        raise not_supported(
            "fast_forward",
            "main's schema changed after the branch was created; drydock does "
            "not fast-forward across diverged schemas",
        )
    schemas = sorted(set(ours) - set(main_schemas))
    before_change(target, [pin_latest(target), pin_latest(target, branch)])
    io, copied = target.file_io, []
    for schema_id in schemas:
        io.copy_file(
            schema_path(target, branch, schema_id),
            schema_path(target, MAIN, schema_id),
            overwrite=False,
        )
        copied.append(schema_id)
    start = moved = latest.id if latest is not None else None
    for snapshot in ahead:
        target.ctx.check_cancelled()
        if not write_snapshot_file(target, MAIN, snapshot):  # another writer took this id first
            if moved == start:
                for schema_id in copied:  # no main snapshot references them: undo
                    io.delete_quietly(schema_path(target, MAIN, schema_id))
                raise Errors.PROCEDURE_CONCURRENT_COMMIT.error(
                    procedure=target.procedure,
                    table=target.display,
                    expected=f"main at {start}",
                    actual=f"snapshot {snapshot.id} committed by another writer",
                )
            raise target.fail(
                f"main was fast-forwarded to snapshot {moved}, then another writer committed "
                f"snapshot {snapshot.id}; main is consistent at that commit"
            )
        moved = snapshot.id
        ctx.done.append(f"main fast-forwarded to snapshot {moved}")
        write_hint(target, MAIN, "LATEST", moved)
    if latest is None:
        write_hint(target, MAIN, "EARLIEST", ahead[0].id)
    target.note(
        f"fast-forwarded main of {target.display} from {latest.id if latest else 'no snapshot'} to "
        f"branch '{branch}''s snapshot {moved}"
    )
    return single_row(RESULT, (True,))


def merge_branch(ctx: ProcedureContext, values: dict[str, Any]) -> Result:
    target = resolve_table(ctx, "merge_branch", values["table"])
    source, into = values["source_branch"], values["target_branch"] or MAIN
    for name, arg in ((source, "source_branch"), (into, "target_branch")):
        if name != MAIN:
            branch_or_fail(target, check_name(target.procedure, "branch", name, arg))
    if into == source:
        raise target.bad("branch and target_branch must differ")
    _check_mergeable(target, source, into)
    tables = {b: target.branch_table(b) for b in (source, into)}
    pins = [pin_latest(target, source), pin_latest(target, into)]
    heads = {b: target.snapshot_manager(b).get_latest_snapshot() for b in (source, into)}
    if heads[source] is None:
        raise target.fail(f"branch '{source}' has no snapshot; nothing to merge")
    if tables[source].table_schema.fields != tables[into].table_schema.fields:
        raise not_supported(
            "merge_branch", f"branch '{source}' and '{into}' have different schemas"
        )
    theirs = _live_entries(tables[source], heads[source])
    ours = (
        {e.file.file_name for e in _live_entries(tables[into], heads[into])}
        if heads[into]
        else set()
    )
    new = [e for e in theirs if e.file.file_name not in ours]
    if not new:
        target.note(f"branch '{source}' has no data files that '{into}' lacks; nothing merged")
        return single_row(RESULT, (True,))
    from pypaimon.write.commit_message import CommitMessage

    grouped: dict[tuple[Any, int], list[Any]] = {}
    for entry in new:
        grouped.setdefault((tuple(entry.partition.values), entry.bucket), []).append(entry.file)
    base_id = heads[into].id if heads[into] else None
    messages = [
        CommitMessage(partition=key[0], bucket=key[1], new_files=files, check_from_snapshot=base_id)
        for key, files in sorted(grouped.items(), key=lambda kv: str(kv[0]))
    ]
    before_change(target, pins)
    try:
        tables[into].new_batch_write_builder().new_commit().commit(
            messages,
            snapshot_properties={
                "drydock.procedure": "merge_branch",
                "drydock.source-branch": source,
            },
        )
    except RuntimeError as exc:  # pypaimon's conflict check: the same files were merged meanwhile
        if pins[1].read() == pins[1].value:
            raise
        raise Errors.PROCEDURE_CONCURRENT_COMMIT.error(
            procedure=target.procedure,
            table=f"{target.display} branch '{into}'",
            expected=f"snapshot {base_id}",
            actual=exception_text(exc),
        ) from None
    rows = sum(e.file.row_count for e in new)
    target.note(
        f"merged {len(new)} data files ({rows} rows) of branch '{source}' into '{into}' of "
        f"{target.display}"
    )
    return single_row(RESULT, (True,))


def _check_mergeable(target: ResolvedPaimonTable, source: str, into: str) -> None:
    options = {k: str(v).lower() for k, v in target.table.table_schema.options.items()}
    if options.get("branch-merge.enabled") != "true":
        raise not_supported(
            "merge_branch",
            "the table must be created with 'branch-merge.enabled' = 'true' "
            "(Paimon's guard that keeps both branches pure-append, so a file-level merge is exact)",
        )
    if (
        target.table.primary_keys
        or options.get("deletion-vectors.enabled") == "true"
        or options.get("row-tracking.enabled") == "true"
        or options.get("data-evolution.enabled") == "true"
    ):
        raise not_supported(
            "merge_branch", "only append-only tables without deletion vectors or row tracking"
        )
    layout = Layout(target)
    for branch in (
        source,
        into,
    ):  # pypaimon does not enforce the guard: check the history ourselves
        for snapshot in target.snapshot_manager(branch).list_snapshots():
            refs = layout.refs(snapshot)
            if snapshot.commit_kind != "APPEND" or refs.mentioned - refs.live:
                raise not_supported(
                    "merge_branch",
                    f"branch '{branch}' is not pure-append (snapshot {snapshot.id} "
                    f"is a {snapshot.commit_kind} commit that removes files)",
                )


def _live_entries(table: Any, snapshot: Any) -> list[Any]:
    from pypaimon.manifest.manifest_file_manager import ManifestFileManager
    from pypaimon.manifest.manifest_list_manager import ManifestListManager

    manifests = ManifestListManager(table).read_all(snapshot)
    return ManifestFileManager(table).read_entries_parallel(manifests, drop_stats=False)


PROCEDURES = [
    Procedure(
        name="create_branch",
        doc="Create a branch from a tag of main, or an empty branch",
        args=(
            TABLE_ARG,
            Arg("branch", "STRING", required=True, doc="the new branch's name"),
            Arg("tag", "STRING", doc="the tag it starts from (default: an empty branch)"),
            Arg(
                "ignoreIfExists",
                "BOOLEAN",
                default=False,
                doc="no error if the branch exists (a BOOLEAN; Spark declares a STRING, 'true' is "
                "accepted)",
            ),
        ),
        result_columns=RESULT,
        result_types=BOOLEAN,
        run=create_branch,
    ),
    Procedure(
        name="delete_branch",
        doc="Delete branches (comma-separated names; all must exist)",
        args=(
            TABLE_ARG,
            Arg("branch", "STRING", required=True, doc="branch name(s), comma-separated"),
        ),
        result_columns=RESULT,
        result_types=BOOLEAN,
        run=delete_branch,
    ),
    Procedure(
        name="rename_branch",
        doc="Rename a branch",
        args=(
            TABLE_ARG,
            Arg("from_branch", "STRING", required=True, doc="the existing branch"),
            Arg("to_branch", "STRING", required=True, doc="its new name"),
        ),
        result_columns=RESULT,
        result_types=BOOLEAN,
        run=rename_branch,
    ),
    Procedure(
        name="fast_forward",
        doc="Move main to a branch's latest snapshot; only if the branch contains main's latest "
        "commit",
        args=(TABLE_ARG, Arg("branch", "STRING", required=True, doc="the branch main moves to")),
        result_columns=RESULT,
        result_types=BOOLEAN,
        run=fast_forward,
    ),
    Procedure(
        name="merge_branch",
        doc="Append a branch's data files that the target lacks (append-only tables with "
        "branch-merge.enabled)",
        args=(
            TABLE_ARG,
            Arg(
                "source_branch",
                "STRING",
                required=True,
                doc="the source branch",
                aliases=("branch",),
            ),  # Paimon's name; drydock first called it branch
            Arg(
                "target_branch",
                "STRING",
                default="main",
                doc="the branch merged into (default main)",
            ),
        ),
        result_columns=RESULT,
        result_types=BOOLEAN,
        run=merge_branch,
    ),
]
