"""The procedure framework: declarations, argument binding, and the context a procedure runs in.

A procedure declares its arguments (name, type, required, default, doc), the privilege it needs,
whether it changes metadata, and its result columns. Positional and named forms bind through the
same code, so they validate identically; mixing them, unknown or duplicate names, missing required
arguments and wrong types are clear errors raised before anything runs.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from drydock.engine import ast
from drydock.engine.errors import Errors
from drydock.engine.results import Diagnostic, Result
from drydock.engine.session import SessionContext

if TYPE_CHECKING:
    from drydock.engine.lakehouse.catalogs.base import Connector
    from drydock.engine.lakehouse.catalogs.manager import CatalogRecord
    from drydock.engine.store.config import Config


@dataclass(frozen=True)
class Arg:
    name: str
    type: str  # STRING | INT | LONG | BOOLEAN
    required: bool = False
    default: Any = None
    doc: str = ""
    aliases: tuple[str, ...] = ()  # other accepted names (Paimon's Flink spelling of a Spark name)


@dataclass
class ProcedureContext:
    """What a running procedure may use. ``check_cancelled`` honours KILL QUERY and the timeout."""

    config: Config  # the limits a procedure reads (procedure_max_deletes)
    session: SessionContext
    catalog: CatalogRecord
    connector: Connector
    cancel: threading.Event
    deadline: float  # time.monotonic() after which the call is cancelled
    warnings: list[Diagnostic] = field(default_factory=list)
    done: list[str] = field(default_factory=list)  # what was changed so far (reported on cancel)

    def check_cancelled(self) -> None:
        if self.cancel.is_set():
            raise Errors.PROCEDURE_CANCELLED.error(reason="KILL QUERY", done=self._done_text())
        if time.monotonic() > self.deadline:
            raise Errors.PROCEDURE_CANCELLED.error(
                reason="the procedure timeout", done=self._done_text()
            )

    def _done_text(self) -> str:
        return "; ".join(self.done) if self.done else "nothing was changed"


Runner = Callable[[ProcedureContext, dict[str, Any]], Result]


@dataclass(frozen=True)
class Procedure:
    name: str
    doc: str
    args: tuple[Arg, ...]
    result_columns: tuple[str, ...]
    run: Runner
    changes_metadata: bool = True
    # "table": ALTER_PRIV on the `table` argument's table; "admin": global ADMIN_PRIV
    privilege: str = "table"
    # the type of each result column on the wire (BOOLEAN, INTEGER, BIGINT, VARCHAR), as Paimon's
    # procedure declares it; empty: inferred from the values
    result_types: tuple[str, ...] = ()

    def signature(self) -> str:
        parts = []
        for a in self.args:
            text = f"{a.name} {a.type}"
            parts.append(text if a.required else f"{text} DEFAULT {a.default!r}")
        return f"{self.name}({', '.join(parts)})"


def _convert(arg: Arg, raw: ast.CallArgument, procedure: str) -> Any:
    if raw.kind == "NULL":
        if arg.required:
            raise Errors.PROCEDURE_BAD_ARGUMENT.error(
                procedure=procedure, detail=f"argument '{arg.name}' must not be NULL"
            )
        return arg.default
    value = raw.value or ""
    if arg.type == "STRING":
        if raw.kind != "STRING":
            raise Errors.PROCEDURE_BAD_ARGUMENT.error(
                procedure=procedure,
                detail=f"argument '{arg.name}' must be a STRING, got {raw.kind} {value}",
            )
        return value
    if arg.type in ("INT", "LONG"):
        try:
            number = int(value)
        except ValueError:
            raise Errors.PROCEDURE_BAD_ARGUMENT.error(
                procedure=procedure,
                detail=f"argument '{arg.name}' must be an {arg.type}, got '{value}'",
            ) from None
        limit = 2**31 if arg.type == "INT" else 2**63
        if not -limit <= number < limit:
            raise Errors.PROCEDURE_BAD_ARGUMENT.error(
                procedure=procedure, detail=f"argument '{arg.name}' is out of range"
            )
        return number
    if arg.type == "BOOLEAN":
        if value.lower() not in ("true", "false"):
            raise Errors.PROCEDURE_BAD_ARGUMENT.error(
                procedure=procedure,
                detail=f"argument '{arg.name}' must be a BOOLEAN (true/false), got '{value}'",
            )
        return value.lower() == "true"
    raise AssertionError(arg.type)


def bind(procedure: Procedure, arguments: tuple[ast.CallArgument, ...]) -> dict[str, Any]:
    named = [a for a in arguments if a.name is not None]
    if named and len(named) != len(arguments):
        raise Errors.PROCEDURE_BAD_ARGUMENT.error(
            procedure=procedure.name, detail="named and positional arguments cannot be mixed"
        )
    # Argument names are identifiers: case-insensitive (Paimon spells some in camelCase).
    by_name = {a.name.lower(): a for a in procedure.args}
    by_name.update({alias.lower(): a for a in procedure.args for alias in a.aliases})
    given: dict[str, ast.CallArgument] = {}
    if named:
        for raw in arguments:
            key = (raw.name or "").lower()
            if key not in by_name:
                raise Errors.PROCEDURE_BAD_ARGUMENT.error(
                    procedure=procedure.name,
                    detail=f"unknown argument '{raw.name}'; expected {procedure.signature()}",
                )
            if by_name[key].name in given:
                raise Errors.PROCEDURE_BAD_ARGUMENT.error(
                    procedure=procedure.name, detail=f"duplicate argument '{raw.name}'"
                )
            given[by_name[key].name] = raw
    else:
        if len(arguments) > len(procedure.args):
            raise Errors.PROCEDURE_BAD_ARGUMENT.error(
                procedure=procedure.name,
                detail=f"{len(arguments)} arguments given, at most {len(procedure.args)}: "
                f"{procedure.signature()}",
            )
        given = {a.name: raw for a, raw in zip(procedure.args, arguments)}
    values: dict[str, Any] = {}
    for arg in procedure.args:
        if arg.name in given:
            values[arg.name] = _convert(arg, given[arg.name], procedure.name)
        elif arg.required:
            raise Errors.PROCEDURE_BAD_ARGUMENT.error(
                procedure=procedure.name,
                detail=f"missing required argument '{arg.name}': {procedure.signature()}",
            )
        else:
            values[arg.name] = arg.default
    return values


class Registry:
    """catalog type → procedure name → Procedure."""

    def __init__(self) -> None:
        self._by_type: dict[str, dict[str, Procedure]] = {}

    def register(self, catalog_type: str, procedure: Procedure) -> None:
        self._by_type.setdefault(catalog_type, {})[procedure.name] = procedure

    def get(self, catalog_type: str, name: str) -> Procedure | None:
        return self._by_type.get(catalog_type, {}).get(name.lower())

    def list(self, catalog_type: str) -> list[Procedure]:
        return sorted(self._by_type.get(catalog_type, {}).values(), key=lambda p: p.name)


def split_table(value: str, procedure: str) -> tuple[str, str]:
    """The `table` argument: exactly 'db.table' (no fallback to another object)."""
    parts = value.split(".")
    if len(parts) != 2 or not all(p.strip() for p in parts):
        raise Errors.PROCEDURE_BAD_ARGUMENT.error(
            procedure=procedure, detail=f"table must be 'database.table', got '{value}'"
        )
    return parts[0].strip(), parts[1].strip()
