"""MySQL function semantics on DuckDB: MySQL's functions rewritten on the sqlglot AST.

DuckDB has functions of the same names that answer differently (DAYOFWEEK counts from 0, WEEK is
ISO only, NOW() carries microseconds) and lacks others (UNIX_TIMESTAMP, MAKEDATE, …). Every call
drydock gives MySQL's meaning is replaced, before authorization, by a DuckDB expression built from
a fixed template (:data:`_TEMPLATES`); the longer ones call macros that :func:`install` creates in
drydock's own attached ``mysql_is`` database at start-up.

Why this keeps the privilege walk exact: a template is DuckDB SQL written here, its arguments are
the user's own sub-trees moved (never re-parsed as text), and the result is walked by
engine/sql/sql_relations.py like any other statement. The macros read no table and call no denied
function, and SQL can never create or replace a macro (engine/statements/sql.py runs CREATE only
for databases, tables and views), so a macro cannot become a way to reach anything.

MySQL's manual is the specification; tests/support/mysql_functions_corpus.py pins each function with
the manual's own examples.
"""

from __future__ import annotations

import re
from typing import Any

import duckdb
from sqlglot import exp

from drydock.engine.errors import Errors
from drydock.engine.sql import (
    date_arithmetic,
    exact_division,
    mysql_casts,
    mysql_date_format,
    mysql_datetime,
    mysql_json,
    mysql_json_calls,
    mysql_numeric,
    runtime_warnings,
    string_numbers,
)
from drydock.engine.sql.runtime_warnings import Collector
from drydock.engine.sql.sql_templates import TS, instantiate, template


MACRO_SCHEMA = "mysql_is.main"

