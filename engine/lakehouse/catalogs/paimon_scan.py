"""Paimon reads that stream: an append table's pinned snapshot as a pyarrow Dataset of its files.

For an append-only table (no primary key, no deletion vectors, no row tracking or data evolution)
the rows of a snapshot are exactly the rows of the data files its plan lists: there is nothing to
merge. Those files are then handed to DuckDB as one ``pyarrow.dataset`` (the snapshot's file list,
so still pinned to one snapshot): DuckDB pushes its projection and filters into the Parquet scan
(row groups skipped by statistics, only the needed columns decoded) and streams record batches, so
a scan's memory does not grow with the table, and a statement that names the table twice can scan
it twice. Anything else (primary-key tables that pypaimon must merge, files written under another
schema, non-Parquet files, external paths) is read by pypaimon's own reader, as before.
"""

from __future__ import annotations

from typing import Any

import pyarrow.dataset as pads
import pyarrow.fs as pafs

_FORMAT = "parquet"


def direct_dataset(table: Any, splits: list[Any]) -> pads.Dataset | None:
    """The snapshot's rows as a Dataset over its data files, or None when they are not exactly
    the rows (see the module docstring)."""
    from pypaimon.schema.data_types import PyarrowFieldParser

    options = table.options
    if (
        table.primary_keys
        or options.deletion_vectors_enabled()
        or options.row_tracking_enabled()
        or options.data_evolution_enabled()
    ):
        return None
    if str(table.table_schema.options.get("file.format", _FORMAT)).lower() != _FORMAT:
        return None
    schema_id = table.table_schema.id
    paths = []
    for split in splits:
        for meta in split.files:
            if (
                meta.schema_id != schema_id
                or meta.external_path
                or not meta.file_path
                or not meta.file_name.endswith("." + _FORMAT)
                or meta.delete_row_count
            ):
                return None
            paths.append(meta.file_path)
    file_io = table.file_io
    remote = "://" in table.table_path and not table.table_path.startswith("file:")
    filesystem = getattr(file_io, "filesystem", None) if remote else pafs.LocalFileSystem()
    if filesystem is None:
        return None
    located = [file_io.to_filesystem_path(p) if remote else p.removeprefix("file:") for p in paths]
    # Opened lazily by DuckDB, so look now: a file deleted behind Paimon's back is the catalog's
    # error at bind time (as with pypaimon's reader), not a half-read result.
    for info in filesystem.get_file_info(located):
        if info.type == pafs.FileType.NotFound:
            raise FileNotFoundError(f"data file {info.path} of the pinned snapshot does not exist")
    schema = PyarrowFieldParser.from_paimon_schema(table.fields)
    if located and not _has_every_column(located[0], filesystem, schema):
        return None  # a writer that left columns out of its files: pypaimon's reader knows more
    return pads.dataset(located, schema=schema, format=_FORMAT, filesystem=filesystem)


def _has_every_column(path: str, filesystem: pafs.FileSystem, schema: Any) -> bool:
    """Paimon writes every column (partition columns too) into an append table's files; a file
    without one would read as NULLs through a Dataset, so one footer is checked (files of one
    schema id come from the same table schema)."""
    import pyarrow.parquet as pq

    return set(schema.names) <= set(pq.read_schema(path, filesystem=filesystem).names)
