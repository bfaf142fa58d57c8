"""What every Lance procedure shares: the pinned target, the concurrent-commit check, argument
helpers, typed result rows and the test-only pause point.

A call opens the table's latest version once (:class:`PinnedLanceTable`, its ``ds`` pinned) and
records the table's state (:class:`State`: latest version, tags, branches; for orphan removal also
every branch's head). Validation and planning read only the pinned dataset. Right before each
destructive step the state is read again; any difference is a concurrent commit and the call stops
with PROCEDURE_CONCURRENT_COMMIT (nothing changed yet) or PROCEDURE_CONCURRENT_COMMIT_PARTIAL (what
was done before is listed). The check narrows the race to the instant between the check and the
step; Lance's own commit protocol (and, for orphan removal, the ``older_than`` age bound) covers
that instant.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from drydock.engine.lakehouse.catalogs import lance_system
from drydock.engine.errors import Errors
from drydock.engine.support.instants import BadInstant, parse_instant
from drydock.engine.support.names import name_problem, shown
from drydock.engine.lakehouse.procedures.base import ProcedureContext, split_table
from drydock.engine.results import Result
from drydock.engine.support.config_keys import Key

if TYPE_CHECKING:
    import lance

    from drydock.engine.lakehouse.catalogs.lance import LanceConnector

# Test-only: a directory of marker files that pauses a call at a named point (see marker_pause).
FAULT_DIR_ENV = "DRYDOCK_FAULT_PROCEDURE_DIR"
FAULT_BATCH_ENV = "DRYDOCK_FAULT_PROCEDURE_BATCH"  # test-only override of the delete batch sizes
FAULT_PAUSE_LIMIT_SECONDS = 120.0
# Lance's own rule for ref names (tags and branches), minus the leading '.' and '-' (length:
# names.py).
_REF_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]*")


# -- the target
# -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class State:
    """What must not move between validation and a destructive step."""

    version: int
    tags: tuple[tuple[str, str | None, int], ...]  # (name, branch, version)
    branches: tuple[tuple[str, str | None, int], ...]  # (name, parent branch, parent version)
    heads: tuple[tuple[str, int], ...] = ()  # (branch, latest version), only when asked for

    def differs(self, other: State) -> tuple[str, str] | None:
        """(expected, found) in words, or None when equal."""
        if self.version != other.version:
            return f"version {self.version}", f"version {other.version}"
        if self.tags != other.tags:
            return _refs_text("tags", self.tags), _refs_text("tags", other.tags)
        if self.branches != other.branches:
            return _refs_text("branches", self.branches), _refs_text("branches", other.branches)
        if self.heads != other.heads:
            mine, theirs = dict(self.heads), dict(other.heads)
            changed = sorted(n for n in set(mine) | set(theirs) if mine.get(n) != theirs.get(n))
            return (
                ", ".join(f"branch {n} at version {mine.get(n)}" for n in changed),
                ", ".join(f"branch {n} at version {theirs.get(n)}" for n in changed),
            )
        return None


def _refs_text(kind: str, refs: tuple[tuple[str, str | None, int], ...]) -> str:
    if not refs:
        return f"no {kind}"
    return f"{kind} " + ", ".join(
        f"{name}@{branch + ':' if branch else ''}{version}" for name, branch, version in refs
    )


@dataclass
class PinnedLanceTable:
    """One table of the call, opened once at its latest version (``ds`` stays pinned there)."""

    ctx: ProcedureContext
    procedure: str
    db: str
    table: str
    ds: lance.LanceDataset
    state: State = field(init=False)

    def __post_init__(self) -> None:
        self.state = self._state(self.ds.version, heads=False)

    @property
    def name(self) -> str:
        return f"{self.db}.{self.table}"

    @property
    def version(self) -> int:
        return self.state.version

    @property
    def connector(self) -> LanceConnector:
        return self.ctx.connector  # type: ignore[return-value]

    @property
    def uri(self) -> str:
        return self.connector.dataset_uri(self.db, self.table)

    def storage_options(self) -> dict[str, str] | None:
        return self.connector.storage_options() or None

    # -- refs of the pinned dataset (tags and branches are read fresh from storage) --------------
    def tags(self) -> dict[str, dict[str, Any]]:
        return list_refs(self.ds.tags)

    def branches(self) -> dict[str, dict[str, Any]]:
        return list_refs(self.ds.branches)

    def versions(self) -> list[int]:
        """The main branch's versions up to the pinned one, oldest first (no manifest is read)."""
        return sorted(v["version"] for v in self.ds.version_refs() if v["version"] <= self.version)

    def branch_dataset(self, branch: str) -> lance.LanceDataset:
        return self.ds.checkout_version((branch, None))

    def read_state(self, heads: bool = False) -> State:
        """The table's state now (the latest version, not the pinned one)."""
        return self._state(self.ds.latest_version, heads)

    def _state(self, version: int, heads: bool) -> State:
        tags = tuple(
            sorted((n, t.get("branch"), int(t["version"])) for n, t in self.tags().items())
        )
        branches = self.branches()
        refs = tuple(
            sorted(
                (n, b.get("parent_branch"), int(b["parent_version"])) for n, b in branches.items()
            )
        )
        tips = (
            tuple(sorted((n, int(self.branch_dataset(n).version)) for n in branches))
            if heads
            else ()
        )
        return State(version=int(version), tags=tags, branches=refs, heads=tips)

    def pin_heads(self) -> None:
        """Also pin every branch's latest version (orphan removal depends on all of them)."""
        self.state = State(
            self.state.version,
            self.state.tags,
            self.state.branches,
            self.read_state(heads=True).heads if self.state.branches else (),
        )

    def check_unchanged(self, done: bool = False) -> None:
        """Before a destructive step: the table must still be exactly as validated."""
        now = self.read_state(heads=bool(self.state.heads))
        diff = self.state.differs(now)
        if diff is None:
            return
        expected, actual = diff
        if done and self.ctx.done:
            raise Errors.PROCEDURE_CONCURRENT_COMMIT_PARTIAL.error(
                procedure=self.procedure,
                table=self.name,
                expected=expected,
                actual=actual,
                done="; ".join(self.ctx.done),
            )
        raise Errors.PROCEDURE_CONCURRENT_COMMIT.error(
            procedure=self.procedure, table=self.name, expected=expected, actual=actual
        )

    def commit_conflict(self) -> Exception:
        """Lance refused our commit because another one won: the same clear error."""
        latest = self.ds.latest_version
        return Errors.PROCEDURE_CONCURRENT_COMMIT.error(
            procedure=self.procedure,
            table=self.name,
            expected=f"version {self.version}",
            actual=f"version {latest}",
        )


