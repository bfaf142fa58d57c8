"""expire_partitions and mark_partition_done (Paimon's P2 partition procedures).

expire_partitions drops whole partitions through pypaimon's own partition drop (an OVERWRITE
snapshot; files stay until expire_snapshots). mark_partition_done supports the 'success-file'
action, the only one a filesystem catalog can carry out: a ``_SUCCESS`` file in the partition
directory (never touched by remove_orphan_files: it only deletes names Paimon generates).
"""

from __future__ import annotations

import datetime as dt
import json
import re
import time
from typing import Any

from drydock.engine.lakehouse.procedures.base import Arg, Procedure, ProcedureContext
from drydock.engine.lakehouse.procedures.paimon_common import (
    TABLE_ARG,
    ResolvedPaimonTable,
    before_change,
    duration_millis,
    not_supported,
    pin_latest,
    resolve_table,
    single_row,
)
from drydock.engine.results import Result

_JAVA_PATTERN = {"yyyy": "%Y", "MM": "%m", "dd": "%d", "HH": "%H", "mm": "%M", "ss": "%S"}


def _partitions(target: ResolvedPaimonTable) -> dict[tuple[Any, ...], int]:
    """Live partitions of the latest snapshot → newest file creation time (epoch ms)."""
    from pypaimon.manifest.manifest_file_manager import ManifestFileManager
    from pypaimon.manifest.manifest_list_manager import ManifestListManager

    latest = target.snapshot_manager().get_latest_snapshot()
    if latest is None:
        return {}
    manifests = ManifestListManager(target.table).read_all(latest)
    found: dict[tuple[Any, ...], int] = {}
    for entry in ManifestFileManager(target.table).read_entries_parallel(manifests):
        created = entry.file.creation_time_epoch_millis() or latest.time_millis
        key = tuple(entry.partition.values)
        found[key] = max(found.get(key, 0), created)
    return found


def _spec(target: ResolvedPaimonTable, values: tuple[Any, ...]) -> str:
    return ",".join(f"{k}={v}" for k, v in zip(target.table.partition_keys, values))


def _formatter(target: ResolvedPaimonTable, text: str | None) -> str:
    if not text:
        return "%Y-%m-%d"
    pattern = re.sub(r"yyyy|MM|dd|HH|mm|ss", lambda m: _JAVA_PATTERN[m.group(0)], text)
    if re.search(r"[A-Za-z]", re.sub(r"%[YmdHMS]", "", pattern)):
        raise target.bad(
            f"timestamp_formatter '{text}' uses letters drydock does not parse (yyyy MM dd HH mm "
            f"ss)"
        )
    return pattern


def _partition_time(
    target: ResolvedPaimonTable, values: tuple[Any, ...], pattern: str | None, formatter: str
) -> int | None:
    fields = dict(zip(target.table.partition_keys, (str(v) for v in values)))
    text = (
        re.sub(r"\$(\w+)", lambda m: fields.get(m.group(1), m.group(0)), pattern)
        if pattern
        else str(values[0])
    )
    try:
        parsed = dt.datetime.strptime(text, formatter)
    except ValueError:
        return None  # Paimon skips partitions whose value does not parse
    return int(parsed.astimezone().timestamp() * 1000)


def expire_partitions(ctx: ProcedureContext, values: dict[str, Any]) -> Result:
    target = resolve_table(ctx, "expire_partitions", values["table"])
    if not target.table.partition_keys:
        raise target.bad(f"{target.display} is not partitioned")
    window = duration_millis(target.procedure, "expiration_time", values["expiration_time"])
    strategy = (values["expire_strategy"] or "values-time").lower()
    if strategy not in ("values-time", "update-time"):
        raise target.bad(
            f"expire_strategy must be 'values-time' or 'update-time', got "
            f"'{values['expire_strategy']}'"
        )
    if values["max_expires"] is not None and values["max_expires"] < 1:
        raise target.bad("'max_expires' must be at least 1")
    if values["timestamp_pattern"]:
        unknown = set(re.findall(r"\$(\w+)", values["timestamp_pattern"])) - set(
            target.table.partition_keys
        )
        if unknown:
            raise target.bad(
                f"timestamp_pattern names unknown partition field(s) {', '.join(sorted(unknown))}"
            )
    formatter = _formatter(target, values["timestamp_formatter"])
    pin = pin_latest(target)
    cutoff = int(time.time() * 1000) - window
    expired = []
    for key, updated in sorted(_partitions(target).items(), key=lambda kv: _spec(target, kv[0])):
        when = (
            updated
            if strategy == "update-time"
            else _partition_time(target, key, values["timestamp_pattern"], formatter)
        )
        if when is not None and when < cutoff:
            expired.append(key)
    expired = expired[: values["max_expires"] or len(expired)]
    if not expired:
        return single_row(("expired_partitions",), ("No expired partitions.",))
    before_change(target, [pin])
    commit = target.table.new_batch_write_builder().new_commit()
    commit.truncate_partitions([dict(zip(target.table.partition_keys, key)) for key in expired])
    ctx.done.append(f"dropped {len(expired)} partition(s) of {target.display}")
    return Result(columns=["expired_partitions"], rows=[(_spec(target, key),) for key in expired])


