"""The exact vector functions, as DuckDB macros in drydock's attached ``mysql_is`` database.

``l2_distance(a, b)`` (Euclidean, not squared), ``inner_product(a, b)``, ``cosine_distance(a, b)``
(1 - cos), ``l1_distance(a, b)`` (sum of |a - b|), ``l2_distance_approximate`` and
``inner_product_approximate`` (the exact values: the search planner decides when an index answers
them instead), ``STRING_TO_VECTOR('[1,2]')`` (a FLOAT list, MySQL 9) and ``VECTOR_TO_STRING(v)``
(``[1,2.5]``: each element's shortest float32 text). Results are DOUBLE.

An argument is a vector column (a Lance fixed_size_list reads as FLOAT[n]/DOUBLE[n], a list
column, an internal FLOAT[]/DOUBLE[] column), an array literal ``[0.1, 0.2]`` or a string
``'[0.1,0.2]'`` (so a prepared statement binds one parameter); every form is read as DOUBLE[].
A NULL argument gives NULL. A NULL, NaN or infinite element, text that is no vector, and vectors of
different dimensions are errors (:data:`ERROR_PREFIX` marks the macros' own messages;
engine/sql/duckdb_errors.py turns them and DuckDB's list_* errors into Errors.INVALID_VECTOR and
Errors.VECTOR_DIMENSIONS_DIFFER). A cosine distance with a zero vector is undefined: NULL.

Macros, not Python functions: DuckDB's list_distance / list_inner_product /
list_cosine_distance run vectorized in C++ (bench/bench_vector_functions.py measures the ratio).
The checks that need the elements run only on the rare rows whose result is not finite, and an
array literal runs as the string of the same values (DuckDB folds its parse to one constant).
Measured (100k rows of FLOAT[128]): l2/inner product/cosine 1.7-2.3x bare list_distance, a Python
Arrow UDF 18x; l1_distance, which DuckDB lacks, is a lambda over the elements (~50x).

Users call the functions by their plain names; :func:`qualify` points those calls at the macros
just before DuckDB SQL is generated, so every earlier step (the search planner included) sees the
names the user wrote. SQL cannot create or replace macros (engine/statements/sql.py), so these stay
what this module made them.
"""

from __future__ import annotations

from typing import Any

import duckdb
from sqlglot import exp

from drydock.engine.errors import Errors
from drydock.engine.search.vectors import constant_values
from drydock.grammar.sql import DIALECT, TextMatch

SCHEMA = "mysql_is.main"
ERROR_PREFIX = "drydock-invalid-vector: "
DIMENSIONS_PREFIX = "drydock-vector-dimensions: "
_PREFIX = "drydock_vec_"  # the macros' names in SCHEMA
# the largest float32: a STRING_TO_VECTOR element past it is no valid (float32) vector element
_FLOAT32_MAX = "3.4028234663852886e38"


def _m(name: str) -> str:
    return f"{SCHEMA}.{_PREFIX}{name}"


