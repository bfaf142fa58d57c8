"""Reading catalog locations: the rules of where a catalog may point (the locations a non-admin may
use, and drydock's own data directory, which no catalog may reach), as pure functions, and the
config validators of the keys that list them. engine/lakehouse/catalogs/placement.py applies them.

A local warehouse is compared by realpath (symlinks followed, ``..`` folded) with the realpath of
each root in ``catalog_allowed_local_roots``. The connectors differ in how they read a ``file:``
URI (decoded or not, ``;params`` split or not), so every reading must pass. An object-store
warehouse is compared segment by segment with the ``s3://bucket/prefix`` entries of
``catalog_allowed_object_prefixes``; a ``.`` or ``..`` segment is never under an entry.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlparse, urlsplit

from drydock.engine.support.config_keys import Key
from drydock.engine.errors import Errors

LOCAL_ROOTS_KEY = Key.CATALOG_ALLOWED_LOCAL_ROOTS
OBJECT_PREFIXES_KEY = Key.CATALOG_ALLOWED_OBJECT_PREFIXES
WAREHOUSE_KEYS = ("warehouse",)  # the properties that name a location, in every connector
OBJECT_SCHEMES = ("s3", "s3a")


@dataclass(frozen=True)
class Location:
    scheme: str  # "file" or "s3"
    readings: tuple[
        tuple[str, ...], ...
    ]  # file: realpath components of each reading; s3: (bucket, *key)

    @property
    def config_key(self) -> str:
        return LOCAL_ROOTS_KEY if self.scheme == "file" else OBJECT_PREFIXES_KEY


def _components(path: str) -> tuple[str, ...]:
    return tuple(part for part in path.split("/") if part)


def _real(path: str) -> tuple[str, ...]:
    if "\x00" in path:
        raise Errors.CATALOG_BAD_PROPERTY.error(
            detail="Invalid warehouse: a path cannot contain a NUL byte"
        )
    return _components(os.path.realpath(path))


def _file_readings(text: str) -> tuple[tuple[str, ...], ...]:
    paths = {urlsplit(text).path, urlparse(text).path}
    paths |= {unquote(p) for p in paths}
    if any(not p.startswith("/") for p in paths):
        raise Errors.CATALOG_BAD_PROPERTY.error(
            detail=f"Invalid warehouse '{text}': a file URI needs an absolute path"
        )
    return tuple(sorted({_real(p) for p in paths}))


def locate(value: str) -> Location:
    """A warehouse property → where it points; anything not understood is an error (fail closed)."""
    text = value.strip()
    if text.startswith("/"):
        return Location("file", (_real(text),))
    parts = urlsplit(text)
    scheme = parts.scheme.lower()
    if scheme == "file" and parts.netloc in ("", "localhost"):
        return Location("file", _file_readings(text))
    if scheme in OBJECT_SCHEMES and parts.netloc:
        return Location("s3", ((parts.netloc, *_components(parts.path)),))
    raise Errors.CATALOG_BAD_PROPERTY.error(
        detail=f"Invalid warehouse '{value}': use an absolute local path, file:///absolute/path or "
        f"s3://bucket/prefix"
    )


def _entries(text: str) -> list[str]:
    return [entry.strip() for entry in text.split(",") if entry.strip()]


def local_roots(text: str) -> list[tuple[str, ...]]:
    return [_real(entry) for entry in _entries(text) if entry.startswith("/")]


def object_prefixes(text: str) -> list[tuple[str, ...]]:
    out = []
    for entry in _entries(text):
        parts = urlsplit(entry)
        if parts.scheme.lower() in OBJECT_SCHEMES and parts.netloc:
            out.append((parts.netloc, *_components(parts.path)))
    return out


def _under(inner: tuple[str, ...], outer: tuple[str, ...]) -> bool:
    return inner[: len(outer)] == outer


def _dotted(reading: tuple[str, ...]) -> bool:
    return any(part in (".", "..") for part in reading)


def is_allowed(
    location: Location, roots: list[tuple[str, ...]], prefixes: list[tuple[str, ...]]
) -> bool:
    """Every reading of ``location`` lies under some configured root or prefix."""
    if location.scheme == "file":
        return all(any(_under(r, root) for root in roots) for r in location.readings)
    return all(not _dotted(r) and any(_under(r, p) for p in prefixes) for r in location.readings)


def overlaps(location: Location, reserved: str) -> bool:
    """A local reading inside ``reserved`` or containing it (both realpaths)."""
    if location.scheme != "file":
        return False
    guarded = _real(reserved)
    return any(_under(r, guarded) or _under(guarded, r) for r in location.readings)


# -- config validators (ConfigField.validator: the reason a value is rejected, or None)
# -------------
def check_local_roots(value: Any) -> str | None:
    bad = [e for e in _entries(str(value)) if not e.startswith("/")]
    return f"not an absolute path: {bad[0]}" if bad else None


def check_object_prefixes(value: Any) -> str | None:
    for entry in _entries(str(value)):
        parts = urlsplit(entry)
        if (
            parts.scheme.lower() not in OBJECT_SCHEMES
            or not parts.netloc
            or parts.query
            or parts.fragment
        ):
            return f"not an s3://bucket[/prefix]: {entry}"
        if _dotted(_components(parts.path)):
            return f"'.' and '..' are not allowed in a prefix: {entry}"
    return None
