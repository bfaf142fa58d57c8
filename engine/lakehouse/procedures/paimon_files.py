"""remove_orphan_files and compact.

remove_orphan_files works on the table layout (paimon_layout): pypaimon has no cleanup API.

compact rewrites the data files of append-only tables through pypaimon's own writer and commits
the swap as one snapshot. pypaimon refuses COMPACT increments (FileStoreCommit
._reject_compact_increment), but its ordinary commit accepts a message that deletes files and adds
files: that becomes an OVERWRITE snapshot, checked by pypaimon's conflict detection (a deleted
input that is already gone, or any commit to the same partitions after the pinned snapshot, fails
it). Rows are read from the pinned snapshot, written unchanged, and the counts are checked before
the commit. Primary-key tables are refused: see _ineligible().
"""

from __future__ import annotations

import time
import uuid
from collections import defaultdict
from typing import Any

from sqlglot import exp

from drydock.engine.errors import DrydockError, Errors, exception_text
from drydock.engine.lakehouse.procedures.base import Arg, Procedure, ProcedureContext
from drydock.engine.lakehouse.procedures.paimon_common import (
    Deleter,
    ResolvedPaimonTable,
    before_change,
    configured_max_deletes,
    not_supported,
    pin_everything,
    pin_latest,
    resolve_table,
    single_row,
    tables_of,
    timestamp_millis,
)
from drydock.engine.lakehouse.procedures import paimon_where
from drydock.engine.lakehouse.procedures.paimon_layout import Layout, paimon_named
from drydock.engine.results import Result

DAY_MILLIS = 24 * 3600 * 1000
NOTE_PATHS = 20
# Spark RemoveOrphanFilesProcedure.OUTPUT_TYPE (both LongType); Flink returns the same two values
ORPHAN_RESULT = ("deletedFileCount", "deletedFileTotalLenInBytes")


# -- remove_orphan_files ------------------------------------------------------------------------
def remove_orphan_files(ctx: ProcedureContext, values: dict[str, Any]) -> Result:
    procedure = "remove_orphan_files"
    if values["parallelism"] is not None and values["parallelism"] < 1:
        raise Errors.PROCEDURE_BAD_ARGUMENT.error(
            procedure=procedure, detail="'parallelism' must be at least 1"
        )
    mode = (values["mode"] or "distributed").lower()
    if mode not in ("local", "distributed"):
        raise Errors.PROCEDURE_BAD_ARGUMENT.error(
            procedure=procedure,
            detail=f"Unknown mode: {values['mode']}. Only 'DISTRIBUTED' and 'LOCAL' are supported.",
        )
    older_than = (
        timestamp_millis(procedure, "older_than", values["older_than"])
        if values["older_than"]
        else int(time.time() * 1000) - DAY_MILLIS
    )
    budget = configured_max_deletes(ctx)
    count = size = 0
    for name in tables_of(ctx, procedure, values["table"]):
        target = resolve_table(ctx, procedure, name)
        deleted, deleted_bytes = _clean(target, older_than, bool(values["dry_run"]), budget - count)
        count, size = count + deleted, size + deleted_bytes
    return single_row(ORPHAN_RESULT, (count, size))


def _clean(
    target: ResolvedPaimonTable, older_than: int, dry_run: bool, budget: int
) -> tuple[int, int]:
    pins = [pin_everything(target)]
    layout = Layout(target)
    used = layout.referenced(layout.roots())
    orphans = [
        f
        for f in layout.files()
        if paimon_named(f.name) and f.name not in used and f.mtime_ms < older_than
    ]
    if len(orphans) > budget:
        target.warn(
            f"{len(orphans)} orphan files in {target.display}; procedure_max_deletes allows "
            f"{budget} "
            f"more in this call: {'listed' if dry_run else 'deleting'} the first {budget} (by path)"
        )
        orphans = orphans[:budget]
    verb = "would delete" if dry_run else "deleted"
    if orphans:
        shown = ", ".join(f.path for f in orphans[:NOTE_PATHS])
        more = f" and {len(orphans) - NOTE_PATHS} more" if len(orphans) > NOTE_PATHS else ""
        target.note(f"{target.display}: {verb} {len(orphans)} orphan files: {shown}{more}")
    if dry_run or not orphans:
        return len(orphans), sum(f.size for f in orphans)
    before_change(target, pins)
    deleter = Deleter(target, budget)
    for orphan in orphans:
        deleter.delete(orphan.path, orphan.size)
    return deleter.count, deleter.bytes


