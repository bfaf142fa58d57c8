"""Replays of the SQL four BI tools send to a MySQL server (issue 14), over the wire against a
small internal table of timestamps, each answer checked against the value MySQL gives.

Where each statement comes from (the tools' public source, read for this module):

| tool | what | source (repository, path, commit) |
|---|---|---|
| Superset | time grains `PT1S`…`P1Y`, week starting Monday, `convert_dttm` filter literal |
apache/superset `superset/db_engine_specs/mysql.py` @000ccf64 (`time_grain_functions`; newer
releases call it `_time_grain_expressions` with the same SQL); connecting and browsing is
SQLAlchemy's MySQL dialect |
| Metabase | `db-default-timezone` probe, `SET @@session.time_zone`, `sql.qp/date` grains (minute …
year, week via `YEARWEEK`+`STR_TO_DATE('%X%V %W')`, quarter via `STR_TO_DATE`), `from_unixtime`,
`date_add` intervals | metabase/metabase `src/metabase/driver/mysql.clj` @005b4567 |
| Grafana | query editor: databases, tables (of a named database or `database()`), columns by kind |
grafana/grafana `public/app/plugins/datasource/mysql/mySqlMetaQuery.ts` @05b8f193 (showDatabases,
buildTableQuery, buildColumnQuery) |
| Grafana | `$__time`, `$__timeFilter` (also with a range before 1970), `$__timeFrom`/`$__timeTo`,
`$__timeGroup`/`$__timeGroupAlias` (`UNIX_TIMESTAMP(c) DIV s * s AS "time"`), `$__unixEpochFilter`,
`$__unixEpochGroup` | grafana/grafana `pkg/tsdb/mysql/macros.go` @0b596ec9 |
| DBeaver | on connect: `SHOW ENGINES`, `SHOW CHARSET`, `SHOW COLLATION`, `SELECT * FROM
information_schema.SCHEMATA`, `SELECT DATABASE()`, ``use `db` ``; browsing: ``SHOW FULL TABLES FROM
`db` ``, `information_schema.COLUMNS` by schema and table; the server panels: `SHOW VARIABLES`,
`SHOW STATUS`, `SHOW GLOBAL STATUS` | dbeaver/dbeaver
`plugins/org.jkiss.dbeaver.ext.mysql/src/org/jkiss/dbeaver/ext/mysql/model/MySQLDataSource.java`
@005a1a1c (initialize, CatalogCache, loadParameters) and `MySQLCatalog.java` (TableCache) |

How they are sent: DBeaver and Metabase use a JDBC driver with client-side prepared statements
(Connector/J's default), so each statement reaches the server as the COM_QUERY text replayed here
with pymysql; Superset goes through SQLAlchemy (connect and reflection are replayed with a real
SQLAlchemy engine); Grafana's Go driver interpolates the macros into text before sending. The
JDBC path itself is replayed too: Metabase's units and Superset's grains through MariaDB
Connector/J (tests/jdbc/DrydockJdbcReplay.java), checking java.sql.Date vs Timestamp.

Expected values: MySQL 8.0 Reference Manual 12.7 (Date and Time Functions) semantics, applied
by hand to the three rows below; each expectation carries its derivation. The session time zone
is UTC ('+00:00'), so UNIX_TIMESTAMP/FROM_UNIXTIME are plain epoch arithmetic.

Row 1: 2024-01-02 10:15:30 (a Tuesday; epoch 1704190530); row 2: 2024-03-31 23:59:59 (a Sunday;
1711929599); row 3: 2024-05-15 00:00:00 (a Wednesday; 1715731200).
"""

from __future__ import annotations

import datetime as dt
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ServerProcess

sa = pytest.importorskip(
    "sqlalchemy", minversion="2", reason="SQLAlchemy 2 is in pyproject's test extra"
)

DB = "bi_replay"
D = dt.date
T = dt.datetime

