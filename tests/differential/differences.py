"""Where drydock's answer is not MariaDB's, on purpose, and what is not built yet.

``DIFFERENCES``: each turns MariaDB's answer into the answer drydock must give, for the cases it
names, with its reason. Two kinds: ``deliberate`` (drydock answers otherwise by design) and
``mariadb differs from MySQL 8`` (MySQL 8 is the target; the expected answer is MySQL 8's). The
README's "MySQL compatibility" section lists every one (tests/differential/test_differential.py
checks the rendered rows are there).

``KNOWN_GAPS``: case name → what drydock lacks today. Those cases are xfail(strict=True): a gap
that gets fixed turns its test red until its line here is removed.
"""

from __future__ import annotations

import datetime
import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from tests.differential.answers import Answer, Column

DELIBERATE = "deliberate"
MARIADB_NOT_MYSQL8 = "mariadb differs from MySQL 8"


@dataclass(frozen=True)
class Difference:
    title: str
    kind: str
    reason: str
    cases: tuple[str, ...]
    expect: Callable[[str, Answer], Answer]  # (statement, MariaDB's answer) → expected answer

    def readme_row(self) -> str:
        return f"| {self.title} | {self.kind} | {self.reason} |"


ALL_CASES = ("*",)  # a difference that holds wherever MariaDB's answer shows it
DEFINITIONS = ":definitions"  # KNOWN_GAPS key suffix: the case's column definitions test

_INT_WIDTH = re.compile(r"\b(tinyint|smallint|mediumint|int|bigint|year)\((\d+)\)")
_SHOW = re.compile(r"(?i)^\s*(show|describe|desc)\b")


def _map_text(answer: Answer, change: Callable[[str], str]) -> Answer:
    rows = tuple(tuple(None if v is None else change(v) for v in row) for row in answer.rows)
    return answer.replace(rows=rows)


def _no_int_display_width(sql: str, answer: Answer) -> Answer:
    def drop(text: str) -> str:
        return _INT_WIDTH.sub(
            lambda m: m.group(0) if m.group(0) == "tinyint(1)" else m.group(1), text
        )

    return _map_text(answer, drop)


def _mysql8_collation(sql: str, answer: Answer) -> Answer:
    return _map_text(answer, lambda text: text.replace("utf8mb4_general_ci", "utf8mb4_0900_ai_ci"))


# MySQL 8's column definitions of SHOW results, (type code, length, decimals, flags): each is the
# information_schema view column it is drawn from (docs/upstream-facts.md, "MySQL 8 SHOW column
# definitions"); SHOW CREATE TABLE's `Create Table` length is set from its text.
_NN, _BLOB, _UNS, _BIN, _ENUM, _NODEF, _NUMF = 0x1, 0x10, 0x20, 0x80, 0x100, 0x1000, 0x8000
_DD_NAME = (253, 256, 0, _NN | _NODEF)  # VARCHAR(64) NOT NULL of a dictionary table
_IF_YES_NO = (253, 12, 31, _NN)  # IF(…, 'YES', 'NO'): a string expression, 3 characters
_MYSQL8_SHOW: dict[str, dict[str, tuple[int, int, int, int]]] = {
    "COLUMNS": {
        "Field": _DD_NAME,
        "Type": (252, 16777215 * 4, 0, _NN | _BLOB | _NODEF),  # MEDIUMTEXT
        "Collation": (253, 256, 31, 0),
        "Null": _IF_YES_NO,
        "Key": (254, 12, 0, _NN | _ENUM | _NODEF),  # ENUM('','PRI','UNI','MUL')
        "Default": (252, 65535 * 4, 0, _BLOB),  # TEXT
        "Extra": (253, 1024, 31, _NN),  # VARCHAR(256)
        "Privileges": (253, 616, 31, 0),  # VARCHAR(154)
        "Comment": (253, 8192, 31, _NN),  # IFNULL(VARCHAR(2048), '')
    },
    "INDEX": {
        "Table": _DD_NAME,
        "Non_unique": (8, 1, 0, _NN | _BIN),
        "Key_name": _DD_NAME,
        "Seq_in_index": (3, 10, 0, _NN | _UNS | _BIN | _NODEF | _NUMF),  # INT UNSIGNED
        "Column_name": (253, 256, 31, 0),
        "Collation": (253, 4, 31, 0),
        "Cardinality": (8, 21, 0, _BIN),
        "Sub_part": (8, 21, 0, _BIN),
        "Packed": (6, 0, 0, _BIN),  # NULL
        "Null": _IF_YES_NO,
        "Index_type": (253, 44, 31, _NN),
        "Comment": (253, 32, 31, _NN),
        "Index_comment": (253, 8192, 0, _NN | _NODEF),  # VARCHAR(2048)
        "Visible": _IF_YES_NO,
        "Expression": (252, 4294967295, 31, _BLOB),  # LONGTEXT
    },
    "TABLES": {"Tables_in_": _DD_NAME, "Table_type": (254, 44, 0, _NN | _ENUM | _NODEF)},
    "DATABASES": {"Database": _DD_NAME},
    "CREATE TABLE": {"Table": (253, 256, 31, _NN)},
}
_SHOW_KIND = (
    (re.compile(r"(?i)^\s*(describe|desc|show\s+(full\s+)?(columns|fields))\b"), "COLUMNS"),
    (re.compile(r"(?i)^\s*show\s+(index|indexes|keys)\b"), "INDEX"),
    (re.compile(r"(?i)^\s*show\s+(full\s+)?tables\b"), "TABLES"),
    (re.compile(r"(?i)^\s*show\s+(databases|schemas)\b"), "DATABASES"),
    (re.compile(r"(?i)^\s*show\s+create\s+table\b"), "CREATE TABLE"),
)


