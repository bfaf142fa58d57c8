"""``catalog.db`` as one database name, wherever a client names a database: BI tools list the
databases of every catalog from the internal one (JDBC getCatalogs and SQLAlchemy
get_schema_names read SHOW DATABASES) and then use the name they were given as it is:
``SHOW TABLES FROM `lc.db```, ``SELECT … FROM `lc.db`.t``. A dotted name counts as
catalog + database only when that catalog exists (else it is a database whose name has a dot),
the rule USE and the connection database follow (engine/statements/catalogs.py)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import sqlglot
from mysql_mimic.constants import INFO_SCHEMA
from sqlglot import exp

from drydock.engine.session import INTERNAL
from drydock.engine.errors import DrydockError, Errors
from drydock.engine.results import Diagnostic
from drydock.engine.session import SessionContext

from drydock.engine.sql.metadata import Metadata, split_database

if TYPE_CHECKING:
    from drydock.engine.lakehouse.catalogs.manager import CatalogManager

logger = logging.getLogger(__name__)


def split_table_references(catalogs: CatalogManager, expression: exp.Expr) -> None:
    """Table references ``catalog.db``.t (one dotted database name) → catalog.db.t, in place, on
    the AST before its relations are resolved and authorized. A column qualified the same way
    (SQLAlchemy writes ```lc.db`.t.c``) keeps only its table qualifier: the table it names is
    known under its own name in the statement (external tables are bound under that alias)."""
    for node in expression.find_all(exp.Table, exp.Column):
        db = node.text("db")
        if not db or node.text("catalog"):
            continue
        split = split_database(catalogs, db)
        if split is None:
            continue
        if isinstance(node, exp.Column):
            node.set("db", None)
            continue
        node.set("catalog", exp.to_identifier(split[0]))
        node.set("db", exp.to_identifier(split[1]))


def external_databases(
    catalogs: CatalogManager, ctx: SessionContext, metadata: Metadata, warnings: list[Diagnostic]
) -> list[str]:
    """Every database of every external catalog the user may see, as ``catalog.db``. Catalogs the
    user can see nothing in are never asked (engine/sql/metadata.py); one that cannot be listed
    right now (unreachable, timed out) is left out with a warning naming it, rather than failing the
    whole listing: BI tools send this on every connect. Every catalog's listing starts before the
    first is waited for, so dead catalogs cost one timeout together."""
    names: list[str] = []
    records = catalogs.list()
    for record in records:
        metadata.prefetch_databases(ctx, record.name)
    databases = metadata.databases
    for record in records:
        try:
            names += [f"{record.name}.{db}" for db in databases(ctx, record.name)]
        # an unreachable catalog: its databases are not listed
        except Exception as exc:  # noqa: BLE001
            logger.info(
                "SHOW DATABASES: catalog %s not listed: %s", record.name, type(exc).__name__
            )
            warnings.append(not_listed(record.name, exc))
    return names


def not_listed(catalog: str, exc: Exception) -> Diagnostic:
    """The SHOW WARNINGS row of a catalog a listing left out (the error's text says why; it is
    already typed and free of secrets when it is a DrydockError)."""
    detail = (
        exc.message
        if isinstance(exc, DrydockError)
        else f"it could not be read ({type(exc).__name__})"
    )
    return Errors.CATALOG_NOT_LISTED.warning(name=catalog, detail=detail)


def unreachable(exc: Exception) -> bool:
    """A failure to reach a catalog, as opposed to an answer ("no such database", "not visible")."""
    return not isinstance(exc, DrydockError) or exc.spec in (
        Errors.CATALOG_ACCESS_FAILED,
        Errors.CATALOG_TIMEOUT,
        Errors.CATALOG_OVERLOADED,
    )


_SCHEMATA_ROW = {
    "catalog_name": "def",
    "default_character_set_name": "utf8mb4",
    "default_collation_name": "utf8mb4_0900_ai_ci",
}


def add_external_schemata(
    catalogs: CatalogManager,
    metadata: Metadata,
    expression: exp.Expr,
    ctx: SessionContext,
    warnings: list[Diagnostic],
) -> None:
    """``information_schema.SCHEMATA`` read in the internal catalog also lists every external
    database the user may see as ``catalog.db`` (JDBC getCatalogs reads it), in place, on the
    AST before authorization: the reference becomes ``(SELECT * FROM information_schema.schemata
    UNION ALL <literal rows>)`` under the same alias; the inner reference is filtered as usual."""
    if ctx.catalog.lower() != INTERNAL:
        return
    targets = [
        t
        for t in expression.find_all(exp.Table)
        if t.name.lower() == "schemata"
        and (
            t.text("db").lower() == "information_schema"
            or (not t.text("db") and (ctx.database or "").lower() == "information_schema")
        )
    ]
    if not targets:
        return
    names = external_databases(catalogs, ctx, metadata, warnings)
    if not names:
        return
    columns = list(INFO_SCHEMA["information_schema"]["schemata"])
    rows = [
        exp.Tuple(
            expressions=[
                exp.Literal.string(name)
                if c == "schema_name"
                else exp.Literal.string(_SCHEMATA_ROW[c])
                if c in _SCHEMATA_ROW
                else exp.null()
                for c in columns
            ]
        )
        for name in names
    ]
    for table in targets:
        # columns labelled upper case, as MySQL 8 names them (engine/sql/result_origins.py does
        # that for plain references; this one is a subquery)
        labels = [exp.column(c).as_(c.upper(), quoted=True) for c in columns]
        inner = exp.select(*labels).from_(exp.table_("schemata", db="information_schema"))
        extra = exp.select(*(lbl.copy() for lbl in labels)).from_(
            exp.values(rows, alias="_ext_schemata", columns=columns)
        )
        table.replace(
            exp.Subquery(
                this=exp.union(inner, extra, distinct=False),
                alias=exp.TableAlias(this=exp.to_identifier(table.alias or table.name)),
            )
        )


_EXTERNAL_LISTINGS = ("tables", "columns")


def add_external_tables(
    catalogs: CatalogManager,
    metadata: Metadata,
    expression: exp.Expr,
    ctx: SessionContext,
    warnings: list[Diagnostic],
) -> None:
    """``information_schema.TABLES/COLUMNS`` read in the internal catalog with a database named
    ``catalog.db`` in the statement (JDBC getTables/getColumns with that catalog: Connector/J
    sends ``WHERE TABLE_SCHEMA = 'lc.db'``) also hold that external database's rows under its
    dotted name, in place, on the AST before authorization: the reference becomes ``(SELECT … FROM
    information_schema.t UNION ALL <its rows as literal VALUES>)`` under the same alias; the
    statement's own WHERE then filters as usual. Only databases named by a string literal of the
    statement are listed (so an unfiltered read costs no catalog listing), and only what the user
    may see (the listings of engine/sql/metadata.py)."""
    if ctx.catalog.lower() != INTERNAL:
        return
    targets = [
        t
        for t in expression.find_all(exp.Table)
        if t.name.lower() in _EXTERNAL_LISTINGS
        and (
            t.text("db").lower() == "information_schema"
            or (not t.text("db") and (ctx.database or "").lower() == "information_schema")
        )
    ]
    if not targets:
        return
    named = {
        lit.name for lit in expression.find_all(exp.Literal) if lit.is_string and "." in lit.name
    }
    databases = [
        (name, split)
        for name in sorted(named)
        if (split := split_database(catalogs, name)) is not None and split[0] != INTERNAL
    ]
    for table in targets:
        listing = table.name.lower()
        rows = [
            row
            for name, (catalog, db) in databases
            for row in _external_rows(catalogs, metadata, ctx, listing, name, catalog, db, warnings)
        ]
        if not rows:
            continue
        columns = list(INFO_SCHEMA["information_schema"][listing])
        labels = [exp.column(c).as_(c.upper(), quoted=True) for c in columns]
        inner = exp.select(*labels).from_(exp.table_(listing, db="information_schema"))
        extra = exp.select(*(lbl.copy() for lbl in labels)).from_(
            _external_select(listing, rows).subquery(f"_ext_{listing}")
        )
        table.replace(
            exp.Subquery(
                this=exp.union(inner, extra, distinct=False),
                alias=exp.TableAlias(this=exp.to_identifier(table.alias or table.name)),
            )
        )


def _external_rows(
    catalogs: CatalogManager,
    metadata: Metadata,
    ctx: SessionContext,
    listing: str,
    name: str,
    catalog: str,
    db: str,
    warnings: list[Diagnostic],
) -> list[tuple[object, ...]]:
    """Raw information_schema rows (engine/sql/info_schema.py's external shape) of ``catalog.db``
    under the name ``name``; none for a database this user may not see or that cannot be read
    (with a warning naming the catalog when it could not be reached: "missing" says nothing)."""
    from drydock.engine.sql import info_schema

    try:
        tables = [t for t, _ in metadata.tables(ctx, catalog, db)]
        if listing == "tables":
            kind = catalogs.get(catalog).type.capitalize()
            return [(name, t, "BASE TABLE", kind, "") for t in tables]
        return [
            info_schema.external_column_row(
                name, t, i, c.name, c.type, c.mysql_type, c.nullable, c.key, c.comment
            )
            for t in tables
            for i, c in enumerate(metadata.columns(ctx, catalog, db, t), start=1)
        ]
    # invisible, missing or unreachable: no rows, as in SHOW DATABASES
    except Exception as exc:  # noqa: BLE001
        logger.info("information_schema.%s: %s not listed: %s", listing, name, type(exc).__name__)
        if unreachable(exc):
            warnings.append(not_listed(catalog, exc))
        return []


def _external_select(listing: str, rows: list[tuple[object, ...]]) -> exp.Select:
    """engine/sql/info_schema.py's EXTERNAL_SELECT over ``rows`` as literal VALUES (the same
    columns,
    types and collations as the internal view)."""
    from drydock.engine.sql import info_schema

    select: exp.Select = sqlglot.parse_one(
        info_schema.EXTERNAL_SELECT[listing].format(source="_ext_rows"), read="duckdb"
    )  # type: ignore[assignment]
    raw = [column for column, _ in info_schema._EXTERNAL_RAW[listing]]
    values = exp.values(
        [tuple(_literal(v) for v in row) for row in rows], alias="_ext_rows", columns=raw
    )
    source = select.find(exp.Table)
    assert source is not None and source.name == "_ext_rows"
    source.replace(values)
    # DuckDB's NOCASE is no MySQL collation name; this select runs through the MySQL pipeline,
    # where engine/sql/collation.py gives comparisons the default case-insensitive collation anyway
    for collate in list(select.find_all(exp.Collate)):
        collate.replace(collate.this)
    return select


def _literal(value: object) -> exp.Expr:
    if value is None:
        return exp.null()
    if isinstance(value, int):
        return exp.Literal.number(value)
    return exp.Literal.string(str(value))
