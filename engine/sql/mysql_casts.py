"""MySQL's LENGTH and CASTs DuckDB answers otherwise (MySQL 8.0 manual 14.8, 14.10):

- LENGTH / OCTET_LENGTH count bytes (of the utf8mb4 text; a binary string's own bytes),
  CHAR_LENGTH characters; DuckDB's length counts characters;
- CAST(x AS UNSIGNED) is x as a 64-bit unsigned integer: a negative value wraps
  (CAST(-1 AS UNSIGNED) = 18446744073709551615), one past the range is the largest; DuckDB
  refuses a negative UBIGINT (MySQL's error 1264 came back);
- CAST(x AS CHAR(n)) keeps the first n characters, with warning 1292 "Truncated incorrect
  CHAR(n) value" for each value it cut (engine/sql/runtime_warnings.py); DuckDB ignores n.
"""

from __future__ import annotations

from sqlglot import exp

from drydock.engine.errors import Errors
from drydock.engine.sql.runtime_warnings import Collector
from drydock.engine.sql.sql_templates import instantiate

# DuckDB's least/greatest skip NULL arguments (least(NULL, 5) = 5), so every clamp goes through
# mysql_clamp, which keeps NULL NULL and evaluates x once (a lambda over a one-element list: x may
# raise row warnings, engine/sql/runtime_warnings.py).
MACROS = {
    "mysql_clamp": """(x, lo, hi) AS (list_transform([x],
        lambda v: CASE WHEN v IS NULL THEN NULL ELSE least(greatest(v, lo), hi) END)[1])""",
    "mysql_unsigned": """(h) AS (CAST(list_transform([h], lambda v: CASE WHEN v IS NULL THEN NULL
        WHEN v < 0 THEN greatest(v, -9223372036854775808) + 18446744073709551616
        ELSE least(v, 18446744073709551615) END)[1] AS UBIGINT))""",
}
CLAMP = "mysql_is.main.mysql_clamp"

_BYTES = (
    "CASE WHEN typeof({0}) = 'BLOB' THEN octet_length(CAST({0} AS BLOB)) "
    "ELSE strlen(CAST({0} AS VARCHAR)) END"
)
_UNSIGNED = "mysql_is.main.mysql_unsigned(CAST({0} AS HUGEINT))"
_MESSAGE_VALUE_CHARS = 128  # MySQL prints at most this much of the value (%-.128s)


def _char_length(cast: exp.Cast) -> int | None:
    """n of CAST(x AS CHAR(n)), else None."""
    to = cast.to
    if not to.is_type(exp.DataType.Type.CHAR, exp.DataType.Type.VARCHAR):
        return None
    params = to.expressions
    if len(params) != 1:
        return None
    size = params[0].this if isinstance(params[0], exp.DataTypeParam) else params[0]
    if isinstance(size, exp.Literal) and not size.is_string and size.name.isdigit():
        return int(size.name)
    return None


def _truncated(cast: exp.Cast, n: int, warnings: Collector) -> exp.Expr:
    text = instantiate("CAST({0} AS VARCHAR)", [cast.this])
    cut = instantiate(f"left({{0}}, {n})", [text])
    message = instantiate(
        f"'Truncated incorrect CHAR({n}) value: ''' || left({{0}}, {_MESSAGE_VALUE_CHARS}) || ''''",
        [text],
    )
    warned = warnings.warn_if(
        instantiate(f"length({{0}}) > {n}", [text]), Errors.TRUNCATED_INCORRECT, message
    )
    return exp.Case(ifs=[exp.If(this=warned, true=cut)], default=cut.copy())


def rewrite(node: exp.Expr, warnings: Collector | None) -> exp.Expr | None:
    """MySQL's meaning of ``node`` when it is one of the calls above, else None."""
    if isinstance(node, exp.Length) and node.args.get("binary"):
        return instantiate(_BYTES, [node.this])
    if isinstance(node, exp.Anonymous) and str(node.name).upper() == "OCTET_LENGTH":
        if len(node.expressions) != 1:
            raise Errors.WRONG_ARGUMENTS.error(where="OCTET_LENGTH")
        return instantiate(_BYTES, [node.expressions[0]])
    if isinstance(node, exp.Cast) and node.to.is_type(exp.DataType.Type.UBIGINT):
        return instantiate(_UNSIGNED, [node.this])
    if isinstance(node, exp.Cast) and warnings is not None:
        n = _char_length(node)
        if n is not None:
            return _truncated(node, n, warnings)
    return None