# Superset: grain → (expression on {col}, per-row expected, MySQL semantics)
SUPERSET_GRAINS: dict[str, tuple[str, list[Any], str]] = {
    "PT1S": (
        "DATE_ADD(DATE({col}), INTERVAL (HOUR({col})*60*60 + MINUTE({col})*60 + SECOND({col})) "
        "SECOND)",
        [T(2024, 1, 2, 10, 15, 30), T(2024, 3, 31, 23, 59, 59), T(2024, 5, 15)],
        "DATE + seconds: a DATETIME (time part involved), the original second",
    ),
    "PT1M": (
        "DATE_ADD(DATE({col}), INTERVAL (HOUR({col})*60 + MINUTE({col})) MINUTE)",
        [T(2024, 1, 2, 10, 15), T(2024, 3, 31, 23, 59), T(2024, 5, 15)],
        "minute start, DATETIME",
    ),
    "PT1H": (
        "DATE_ADD(DATE({col}), INTERVAL HOUR({col}) HOUR)",
        [T(2024, 1, 2, 10), T(2024, 3, 31, 23), T(2024, 5, 15)],
        "hour start, DATETIME",
    ),
    "P1D": ("DATE({col})", [D(2024, 1, 2), D(2024, 3, 31), D(2024, 5, 15)], "DATE() is a DATE"),
    "P1W": (
        "DATE(DATE_SUB({col}, INTERVAL DAYOFWEEK({col}) - 1 DAY))",
        [D(2023, 12, 31), D(2024, 3, 31), D(2024, 5, 12)],
        "DAYOFWEEK 1 = Sunday: Tue→-2 days, Sun→-0, Wed→-3: the Sunday starting the week",
    ),
    "P1M": (
        "DATE(DATE_SUB({col}, INTERVAL DAYOFMONTH({col}) - 1 DAY))",
        [D(2024, 1, 1), D(2024, 3, 1), D(2024, 5, 1)],
        "first of the month",
    ),
    "P0.25Y": (
        "MAKEDATE(YEAR({col}), 1) + INTERVAL QUARTER({col}) QUARTER - INTERVAL 1 QUARTER",
        [D(2024, 1, 1), D(2024, 1, 1), D(2024, 4, 1)],
        "MAKEDATE is a DATE; DATE ± INTERVAL of QUARTER units stays a DATE (12.7 DATE_ADD)",
    ),
    "P1Y": (
        "DATE(DATE_SUB({col}, INTERVAL DAYOFYEAR({col}) - 1 DAY))",
        [D(2024, 1, 1)] * 3,
        "first of the year",
    ),
    "1969-12-29T00:00:00Z/P1W": (
        "DATE(DATE_SUB({col}, INTERVAL DAYOFWEEK(DATE_SUB({col}, INTERVAL 1 DAY)) - 1 DAY))",
        [D(2024, 1, 1), D(2024, 3, 25), D(2024, 5, 13)],
        "the Monday starting the week: DAYOFWEEK of the day before (Mon→1 … Sun→7) minus one",
    ),
}

