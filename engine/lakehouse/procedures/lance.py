"""The maintenance procedures of Lance catalogs: ``CALL <catalog>.sys.<name>(...)``.

Names, arguments and result shapes follow Paimon's Spark procedures where they apply; a Lance
"snapshot" is a dataset version of the main branch. Every procedure takes ``table`` as
'database.table' (exactly that table: no pattern, no fallback) and needs ALTER_PRIV on it. Every
procedure here except rollback_to changes the table, so a call is refused while a Lance index job
on the table is unresolved, and the catalog's cached metadata of the table is refreshed after it.

Execution (lance_common.py): the table is opened once at its latest version and pinned; planning
reads only that version; right before each destructive step the table's state is re-read and a
concurrent commit stops the call with a clear error instead of deleting. KILL QUERY and
``procedure_timeout_second`` cancel cooperatively between steps; the error then says what was
done. Deletions are bounded by ``max_deletes`` (at most config ``procedure_max_deletes``).
"""

from __future__ import annotations

from drydock.engine.lakehouse.procedures.base import Arg, Procedure
from drydock.engine.lakehouse.procedures.lance_common import columns
from drydock.engine.lakehouse.procedures.lance_maintenance import (
    COMPACT_COLUMNS,
    COMPACT_OPTIONS,
    EXPIRE_COLUMNS,
    OPTIMIZE_COLUMNS,
    compact,
    expire_snapshots,
    optimize_indices,
)
from drydock.engine.lakehouse.procedures.lance_orphans import (
    MAX_PARALLELISM,
    ORPHAN_COLUMNS,
    S3_DELETE_THREADS,
    remove_orphan_files,
)
from drydock.engine.lakehouse.procedures.lance_refs import (
    BRANCH_COLUMNS,
    DELETE_BRANCH_COLUMNS,
    RENAME_TAG_COLUMNS,
    ROLLBACK_COLUMNS,
    TAG_COLUMNS,
    create_branch,
    create_tag,
    delete_branch,
    delete_tag,
    rename_tag,
    rollback_to,
    rollback_to_as_latest,
)

TABLE = Arg("table", "STRING", required=True, doc="'database.table' of this catalog")
MAX_DELETES = Arg(
    "max_deletes",
    "INT",
    doc="at most this many deletions in this call (default and upper "
    "bound: config procedure_max_deletes); the rest is left, with a warning",
)

