"""Which relations a plain-SQL statement reads and writes — decided so that DuckDB cannot disagree.

The statement arrives as drydock's parse (grammar/sql.py). ``resolve`` walks it once, with SQL's
scoping rules, and leaves it in a form whose meaning no longer depends on scoping:

- every CTE is renamed to a reserved name (``__drydock_cte_N``) together with the references
  that resolve to it: a reserved name can only ever resolve to that CTE, never to a table;
- every other table reference becomes a :class:`Reference` to a real relation, which the
  executor then qualifies completely (``internal.db.t``) or binds to an external table: a
  qualified name can never resolve to a CTE, a temporary object or a DuckDB system catalog;
- table functions are refused unless pure (:data:`ALLOWED_TABLE_FUNCTIONS`), and functions that
  disclose server state (settings, paths, catalogs) are refused wherever they appear.

So what is authorized (the references) is exactly what runs. ``verify_with_duckdb`` then reads
DuckDB's own parse of the final text and fails closed if it names anything else.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from typing import Any
from collections.abc import Callable

from sqlglot import exp

from drydock.engine.lakehouse.catalogs.base import SYSTEM_SEPARATOR, split_system_name
from drydock.engine.errors import Errors
from drydock.engine.sql.info_schema import ATTACHED_NAME
from drydock.engine.session import INTERNAL
from drydock.engine.session import SessionContext

RESERVED_PREFIX = "__drydock_"
# Pure table functions: they read nothing but their arguments.
ALLOWED_TABLE_FUNCTIONS = frozenset({"range", "generate_series", "unnest", "generate_subscripts"})
# Function names (lower-case, prefix match) that read server state, files or catalogs.
DENIED_FUNCTION_PREFIXES = (
    "duckdb_",
    "pragma_",
    "sqlite_",
    "pg_",
    "read_",
    "parquet_",
    "iceberg_",
    "delta_",
    "glob",
    "sniff_csv",
    "query",
    "current_setting",
    "nextval",
    "currval",
    "setval",
    "getenv",
    "getvariable",
    "which_secret",
    "has_",
    "col_description",
    "obj_description",
    "shobj_description",
    "format_pg_type",
    "load_",
    "install_",
    "checkpoint",
    "force_checkpoint",
    "enable_",
    "disable_",
    "icu_calendar_names",
    "test_all_types",
    "test_vector_types",
    "current_schemas",
    "current_catalog",
    "json_execute_serialized_sql",
    "json_deserialize_sql",
    "json_serialize_plan",
    "sql_auto_complete",
)


@dataclass
class Reference:
    """One reference to a real relation in the statement (the node is the executor's to bind)."""

    node: exp.Table
    catalog: str
    db: str
    table: str  # the table privileges are checked on (the base table of ``t$snapshots``)
    system: str = ""  # what follows '$' in an external catalog: a system table or a branch

    @property
    def relation(self) -> str:
        """The name the catalog reads: ``t`` or ``t$snapshots``."""
        return f"{self.table}{SYSTEM_SEPARATOR}{self.system}" if self.system else self.table


def catalog_of(table: exp.Table, ctx: SessionContext) -> str:
    """The catalog a table reference names: explicit, else the session's current catalog."""
    named = table.text("catalog")
    if named:
        return INTERNAL if named.lower() == INTERNAL else named
    return ctx.catalog


def is_information_schema(table: exp.Table, ctx: SessionContext) -> bool:
    """A reference drydock answers from its own filtered information_schema."""
    db = table.text("db").lower()
    if db == "information_schema":
        return True
    return (
        not db
        and not table.text("catalog")
        and (ctx.database or "").lower() == "information_schema"
    )


def _function_name(node: exp.Expr) -> str:
    if isinstance(node, exp.Anonymous):
        return str(node.name).lower()
    if isinstance(node, exp.Func):
        return node.sql_name().lower()
    return ""


def check_function(name: str) -> None:
    if name.startswith(DENIED_FUNCTION_PREFIXES):
        raise Errors.FUNCTION_NOT_ALLOWED.error(name=name)


class _Walker:
    def __init__(self, ctx: SessionContext):
        self.ctx = ctx
        self.references: list[Reference] = []
        self._cte_names = (f"{RESERVED_PREFIX}cte_{n}" for n in itertools.count(1))

    def walk(self, node: exp.Expr, visible: dict[str, str]) -> None:
        with_ = node.args.get("with_")
        if isinstance(with_, exp.With):
            visible = self._with(with_, visible)
        if isinstance(node, exp.Table):
            self._table(node, visible)
            skip = {"this", "db", "catalog"} if isinstance(node.this, exp.Identifier) else set()
        else:
            if isinstance(node, exp.Func):
                check_function(_function_name(node))
            skip = set()
        for key, value in node.args.items():
            if key in skip or key == "with_":
                continue
            for child in value if isinstance(value, list) else [value]:
                if isinstance(child, exp.Expression):
                    self.walk(child, visible)

    def _with(self, with_: exp.With, visible: dict[str, str]) -> dict[str, str]:
        """A WITH clause: each CTE's body sees the outer names and the CTEs before it (itself
        too when RECURSIVE); what follows the clause sees all of them."""
        scope = dict(visible)
        recursive = bool(with_.args.get("recursive"))
        for cte in with_.expressions:
            name = cte.alias_or_name
            if name.lower().startswith(RESERVED_PREFIX):
                raise Errors.UNKNOWN_TABLE.error(table=name)
            reserved = next(self._cte_names)
            body_scope = {**scope, name.lower(): reserved} if recursive else dict(scope)
            self.walk(cte.this, body_scope)
            scope[name.lower()] = reserved
            alias = cte.args.get("alias")
            if isinstance(alias, exp.TableAlias):
                alias.set("this", exp.to_identifier(reserved))
        return scope

    def _table(self, table: exp.Table, visible: dict[str, str]) -> None:
        source = table.this
        if not isinstance(source, exp.Identifier):
            name = _function_name(source) if isinstance(source, exp.Expression) else ""
            if name not in ALLOWED_TABLE_FUNCTIONS:
                raise Errors.TABLE_FUNCTION_NOT_ALLOWED.error(name=name or source.sql())
            return
        name = table.name
        if name.lower().startswith(RESERVED_PREFIX) or table.text("db").lower().startswith(
            RESERVED_PREFIX
        ):
            raise Errors.UNKNOWN_TABLE.error(
                table=f"{table.text('db') or self.ctx.database or ''}.{name}".lstrip(".")
            )
        if table.text("catalog").lower() == ATTACHED_NAME:
            raise Errors.UNKNOWN_CATALOG.error(name=table.text("catalog"))
        qualified = bool(table.text("db") or table.text("catalog"))
        if not qualified and name.lower() in visible:
            self._rename_cte_reference(table, visible[name.lower()])
            return
        if is_information_schema(table, self.ctx):
            return
        if not qualified and name.upper() == "DUAL":
            return
        db = table.text("db") or self.ctx.database
        if not db:
            raise Errors.NO_DB_SELECTED.error()
        catalog = catalog_of(table, self.ctx)
        # ``t$snapshots`` / ``t$branch_b`` of an external catalog reads metadata or a branch of
        # ``t``: authorized as ``t`` (internal tables keep '$' as an ordinary name character).
        base, system = split_system_name(name) if catalog.lower() != INTERNAL else (name, "")
        self.references.append(Reference(table, catalog, db, base, system))

    @staticmethod
    def _rename_cte_reference(table: exp.Table, reserved: str) -> None:
        if not table.alias:
            table.set("alias", exp.TableAlias(this=exp.to_identifier(table.name)))
        table.set("this", exp.to_identifier(reserved))


def resolve(expression: exp.Expr, ctx: SessionContext) -> list[Reference]:
    """Every real relation ``expression`` references (see module docstring); rewrites CTE names
    in place, refuses table functions and server-state functions."""
    walker = _Walker(ctx)
    walker.walk(expression, {})
    return walker.references


# -- DuckDB's view of the final text ------------------------------------------------------------
def duckdb_relations(serialized: str) -> tuple[set[tuple[str, str, str]], set[str]]:
    """(BASE_TABLE (catalog, schema, table) triples, table-function names) of a
    ``json_serialize_sql`` result; raises when DuckDB could not serialize the statement."""
    tree = json.loads(serialized)
    if tree.get("error"):
        raise Errors.RELATIONS_UNKNOWN.error(detail=str(tree.get("error_message", ""))[:200])
    tables: set[tuple[str, str, str]] = set()
    functions: set[str] = set()

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            kind = node.get("type")
            if kind == "BASE_TABLE":
                tables.add(
                    (
                        node.get("catalog_name", ""),
                        node.get("schema_name", ""),
                        node.get("table_name", ""),
                    )
                )
            elif kind == "TABLE_FUNCTION":
                function = node.get("function") or {}
                functions.add(str(function.get("function_name", "")).lower())
            elif node.get("class") == "FUNCTION":
                functions.add("#" + str(node.get("function_name", "")).lower())
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(tree)
    return tables, functions


def verify_with_duckdb(
    serialize: Callable[[str], str], sql: str, authorized: set[tuple[str, str]]
) -> None:
    """Fail closed unless every relation in DuckDB's parse of ``sql`` is an authorized internal
    table, a reserved name drydock bound, or drydock's own information_schema; and every table
    function is allowed and no denied function is called."""
    tables, functions = duckdb_relations(serialize(sql))
    for catalog, schema, table in tables:
        if not catalog and not schema and table.lower().startswith(RESERVED_PREFIX):
            continue
        if catalog.lower() == ATTACHED_NAME and schema.lower() == "main":
            continue
        if catalog.lower() == INTERNAL and (schema.lower(), table.lower()) in authorized:
            continue
        raise Errors.RELATIONS_UNKNOWN.error(detail=f"'{table}' was not resolved by drydock")
    for function in functions:
        name = function.lstrip("#")
        if not function.startswith("#") and name not in ALLOWED_TABLE_FUNCTIONS:
            raise Errors.TABLE_FUNCTION_NOT_ALLOWED.error(name=name)
        check_function(name)