# Metabase (sql.qp/date [:mysql unit]), honeysql's output: backquoted, fully qualified columns
_MB = f"`{DB}`.`events`.`ts`"
METABASE_GRAINS: dict[str, tuple[str, list[Any], str]] = {
    "minute": (
        f"str_to_date(date_format({_MB}, '%Y-%m-%d %H:%i'), '%Y-%m-%d %H:%i')",
        [T(2024, 1, 2, 10, 15), T(2024, 3, 31, 23, 59), T(2024, 5, 15)],
        "STR_TO_DATE with date and time parts is a DATETIME",
    ),
    "hour": (
        f"str_to_date(date_format({_MB}, '%Y-%m-%d %H'), '%Y-%m-%d %H')",
        [T(2024, 1, 2, 10), T(2024, 3, 31, 23), T(2024, 5, 15)],
        "as minute",
    ),
    "day": (f"date({_MB})", [D(2024, 1, 2), D(2024, 3, 31), D(2024, 5, 15)], "DATE()"),
    "day-of-week": (f"dayofweek({_MB})", [3, 1, 4], "1 = Sunday"),
    "day-of-month": (f"dayofmonth({_MB})", [2, 31, 15], ""),
    "day-of-year": (f"dayofyear({_MB})", [2, 91, 136], "2024 is a leap year: 31+29+31 = 91"),
    "week": (
        f"str_to_date(concat(yearweek({_MB}), ' Sunday'), '%X%V %W')",
        [D(2023, 12, 31), D(2024, 3, 31), D(2024, 5, 12)],
        "YEARWEEK mode 0 gives 202353/202413/202419 (week 1 has the year's first Sunday, the "
        "year carries over); %X%V %W reads back the Sunday starting that week, a DATE",
    ),
    "week-of-year": (
        f"(week({_MB}, 6) + 1)",
        [2, 15, 21],
        "WEEK mode 6: Sunday first, week 1 has 4+ days of the year (1, 14, 20), plus one",
    ),
    "month": (
        f"str_to_date(concat(date_format({_MB}, '%Y-%m'), '-01'), '%Y-%m-%d')",
        [D(2024, 1, 1), D(2024, 3, 1), D(2024, 5, 1)],
        "date-only format: a DATE",
    ),
    "month-of-year": (f"month({_MB})", [1, 3, 5], ""),
    "quarter": (
        f"str_to_date(concat(year({_MB}), '-', ((quarter({_MB}) * 3) - 2), '-01'), '%Y-%m-%d')",
        [D(2024, 1, 1), D(2024, 1, 1), D(2024, 4, 1)],
        "'2024-4-01': %m accepts one digit",
    ),
    "quarter-of-year": (f"quarter({_MB})", [1, 1, 2], ""),
    "year": (f"makedate(year({_MB}), 1)", [D(2024, 1, 1)] * 3, "MAKEDATE(y, 1) is January 1st"),
    "unix-timestamp": (
        f"from_unixtime(`{DB}`.`events`.`epoch`)",
        [T(2024, 1, 2, 10, 15, 30), T(2024, 3, 31, 23, 59, 59), T(2024, 5, 15)],
        "FROM_UNIXTIME in the session time zone (UTC)",
    ),
    "add-interval": (
        f"date_add({_MB}, INTERVAL -30 day)",
        [T(2023, 12, 3, 10, 15, 30), T(2024, 3, 1, 23, 59, 59), T(2024, 4, 15)],
        "DATETIME - 30 days stays a DATETIME",
    ),
}


@pytest.fixture(scope="module")
def bi(shared_server: ServerProcess) -> ServerProcess:
    shared_server.query(f"CREATE DATABASE {DB}")
    shared_server.query(
        f"CREATE TABLE {DB}.events (id INT PRIMARY KEY, ts DATETIME NOT NULL, "
        "epoch BIGINT NOT NULL, v DOUBLE)"
    )
    shared_server.query(
        f"INSERT INTO {DB}.events VALUES (1, '2024-01-02 10:15:30', 1704190530, 1.5), "
        "(2, '2024-03-31 23:59:59', 1711929599, 2.5), (3, '2024-05-15 00:00:00', 1715731200, 4.0)"
    )
    return shared_server


@pytest.fixture
def cur(bi: ServerProcess) -> Iterator[Any]:
    with bi.connect(database=DB) as conn, conn.cursor() as cursor:
        yield cursor


def _column(cur: Any, sql: str) -> list[Any]:
    cur.execute(sql)
    return [row[0] for row in cur.fetchall()]


def _exact(values: list[Any]) -> list[tuple[type, Any]]:
    """Values with their Python type: a DATETIME where MySQL gives a DATE is a difference."""
    return [(type(v), v) for v in values]


@pytest.mark.parametrize("grain", list(SUPERSET_GRAINS))
def test_superset_time_grains(cur: Any, grain: str) -> None:
    expression, expected, why = SUPERSET_GRAINS[grain]
    sql = f"SELECT {expression.format(col='ts')} FROM events ORDER BY id"
    assert _exact(_column(cur, sql)) == _exact(expected), why
    assert cur.description[0][0] == expression.format(col="ts")  # the label is the text as written


