"""DuckDB's errors → MySQL's: one table of (exception class, message pattern, error spec).

DuckDB raises typed exceptions (ConstraintException, CatalogException, …) whose first line says
what failed in DuckDB's words. Drivers pick their exception class from the MySQL code and SQLSTATE
(pymysql IntegrityError for 1062, ProgrammingError for 1146, JDBC
SQLIntegrityConstraintViolationException for class 23), so each known shape is answered with
MySQL's code, SQLSTATE and wording (codes and templates live in engine/errors.py). A shape not in
the table stays 1105 / HY000 with DuckDB's first line, as before.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

import duckdb

from drydock.engine.errors import DrydockError, Errors, ErrorSpec, scrub_paths
from drydock.engine.search import vector_functions
from drydock.engine.sql import enforce_checks, mysql_json_doc

# DuckDB's physical type names → the SQL names MySQL prints in its messages
_TYPE_NAMES = {
    "INT8": "TINYINT",
    "INT16": "SMALLINT",
    "INT32": "INT",
    "INT64": "BIGINT",
    "INT128": "DECIMAL",
    "UINT8": "TINYINT UNSIGNED",
    "UINT16": "SMALLINT UNSIGNED",
    "UINT32": "INT UNSIGNED",
    "UINT64": "BIGINT UNSIGNED",
}


def _sql_type(name: str) -> str:
    return _TYPE_NAMES.get(name.upper(), name.upper())


def _value_kind(duck_type: str) -> str:
    """MySQL's noun for a value of this type in 'Incorrect <noun> value' (1366/1292)."""
    t = duck_type.upper()
    if t.startswith(("INT", "UINT", "BIGINT", "SMALLINT", "TINYINT", "HUGEINT")):
        return "integer"
    if t.startswith(("DECIMAL", "NUMERIC")):
        return "decimal"
    if t in ("DOUBLE", "FLOAT", "REAL"):
        return "double"
    return t.lower()


@dataclass(frozen=True)
class Context:
    """What the statement tells about the error: its target table and current database."""

    table: str = ""  # the table an INSERT/UPDATE/DELETE/CREATE writes, unqualified
    database: str = ""
    drop: bool = False  # a DROP statement: a missing database is 1008, not 1049
    # the target's CHECK constraints: (name, DuckDB text), engine/sql/enforce_checks.py
    checks: tuple[tuple[str, str], ...] = ()


Params = Callable[[re.Match[str], Context], dict[str, str]]


@dataclass(frozen=True)
class Rule:
    exception: type[duckdb.Error]
    pattern: re.Pattern[str]
    spec: ErrorSpec
    params: Params


def _rule(exception: type[duckdb.Error], pattern: str, spec: ErrorSpec, params: Params) -> Rule:
    return Rule(exception, re.compile(pattern), spec, params)


def _key(name: str, ctx: Context) -> str:
    """MySQL 8 names the violated key ``table.PRIMARY`` / ``table.<index>``."""
    return f"{ctx.table}.{name}" if ctx.table else name


def _missing_table(m: re.Match[str], ctx: Context) -> dict[str, str]:
    name = m["name"]
    return {"table": name if "." in name or not ctx.database else f"{ctx.database}.{name}"}


