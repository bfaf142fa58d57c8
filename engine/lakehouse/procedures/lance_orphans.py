"""remove_orphan_files on Lance tables (declared in lance.py).

Conservative by construction. A file is deleted only if all of these hold:

1. it lies in a data directory (``data/``, ``_indices/``, ``_deletions/``, ``_transactions/``)
   of the table or of one of its *current* branches (``tree/<branch>/...``) — manifests,
   ``_versions/``, ``_refs/``, files of unknown layout and leftovers of unknown branches are never
   touched;
2. no manifest references it: the union of Lance's ``tracked_files()`` over every version of the
   main branch (this includes every tagged version, since expire_snapshots never removes one) and
   over every version of every branch (branch manifests also reference the main branch's files);
3. for index files, no manifest references any file of the same ``_indices/<uuid>/`` directory,
   and the uuid is not an index of the pinned main version or of a branch head;
4. it was last modified before ``older_than`` (default: now − 1 day; a time in the future is
   refused, since a writer's uncommitted files are young).

Between planning and each delete batch the table's state (latest version, tags, branches and
every branch head) is re-read; any change stops the call (PROCEDURE_CONCURRENT_COMMIT).
"""

from __future__ import annotations

import datetime as dt
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from drydock.engine.support import faults
from drydock.engine.lakehouse.catalogs import lance_fs
from drydock.engine.lakehouse.procedures.base import ProcedureContext
from drydock.engine.lakehouse.procedures.lance_common import (
    PinnedLanceTable,
    at_least,
    bad,
    batch_size,
    batches,
    max_deletes,
    open_target,
    parse_time,
    marker_pause,
    result,
    warn,
)
from drydock.engine.results import Result

ORPHAN_COLUMNS = (("result", "VARCHAR"), ("size_bytes", "BIGINT"), ("action", "VARCHAR"))
ORPHAN_DIRS = ("data", "_indices", "_deletions", "_transactions")
ORPHAN_DEFAULT_AGE = dt.timedelta(days=1)
ORPHAN_BATCH = 1000  # files per delete batch (the state is re-checked before each)
S3_DELETE_THREADS = 8
MAX_PARALLELISM = 64
MODES = ("local", "distributed")


def remove_orphan_files(ctx: ProcedureContext, values: dict[str, Any]) -> Result:
    name = "remove_orphan_files"
    now = dt.datetime.now(dt.UTC)
    cutoff = (
        parse_time(name, "older_than", values["older_than"])
        if values["older_than"] is not None
        else now - ORPHAN_DEFAULT_AGE
    )
    if cutoff > now:
        raise bad(
            name,
            f"older_than '{values['older_than']}' is in the future: files younger than now may "
            "belong to a commit in progress",
        )
    dry_run = bool(values["dry_run"])
    threads = at_least(name, "parallelism", values["parallelism"], 1) or S3_DELETE_THREADS
    if threads > MAX_PARALLELISM:
        raise bad(name, f"argument 'parallelism' must be <= {MAX_PARALLELISM}, got {threads}")
    if values["mode"] is not None and values["mode"].strip().lower() not in MODES:
        raise bad(
            name, f"argument 'mode' must be one of {', '.join(MODES)}, got '{values['mode']}'"
        )
    limit = max_deletes(ctx, name, values["max_deletes"])
    t = open_target(ctx, values, name)
    t.pin_heads()
    orphans = find_orphans(t, cutoff)
    if len(orphans) > limit:
        warn(
            ctx,
            f"remove_orphan_files stopped at max_deletes={limit}: {len(orphans) - limit} more "
            f"orphan "
            "files remain; call it again",
        )
        orphans = orphans[:limit]
    if dry_run or not orphans:
        return result(ORPHAN_COLUMNS, [(path, size, "would_delete") for path, size in orphans])
    marker_pause(ctx, name)
    session = t.ds.new_file_session() if t.connector.warehouse.scheme != "file" else None
    deleted = 0
    for number, batch in enumerate(batches(orphans, batch_size(ORPHAN_BATCH))):
        ctx.check_cancelled()
        t.check_unchanged(done=number > 0)
        faults.pause_point("during_procedure_delete")
        _delete(t, session, [path for path, _ in batch], threads)
        deleted += len(batch)
        text = (
            f"deleted {deleted} of {len(orphans)} orphan files ({orphans[0][0]} .. {batch[-1][0]})"
        )
        if number == 0:
            ctx.done.append(text)
        else:
            ctx.done[-1] = text
        marker_pause(ctx, f"{name}.batch")
    return result(ORPHAN_COLUMNS, [(path, size, "deleted") for path, size in orphans])


def find_orphans(t: PinnedLanceTable, cutoff: dt.datetime) -> list[tuple[str, int]]:
    """(path relative to the table root, size), sorted by path."""
    import pyarrow as pa
    import pyarrow.compute as pc

    branches = sorted(t.branches())
    sources = [t.ds] + [t.branch_dataset(b) for b in branches]
    dirs = [*ORPHAN_DIRS, *(f"tree/{b}/{d}" for b in branches for d in ORPHAN_DIRS)]
    # Listing and manifest reading are native and release the GIL: run them side by side.
    with ThreadPoolExecutor(max_workers=min(4, 1 + len(sources))) as pool:
        listing = pool.submit(_list_files, t, dirs)
        tracked_parts = list(pool.map(lambda ds: ds.tracked_files().read_all(), sources))
    paths, sizes, mtimes = listing.result()
    t.ctx.check_cancelled()
    root = _root(t, tracked_parts[0])
    if root is None or not paths:
        return []
    tracked = pa.concat_tables([part.select(["base_uri", "path"]) for part in tracked_parts])
    base = pc.utf8_rtrim(pc.cast(tracked["base_uri"], pa.string()), characters="/")
    referenced = pc.unique(pc.binary_join_element_wise(base, tracked["path"], "/"))
    listed = pa.array(paths, pa.string())
    full = pc.binary_join_element_wise(pa.scalar(root), listed, "/")
    cutoff_ns = int(cutoff.timestamp() * 1_000_000_000)
    mask = pc.and_(
        pc.invert(pc.is_in(full, value_set=referenced)),
        pc.less(pa.array(mtimes, pa.int64()), cutoff_ns),
    )
    index_dirs = _live_index_dirs(sources, referenced, root, branches)
    out = []
    for i in pc.indices_nonzero(mask).to_pylist():
        path = paths[i]
        where = _data_dir(path, branches)
        if where is None:
            continue
        if where[1] == "_indices" and _index_dir(path, where[0]) in index_dirs:
            continue
        out.append((path, int(sizes[i])))
    return sorted(out)