def test_superset_filter_literal_and_sqlalchemy_connect(bi: ServerProcess) -> None:
    # convert_dttm: STR_TO_DATE('%Y-%m-%d %H:%i:%s') literal in the WHERE clause (a DATETIME)
    with bi.connect(database=DB) as conn, conn.cursor() as c:
        assert _column(
            c,
            "SELECT id FROM events WHERE ts >= STR_TO_DATE('2024-03-31 23:59:59', "
            "'%Y-%m-%d %H:%i:%s') ORDER BY id",
        ) == [2, 3]
    # Superset connects and browses through SQLAlchemy's MySQL dialect (what it sends on connect:
    # sql_mode, lower_case_table_names, … variables; reflection via SHOW CREATE TABLE)
    engine = sa.create_engine(f"mysql+pymysql://root@{bi.host}:{bi.port}/{DB}")
    try:
        inspector = sa.inspect(engine)
        assert DB in inspector.get_schema_names()
        assert inspector.get_table_names() == ["events"]
        assert [c["name"] for c in inspector.get_columns("events")] == ["id", "ts", "epoch", "v"]
        assert inspector.get_pk_constraint("events")["constrained_columns"] == ["id"]
    finally:
        engine.dispose()


def test_metabase_connect_probes_the_time_zone(cur: Any) -> None:
    # db-default-timezone: TIMEDIFF(now, now converted to UTC) formatted '%H:%i' is the offset
    cur.execute(
        "SELECT @@GLOBAL.time_zone AS global_tz, @@system_time_zone AS system_tz, time_format("
        "   timediff(      now(), convert_tz(now(), @@GLOBAL.time_zone, '+00:00')   ),   '%H:%i' ) "
        "AS offset;"
    )
    ((global_tz, system_tz, offset),) = cur.fetchall()
    assert [d[0] for d in cur.description] == ["global_tz", "system_tz", "offset"]
    assert offset == "00:00", "a UTC server: now() - CONVERT_TZ(now(), UTC, '+00:00') is 0"
    assert global_tz and system_tz
    # set-timezone-sql, sent when a report time zone is set
    cur.execute("SET @@session.time_zone = '+00:00';")
    assert _column(cur, "SELECT @@session.time_zone") == ["+00:00"]


@pytest.mark.parametrize("unit", list(METABASE_GRAINS))
def test_metabase_date_units(cur: Any, unit: str) -> None:
    expression, expected, why = METABASE_GRAINS[unit]
    sql = f"SELECT {expression} AS `ts` FROM `{DB}`.`events` ORDER BY `{DB}`.`events`.`id` ASC"
    assert _exact(_column(cur, sql)) == _exact(expected), why


def test_metabase_grouped_by_week(cur: Any) -> None:
    expression = METABASE_GRAINS["week"][0]
    cur.execute(
        f"SELECT {expression} AS `ts`, count(*) AS `count` FROM `{DB}`.`events` "
        f"GROUP BY {expression} ORDER BY {expression} ASC"
    )
    assert cur.fetchall() == ((D(2023, 12, 31), 1), (D(2024, 3, 31), 1), (D(2024, 5, 12), 1))


# Grafana: a dashboard range 2024-01-01 00:00:00 .. 2024-03-31 23:59:59 UTC
FROM, TO = 1704067200, 1711929599


def test_grafana_time_group_alias_and_time_filter(cur: Any) -> None:
    # $__timeGroupAlias(ts, '1h'), $__timeFilter(ts): UNIX_TIMESTAMP DIV 3600 * 3600 floors to the
    # hour
    cur.execute(
        f'SELECT UNIX_TIMESTAMP(ts) DIV 3600 * 3600 AS "time", avg(v) AS value FROM events '
        f"WHERE ts BETWEEN FROM_UNIXTIME({FROM}) AND FROM_UNIXTIME({TO}) GROUP BY 1 ORDER BY 1"
    )
    assert [d[0] for d in cur.description] == ["time", "value"], 'MySQL takes "time" as the alias'
    assert cur.fetchall() == (
        (1704189600, 1.5),
        (1711926000, 2.5),
    )  # 10:00 and 23:00; row 3 out of range


def test_grafana_time_group_5m_and_time_column(cur: Any) -> None:
    # $__timeGroup(ts, '5m') and $__time(ts)
    assert _column(cur, "SELECT UNIX_TIMESTAMP(ts) DIV 300 * 300 FROM events ORDER BY id") == [
        1704190500,
        1711929300,
        1715731200,
    ]  # 10:15:00, 23:55:00, midnight
    cur.execute("SELECT UNIX_TIMESTAMP(ts) as time_sec, v FROM events ORDER BY time_sec")
    assert cur.description[0][0] == "time_sec"
    assert [r[0] for r in cur.fetchall()] == [1704190530, 1711929599, 1715731200]