def _mysql8_show_definitions(sql: str, answer: Answer) -> Answer:
    """MySQL 8's definitions of a SHOW result's columns; a SHOW not listed is compared by name."""
    if not _SHOW.match(sql):
        return answer
    kind = next((k for pattern, k in _SHOW_KIND if pattern.match(sql)), "")
    listed = _MYSQL8_SHOW.get(kind, {})

    def spelled(column: Column) -> Column:
        name = "Tables_in_" if column.name.startswith("Tables_in_") else column.name
        if kind == "CREATE TABLE" and name == "Create Table":
            longest = max((len((r[1] or "").encode()) for r in answer.rows), default=0)
            return Column(column.name, 253, max(longest, 1024) * 4, 31, _NN)
        definition = listed.get(name)
        return Column(column.name, *definition) if definition else Column(column.name, 0, 0, 0, 0)

    return answer.replace(columns=tuple(spelled(c) for c in answer.columns))


def _show_index_visible(sql: str, answer: Answer) -> Answer:
    """MariaDB's last SHOW INDEX column is `Ignored`; MySQL 8 has `Visible` and `Expression`."""
    if not sql.upper().startswith("SHOW INDEX") or answer.error or not answer.columns:
        return answer
    if answer.columns[-1].name != "Ignored":
        return answer
    columns = answer.columns[:-1] + (
        Column("Visible", *_definition(answer.columns[-1])),
        Column("Expression", 0, 0, 0, 0),
    )
    rows = tuple(row[:-1] + ("YES" if row[-1] == "NO" else "NO", None) for row in answer.rows)
    return answer.replace(columns=columns, rows=rows)


def _definition(column: Column) -> tuple[int, int, int, int]:
    return column.type_code, column.length, column.decimals, column.flags


def _json_column(sql: str, answer: Answer) -> Answer:
    """MariaDB's JSON is LONGTEXT (text as inserted); MySQL 8's is a JSON type (245, binary
    charset, BLOB|BINARY flags) whose text is normalised: keys ordered, a space after `:`, `,`."""
    if sql.upper().startswith("SELECT"):
        columns = tuple(Column(c.name, 245, 4294967295, 0, 0x10 | 0x80) for c in answer.columns)
        rows = tuple(
            tuple(None if v is None else _mysql_json_text(v) for v in row) for row in answer.rows
        )
        return answer.replace(columns=columns, rows=rows)
    return _map_text(answer, lambda text: "json" if text == "longtext" else text)


def _mysql_json_text(text: str) -> str:
    """MySQL 8 prints a JSON object's keys by length, then bytewise; `, ` and `: ` separators."""

    def order(value: object) -> object:
        if isinstance(value, dict):
            return {k: order(value[k]) for k in sorted(value, key=lambda k: (len(k), k))}
        if isinstance(value, list):
            return [order(v) for v in value]
        return value

    return json.dumps(order(json.loads(text)), ensure_ascii=False)


def _sqlstate_1366(sql: str, answer: Answer) -> Answer:
    if answer.error is not None and answer.error[0] == 1366:
        return answer.replace(error=(1366, "HY000"))
    return answer