# MySQL 8.0 manual 12.7, WEEK(): the mode's three behaviour bits, as sql/sql_time.cc computes
# them (week_mode): 1 = Monday first, 2 = week numbers 1-53 carried over years, 4 = week 1 is the
# first week with the first day of the week in it (else: with 4 or more days of the year).
_MACROS = {
    "mysql_week_bits": "(m) AS (CASE WHEN m & 1 = 0 THEN xor(m & 7, 4) ELSE m & 7 END)",
    # calc_week() in steps, innermost first (a macro must exist before one that calls it;
    # each names one intermediate value): d a DATE; fw: week 1 is the
    # first week with the first weekday; wy: weeks carry over years; wd: weekday of `first`.
    "mysql_cw4": """(fw, wy, yr, first, wd, days) AS (CASE
        WHEN wy AND days >= 52 * 7
             AND ((NOT fw AND (wd + (make_date(yr + 1, 1, 1) - first)) % 7 < 4)
                  OR (fw AND (wd + (make_date(yr + 1, 1, 1) - first)) % 7 = 0))
            THEN {'y': yr + 1, 'w': 1}
        ELSE {'y': yr, 'w': days // 7 + 1} END)""",
    "mysql_cw3": """(d, fw, wy, yr, first, wd) AS (mysql_is.main.mysql_cw4(fw, wy, yr, first, wd,
        CASE WHEN (fw AND wd <> 0) OR (NOT fw AND wd >= 4) THEN (d - first) - (7 - wd)
             ELSE (d - first) + wd END))""",
    "mysql_cw2": """(d, fw, wy, wd0) AS (CASE
        WHEN month(d) = 1 AND day(d) <= 7 - wd0 AND NOT wy AND ((fw AND wd0 <> 0) OR (NOT fw AND wd0
            >= 4))
            THEN {'y': year(d), 'w': 0}
        WHEN month(d) = 1 AND day(d) <= 7 - wd0
            THEN mysql_is.main.mysql_cw3(d, fw, true, year(d) - 1, make_date(year(d) - 1, 1, 1),
                 (wd0 + 53 * 7 - (make_date(year(d), 1, 1) - make_date(year(d) - 1, 1, 1))) % 7)
        ELSE mysql_is.main.mysql_cw3(d, fw, wy, year(d), make_date(year(d), 1, 1), wd0) END)""",
    "mysql_cw1": """(d, monday, wy, fw) AS (mysql_is.main.mysql_cw2(d, fw, wy,
        CASE WHEN monday THEN isodow(make_date(year(d), 1, 1)) - 1
             ELSE dayofweek(make_date(year(d), 1, 1)) END))""",
    "mysql_calc_week": "(d, b) AS (mysql_is.main.mysql_cw1(d, b & 1 = 1, b & 2 = 2, b & 4 = 4))",
    "mysql_week": "(d, m) AS (mysql_is.main.mysql_calc_week(d, "
    "mysql_is.main.mysql_week_bits(m)).w)",
    "mysql_yw": "(r) AS (r.y * 100 + r.w)",
    "mysql_yearweek": """(d, m) AS (mysql_is.main.mysql_yw(
        mysql_is.main.mysql_calc_week(d, mysql_is.main.mysql_week_bits(m) | 2)))""",
    # MySQL 12.7 CONVERT_TZ(): '+hh:mm' offsets or named zones; NULL for a zone it cannot read.
    "mysql_tz_minutes": """(z) AS (CASE
        WHEN regexp_full_match(z, '[+-][0-9]{1,2}:[0-9]{2}')
            THEN (CASE WHEN z[1] = '-' THEN -1 ELSE 1 END)
                 * (TRY_CAST(split_part(z[2:], ':', 1) AS INTEGER) * 60
                    + TRY_CAST(split_part(z, ':', 2) AS INTEGER))
        END)""",
    "mysql_to_utc": """(ts, z) AS (CASE
        WHEN upper(z) = 'SYSTEM' THEN ts
        WHEN mysql_is.main.mysql_tz_minutes(z) IS NOT NULL
            THEN ts - to_minutes(mysql_is.main.mysql_tz_minutes(z))
        ELSE timezone('UTC', timezone(z, ts)) END)""",
    "mysql_convert_tz": """(ts, f, t) AS (CASE
        WHEN upper(t) = 'SYSTEM' THEN mysql_is.main.mysql_to_utc(ts, f)
        WHEN mysql_is.main.mysql_tz_minutes(t) IS NOT NULL
            THEN mysql_is.main.mysql_to_utc(ts, f) + to_minutes(mysql_is.main.mysql_tz_minutes(t))
        ELSE timezone(t, timezone('UTC', mysql_is.main.mysql_to_utc(ts, f))) END)""",
    # MySQL 12.8 SUBSTRING_INDEX(): before the n-th delimiter (n > 0) or after the n-th from the
    # right (n < 0); matching is case-sensitive.
    "mysql_substring_index": """(s, d, n) AS (CASE
        WHEN s IS NULL OR d IS NULL OR n IS NULL THEN NULL
        WHEN n = 0 OR d = '' THEN ''
        WHEN n > 0 THEN array_to_string(string_split(s, d)[1:n], d)
        ELSE array_to_string(string_split(s, d)[greatest(len(string_split(s, d)) + n + 1, 1):], d)
        END)""",
    # MySQL 12.7 MAKEDATE(): day-of-year > 0, else NULL.
    "mysql_makedate": "(y, n) AS (CASE WHEN n > 0 THEN make_date(CAST(y AS BIGINT), 1, 1) + CAST(n "
    "AS INTEGER) - 1 END)",
    # MySQL 11.2.3 TIME values: seconds of a TIME-like value ('100:00:00', '-01:30:00', a TIME,
    # a DATETIME's clock), which may exceed 24 hours or be negative. DuckDB reads '-01:30:00' as
    # -1 h + 30 min, so a leading sign is taken off the text first.
    "mysql_time_secs1": """(x) AS (COALESCE(epoch(TRY_CAST(x AS INTERVAL)),
        epoch(TRY_CAST(x AS TIME)),
        epoch(TRY_CAST(TRY_CAST(x AS TIMESTAMP) AS TIME))))""",
    "mysql_time_secs": """(x) AS (CASE
        WHEN starts_with(TRY_CAST(x AS VARCHAR), '-') AND TRY_CAST(x AS TIMESTAMP) IS NULL
            THEN -mysql_is.main.mysql_time_secs1(ltrim(TRY_CAST(x AS VARCHAR), '-'))
        ELSE mysql_is.main.mysql_time_secs1(x) END)""",
    # the clock part (00:00:00-23:59:59) of a TIME of s seconds, as a TIMESTAMP on 1970-01-01
    "mysql_time_clock": "(s) AS (make_timestamp(CAST(round(abs(s) * 1000000) AS BIGINT) % "
    "86400000000))",
    # hours of a TIME of s seconds, at least two digits, as MySQL prints them (%H, TIME text)
    "mysql_time_hours": """(s) AS (CASE WHEN abs(s) < 36000 THEN '0' ELSE '' END
        || CAST(CAST(floor(abs(s) / 3600) AS BIGINT) AS VARCHAR))""",
    # a TIME of s seconds as MySQL's text: [-]hh:mm:ss[.ffffff] (hours may exceed 23)
    "mysql_time_text": """(s) AS (CASE WHEN s < 0 THEN '-' ELSE '' END
        || mysql_is.main.mysql_time_hours(s) || strftime(mysql_is.main.mysql_time_clock(s),
            ':%M:%S')
        || CASE WHEN CAST(round(abs(s) * 1000000) AS BIGINT) % 1000000 <> 0
                THEN '.' || lpad(CAST(CAST(round(abs(s) * 1000000) AS BIGINT) % 1000000 AS VARCHAR),
                    6, '0')
                ELSE '' END)""",
    # MySQL 12.7 TIMEDIFF(a, b): a - b as TIME text; two DATETIMEs or two TIMEs.
    "mysql_timediff": """(a, b) AS (mysql_is.main.mysql_time_text(COALESCE(
        (epoch_us(TRY_CAST(a AS TIMESTAMP)) - epoch_us(TRY_CAST(b AS TIMESTAMP))) / 1000000,
        mysql_is.main.mysql_time_secs(a) - mysql_is.main.mysql_time_secs(b))))""",
    # MySQL 12.7 DATE_FORMAT %D: day of the month with an English suffix (0th, 1st, 2nd, 3rd, …)
    "mysql_ordinal_day": """(d) AS (CAST(d AS VARCHAR) || CASE
        WHEN d % 100 IN (11, 12, 13) THEN 'th' WHEN d % 10 = 1 THEN 'st'
        WHEN d % 10 = 2 THEN 'nd' WHEN d % 10 = 3 THEN 'rd' ELSE 'th' END)""",
    # MySQL 12.7 STR_TO_DATE with %X%V %W: day W of week V of year X, weeks starting on Sunday,
    # week 1 the first with a Sunday in X (WEEK() mode 2); NULL for a name that is no weekday.
    "mysql_yearweek_day": """(y, w, name) AS (make_date(CAST(y AS BIGINT), 1, 1)
        + CAST((7 - dayofweek(make_date(CAST(y AS BIGINT), 1, 1))) % 7 AS INTEGER)
        + CAST(7 * (CAST(w AS INTEGER) - 1) AS INTEGER)
        + CAST(list_position(['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday',
            'saturday'], lower(name)) - 1 AS INTEGER))""",
}


