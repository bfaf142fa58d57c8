"""A CHECK condition as MySQL 8.0 prints it (information_schema.CHECK_CONSTRAINTS.CHECK_CLAUSE,
SHOW CREATE TABLE): every operator in parentheses, identifiers backticked, keywords in lower case,
string literals with their character set introducer — ``CHECK (c > 0 AND s <> 'x')`` becomes
``((`c` > 0) and (`s` <> _utf8mb4'x'))``. Forms this does not know are printed by sqlglot.
"""

from __future__ import annotations

from sqlglot import exp, parse_one
from sqlglot.errors import ParseError

_BINARY: dict[type[exp.Expr], str] = {
    exp.GT: ">",
    exp.GTE: ">=",
    exp.LT: "<",
    exp.LTE: "<=",
    exp.EQ: "=",
    exp.NEQ: "<>",
    exp.NullSafeEQ: "<=>",
    exp.Add: "+",
    exp.Sub: "-",
    exp.Mul: "*",
    exp.Div: "/",
    exp.Mod: "%",
    exp.And: "and",
    exp.Or: "or",
    exp.Like: "like",
}


def check_clause(expression: str) -> str:
    try:
        node = parse_one(expression, read="mysql")
    except ParseError:
        return f"({expression})"
    text = _print(node)
    return text if text.startswith("(") and text.endswith(")") else f"({text})"


def _print(node: exp.Expr) -> str:
    if isinstance(node, exp.Paren):
        return _print(node.this)
    op = _BINARY.get(type(node))
    if op is not None:
        return f"({_print(node.this)} {op} {_print(node.expression)})"
    if isinstance(node, exp.Not) and isinstance(node.this, (exp.Is, exp.In, exp.Like)):
        return (
            _print(node.this)
            .replace(" is ", " is not ", 1)
            .replace(" in (", " not in (", 1)
            .replace(" like ", " not like ", 1)
        )
    if isinstance(node, exp.Not):
        return f"(not({_print(node.this)}))"
    if isinstance(node, exp.Column):
        return ".".join(f"`{p.name}`" for p in node.parts)
    if isinstance(node, exp.Literal):
        return f"_utf8mb4'{_escape(node.name)}'" if node.is_string else node.name
    if isinstance(node, exp.Null):
        return "NULL"
    if isinstance(node, exp.Boolean):
        return "true" if node.this else "false"
    if isinstance(node, exp.Neg):
        inner = node.this
        return f"-{inner.name}" if isinstance(inner, exp.Literal) else f"-({_print(inner)})"
    if isinstance(node, exp.In) and not node.args.get("query"):
        members = ",".join(_print(e) for e in node.expressions)
        return f"({_print(node.this)} in ({members}))"
    if isinstance(node, exp.Between):
        return (
            f"({_print(node.this)} between {_print(node.args['low'])} "
            f"and {_print(node.args['high'])})"
        )
    if isinstance(node, exp.Is):
        target = node.expression
        word = "null" if isinstance(target, exp.Null) else _print(target)
        return f"({_print(node.this)} is {word})"
    if isinstance(node, exp.Func) and not isinstance(node, exp.Cast):
        arguments = [a for a in node.args.values() if isinstance(a, exp.Expr)]
        arguments += [e for a in node.args.values() if isinstance(a, list) for e in a]
        name = node.sql_name() if not isinstance(node, exp.Anonymous) else node.name
        return f"{name.lower()}({','.join(_print(a) for a in arguments)})"
    return node.sql(dialect="mysql", identify=True)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("'", "\\'")
