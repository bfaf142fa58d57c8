"""Rollback, tags and branches on Lance tables (declared in lance.py)."""

from __future__ import annotations

from typing import Any

from drydock.engine.errors import Errors
from drydock.engine.lakehouse.procedures.base import ProcedureContext
from drydock.engine.lakehouse.procedures.lance_common import (
    PinnedLanceTable,
    bad,
    name_list,
    open_target,
    marker_pause,
    ref_name,
    result,
    snapshot_of,
    tag_of,
)
from drydock.engine.results import Result

ROLLBACK_COLUMNS = (
    ("previous_snapshot_id", "BIGINT"),
    ("rolled_back_snapshot_id", "BIGINT"),
    ("current_snapshot_id", "BIGINT"),
)
TAG_COLUMNS = (("result", "BOOLEAN"), ("tag", "VARCHAR"), ("snapshot_id", "BIGINT"))
RENAME_TAG_COLUMNS = (
    ("result", "BOOLEAN"),
    ("tag", "VARCHAR"),
    ("target_tag", "VARCHAR"),
    ("snapshot_id", "BIGINT"),
)
BRANCH_COLUMNS = (("result", "BOOLEAN"), ("branch", "VARCHAR"), ("snapshot_id", "BIGINT"))
DELETE_BRANCH_COLUMNS = (("result", "BOOLEAN"), ("branch", "VARCHAR"))
MAIN_BRANCH = "main"


def _exactly_one(procedure: str, tag: str | None, snapshot: int | None, snapshot_arg: str) -> None:
    if (tag is None) == (snapshot is None):
        raise bad(procedure, f"Must specify exactly one of tag and {snapshot_arg}.")


def _main_tag_version(t: PinnedLanceTable, tag: str, procedure: str) -> int:
    found = tag_of(t, tag)
    if found.get("branch") not in (None, MAIN_BRANCH):
        raise bad(
            procedure,
            f"tag '{tag}' points at branch '{found['branch']}'; {procedure} rolls the main "
            "branch back to one of its own versions",
        )
    return snapshot_of(t, int(found["version"]))


# -- rollback
# -----------------------------------------------------------------------------------------
def rollback_to_as_latest(ctx: ProcedureContext, values: dict[str, Any]) -> Result:
    name = "rollback_to_as_latest"
    tag, snapshot = values["tag"], values["snapshot_id"]
    _exactly_one(name, tag, snapshot, "snapshot_id")
    t = open_target(ctx, values, name)
    target = _main_tag_version(t, tag, name) if tag is not None else snapshot_of(t, snapshot)
    marker_pause(ctx, name)
    t.check_unchanged()
    old = t.ds.checkout_version((None, target))
    old.restore()
    current = old.version
    ctx.done.append(f"restored version {target} as version {current}")
    return result(ROLLBACK_COLUMNS, [(t.version, target, current)])


def rollback_to(ctx: ProcedureContext, values: dict[str, Any]) -> Result:
    raise Errors.PROCEDURE_NOT_SUPPORTED.error(
        detail="rollback_to is not supported for Lance: Lance versions are immutable and numbered "
        "in commit "
        "order, so the versions after the target cannot be removed safely while readers or writers "
        "may "
        "use them; use rollback_to_as_latest, which commits a new latest version equal to the "
        "target"
    )


# -- tags
# ---------------------------------------------------------------------------------------------
def create_tag(ctx: ProcedureContext, values: dict[str, Any]) -> Result:
    name = "create_tag"
    tag = ref_name(name, "tag", values["tag"])
    t = open_target(ctx, values, name)
    existing = t.tags().get(tag)
    if existing is not None:
        raise bad(
            name, f"tag '{tag}' already exists on table {t.name} (snapshot {existing['version']})"
        )
    version = snapshot_of(t, values["snapshot"]) if values["snapshot"] is not None else t.version
    marker_pause(ctx, name)
    t.check_unchanged()
    t.ds.tags.create(tag, (None, version))
    ctx.done.append(f"created tag {tag} on version {version}")
    return result(TAG_COLUMNS, [(True, tag, version)])


def delete_tag(ctx: ProcedureContext, values: dict[str, Any]) -> Result:
    name = "delete_tag"
    tags = name_list(name, "tag", values["tag"])
    t = open_target(ctx, values, name)
    existing = t.tags()
    doomed = [(tag, int(tag_of(t, tag, existing)["version"])) for tag in tags]
    marker_pause(ctx, name)
    t.check_unchanged()
    for tag, _ in doomed:
        ctx.check_cancelled()
        t.ds.tags.delete(tag)
        ctx.done.append(f"deleted tag {tag}")
    return result(TAG_COLUMNS, [(True, tag, version) for tag, version in doomed])