def install(con: duckdb.DuckDBPyConnection) -> None:
    """(Re)create the macros in drydock's attached ``mysql_is`` database. Idempotent."""
    macros = [*_MACROS.items(), *mysql_datetime.MACROS.items(), *mysql_casts.MACROS.items()]
    for name, body in macros:  # callees first
        con.execute(f"CREATE OR REPLACE MACRO {MACRO_SCHEMA}.{name}{body}")
    mysql_json.install(con)
    mysql_json_calls.install(con)
    mysql_numeric.install(con)
    runtime_warnings.install(con)


_TS = TS
_DATE = "TRY_CAST({0} AS DATE)"

# MySQL function (upper-case) → DuckDB template with {0}, {1}, … for the arguments, by arity.
_TEMPLATES: dict[str, dict[int, str]] = {
    "DAYOFWEEK": {1: f"(dayofweek({_TS}) + 1)"},  # 1 = Sunday … 7 = Saturday
    "WEEKDAY": {1: f"(isodow({_TS}) - 1)"},  # 0 = Monday … 6 = Sunday
    "WEEK": {
        1: f"mysql_is.main.mysql_week({_DATE}, 0)",
        2: f"mysql_is.main.mysql_week({_DATE}, {{1}})",
    },
    "YEARWEEK": {
        1: f"mysql_is.main.mysql_yearweek({_DATE}, 0)",
        2: f"mysql_is.main.mysql_yearweek({_DATE}, {{1}})",
    },
    "CONVERT_TZ": {3: "mysql_is.main.mysql_convert_tz(TRY_CAST({0} AS TIMESTAMP), {1}, {2})"},
    "SUBSTRING_INDEX": {
        3: "mysql_is.main.mysql_substring_index(CAST({0} AS VARCHAR), CAST({1} AS VARCHAR), {2})"
    },
    "MAKEDATE": {2: "mysql_is.main.mysql_makedate({0}, {1})"},
    "TIMEDIFF": {2: "mysql_is.main.mysql_timediff({0}, {1})"},
    # seconds since the epoch, in the session time zone (UTC): an integer, as MySQL for DATETIME
    # values without fractions (Grafana's $__timeGroup divides it)
    "UNIX_TIMESTAMP": {0: "(epoch_us(now()) // 1000000)", 1: f"(epoch_us({_TS}) // 1000000)"},
    "FROM_UNIXTIME": {1: "make_timestamp(CAST(round(CAST({0} AS DOUBLE) * 1000000) AS BIGINT))"},
    # 12.7 SEC_TO_TIME(): a TIME, clamped to MySQL's range (±838:59:59); a DuckDB INTERVAL,
    # which the wire sends as TIME (server/results.py)
    "SEC_TO_TIME": {
        1: "to_microseconds(CAST(round(mysql_is.main.mysql_clamp(CAST({0} AS DOUBLE), -3020399, "
        "3020399) * 1000000) AS BIGINT))"
    },
    # MySQL counts days from year 0, which its calendar does not make a leap year (12.7 TO_DAYS)
    "FROM_DAYS": {1: "CAST(DATE '0001-01-01' + CAST({0} - 366 AS INTEGER) AS DATE)"},
    **mysql_datetime.TEMPLATES,
    "CONV": {3: f"{mysql_numeric.CONV}(CAST({{0}} AS VARCHAR), {{1}}, {{2}})"},
}

