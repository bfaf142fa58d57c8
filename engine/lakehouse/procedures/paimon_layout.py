"""What pypaimon 2.1.0 cannot do, done directly on Paimon's documented table layout.

pypaimon has no snapshot expiry, no orphan-file cleanup and no rollback that keeps history, and
its fast-forward corrupts main once main has advanced. This module reads and changes the table
directory itself, as Paimon documents it (filesystem catalog):

    schema/schema-<id>                           schemas (never changed here)
    snapshot/snapshot-<id>, LATEST, EARLIEST     snapshots (JSON) and the two hints
    manifest/manifest-list-*, manifest-*, index-manifest-*
    index/..., statistics/...                    index and statistics files
    tag/tag-<name>                               a tag: the JSON of the snapshot it holds
    branch/branch-<name>/{snapshot,schema,tag}   branches; they share manifest/ and data files
    consumer/consumer-<id>, changelog/changelog-<id>
    [<key>=<value>/...]bucket-<n>/data-*|changelog-*   data files

Safety rules, in every function here:

* A file is deleted only if no retained root references it. Roots are every snapshot and tag of
  every branch and every long-lived changelog; a root references its manifest lists, manifests,
  index manifest, statistics file, index files, changelog files and the data files a reader of it
  opens: those its manifests add and do not remove again (Paimon's ordered merge). A data file
  that only a DELETE entry still names is not referenced: no reader of any remaining root opens
  it, and Paimon's own snapshot expiry deletes exactly such files. (pypaimon never compacts
  manifests, so old DELETE entries stay named forever; counting them would keep every file.)
* Only names Paimon generates are candidates (``data-``, ``changelog-``, ``manifest-``,
  ``index-``, ``stat-``); metadata directories are never listed; anything else is left alone.
* Snapshot files are removed before the files they referenced, so an interrupted call leaves
  unreferenced files (remove_orphan_files collects them later), never a snapshot that points at
  a deleted file.
"""

from __future__ import annotations

import io
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, cast

import fastavro

from drydock.engine.lakehouse.procedures.paimon_common import MAIN, ResolvedPaimonTable

PAIMON_PREFIXES = ("data-", "changelog-", "manifest-", "index-", "stat-")
META_DIRS = frozenset({"schema", "snapshot", "tag", "branch", "consumer", "changelog"})


@dataclass(frozen=True)
class StoredFile:
    path: str  # as the table's FileIO names it (an s3:// URI on S3)
    name: str
    size: int
    mtime_ms: int


@dataclass(frozen=True)
class Root:
    branch: str
    kind: str  # snapshot | tag | changelog
    label: str  # snapshot id, tag name or changelog id
    snapshot: Any


@dataclass
class Refs:
    meta: set[str] = field(default_factory=set)  # manifest lists, manifests, index manifest, stats
    live: set[str] = field(default_factory=set)  # files a reader of this root opens
    mentioned: set[str] = field(
        default_factory=set
    )  # every data file any entry names (ADD or DELETE)

    def all_live(self) -> set[str]:
        return self.meta | self.live