def _no_unsigned_cast_note(sql: str, answer: Answer) -> Answer:
    return answer.replace(warnings=tuple(w for w in answer.warnings if w != ("Note", 1105)))


def _mysql8_column_default(sql: str, answer: Answer) -> Answer:
    """information_schema.COLUMNS.COLUMN_DEFAULT: MySQL 8 holds the value (`x`, NULL when there
    is none); MariaDB holds an expression's text (`'x'`, `NULL`)."""
    names = [c.name for c in answer.columns]
    if "COLUMN_DEFAULT" not in names:
        return answer
    at = names.index("COLUMN_DEFAULT")

    def value(text: str | None) -> str | None:
        if text is None or text == "NULL":
            return None
        if len(text) >= 2 and text[0] == text[-1] == "\x27":
            return text[1:-1].replace("\x27\x27", "\x27")
        return text

    rows = tuple(row[:at] + (value(row[at]),) + row[at + 1 :] for row in answer.rows)
    return answer.replace(rows=rows)


_NOW = re.compile(r"current_timestamp\((\d*)\)")


def _mysql8_current_timestamp(sql: str, answer: Answer) -> Answer:
    """MySQL 8 writes `CURRENT_TIMESTAMP` / `CURRENT_TIMESTAMP(3)`; MariaDB `current_timestamp()`.
    MySQL 8's DESCRIBE / SHOW COLUMNS Extra marks such a default `DEFAULT_GENERATED`."""

    def spell(text: str) -> str:
        return _NOW.sub(
            lambda m: f"CURRENT_TIMESTAMP({m.group(1)})" if m.group(1) else "CURRENT_TIMESTAMP",
            text,
        )

    answer = _map_text(answer, spell)
    names = [c.name for c in answer.columns]
    if not ("Default" in names and "Extra" in names):
        return answer
    default, extra = names.index("Default"), names.index("Extra")

    def mark(row: tuple) -> tuple:
        if not str(row[default] or "").startswith("CURRENT_TIMESTAMP"):
            return row
        text = " ".join(w for w in ("DEFAULT_GENERATED", row[extra]) if w)
        return row[:extra] + (text,) + row[extra + 1 :]

    return answer.replace(rows=tuple(mark(r) for r in answer.rows))


_MARIADB_NOT_FIXED_DEC = 39  # MariaDB's "decimals unknown"; MySQL's is 31
_NUM = 0x8000


def _mysql8_string_decimals(sql: str, answer: Answer) -> Answer:
    columns = tuple(
        Column(c.name, c.type_code, c.length, 31, c.flags)
        if c.decimals == _MARIADB_NOT_FIXED_DEC
        else c
        for c in answer.columns
    )
    return answer.replace(columns=columns)


def _mysql8_bigint_expressions(sql: str, answer: Answer) -> Answer:
    """An INT (3) expression column (no NUM flag: not a table column; not MIN/MAX of one) is
    BIGINT (8) in MySQL 8; TRUE and FALSE are BIGINT of length 1."""

    def bigint(c: Column) -> Column:
        if c.type_code != 3 or c.flags & _NUM or c.name.upper().startswith(("MIN(", "MAX(")):
            return c
        length = 1 if c.name.upper() in ("TRUE", "FALSE") else c.length
        return Column(c.name, 8, length, c.decimals, c.flags)

    return answer.replace(columns=tuple(bigint(c) for c in answer.columns))


_DATE_PARTS = ("YEAR(", "MONTH(", "DAY(", "DAYOFWEEK(", "MINUTE(", "SECOND(")
_DATETIME_FULL_WIDTH = 29  # MySQL's MAX_DATETIME_FULL_WIDTH
_DATE_ADD = ("DATE_ADD(", "DATE_SUB(", "ADDDATE(", "SUBDATE(")


