"""MySQL date and time functions DuckDB lacks or answers otherwise (MySQL 8.0 manual 14.7), as
templates and macros for engine/sql/mysql_functions.py, which installs :data:`MACROS` with its
own and rewrites calls by :data:`TEMPLATES` (same rules: a template is DuckDB SQL written here,
its arguments the user's own sub-trees) and :func:`rewrite` (calls sqlglot parses into typed
nodes).

PERIOD_ADD/PERIOD_DIFF, TO_SECONDS, TIME_TO_SEC, ADDTIME/SUBTIME, MICROSECOND, FIND_IN_SET,
GET_FORMAT; MAKETIME past 24 hours; TIME(x); TIMESTAMP(d, t); UTC_TIMESTAMP/UTC_TIME without
fractions; TIMESTAMPDIFF in MONTH/QUARTER/YEAR counting complete months as MySQL does (the day
and time of the later value must reach the earlier one's: 01-31 → 02-29 is 0 months, where
DuckDB's date_sub says 1); DATE_FORMAT's week specifiers %u %V %v %X (strftime's %W, %V and %X
mean other things).
"""

from __future__ import annotations

from sqlglot import exp

M = "mysql_is.main."
_MAX_TIME_US = (838 * 3600 + 59 * 60 + 59) * 1_000_000

MACROS = {
    # MySQL 14.7 PERIOD_ADD: YYMM or YYYYMM; a two-digit year below 70 is 20YY, else 19YY
    "mysql_period_months": """(p) AS (CASE
        WHEN p // 100 < 70 THEN p // 100 + 2000 WHEN p // 100 < 100 THEN p // 100 + 1900
        ELSE p // 100 END * 12 + p % 100 - 1)""",
    "mysql_months_period": """(m) AS (CASE
        WHEN m // 12 < 70 THEN m // 12 + 2000 WHEN m // 12 < 100 THEN m // 12 + 1900
        ELSE m // 12 END * 100 + m % 12 + 1)""",
    "mysql_period_add": f"""(p, n) AS (CASE WHEN p = 0 THEN 0
        ELSE {M}mysql_months_period({M}mysql_period_months(p) + n) END)""",
    # microseconds since midnight of a TIMESTAMP
    "mysql_day_us": "(t) AS (epoch_us(t) - epoch_us(date_trunc('day', t)))",
    # TIMESTAMPDIFF(MONTH, a, b): whole months; the later value's day and time must reach the
    # earlier one's (sql/sql_time.cc calc_time_diff and Item_func_timestamp_diff)
    "mysql_months_between": f"""(a, b) AS ((year(b) * 12 + month(b)) - (year(a) * 12 + month(a))
        + CASE
            WHEN b >= a AND day(b) * 86400000000 + {M}mysql_day_us(b)
                < day(a) * 86400000000 + {M}mysql_day_us(a) THEN -1
            WHEN b < a AND day(b) * 86400000000 + {M}mysql_day_us(b)
                > day(a) * 86400000000 + {M}mysql_day_us(a) THEN 1
            ELSE 0 END)""",
    # MySQL 14.7 ADDTIME/SUBTIME(expr1, expr2): a DATETIME or TIME plus/minus a TIME, as text
    "mysql_addtime": f"""(a, b, s) AS (CASE
        WHEN TRY_CAST(a AS TIMESTAMP) IS NOT NULL AND strpos(CAST(a AS VARCHAR), '-') > 1
            THEN strftime(TRY_CAST(a AS TIMESTAMP)
                    + to_microseconds(CAST(round(s * {M}mysql_time_secs(b) * 1000000) AS BIGINT)),
                CASE WHEN {M}mysql_day_us(TRY_CAST(a AS TIMESTAMP)
                    + to_microseconds(CAST(round(s * {M}mysql_time_secs(b) * 1000000) AS BIGINT)))
                    % 1000000 <> 0 THEN '%Y-%m-%d %H:%M:%S.%f' ELSE '%Y-%m-%d %H:%M:%S' END)
        ELSE {M}mysql_time_text({M}mysql_time_secs(a) + s * {M}mysql_time_secs(b)) END)""",
    # MySQL 14.8 FIND_IN_SET: 1-based position in a comma-separated list, 0 when absent or
    # when the string holds a comma; compared case-insensitively (utf8mb4_0900_ai_ci)
    "mysql_find_in_set": """(s, l) AS (CASE
        WHEN s IS NULL OR l IS NULL THEN NULL
        WHEN l = '' OR strpos(s, ',') > 0 THEN 0
        ELSE COALESCE(list_position(string_split(lower(l), ','), lower(s)), 0) END)""",
    # a value written to a TIME column (engine/sql/time_columns.py), from its text t: a number
    # is HHMMSS[.f] (MySQL 13.2.3), anything else what DuckDB reads as an INTERVAL; microseconds
    "mysql_hhmmss_us": """(d) AS (sign(d) * (CAST(floor(abs(d)) AS BIGINT) // 10000 * 3600000000
        + CAST(floor(abs(d)) AS BIGINT) // 100 % 100 * 60000000
        + CAST(floor(abs(d)) AS BIGINT) % 100 * 1000000
        + CAST(round((abs(d) - floor(abs(d))) * 1000000) AS BIGINT)))""",
    "mysql_time_text_us": f"""(t) AS (CASE WHEN t SIMILAR TO '-?[0-9]+(\\.[0-9]*)?'
        THEN {M}mysql_hhmmss_us(TRY_CAST(t AS DECIMAL(38, 6)))
        ELSE epoch_us(TRY_CAST(t AS INTERVAL)) END)""",
    # ... rounded half away from zero to the fsp's step, clipped to ±838:59:59, as an INTERVAL;
    # a text that is no time is 00:00:00 (non-strict MySQL)
    "mysql_time_store": f"""(x, step) AS (CASE WHEN x IS NULL THEN NULL ELSE to_microseconds(CAST(
        greatest(least(coalesce(
            sign({M}mysql_time_text_us(trim(CAST(x AS VARCHAR))))
            * round(abs({M}mysql_time_text_us(trim(CAST(x AS VARCHAR)))) / step) * step, 0),
        {_MAX_TIME_US}), -{_MAX_TIME_US}) AS BIGINT)) END)""",
    # two-digit week of a DATE_FORMAT week specifier
    "mysql_week2": f"(d, m) AS (lpad(CAST({M}mysql_week(d, m) AS VARCHAR), 2, '0'))",
}