# Each macro may only call macros defined before it (install() creates them in this order).
_MACROS: dict[str, str] = {
    # text → DOUBLE[]: every element a number (TRY_CAST reads '[1,x]' as [1, NULL])
    "parsed": f"""(x) AS (CASE WHEN x IS NULL THEN NULL
        WHEN list_count(TRY_CAST(x AS DOUBLE[])) = len(TRY_CAST(x AS DOUBLE[]))
            THEN TRY_CAST(x AS DOUBLE[])
        ELSE error('{ERROR_PREFIX}' || left(CAST(x AS VARCHAR), 100)) END)""",
    # any argument form → DOUBLE[]; typeof() is a constant, so a column pays one cast per row
    # (a value of another type, a number say, is DuckDB's cast error: duckdb_errors.py)
    "doubles": f"""(x) AS (CASE WHEN typeof(x) = 'VARCHAR' THEN {_m("parsed")}(x)
        ELSE CAST(x AS DOUBLE[]) END)""",
    # every element present and finite (a NULL vector counts as valid: it gives NULL)
    "valid": """(v) AS (v IS NULL OR (list_count(v) = len(v)
        AND list_max(v) <= 1.7976931348623157e308 AND list_min(v) >= -1.7976931348623157e308))""",
    "text": """(v) AS ('[' || array_to_string(list_transform(v, lambda e: CASE WHEN e IS NULL
        THEN 'NULL' ELSE regexp_replace(COALESCE(CAST(TRY_CAST(e AS FLOAT) AS VARCHAR),
            CAST(e AS VARCHAR)), '\\.0$', '') END), ',')
        || ']')""",
    # r = f(a, b) where a, b are DOUBLE[]: r itself when finite or NULL from a NULL argument;
    # NULL when both vectors are valid (a cosine with a zero vector); else the invalid vector
    "checked": f"""(r, a, b) AS (CASE WHEN isfinite(r) THEN r
        WHEN a IS NULL OR b IS NULL THEN NULL
        WHEN {_m("valid")}(a) AND {_m("valid")}(b) THEN NULL
        ELSE error('{ERROR_PREFIX}' || left({_m("text")}(
            CASE WHEN {_m("valid")}(a) THEN b ELSE a END), 100)) END)""",
    "l2": f"(a, b) AS ({_m('checked')}(list_distance(a, b), a, b))",
    "ip": f"(a, b) AS ({_m('checked')}(list_inner_product(a, b), a, b))",
    "cosine": f"(a, b) AS ({_m('checked')}(list_cosine_distance(a, b), a, b))",
    "l1": f"""(a, b) AS (CASE
        WHEN a IS NULL OR b IS NULL THEN NULL
        WHEN len(a) <> len(b) THEN error('{DIMENSIONS_PREFIX}' || len(a) || ' ' || len(b))
        WHEN NOT ({_m("valid")}(a) AND {_m("valid")}(b))
            THEN error('{ERROR_PREFIX}' || left({_m("text")}(
                CASE WHEN {_m("valid")}(a) THEN b ELSE a END), 100))
        ELSE list_sum(list_transform(a, lambda x, i: abs(x - b[i]))) END)""",
    "l2_distance": f"(a, b) AS ({_m('l2')}({_m('doubles')}(a), {_m('doubles')}(b)))",
    "inner_product": f"(a, b) AS ({_m('ip')}({_m('doubles')}(a), {_m('doubles')}(b)))",
    "cosine_distance": f"(a, b) AS ({_m('cosine')}({_m('doubles')}(a), {_m('doubles')}(b)))",
    "l1_distance": f"(a, b) AS ({_m('l1')}({_m('doubles')}(a), {_m('doubles')}(b)))",
    # MySQL 9's vectors are float32: an element past float32's range is no valid vector either
    "floats": f"""(v) AS (CASE WHEN v IS NULL THEN NULL
        WHEN len(v) > 0 AND list_count(v) = len(v)
             AND list_max(v) <= {_FLOAT32_MAX} AND list_min(v) >= -{_FLOAT32_MAX}
            THEN TRY_CAST(v AS FLOAT[])
        ELSE error('{ERROR_PREFIX}' || left({_m("text")}(v), 100)) END)""",
    "string_to_vector": f"(s) AS ({_m('floats')}({_m('parsed')}(CAST(s AS VARCHAR))))",
    "vector_to_string": f"(v) AS ({_m('text')}({_m('doubles')}(v)))",
}

# the user's name (upper case) → the macro a call runs
FUNCTIONS: dict[str, str] = {
    "L2_DISTANCE": "l2_distance",
    "L2_DISTANCE_APPROXIMATE": "l2_distance",
    "INNER_PRODUCT": "inner_product",
    "INNER_PRODUCT_APPROXIMATE": "inner_product",
    "COSINE_DISTANCE": "cosine_distance",
    "L1_DISTANCE": "l1_distance",
    "STRING_TO_VECTOR": "string_to_vector",
    "TO_VECTOR": "string_to_vector",  # MySQL 9's synonym
    "VECTOR_TO_STRING": "vector_to_string",
    "FROM_VECTOR": "vector_to_string",  # MySQL 9's synonym
}
_ARITY = {"string_to_vector": 1, "vector_to_string": 1}


