"""Shared pieces of the Paimon procedures: exact target resolution, the pinned state a call
validated, the concurrent-commit check before every change, argument parsing, bounded deletes and
the test-only pause hook.

Every procedure follows one shape: resolve the target exactly (the table, then the named branch,
tag or snapshot; never a fallback to another object), capture a :class:`Pin` of the state it
validated, run :func:`before_change` (the test hook, then a fresh read of the same state: any
difference is ``PROCEDURE_CONCURRENT_COMMIT`` and nothing has been changed), then change. Every
file or snapshot it removes goes through :class:`Deleter`, which honours ``procedure_max_deletes``
and KILL QUERY and records what was done for the cancel message.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from drydock.engine.support import faults
from drydock.engine.errors import Errors
from drydock.engine.support.instants import BadInstant, instant_millis
from drydock.engine.support.names import name_problem, shown
from drydock.engine.lakehouse.procedures.base import Arg, ProcedureContext, split_table
from drydock.engine.results import Diagnostic, Result
from drydock.engine.support.config_keys import Key

if TYPE_CHECKING:
    from drydock.engine.lakehouse.catalogs.paimon import PaimonConnector

# Test-only: a directory the server watches for "<procedure>.<point>.arm" files. Unset (the
# default) means no hook at all. See pause() and tests/procedures/test_procedures_paimon*.py.
HOOK_DIR_ENV = "DRYDOCK_TEST_PAIMON_HOOK_DIR"
HOOK_WAIT_SECONDS = 120.0
MAIN = "main"

TABLE_ARG = Arg(
    "table", "STRING", required=True, doc="'database.table' (exactly; no branch suffix)"
)


def paimon_catalog(ctx: ProcedureContext) -> Any:
    """The pypaimon catalog behind a Paimon procedure's connector (registered for Paimon catalogs
    only)."""
    return cast("PaimonConnector", ctx.connector).catalog()


@dataclass
class ResolvedPaimonTable:
    """The resolved table of a call: its pypaimon FileStoreTable, read fresh from the catalog."""

    ctx: ProcedureContext
    procedure: str
    db: str
    name: str
    table: Any

    @property
    def display(self) -> str:
        return f"{self.ctx.catalog.name}.{self.db}.{self.name}"

    @property
    def file_io(self) -> Any:
        return self.table.file_io

    def snapshot_manager(self, branch: str = MAIN) -> Any:
        from pypaimon.snapshot.snapshot_manager import SnapshotManager

        return SnapshotManager(self.file_io, self.table.table_path, branch)

    def tag_manager(self, branch: str = MAIN) -> Any:
        from pypaimon.tag.tag_manager import TagManager

        return TagManager(self.file_io, self.table.table_path, branch)

    def branches(self) -> list[str]:
        return sorted(self.table.branch_manager().branches())

    def branch_table(self, branch: str) -> Any:
        """The table on ``branch`` (its own schema), as a pypaimon writer of that branch sees it."""
        if branch == MAIN:
            return self.table
        return paimon_catalog(self.ctx).get_table(f"{self.db}.{self.name}$branch_{branch}")

    def fail(self, detail: str) -> Exception:
        return Errors.PROCEDURE_FAILED.error(procedure=self.procedure, detail=detail)

    def bad(self, detail: str) -> Exception:
        return Errors.PROCEDURE_BAD_ARGUMENT.error(procedure=self.procedure, detail=detail)

    def note(self, message: str) -> None:
        self.ctx.warnings.append(Diagnostic("Note", 1105, message))

    def warn(self, message: str) -> None:
        self.ctx.warnings.append(Diagnostic("Warning", 1105, message))


def resolve_table(ctx: ProcedureContext, procedure: str, table_arg: str) -> ResolvedPaimonTable:
    """The table named by ``table`` (the framework already checked it exists and the privilege)."""
    from pypaimon.catalog.catalog_exception import TableNotExistException

    db, name = split_table(table_arg, procedure)
    if "$" in name:
        raise Errors.PROCEDURE_BAD_ARGUMENT.error(
            procedure=procedure,
            detail=f"table must be 'database.table' without a '$' suffix, got '{table_arg}'",
        )
    try:
        table = paimon_catalog(ctx).get_table(f"{db}.{name}")
    except TableNotExistException:
        raise Errors.UNKNOWN_EXTERNAL_TABLE.error(
            table=f"{db}.{name}", catalog=ctx.catalog.name
        ) from None
    if type(table).__name__ != "FileStoreTable":
        raise Errors.PROCEDURE_NOT_SUPPORTED.error(
            detail=f"{procedure} needs a Paimon file store table; {db}.{name} is a "
            f"{type(table).__name__}"
        )
    return ResolvedPaimonTable(ctx, procedure, db, name, table)


def tables_of(ctx: ProcedureContext, procedure: str, table_arg: str) -> list[str]:
    """'db.*': every table of the database, sorted; 'db.t': just that one."""
    db, name = split_table(table_arg, procedure)
    if name != "*":
        return [table_arg]
    return [f"{db}.{t}" for t in sorted(paimon_catalog(ctx).list_tables(db))]  # fresh, not cached


# -- pinned state and the concurrent-commit check -----------------------------------------------
def snapshot_key(snapshot: Any) -> str:
    """What identifies one commit: id, time and uuid (a rolled-back-and-recommitted id differs)."""
    if snapshot is None:
        return "no snapshot"
    return f"snapshot {snapshot.id} ({snapshot.time_millis}, {snapshot.uuid})"


def tag_state(target: ResolvedPaimonTable, branch: str = MAIN) -> dict[str, str]:
    manager = target.tag_manager(branch)
    state = {}
    for name in sorted(manager.list_tags()):
        tag = manager.get(name)
        state[name] = "gone" if tag is None else f"{tag.id}/{tag.time_millis}"
    return state


@dataclass
class Pin:
    """A fingerprint of the state a call validated; compared again right before it changes it."""

    what: str
    read: Callable[[], Any]
    value: Any = None

    def __post_init__(self) -> None:
        self.value = self.read()


def pin_latest(target: ResolvedPaimonTable, branch: str = MAIN) -> Pin:
    manager = target.snapshot_manager(branch)
    return Pin(f"branch '{branch}'", lambda: snapshot_key(manager.get_latest_snapshot()))


def pin_tags(target: ResolvedPaimonTable, branch: str = MAIN) -> Pin:
    return Pin(f"the tags of branch '{branch}'", lambda: tag_state(target, branch))


def pin_everything(target: ResolvedPaimonTable) -> Pin:
    """Every branch's latest snapshot and tags: what reference-based cleanups depend on."""

    def read() -> Any:
        state = {
            MAIN: (snapshot_key(target.snapshot_manager().get_latest_snapshot()), tag_state(target))
        }
        for branch in target.branches():
            state[branch] = (
                snapshot_key(target.snapshot_manager(branch).get_latest_snapshot()),
                tag_state(target, branch),
            )
        return state

    return Pin("the snapshots, tags and branches", read)


