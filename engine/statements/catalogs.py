"""Catalog DDL and navigation: CREATE/DROP/ALTER CATALOG, SHOW CATALOGS, SHOW CREATE CATALOG,
SWITCH, USE, REFRESH.

A catalog reaches whatever its warehouse names on the host, so catalog DDL needs global ADMIN, or
the plain privilege (global CREATE; ALTER / DROP on the catalog) while every warehouse it names
stays under the configured roots (engine/lakehouse/catalogs/placement.py). No warehouse may overlap
drydock's data directory, whoever asks.
"""

from __future__ import annotations

import datetime as dt

from drydock.engine import ast
from drydock.engine.lakehouse.catalogs.manager import INTERNAL_ID, CatalogRecord, ChangeCheck
from drydock.engine.session import INTERNAL
from drydock.engine.core import Engine
from drydock.engine.errors import Errors
from drydock.engine.security.redact import redact_map
from drydock.engine.support.url_secrets import mask_value
from drydock.engine.results import Result
from drydock.engine.session import SessionContext
from drydock.engine.statements.admin_config import like_to_regex
from drydock.engine.security.privileges import Privilege
from drydock.engine.statements.registry import handles, name_target


def _time(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M:%S")


def _authorize(
    engine: Engine, ctx: SessionContext, privilege: Privilege, catalog: str | None = None
) -> bool:
    """True for global ADMIN; False for ``privilege`` alone (placement rules then apply); else
    1227."""
    if engine.privileges.has_global(ctx, Privilege.ADMIN):
        return True
    if catalog is None and engine.privileges.has_global(ctx, privilege):
        return False
    if catalog is not None and engine.privileges.has(ctx, privilege, catalog):
        return False
    raise Errors.SPECIFIC_ACCESS_DENIED.error(priv=Privilege.ADMIN.verb)


def _manage_check(engine: Engine, admin: bool) -> ChangeCheck:
    """DROP / RENAME: without ADMIN, the catalog must point where a non-admin may point one."""

    def check(record: CatalogRecord, _properties: dict[str, str]) -> None:
        if not admin:
            engine.placement.check(record.name, record.properties, admin, {})

    return check


def _retarget_check(engine: Engine, admin: bool, written: dict[str, str]) -> ChangeCheck:
    """SET PROPERTIES: as DROP / RENAME, and the merged properties must pass as for CREATE."""
    manage = _manage_check(engine, admin)

    def check(record: CatalogRecord, merged: dict[str, str]) -> None:
        manage(record, merged)
        engine.placement.check(record.name, merged, admin, written)

    return check


@handles(ast.CreateCatalog, audit=name_target)
def create_catalog(engine: Engine, stmt: ast.CreateCatalog, ctx: SessionContext) -> Result:
    admin = _authorize(engine, ctx, Privilege.CREATE)
    written = engine.catalogs.normalize_keys(dict(stmt.properties))

    def check(properties: dict[str, str]) -> None:
        engine.placement.check(stmt.name, properties, admin, written)

    if not engine.catalogs.create(
        stmt.name, dict(stmt.properties), stmt.comment, stmt.if_not_exists, check
    ):
        return Result.ok(warnings=[Errors.CATALOG_EXISTS.note(name=stmt.name)])
    return Result.ok()


@handles(ast.DropCatalog, audit=name_target)
def drop_catalog(engine: Engine, stmt: ast.DropCatalog, ctx: SessionContext) -> Result:
    admin = _authorize(engine, ctx, Privilege.DROP, stmt.name)
    if stmt.name.lower() == INTERNAL:
        raise Errors.CATALOG_BAD_PROPERTY.error(detail="The internal catalog cannot be dropped")
    if not engine.catalogs.drop(stmt.name, stmt.if_exists, _manage_check(engine, admin)):
        return Result.ok(warnings=[Errors.UNKNOWN_CATALOG.note(name=stmt.name)])
    if ctx.catalog.lower() == stmt.name.lower():
        ctx.catalog, ctx.database = INTERNAL, None
    return Result.ok()


@handles(ast.AlterCatalogRename, audit=name_target)
def alter_catalog_rename(
    engine: Engine, stmt: ast.AlterCatalogRename, ctx: SessionContext
) -> Result:
    admin = _authorize(engine, ctx, Privilege.ALTER, stmt.name)
    engine.catalogs.rename(stmt.name, stmt.new_name, _manage_check(engine, admin))
    if ctx.catalog.lower() == stmt.name.lower():
        ctx.catalog = stmt.new_name
    return Result.ok()


@handles(ast.AlterCatalogSetProperties, audit=name_target)
def alter_catalog_set_properties(
    engine: Engine, stmt: ast.AlterCatalogSetProperties, ctx: SessionContext
) -> Result:
    admin = _authorize(engine, ctx, Privilege.ALTER, stmt.name)
    written = {k.strip(): v for k, v in stmt.properties}
    engine.catalogs.set_properties(
        stmt.name, dict(stmt.properties), _retarget_check(engine, admin, written)
    )
    return Result.ok()


SHOW_CATALOGS_COLUMNS = [
    "CatalogId",
    "CatalogName",
    "Type",
    "IsCurrent",
    "CreateTime",
    "LastUpdateTime",
    "Comment",
]


@handles(ast.ShowCatalogs, columns=SHOW_CATALOGS_COLUMNS)
def show_catalogs(engine: Engine, stmt: ast.ShowCatalogs, ctx: SessionContext) -> Result:
    rows: list[tuple] = [
        (
            INTERNAL_ID,
            INTERNAL,
            "internal",
            "yes" if ctx.catalog == INTERNAL else "",
            "",
            "",
            "Doris internal catalog",
        )
    ]
    for record in engine.catalogs.list():
        if not engine.privileges.sees_catalog(ctx, record.name):
            continue
        rows.append(
            (
                record.id,
                record.name,
                record.type,
                "yes" if ctx.catalog.lower() == record.name.lower() else "",
                _time(record.created_at),
                _time(record.updated_at),
                mask_value(record.comment),
            )
        )
    if stmt.like is not None:
        pattern = like_to_regex(stmt.like)
        rows = [r for r in rows if pattern.fullmatch(r[1])]
    return Result(columns=SHOW_CATALOGS_COLUMNS, rows=rows)


@handles(ast.ShowCreateCatalog)
def show_create_catalog(engine: Engine, stmt: ast.ShowCreateCatalog, ctx: SessionContext) -> Result:
    record = engine.catalogs.get(stmt.name)
    if not engine.privileges.sees_catalog(ctx, record.name):
        raise Errors.UNKNOWN_CATALOG.error(name=stmt.name)
    props = redact_map(record.properties)
    body = ",\n".join(f'"{k}" = "{v}"' for k, v in sorted(props.items()))
    comment = f"\nCOMMENT '{mask_value(record.comment)}'" if record.comment else ""
    text = f"\nCREATE CATALOG `{record.name}`{comment}\n PROPERTIES (\n{body}\n);"
    return Result(columns=["Catalog", "CreateCatalog"], rows=[(record.name, text)])


@handles(ast.Switch)
def switch(engine: Engine, stmt: ast.Switch, ctx: SessionContext) -> Result:
    name = _catalog_name(engine, stmt.catalog)
    if name != INTERNAL and not engine.privileges.sees_catalog(ctx, name):
        raise Errors.UNKNOWN_CATALOG.error(name=stmt.catalog)
    ctx.catalog, ctx.database = name, None
    return Result.ok()


def _connection_database(engine: Engine, parts: tuple[str, ...]) -> tuple[str, ...]:
    """A database given as one name ``catalog.db`` — the handshake's database, COM_INIT_DB, a JDBC
    URL path or ``setCatalog``, ``USE `lc.db``` — names a database of that catalog when such a
    catalog exists (else it is a database whose name has a dot)."""
    if len(parts) != 1 or "." not in parts[0]:
        return parts
    catalog, db = parts[0].split(".", 1)
    known = catalog.lower() == INTERNAL or engine.catalogs.find(catalog) is not None
    return (catalog, db) if known and db else parts


def _catalog_name(engine: Engine, name: str) -> str:
    return INTERNAL if name.lower() == INTERNAL else engine.catalogs.get(name).name


def _use_target(stmt: ast.Use, ctx: SessionContext) -> str:
    return f"{ctx.catalog}.{'.'.join(stmt.parts)}"


@handles(ast.Use, audit=_use_target)
def use(engine: Engine, stmt: ast.Use, ctx: SessionContext) -> Result:
    parts = _connection_database(engine, stmt.parts)
    if len(parts) > 2:
        raise Errors.PARSE.error(detail="USE takes [catalog.]database")
    catalog = _catalog_name(engine, parts[0]) if len(parts) == 2 else ctx.catalog
    db = parts[-1]
    if not (catalog == INTERNAL and db.lower() == "information_schema"):
        engine.metadata.require_database(ctx, catalog, db)
    ctx.catalog, ctx.database = catalog, db
    return Result.ok()


@handles(ast.Refresh)
def refresh(engine: Engine, stmt: ast.Refresh, ctx: SessionContext) -> Result:
    parts = stmt.parts
    wanted = {"CATALOG": 1, "DATABASE": 2, "TABLE": 3}[stmt.kind]
    if len(parts) < wanted:  # short forms resolve in the current catalog / database
        prefix = (ctx.catalog,) if stmt.kind == "DATABASE" else (ctx.catalog, ctx.database or "")
        parts = (*prefix[: wanted - len(parts)], *parts)
    if len(parts) != wanted or not all(parts):
        raise Errors.PARSE.error(
            detail=f"REFRESH {stmt.kind} needs {'.'.join(['catalog', 'db', 'table'][:wanted])}"
        )
    catalog = parts[0]
    if catalog.lower() == INTERNAL:
        return Result.ok()  # the internal catalog has no cache to drop
    if not engine.privileges.sees_catalog(ctx, catalog):
        raise Errors.UNKNOWN_CATALOG.error(name=catalog)
    engine.catalogs.refresh(catalog, *parts[1:])
    return Result.ok()
