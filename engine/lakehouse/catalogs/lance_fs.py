"""Where a Lance catalog's data lives: the warehouse location, storage options, directory listing.

Layout: ``<warehouse>/<db>/<table>.lance``. The warehouse is an absolute local path, a
``file://`` URI or ``s3://bucket[/prefix]``. Listing uses pyarrow's file systems (already a
dependency of pylance) so that no extra S3 client is needed; reading uses Lance's own object
store with :func:`lance_storage_options`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

import pyarrow.fs as pafs

from drydock.engine.errors import Errors

TABLE_SUFFIX = ".lance"
TRUE_VALUES = ("true", "1", "yes", "on")
FALSE_VALUES = ("false", "0", "no", "off")
# Database and table names map to one path component: nothing that could leave the warehouse.
_SAFE_NAME = re.compile(r"[^/\\\x00]+")

# pyarrow's S3 client retries and waits on its own; bound it so a dead endpoint answers in seconds.
S3_CONNECT_TIMEOUT_SECONDS = 10.0
S3_REQUEST_TIMEOUT_SECONDS = 60.0


@dataclass(frozen=True)
class Warehouse:
    scheme: str  # "file" or "s3"
    root: str  # file: absolute normalized path; s3: "bucket" or "bucket/prefix", no trailing slash

    def fs_path(self, *parts: str) -> str:
        """The path pyarrow's file system for this warehouse understands."""
        return "/".join([self.root, *parts]) if parts else self.root

    def uri(self, *parts: str) -> str:
        """What Lance opens: an absolute local path or ``s3://bucket/key`` (no trailing slash)."""
        if self.scheme == "file":
            return os.path.join(self.root, *parts)
        return "s3://" + self.fs_path(*parts)


def parse_bool(key: str, value: str) -> bool:
    lowered = value.strip().lower()
    if lowered in TRUE_VALUES:
        return True
    if lowered in FALSE_VALUES:
        return False
    raise Errors.CATALOG_BAD_PROPERTY.error(
        detail=f"Property '{key}' must be true or false, got '{value}'"
    )


def parse_warehouse(value: str) -> Warehouse:
    """``/abs/path`` | ``file:///abs/path`` | ``s3://bucket[/prefix]`` → Warehouse (or a clear
    error)."""
    text = value.strip()
    supported = "use an absolute local path, file:///absolute/path or s3://bucket/prefix"
    if text.startswith("/"):
        return Warehouse("file", _local_root(text))
    parts = urlsplit(text)
    scheme = parts.scheme.lower()
    if scheme == "file":
        if parts.netloc not in ("", "localhost") or not parts.path.startswith("/"):
            raise Errors.CATALOG_BAD_PROPERTY.error(
                detail=f"Invalid warehouse '{value}': a file:// URI needs an absolute path; "
                f"{supported}"
            )
        return Warehouse("file", _local_root(unquote(parts.path)))
    if scheme == "s3":
        bucket, prefix = parts.netloc, parts.path.strip("/")
        if not bucket or parts.query or parts.fragment:
            raise Errors.CATALOG_BAD_PROPERTY.error(
                detail=f"Invalid warehouse '{value}': an s3:// URI needs a bucket; {supported}"
            )
        return Warehouse("s3", f"{bucket}/{prefix}" if prefix else bucket)
    # A relative path would depend on the server's working directory, and the dataset URI must be
    # stable (index jobs compare it with the locator they persisted).
    raise Errors.CATALOG_BAD_PROPERTY.error(detail=f"Invalid warehouse '{value}': {supported}")


def _local_root(path: str) -> str:
    return os.path.normpath(path) if path != "/" else "/"


def validate_endpoint(value: str) -> None:
    parts = urlsplit(value.strip())
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise Errors.CATALOG_BAD_PROPERTY.error(
            detail=f"Invalid s3.endpoint '{value}': use http://host[:port] or https://host[:port]"
        )


def safe_name(name: str) -> bool:
    """Whether a database/table name maps to exactly one path component under the warehouse."""
    return bool(_SAFE_NAME.fullmatch(name)) and not name.startswith(".")