# sqlglot's nodes for MySQL date functions whose argument DuckDB needs typed: a string such as
# '2007-02-03' is read as MySQL reads it (a DATETIME, or a TIME for the clock functions).
_DATETIME_ARGUMENT = (exp.Dayname, exp.Quarter, exp.LastDay)
_CLOCK_ARGUMENT = (exp.Hour, exp.Minute, exp.Second)
_CLOCK = "COALESCE(TRY_CAST({0} AS TIME), CAST(TRY_CAST({0} AS TIMESTAMP) AS TIME))"
# TIMESTAMPDIFF counts complete units (12.7), as DuckDB's date_sub does (date_diff counts edges).
_UNITS = {
    "MICROSECOND": "microseconds",
    "SECOND": "second",
    "MINUTE": "minute",
    "HOUR": "hour",
    "DAY": "day",
    "WEEK": "week",
    "MONTH": "month",
    "QUARTER": "quarter",
    "YEAR": "year",
}

# MySQL's current-time functions take an optional fractional-seconds precision (0-6, default 0).
_NOW_FUNCTIONS = {"NOW", "SYSDATE", "LOCALTIME", "LOCALTIMESTAMP", "CURRENT_TIMESTAMP"}
_NOW_TEMPLATE = "make_timestamp(epoch_us(now()) // {k} * {k})"


def _present(*args: Any) -> list[exp.Expr]:
    """A call's arguments, all of them given (sqlglot leaves a missing one None)."""
    if any(a is None for a in args):
        raise Errors.WRONG_ARGUMENTS.error(where="a date or string function")
    return list(args)