def test_grafana_time_from_to_and_a_range_before_1970(cur: Any) -> None:
    # $__timeFrom()/$__timeTo(), and $__timeFilter when the range starts before the epoch
    cur.execute(f"SELECT FROM_UNIXTIME({FROM}), FROM_UNIXTIME({TO})")
    assert cur.fetchall() == ((T(2024, 1, 1), T(2024, 3, 31, 23, 59, 59)),)
    assert _column(
        cur,
        "SELECT id FROM events WHERE ts BETWEEN DATE_ADD(FROM_UNIXTIME(0), "
        "INTERVAL -100 SECOND) AND FROM_UNIXTIME(1704190530) ORDER BY id",
    ) == [1]


def test_grafana_unix_epoch_macros(cur: Any) -> None:
    # $__unixEpochGroupAlias(epoch, '1d') with $__unixEpochFilter(epoch)
    cur.execute(
        f'SELECT epoch DIV 86400 * 86400 AS "time", count(*) FROM events '
        f"WHERE epoch >= {FROM} AND epoch <= {TO} GROUP BY 1 ORDER BY 1"
    )
    assert cur.fetchall() == ((1704153600, 1), (1711843200, 1))  # midnight of Jan 2 and Mar 31


def test_grafana_query_editor_browses_databases_tables_and_columns(cur: Any) -> None:
    cur.execute(
        "SELECT DISTINCT TABLE_SCHEMA from information_schema.TABLES where TABLE_TYPE != 'SYSTEM "
        "VIEW' "
        "ORDER BY TABLE_SCHEMA"
    )
    assert (DB,) in cur.fetchall()
    for database in (f"'{DB}'", "database()"):  # a chosen dataset, or the connection's database
        cur.execute(
            f"SELECT table_name FROM information_schema.tables WHERE table_schema = {database} "
            "ORDER BY table_name"
        )
        assert cur.description[0][0] == "TABLE_NAME", (
            "MySQL 8 labels information_schema columns upper case"
        )
        assert cur.fetchall() == (("events",),)
    # buildColumnQuery(…, 'time'): the columns a time axis may use
    cur.execute(
        f"SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = "
        f"'{DB}' "
        "AND table_name = 'events' AND data_type IN "
        "('timestamp','datetime','bigint','int','double','float') "
        "ORDER BY column_name"
    )
    assert cur.fetchall() == (
        ("epoch", "bigint"),
        ("id", "int"),
        ("ts", "datetime"),
        ("v", "double"),
    )
    # buildColumnQuery(…, 'value') excludes the time column chosen
    cur.execute(
        f"SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = "
        f"'{DB}' "
        "AND table_name = 'events' AND data_type IN "
        "('bigint','int','smallint','mediumint','tinyint',"
        "'double','decimal','float') AND column_name <> 'ts' ORDER BY column_name"
    )
    assert [r[0] for r in cur.fetchall()] == ["epoch", "id", "v"]


def test_dbeaver_connect_sequence(cur: Any) -> None:
    cur.execute("SHOW ENGINES")
    assert [d[0] for d in cur.description][:3] == ["Engine", "Support", "Comment"]
    assert any(row[1] == "DEFAULT" for row in cur.fetchall()), "DBeaver's getDefaultEngine"
    cur.execute("SHOW CHARSET")
    charsets = {row[0] for row in cur.fetchall()}
    assert {"utf8mb4", "latin1", "binary"} <= charsets
    cur.execute("SHOW COLLATION")  # each collation's charset must be one SHOW CHARSET listed
    assert [d[0] for d in cur.description][:2] == ["Collation", "Charset"]
    collations = cur.fetchall()
    assert {row[1] for row in collations} <= charsets and ("utf8mb4_0900_ai_ci", "utf8mb4") in {
        (row[0], row[1]) for row in collations
    }
    cur.execute("SELECT * FROM information_schema.SCHEMATA")
    assert [d[0] for d in cur.description][:2] == ["CATALOG_NAME", "SCHEMA_NAME"]
    assert DB in {row[1] for row in cur.fetchall()}
    assert _column(cur, "SELECT DATABASE()") == [DB]
    cur.execute(f"use `{DB}`")
    for statement in ("SHOW VARIABLES", "SHOW STATUS", "SHOW GLOBAL STATUS"):
        cur.execute(statement)  # read by the columns variable_name and value
        assert [d[0].lower() for d in cur.description] == ["variable_name", "value"]