def rename_tag(ctx: ProcedureContext, values: dict[str, Any]) -> Result:
    """Lance has no rename: the new tag is created on the same version first, then the old one is
    deleted, so a failure in between leaves both names, never neither."""
    name = "rename_tag"
    source, target_tag = values["tag"], ref_name(name, "target_tag", values["target_tag"])
    if source == target_tag:
        raise bad(name, f"tag and target_tag are both '{source}'")
    t = open_target(ctx, values, name)
    existing = t.tags()
    found = tag_of(t, source, existing)
    if target_tag in existing:
        raise bad(
            name,
            f"tag '{target_tag}' already exists on table {t.name} (snapshot "
            f"{existing[target_tag]['version']})",
        )
    version = int(found["version"])
    marker_pause(ctx, name)
    t.check_unchanged()
    t.ds.tags.create(target_tag, (found.get("branch"), version))
    ctx.done.append(f"created tag {target_tag} on version {version}")
    t.ds.tags.delete(source)
    ctx.done.append(f"deleted tag {source}")
    return result(RENAME_TAG_COLUMNS, [(True, source, target_tag, version)])


# -- branches
# -----------------------------------------------------------------------------------------
def create_branch(ctx: ProcedureContext, values: dict[str, Any]) -> Result:
    """From the main branch's latest version (pinned), a tag, or a snapshot of the main branch."""
    name = "create_branch"
    branch = ref_name(name, "branch", values["branch"])
    if branch == MAIN_BRANCH:
        raise bad(name, "'main' is the name of the default branch")
    tag, snapshot = values["tag"], values["snapshot"]
    if tag is not None and snapshot is not None:
        raise bad(name, "Must specify at most one of tag and snapshot.")
    t = open_target(ctx, values, name)
    if branch in t.branches():
        if values["ignoreIfExists"]:
            return result(
                BRANCH_COLUMNS, [(False, branch, int(t.branches()[branch]["parent_version"]))]
            )
        raise bad(name, f"branch '{branch}' already exists on table {t.name}")
    if tag is not None:
        found = tag_of(t, tag)
        reference: tuple[str | None, int] = (found.get("branch"), int(found["version"]))
    else:
        reference = (None, snapshot_of(t, snapshot) if snapshot is not None else t.version)
    marker_pause(ctx, name)
    t.check_unchanged()
    t.ds.create_branch(branch, reference, storage_options=t.storage_options())
    ctx.done.append(f"created branch {branch} from version {reference[1]}")
    return result(BRANCH_COLUMNS, [(True, branch, reference[1])])


def delete_branch(ctx: ProcedureContext, values: dict[str, Any]) -> Result:
    """Refused while a tag points into the branch or a branch not being deleted was created from
    it (Lance refuses too); listed branches are deleted children first."""
    name = "delete_branch"
    doomed = name_list(name, "branch", values["branch"])
    t = open_target(ctx, values, name)
    branches, tags = t.branches(), t.tags()
    for branch in doomed:
        if branch not in branches:
            raise Errors.UNKNOWN_TABLE_BRANCH.error(
                branch=branch, table=t.name, catalog=ctx.catalog.name
            )
        pinned = sorted(tag for tag, v in tags.items() if v.get("branch") == branch)
        if pinned:
            raise bad(name, f"branch '{branch}' has tags ({', '.join(pinned)}); delete them first")
        children = sorted(
            b for b, v in branches.items() if v.get("parent_branch") == branch and b not in doomed
        )
        if children:
            raise bad(
                name,
                f"branch '{branch}' has child branches ({', '.join(children)}); delete them first",
            )
    order = _children_first(doomed, branches)
    marker_pause(ctx, name)
    t.check_unchanged()
    for branch in order:
        ctx.check_cancelled()
        t.ds.branches.delete(branch)
        ctx.done.append(f"deleted branch {branch}")
    return result(DELETE_BRANCH_COLUMNS, [(True, b) for b in doomed])


def _children_first(doomed: list[str], branches: dict[str, dict[str, Any]]) -> list[str]:
    left, order = list(doomed), list[str]()
    while left:
        leaves = [
            b
            for b in left
            if not any(branches[c].get("parent_branch") == b for c in left if c != b)
        ]
        if not leaves:  # cannot happen (parents form a tree); never loop
            return order + sorted(left)
        order.extend(sorted(leaves))
        left = [b for b in left if b not in leaves]
    return order
