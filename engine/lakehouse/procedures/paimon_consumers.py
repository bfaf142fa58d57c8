"""reset_consumer and clear_consumers (Paimon's Spark procedures ResetConsumerProcedure and
ClearConsumersProcedure) on Paimon's consumer files, ``<table>/consumer/consumer-<id>`` holding
``{"nextSnapshot": n}``, through pypaimon's ConsumerManager.

A consumer's ``nextSnapshot`` is the floor snapshot expiry must keep (expire_snapshots reads
``min_next_snapshot``), so moving or deleting one changes what a later expiry may delete: every
call pins the latest snapshot and the consumer set it validated and checks both right before it
writes, like the other procedures. Argument names are Spark's (camelCase); Flink's snake_case
spellings are accepted too.
"""

from __future__ import annotations

import re
from typing import Any

from drydock.engine.support.names import name_problem, shown
from drydock.engine.lakehouse.procedures.base import Arg, Procedure, ProcedureContext
from drydock.engine.lakehouse.procedures.paimon_common import (
    TABLE_ARG,
    Deleter,
    Pin,
    ResolvedPaimonTable,
    before_change,
    configured_max_deletes,
    pin_latest,
    refuse_over_limit,
    resolve_table,
    single_row,
    snapshot_or_fail,
)
from drydock.engine.results import Result

RESULT = ("result",)
BOOLEAN = ("BOOLEAN",)  # Paimon: result BooleanType
_UNSAFE = re.compile(r"[/\\\x00-\x1f\x7f]")


def consumers(target: ResolvedPaimonTable) -> Any:
    from pypaimon.consumer.consumer_manager import ConsumerManager

    return ConsumerManager(target.file_io, target.table.table_path)


def consumer_path(target: ResolvedPaimonTable, name: str) -> str:
    """Where Paimon keeps consumer ``name`` of main (ConsumerManager.consumerPath)."""
    return f"{target.table.table_path.rstrip('/')}/consumer/consumer-{name}"


def pin_consumers(target: ResolvedPaimonTable) -> Pin:
    """Every consumer id and its next snapshot (what expiry's floor is computed from)."""
    return Pin("the consumers", lambda: dict(sorted(consumers(target).consumers().items())))


def consumer_id(target: ResolvedPaimonTable, value: str) -> str:
    problem = name_problem(value) or (
        "must not contain path separators or control characters"
        if _UNSAFE.search(value) or value.startswith(".")
        else None
    )
    if problem:
        raise target.bad(
            f"argument 'consumerId': {shown(value)} is not a valid consumer id: it {problem}"
        )
    return value


def reset_consumer(ctx: ProcedureContext, values: dict[str, Any]) -> Result:
    target = resolve_table(ctx, "reset_consumer", values["table"])
    name = consumer_id(target, values["consumerId"])
    manager = consumers(target)
    next_snapshot = values["nextSnapshotId"]
    if next_snapshot is None:  # Spark: no id = delete the consumer
        if manager.consumer(name) is None:
            raise target.bad(f"consumer '{name}' doesn't exist in {target.display}")
        before_change(target, [pin_latest(target), pin_consumers(target)])
        Deleter(target).delete(consumer_path(target, name))
        target.note(
            f"deleted consumer '{name}' of {target.display}; snapshot expiry no longer waits for it"
        )
        return single_row(RESULT, (True,))
    snapshot_or_fail(target, next_snapshot)  # Paimon checks the snapshot exists too
    before_change(target, [pin_latest(target), pin_consumers(target)])
    previous = manager.consumer(name)
    from pypaimon.consumer.consumer import Consumer

    manager.reset_consumer(name, Consumer(next_snapshot=next_snapshot))
    if target.snapshot_manager().get_snapshot_by_id(next_snapshot) is None:  # expired meanwhile
        if previous is None:
            target.file_io.delete_quietly(consumer_path(target, name))
        else:
            manager.reset_consumer(name, previous)
        raise target.fail(
            f"snapshot {next_snapshot} was expired while the consumer was reset; "
            "the consumer was restored"
        )
    was = "new" if previous is None else f"was at snapshot {previous.next_snapshot}"
    target.note(
        f"consumer '{name}' of {target.display} now starts at snapshot {next_snapshot} ({was})"
    )
    return single_row(RESULT, (True,))


def _pattern(target: ResolvedPaimonTable, arg: str, text: str | None) -> re.Pattern[str] | None:
    """A Java regular expression as Paimon compiles it (matched against the whole id)."""
    if text is None or not text.strip():
        return None
    try:
        return re.compile(text)
    except re.error as exc:
        raise target.bad(f"argument '{arg}' is not a valid regular expression: {exc}") from None


def clear_consumers(ctx: ProcedureContext, values: dict[str, Any]) -> Result:
    target = resolve_table(ctx, "clear_consumers", values["table"])
    including = _pattern(target, "includingConsumers", values["includingConsumers"])
    excluding = _pattern(target, "excludingConsumers", values["excludingConsumers"])
    pins = [pin_latest(target), pin_consumers(target)]
    # Paimon's ConsumerManager.clearConsumers: including (default: all) minus excluding, whole-id
    # matches
    chosen = [
        c
        for c in pins[1].value
        if (including is None or including.fullmatch(c))
        and not (excluding and excluding.fullmatch(c))
    ]
    if len(chosen) > configured_max_deletes(ctx):
        raise refuse_over_limit(target, len(chosen), "Narrow includingConsumers.")
    before_change(target, pins)
    deleter = Deleter(target)
    for name in chosen:
        deleter.delete(consumer_path(target, name))
    target.note(
        f"cleared {len(chosen)} consumer(s) of {target.display}"
        + (f": {', '.join(chosen)}" if chosen else "")
    )
    return single_row(RESULT, (True,))


PROCEDURES = [
    Procedure(
        name="reset_consumer",
        doc="Move a consumer to a snapshot, or delete it when nextSnapshotId is omitted "
        "(drydock: deleting a consumer that does not exist is an error, Paimon ignores it)",
        args=(
            TABLE_ARG,
            Arg(
                "consumerId",
                "STRING",
                required=True,
                doc="the consumer id",
                aliases=("consumer_id",),
            ),
            Arg(
                "nextSnapshotId",
                "LONG",
                doc="the snapshot it reads next (must exist); omitted: delete it",
                aliases=("next_snapshot_id",),
            ),
        ),
        result_columns=RESULT,
        result_types=BOOLEAN,
        run=reset_consumer,
    ),
    Procedure(
        name="clear_consumers",
        doc="Delete consumers whose id matches includingConsumers (default: all) and not "
        "excludingConsumers",
        args=(
            TABLE_ARG,
            Arg(
                "includingConsumers",
                "STRING",
                doc="regular expression (whole id)",
                aliases=("including_consumers",),
            ),
            Arg(
                "excludingConsumers",
                "STRING",
                doc="regular expression (whole id)",
                aliases=("excluding_consumers",),
            ),
        ),
        result_columns=RESULT,
        result_types=BOOLEAN,
        run=clear_consumers,
    ),
]