class Layout:
    """Reads one table's roots and their references (manifests are cached: they are immutable)."""

    def __init__(self, target: ResolvedPaimonTable):
        self.target = target
        self.file_io = target.file_io
        self.root = target.table.table_path.rstrip("/")
        self._avro: dict[str, list[dict[str, Any]]] = {}
        self._refs: dict[tuple[str, ...], Refs] = {}

    # -- roots ----------------------------------------------------------------------------------
    def roots(self, branches: Iterable[str] | None = None) -> list[Root]:
        from pypaimon.changelog.changelog_manager import ChangelogManager

        found: list[Root] = []
        for branch in [MAIN, *(self.target.branches() if branches is None else branches)]:
            self.target.ctx.check_cancelled()
            for snapshot in self.target.snapshot_manager(branch).list_snapshots():
                found.append(Root(branch, "snapshot", str(snapshot.id), snapshot))
            tags = self.target.tag_manager(branch)
            for name in sorted(tags.list_tags()):
                tag = tags.get(name)
                if tag is not None:
                    found.append(Root(branch, "tag", name, tag))
            changelogs = ChangelogManager(self.file_io, self.root, branch)
            for changelog in changelogs.safely_get_all_changelogs():
                found.append(Root(branch, "changelog", str(changelog.id), changelog))
        return found

    # -- references -----------------------------------------------------------------------------
    def _read(self, name: str) -> list[dict[str, Any]]:
        if name not in self._avro:
            self.target.ctx.check_cancelled()
            with self.file_io.new_input_stream(f"{self.root}/manifest/{name}") as stream:
                data = stream.read()
            self._avro[name] = list(
                cast(Iterable[dict[str, Any]], fastavro.reader(io.BytesIO(data)))
            )
        return self._avro[name]

    def _list(self, name: str | None, refs: Refs) -> list[str]:
        if not name:
            return []
        refs.meta.add(name)
        manifests = []
        for record in self._read(name):
            manifests.append(record["_FILE_NAME"])
            refs.meta.add(record["_FILE_NAME"])
            refs.meta.update(record.get("_EXTRA_FILES") or [])
        return manifests

    def refs(self, snapshot: Any) -> Refs:
        key = (
            snapshot.base_manifest_list,
            snapshot.delta_manifest_list,
            snapshot.changelog_manifest_list or "",
            snapshot.index_manifest or "",
            snapshot.statistics or "",
        )
        if key in self._refs:
            return self._refs[key]
        refs = Refs()
        # Ordered merge of base then delta entries (Paimon's FileEntry.mergeEntries): an ADD
        # followed by a DELETE of the same file identity cancels; what remains is live.
        live: dict[tuple[Any, ...], list[str]] = {}
        for manifest in self._list(snapshot.base_manifest_list, refs) + self._list(
            snapshot.delta_manifest_list, refs
        ):
            for record in self._read(manifest):
                entry = dict(record["_FILE"])
                names = [entry["_FILE_NAME"], *(entry.get("_EXTRA_FILES") or [])]
                refs.mentioned.update(names)
                identity = (
                    record["_PARTITION"],
                    record["_BUCKET"],
                    entry["_LEVEL"],
                    entry["_FILE_NAME"],
                    tuple(entry.get("_EXTRA_FILES") or ()),
                    entry.get("_EMBEDDED_FILE_INDEX"),
                    entry.get("_EXTERNAL_PATH"),
                )
                if record["_KIND"] == 0:
                    live[identity] = names
                else:
                    live.pop(identity, None)
        for names in live.values():
            refs.live.update(names)
        for manifest in self._list(snapshot.changelog_manifest_list, refs):
            for record in self._read(manifest):
                entry = dict(record["_FILE"])
                refs.live.update([entry["_FILE_NAME"], *(entry.get("_EXTRA_FILES") or [])])
        if snapshot.index_manifest:
            from pypaimon.manifest.index_manifest_file import IndexManifestFile

            refs.meta.add(snapshot.index_manifest)
            for entry in IndexManifestFile(self.target.table).read(snapshot.index_manifest):
                refs.live.add(entry.index_file.file_name)
        if snapshot.statistics:
            refs.meta.add(snapshot.statistics)
        refs.mentioned |= refs.live
        self._refs[key] = refs
        return refs

    def referenced(self, roots: Iterable[Root]) -> set[str]:
        names: set[str] = set()
        for root in roots:
            names |= self.refs(root.snapshot).all_live()
        return names

    # -- files ----------------------------------------------------------------------------------
    def files(self) -> list[StoredFile]:
        """Every file under the table directory except the metadata directories, sorted."""
        import pyarrow.fs as pafs

        filesystem = getattr(self.file_io, "filesystem", None) or pafs.LocalFileSystem()
        base = self.file_io.to_filesystem_path(self.root).rstrip("/")
        remote = "://" in self.root and not self.root.startswith("file:")
        scheme = self.root.split("://", 1)[0] + "://" if remote else ""
        found = []
        for entry in filesystem.get_file_info(
            pafs.FileSelector(base, recursive=True, allow_not_found=True)
        ):
            if entry.type != pafs.FileType.File:
                continue
            relative = entry.path[len(base) :].lstrip("/")
            if "/" not in relative or relative.split("/", 1)[0] in META_DIRS:
                continue  # files at the table root are never Paimon data; metadata is never touched
            mtime = entry.mtime.timestamp() if entry.mtime is not None else time.time()
            path = f"{scheme}{entry.path}" if scheme else f"{self.root}/{relative}"
            found.append(
                StoredFile(
                    path, relative.rsplit("/", 1)[-1], int(entry.size or 0), int(mtime * 1000)
                )
            )
        return sorted(found, key=lambda f: f.path)


def paimon_named(name: str) -> bool:
    return name.startswith(PAIMON_PREFIXES)


def branch_dir(target: ResolvedPaimonTable, branch: str) -> str:
    return f"{target.table.table_path.rstrip('/')}/branch/branch-{branch}"


def schema_path(target: ResolvedPaimonTable, branch: str, schema_id: int) -> str:
    root = target.table.table_path.rstrip("/") if branch == MAIN else branch_dir(target, branch)
    return f"{root}/schema/schema-{schema_id}"