PROCEDURES = [
    Procedure(
        name="compact",
        doc="Rewrite small fragments into larger ones (Lance compact_files: deleted rows are "
        "materialized, indexes remapped). Commits new versions; the old files stay until "
        "expire_snapshots. Reports fragments and files removed/added and the versions before and "
        "after.",
        args=(
            TABLE,
            Arg("options", "STRING", doc="'k=v,...' with keys " + ", ".join(COMPACT_OPTIONS)),
        ),
        result_columns=columns(COMPACT_COLUMNS),
        run=compact,
    ),
    Procedure(
        name="optimize_indices",
        doc="Add rows appended since an index was built to the table's indexes (Lance "
        "optimize_indices). "
        "Reports the unindexed row count of those indexes before and after.",
        args=(
            TABLE,
            Arg(
                "index_names",
                "STRING",
                doc="comma-separated index names (default: every index); each must exist",
            ),
            Arg(
                "num_indices_to_merge",
                "INT",
                doc="delta indexes to merge (0: add a new delta; default: Lance's)",
            ),
            Arg("retrain", "BOOLEAN", default=False, doc="retrain the index on the current data"),
        ),
        result_columns=columns(OPTIMIZE_COLUMNS),
        run=optimize_indices,
    ),
    Procedure(
        name="expire_snapshots",
        doc="Remove old versions of the main branch and the files only they reference (Lance "
        "cleanup_old_versions). Paimon's rule, applied oldest first: the newest retain_min "
        "versions "
        "always stay; versions beyond the newest retain_max expire; others expire when committed "
        "before older_than. With neither retain_max nor older_than, older_than is now - 14 days "
        "(Lance's default). Tagged versions are never expired (they count towards "
        "retain_min/retain_max "
        "and are reported in kept_tagged_snapshots_count; delete the tag first), nor are the "
        "versions "
        "branches were created from (kept_branch_snapshots_count).",
        args=(
            TABLE,
            Arg("retain_max", "INT", doc="keep at most this many versions (Lance retain_versions)"),
            Arg("retain_min", "INT", default=1, doc="always keep this many newest versions"),
            Arg(
                "older_than",
                "STRING",
                doc="'YYYY-MM-DD HH:MM:SS[.ffffff]' (server time) or epoch milliseconds",
            ),
            MAX_DELETES,
        ),
        result_columns=columns(EXPIRE_COLUMNS),
        run=expire_snapshots,
    ),
    Procedure(
        name="remove_orphan_files",
        doc="Delete files in the table's data directories that no version of the main branch, no "
        "tag and "
        "no branch references and that were last modified before older_than. Returns one row per "
        "file (path relative to the table root, size, action 'deleted' or, with dry_run, "
        "'would_delete'), sorted by path; no row when there is none.",
        args=(
            TABLE,
            Arg(
                "older_than",
                "STRING",
                doc="keep files modified at or after this time (default: now - 1 day; "
                "not in the future)",
            ),
            Arg(
                "dry_run", "BOOLEAN", default=False, doc="only list the files that would be deleted"
            ),
            Arg(
                "parallelism",
                "INT",
                doc=f"concurrent deletions on S3 (1..{MAX_PARALLELISM}, default "
                f"{S3_DELETE_THREADS}); local files are deleted one by one",
            ),
            Arg(
                "mode",
                "STRING",
                doc="'local' or 'distributed': accepted for compatibility, drydock runs locally",
            ),
            MAX_DELETES,
        ),
        result_columns=columns(ORPHAN_COLUMNS),
        run=remove_orphan_files,
    ),
    Procedure(
        name="rollback_to_as_latest",
        doc="Commit a new latest version whose content equals a version of the main branch (Lance "
        "restore). Later versions and tags are kept. Must specify exactly one of tag and "
        "snapshot_id.",
        args=(
            TABLE,
            Arg("tag", "STRING", doc="a tag on the main branch"),
            Arg("snapshot_id", "LONG", doc="a version of the main branch"),
        ),
        result_columns=columns(ROLLBACK_COLUMNS),
        run=rollback_to_as_latest,
    ),
    Procedure(
        name="rollback_to",
        doc="Not supported for Lance (later versions cannot be removed safely); use "
        "rollback_to_as_latest.",
        args=(
            TABLE,
            Arg("tag", "STRING", doc="a tag on the main branch"),
            Arg("snapshot_id", "LONG", doc="a version of the main branch"),
        ),
        result_columns=columns(ROLLBACK_COLUMNS),
        run=rollback_to,
        changes_metadata=False,
    ),
    Procedure(
        name="create_tag",
        doc="Tag a version of the main branch (default: the latest). A tag commits no version, and "
        "expire_snapshots never removes a tagged version.",
        args=(
            TABLE,
            Arg("tag", "STRING", required=True, doc="new tag name: letters, digits, '_', '.', '-'"),
            Arg("snapshot", "LONG", doc="the version to tag (default: the latest)"),
        ),
        result_columns=columns(TAG_COLUMNS),
        run=create_tag,
    ),
    Procedure(
        name="delete_tag",
        doc="Delete tags (each must exist; all are checked before any is deleted). One row per "
        "tag.",
        args=(
            TABLE,
            Arg("tag", "STRING", required=True, doc="a tag name or a comma-separated list"),
        ),
        result_columns=columns(TAG_COLUMNS),
        run=delete_tag,
    ),
    Procedure(
        name="rename_tag",
        doc="Rename a tag (it keeps its version).",
        args=(
            TABLE,
            Arg("tag", "STRING", required=True, doc="the existing tag"),
            Arg("target_tag", "STRING", required=True, doc="its new name (must not exist)"),
        ),
        result_columns=columns(RENAME_TAG_COLUMNS),
        run=rename_tag,
    ),
    Procedure(
        name="create_branch",
        doc="Create a branch from the main branch's latest version, a tag or a version (at most "
        "one of "
        "tag and snapshot). Unlike Paimon, a Lance branch starts with the data of that version.",
        args=(
            TABLE,
            Arg(
                "branch",
                "STRING",
                required=True,
                doc="new branch name: letters, digits, '_', '.', '-'; not 'main'",
            ),
            Arg("tag", "STRING", doc="start from this tag's version"),
            Arg(
                "ignoreIfExists",
                "BOOLEAN",
                default=False,
                doc="an existing branch is not an error (result false)",
            ),
            Arg("snapshot", "LONG", doc="start from this version of the main branch (Lance only)"),
        ),
        result_columns=columns(BRANCH_COLUMNS),
        run=create_branch,
    ),
    Procedure(
        name="delete_branch",
        doc="Delete branches and their files (each must exist, have no tags and no other child "
        "branch). "
        "One row per branch.",
        args=(
            TABLE,
            Arg("branch", "STRING", required=True, doc="a branch name or a comma-separated list"),
        ),
        result_columns=columns(DELETE_BRANCH_COLUMNS),
        run=delete_branch,
    ),
]