def _name_and_args(node: exp.Expr) -> tuple[str, list[exp.Expr]] | None:
    """The MySQL name and arguments of a function call this module rewrites, else None."""
    if isinstance(node, exp.Anonymous):
        return str(node.name).upper(), list(node.expressions)
    if isinstance(node, exp.DayOfWeek) and not isinstance(node, exp.DayOfWeekIso):
        return "DAYOFWEEK", [node.this]
    if isinstance(node, exp.Week):
        return "WEEK", [a for a in (node.this, node.args.get("mode")) if a is not None]
    if isinstance(node, exp.UnixToTime):
        return (
            "FROM_UNIXTIME",
            [node.this] + ([node.args["format"]] if node.args.get("format") else []),
        )
    if isinstance(node, exp.ConvertTimezone):
        return "CONVERT_TZ", _present(
            node.args.get("timestamp"), node.args.get("source_tz"), node.args.get("target_tz")
        )
    if isinstance(node, exp.SubstringIndex):
        return "SUBSTRING_INDEX", _present(
            node.this, node.args.get("delimiter"), node.args.get("count")
        )
    if isinstance(node, exp.CurrentTimestamp):
        return "CURRENT_TIMESTAMP", [node.this] if node.this is not None else []
    if isinstance(node, (exp.Localtime, exp.Localtimestamp)):
        return "LOCALTIME", [node.this] if node.this is not None else []
    return None


def _now(name: str, args: list[exp.Expr]) -> exp.Expr:
    if len(args) > 1:
        raise Errors.WRONG_ARGUMENTS.error(where=name)
    precision = 0
    if args:
        if not (
            isinstance(args[0], exp.Literal) and not args[0].is_string and args[0].name.isdigit()
        ):
            raise Errors.PARSE.error(detail=f"line 1:0 {name}() takes a constant precision 0-6")
        precision = int(args[0].name)
        if precision > 6:  # MySQL 1426 ER_TOO_BIG_PRECISION
            raise Errors.WRONG_ARGUMENTS.error(
                where=f"{name}: precision {precision} is greater than 6"
            )
    return template(_NOW_TEMPLATE.format(k=10 ** (6 - precision))).copy()


def _from_unixtime_format(args: list[exp.Expr]) -> exp.Expr:
    """FROM_UNIXTIME(t, fmt) is DATE_FORMAT(FROM_UNIXTIME(t), fmt) (MySQL 12.7); sqlglot's MySQL
    parse has already translated a constant ``fmt`` to strftime's specifiers, as for DATE_FORMAT."""
    fmt = args[1]
    if not (isinstance(fmt, exp.Literal) and fmt.is_string):
        raise Errors.NOT_SUPPORTED.error(
            what="FROM_UNIXTIME with a format that is not a constant string"
        )
    formatted = exp.TimeToStr(
        this=instantiate(_TEMPLATES["FROM_UNIXTIME"][1], args[:1]), format=fmt.copy()
    )
    return mysql_date_format.ordinal_days(formatted) or formatted


def _json_search(name: str, args: list[exp.Expr]) -> exp.Expr:
    """JSON_CONTAINS(target, candidate[, path]) and JSON_CONTAINS_PATH(doc, 'one'|'all', path,
    …) as engine/sql/mysql_json.py's functions (MySQL's containment rules, not DuckDB's)."""
    if name == "JSON_CONTAINS":
        if len(args) not in (2, 3):
            raise Errors.WRONG_ARGUMENTS.error(where=name)
        path = args[2] if len(args) == 3 else exp.Literal.string("$")
        return instantiate(
            f"{mysql_json.CONTAINS}(CAST({{0}} AS VARCHAR), CAST({{1}} AS VARCHAR), "
            "CAST({2} AS VARCHAR))",
            [args[0], args[1], path],
        )
    if len(args) < 3:
        raise Errors.WRONG_ARGUMENTS.error(where=name)
    paths = exp.Array(expressions=[exp.cast(p.copy(), "VARCHAR") for p in args[2:]])
    return instantiate(
        f"{mysql_json.CONTAINS_PATH}(CAST({{0}} AS VARCHAR), CAST({{1}} AS VARCHAR), {{2}})",
        [args[0], args[1], paths],
    )