def _list_files(t: PinnedLanceTable, dirs: list[str]) -> tuple[list[str], list[int], list[int]]:
    """Files under the table's data directories: relative path, size, mtime (ns)."""
    import pyarrow.fs as pafs

    connector = t.connector
    fs = lance_fs.filesystem(connector.warehouse, connector.properties)
    base = connector.warehouse.fs_path(t.db, t.table + lance_fs.TABLE_SUFFIX)
    paths, sizes, mtimes = [], [], []
    for d in dirs:
        selector = pafs.FileSelector(f"{base}/{d}", recursive=True, allow_not_found=True)
        for info in fs.get_file_info(selector):
            if info.type == pafs.FileType.File and info.path.startswith(base + "/"):
                paths.append(info.path[len(base) + 1 :])
                sizes.append(info.size)
                mtimes.append(info.mtime_ns)
    return paths, sizes, mtimes


def _root(t: PinnedLanceTable, main_tracked: Any) -> str | None:
    """The table root as Lance names it (the base of the main branch's manifests); it must be
    this table's directory, or nothing is deleted."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kinds = pc.cast(main_tracked["type"], pa.string())
    manifests = main_tracked.filter(pc.equal(kinds, "manifest"))
    roots = {
        str(r).rstrip("/") for r in pc.cast(manifests["base_uri"], pa.string()).unique().to_pylist()
    }
    suffix = f"/{t.db}/{t.table}{lance_fs.TABLE_SUFFIX}"
    return roots.pop() if len(roots) == 1 and next(iter(roots)).endswith(suffix) else None


def _data_dir(path: str, branches: list[str]) -> tuple[str, str] | None:
    """(prefix of the owning tree, data directory) when ``path`` is inside a data directory of the
    main branch ('') or of a current branch ('tree/<b>/'); None for everything else."""
    prefixes = [""] + [f"tree/{b}/" for b in branches]
    for prefix in prefixes:
        if prefix and not path.startswith(prefix):
            continue
        rest = path[len(prefix) :].split("/")
        if len(rest) > 1 and rest[0] in ORPHAN_DIRS and all(rest):
            return prefix, rest[0]
    return None


def _index_dir(path: str, prefix: str) -> str:
    rest = path[len(prefix) :].split("/")
    return prefix + "/".join(rest[:2])


def _live_index_dirs(
    sources: list[Any], referenced: Any, root: str, branches: list[str]
) -> set[str]:
    """``[tree/<b>/]_indices/<uuid>`` directories that hold any referenced file, plus the index
    uuids of the pinned main version and of each branch head (their files are never orphans)."""
    import pyarrow.compute as pc

    live: set[str] = set()
    head = root + "/"
    for ref in referenced.filter(pc.match_substring(referenced, "_indices/")).to_pylist():
        if not ref.startswith(head):
            continue
        parts = ref[len(head) :].split("/")
        if "_indices" in parts:
            at = parts.index("_indices")
            live.add("/".join(parts[: at + 2]))
    for ds, prefix in zip(sources, ["", *(f"tree/{b}/" for b in branches)]):
        for index in ds.describe_indices():
            for segment in index.segments:
                live.add(f"_indices/{segment.uuid}")
                live.add(f"{prefix}_indices/{segment.uuid}")
    return live


def _delete(t: PinnedLanceTable, session: Any, paths: list[str], threads: int) -> None:
    """Local files through the file system; objects through Lance's own object store (its
    credentials, several at a time; pyarrow's S3 client would leave directory markers)."""
    warehouse = t.connector.warehouse
    local = warehouse.scheme == "file"

    def one(path: str) -> None:
        try:
            if local:
                os.remove(warehouse.fs_path(t.db, t.table + lance_fs.TABLE_SUFFIX, path))
            else:
                session.delete_file(path)
        except OSError:
            if _exists(t, path):
                raise
            # gone already: the goal is reached

    if not local and len(paths) > 1 and threads > 1:
        with ThreadPoolExecutor(max_workers=threads) as pool:
            list(pool.map(one, paths))
    else:
        for path in paths:
            one(path)
    if (
        t.connector.warehouse.scheme == "file"
    ):  # empty index directories go too (never a non-empty one)
        for directory in sorted(
            {os.path.dirname(p) for p in paths if "_indices/" in p}, reverse=True
        ):
            try:
                os.rmdir(
                    t.connector.warehouse.fs_path(t.db, t.table + lance_fs.TABLE_SUFFIX, directory)
                )
            except OSError:
                pass


def _exists(t: PinnedLanceTable, path: str) -> bool:
    import pyarrow.fs as pafs

    fs = lance_fs.filesystem(t.connector.warehouse, t.connector.properties)
    info = fs.get_file_info(
        t.connector.warehouse.fs_path(t.db, t.table + lance_fs.TABLE_SUFFIX, path)
    )
    return bool(info.type != pafs.FileType.NotFound)
