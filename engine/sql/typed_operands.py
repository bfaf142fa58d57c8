"""Arithmetic MySQL types by its operands' types, where the client's tree does not tell them (a
column): a DATE plus an interval of date units is a DATE (engine/sql/date_arithmetic.py; DuckDB
answers a TIMESTAMP), and ``/`` of exact numbers is MySQL's DECIMAL division
(engine/sql/exact_division.py; DuckDB answers a DOUBLE).

As for AVG (engine/sql/exact_avg.py), the operand types are asked of DuckDB once per SELECT
that holds such arithmetic: one DESCRIBE of ``SELECT <the operands> FROM <the same FROM and
joins>`` (binding only, no rows read). An operand the probe cannot type leaves DuckDB's answer.
"""

from __future__ import annotations

from sqlglot import exp

from drydock.engine.sql import date_arithmetic, exact_division
from drydock.engine.sql.exact_avg import Probe, exact_type, probe_select

_WIDTH = 38  # DuckDB's widest DECIMAL


def _date_candidates(expression: exp.Expr) -> list[tuple[exp.Expr, exp.Expr]]:
    """(arithmetic, its date operand) not yet known to be a DATE."""
    found: list[tuple[exp.Expr, exp.Expr]] = []
    for node in expression.find_all(*date_arithmetic.ARITHMETIC):
        operand = date_arithmetic.date_operand(node)
        parent = node.parent
        decided = isinstance(parent, exp.Cast) and parent.to.is_type(exp.DataType.Type.DATE)
        if operand is not None and not decided:
            found.append((node, operand))
    return found


_CHAIN = (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Paren, exp.Neg)
_OPERATORS = (exp.Add, exp.Sub, exp.Mul, exp.Div)
_SAFE_DIGITS = 20  # an exact leaf of at most this many digits cannot overflow the HUGEINT math
_HUGEINT_DIGITS = 20  # SUM of integers is a HUGEINT in DuckDB; read as MySQL's SUM (≤ 20 digits)


def _division_leaves(expression: exp.Expr) -> list[exp.Expr]:
    """The operands (leaves) of each arithmetic holding a ``/`` the tree alone left to DuckDB,
    whose types the tree does not tell: their types decide whether it is exact."""
    roots: dict[int, exp.Expr] = {}
    for node in expression.find_all(exp.Div):
        if exact_division.scale_of(node) is not None or node.find_ancestor(*exact_division.STORED):
            continue
        root: exp.Expr = node
        while isinstance(root.parent, _CHAIN):
            root = root.parent
        roots.setdefault(id(root), root)
    leaves: list[exp.Expr] = []
    for tree in roots.values():
        stack: list[exp.Expr] = [tree]
        while stack:
            leaf = stack.pop()
            if isinstance(leaf, _OPERATORS):
                stack += [leaf.this, leaf.expression]
            elif isinstance(leaf, (exp.Paren, exp.Neg)):
                stack.append(leaf.this)
            elif exact_division.scale_of(leaf) is None and not _approximate(leaf):
                leaves.append(leaf)
    return leaves


def _approximate(node: exp.Expr) -> bool:
    """Known from the tree to be no exact number (a string, an `e` literal, a DOUBLE cast)."""
    if isinstance(node, (exp.Paren, exp.Neg)):
        return _approximate(node.this)
    if isinstance(node, exp.Literal):
        return node.is_string or exact_division.scale_of(node) is None
    if isinstance(node, exp.Cast):
        return exact_division.scale_of(node) is None
    return False


def wanted(expression: exp.Expr) -> bool:
    """Whether ``expression`` holds arithmetic whose type only its operands' types decide."""
    return bool(_date_candidates(expression) or _division_leaves(expression))


def _exact_scale(duck_type: str) -> int | None:
    """The scale of an exact leaf of this DuckDB type the exact division can take, else None."""
    if duck_type in ("HUGEINT", "UHUGEINT"):
        return 0 if _HUGEINT_DIGITS <= _SAFE_DIGITS else None
    typed = exact_type(duck_type)
    if typed is None or typed[0] > _SAFE_DIGITS:
        return None
    return typed[1]


def rewrite(expression: exp.Expr, probe: Probe) -> None:
    """The arithmetic of the module docstring typed as MySQL's, in place."""
    by_select: dict[int, tuple[exp.Select, list[exp.Expr]]] = {}
    dates = _date_candidates(expression)
    leaves = _division_leaves(expression)
    for node in [operand for _, operand in dates] + leaves:
        select = node.find_ancestor(exp.Select)
        if select is not None:
            by_select.setdefault(id(select), (select, []))[1].append(node)
    types: dict[int, str] = {}
    for select, operands in reversed(list(by_select.values())):
        found = probe(probe_select(select, operands, "__drydock_operand", grouped=True))
        if found is not None and len(found) == len(operands):
            types.update((id(o), t.upper()) for o, t in zip(operands, found))
    for node, operand in dates:
        if types.get(id(operand)) == "DATE":
            wrapper = exp.Cast(to=exp.DataType.build("DATE"))
            node.replace(wrapper)
            wrapper.set("this", node)
    exact = False
    for leaf in leaves:  # typed in the tree, so the exact division reads their scales
        scale = _exact_scale(types.get(id(leaf), ""))
        if scale is not None:
            leaf.replace(exp.cast(leaf.copy(), f"DECIMAL({_WIDTH}, {scale})", dialect="duckdb"))
            exact = True
    if exact:
        exact_division.rewrite(expression)