# -- compact ------------------------------------------------------------------------------------
def _ineligible(target: ResolvedPaimonTable) -> str | None:
    """Why this table cannot be compacted correctly through pypaimon (None: it can)."""
    table, options = target.table, target.table.options
    raw = {k: str(v).lower() for k, v in table.table_schema.options.items()}
    if table.primary_keys:
        return (
            "it has a primary key: pypaimon cannot commit a COMPACT snapshot (it rejects compact "
            "increments), and rewriting a merge-tree bucket through its writer gives the rows new "
            "sequence numbers and levels, so a concurrent upsert of the same key could lose to the "
            "rewritten older value"
        )
    if options.deletion_vectors_enabled():
        return (
            "deletion vectors are enabled: "
            "the rewrite would have to rewrite the deletion-vector index too"
        )
    if options.row_tracking_enabled() or options.data_evolution_enabled():
        return "row tracking / data evolution is enabled: a rewrite would assign new row ids"
    if raw.get("branch-merge.enabled") == "true":
        return "'branch-merge.enabled' = 'true' allows only pure-append commits"
    if any(k in raw for k in ("blob-field", "vector-field", "blob.field", "vector.field")):
        return "blob or vector columns are stored in separate files this rewrite does not handle"
    if table.bucket_mode().name not in ("BUCKET_UNAWARE", "HASH_FIXED"):
        return f"bucket mode {table.bucket_mode().name} is not supported"
    return None


def _partition_filter(target: ResolvedPaimonTable, text: str | None) -> list[dict[str, str]] | None:
    """'k=v,k2=v2;k=v3': ',' is AND, ';' is OR (Paimon's syntax)."""
    if not text:
        return None
    keys = set(target.table.partition_keys)
    if not keys:
        raise target.bad(f"{target.display} is not partitioned; 'partitions' does not apply")
    alternatives = []
    for alternative in text.split(";"):
        spec = {}
        for part in alternative.split(","):
            key, sep, value = part.partition("=")
            if not sep or key.strip() not in keys:
                raise target.bad(
                    f"'partitions' must be 'key=value[,key=value][;...]' over partition keys "
                    f"{', '.join(target.table.partition_keys)}; got '{part}'"
                )
            spec[key.strip()] = value.strip()
        alternatives.append(spec)
    return alternatives


def _matches(
    target: ResolvedPaimonTable, partition: Any, alternatives: list[dict[str, str]] | None
) -> bool:
    if alternatives is None:
        return True
    values = dict(zip(target.table.partition_keys, partition.values))
    return any(all(str(values[k]) == v for k, v in spec.items()) for spec in alternatives)


def compact(ctx: ProcedureContext, values: dict[str, Any]) -> Result:
    procedure = "compact"
    if values["partition_idle_time"]:
        raise not_supported(
            procedure,
            "'partition_idle_time' is not supported; select partitions with "
            "'partitions' or 'where'",
        )
    if values["partitions"] and values["where"]:
        raise Errors.PROCEDURE_BAD_ARGUMENT.error(
            procedure=procedure, detail="'partitions' and 'where' cannot be used together"
        )
    if values["options"]:
        raise not_supported(procedure, "'options' is not supported")
    strategy = (values["order_strategy"] or "none").lower()
    if strategy not in ("none", "order", "zorder", "hilbert"):
        raise Errors.PROCEDURE_BAD_ARGUMENT.error(
            procedure=procedure,
            detail=f"order_strategy must be none, order, zorder or hilbert, got '{strategy}'",
        )
    if strategy in ("zorder", "hilbert"):
        raise not_supported(
            procedure, f"order_strategy '{strategy}' is not supported; use 'order' or 'none'"
        )
    if (strategy == "order") != bool(values["order_by"]):
        raise Errors.PROCEDURE_BAD_ARGUMENT.error(
            procedure=procedure,
            detail="order_by is required with order_strategy 'order' and only allowed with it",
        )
    kind = (values["compact_strategy"] or "full").lower()
    if kind not in ("full", "minor"):
        raise Errors.PROCEDURE_BAD_ARGUMENT.error(
            procedure=procedure,
            detail=f"compact_strategy must be 'full' or 'minor', got "
            f"'{values['compact_strategy']}'",
        )
    database_wide = values["table"].endswith(".*")
    for name in tables_of(ctx, procedure, values["table"]):
        target = resolve_table(ctx, procedure, name)
        reason = _ineligible(target)
        if reason and database_wide:
            target.note(f"skipped {target.display}: compaction is not supported because {reason}")
            continue
        if reason:
            raise not_supported(procedure, f"{target.display} cannot be compacted: {reason}")
        selector = (
            paimon_where.parse_where(target, values["where"])
            if values["where"]
            else _partition_filter(target, values["partitions"])
        )
        _compact_table(
            target,
            selector,
            kind,
            [c.strip() for c in (values["order_by"] or "").split(",") if c.strip()],
        )
    return single_row(("result",), (True,))


