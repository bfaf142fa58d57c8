"""Where a Paimon catalog keeps its list of databases and tables (Paimon's ``metastore``), and the
options pypaimon's catalog of that kind is opened with.

* ``filesystem`` (the default): the warehouse directory itself (local or s3://).
* ``rest``: a Paimon REST catalog service at ``uri``; ``warehouse`` names the service's warehouse
  (a name the service resolves, not a path). The service answers each table's location; pypaimon
  then reads and writes the files there, and commits snapshots through the service. Only bearer
  tokens (Paimon's ``token.provider`` = 'bear') are offered: Alibaba Cloud DLF signing ('dlf')
  needs DLF, which cannot be reached or tested here.
* ``jdbc``: a database at ``uri`` (``jdbc:sqlite:/abs/path.db``, ``jdbc:postgresql://…``,
  ``jdbc:mysql://…``) holds the table list; ``warehouse`` is the directory of the table files.
* ``hms`` / ``hive``: refused: no Hive Metastore client here (pypaimon has no Hive catalog).

The kind is spelled ``paimon.catalog.type`` (Doris) or ``metastore`` (Paimon); both may be given
if they agree. A REST or JDBC catalog needs global ADMIN to create, change or drop (placement.py):
its ``uri`` reaches a service or a database the warehouse roots cannot bound.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlparse

from drydock.engine.errors import Errors

METASTORE_KEYS = ("paimon.catalog.type", "metastore")
REST_KEYS = ("uri", "token.provider", "token")
JDBC_KEYS = ("uri", "jdbc.user", "jdbc.password", "catalog-key")
KINDS = ("filesystem", "rest", "jdbc")
_KEYS_OF = {"filesystem": (), "rest": REST_KEYS, "jdbc": JDBC_KEYS}
_TOKEN_PROVIDERS = ("bear",)
_JDBC_SCHEMES = ("jdbc:sqlite:", "jdbc:postgresql://", "jdbc:mysql://")
# Doris spells a Paimon catalog on a Hive Metastore 'hms' (Paimon itself: metastore = 'hive').
_HMS_KINDS = ("hms", "hive")
_HMS_UNSUPPORTED = (
    "'{key}' = '{kind}' is not supported: there is no Hive Metastore client here (pypaimon has "
    "no Hive catalog, and no Hive Metastore can be installed or reached from this server), so the "
    "metastore cannot be asked where tables are. Supported: 'paimon.catalog.type' = 'filesystem' "
    "with 'warehouse' = the warehouse directory (an absolute local path, file:// or s3://; tables "
    "an HMS catalog registered in that warehouse read the same way), 'rest' (a Paimon REST "
    "catalog service: 'uri', 'warehouse', 'token') or 'jdbc' ('uri' = jdbc:sqlite:/…, "
    "jdbc:postgresql://… or jdbc:mysql://…, 'warehouse')"
)


def _bad(detail: str) -> Exception:
    return Errors.CATALOG_BAD_PROPERTY.error(detail=detail)


def metastore_of(properties: dict[str, str]) -> str:
    """The catalog's metastore kind; HMS and unknown kinds are refused with what to use instead."""
    given = {k: properties[k].strip().lower() for k in METASTORE_KEYS if k in properties}
    if len(set(given.values())) > 1:
        raise _bad(
            "'paimon.catalog.type' and 'metastore' name different metastores: "
            + ", ".join(f"'{k}' = '{v}'" for k, v in given.items())
            + "; give one of them"
        )
    key, kind = next(iter(given.items()), ("metastore", "filesystem"))
    if kind in _HMS_KINDS:
        raise _bad(_HMS_UNSUPPORTED.format(key=key, kind=kind))
    if kind not in KINDS:
        raise _bad(f"Unknown Paimon metastore '{kind}'; supported: {', '.join(KINDS)}")
    return kind


