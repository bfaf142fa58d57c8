"""The MySQL functions BI tools and ORMs generate, with MySQL's documented results.

Each row: (expression, expected, source). ``expected`` is the result as MySQL's manual gives it,
written as the text the mysql CLI prints (None for NULL); tests/sql/test_mysql_functions.py compares
it
with ``str()`` of what the driver returns, so a DATE, DATETIME or number compares by its text.

Sources are sections of the MySQL 8.0 Reference Manual ("12.7" = Date and Time Functions, "12.8"
= String Functions, "12.5" = Flow Control Functions, "10.8" = collations). Where the manual's
example depends on the session time zone (FROM_UNIXTIME, UNIX_TIMESTAMP) the expected value is the
manual's example evaluated with drydock's session time zone, UTC ('+00:00'), and says so.
"""

from __future__ import annotations

CORPUS: list[tuple[str, str | None, str]] = [
    # -- day and week numbers: Grafana, Metabase and Superset time grains --------------------------
    ("DAYOFWEEK('2007-02-03')", "7", "12.7 DAYOFWEEK(): 1 = Sunday … 7 = Saturday; example"),
    ("DAYOFWEEK('2024-01-07')", "1", "12.7 DAYOFWEEK(): a Sunday is 1"),
    ("WEEKDAY('2008-02-03 22:23:00')", "6", "12.7 WEEKDAY(): 0 = Monday … 6 = Sunday; example"),
    ("WEEKDAY('2007-11-06')", "1", "12.7 WEEKDAY(): example"),
    ("WEEK('2008-02-20')", "7", "12.7 WEEK(): example (default mode 0)"),
    ("WEEK('2008-02-20',0)", "7", "12.7 WEEK(): example"),
    ("WEEK('2008-02-20',1)", "8", "12.7 WEEK(): example"),
    ("WEEK('2008-12-31',1)", "53", "12.7 WEEK(): example"),
    (
        "WEEK('2000-01-01')",
        "0",
        "12.7 WEEK(): example (first day before the first Sunday is week 0)",
    ),
    ("WEEK('2000-01-01',2)", "52", "12.7 WEEK(): example (mode 2 carries the week over the year)"),
    ("WEEK('2000-01-01',3)", "52", "12.7 WEEK(): mode 3 is ISO 8601 (2000-01-01 is in 1999-W52)"),
    ("WEEK('2008-12-29',3)", "1", "12.7 WEEK(): mode 3 is ISO 8601 (2008-12-29 is in 2009-W01)"),
    ("YEARWEEK('1987-01-01')", "198652", "12.7 YEARWEEK(): example"),
    ("WEEKOFYEAR('2008-02-20')", "8", "12.7 WEEKOFYEAR(): example"),
    ("DAYOFYEAR('2007-02-03')", "34", "12.7 DAYOFYEAR(): example"),
    ("DAYNAME('2007-02-03')", "Saturday", "12.7 DAYNAME(): example"),
    ("MONTHNAME('2008-02-03')", "February", "12.7 MONTHNAME(): example"),
    ("QUARTER('2008-04-01')", "2", "12.7 QUARTER(): example"),
    # -- making and converting dates ------------------------------------------------------------
    ("MAKEDATE(2011,31)", "2011-01-31", "12.7 MAKEDATE(): example"),
    ("MAKEDATE(2011,32)", "2011-02-01", "12.7 MAKEDATE(): example"),
    ("MAKEDATE(2011,365)", "2011-12-31", "12.7 MAKEDATE(): example"),
    ("MAKEDATE(2014,365)", "2014-12-31", "12.7 MAKEDATE(): example"),
    ("MAKEDATE(2011,0)", None, "12.7 MAKEDATE(): example (day of year 0 is NULL)"),
    ("LAST_DAY('2003-02-05')", "2003-02-28", "12.7 LAST_DAY(): example"),
    ("LAST_DAY('2004-02-05')", "2004-02-29", "12.7 LAST_DAY(): example"),
    ("DATEDIFF('2007-12-31 23:59:59','2007-12-30')", "1", "12.7 DATEDIFF(): example"),
    ("TIMESTAMPDIFF(MONTH,'2003-02-01','2003-05-01')", "3", "12.7 TIMESTAMPDIFF(): example"),
    ("TO_DAYS('2007-10-07')", "733321", "12.7 TO_DAYS(): example"),
    ("FROM_DAYS(730669)", "2000-07-03", "12.7 FROM_DAYS(): example"),
    ("TO_DAYS(FROM_DAYS(730669))", "730669", "12.7 TO_DAYS()/FROM_DAYS() are inverse"),
    ("TIMESTAMPDIFF(YEAR,'2002-05-01','2001-01-01')", "-1", "12.7 TIMESTAMPDIFF(): example"),
    (
        "TIMESTAMPDIFF(MINUTE,'2003-02-01','2003-05-01 12:05:55')",
        "128885",
        "12.7 TIMESTAMPDIFF(): example",
    ),
    (
        "TIMESTAMPDIFF(DAY,'2003-02-01 12:00:00','2003-02-02 11:00:00')",
        "0",
        "12.7 TIMESTAMPDIFF(): counts complete units (23 hours are 0 days)",
    ),
    ("HOUR('10:05:03')", "10", "12.7 HOUR(): example"),
    ("MINUTE('2008-02-03 10:05:03')", "5", "12.7 MINUTE(): example"),
    ("SECOND('10:05:03')", "3", "12.7 SECOND(): example"),
    ("STR_TO_DATE('01,5,2013','%d,%m,%Y')", "2013-05-01", "12.7 STR_TO_DATE(): example"),
    (
        "DATE_FORMAT('2009-10-04 22:23:00', '%W %M %Y')",
        "Sunday October 2009",
        "12.7 DATE_FORMAT(): example",
    ),
    ("DATE_FORMAT('2007-10-04 22:23:00', '%H:%i:%s')", "22:23:00", "12.7 DATE_FORMAT(): example"),
    (
        "TIME_FORMAT('22:23:01', '%H:%i:%s')",
        "22:23:01",
        "12.7 TIME_FORMAT(): like DATE_FORMAT() with the hour, minute and second specifiers",
    ),
    (
        "TIME_FORMAT('22:23:01', '%h %p')",
        "10 PM",
        "12.7 TIME_FORMAT() with DATE_FORMAT's %h and %p",
    ),
    (
        "TIME_FORMAT('100:00:00', '%H %k %h %I %l')",
        "100 100 04 04 4",
        "12.7 TIME_FORMAT(): example (%H and %k above 23; the other hour specifiers modulo 12)",
    ),
    (
        "TIME_FORMAT('-01:30:05', '%H:%i:%s')",
        "-01:30:05",
        "11.2.3 TIME values may be negative; the sign leads",
    ),
    ("TIME_FORMAT(NULL, '%H')", None, "12.7 TIME_FORMAT(): NULL in, NULL out"),
    (
        "TIMEDIFF('2000-01-01 00:00:00', '2000-01-01 00:00:00.000001')",
        "-00:00:00.000001",
        "12.7 TIMEDIFF(): example",
    ),
    (
        "TIMEDIFF('2008-12-31 23:59:59.000001', '2008-12-30 01:01:01.000002')",
        "46:58:57.999999",
        "12.7 TIMEDIFF(): example (hours beyond 23)",
    ),
    ("'Ball' REGEXP '^b'", "1", "14.8.2 REGEXP: case-insensitive under utf8mb4_0900_ai_ci"),
    ("'Ball' RLIKE '^b'", "1", "14.8.2 RLIKE is a synonym for REGEXP_LIKE()"),
    ("REGEXP_LIKE('Ball', '^b', 'c')", "0", "14.8.2 REGEXP_LIKE(): match_type c"),
    ("BINARY 'Ball' REGEXP '^b'", "0", "14.8.2 REGEXP: a binary operand is case-sensitive"),
    ("'Ball' LIKE BINARY 'b%'", "0", "14.8.1 LIKE: a binary string compares case-sensitively"),
    ("'Ball' LIKE BINARY 'B%'", "1", "14.8.1 LIKE BINARY"),
    ("SEC_TO_TIME(2378)", "00:39:38", "12.7 SEC_TO_TIME(): example"),
    ("SEC_TO_TIME(-5000000)", "-838:59:59", "12.7 SEC_TO_TIME(): clamped to the TIME range"),
    ("TIME '100:00:00'", "100:00:00", "11.2.3 TIME: hours beyond 23 (range -838:59:59..838:59:59)"),
    ("CAST('-01:30:00' AS TIME)", "-01:30:00", "11.2.3 TIME: negative values"),
    (
        "TIMEDIFF('10:00:00', '12:30:00')",
        "-02:30:00",
        "12.7 TIMEDIFF(): two TIMEs, negative result",
    ),
    (
        "STR_TO_DATE('200442 Monday', '%X%V %W')",
        "2004-10-18",
        "12.7 STR_TO_DATE(): example (year-of-week %X, week %V Sunday-first, weekday name %W)",
    ),
    (
        "STR_TO_DATE('202353 Sunday', '%X%V %W')",
        "2023-12-31",
        "12.7 %X%V: week 1 of 2023 starts on its first Sunday, 2023-01-01; week 53 on 2023-12-31",
    ),
    (
        "STR_TO_DATE('202353 Funday', '%X%V %W')",
        None,
        "12.7 STR_TO_DATE(): a string that does not match is NULL",
    ),
    (
        "CONVERT_TZ('2004-01-01 12:00:00','GMT','MET')",
        "2004-01-01 13:00:00",
        "12.7 CONVERT_TZ(): example",
    ),
    (
        "CONVERT_TZ('2004-01-01 12:00:00','+00:00','+10:00')",
        "2004-01-01 22:00:00",
        "12.7 CONVERT_TZ(): example",
    ),
    (
        "CONVERT_TZ('2004-01-01 12:00:00','-05:30','+00:00')",
        "2004-01-01 17:30:00",
        "12.7 CONVERT_TZ(): '+hh:mm' offsets as in the example",
    ),
    # -- Unix time (Grafana's $__timeGroup / $__unixEpochFilter) ---------------------------------
    (
        "FROM_UNIXTIME(1447430881)",
        "2015-11-13 16:08:01",
        "12.7 FROM_UNIXTIME(): example, evaluated with time_zone '+00:00'",
    ),
    (
        "FROM_UNIXTIME(1447430881, '%Y %M %h:%i:%s %x')",
        "2015 November 04:08:01 2015",
        "12.7 FROM_UNIXTIME(): example's format without %D, evaluated with time_zone '+00:00'",
    ),
    (
        "FROM_UNIXTIME(1447430881, '%Y %D %M %h:%i:%s %x')",
        "2015 13th November 04:08:01 2015",
        "12.7 FROM_UNIXTIME(): example, evaluated with time_zone '+00:00'",
    ),
    (
        "DATE_FORMAT('1900-10-04 22:23:00', '%D %y %a %d %m %b %j')",
        "4th 00 Thu 04 10 Oct 277",
        "12.7 DATE_FORMAT(): example (%D: day of the month with an English suffix)",
    ),
    ("DATE_FORMAT('2024-01-01', '%D %D|%D')", "1st 1st|1st", "12.7 DATE_FORMAT() %D, repeated"),
    (
        "CONCAT(DATE_FORMAT('2024-01-02', '%D'), DATE_FORMAT('2024-01-03', '%D'), "
        "DATE_FORMAT('2024-01-11', '%D'), "
        "DATE_FORMAT('2024-01-22', '%D'), DATE_FORMAT('2024-01-13', '%D'))",
        "2nd3rd11th22nd13th",
        "12.7 DATE_FORMAT() %D: 11th-13th take 'th'",
    ),
    ("DATE_FORMAT('2024-01-02', '100%% %D')", "100% 2nd", "12.7 DATE_FORMAT(): %% is a literal %"),
    ("DATE_FORMAT(NULL, '%D')", None, "12.7 DATE_FORMAT(): NULL in, NULL out"),
    (
        "DATE_ADD('2018-05-01', INTERVAL 1 DAY)",
        "2018-05-02",
        "12.7 DATE_ADD(): example (a DATE stays a DATE)",
    ),
    ("DATE_SUB('2018-05-01', INTERVAL 1 YEAR)", "2017-05-01", "12.7 DATE_SUB(): example"),
    (
        "DATE_ADD('2020-12-31 23:59:59', INTERVAL 1 SECOND)",
        "2021-01-01 00:00:00",
        "12.7 DATE_ADD(): example",
    ),
    (
        "DATE_ADD('2018-12-31 23:59:59', INTERVAL 1 DAY)",
        "2019-01-01 23:59:59",
        "12.7 DATE_ADD(): example (a DATETIME keeps its time)",
    ),
    (
        "DATE('2024-01-01') + INTERVAL 1 QUARTER",
        "2024-04-01",
        "12.7 date arithmetic: DATE + INTERVAL QUARTER is a DATE",
    ),
    (
        "'2024-01-01 10:00:00' + INTERVAL 1 SECOND",
        "2024-01-01 10:00:01",
        "12.7 date arithmetic: a string operand is read as a DATETIME",
    ),
    ("'2018-05-01' - INTERVAL 1 DAY", "2018-04-30", "12.7 date arithmetic: a date string"),
    (
        "MAKEDATE(2024, 1) + INTERVAL 2 QUARTER - INTERVAL 1 QUARTER",
        "2024-04-01",
        "12.7 Superset's quarter grain: MAKEDATE is a DATE and stays one",
    ),
    (
        "UNIX_TIMESTAMP('1970-01-02 00:00:00')",
        "86400",
        "12.7 UNIX_TIMESTAMP(): seconds since '1970-01-01 00:00:00' UTC, time_zone '+00:00'",
    ),
    (
        "UNIX_TIMESTAMP('2015-11-13 16:08:01')",
        "1447430881",
        "12.7 UNIX_TIMESTAMP(): the inverse of the FROM_UNIXTIME example, time_zone '+00:00'",
    ),
    (
        "UNIX_TIMESTAMP(FROM_UNIXTIME(1447430881))",
        "1447430881",
        "12.7 FROM_UNIXTIME()/UNIX_TIMESTAMP() round trip",
    ),
    (
        "UNIX_TIMESTAMP('2015-11-13 16:08:01') DIV 300 * 300",
        "1447430700",
        "Grafana $__timeGroup(col, '5m') shape: UNIX_TIMESTAMP(col) DIV 300 * 300 (integer "
        "arithmetic)",
    ),
    # -- JSON search (12.18.3), on the manual's @j = '{"a": 1, "b": 2, "c": {"d": 4}}' --
    (
        'JSON_CONTAINS(\'{"a": 1, "b": 2, "c": {"d": 4}}\', \'1\', \'$.a\')',
        "1",
        "12.18.3 JSON_CONTAINS(): example",
    ),
    (
        'JSON_CONTAINS(\'{"a": 1, "b": 2, "c": {"d": 4}}\', \'1\', \'$.b\')',
        "0",
        "12.18.3 JSON_CONTAINS(): example",
    ),
    (
        'JSON_CONTAINS(\'{"a": 1, "b": 2, "c": {"d": 4}}\', \'{"d": 4}\', \'$.a\')',
        "0",
        "12.18.3 JSON_CONTAINS(): example",
    ),
    (
        'JSON_CONTAINS(\'{"a": 1, "b": 2, "c": {"d": 4}}\', \'{"d": 4}\', \'$.c\')',
        "1",
        "12.18.3 JSON_CONTAINS(): example",
    ),
    (
        'JSON_CONTAINS(\'{"a": 1, "b": 2, "c": {"d": 4}}\', \'1\')',
        "0",
        "12.18.3 JSON_CONTAINS(): a scalar is not in an object",
    ),
    (
        "JSON_CONTAINS('[1, [2, 3]]', '[1, 3]')",
        "1",
        "12.18.3 an array candidate: each element in some element of the target",
    ),
    (
        "JSON_CONTAINS('{\"a\": [1, 2]}', '{\"a\": 1}')",
        "1",
        "12.18.3 a non-array candidate is contained in an array holding it",
    ),
    (
        'JSON_CONTAINS(\'{"a": 1, "b": 2, "c": {"d": 4}}\', \'1\', \'$.e\')',
        None,
        "12.18.3 JSON_CONTAINS(): a path with no data is NULL",
    ),
    (
        "JSON_CONTAINS_PATH('{\"a\": 1, \"b\": 2, \"c\": {\"d\": 4}}', 'one', '$.a', '$.e')",
        "1",
        "12.18.3 JSON_CONTAINS_PATH(): example",
    ),
    (
        "JSON_CONTAINS_PATH('{\"a\": 1, \"b\": 2, \"c\": {\"d\": 4}}', 'all', '$.a', '$.e')",
        "0",
        "12.18.3 JSON_CONTAINS_PATH(): example",
    ),
    (
        'JSON_CONTAINS_PATH(\'{"a": 1, "b": 2, "c": {"d": 4}}\', \'one\', \'$.c.d\')',
        "1",
        "12.18.3 JSON_CONTAINS_PATH(): example",
    ),
    (
        'JSON_CONTAINS_PATH(\'{"a": 1, "b": 2, "c": {"d": 4}}\', \'one\', \'$.a.d\')',
        "0",
        "12.18.3 JSON_CONTAINS_PATH(): example",
    ),
    ("JSON_CONTAINS_PATH('[1, [2, 3]]', 'one', '$[last][0]')", "1", "12.18.2 path [last]"),
    (
        'JSON_CONTAINS_PATH(\'{"a": 1, "b": 2, "c": {"d": 4}}\', \'one\', \'$**.d\')',
        "1",
        "12.18.2 path ** (any depth)",
    ),
    # -- strings --------------------------------------------------------------------------------
    ("SUBSTRING_INDEX('www.mysql.com', '.', 2)", "www.mysql", "12.8 SUBSTRING_INDEX(): example"),
    ("SUBSTRING_INDEX('www.mysql.com', '.', -2)", "mysql.com", "12.8 SUBSTRING_INDEX(): example"),
    (
        "SUBSTRING_INDEX('www.mysql.com', '.', 0)",
        "",
        "12.8 SUBSTRING_INDEX(): count 0 is the empty string",
    ),
    (
        "SUBSTRING_INDEX('www.mysql.com', '.', 10)",
        "www.mysql.com",
        "12.8 SUBSTRING_INDEX(): fewer delimiters than count: the whole string",
    ),
    (
        "CONCAT_WS(',','First name','Second name','Last Name')",
        "First name,Second name,Last Name",
        "12.8 CONCAT_WS(): example",
    ),
    ("LOCATE('bar', 'foobarbar')", "4", "12.8 LOCATE(): example"),
    ("INSTR('foobarbar', 'bar')", "4", "12.8 INSTR(): example"),
    ("LEFT('foobarbar', 5)", "fooba", "12.8 LEFT(): example"),
    ("IFNULL(NULL,10)", "10", "12.5 IFNULL(): example"),
    # -- collation: utf8mb4_0900_ai_ci is MySQL 8's default --------------------------------------
    ("'abc' = 'ABC'", "1", "10.8.5 / 10.10.1: utf8mb4_0900_ai_ci compares without case"),
    ("'é' = 'e'", "1", "10.10.1: utf8mb4_0900_ai_ci compares without accents"),
    ("'abc' = 'ABC' COLLATE utf8mb4_bin", "0", "10.8.5: a _bin collation compares code points"),
    ("'abc' = BINARY 'ABC'", "0", "12.11 BINARY: a binary string compares byte by byte"),
]