# Shared with time travel by tag (engine/lakehouse/catalogs/lance.py): one retry for both.
list_refs = lance_system.list_refs


def open_target(ctx: ProcedureContext, values: dict[str, Any], procedure: str) -> PinnedLanceTable:
    """The `table` argument → the exact table, opened at its latest version (no fallback)."""
    db, table = split_table(values["table"], procedure)
    if table == "*":
        raise Errors.PROCEDURE_BAD_ARGUMENT.error(
            procedure=procedure,
            detail="Lance procedures act on one table: name it as 'database.table'",
        )
    connector: LanceConnector = ctx.connector  # type: ignore[assignment]
    return PinnedLanceTable(
        ctx=ctx, procedure=procedure, db=db, table=table, ds=connector.open_latest(db, table)
    )


# -- arguments
# ---------------------------------------------------------------------------------------
def bad(procedure: str, detail: str) -> Exception:
    return Errors.PROCEDURE_BAD_ARGUMENT.error(procedure=procedure, detail=detail)


def ref_name(procedure: str, arg: str, value: str) -> str:
    """A new tag or branch name: an identifier (engine/support/names.py) that Lance also accepts."""
    problem = name_problem(value)
    if problem:
        raise bad(procedure, f"argument '{arg}': {shown(value)} is not a valid name: it {problem}")
    if not _REF_NAME.fullmatch(value):
        raise bad(
            procedure,
            f"argument '{arg}': {shown(value)} is not a valid name: use letters, digits, "
            "'_', '.' and '-' ('.' and '-' not first)",
        )
    return value


