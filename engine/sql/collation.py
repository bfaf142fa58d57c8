"""MySQL's collations on DuckDB (MySQL 8.0 manual 10.3, 10.10.1).

MySQL 8's default collation ``utf8mb4_0900_ai_ci`` compares strings without regard to case or
accents: ``'abc' = 'ABC'`` and ``'é' = 'e'`` are true, and GROUP BY / DISTINCT put such values
in one group. drydock's DuckDB database runs with :data:`DEFAULT` as its default collation
(engine/sql/query.py), which does the same for every comparison, GROUP BY, DISTINCT, ORDER BY, join
and IN, on internal tables and on Lance/Paimon scans alike.

A binary comparison is asked for as in MySQL: ``COLLATE utf8mb4_bin`` (any ``*_bin``, or
``binary``) compares code points; ``BINARY x`` casts to bytes. ``*_ci`` names give the default,
``*_as_ci`` keeps accents. Unknown names are MySQL's 1273.

What stays different (README): PRIMARY KEY / UNIQUE indexes compare binary ('a' and 'A' are two
keys), and a string equality on a Lance/Paimon column is evaluated by DuckDB after the scan
rather than pushed into it.
"""

from __future__ import annotations

from sqlglot import exp

from drydock.engine.errors import Errors

DEFAULT = "noaccent.nocase"
_BINARY = "binary"
_CASE_ONLY = "nocase"


def duckdb_collation(name: str) -> str:
    """The DuckDB collation of a MySQL collation name."""
    lowered = name.lower()
    if lowered == "binary" or lowered.endswith("_bin"):
        return _BINARY
    if lowered.endswith("_as_ci"):
        return _CASE_ONLY
    if lowered.endswith("_ci"):
        return DEFAULT
    raise Errors.UNKNOWN_COLLATION.error(name=name)


def _identifier(name: str) -> exp.Identifier:
    return exp.to_identifier(duckdb_collation(name), quoted=True)


_BINARY_TYPES = (exp.DataType.Type.BINARY, exp.DataType.Type.VARBINARY, exp.DataType.Type.BLOB)
# MySQL REGEXP_LIKE match_type characters → DuckDB regexp_matches options ('n': dot matches
# newlines is RE2's 's'; 'u', Unix line endings, has no RE2 counterpart and is dropped)
_MATCH_TYPE = {"c": "c", "i": "i", "m": "m", "n": "s"}


def _is_binary(node: exp.Expr | None) -> bool:
    """``BINARY x`` / CAST(x AS BINARY) or ``x COLLATE *_bin``: compared case-sensitively."""
    if isinstance(node, exp.Paren):
        return _is_binary(node.this)
    if isinstance(node, exp.Cast):
        return any(node.to.is_type(t) for t in _BINARY_TYPES)
    if isinstance(node, exp.Collate):
        name = node.expression.name if node.expression is not None else ""
        return name.lower() == "binary" or name.lower().endswith("_bin")
    return False


def _as_text(node: exp.Expr) -> exp.Expr:
    """A ``BINARY 'x'`` operand as its text (DuckDB matches no BLOB against a pattern)."""
    return node.this.copy() if isinstance(node, exp.Cast) and _is_binary(node) else node


def _pattern_matching(node: exp.Expr) -> None:
    """LIKE and REGEXP as MySQL 8 compares them: case-insensitive under the default collation,
    case-sensitive when an operand is binary (``LIKE BINARY 'b%'``, ``BINARY x REGEXP p``,
    ``COLLATE utf8mb4_bin``). DuckDB's LIKE follows its collation (case-insensitive by default,
    query.py); its regexp_matches is case-sensitive unless told 'i'."""
    if isinstance(node, exp.Like) and (_is_binary(node.this) or _is_binary(node.expression)):
        node.set(
            "this",
            exp.Paren(
                this=exp.Collate(this=_as_text(node.this), expression=exp.Var(this="binary"))
            ),
        )
        node.set("expression", _as_text(node.expression))
    elif isinstance(node, exp.RegexpLike):
        binary = _is_binary(node.this) or _is_binary(node.expression)
        flag = node.args.get("flag")
        given = ""
        if isinstance(flag, exp.Literal) and flag.is_string:
            given = "".join(_MATCH_TYPE.get(c, "") for c in flag.name)
        elif flag is not None:
            return  # a match_type known only at run time: DuckDB's own reading
        node.set("this", _as_text(node.this))
        node.set("expression", _as_text(node.expression))
        node.set("flag", exp.Literal.string(("c" if binary else "i") + given))


def default_like_escape(expression: exp.Expr, backslash_escapes: bool) -> None:
    """MySQL's LIKE escapes ``%`` and ``_`` with a backslash unless ESCAPE names another
    character, and with none under NO_BACKSLASH_ESCAPES (manual 14.8.1); DuckDB's LIKE has no
    escape character unless told. Django escapes every ``_`` it searches for (``startswith``)."""
    if not backslash_escapes:
        return
    for like in list(expression.find_all(exp.Like, exp.ILike)):
        if isinstance(like.parent, exp.Escape) and like.arg_key == "this":
            continue
        escaped = exp.Escape(expression=exp.Literal.string("\\"))
        like.replace(escaped)
        escaped.set("this", like)


def translate(expression: exp.Expr) -> exp.Expr:
    """``x COLLATE <mysql name>`` → DuckDB's collation, in place (column definitions too); LIKE
    and REGEXP case-sensitive as MySQL decides it (:func:`_pattern_matching`)."""
    for pattern in list(expression.find_all(exp.Like, exp.RegexpLike)):
        _pattern_matching(pattern)
    for node in list(expression.find_all(exp.Collate, exp.CollateColumnConstraint)):
        target = node.expression if isinstance(node, exp.Collate) else node.this
        if target is None:
            continue
        name = (
            target.name
            if isinstance(target, (exp.Var, exp.Identifier, exp.Column, exp.Literal))
            else ""
        )
        if not name:
            raise Errors.UNKNOWN_COLLATION.error(name=target.sql(dialect="mysql")[:64])
        if isinstance(node, exp.Collate):
            node.set("expression", _identifier(name))
        else:
            # the data dictionary keeps the name the user declared (engine/dictionary/declare.py)
            node.meta["mysql_collation"] = name.lower()
            node.set("this", _identifier(name))
    return expression