def _mysql8_date_function_types(sql: str, answer: Answer) -> Answer:
    """MySQL 8 (sql/item_timefunc.cc) vs MariaDB 10.11: date and time parts are BIGINT of the
    part's digits and a sign (YEAR 5, MONTH/DAY/MINUTE/SECOND 3, DAYOFWEEK 2, HOUR 4 for TIME's
    838 hours; MariaDB INT of 4/2/2/2/2/1/2); DATEDIFF, integer arithmetic, is BIGINT (MariaDB
    INT); TIME_TO_SEC is BIGINT(10) (MariaDB 17); date
    arithmetic on a string is VARCHAR(29) (MariaDB CHAR(19)); DATE_FORMAT, TIME_FORMAT and CAST …
    AS CHAR have decimals 31 (MariaDB 0)."""

    def mysql8(c: Column) -> Column:
        name = c.name.upper()
        if c.type_code == 3 and name.startswith("HOUR("):
            return Column(c.name, 8, 4, c.decimals, c.flags)
        if c.type_code == 3 and name.startswith(_DATE_PARTS):
            return Column(c.name, 8, c.length + 1, c.decimals, c.flags)
        if c.type_code == 3 and name.startswith("DATEDIFF("):  # TO_DAYS(a) - TO_DAYS(b)
            return Column(c.name, 8, c.length, c.decimals, c.flags)
        if c.type_code == 8 and name.startswith("TIME_TO_SEC("):
            return Column(c.name, 8, 10, c.decimals, c.flags)
        if c.type_code == 254 and name.startswith(_DATE_ADD):
            return Column(c.name, 253, _DATETIME_FULL_WIDTH * 4, 31, c.flags)
        formats = ("DATE_FORMAT(", "TIME_FORMAT(", "CAST(")
        if c.type_code == 253 and c.decimals == 0 and name.startswith(formats):
            return Column(c.name, c.type_code, c.length, 31, c.flags)
        return c

    return answer.replace(columns=tuple(mysql8(c) for c in answer.columns))


_CREATE_DEFAULT_NULL = re.compile(
    r"(?m)^(  `[^`]+` (?:tiny|medium|long)?(?:text|blob)\b.*?) DEFAULT NULL"
)
_CREATE_NUMBER_DEFAULT = re.compile(r"(?m)^(  `[^`]+` .*? DEFAULT )(-?[0-9][0-9.e+-]*)(?=[ ,\n]|$)")


def _mysql8_create_table(sql: str, answer: Answer) -> Answer:
    """SHOW CREATE TABLE: MySQL 8 writes no `DEFAULT NULL` for a TEXT/BLOB column (it can have
    no other literal default) and quotes a number default (`DEFAULT '0.00'`); MariaDB writes
    `text DEFAULT NULL` and `DEFAULT 0.00`."""
    if not re.match(r"(?i)^\s*show\s+create\s+table\b", sql):
        return answer

    def spell(text: str) -> str:
        text = _CREATE_DEFAULT_NULL.sub(r"\1", text)
        return _CREATE_NUMBER_DEFAULT.sub(lambda m: f"{m.group(1)}'{m.group(2)}'", text)

    return _map_text(answer, spell)


_DATE_FORMAT_OF = re.compile(r"^DATE_FORMAT\((\w+), '(.*)'\)$")
_CLOCK_TEXT = re.compile(r"^(-?)(\d+):(\d\d):(\d\d)(?:\.(\d+))?$")
_STRFTIME = {"Y": "%Y", "m": "%m", "d": "%d", "H": "%H", "i": "%M", "s": "%S", "T": "%H:%M:%S"}


def _mysql8_date_format_of_time(sql: str, answer: Answer) -> Answer:
    """MySQL 8 formats a TIME as the DATETIME it is on the current date (manual 13.2.8: the TIME
    is elapsed time added to CURRENT_DATE; the session time zone is UTC); MariaDB formats the TIME
    itself (zero date parts, hours past 23 kept). Each `DATE_FORMAT(col, 'fmt')` column is
    recomputed from the row's `col` value, which the statement selects too."""
    names = [c.name for c in answer.columns]
    now = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
    today = datetime.datetime.combine(now.date(), datetime.time())

    def mysql8(row: tuple) -> tuple:
        out = list(row)
        for i, name in enumerate(names):
            call = _DATE_FORMAT_OF.match(name)
            if call is None or call[1] not in names or row[names.index(call[1])] is None:
                continue
            clock = _CLOCK_TEXT.match(row[names.index(call[1])])
            assert clock is not None, row
            sign, hours, minutes, seconds, fraction = clock.groups()
            elapsed = datetime.timedelta(
                hours=int(hours),
                minutes=int(minutes),
                seconds=int(seconds),
                microseconds=int((fraction or "").ljust(6, "0")),
            )
            stamp = today + (-elapsed if sign else elapsed)
            spec = re.sub(
                r"%(.)", lambda m: _STRFTIME.get(m[1], "%" + m[1]), call[2].replace("%f", "{f}")
            )
            out[i] = stamp.strftime(spec).replace("{f}", f"{stamp.microsecond:06d}")
        return tuple(out)

    return answer.replace(rows=tuple(mysql8(r) for r in answer.rows))