_TS = "TRY_CAST({0} AS TIMESTAMP)"

TEMPLATES: dict[str, dict[int, str]] = {
    "PERIOD_ADD": {2: f"{M}mysql_period_add(CAST({{0}} AS BIGINT), CAST({{1}} AS BIGINT))"},
    "PERIOD_DIFF": {
        2: f"({M}mysql_period_months(CAST({{0}} AS BIGINT)) "
        f"- {M}mysql_period_months(CAST({{1}} AS BIGINT)))"
    },
    "TO_SECONDS": {
        1: f"((date_diff('day', DATE '0001-01-01', CAST({_TS} AS DATE)) + 366) * 86400 "
        f"+ {M}mysql_day_us({_TS}) // 1000000)"
    },
    "TIME_TO_SEC": {1: f"CAST(trunc({M}mysql_time_secs({{0}})) AS BIGINT)"},
    "ADDTIME": {2: f"{M}mysql_addtime({{0}}, {{1}}, 1)"},
    "SUBTIME": {2: f"{M}mysql_addtime({{0}}, {{1}}, -1)"},
    "MICROSECOND": {
        1: f"CAST(round(abs({M}mysql_time_secs({{0}})) * 1000000) AS BIGINT) % 1000000"
    },
    "FIND_IN_SET": {2: f"{M}mysql_find_in_set(CAST({{0}} AS VARCHAR), CAST({{1}} AS VARCHAR))"},
}

# MySQL 14.7 MAKETIME(h, m, s): NULL unless 0 <= m, s < 60; clamped to ±838:59:59; an INTERVAL,
# which the wire sends as TIME
MAKETIME = (
    "CASE WHEN {1} < 0 OR {1} > 59 OR {2} < 0 OR {2} >= 60 THEN NULL ELSE to_microseconds("
    "CAST(mysql_is.main.mysql_clamp(CASE WHEN {0} < 0 THEN -1 ELSE 1 END * (abs(CAST({0} AS "
    "BIGINT)) * 3600 + CAST({1} AS BIGINT) * 60 + CAST({2} AS DOUBLE)) * 1000000, "
    f"-{_MAX_TIME_US}, {_MAX_TIME_US}) AS BIGINT)) END"
)
CLOCK = "COALESCE(TRY_CAST({0} AS TIME), CAST(TRY_CAST({0} AS TIMESTAMP) AS TIME))"
TIMESTAMP_PLUS_TIME = (
    f"({_TS} + to_microseconds(CAST(round({M}mysql_time_secs({{1}}) * 1000000) AS BIGINT)))"
)
UTC_TIMESTAMP = "make_timestamp(epoch_us(now()) // {k} * {k})"
MONTH_UNITS = {"MONTH": 1, "QUARTER": 3, "YEAR": 12}
MONTHS_DIFF = (
    f"CAST(trunc({M}mysql_months_between({_TS}, TRY_CAST({{1}} AS TIMESTAMP)) / {{2}}) AS BIGINT)"
)