def _retype(node: exp.Expr) -> exp.Expr | None:
    """Typed sqlglot nodes whose arguments DuckDB must see as MySQL reads them."""
    if isinstance(node, _DATETIME_ARGUMENT) and isinstance(node.this, exp.Literal):
        node.set("this", instantiate(_TS, [node.this]))
    elif isinstance(node, _CLOCK_ARGUMENT) and isinstance(node.this, exp.Literal):
        node.set("this", instantiate(_CLOCK, [node.this]))
    elif (dated := _retype_datetime(node)) is not None:
        return dated
    elif isinstance(node, exp.TimestampDiff):
        unit = _UNITS.get(node.text("unit").upper())
        if unit is None:
            raise Errors.WRONG_ARGUMENTS.error(where=f"TIMESTAMPDIFF unit {node.text('unit')[:32]}")
        return instantiate(
            f"date_sub('{unit}', {_TS.format('{0}')}, {_TS.format('{1}')})",
            [node.expression, node.this],
        )
    elif isinstance(node, (exp.StrToDate, exp.StrToTime)):
        return mysql_date_format.str_to_yearweek(node)
    elif isinstance(node, exp.Cast) and node.to.is_type(exp.DataType.Type.TIME):
        return _long_time(node.this)
    elif isinstance(node, exp.TimeToStr):
        return mysql_date_format.ordinal_days(node)
    elif (
        isinstance(node, (exp.DateAdd, exp.DateSub))
        and isinstance(node.this, exp.Literal)
        and node.this.is_string
        and ":" in node.this.name
    ):
        # DATE_ADD('2024-01-01 10:00:00', …) keeps the time (sqlglot would cast the string to DATE)
        node.set("this", instantiate(_TS, [node.this]))
    elif isinstance(node, exp.DateDiff) and _is_year_zero(node.expression):
        # TO_DAYS(d), which sqlglot expands to DATEDIFF(d, '0000-01-01') + 1
        return instantiate(
            "(date_diff('day', DATE '0001-01-01', TRY_CAST({0} AS DATE)) + 365)", [node.this]
        )
    return None


def _retype_datetime(node: exp.Expr) -> exp.Expr | None:
    """The typed sqlglot nodes engine/sql/mysql_datetime.py gives MySQL's meaning."""
    if isinstance(node, exp.TimeFromParts):  # MAKETIME
        parts = [node.args.get(k) for k in ("hour", "min", "sec")]
        return instantiate(mysql_datetime.MAKETIME, _present(*parts))
    if type(node) is exp.Time:
        return instantiate(mysql_datetime.CLOCK, [node.this])
    if type(node) is exp.Timestamp and node.args.get("zone") is not None:
        return instantiate(mysql_datetime.TIMESTAMP_PLUS_TIME, [node.this, node.args["zone"]])
    if isinstance(node, exp.TimestampDiff):
        months = mysql_datetime.MONTH_UNITS.get(node.text("unit").upper())
        if months is None:
            return None
        return instantiate(
            mysql_datetime.MONTHS_DIFF,
            [node.expression, node.this, exp.Literal.number(months)],
        )
    if isinstance(node, exp.BitwiseCount):
        return instantiate(mysql_numeric.BIT_COUNT, [node.this])
    if isinstance(node, exp.Extract):
        template = mysql_datetime.compound_extract(node.this.name)
        if template is None:
            value = node.expression
            if isinstance(value, exp.Literal) and value.is_string:  # read as a DATETIME
                node.set("expression", instantiate(_TS, [value]))
            return None
        return instantiate(template.format(_TS), [node.expression])
    if isinstance(node, (exp.UtcTimestamp, exp.UtcTime)):
        now = _now("UTC_TIMESTAMP", [node.this] if node.this is not None else [])
        return now if isinstance(node, exp.UtcTimestamp) else exp.cast(now, "TIME")
    return None


_TIME_TEXT = re.compile(r"\s*(-)?(\d{1,3}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?\s*")
MAX_TIME_MICROS = (838 * 3600 + 59 * 60 + 59) * 1_000_000


def _long_time(value: exp.Expr) -> exp.Expr | None:
    """TIME '100:00:00' / CAST('-01:00:00' AS TIME): MySQL's TIME runs from -838:59:59 to
    838:59:59, DuckDB's TIME within one day. A literal outside the day becomes the INTERVAL of
    its microseconds (sent as TIME on the wire); one within the day stays a DuckDB TIME."""
    if not (isinstance(value, exp.Literal) and value.is_string):
        return None
    match = _TIME_TEXT.fullmatch(value.name)
    if match is None:
        return None
    sign, hours, minutes, seconds, fraction = match.groups()
    if int(minutes) > 59 or int(seconds) > 59 or (not sign and int(hours) < 24):
        return None
    micros = ((int(hours) * 60 + int(minutes)) * 60 + int(seconds)) * 1_000_000
    micros = min(micros + int((fraction or "0").ljust(6, "0")), MAX_TIME_MICROS)
    return instantiate(f"to_microseconds({-micros if sign else micros})", [])