def check_pins(target: ResolvedPaimonTable, pins: list[Pin]) -> None:
    for pin in pins:
        now = pin.read()
        if now != pin.value:
            raise Errors.PROCEDURE_CONCURRENT_COMMIT.error(
                procedure=target.procedure,
                table=f"{target.display} ({pin.what})",
                expected=_short(pin.value),
                actual=_short(now),
            )


def before_change(target: ResolvedPaimonTable, pins: list[Pin], point: str = "before") -> None:
    """The last step before anything changes: the test hook, cancel, then the pinned state."""
    pause(target.ctx, target.procedure, point)
    target.ctx.check_cancelled()
    check_pins(target, pins)


def _short(value: Any) -> str:
    text = str(value)
    return text if len(text) <= 300 else text[:297] + "..."


def pause(ctx: ProcedureContext, procedure: str, point: str) -> None:
    """Test-only: when ``$DRYDOCK_TEST_PAIMON_HOOK_DIR/<procedure>.<point>.arm`` exists, consume
    it, write ``<procedure>.<point>.reached`` and wait (cancellable) for ``.resume``. The test
    commits to the table meanwhile. Without the environment variable this does nothing."""
    directory = os.environ.get(HOOK_DIR_ENV)
    if not directory:
        return
    base = Path(directory) / f"{procedure}.{point}"
    arm = base.with_name(base.name + ".arm")
    if not arm.exists():
        return
    arm.unlink()
    resume = base.with_name(base.name + ".resume")
    resume.unlink(missing_ok=True)  # a stale one from a cancelled wait
    base.with_name(base.name + ".reached").write_text(str(os.getpid()))
    deadline = time.monotonic() + HOOK_WAIT_SECONDS
    while not resume.exists() and time.monotonic() < deadline:
        ctx.check_cancelled()
        time.sleep(0.02)
    resume.unlink(missing_ok=True)


