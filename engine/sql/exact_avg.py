"""AVG over exact numbers as MySQL computes it: AVG of a DECIMAL(p, s) or an integer is a
DECIMAL(p + 4, s + 4) (MySQL 8.0 manual 14.19.1: div_precision_increment = 4 more digits of
scale), rounded half away from zero; DuckDB's AVG answers a DOUBLE (Django then reads
``Decimal('617283950.054999947…')`` where MySQL sends ``617283950.0550000``).

The argument's type is known only once DuckDB binds it, so :func:`rewrite` asks: one DESCRIBE
of ``SELECT <the AVG arguments> FROM <the same FROM and joins>`` per SELECT that holds an AVG
(binding only, no rows read; its caller verifies the probe like any statement). An AVG of an
exact type becomes integer arithmetic on the SUM's unscaled value (HUGEINT) and the COUNT;
every other AVG (DOUBLE, FLOAT, or one the probe could not type) is left to DuckDB unchanged.
SUM needs nothing: DuckDB's SUM of a DECIMAL(p, s) keeps scale s as MySQL's does.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

import sqlglot
from sqlglot import exp

# DuckDB integer type → the digits MySQL counts for the matching integer column
_INTEGER_DIGITS = {
    "TINYINT": 3,
    "UTINYINT": 3,
    "SMALLINT": 5,
    "USMALLINT": 5,
    "INTEGER": 10,
    "UINTEGER": 10,
    "BIGINT": 19,
    "UBIGINT": 20,
    "HUGEINT": 34,
    "UHUGEINT": 34,
}
_DECIMAL = re.compile(r"DECIMAL\((\d+),\s*(\d+)\)")
_MAX_WIDTH = 38  # DuckDB's widest DECIMAL (MySQL's is 65)
INCREMENT = 4  # MySQL's div_precision_increment default

# __t: the average truncated to scale k + 1 as an integer (HUGEINT // truncates toward zero, so
# its last digit tells whether the rest is at least half a unit); DuckDB's round of a DECIMAL
# rounds half away from zero, as MySQL. SUM and COUNT each appear once: DuckDB computes an
# aggregate once per occurrence.
_EXACT = "CAST(round(CAST(__t AS DECIMAL(38, 0)) * {unit}, {scale}) AS DECIMAL({width}, {scale}))"

Probe = Callable[[exp.Select], list[str] | None]


def exact_type(duck_type: str) -> tuple[int, int] | None:
    """(precision, scale) of an exact numeric DuckDB type, else None."""
    t = duck_type.upper().strip()
    if t in _INTEGER_DIGITS:
        return _INTEGER_DIGITS[t], 0
    match = _DECIMAL.fullmatch(t)
    return (int(match[1]), int(match[2])) if match else None


@functools.cache
def _template(width: int, scale: int) -> exp.Expr:
    unit = "0." + "0" * scale + "1"  # 10^-(scale + 1)
    return sqlglot.parse_one(_EXACT.format(unit=unit, width=width, scale=scale), read="duckdb")


def _aggregate(kind: type[exp.Expr], avg: exp.Avg) -> exp.Expr:
    """SUM/COUNT of ``avg``'s argument (DISTINCT kept), in ``avg``'s window if it has one."""
    node: exp.Expr = kind(this=avg.this.copy())
    window = avg.parent
    if isinstance(window, exp.Window) and window.this is avg:
        framed = window.copy()
        framed.set("this", node)
        return framed
    return node


def exact(avg: exp.Avg, precision: int, scale: int) -> exp.Expr | None:
    """``avg`` of an argument of DECIMAL(precision, scale) as MySQL's exact AVG."""
    width, result_scale = min(_MAX_WIDTH, precision + INCREMENT), scale + INCREMENT
    if result_scale > width or result_scale + 1 > _MAX_WIDTH:
        return None
    total = _aggregate(exp.Sum, avg)
    unscaled = exp.cast(
        exp.Mul(this=total, expression=exp.Literal.number(10**scale)) if scale else total,
        "HUGEINT",
    )
    truncated = exp.IntDiv(
        this=exp.Mul(
            this=exp.Paren(this=unscaled), expression=exp.Literal.number(10 ** (INCREMENT + 1))
        ),
        expression=exp.Nullif(this=_aggregate(exp.Count, avg), expression=exp.Literal.number(0)),
    )
    values = {"__t": exp.Paren(this=truncated)}
    node = _template(width, result_scale).copy()
    for column in list(node.find_all(exp.Column)):
        if column.name in values:
            column.replace(values[column.name].copy())
    return node


def _probe_for(select: exp.Select, avgs: list[exp.Avg]) -> exp.Select:
    """``SELECT <each AVG's argument> FROM <select's FROM and joins>``, with the CTEs in
    scope."""
    arguments = [
        a.this.expressions[0] if isinstance(a.this, exp.Distinct) else a.this for a in avgs
    ]
    return probe_select(select, arguments, "__drydock_avg")


def probe_select(
    select: exp.Select, values: list[exp.Expr], label: str, grouped: bool = False
) -> exp.Select:
    """``SELECT <values> FROM <select's FROM and joins>`` (and its GROUP BY when ``grouped``),
    with the CTEs in scope: binding it types ``values`` as ``select`` would."""
    probe = exp.Select(
        expressions=[exp.alias_(value.copy(), f"{label}{i}") for i, value in enumerate(values)]
    )
    for key in ("from_", "joins", "group") if grouped else ("from_", "joins"):
        if select.args.get(key):
            probe.set(
                key,
                select.args[key].copy() if key != "joins" else [j.copy() for j in select.args[key]],
            )
    ancestor: exp.Expr | None = select
    ctes: list[exp.Expr] = []
    while ancestor is not None:
        with_ = ancestor.args.get("with_")
        if with_ is not None:
            ctes = [c.copy() for c in with_.expressions] + ctes
        ancestor = ancestor.parent
    if ctes:
        probe.set("with_", exp.With(expressions=ctes))
    return probe


def rewrite(expression: exp.Expr, probe: Probe) -> None:
    """Every AVG of an exact argument in ``expression`` made MySQL's exact AVG, in place.
    ``probe`` answers the DuckDB type names of a probe SELECT's columns (None: unknown)."""
    by_select: dict[int, tuple[exp.Select, list[exp.Avg]]] = {}
    for avg in expression.find_all(exp.Avg):
        select = avg.find_ancestor(exp.Select)
        if select is None or isinstance(avg.parent, exp.Filter):
            continue
        if isinstance(avg.this, exp.Distinct) and len(avg.this.expressions) != 1:
            continue
        by_select.setdefault(id(select), (select, []))[1].append(avg)
    # innermost SELECTs first (find_all walks outer ones first): an outer AVG's probe then
    # binds the inner AVG already exact, as MySQL types AVG(x) of a derived table's AVG.
    for select, avgs in reversed(list(by_select.values())):
        types = probe(_probe_for(select, avgs))
        if types is None or len(types) != len(avgs):
            continue
        for avg, duck_type in zip(avgs, types):
            typed = exact_type(duck_type)
            replacement = exact(avg, *typed) if typed else None
            if replacement is not None:
                window = avg.parent
                target = window if isinstance(window, exp.Window) and window.this is avg else avg
                target.replace(replacement)