RULES: tuple[Rule, ...] = (
    # -- constraints (SQLSTATE 23000: IntegrityError in every driver) --------------------------
    _rule(
        duckdb.ConstraintException,
        r'Duplicate key "(?P<column>[^:"]+): (?P<value>.*)" violates primary key',
        Errors.DUP_ENTRY,
        lambda m, c: {"value": m["value"], "key": _key("PRIMARY", c)},
    ),
    _rule(
        duckdb.ConstraintException,
        r'Duplicate key "(?P<column>[^:"]+): (?P<value>.*)" violates unique',
        Errors.DUP_ENTRY,
        lambda m, c: {"value": m["value"], "key": _key(m["column"], c)},
    ),
    _rule(
        duckdb.ConstraintException,
        r'PRIMARY KEY or UNIQUE constraint violation: duplicate key "(?P<value>.*)"',
        Errors.DUP_ENTRY,
        lambda m, c: {"value": m["value"], "key": _key("PRIMARY", c)},
    ),
    _rule(
        duckdb.ConstraintException,
        r"NOT NULL constraint failed: (?:[^.\s]+\.)?(?P<column>\S+)",
        Errors.BAD_NULL,
        lambda m, c: {"column": m["column"]},
    ),
    _rule(
        duckdb.ConstraintException,
        r'foreign key constraint because key "(?P<key>.*)" is still referenced',
        Errors.ROW_IS_REFERENCED,
        lambda m, c: {"detail": f"key {m['key']} is still referenced"},
    ),
    _rule(
        duckdb.ConstraintException,
        r'foreign key constraint because key "(?P<key>.*)" does not exist',
        Errors.NO_REFERENCED_ROW,
        lambda m, c: {"detail": f"key {m['key']} is not in the referenced table"},
    ),
    _rule(
        duckdb.ConstraintException,
        r"CHECK constraint failed on table \S+ with expression CHECK\((?P<expr>.*)\)$",
        Errors.CHECK_VIOLATED,
        lambda m, c: {"name": enforce_checks.violated(c.checks, m["expr"])},
    ),
    # -- names -----------------------------------------------------------------------------------
    _rule(
        duckdb.BinderException,
        r'Referenced column "?(?P<column>[^"]+?)"? (?:was )?not found',
        Errors.BAD_FIELD,
        lambda m, c: {"column": m["column"], "where": "field list"},
    ),
    _rule(
        duckdb.CatalogException,
        r'Table with name "?(?P<name>[^"\s!]+)"? does not exist',
        Errors.UNKNOWN_TABLE,
        _missing_table,
    ),
    _rule(
        duckdb.CatalogException,
        r'(?:Table|View) with name "?(?P<name>[^"\s!]+)"? already exists',
        Errors.TABLE_EXISTS,
        lambda m, c: {"table": m["name"]},
    ),
    _rule(
        duckdb.CatalogException,
        r'Schema with name "?(?P<name>[^"\s!]+)"? already exists',
        Errors.DB_CREATE_EXISTS,
        lambda m, c: {"db": m["name"]},
    ),
    _rule(
        duckdb.CatalogException,
        r'Schema with name "?(?P<name>[^"\s!]+)"? does not exist',
        Errors.UNKNOWN_DATABASE,
        lambda m, c: {"db": m["name"]},
    ),
    _rule(
        duckdb.CatalogException,
        r'No catalog \+ schema named "?(?P<name>[^"\s!]+)"? found',
        Errors.UNKNOWN_DATABASE,
        lambda m, c: {"db": m["name"]},
    ),
    _rule(
        duckdb.CatalogException,
        r'(?:Scalar|Aggregate|Table) Function with name "?(?P<name>[^"\s!]+)"? does not exist',
        Errors.UNKNOWN_FUNCTION,
        lambda m, c: {"name": f"{c.database}.{m['name']}" if c.database else m["name"]},
    ),
    _rule(
        duckdb.BinderException,
        r"No function matches the given name and argument types \'(?P<name>[^(\']+)\(",
        Errors.WRONG_ARGUMENTS_TO_FUNCTION,
        lambda m, c: {"name": m["name"]},
    ),
    _rule(
        duckdb.BinderException,
        r'for the function call "(?P<name>[^("]+)\(',
        Errors.WRONG_ARGUMENTS_TO_FUNCTION,
        lambda m, c: {"name": m["name"]},
    ),
    # -- bounds (README "Statement bounds"): the spill rule first, its message says "Out of Memory"
    # too
    _rule(
        duckdb.OutOfMemoryException,
        r"failed to offload .*\((?P<used>[^/()]+)/(?P<limit>[^/()]+) used\)",
        Errors.OUT_OF_TEMP_SPACE,
        lambda m, c: {"limit": m["limit"].strip()},
    ),
    _rule(
        duckdb.OutOfMemoryException,
        r"\((?P<used>[^/()]+)/(?P<limit>[^/()]+) used\)",
        Errors.OUT_OF_MEMORY,
        lambda m, c: {"limit": m["limit"].strip()},
    ),
    # -- values ----------------------------------------------------------------------------------
    # vectors (engine/search/vector_functions.py): the macros' own errors, and DuckDB's list_*
    # distance functions' (which the macros call)
    _rule(
        duckdb.InvalidInputException,
        re.escape(vector_functions.ERROR_PREFIX) + r"(?P<value>.*)",
        Errors.INVALID_VECTOR,
        lambda m, c: {"value": m["value"]},
    ),
    _rule(
        duckdb.ConversionException,
        r"Unimplemented type for cast \((?P<type>.*) -> DOUBLE\[\]\)",
        Errors.INVALID_VECTOR,
        lambda m, c: {"value": f"a value of type {m['type']}"},
    ),
    _rule(
        duckdb.InvalidInputException,
        r"(?:list|array)_\w+: \w+ argument can not contain NULL values",
        Errors.INVALID_VECTOR,
        lambda m, c: {"value": "a vector with a NULL element"},
    ),
    _rule(
        duckdb.InvalidInputException,
        r"(?:list|array)_\w+: \w+ dimensions must be equal, got left length '(?P<first>\d+)' "
        r"and right length '(?P<second>\d+)'|"
        + re.escape(vector_functions.DIMENSIONS_PREFIX)
        + r"(?P<first2>\d+) (?P<second2>\d+)",
        Errors.VECTOR_DIMENSIONS_DIFFER,
        lambda m, c: {
            "first": "the first vector",
            "first_dim": m["first"] or m["first2"],
            "second": "the second vector",
            "second_dim": m["second"] or m["second2"],
        },
    ),
    # DuckDB's own json functions (JSON_EXTRACT, ->, ->> with a path it reads itself): MySQL
    # 3141 names json_extract, which those are in MySQL
    _rule(
        duckdb.InvalidInputException,
        r"Malformed JSON at byte (?P<position>\d+) of input: (?P<reason>[^.]*)",
        Errors.INVALID_JSON_TEXT,
        lambda m, c: {
            "argument": "1",
            "function": "json_extract",
            "reason": m["reason"].strip().capitalize() + ".",
            "position": m["position"],
        },
    ),
    _rule(
        duckdb.ConversionException,
        r"with value (?P<value>\S+) can't be cast because the value is out of "
        r"range for the destination type (?P<type>\w+)",
        Errors.OUT_OF_RANGE,
        lambda m, c: {"value": m["value"], "type": _sql_type(m["type"])},
    ),
    _rule(
        duckdb.ConversionException,
        r"Could not cast value (?P<value>\S+) to (?P<type>[\w(),]+)",
        Errors.OUT_OF_RANGE,
        lambda m, c: {"value": m["value"], "type": m["type"]},
    ),
    _rule(
        duckdb.OutOfRangeException,
        r"Overflow in \w+ of (?P<type>\w+) \((?P<expr>.*)\)",
        Errors.DATA_OUT_OF_RANGE,
        lambda m, c: {"type": _sql_type(m["type"]), "expr": m["expr"]},
    ),
    _rule(
        duckdb.ConversionException,
        r"Could not convert string ['\"](?P<value>.*)['\"] to (?P<type>[\w(),]+)",
        Errors.TRUNCATED_WRONG_VALUE,
        lambda m, c: {"type": _value_kind(m["type"]), "value": m["value"]},
    ),
    _rule(
        duckdb.ConversionException,
        r'(?P<type>date|timestamp|time) field (?:format|value)[^"]*"(?P<value>[^"]*)"',
        Errors.WRONG_DATETIME_VALUE,
        lambda m, c: {
            "type": "datetime" if m["type"] == "timestamp" else m["type"],
            "value": m["value"],
        },
    ),
)


def first_line(exc: BaseException) -> str:
    """The first line of a DuckDB error without server paths, for the 1105 fallback."""
    text = str(exc).strip()
    return scrub_paths(text.splitlines()[0] if text else type(exc).__name__)


def translate(exc: duckdb.Error, ctx: Context | None = None) -> DrydockError | None:
    """The MySQL error for a DuckDB error when one rule matches it, else None."""
    context = ctx or Context()
    line = first_line(exc)
    json_error = mysql_json_doc.ERROR_PATTERN.search(line)
    if json_error is not None and isinstance(getattr(Errors, json_error["name"], None), ErrorSpec):
        # a MySQL JSON function's own error (engine/sql/mysql_json_doc.py JsonError)
        spec: ErrorSpec = getattr(Errors, json_error["name"])
        return spec.error(**json.loads(json_error["params"]))
    for rule in RULES:
        if isinstance(exc, rule.exception):
            match = rule.pattern.search(line)
            if match:
                spec = rule.spec
                if spec is Errors.UNKNOWN_DATABASE and context.drop:
                    spec = Errors.DB_DROP_EXISTS
                return spec.error(**rule.params(match, context))
    return None