# -- bounded, cancellable deletes ------------------------------------------------------------------
class Deleter:
    """Deletes through the table's FileIO, never more than ``limit`` objects per call, checking
    KILL QUERY between deletes and keeping ``ctx.done`` current for the cancel message."""

    def __init__(self, target: ResolvedPaimonTable, limit: int | None = None):
        self.target = target
        self.limit = configured_max_deletes(target.ctx) if limit is None else limit
        self.count = 0
        self.bytes = 0

    def delete(self, path: str, size: int = 0) -> None:
        if self.count >= self.limit:
            raise AssertionError("the plan must have been bounded before deleting")
        self.target.ctx.check_cancelled()
        if self.count == 0:
            faults.pause_point("during_procedure_delete")  # test-only crash point; off by default
        self.target.file_io.delete(path)
        self.count += 1
        self.bytes += size
        done = self.target.ctx.done
        text = f"deleted {self.count} object(s) of {self.target.display}"
        if (
            done
            and done[-1].startswith("deleted ")
            and done[-1].endswith(f" of {self.target.display}")
        ):
            done[-1] = text
        else:
            done.append(text)


def configured_max_deletes(ctx: ProcedureContext) -> int:
    return int(ctx.config.get(Key.PROCEDURE_MAX_DELETES))


def refuse_over_limit(target: ResolvedPaimonTable, count: int, hint: str) -> Exception:
    return Errors.PROCEDURE_FAILED.error(
        procedure=target.procedure,
        detail=f"it would delete {count} objects of {target.display}, more than "
        f"procedure_max_deletes "
        f"({configured_max_deletes(target.ctx)}); nothing was deleted. {hint}",
    )


# -- arguments ------------------------------------------------------------------------------------
def timestamp_millis(procedure: str, name: str, text: str) -> int:
    """'YYYY-MM-DD HH:MM:SS[.fff]' in the server's time zone (as Paimon parses it), with an
    optional UTC offset, or epoch milliseconds."""
    try:
        return instant_millis(text)
    except BadInstant as exc:
        raise Errors.PROCEDURE_BAD_ARGUMENT.error(
            procedure=procedure, detail=f"argument '{name}' {exc}, got {shown(text)}"
        ) from None


def duration_millis(procedure: str, name: str, text: str) -> int:
    """Paimon duration text ('1 d', '12h', '30 min', bare number = ms)."""
    from pypaimon.common.time_utils import parse_duration_nanos

    try:
        nanos = parse_duration_nanos(text)
    except (ValueError, OverflowError) as exc:
        raise Errors.PROCEDURE_BAD_ARGUMENT.error(
            procedure=procedure,
            detail=f"argument '{name}' is not a duration ('1 d', '12 h'): {exc}",
        ) from None
    if nanos <= 0:
        raise Errors.PROCEDURE_BAD_ARGUMENT.error(
            procedure=procedure, detail=f"argument '{name}' must be positive"
        )
    return nanos // 1_000_000


_BAD_NAME = re.compile(r"[/\\\x00-\x1f]")


