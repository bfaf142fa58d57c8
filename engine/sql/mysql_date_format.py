"""DATE_FORMAT's %D and week specifiers, TIME_FORMAT, and STR_TO_DATE's %X%V %W (MySQL 8.0
manual 12.7), which strftime / strptime cannot handle: a constant format is cut at those
specifiers; strftime prints the pieces between and drydock's macros
(engine/sql/mysql_functions.py) the rest."""

from __future__ import annotations

import re
from typing import Any

import sqlglot
from sqlglot import exp

from drydock.engine.errors import Errors
from drydock.engine.sql import mysql_datetime
from drydock.engine.sql.sql_templates import instantiate


def ordinal_days(node: exp.TimeToStr) -> exp.Expr | None:
    """DATE_FORMAT with %D (strftime has none): the format cut at each %D, the pieces formatted
    by strftime and the day with its suffix put between them; None when there is no %D."""
    fmt = node.args.get("format")
    if not (isinstance(fmt, exp.Literal) and fmt.is_string):
        return None
    computed = {"%D": "mysql_is.main.mysql_ordinal_day(day({0}))", **mysql_datetime.WEEK_SPECIFIERS}
    pieces = _split_tokens(fmt.name, tuple(computed))
    if not any(piece in computed for piece in pieces):
        return None
    value = node.this
    parts = [
        instantiate(computed[piece], [value])
        if piece in computed
        else exp.TimeToStr(this=value.copy(), format=exp.Literal.string(piece))
        for piece in pieces
    ]
    joined = parts[0]
    for part in parts[1:]:
        joined = exp.DPipe(this=joined, expression=part, safe=True)
    return joined


def time_format(args: list[exp.Expr]) -> exp.Expr:
    """TIME_FORMAT(t, fmt) (MySQL 12.7): DATE_FORMAT's clock specifiers on a TIME, whose hours may
    exceed 23 (%H and %k then print them all; the 12-hour ones print them modulo 12) and whose
    sign leads. The constant format is cut at %H/%k; each piece between is DATE_FORMAT of the
    clock part, so sqlglot's own MySQL→strftime translation handles every other specifier."""
    if len(args) != 2:
        raise Errors.WRONG_ARGUMENTS.error(where="TIME_FORMAT")
    fmt = args[1]
    if not (isinstance(fmt, exp.Literal) and fmt.is_string):
        raise Errors.NOT_SUPPORTED.error(
            what="TIME_FORMAT with a format that is not a constant string"
        )
    secs = instantiate("mysql_is.main.mysql_time_secs({0})", args[:1])
    pieces: list[exp.Expr] = [instantiate("CASE WHEN {0} < 0 THEN '-' ELSE '' END", [secs])]
    for piece in _split_tokens(fmt.name, ("%H", "%k")):
        if piece in ("%H", "%k"):
            pieces.append(
                instantiate(
                    "mysql_is.main.mysql_time_hours({0})"
                    if piece == "%H"
                    else "CAST(CAST(floor(abs({0}) / 3600) AS BIGINT) AS VARCHAR)",
                    [secs],
                )
            )
            continue
        formatted: Any = sqlglot.parse_one(
            f"DATE_FORMAT(x, {exp.Literal.string(piece).sql(dialect='mysql')})", read="mysql"
        )
        formatted.set("this", instantiate("mysql_is.main.mysql_time_clock({0})", [secs]))
        pieces.append(formatted)
    joined = pieces[0]
    for piece_node in pieces[1:]:
        joined = exp.DPipe(this=joined, expression=piece_node, safe=True)
    # NULL in, NULL out (|| on a NULL piece already gives NULL; the sign piece is never NULL)
    return instantiate("CASE WHEN {0} IS NULL THEN NULL ELSE {1} END", [secs, joined])


def _split_tokens(fmt: str, cut: tuple[str, ...]) -> list[str]:
    """``fmt`` cut into the specifiers ``cut`` and the runs between them ('%%' stays in a run)."""
    pieces: list[str] = []
    run, i = "", 0
    while i < len(fmt):
        token = fmt[i : i + 2] if fmt[i] == "%" else fmt[i]
        if token in cut:
            if run:
                pieces.append(run)
            pieces.append(token)
            run = ""
        else:
            run += token
        i += len(token)
    if run:
        pieces.append(run)
    return pieces


# STR_TO_DATE's year-of-week specifiers after sqlglot's MySQL→strftime translation (%W → %A)
_YEARWEEK_TOKENS = {"%X": r"([0-9]{4})", "%V": r"([0-9]{1,2})", "%A": r"([A-Za-z]+)"}


def str_to_yearweek(node: exp.Expr) -> exp.Expr | None:
    """STR_TO_DATE(s, '%X%V %W') (Metabase's week grain): strptime has no %X/%V of MySQL's
    meaning, so the three fields are cut out by a regular expression built from the constant
    format and the day is computed (macro mysql_yearweek_day)."""
    fmt = node.args.get("format")
    if not (isinstance(fmt, exp.Literal) and fmt.is_string and "%X" in fmt.name):
        return None
    pattern, order, i = "", [], 0
    text = fmt.name
    while i < len(text):
        token = text[i : i + 2] if text[i] == "%" else text[i]
        if token in _YEARWEEK_TOKENS and token not in order:
            pattern += _YEARWEEK_TOKENS[token]
            order.append(token)
        elif token.startswith("%") and token != "%%":
            raise Errors.NOT_SUPPORTED.error(what=f"STR_TO_DATE with %X and {token[:8]}")
        else:
            pattern += re.escape(token[-1])
        i += len(token)
    if sorted(order) != sorted(_YEARWEEK_TOKENS):
        raise Errors.NOT_SUPPORTED.error(what="STR_TO_DATE with %X but not all of %X, %V and %W")
    fields = [
        instantiate(
            "regexp_extract(CAST({0} AS VARCHAR), {1}, {2})",
            [
                node.this,
                exp.Literal.string("^" + pattern + "$"),
                exp.Literal.number(order.index(t) + 1),
            ],
        )
        for t in ("%X", "%V", "%A")
    ]
    day = instantiate(
        "mysql_is.main.mysql_yearweek_day(TRY_CAST(NULLIF({0}, '') AS INTEGER), "
        "TRY_CAST(NULLIF({1}, '') AS INTEGER), {2})",
        fields,
    )
    return day if isinstance(node, exp.StrToDate) else instantiate("CAST({0} AS TIMESTAMP)", [day])