def mark_partition_done(ctx: ProcedureContext, values: dict[str, Any]) -> Result:
    target = resolve_table(ctx, "mark_partition_done", values["table"])
    actions = str(
        target.table.table_schema.options.get("partition.mark-done-action", "success-file")
    )
    unsupported = [a.strip() for a in actions.split(",") if a.strip() != "success-file"]
    if unsupported:
        raise not_supported(
            target.procedure,
            f"mark-done action(s) {', '.join(unsupported)} need a metastore or "
            "a custom class; only 'success-file' is supported",
        )
    if not target.table.partition_keys:
        raise target.bad(f"{target.display} is not partitioned")
    live = {_spec(target, key): key for key in _partitions(target)}
    wanted = []
    for text in (values["partitions"] or "").split(";"):
        spec = {
            p.partition("=")[0].strip(): p.partition("=")[2].strip()
            for p in text.split(",")
            if p.strip()
        }
        if set(spec) != set(target.table.partition_keys):
            keys = ", ".join(target.table.partition_keys)
            raise target.bad(f"each partition must name every partition key ({keys}): got '{text}'")
        name = ",".join(f"{k}={spec[k]}" for k in target.table.partition_keys)
        if name not in live:
            raise target.bad(f"partition '{name}' doesn't exist in {target.display}")
        wanted.append(live[name])
    before_change(target, [pin_latest(target)])
    factory, io, now = target.table.path_factory(), target.file_io, int(time.time() * 1000)
    for key in wanted:
        path = factory.bucket_path(key, 0).rsplit("/bucket-", 1)[0] + "/_SUCCESS"
        created = (
            json.loads(io.read_file_utf8(path)).get("creationTime", now) if io.exists(path) else now
        )
        io.overwrite_file_utf8(path, json.dumps({"creationTime": created, "modificationTime": now}))
        ctx.done.append(f"marked {_spec(target, key)} done")
    return single_row(("result",), (True,))


PROCEDURES = [
    Procedure(
        name="expire_partitions",
        doc="Drop partitions older than expiration_time (by partition value or update time; "
        "Paimon's 'options' argument is not taken)",
        args=(
            TABLE_ARG,
            Arg("expiration_time", "STRING", required=True, doc="e.g. '1 d'"),
            Arg("timestamp_formatter", "STRING", doc="e.g. 'yyyy-MM-dd' (default) or 'yyyyMMdd'"),
            Arg(
                "timestamp_pattern",
                "STRING",
                doc="e.g. '$dt' or '$dt $hour:00:00' (default: first field)",
            ),
            Arg(
                "expire_strategy", "STRING", default="values-time", doc="values-time | update-time"
            ),
            Arg("max_expires", "INT", doc="partitions to drop at most"),
        ),
        result_columns=("expired_partitions",),
        result_types=("VARCHAR",),
        run=expire_partitions,
    ),
    Procedure(
        name="mark_partition_done",
        doc="Mark partitions done ('success-file': a _SUCCESS file in each)",
        args=(TABLE_ARG, Arg("partitions", "STRING", required=True, doc="'k=v,k2=v2;k=v3,...'")),
        result_columns=("result",),
        result_types=("BOOLEAN",),
        run=mark_partition_done,
    ),
]