def schema_files(target: ResolvedPaimonTable, branch: str) -> dict[int, str]:
    """Schema id → the JSON text of each schema file of ``branch``."""
    root = schema_path(target, branch, 0).rsplit("/", 1)[0]
    found = {}
    for info in target.file_io.list_status(root):
        name = str(getattr(info, "base_name", None) or info.path).rsplit("/", 1)[-1]
        if name.startswith("schema-") and name[7:].isdigit():
            found[int(name[7:])] = target.file_io.read_file_utf8(f"{root}/{name}")
    return found


# -- writes ---------------------------------------------------------------------------------------
def write_hint(target: ResolvedPaimonTable, branch: str, hint: str, snapshot_id: int) -> None:
    manager = target.snapshot_manager(branch)
    target.file_io.overwrite_file_utf8(f"{manager.snapshot_dir}/{hint}", str(snapshot_id))


def write_snapshot_file(target: ResolvedPaimonTable, branch: str, snapshot: Any) -> bool:
    """Atomically create snapshot-<id> on ``branch``; False if it already exists (a concurrent
    commit took that id)."""
    from pypaimon.common.json_util import JSON

    path = target.snapshot_manager(branch).get_snapshot_path(snapshot.id)
    if target.file_io.exists(path):
        return False
    return bool(target.file_io.try_to_write_atomic(path, JSON.to_json(snapshot, indent=2)))


def snapshot_as_latest(
    target: ResolvedPaimonTable, latest: Any, rolled_back: Any, properties: dict[str, str]
) -> Any:
    """Commit snapshot latest.id + 1 whose contents are exactly ``rolled_back``'s.

    Its base manifest list names the target's manifests (base and delta) and its delta list is
    empty, so every reader (Java's ordered merge and pypaimon's unordered one alike) sees exactly
    the target's files. Later snapshots and tags stay. Returns the new snapshot, or None when
    another commit took id latest.id + 1 first (nothing visible was changed then)."""
    from pypaimon.manifest.manifest_list_manager import ManifestListManager
    from pypaimon.snapshot.snapshot import BATCH_COMMIT_IDENTIFIER, Snapshot

    lists = ManifestListManager(target.table)
    metas = lists.read_all(rolled_back)
    unique = uuid.uuid4()
    base, delta = f"manifest-list-{unique}-0", f"manifest-list-{unique}-1"
    base_size, delta_size = lists.write(base, metas), lists.write(delta, [])
    snapshot = Snapshot(
        version=3,
        id=latest.id + 1,
        schema_id=latest.schema_id,
        base_manifest_list=base,
        base_manifest_list_size=base_size,
        delta_manifest_list=delta,
        delta_manifest_list_size=delta_size,
        total_record_count=rolled_back.total_record_count,
        delta_record_count=0,
        commit_user=f"rollback-to-as-latest-{uuid.uuid4()}",
        commit_identifier=BATCH_COMMIT_IDENTIFIER,
        commit_kind="OVERWRITE",
        time_millis=int(time.time() * 1000),
        index_manifest=rolled_back.index_manifest,
        watermark=latest.watermark,
        next_row_id=latest.next_row_id,
        properties=properties,
    )
    if write_snapshot_file(target, MAIN, snapshot):
        write_hint(target, MAIN, "LATEST", snapshot.id)
        return snapshot
    for name in (base, delta):  # ours alone, never referenced: safe to remove
        target.file_io.delete_quietly(f"{target.table.table_path}/manifest/{name}")
    return None


def same_commit(a: Any, b: Any) -> bool:
    """Two snapshot files describe the same commit (a branch's copy of main's snapshot)."""
    fields = (
        "id",
        "base_manifest_list",
        "delta_manifest_list",
        "time_millis",
        "commit_user",
        "commit_identifier",
        "schema_id",
    )
    return a is not None and b is not None and all(getattr(a, f) == getattr(b, f) for f in fields)


def copy_tree(target: ResolvedPaimonTable, source: str, destination: str) -> list[str]:
    """Copy every file under ``source`` to the same relative path under ``destination``
    (object stores have no directory rename); the copied destination paths."""
    import pyarrow.fs as pafs

    filesystem = getattr(target.file_io, "filesystem", None) or pafs.LocalFileSystem()
    src = target.file_io.to_filesystem_path(source).rstrip("/")
    dst = target.file_io.to_filesystem_path(destination).rstrip("/")
    copied = []
    for entry in filesystem.get_file_info(
        pafs.FileSelector(src, recursive=True, allow_not_found=True)
    ):
        if entry.type == pafs.FileType.File:
            relative = entry.path[len(src) :].lstrip("/")
            target.ctx.check_cancelled()
            filesystem.create_dir(f"{dst}/{relative}".rsplit("/", 1)[0], recursive=True)
            filesystem.copy_file(entry.path, f"{dst}/{relative}")
            copied.append(f"{dst}/{relative}")
    return copied