def check_name(procedure: str, kind: str, name: str | None, arg: str) -> str:
    """A tag or branch name as Paimon accepts it (not blank, not all digits) and safe as a file
    name (no path separators or control characters)."""
    if name is None or not name.strip():
        raise Errors.PROCEDURE_BAD_ARGUMENT.error(
            procedure=procedure, detail=f"argument '{arg}' must not be blank"
        )
    problem = name_problem(name)
    if problem:
        raise Errors.PROCEDURE_BAD_ARGUMENT.error(
            procedure=procedure,
            detail=f"argument '{arg}': {shown(name)} is not a valid {kind} name: it {problem}",
        )
    if name.isdigit():
        raise Errors.PROCEDURE_BAD_ARGUMENT.error(
            procedure=procedure,
            detail=f"{kind} name cannot be a pure numeric string but is '{name}'",
        )
    if _BAD_NAME.search(name) or name.startswith(".") or name != name.strip():
        raise Errors.PROCEDURE_BAD_ARGUMENT.error(
            procedure=procedure,
            detail=f"{kind} name '{name}' must not contain path separators, control characters, "
            "leading dots or surrounding spaces",
        )
    if kind == "branch" and "$" in name:
        raise Errors.PROCEDURE_BAD_ARGUMENT.error(
            procedure=procedure,
            detail=f"branch name '{name}' must not contain '$' (it separates table and branch)",
        )
    if kind == "branch" and name == MAIN:
        raise Errors.PROCEDURE_BAD_ARGUMENT.error(
            procedure=procedure, detail="'main' is the default branch and cannot be used here"
        )
    return name


def name_list(procedure: str, kind: str, text: str, arg: str) -> list[str]:
    """A comma-separated list of names (delete_tag / delete_branch), each checked, no duplicates."""
    names = [part.strip() for part in (text or "").split(",")]
    checked = [check_name(procedure, kind, n, arg) for n in names]
    if len(set(checked)) != len(checked):
        raise Errors.PROCEDURE_BAD_ARGUMENT.error(
            procedure=procedure, detail=f"argument '{arg}' names a {kind} twice"
        )
    return checked


def exactly_one(procedure: str, values: dict[str, Any], names: tuple[str, str]) -> str:
    given = [n for n in names if values.get(n) not in (None, "")]
    if len(given) != 1:
        raise Errors.PROCEDURE_BAD_ARGUMENT.error(
            procedure=procedure, detail=f"Must specify exactly one of {names[0]} and {names[1]}."
        )
    return given[0]


def not_supported(procedure: str, detail: str) -> Exception:
    return Errors.PROCEDURE_NOT_SUPPORTED.error(detail=f"{procedure}: {detail}")


def single_row(columns: tuple[str, ...], row: tuple[Any, ...]) -> Result:
    return Result(columns=list(columns), rows=[row])


def snapshot_or_fail(target: ResolvedPaimonTable, snapshot_id: int, branch: str = MAIN) -> Any:
    """The snapshot with exactly this id on this branch (a tag at that id is not a substitute)."""
    snapshot = target.snapshot_manager(branch).get_snapshot_by_id(snapshot_id)
    if snapshot is None:
        tags = [
            n
            for n, state in tag_state(target, branch).items()
            if state.split("/")[0] == str(snapshot_id)
        ]
        hint = f"; tag(s) {', '.join(tags)} still hold it: use tag => '{tags[0]}'" if tags else ""
        raise target.bad(
            f"snapshot {snapshot_id} doesn't exist in {target.display}"
            f"{'' if branch == MAIN else f' branch {branch}'}{hint}"
        )
    return snapshot


def tag_or_fail(target: ResolvedPaimonTable, tag: str, branch: str = MAIN) -> Any:
    # a name that is not an identifier ('../x') cannot exist: never turn it into a path
    found = None if name_problem(tag) else target.tag_manager(branch).get(tag)
    if found is None:
        raise target.bad(
            f"tag '{tag}' doesn't exist in {target.display}"
            f"{'' if branch == MAIN else f' branch {branch}'}"
        )
    return found


def branch_or_fail(target: ResolvedPaimonTable, branch: str) -> str:
    if branch not in target.branches():
        raise target.bad(f"branch '{branch}' doesn't exist in {target.display}")
    return branch