def _is_year_zero(node: exp.Expr | None) -> bool:
    inner = node.this if isinstance(node, exp.TsOrDsToDate) else node
    return isinstance(inner, exp.Literal) and inner.is_string and inner.name == "0000-01-01"


def _rewrite(node: Any) -> exp.Expr | None:
    retyped = _retype(node)
    if retyped is not None:
        return retyped
    json_call = mysql_json_calls.rewrite(node)
    if json_call is not None:
        return json_call
    found = _name_and_args(node)
    if found is None:
        return None
    name, args = found
    if name in _NOW_FUNCTIONS:
        return _now(name, args)
    if name == "FROM_UNIXTIME" and len(args) == 2:
        return _from_unixtime_format(args)
    if name == "TIME_FORMAT":
        return mysql_date_format.time_format(args)
    if name == "GET_FORMAT":
        return mysql_datetime.get_format(args)
    if name in ("JSON_CONTAINS", "JSON_CONTAINS_PATH"):
        return _json_search(name, args)
    by_arity = _TEMPLATES.get(name)
    if by_arity is None:
        return None
    text = by_arity.get(len(args))
    if text is None:
        raise Errors.WRONG_ARGUMENTS.error(where=name)
    return instantiate(text, args)


def _in_column_definition(node: Any) -> bool:
    """DEFAULT / ON UPDATE CURRENT_TIMESTAMP in a column definition stay DuckDB's own."""
    parent = node.parent
    while parent is not None:
        if isinstance(parent, (exp.ColumnConstraint, exp.ColumnDef)):
            return True
        parent = parent.parent
    return False


MYSQL_CALL = exact_division.MYSQL_CALL  # meta key: the MySQL call a rewritten node stands for


def translate(expression: exp.Expr, warnings: Collector | None = None) -> exp.Expr:
    """``expression`` with every MySQL function call above given MySQL's meaning, in place
    (innermost calls first, so an argument is rewritten before the call that takes it)."""
    node: Any
    expression = date_arithmetic.adddate_as_date_add(expression)
    nodes = list(expression.walk(bfs=False))
    # decided on the client's own tree, before any call in it is rewritten
    dated = [
        n
        for n in nodes
        if isinstance(n, date_arithmetic.ARITHMETIC)
        and date_arithmetic.is_date_arithmetic(n)
        and n is not expression
    ]
    # with the client's own copy, for typing (its operand is rewritten in place below)
    as_text = [(n, n.copy()) for n in nodes if date_arithmetic.is_string_result(n)]
    for node in reversed(nodes):
        if not isinstance(node, exp.Func) or _in_column_definition(node):
            continue
        replacement = mysql_casts.rewrite(node, warnings) or _rewrite(node)
        if replacement is None:
            continue
        # the client's call, for typing its result column (server/expression_columns.py)
        replacement.meta[MYSQL_CALL] = node
        if node is expression:
            return replacement
        node.replace(replacement)
    for node in nodes:
        if isinstance(node, (exp.Add, exp.Sub)):
            date_arithmetic.typed_interval_operand(node)
    string_numbers.numeric_operands(expression)
    result = exact_division.rewrite(expression)  # 1 / 3 = 0.3333
    for node in reversed(dated):  # innermost first; each stays in the tree
        wrapper = exp.Cast(to=exp.DataType.build("DATE"))
        node.replace(wrapper)
        wrapper.set("this", node)
    for node, written in as_text:  # a select-list item: its value is the wrapper around it, if any
        is_date = any(node is d for d in dated)
        value = node.parent if is_date else node
        text_of = "CAST({0} AS VARCHAR)" if is_date else date_arithmetic.DATETIME_TEXT
        placeholder = exp.null()
        value.replace(placeholder)
        text = instantiate(text_of, [value])
        text.meta[MYSQL_CALL] = written  # typed as the client wrote it
        placeholder.replace(text)
    return result