def _groups(
    target: ResolvedPaimonTable, pinned: Any, alternatives: Any, kind: str
) -> dict[tuple[Any, int], list[Any]]:
    """The splits to rewrite, by (partition values, bucket)."""
    groups: dict[tuple[Any, int], list[Any]] = defaultdict(list)
    splits = pinned.new_read_builder().new_scan().plan().splits()
    if isinstance(alternatives, exp.Expr):  # 'where': DuckDB picks the partitions
        matching = paimon_where.matching(
            target, alternatives, {tuple(s.partition.values) for s in splits}
        )
        splits = [s for s in splits if tuple(s.partition.values) in matching]
        alternatives = None
    for split in splits:
        if _matches(target, split.partition, alternatives):
            groups[(tuple(split.partition.values), split.bucket)].append(split)
    chosen = {}
    small = target.table.options.target_file_size(False)
    minimum = int(target.table.table_schema.options.get("compaction.min.file-num", 5))
    for key, splits in groups.items():
        files = [f for s in splits for f in s.files]
        wanted = (
            len(files) >= 2
            if kind == "full"
            else sum(f.file_size < small for f in files) >= max(minimum, 2)
        )
        if wanted and kind == "minor":
            splits = [s for s in splits if all(f.file_size < small for f in s.files)]
        if wanted and splits:
            chosen[key] = splits
    return chosen


def _compact_table(
    target: ResolvedPaimonTable, alternatives: Any, kind: str, order_by: list[str]
) -> None:
    missing = [c for c in order_by if c not in target.table.field_names]
    if missing:
        raise target.bad(f"order_by column(s) {', '.join(missing)} not in {target.display}")
    pin = pin_latest(target)
    latest = target.snapshot_manager().get_latest_snapshot()
    if latest is None:
        target.note(f"{target.display} has no snapshot; nothing to compact")
        return
    pinned = target.table.copy({"scan.snapshot-id": str(latest.id)})
    groups = _groups(target, pinned, alternatives, kind)
    if not groups:
        target.note(f"{target.display}: nothing to compact at snapshot {latest.id} ({kind})")
        return
    reader = pinned.new_read_builder().new_read()
    builder = target.table.new_batch_write_builder()
    writer = builder.new_write()
    expected: dict[tuple[Any, int], tuple[list[Any], int]] = {}
    try:
        for key, splits in sorted(groups.items(), key=lambda kv: str(kv[0])):
            target.ctx.check_cancelled()
            files = [f for s in splits for f in s.files]
            rows = reader.to_arrow(splits)
            if rows.num_rows != sum(f.row_count for f in files):
                raise target.fail(
                    f"bucket {key} read {rows.num_rows} rows but its files hold "
                    f"{sum(f.row_count for f in files)}; not compacting"
                )
            if order_by:
                rows = rows.sort_by([(c, "ascending") for c in order_by])
            writer.write_arrow(rows)
            expected[key] = (files, rows.num_rows)
        messages = writer.prepare_commit()
    finally:
        writer.close()
    _commit(target, builder, messages, expected, latest, pin)