def name_list(procedure: str, arg: str, value: str) -> list[str]:
    """'a,b' → ['a', 'b'] (exact names; empty items and repeats are errors)."""
    names = [n.strip() for n in value.split(",")]
    if any(not n for n in names):
        raise bad(procedure, f"{arg} must be a comma-separated list of names, got '{value}'")
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise bad(procedure, f"{arg} lists '{repeated[0]}' more than once")
    return names


def at_least(procedure: str, arg: str, value: int | None, low: int) -> int | None:
    if value is not None and value < low:
        raise bad(procedure, f"argument '{arg}' must be >= {low}, got {value}")
    return value


def max_deletes(ctx: ProcedureContext, procedure: str, value: int | None) -> int:
    """The call's bound on deletions: the argument, at most config procedure_max_deletes."""
    limit = int(ctx.config.get(Key.PROCEDURE_MAX_DELETES))
    if value is None:
        return limit
    at_least(procedure, "max_deletes", value, 1)
    if value > limit:
        raise bad(
            procedure, f"max_deletes {value} exceeds the configured procedure_max_deletes ({limit})"
        )
    return value


def parse_time(procedure: str, arg: str, text: str) -> dt.datetime:
    """'YYYY-MM-DD HH:MM:SS[.ffffff]' (server local time unless it has an offset) or epoch ms."""
    try:
        return parse_instant(text)
    except BadInstant as exc:
        raise bad(procedure, f"argument '{arg}' {exc}, got {shown(text)}") from None


def snapshot_of(target: PinnedLanceTable, snapshot: int) -> int:
    """An existing main version (exactly that one)."""
    if snapshot not in set(target.versions()):
        raise Errors.UNKNOWN_TABLE_VERSION.error(
            version=snapshot, table=target.name, catalog=target.ctx.catalog.name
        )
    return snapshot


def tag_of(
    target: PinnedLanceTable, tag: str, tags: dict[str, dict[str, Any]] | None = None
) -> dict[str, Any]:
    found = (tags if tags is not None else target.tags()).get(tag)
    if found is None:
        raise Errors.UNKNOWN_TABLE_TAG.error(
            tag=tag, table=target.name, catalog=target.ctx.catalog.name
        )
    return found


# -- results
# -----------------------------------------------------------------------------------------
def columns(spec: Sequence[tuple[str, str]]) -> tuple[str, ...]:
    return tuple(name for name, _ in spec)


def result(spec: Sequence[tuple[str, str]], rows: list[tuple[Any, ...]]) -> Result:
    """Rows with declared column types (stable even for zero rows or NULLs)."""
    return Result(columns=list(columns(spec)), rows=rows, column_types=dict(spec))


def cancel_pending(ctx: ProcedureContext) -> bool:
    """Whether check_cancelled would raise now (to record what was done first)."""
    return ctx.cancel.is_set() or time.monotonic() > ctx.deadline


def warn(ctx: ProcedureContext, detail: str) -> None:
    ctx.warnings.append(Errors.PROCEDURE_LIMIT_REACHED.warning(detail=detail))


def batches(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def batch_size(default: int) -> int:
    override = os.environ.get(FAULT_BATCH_ENV)
    return int(override) if override and override.isdigit() and int(override) > 0 else default


# -- test-only pause point
# -----------------------------------------------------------------------------
def marker_pause(ctx: ProcedureContext, name: str) -> None:
    """Off unless the server's environment has DRYDOCK_FAULT_PROCEDURE_DIR *and* the test armed
    this point by creating ``<dir>/<name>.arm``. Then (once): remove the arm file, create
    ``<name>.paused`` and wait for ``<name>.resume`` — the test commits from outside meanwhile.
    KILL QUERY and the procedure timeout still end the wait."""
    root = os.environ.get(FAULT_DIR_ENV)
    if not root:
        return
    base = Path(root)
    try:
        (base / f"{name}.arm").unlink()
    except FileNotFoundError:
        return
    resume = base / f"{name}.resume"
    (base / f"{name}.paused").touch()
    deadline = time.monotonic() + FAULT_PAUSE_LIMIT_SECONDS
    while not resume.exists() and time.monotonic() < deadline:
        ctx.check_cancelled()
        time.sleep(0.01)
    resume.unlink(missing_ok=True)