# MySQL 14.7 GET_FORMAT(type, locale)
_FORMATS = {
    ("DATE", "USA"): "%m.%d.%Y",
    ("DATE", "JIS"): "%Y-%m-%d",
    ("DATE", "ISO"): "%Y-%m-%d",
    ("DATE", "EUR"): "%d.%m.%Y",
    ("DATE", "INTERNAL"): "%Y%m%d",
    ("DATETIME", "USA"): "%Y-%m-%d %H.%i.%s",
    ("DATETIME", "JIS"): "%Y-%m-%d %H:%i:%s",
    ("DATETIME", "ISO"): "%Y-%m-%d %H:%i:%s",
    ("DATETIME", "EUR"): "%Y-%m-%d %H.%i.%s",
    ("DATETIME", "INTERNAL"): "%Y%m%d%H%i%s",
    ("TIME", "USA"): "%h:%i:%s %p",
    ("TIME", "JIS"): "%H:%i:%s",
    ("TIME", "ISO"): "%H:%i:%s",
    ("TIME", "EUR"): "%H.%i.%s",
    ("TIME", "INTERNAL"): "%H%i%s",
}

# DATE_FORMAT's week specifiers after sqlglot's MySQL→strftime translation, which keeps
# MySQL's %V/%v/%X and maps %u to %W: each is cut out of the format and computed (the rest
# stays strftime's). {0} is the value.
WEEK_SPECIFIERS = {
    "%W": f"{M}mysql_week2(CAST({{0}} AS DATE), 1)",  # MySQL %u
    "%V": f"{M}mysql_week2(CAST({{0}} AS DATE), 2)",
    "%v": f"{M}mysql_week2(CAST({{0}} AS DATE), 3)",
    "%X": f"CAST({M}mysql_yearweek(CAST({{0}} AS DATE), 2) // 100 AS VARCHAR)",
}


def get_format(args: list[exp.Expr]) -> exp.Expr | None:
    """GET_FORMAT(DATE|DATETIME|TIME|TIMESTAMP, 'locale') as the constant format, NULL for an
    unknown locale; None when the arguments are not constants."""
    if len(args) != 2 or not (isinstance(args[1], exp.Literal) and args[1].is_string):
        return None
    kind = args[0].name.upper()
    kind = "DATETIME" if kind == "TIMESTAMP" else kind
    found = _FORMATS.get((kind, args[1].name.upper()))
    return exp.Literal.string(found) if found is not None else exp.null()


# MySQL 14.7 EXTRACT's compound units: the fields' values side by side as one number
# (EXTRACT(DAY_SECOND FROM '2024-03-07 10:11:12') = 7101112)
_FIELDS = {
    "YEAR": ("year({0})", 10000),
    "MONTH": ("month({0})", 100),
    "DAY": ("day({0})", 100),
    "HOUR": ("hour({0})", 100),
    "MINUTE": ("minute({0})", 100),
    "SECOND": ("second({0})", 100),
    "MICROSECOND": ("(microsecond({0}) % 1000000)", 1000000),
}
_COMPOUND = {
    "YEAR_MONTH": ("YEAR", "MONTH"),
    "DAY_HOUR": ("DAY", "HOUR"),
    "DAY_MINUTE": ("DAY", "HOUR", "MINUTE"),
    "DAY_SECOND": ("DAY", "HOUR", "MINUTE", "SECOND"),
    "DAY_MICROSECOND": ("DAY", "HOUR", "MINUTE", "SECOND", "MICROSECOND"),
    "HOUR_MINUTE": ("HOUR", "MINUTE"),
    "HOUR_SECOND": ("HOUR", "MINUTE", "SECOND"),
    "HOUR_MICROSECOND": ("HOUR", "MINUTE", "SECOND", "MICROSECOND"),
    "MINUTE_SECOND": ("MINUTE", "SECOND"),
    "MINUTE_MICROSECOND": ("MINUTE", "SECOND", "MICROSECOND"),
    "SECOND_MICROSECOND": ("SECOND", "MICROSECOND"),
}


def compound_extract(unit: str) -> str | None:
    """The template ({0} a TIMESTAMP) of EXTRACT(unit FROM …) for a compound unit, else None."""
    fields = _COMPOUND.get(unit.upper())
    if fields is None:
        return None
    text = _FIELDS[fields[0]][0]
    for field in fields[1:]:
        part, width = _FIELDS[field]
        text = f"({text}) * {width} + {part}"
    return f"CAST({text} AS BIGINT)"