def install(con: duckdb.DuckDBPyConnection) -> None:
    """(Re)create the macros in ``mysql_is`` (engine/sql/info_schema.py attaches it). Idempotent."""
    for name, body in _MACROS.items():
        con.execute(f"CREATE OR REPLACE MACRO {_m(name)}{body}")


def call_of(node: exp.Expr) -> tuple[str, list[exp.Expr]] | None:
    """(the user's function name in upper case, its arguments) when ``node`` calls one of the
    vector functions, else None. sqlglot reads COSINE_DISTANCE as its own node."""
    if isinstance(node, exp.CosineDistance):
        return "COSINE_DISTANCE", [node.this, node.expression]
    if isinstance(node, exp.Anonymous) and str(node.name).upper() in FUNCTIONS:
        return str(node.name).upper(), list(node.expressions)
    return None


def qualify(expression: exp.Expr) -> exp.Expr:
    """``expression`` with every vector function call pointed at its macro, in place (the root
    is returned, replaced when it is itself a call). A call with the wrong number of arguments
    is MySQL's 1582. A full-text predicate still here (the search planner answers the ones an
    index can) is MySQL's 1191: DuckDB SQL is never generated for it."""
    root: Any = expression
    for node in list(expression.walk()):
        if isinstance(node, (TextMatch, exp.MatchAgainst)):  # no exact form on DuckDB
            raise Errors.FULLTEXT_INDEX_MISSING.error(
                detail=f"no inverted index answers {node.sql(DIALECT)[:100]}"
            )
        call = call_of(node)
        if call is None:
            continue
        name, args = call
        macro = FUNCTIONS[name]
        if len(args) != _ARITY.get(macro, 2):
            raise Errors.WRONG_ARGUMENTS_TO_FUNCTION.error(name=name.lower())
        inner = _DISTANCES.get(macro)
        if inner is not None:
            # a constant is read and checked here, once: the macro gets a DOUBLE[] constant and
            # DuckDB binds no parse or check of it (the macros inline every use of an argument)
            macro, args = inner, [_vector_argument(arg) for arg in args]
        else:
            args = [_as_text(arg) for arg in args]
        replacement = _macro_call(macro, args)
        if node is root:
            root = replacement
        else:
            node.replace(replacement)
    return root  # type: ignore[no-any-return]


# the distance functions → the macro over two DOUBLE[] they call
_DISTANCES = {
    "l2_distance": "l2",
    "inner_product": "ip",
    "cosine_distance": "cosine",
    "l1_distance": "l1",
}


def _macro_call(macro: str, args: list[exp.Expr]) -> exp.Expr:
    return exp.Dot.build(
        [
            exp.to_identifier("mysql_is"),
            exp.to_identifier("main"),
            exp.Anonymous(this=f"{_PREFIX}{macro}", expressions=args),
        ]
    )


def _vector_argument(arg: exp.Expr) -> exp.Expr:
    """A distance function's argument as a DOUBLE[]: a constant vector checked here and cast
    once, anything else through the ``doubles`` macro (text parsed and checked per value)."""
    values = constant_values(arg)
    if values is None:
        return _macro_call("doubles", [arg])
    text = exp.Literal.string("[" + ",".join(repr(v) for v in values) + "]")
    return exp.Cast(this=text, to=exp.DataType.build("DOUBLE[]", dialect="duckdb"))


def _as_text(arg: exp.Expr) -> exp.Expr:
    """An array literal of numbers as the string form of the same values: DuckDB folds the
    string's parse to one constant, where the array's cast runs per row (5x slower, measured in
    bench/bench_vector_functions.py). Its errors are raised here, as the SQL path words them."""
    if not isinstance(arg, exp.Array):
        return arg
    values = constant_values(arg)
    if values is None:
        return arg
    return exp.Literal.string("[" + ",".join(repr(v) for v in values) + "]")