def validate(kind: str, properties: dict[str, str]) -> None:
    """The metastore-specific properties: present where needed, refused where they mean nothing."""
    for other, keys in _KEYS_OF.items():
        for key in keys:
            if key in properties and key not in _KEYS_OF[kind]:
                raise _bad(f"'{key}' is a property of a Paimon '{other}' metastore, not '{kind}'")
    if kind == "rest":
        _validate_rest(properties)
    elif kind == "jdbc":
        _validate_jdbc(properties)


def _validate_rest(properties: dict[str, str]) -> None:
    uri = properties.get("uri", "").strip()
    parsed = urlparse(uri)
    if parsed.scheme.lower() not in ("http", "https") or not parsed.hostname:
        raise _bad("A Paimon REST catalog needs 'uri' = the service's http:// or https:// address")
    provider = properties.get("token.provider", "bear").strip().lower()
    if provider not in _TOKEN_PROVIDERS:
        raise _bad(
            f"'token.provider' = '{provider}' is not supported: only 'bear' (a bearer 'token'); "
            "Alibaba Cloud DLF signing cannot be reached or tested from this server"
        )
    if not properties.get("token", "").strip():
        raise _bad("A Paimon REST catalog needs 'token' (the bearer token the service expects)")
    if not properties.get("warehouse", "").strip():
        raise _bad("A Paimon REST catalog needs 'warehouse' = the service's warehouse name")


def _validate_jdbc(properties: dict[str, str]) -> None:
    uri = properties.get("uri", "").strip()
    if not uri.startswith(_JDBC_SCHEMES):
        raise _bad(
            "A Paimon JDBC catalog needs 'uri' = jdbc:sqlite:/absolute/path.db, "
            "jdbc:postgresql://host/db or jdbc:mysql://host/db"
        )
    if uri.startswith("jdbc:sqlite:") and not uri.removeprefix("jdbc:sqlite:").startswith("/"):
        raise _bad(f"A JDBC SQLite catalog needs an absolute database path: '{uri}'")


def uses_warehouse_path(properties: dict[str, str]) -> bool:
    """Whether 'warehouse' is a location (filesystem, jdbc) rather than a REST warehouse name."""
    kinds = {properties[k].strip().lower() for k in METASTORE_KEYS if k in properties}
    return "rest" not in kinds


def needs_admin(properties: dict[str, str]) -> bool:
    """A REST or JDBC catalog reaches a service or database no warehouse root bounds."""
    kinds = {properties[k].strip().lower() for k in METASTORE_KEYS if k in properties}
    return bool(kinds & {"rest", "jdbc"})


def pypaimon_options(kind: str, properties: dict[str, str]) -> dict[str, str]:
    """The metastore part of pypaimon's catalog options (pypaimon's CatalogFactory keys)."""
    if kind == "filesystem":
        return {}
    options = {"metastore": kind}
    for key in _KEYS_OF[kind]:
        if properties.get(key, "").strip():
            options[key] = properties[key].strip()
    if kind == "rest":
        options["warehouse"] = properties["warehouse"].strip()
        options["token.provider"] = options.get("token.provider", "bear").lower()
    return options


@contextmanager
def service_errors(catalog: str, properties: dict[str, str]) -> Iterator[None]:
    """A REST service's refusal or absence as a typed error saying which service and why; the
    client's generic wrapper ('rest exception') would hide the cause. Secrets are masked by the
    caller's redaction of every catalog error, and the token is never part of these texts."""
    from pypaimon.api.rest_exception import RESTException

    try:
        yield
    except RESTException as exc:
        uri = properties.get("uri", "").strip()
        cause = exc.__cause__
        if cause is not None and str(exc) == "rest exception":  # transport or decoding failure
            detail = f"the Paimon REST service at {uri} could not be used: {type(cause).__name__}"
            first = str(cause).splitlines()[0] if str(cause) else ""
            detail += f": {first[:300]}" if first else ""
        else:
            detail = f"the Paimon REST service at {uri} refused: {str(exc)[:300]}"
        raise Errors.CATALOG_ACCESS_FAILED.error(name=catalog, detail=detail) from None
