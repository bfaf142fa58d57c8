"""Admission of CREATE/DROP INDEX on a Lance table: everything before the durable insert.

Order (docs/job-contract.md, "Admission"): static validation → gate → privilege → authoritative
read of the latest dataset version (pinned) → schema contract → existing-index rules → fence and
quotas → one durable insert (PENDING, revision 0). Each step fails with a typed error and changes
nothing.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from drydock.engine import ast
from drydock.engine.session import INTERNAL
from drydock.engine.errors import Errors
from drydock.engine.jobs.control import states as st
from drydock.engine.jobs.control.contract import (
    CONTRACT_VERSION,
    ContractError,
    contract_json,
    field_contract,
    index_contract,
)
from drydock.engine.jobs.control.quotas import QUOTA_KEYS, require_positive_quotas
from drydock.engine.jobs.control.records import JobRecord
from drydock.engine.jobs.control.records import build as build_record
from drydock.engine.jobs.control.validation import (
    IndexSpec,
    invalid,
    same_definition,
    validate_name,
    validate_spec,
)
from drydock.engine.session import SessionContext
from drydock.engine.security.privileges import Privilege
from drydock.engine.support.config_keys import Key

if TYPE_CHECKING:
    from drydock.engine.lakehouse.catalogs.manager import CatalogManager
    from drydock.engine.store.config import Config
    from drydock.engine.jobs.control.manager import JobManager
    from drydock.engine.sql.metadata import Metadata
    from drydock.engine.security.privileges import Privileges

SCHEMA_CONTRACT_VERSION = CONTRACT_VERSION
PQ_TRAINING_ROWS = 256  # an 8-bit PQ codebook needs 256 rows; fewer silently builds an EMPTY index


@dataclass(frozen=True)
class Admitter:
    """What admission reads and writes (engine/core.py wires it once as ``engine.admission``)."""

    config: Config
    catalogs: CatalogManager
    metadata: Metadata
    privileges: Privileges
    jobs: JobManager


@dataclass(frozen=True)
class IndexTable:
    """The Lance table a CREATE/DROP INDEX names, resolved and authorized."""

    catalog_id: int
    catalog: str
    db: str
    table: str
    connector: Any


def operation_name(stmt: ast.CreateIndex | ast.DropIndex) -> str:
    if isinstance(stmt, ast.DropIndex):
        return "DROP INDEX"
    return "CREATE OR REPLACE INDEX" if stmt.or_replace else "CREATE INDEX"


def _gate(config: Config, op: str) -> tuple[int, int, int]:
    if not config.get(Key.ENABLE_LANCE_INDEX_MUTATION):
        raise Errors.LANCE_INDEX_MUTATION_DISABLED.error(
            detail=f"{op} is disabled for Lance catalog tables (enable_lance_index_mutation = "
            f"false)"
        )
    table, catalog, global_ = (int(config.get(key)) for key in QUOTA_KEYS)
    return require_positive_quotas((table, catalog, global_))


def resolve_index_table(
    admission: Admitter, ctx: SessionContext, parts: tuple[str, ...], op: str
) -> IndexTable:
    catalogs = admission.catalogs
    catalog, db, table = admission.metadata.split(ctx, parts)
    if catalog == INTERNAL:
        raise Errors.LANCE_INDEX_OPERATION_NOT_SUPPORTED.error(
            op=op, target="index jobs on internal tables"
        )
    record = catalogs.get(catalog)
    if record.type != "lance":
        raise Errors.LANCE_INDEX_OPERATION_NOT_SUPPORTED.error(
            op=op, target=f"index jobs on {record.type} catalogs ('{record.name}')"
        )
    # A table the caller may not see answers like a missing one; one it sees needs ALTER.
    admission.metadata.require_table(ctx, record.name, db, table)
    admission.privileges.require_table(ctx, Privilege.ALTER, record.name, db, table)
    return IndexTable(record.id, record.name, db, table, catalogs.connector(record.name))


def admission_bounds(config: Config) -> tuple[int, int]:
    """(lance_index_max_num_partitions, lance_index_max_num_sub_vectors) as of this admission."""
    return (
        int(config.get(Key.LANCE_INDEX_MAX_NUM_PARTITIONS)),
        int(config.get(Key.LANCE_INDEX_MAX_NUM_SUB_VECTORS)),
    )


def is_local(locator: str) -> bool:
    """A local-file dataset: governed by enable_lance_index_local_file_mutation."""
    return "://" not in locator or locator.startswith("file://")


def local_mutation_allowed(config: Config, locator: str) -> bool:
    return not is_local(locator) or bool(config.get(Key.ENABLE_LANCE_INDEX_LOCAL_FILE_MUTATION))


def _read_latest(config: Config, target: IndexTable, op: str) -> tuple[Any, str]:
    """The authoritative read: the dataset at its latest version (checked now; the manifest of
    that version may be one read before), and its locator."""
    locator = target.connector.dataset_uri(target.db, target.table)
    if not local_mutation_allowed(config, locator):
        raise Errors.LANCE_INDEX_OPERATION_NOT_SUPPORTED.error(
            op=op, target="local file datasets (enable_lance_index_local_file_mutation = false)"
        )
    dataset = target.connector.latest_snapshot(
        target.db, target.table
    )  # the connector types its own errors
    return dataset, locator


def schema_contract(dataset: Any, column: str, spec: IndexSpec) -> tuple[str, dict[str, Any]]:
    """Check the indexed field against the index kind; return (field name, contract field)."""
    schema = dataset.schema  # read once: pylance rebuilds it on every read of the property
    field = schema.field(column) if column in schema.names else None
    if field is None:
        matches = [f for f in schema if f.name.lower() == column.lower()]
        field = matches[0] if matches else None
    if field is None:
        raise invalid(f"Index column '{column}' does not exist")
    if spec.using == "ANN":
        if not pa.types.is_fixed_size_list(field.type):
            raise invalid("ANN index column must be array type")
        element = field.type.value_type
        if not (pa.types.is_float32(element) or pa.types.is_float16(element)):
            raise invalid("ANN index column item type must be float type")
        if field.nullable:
            raise invalid("ANN index must be built on a column that is not nullable")
    elif spec.using == "INVERTED":
        if not (pa.types.is_string(field.type) or pa.types.is_large_string(field.type)):
            raise invalid(f"INVERTED index column must be a string column, got {field.type}")
    elif not (
        pa.types.is_integer(field.type)
        or pa.types.is_floating(field.type)
        or pa.types.is_string(field.type)
        or pa.types.is_large_string(field.type)
        or pa.types.is_temporal(field.type)
        or pa.types.is_boolean(field.type)
    ):
        raise invalid(f"{spec.using} index column must be a scalar column, got {field.type}")
    return field.name, field_contract(dataset, field.name, schema)  # what the worker recomputes


def drop_contract(dataset: Any, name: str) -> tuple[str, dict[str, Any]]:
    """DROP: the index must map to exactly one top-level column; its contract is that column's."""
    try:
        return index_contract(dataset, name)
    except ContractError as exc:
        raise invalid(f"cannot drop Lance index '{name}': {exc}") from None