def _commit(
    target: ResolvedPaimonTable,
    builder: Any,
    messages: list[Any],
    expected: dict[Any, Any],
    latest: Any,
    pin: Any,
) -> None:
    written: dict[tuple[Any, int], int] = defaultdict(int)
    for message in messages:
        key = (tuple(message.partition), message.bucket)
        if key not in expected:
            builder.new_commit().abort(messages)
            raise target.fail(
                f"the rewrite produced files for {key}, which was not compacted; nothing committed"
            )
        written[key] += sum(f.row_count for f in message.new_files)
        message.deleted_files, message.check_from_snapshot = list(expected[key][0]), latest.id
    for key, (files, rows) in expected.items():
        if written.get(key, 0) != rows:
            builder.new_commit().abort(messages)
            raise target.fail(
                f"bucket {key}: wrote {written.get(key, 0)} rows for {rows}; nothing committed"
            )
    call = str(uuid.uuid4())
    try:
        before_change(target, [pin])
        properties = {"drydock.procedure": "compact", "drydock.call": call}
        builder.new_commit().commit(messages, snapshot_properties=properties)
    except DrydockError:
        builder.new_commit().abort(messages)
        raise
    except RuntimeError as exc:
        now = target.snapshot_manager().get_latest_snapshot()
        if now is not None and (now.properties or {}).get("drydock.call") == call:
            return  # committed after all (an error after publication)
        builder.new_commit().abort(messages)
        if "conflict" in str(exc).lower():
            raise Errors.PROCEDURE_CONCURRENT_COMMIT.error(
                procedure=target.procedure,
                table=target.display,
                expected=f"snapshot {latest.id}",
                actual=exception_text(exc),
            ) from None
        raise
    before = sum(len(files) for files, _ in expected.values())
    after = sum(len(m.new_files) for m in messages)
    target.note(
        f"{target.display}: rewrote {before} data files into {after} in {len(expected)} bucket(s), "
        f"{sum(rows for _, rows in expected.values())} rows unchanged; the old files stay until "
        "expire_snapshots removes the snapshots that reference them"
    )


PROCEDURES = [
    Procedure(
        name="remove_orphan_files",
        doc="Delete files under the table no snapshot, tag, branch or changelog references, older "
        "than "
        "older_than (result: Spark's deletedFileCount, deletedFileTotalLenInBytes)",
        args=(
            Arg("table", "STRING", required=True, doc="'database.table' or 'database.*'"),
            Arg(
                "older_than",
                "STRING",
                doc="only files last modified before this (default: now - 1 day)",
            ),
            Arg("dry_run", "BOOLEAN", default=False, doc="only report what would be deleted"),
            Arg(
                "parallelism", "INT", doc="accepted for compatibility; drydock deletes sequentially"
            ),
            Arg("mode", "STRING", doc="'local' or 'distributed' (accepted for compatibility)"),
        ),
        result_columns=ORPHAN_RESULT,
        result_types=("BIGINT", "BIGINT"),
        run=remove_orphan_files,
    ),
    Procedure(
        name="compact",
        doc="Rewrite the small data files of an append-only table (rows unchanged); 'database.*' "
        "for every "
        "table (Paimon's 'buckets' argument is not taken)",
        args=(
            Arg("table", "STRING", required=True, doc="'database.table' or 'database.*'"),
            Arg("partitions", "STRING", doc="'k=v,k2=v2;k=v3' (',' AND, ';' OR)"),
            Arg(
                "where",
                "STRING",
                doc="a condition on partition columns, e.g. dt = '2024-01-01' "
                "(exclusive with partitions)",
            ),
            Arg("order_strategy", "STRING", default="none", doc="none | order"),
            Arg("order_by", "STRING", doc="columns for order_strategy 'order'"),
            Arg("options", "STRING", doc="not supported"),
            Arg("partition_idle_time", "STRING", doc="not supported"),
            Arg(
                "compact_strategy",
                "STRING",
                default="full",
                doc="full: every bucket with 2+ files; minor: small files, compaction.min.file-num "
                "of them",
            ),
        ),
        result_columns=("result",),
        result_types=("BOOLEAN",),
        run=compact,
    ),
]