def lance_storage_options(props: dict[str, str]) -> dict[str, str]:
    """Catalog properties → Lance ``storage_options`` (object_store's AWS keys)."""
    out: dict[str, str] = {}
    mapping = {
        "s3.access_key": "aws_access_key_id",
        "s3.secret_key": "aws_secret_access_key",
        "s3.session_token": "aws_session_token",
        "s3.region": "aws_region",
    }
    for prop, option in mapping.items():
        if props.get(prop):
            out[option] = props[prop]
    endpoint = props.get("s3.endpoint", "").strip().rstrip("/")
    if endpoint:
        out["aws_endpoint"] = endpoint
        if endpoint.lower().startswith("http://"):
            # object_store refuses plain http unless told (docs/upstream-facts.md)
            out["allow_http"] = "true"
    if props.get("use_path_style"):
        path_style = parse_bool("use_path_style", props["use_path_style"])
        out["aws_virtual_hosted_style_request"] = "false" if path_style else "true"
    return out


def filesystem(warehouse: Warehouse, props: dict[str, str]) -> pafs.FileSystem:
    """A pyarrow file system that lists the warehouse (the same endpoint and credentials Lance
    uses)."""
    if warehouse.scheme == "file":
        return pafs.LocalFileSystem()
    kwargs: dict[str, object] = {
        "connect_timeout": S3_CONNECT_TIMEOUT_SECONDS,
        "request_timeout": S3_REQUEST_TIMEOUT_SECONDS,
    }
    if props.get("s3.access_key"):
        kwargs["access_key"] = props["s3.access_key"]
        kwargs["secret_key"] = props.get("s3.secret_key", "")
        if props.get("s3.session_token"):
            kwargs["session_token"] = props["s3.session_token"]
    if props.get("s3.region"):
        kwargs["region"] = props["s3.region"]
    endpoint = props.get("s3.endpoint", "").strip().rstrip("/")
    if endpoint:
        parts = urlsplit(endpoint)
        kwargs["endpoint_override"] = parts.netloc + parts.path
        kwargs["scheme"] = parts.scheme.lower()
    if props.get("use_path_style"):
        kwargs["force_virtual_addressing"] = not parse_bool(
            "use_path_style", props["use_path_style"]
        )
    return pafs.S3FileSystem(**kwargs)  # type: ignore[arg-type]


def list_dirs(fs: pafs.FileSystem, path: str) -> list[str] | None:
    """Names of the sub-directories of ``path``; None when ``path`` does not exist.

    On S3 a "directory" is a key prefix: an empty warehouse has no prefix at all, which
    pyarrow reports as not found.
    """
    try:
        infos = fs.get_file_info(pafs.FileSelector(path, recursive=False))
    except FileNotFoundError:
        return None
    return sorted(i.base_name for i in infos if i.type == pafs.FileType.Directory)


def is_dir(fs: pafs.FileSystem, path: str) -> bool:
    return bool(fs.get_file_info(path).type == pafs.FileType.Directory)


# A local warehouse that every frontend sharing the store mounts at the same path (NFS, a cluster
# file system): its index jobs may be dispatched on whichever frontend leads
# (engine/jobs/control/local_dispatch.py). Without it only a lone frontend dispatches them.
# Validated at CREATE and ALTER CATALOG.
SHARED_FILESYSTEM = "warehouse.shared_filesystem"


def validate_shared_filesystem(properties: dict[str, str]) -> bool:
    value = properties.get(SHARED_FILESYSTEM)
    if value is None:
        return False
    shared = parse_bool(SHARED_FILESYSTEM, value)
    if parse_warehouse(properties["warehouse"]).scheme != "file":
        raise Errors.CATALOG_BAD_PROPERTY.error(
            detail=f"Property '{SHARED_FILESYSTEM}' applies only to a local (file) warehouse; "
            "an object-store warehouse is shared by every frontend already: remove it"
        )
    return shared


def shared_filesystem(properties: dict[str, str]) -> bool:
    """Whether the catalog declares its local warehouse a file system every frontend shares
    (validated when set; anything but a true value reads as not shared: fail closed)."""
    return properties.get(SHARED_FILESYSTEM, "").strip().lower() in TRUE_VALUES