_PAST_TIME_MAX = re.compile(r"^-?838:59:59\.\d*[1-9]\d*$")


def _mysql8_time_max_has_no_fraction(sql: str, answer: Answer) -> Answer:
    """MySQL 8's TIME ends at 838:59:59.000000 (check_time_range_quick: at 838:59:59 a fraction is
    out of range), so TIME + INTERVAL reaching 838:59:59.000005 is NULL with warning 1441
    (sec_to_time → adjust_time_range); MariaDB's TIME reaches 838:59:59.999999."""
    past = [v for row in answer.rows for v in row if v is not None and _PAST_TIME_MAX.match(v)]
    if not past:
        return answer
    rows = tuple(
        tuple(None if v is not None and _PAST_TIME_MAX.match(v) else v for v in row)
        for row in answer.rows
    )
    warnings = answer.warnings + (("Warning", 1441),) * len(past)
    return answer.replace(rows=rows, warnings=warnings)


def _duckdb_engine(sql: str, answer: Answer) -> Answer:
    return _map_text(answer, lambda text: text.replace("ENGINE=InnoDB", "ENGINE=DuckDB"))


DIFFERENCES: tuple[Difference, ...] = (
    Difference(
        "storage engine of internal tables",
        DELIBERATE,
        "drydock's internal tables are stored by DuckDB: SHOW CREATE TABLE writes `ENGINE=DuckDB`",
        ALL_CASES,
        _duckdb_engine,
    ),
    Difference(
        "CURRENT_TIMESTAMP defaults",
        MARIADB_NOT_MYSQL8,
        "MySQL 8 writes `CURRENT_TIMESTAMP[(n)]` and marks the default `DEFAULT_GENERATED` in "
        "DESCRIBE's Extra; MariaDB writes `current_timestamp()`",
        ALL_CASES,
        _mysql8_current_timestamp,
    ),
    Difference(
        "integer display widths",
        MARIADB_NOT_MYSQL8,
        "MySQL 8.0.19+ shows `int`, `bigint unsigned`, `year` (no display width) in DESCRIBE, "
        "SHOW CREATE TABLE and `COLUMN_TYPE`, except `tinyint(1)`; MariaDB shows `int(11)`, "
        "`year(4)`",
        ALL_CASES,
        _no_int_display_width,
    ),
    Difference(
        "default collation name",
        MARIADB_NOT_MYSQL8,
        "MySQL 8's utf8mb4 default collation is `utf8mb4_0900_ai_ci`, which MariaDB 10.11 lacks "
        "(it runs with `utf8mb4_general_ci`, also case- and accent-insensitive)",
        ALL_CASES,
        _mysql8_collation,
    ),
    Difference(
        "SHOW INDEX `Visible` / `Expression`",
        MARIADB_NOT_MYSQL8,
        "MySQL 8 ends SHOW INDEX with `Visible` (YES) and `Expression` (NULL); MariaDB with "
        "`Ignored`",
        ("show_index_rows",),
        _show_index_visible,
    ),
    Difference(
        "JSON type",
        MARIADB_NOT_MYSQL8,
        "MySQL 8's JSON is its own type (245, shown `json`, text normalised: "
        '`{"a": 1, "b": [1, 2]}`); MariaDB\'s JSON is LONGTEXT kept as inserted',
        ("types_json_column",),
        _json_column,
    ),
    Difference(
        "information_schema `COLUMN_DEFAULT`",
        MARIADB_NOT_MYSQL8,
        "MySQL 8 holds the default's value (`x`; NULL when there is none); MariaDB its "
        "expression text (`'x'`, `NULL`)",
        ALL_CASES,
        _mysql8_column_default,
    ),
    Difference(
        "SQLSTATE of 1366",
        MARIADB_NOT_MYSQL8,
        "MySQL 8 sends 1366 (incorrect value) with SQLSTATE HY000; MariaDB with 22007",
        ALL_CASES,
        _sqlstate_1366,
    ),
    Difference(
        "decimals of string results",
        MARIADB_NOT_MYSQL8,
        "MySQL 8 sends decimals 31 (its NOT_FIXED_DEC) in the definition of a string expression; "
        "MariaDB 39",
        ALL_CASES,
        _mysql8_string_decimals,
    ),
    Difference(
        "integer expressions are BIGINT",
        MARIADB_NOT_MYSQL8,
        "MySQL 8 types integer literals, integer arithmetic, comparisons, logical operators, "
        "TRUE/FALSE (length 1) and integer functions such as LENGTH as BIGINT (LONGLONG, 8); "
        "MariaDB as INT (3) when the length fits",
        (
            "select_integer_arithmetic",
            "select_string_functions",
            "select_comparisons_collation",
            "select_if_case_coalesce",
            "select_boolean_and_bit_ops",
            "select_cast",
            "types_time_arithmetic",
        ),
        _mysql8_bigint_expressions,
    ),
    Difference(
        "date and time function definitions",
        MARIADB_NOT_MYSQL8,
        "MySQL 8 types YEAR/MONTH/DAY/DAYOFWEEK/HOUR/MINUTE/SECOND as BIGINT of the part's digits "
        "and a sign (lengths 5/3/3/2/4/3/3; MariaDB INT of 4/2/2/1/2/2/2), DATEDIFF as BIGINT "
        "(MariaDB INT), TIME_TO_SEC as "
        "BIGINT(10) (MariaDB 17), DATE_ADD/DATE_SUB of a string as VARCHAR(29) (MariaDB "
        "CHAR(19)), and sends DATE_FORMAT, TIME_FORMAT and CAST … AS CHAR with decimals 31 "
        "(MariaDB 0)",
        (
            "select_date_functions",
            "select_date_column_arithmetic",
            "select_cast",
            "types_time_functions",
            "types_time_range",
            "types_time_as_text",
            "types_time_date_format",
            "types_time_as_datetime",
        ),
        _mysql8_date_function_types,
    ),
    Difference(
        "DATE_FORMAT of a TIME",
        MARIADB_NOT_MYSQL8,
        "MySQL 8 formats a TIME as the DATETIME it is on the current date (manual 13.2.8: "
        "`'100:00:00'` is four days on at 04:00:00, `'-01:00:00'` yesterday at 23:00:00); MariaDB "
        "formats the TIME itself (`0000-00-00`, hour 100)",
        ("types_time_date_format",),
        _mysql8_date_format_of_time,
    ),
    Difference(
        "TIME's largest value",
        MARIADB_NOT_MYSQL8,
        "MySQL 8's TIME ends at `838:59:59.000000`: TIME + INTERVAL reaching `838:59:59.000005` is "
        "NULL with warning 1441; MariaDB's TIME reaches `838:59:59.999999`",
        ("types_time_interval_range",),
        _mysql8_time_max_has_no_fraction,
    ),
    Difference(
        "SHOW CREATE TABLE defaults",
        MARIADB_NOT_MYSQL8,
        "MySQL 8 writes no `DEFAULT NULL` for a TEXT/BLOB column and quotes a number default "
        "(`DEFAULT '0.00'`); MariaDB writes `text DEFAULT NULL` and `DEFAULT 0.00`",
        ALL_CASES,
        _mysql8_create_table,
    ),
    Difference(
        "CAST of a negative number AS UNSIGNED",
        MARIADB_NOT_MYSQL8,
        "MySQL 8 wraps it silently; MariaDB adds Note 1105",
        ("select_cast",),
        _no_unsigned_cast_note,
    ),
    Difference(
        "column definitions of SHOW / DESCRIBE results",
        MARIADB_NOT_MYSQL8,
        "MySQL 8 answers SHOW COLUMNS, DESCRIBE, SHOW INDEX, SHOW TABLES and SHOW DATABASES from "
        "its information_schema views: each column has the type of the view column it is drawn "
        "from (`Field` VARCHAR(64), `Type` MEDIUMTEXT, `Key` ENUM, `Default` TEXT, …); SHOW CREATE "
        "TABLE's `Create Table` is at least 1024 characters; MariaDB's types and lengths differ",
        ALL_CASES,
        _mysql8_show_definitions,
    ),
)
KNOWN_GAPS: dict[str, str] = {}


def expected_answers(
    case: str, checked: tuple[str, ...], mariadb: tuple[Answer, ...]
) -> tuple[Answer, ...]:
    answers = list(mariadb)
    for difference in DIFFERENCES:
        if case in difference.cases or difference.cases == ALL_CASES:
            answers = [difference.expect(sql, a) for sql, a in zip(checked, answers, strict=True)]
    return tuple(answers)
