"""The folders of a distributed build's uncommitted index segments, locally or on object storage.

- Removing: pylance's own cleanup keeps unreferenced index folders for 7 days (a build may still be
  writing them); drydock knows when a build ended without a commit and every task is proven ended,
  so it removes the folders of exactly the segment uuids it derived for that build, nothing else.
- Relocating: pylance's segment merge writes the merged segment under a uuid of its own choosing;
  the job's evidence rules look for the job's pre-assigned uuid, so the merged folder is moved to
  that uuid before the one commit (``relocate_segment``).
"""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path
from urllib.parse import urlparse

import pyarrow.fs as pafs

logger = logging.getLogger(__name__)


def remove_segments(
    uri: str, storage_options: Mapping[str, str], segment_uuids: Iterable[str]
) -> list[str]:
    """Delete ``<uri>/_indices/<uuid>`` for each uuid; the uuids whose folders could not be removed
    (logged with the reason; they are left for pylance's cleanup)."""
    uuids = [u for u in segment_uuids if u and "/" not in u and u not in (".", "..")]
    parsed = urlparse(uri)
    if parsed.scheme in ("", "file"):
        root = Path(parsed.path if parsed.scheme else uri) / "_indices"
        for segment in uuids:
            shutil.rmtree(root / segment, ignore_errors=True)
        return [u for u in uuids if (root / u).exists()]
    try:
        fs, base = _filesystem(uri, storage_options)
    except (ValueError, OSError) as exc:
        logger.warning(
            "uncommitted segment folders left under %s/_indices (%s): %s",
            uri,
            exc,
            ", ".join(uuids),
        )
        return uuids
    left = []
    for segment in uuids:
        try:
            fs.delete_dir(f"{base}/_indices/{segment}")
        except FileNotFoundError:
            continue  # the task never wrote it
        except OSError as exc:
            logger.warning("segment folder %s/_indices/%s not removed: %s", uri, segment, exc)
            left.append(segment)
    return left


def can_relocate(uri: str) -> bool:
    """Whether ``relocate_segment`` supports this dataset's storage (local disk and S3)."""
    return urlparse(uri).scheme in ("", "file", "s3", "s3a")


def relocate_segment(
    uri: str, storage_options: Mapping[str, str], source_uuid: str, target_uuid: str
) -> None:
    """Move ``<uri>/_indices/<source_uuid>`` to ``<uri>/_indices/<target_uuid>``, replacing what
    was there (an uncommitted segment: the caller never relocates onto a committed one). Raises
    OSError or ValueError when it cannot; the target may then be partly written."""
    for name in (source_uuid, target_uuid):
        if not name or "/" in name or name in (".", ".."):
            raise ValueError(f"not a segment uuid: {name!r}")
    parsed = urlparse(uri)
    if parsed.scheme in ("", "file"):
        root = Path(parsed.path if parsed.scheme else uri) / "_indices"
        shutil.rmtree(root / target_uuid, ignore_errors=True)
        os.rename(root / source_uuid, root / target_uuid)  # one directory rename: atomic
        return
    fs, base = _filesystem(uri, storage_options)
    source, target = f"{base}/_indices/{source_uuid}", f"{base}/_indices/{target_uuid}"
    try:
        fs.delete_dir(target)
    except FileNotFoundError:
        pass
    files = fs.get_file_info(pafs.FileSelector(source, recursive=True))
    for info in files:  # object stores have no directory rename: a server-side copy per file
        if info.type == pafs.FileType.File:
            fs.copy_file(info.path, target + info.path[len(source) :])
    fs.delete_dir(source)


def _filesystem(uri: str, options: Mapping[str, str]) -> tuple[pafs.FileSystem, str]:
    """A pyarrow filesystem from the same storage options lance was given (S3 spellings)."""
    parsed = urlparse(uri)
    if parsed.scheme not in ("s3", "s3a"):
        raise ValueError(f"removal on {parsed.scheme}:// storage is not supported")
    get = {k.lower(): v for k, v in options.items()}.get
    endpoint = get("aws_endpoint") or get("endpoint") or ""
    scheme = "http" if endpoint.startswith("http://") or get("allow_http") == "true" else "https"
    fs = pafs.S3FileSystem(
        access_key=get("aws_access_key_id"),
        secret_key=get("aws_secret_access_key"),
        session_token=get("aws_session_token"),
        region=get("aws_region") or get("region"),
        endpoint_override=endpoint.split("://", 1)[-1] or None,
        scheme=scheme,
    )
    return fs, f"{parsed.netloc}{parsed.path}".rstrip("/")