def _check_build_parameters(dataset: Any, spec: IndexSpec, contract: dict[str, Any]) -> None:
    """Reject what pylance would silently get wrong: an IVF_PQ codebook trained on fewer than
    256 rows, num_partitions above the row count (docs/job-contract.md, "Library behaviour
    relied on")."""
    if spec.using != "ANN":
        return
    rows = dataset.count_rows()
    sub_vectors = spec.params.get("num_sub_vectors")
    if isinstance(sub_vectors, int) and contract["dimension"] % sub_vectors:
        raise invalid(
            f"dimension ({contract['dimension']}) must be divisible by num_sub_vectors "
            f"({sub_vectors})"
        )
    if spec.index_type == "IVF_PQ" and rows < PQ_TRAINING_ROWS:
        raise invalid(
            f"IVF_PQ needs at least {PQ_TRAINING_ROWS} rows to train its codebook; "
            f"the table has {rows} (fewer would build an empty index)"
        )
    partitions = spec.params.get("num_partitions")
    if isinstance(partitions, int) and partitions > rows:
        raise invalid(f"num_partitions ({partitions}) must not exceed the number of rows ({rows})")


def existing_indexes(dataset: Any) -> dict[str, dict[str, Any]]:
    """name → {index_type, metric, num_sub_vectors, num_bits} of the indexes at this version."""
    out: dict[str, dict[str, Any]] = {}
    for description in dataset.describe_indices():
        details = description.details or {}
        compression = details.get("compression") or {}
        entry: dict[str, Any] = {"index_type": str(description.index_type).upper()}
        if "metric_type" in details:
            entry["metric"] = str(details["metric_type"]).lower()
        for key in ("num_sub_vectors", "num_bits"):
            if key in compression:
                entry[key] = compression[key]
        out[description.name] = entry
    return out


