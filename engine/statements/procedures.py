"""CALL [catalog.]sys.<procedure>(...), SHOW PROCEDURES [FROM c], SHOW PROCEDURE [c.]sys.<p>."""

from __future__ import annotations

import time

from drydock.engine import ast
from drydock.engine.lakehouse.catalogs.manager import CatalogRecord
from drydock.engine.session import INTERNAL
from drydock.engine.core import Engine
from drydock.engine.errors import DrydockError, Errors, exception_text
from drydock.engine.lakehouse.procedures.base import Procedure, ProcedureContext, bind, split_table
from drydock.engine.security.redact import redact_text
from drydock.engine.results import Result
from drydock.engine.session import SessionContext
from drydock.engine.security.privileges import Privilege
from drydock.engine.support.config_keys import Key
from drydock.engine.statements.registry import handles


def _resolve(
    engine: Engine, parts: tuple[str, ...], ctx: SessionContext
) -> tuple[CatalogRecord, Procedure]:
    if len(parts) == 3:
        catalog_name, schema, name = parts
    elif len(parts) == 2:
        (schema, name), catalog_name = parts, ctx.catalog
    else:
        raise Errors.PROCEDURE_NOT_SUPPORTED.error(
            detail="procedures are called as [catalog.]sys.<procedure>"
        )
    if schema.lower() != "sys":
        raise Errors.PROCEDURE_NOT_SUPPORTED.error(
            detail=f"procedures live in the 'sys' namespace, not '{schema}'"
        )
    if catalog_name.lower() == INTERNAL:
        raise Errors.PROCEDURE_NOT_SUPPORTED.error(
            detail="the internal catalog has no maintenance procedures; call them on a Lance or "
            "Paimon catalog"
        )
    record = engine.catalogs.get(catalog_name)
    if not engine.privileges.sees_catalog(ctx, record.name):
        raise Errors.UNKNOWN_CATALOG.error(name=catalog_name)
    procedure = engine.procedures.get(record.type, name)
    if procedure is None:
        raise Errors.UNKNOWN_PROCEDURE.error(name=name, catalog=record.name, type=record.type)
    return record, procedure


def _authorize(
    engine: Engine, ctx: SessionContext, record: CatalogRecord, procedure: Procedure, values: dict
) -> tuple[str, str] | None:
    if procedure.privilege == "admin":
        engine.privileges.require_global(ctx, Privilege.ADMIN)
        return None
    db, table = split_table(values["table"], procedure.name)
    if table == "*":  # database-wide form
        engine.privileges.require_global(ctx, Privilege.ADMIN)
        engine.metadata.require_database(ctx, record.name, db)
        return db, table
    engine.metadata.require_table(ctx, record.name, db, table)
    engine.privileges.require_table(ctx, Privilege.ALTER, record.name, db, table)
    return db, table


def _call_target(stmt: ast.CallProcedure, ctx: SessionContext) -> str:
    """The catalog, and the table when the call names one (``table =>`` or first positional)."""
    table = next((a.value for a in stmt.arguments if (a.name or "").lower() == "table"), None)
    if table is None and stmt.arguments and stmt.arguments[0].name is None:
        table = stmt.arguments[0].value
    catalog = stmt.parts[0] if len(stmt.parts) == 3 else ctx.catalog
    return f"{catalog}.{table}" if table else catalog


@handles(ast.CallProcedure, audit=_call_target)
def call_procedure(engine: Engine, stmt: ast.CallProcedure, ctx: SessionContext) -> Result:
    record, procedure = _resolve(engine, stmt.parts, ctx)
    values = bind(procedure, stmt.arguments)
    target = _authorize(engine, ctx, record, procedure, values)
    connector = engine.catalogs.connector(record.name)
    if (
        procedure.changes_metadata
        and target is not None
        and target[1] != "*"
        and record.type == "lance"
    ):
        job_id = engine.jobs.unresolved_on_table(
            record.id, engine.catalogs.lance_connector(record.name).dataset_uri(*target)
        )
        if job_id is not None:
            raise Errors.PROCEDURE_FENCED.error(
                procedure=procedure.name, table=".".join(target), job_id=job_id
            )
    pctx = ProcedureContext(
        config=engine.config,
        session=ctx,
        catalog=record,
        connector=connector,
        cancel=ctx.cancel,
        deadline=time.monotonic() + float(engine.config.get(Key.PROCEDURE_TIMEOUT_SECOND)),
    )
    calls = engine.metrics.procedure_calls
    try:
        result = procedure.run(pctx, values)
        if (
            procedure.result_types
            and not result.column_types
            and result.columns == list(procedure.result_columns)
        ):
            result.column_types = dict(zip(procedure.result_columns, procedure.result_types))
        calls.labels(procedure.name, "ok").inc()
    except DrydockError:
        calls.labels(procedure.name, "error").inc()
        raise
    # a library failure becomes one typed, secret-free error
    except Exception as exc:  # noqa: BLE001
        calls.labels(procedure.name, "error").inc()
        detail = redact_text(exception_text(exc, engine.data_dir), connector.secrets())
        raise Errors.PROCEDURE_FAILED.error(procedure=procedure.name, detail=detail) from None
    finally:
        if procedure.changes_metadata and target is not None:
            engine.catalogs.refresh(record.name, target[0], None if target[1] == "*" else target[1])
    result.warnings.extend(pctx.warnings)
    return result


@handles(ast.ShowProcedures)
def show_procedures(engine: Engine, stmt: ast.ShowProcedures, ctx: SessionContext) -> Result:
    records = [engine.catalogs.get(stmt.catalog)] if stmt.catalog else engine.catalogs.list()
    rows = []
    for record in records:
        if not engine.privileges.sees_catalog(ctx, record.name):
            continue
        for p in engine.procedures.list(record.type):
            rows.append(
                (
                    record.name,
                    f"sys.{p.name}",
                    record.type,
                    p.signature(),
                    ", ".join(p.result_columns),
                    "YES" if p.changes_metadata else "NO",
                    p.doc,
                )
            )
    return Result(
        columns=[
            "Catalog",
            "Procedure",
            "CatalogType",
            "Signature",
            "ResultColumns",
            "ChangesMetadata",
            "Comment",
        ],
        rows=rows,
    )


@handles(ast.ShowProcedure)
def show_procedure(engine: Engine, stmt: ast.ShowProcedure, ctx: SessionContext) -> Result:
    _record, procedure = _resolve(engine, stmt.parts, ctx)
    rows = [
        (
            a.name,
            a.type,
            "YES" if a.required else "NO",
            "" if a.default is None else str(a.default),
            a.doc + (f" (also accepted as: {', '.join(a.aliases)})" if a.aliases else ""),
        )
        for a in procedure.args
    ]
    return Result(columns=["Argument", "Type", "Required", "Default", "Comment"], rows=rows)