def test_dbeaver_browses_tables_and_columns(cur: Any) -> None:
    cur.execute(f"SHOW FULL TABLES FROM `{DB}`")
    assert [d[0] for d in cur.description] == [f"Tables_in_{DB}", "Table_type"]
    assert cur.fetchall() == (("events", "BASE TABLE"),)
    cur.execute(
        "SELECT * FROM information_schema.COLUMNS WHERE TABLE_SCHEMA=%s AND TABLE_NAME=%s "
        "ORDER BY ORDINAL_POSITION",
        (DB, "events"),
    )
    names = [d[0] for d in cur.description]
    rows = [dict(zip(names, row)) for row in cur.fetchall()]
    assert [
        (r["COLUMN_NAME"], r["DATA_TYPE"], r["IS_NULLABLE"], r["COLUMN_KEY"]) for r in rows
    ] == [
        ("id", "int", "NO", "PRI"),
        ("ts", "datetime", "NO", ""),
        ("epoch", "bigint", "NO", ""),
        ("v", "double", "YES", ""),
    ]


JAR = Path("/usr/share/java/mariadb-java-client.jar")
JDBC_SOURCE = Path(__file__).resolve().parent.parent / "jdbc" / "DrydockJdbcReplay.java"


def _java_text(value: Any) -> tuple[str, str]:
    """(JDBC type of the column, getObject().toString()) MySQL's value gives in Connector/J."""
    if isinstance(value, dt.datetime):
        return "TIMESTAMP", f"{value:%Y-%m-%d %H:%M:%S}.0"  # java.sql.Timestamp.toString()
    if isinstance(value, dt.date):
        return "DATE", value.isoformat()
    return "*", str(value)  # integers: the value only (MySQL's INT vs BIGINT is not compared)


def test_metabase_grains_through_connector_j(bi: ServerProcess, tmp_path: Path) -> None:
    """Metabase sends its SQL through a JDBC driver: the same date units, read with getObject,
    must come back as java.sql.Date / Timestamp where MySQL answers DATE / DATETIME."""
    javac, java = shutil.which("javac"), shutil.which("java")
    if javac is None or java is None or not JAR.exists():
        pytest.skip(
            f"needs javac, java and {JAR} (.ci/run installs default-jdk-headless libmariadb-java)"
        )
    built = subprocess.run(
        [javac, "-cp", str(JAR), "-d", str(tmp_path), str(JDBC_SOURCE)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert built.returncode == 0, built.stderr
    lines = []
    for unit, (expression, expected, _) in {
        **METABASE_GRAINS,
        **{f"superset {g}": v for g, v in SUPERSET_GRAINS.items()},
    }.items():
        types = {_java_text(v)[0] for v in expected}
        column = expression.format(col="ts") if unit.startswith("superset") else expression
        lines.append(
            "\t".join(
                [
                    unit,
                    f"SELECT {column} FROM `{DB}`.`events` ORDER BY id",
                    types.pop(),
                    ",".join(_java_text(v)[1] for v in expected),
                ]
            )
        )
    script = tmp_path / "replay.tsv"
    script.write_text("\n".join(lines) + "\n")
    result = subprocess.run(
        [
            java,
            "-cp",
            f"{JAR}:{tmp_path}",
            "DrydockJdbcReplay",
            bi.host,
            str(bi.port),
            DB,
            str(script),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=180,
    )
    report = f"stdout:\n{result.stdout}\nstderr:\n{result.stderr[-3000:]}"
    assert [line for line in result.stdout.splitlines() if line.startswith("FAIL ")] == [], report
    assert result.stdout.count("\nOK ") + result.stdout.startswith("OK ") == len(lines), report
    assert "DONE failures=0" in result.stdout and result.returncode == 0, report