def _new_job(
    target: IndexTable,
    locator: str,
    name: str,
    operation: st.MutationType,
    spec: IndexSpec | None,
    column: str,
    contract: dict[str, Any],
    version: int,
    ctx: SessionContext,
    if_not_exists: bool,
    if_exists: bool,
    bounds: tuple[int, int],
) -> JobRecord:
    now = time.time()
    # keyword form, as the constructor reads; built without the frozen dataclass's __init__
    return build_record(
        dict(  # noqa: C408
            id=0,
            catalog_id=target.catalog_id,
            catalog_name=target.catalog,
            db=target.db,
            tbl=target.table,
            index_name=name,
            index_key=name.lower(),
            locator=locator,
            operation=operation,
            index_type=spec.index_type if spec else "",
            column_name=column,
            properties=spec.to_json() if spec else "{}",
            if_not_exists=if_not_exists,
            if_exists=if_exists,
            creator=f"'{ctx.user}'@'{ctx.account_host}'",
            state=st.MutationState.PENDING,
            refresh_state=st.RefreshState.NOT_REQUIRED,
            completion_reason=st.CompletionReason.NONE,
            result_code=None,
            message="",
            external_metadata_advanced=None,
            possible_live_owned=False,
            termination_proof=st.TerminationProof.NONE,
            backend_id="",
            process_epoch="",
            invocation_id="",
            index_uuid="",
            deadline_ms=None,
            admitted_version=version,
            schema_contract=json.dumps(contract_json([contract]), sort_keys=True),
            schema_contract_version=SCHEMA_CONTRACT_VERSION,
            force_released=False,
            force_actor="",
            force_time=None,
            force_note="",
            force_warning="",
            progress="",
            refresh_failed_at=None,
            created_at=now,
            updated_at=now,
            revision=0,
            max_num_partitions=bounds[0],
            max_num_sub_vectors=bounds[1],
            dispatch_attempts=0,
        )
    )


def admit_create(
    admission: Admitter, stmt: ast.CreateIndex, ctx: SessionContext
) -> JobRecord | None:
    op = operation_name(stmt)
    name = validate_name(stmt.name)
    bounds = admission_bounds(
        admission.config
    )  # read once: validated against and stored with the job
    spec = validate_spec(stmt.using, stmt.columns, stmt.properties, *bounds)
    limits = _gate(admission.config, op)
    target = resolve_index_table(admission, ctx, stmt.table, op)
    dataset, locator = _read_latest(admission.config, target, op)
    column, contract = schema_contract(dataset, stmt.columns[0], spec)
    existing = existing_indexes(dataset)
    operation = st.MutationType.CREATE
    if name in existing:
        if stmt.if_not_exists:
            if same_definition(existing[name], spec):
                return None
            raise invalid(f"index '{name}' already exists with a different definition")
        if not stmt.or_replace:
            raise invalid(f"index '{name}' already exists")
        operation = st.MutationType.REPLACE
    _check_build_parameters(dataset, spec, contract)
    job = _new_job(
        target,
        locator,
        name,
        operation,
        spec,
        column,
        contract,
        dataset.version,
        ctx,
        stmt.if_not_exists,
        False,
        bounds,
    )
    return admission.jobs.create(job, *limits)


def admit_drop(admission: Admitter, stmt: ast.DropIndex, ctx: SessionContext) -> JobRecord | None:
    op = operation_name(stmt)
    name = validate_name(stmt.name)
    limits = _gate(admission.config, op)
    target = resolve_index_table(admission, ctx, stmt.table, op)
    dataset, locator = _read_latest(admission.config, target, op)
    existing = existing_indexes(dataset)
    if name not in existing:
        if stmt.if_exists:
            return None
        raise invalid(f"index '{name}' not found on table {target.db}.{target.table}")
    column, contract = drop_contract(dataset, name)
    job = _new_job(
        target,
        locator,
        name,
        st.MutationType.DROP,
        None,
        column,
        contract,
        dataset.version,
        ctx,
        False,
        stmt.if_exists,
        admission_bounds(admission.config),
    )
    return admission.jobs.create(job, *limits)
