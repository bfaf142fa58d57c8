-- Column types: what a table of every common type reports through the protocol (the column
-- definitions of a SELECT), DESCRIBE / SHOW COLUMNS, and the values it reads back as text.

-- name: types_integer_columns
-- Integer types: INT, TINYINT(1) (what ORMs call a boolean), BIGINT UNSIGNED. The column
-- definitions carry type code, display length, NUM/UNSIGNED/NOT_NULL/PRI_KEY flags.
CREATE TABLE t (id INT NOT NULL PRIMARY KEY, flag TINYINT(1), big BIGINT UNSIGNED, small SMALLINT);
INSERT INTO t VALUES (1, 1, 18446744073709551615, -32768), (2, 0, 0, NULL);
-- check:
SELECT * FROM t ORDER BY id;
DESCRIBE t;

-- name: types_decimal_float_columns
-- DECIMAL(10,2) keeps its scale in the column definition; FLOAT and DOUBLE print their shortest form.
CREATE TABLE t (d DECIMAL(10,2), f FLOAT, g DOUBLE);
INSERT INTO t VALUES (12345678.9, 1.5, 2.25), (-0.5, NULL, 1e100);
-- check:
SELECT * FROM t ORDER BY d;
DESCRIBE t;

-- name: types_string_columns
-- CHAR(3), VARCHAR(40), TEXT, LONGTEXT: type codes (CHAR is STRING 254), lengths in bytes
-- (4 per utf8mb4 character), BLOB flag for the TEXT family.
CREATE TABLE t (c CHAR(3), v VARCHAR(40), tx TEXT, lt LONGTEXT);
INSERT INTO t VALUES ('ab', 'hello', 'some text', 'long text');
-- check:
SELECT * FROM t;
DESCRIBE t;

-- name: types_binary_columns
-- BLOB and BIT(8): binary values; BIT reads back as its bytes.
CREATE TABLE t (b BLOB, bits BIT(8));
INSERT INTO t VALUES (x'00ff41', b'00000101');
-- check:
SELECT * FROM t;
DESCRIBE t;

-- name: types_temporal_columns
-- DATE, DATETIME, DATETIME(3), TIMESTAMP, TIME, YEAR: type codes, lengths, decimals (fsp), text.
CREATE TABLE t (d DATE, dt DATETIME, dt3 DATETIME(3), ts TIMESTAMP NULL, tm TIME, y YEAR);
INSERT INTO t VALUES ('2024-02-29', '2024-02-29 13:14:15', '2024-02-29 13:14:15.123', '2024-02-29 13:14:15', '-12:30:00', 2024);
-- check:
SELECT * FROM t;
DESCRIBE t;

-- name: types_enum_set_columns
-- ENUM and SET: strings on the wire with the ENUM / SET flag; SET normalises member order.
CREATE TABLE t (e ENUM('small','medium','large'), s SET('a','b','c'));
INSERT INTO t VALUES ('medium', 'c,a');
-- check:
SELECT * FROM t;
DESCRIBE t;

-- name: types_json_column
-- JSON: type 245 in MySQL 8, values normalised ({"a": 1} with a space after the colon).
CREATE TABLE t (j JSON);
INSERT INTO t VALUES ('{"b":[1,2],"a":1}');
-- check:
SELECT * FROM t;
DESCRIBE t;

-- name: types_show_full_columns
-- SHOW FULL COLUMNS: collation, privileges and comment columns.
CREATE TABLE t (id INT PRIMARY KEY COMMENT 'the key', name VARCHAR(40) NOT NULL DEFAULT 'x', n DECIMAL(10,2) DEFAULT 0);
-- check:
SHOW FULL COLUMNS FROM t;
SHOW COLUMNS FROM t LIKE 'n%';

-- name: types_defaults_and_auto_increment
-- DESCRIBE shows defaults as values and auto_increment / on update in Extra.
CREATE TABLE t (id BIGINT AUTO_INCREMENT PRIMARY KEY, created DATETIME DEFAULT CURRENT_TIMESTAMP, updated TIMESTAMP NULL DEFAULT NULL ON UPDATE CURRENT_TIMESTAMP, status VARCHAR(10) DEFAULT 'new', qty INT NOT NULL DEFAULT 1);
-- check:
DESCRIBE t;

-- name: types_time_range
-- TIME spans -838:59:59..838:59:59 (MySQL 13.2.3): negative values, more than 24 hours, the
-- 'D HH:MM' and HHMMSS forms, ordered and compared as durations.
CREATE TABLE t (id INT PRIMARY KEY, tm TIME);
INSERT INTO t VALUES (1, '-12:30:00'), (2, '100:00:00'), (3, '12:30:00'), (4, '838:59:59'), (5, '-838:59:59'), (6, '1 12:30'), (7, '123000'), (8, 10203), (9, NULL);
-- check:
SELECT id, tm FROM t ORDER BY tm, id;
SELECT id FROM t WHERE tm = '12:30:00' ORDER BY id;
SELECT id FROM t WHERE tm > '01:00' ORDER BY id;
SELECT id FROM t WHERE tm < '-01:00:00' ORDER BY id;
SELECT id FROM t WHERE tm BETWEEN '00:00:00' AND '24:00:00' ORDER BY id;
SELECT MIN(tm), MAX(tm), COUNT(tm) FROM t;
SELECT id, TIME_TO_SEC(tm) FROM t ORDER BY id;
SELECT id, TIME_FORMAT(tm, '%H:%i:%s') FROM t WHERE id < 5 ORDER BY id;

-- name: types_time_out_of_range
-- Strict mode refuses a TIME beyond ±838:59:59 or no time at all (1292); without it the value is
-- clipped (warning 1264) or 00:00:00 (warning 1265).
CREATE TABLE t (tm TIME);
-- check:
INSERT INTO t VALUES ('839:00:00');
INSERT INTO t VALUES (-8390000);
INSERT INTO t VALUES ('abc');
UPDATE t SET tm = '900:00:00';
SET SESSION sql_mode = '';
INSERT INTO t VALUES ('900:00:00'), ('-900:00:00'), ('abc');
SELECT tm FROM t ORDER BY tm;

-- name: types_time_comparisons
-- Values compared with a TIME column are converted to TIME as MySQL converts them: HHMMSS
-- strings and numbers, 'D HH:MM', a TIME, in WHERE, BETWEEN, IN, HAVING, UPDATE and DELETE.
CREATE TABLE t (id INT PRIMARY KEY, tm TIME);
INSERT INTO t VALUES (1, '-12:30:00'), (2, '100:00:00'), (3, '12:30:00'), (4, '838:59:59'), (5, '1 12:30');
-- check:
SELECT id FROM t WHERE tm = '123000' ORDER BY id;
SELECT id FROM t WHERE tm > 10000 ORDER BY id;
SELECT id FROM t WHERE tm IN ('123000', 1000000) ORDER BY id;
SELECT id FROM t WHERE tm BETWEEN -123000 AND '1 00:00' ORDER BY id;
SELECT id FROM t WHERE tm > TIME '01:00:00' ORDER BY id;
SELECT id FROM t WHERE tm > SEC_TO_TIME(3600) ORDER BY id;
SELECT id, COUNT(*) FROM t WHERE tm > '2:00' GROUP BY id HAVING MAX(tm) > 1000000 ORDER BY id;
UPDATE t SET tm = '00:00:01' WHERE tm = 123000;
DELETE FROM t WHERE tm = -123000;
SELECT id, tm FROM t ORDER BY tm;

-- name: types_time_functions
-- Functions reading a TIME column beyond one day or below zero: HOUR/MINUTE/SECOND of the
-- magnitude, ADDTIME/SUBTIME/TIMEDIFF, CAST AS TIME, TIME_FORMAT, + INTERVAL, ORDER BY DESC.
CREATE TABLE t (id INT PRIMARY KEY, tm TIME);
INSERT INTO t VALUES (1, '-12:30:00'), (2, '100:00:00'), (3, '01:02:03');
-- check:
SELECT id, HOUR(tm), MINUTE(tm), SECOND(tm) FROM t ORDER BY id;
SELECT id, ADDTIME(tm, '01:00:00'), SUBTIME(tm, '01:00:00'), TIMEDIFF(tm, '01:00:00') FROM t ORDER BY id;
SELECT id, CAST(tm AS TIME), CAST(tm AS CHAR), TIME_FORMAT(tm, '%H.%i') FROM t ORDER BY id;
SELECT id, tm + INTERVAL 1 HOUR FROM t ORDER BY id;
SELECT id, tm FROM t ORDER BY tm DESC;

-- name: types_time_arithmetic
-- A TIME in numeric context is the number HHMMSS[.fraction] (MySQL 13.2.8): arithmetic on the
-- column is integer arithmetic for TIME(0), DECIMAL with the column's scale for TIME(n); SUM and
-- AVG add those numbers ('-838:59:59' is -8385959, TIME(2) '01:00:00.50' is 10000.50).
CREATE TABLE t (id INT PRIMARY KEY, tm TIME, t2 TIME(2), t3 TIME(3));
INSERT INTO t VALUES (1, '10:11:12', '01:00:00.50', '01:00:00.5'), (2, '-838:59:59', '-00:00:01.25', '838:59:59'), (3, '100:00:00', NULL, '-12:30:00.125'), (4, NULL, '00:00:00', '00:00:00');
-- check:
SELECT tm + 0, tm * 1, tm - 1, tm / 2, t2 + 0, t3 + 0, t2 * 2, t3 - t2 FROM t ORDER BY id;
SELECT SUM(tm), AVG(tm), SUM(t2), AVG(t2), SUM(t3), AVG(t3) FROM t;
SELECT SUM(DISTINCT tm), AVG(DISTINCT t2), COUNT(DISTINCT tm) FROM t;
SELECT tm + 0 AS n FROM t WHERE tm + 0 > 101111 ORDER BY tm + 0;
SELECT SUM(tm + 1), AVG(t2 * 2), SUM(t3) - 1 FROM t WHERE id > 1;
SELECT MAX(tm) + 0 AS a, MIN(t3) * 1 AS b, (MAX(tm)) / 2 AS c, CONCAT(MAX(t3), '') AS d FROM t;

-- name: types_time_as_text
-- A TIME(n) column in a string context (CAST AS CHAR, CONCAT) prints exactly n fractional
-- digits, as the column itself is sent.
CREATE TABLE t (id INT PRIMARY KEY, tm TIME, t2 TIME(2), t3 TIME(3), t6 TIME(6));
INSERT INTO t VALUES (1, '10:11:12', '01:00:00.50', '01:00:00.5', '00:00:00.000001'), (2, '-838:59:59', '-00:00:01.25', '838:59:59', '-01:02:03.1'), (3, '100:00:00', NULL, '-12:30:00.125', '00:00:00');
-- check:
SELECT id, CAST(t3 AS CHAR), CAST(t2 AS CHAR), CAST(t6 AS CHAR), CAST(tm AS CHAR) FROM t ORDER BY id;
SELECT id, CONCAT(t2, ''), CONCAT('[', t3, ']'), CONCAT(tm, 'x'), CONCAT_WS(',', t2, t6) FROM t ORDER BY id;
SELECT id FROM t WHERE CONCAT(t3, '') = '01:00:00.500' ORDER BY id;

-- name: types_time_interval_range
-- TIME + INTERVAL (and DATE_ADD / DATE_SUB of a TIME) whose result leaves -838:59:59..838:59:59
-- is NULL with warning 1441 (Datetime function: time field overflow), an error in an UPDATE in
-- strict mode. TIME(n) + INTERVAL is TIME(n), or TIME(6) for a MICROSECOND unit.
CREATE TABLE t (id INT PRIMARY KEY, tm TIME, t3 TIME(3), nn TIME NOT NULL);
INSERT INTO t VALUES (1, '10:11:12', '01:00:00.5', '838:00:00'), (2, '-838:59:59', '-12:30:00.125', '00:00:00'), (3, '838:59:59', '838:59:59', '00:00:00'), (4, '100:00:00', NULL, '00:00:00');
-- check:
SELECT id, tm + INTERVAL 1 HOUR, tm - INTERVAL 1 SECOND FROM t ORDER BY id;
SELECT id, t3 + INTERVAL 1 SECOND, t3 - INTERVAL 1 MINUTE, t3 + INTERVAL 5 MICROSECOND FROM t ORDER BY id;
SELECT id, nn + INTERVAL 1 HOUR, DATE_ADD(nn, INTERVAL 1.5 SECOND) FROM t ORDER BY id;
SELECT id, tm + INTERVAL 800 HOUR, DATE_ADD(tm, INTERVAL 30 DAY), DATE_SUB(tm, INTERVAL 1 SECOND) FROM t ORDER BY id;
SELECT id FROM t WHERE tm + INTERVAL 1 SECOND IS NULL ORDER BY id;
UPDATE t SET tm = tm + INTERVAL 1 SECOND WHERE id = 3;
UPDATE t SET tm = tm - INTERVAL 1 HOUR WHERE id = 3;
SET SESSION sql_mode = '';
UPDATE t SET tm = tm - INTERVAL 1 SECOND WHERE id = 2;
SELECT id, tm FROM t ORDER BY id;

-- name: types_time_date_format
-- DATE_FORMAT of a TIME formats the DATETIME the TIME is on the current date (MySQL 13.2.8:
-- elapsed time added to CURRENT_DATE, so '100:00:00' is four days on at 04:00:00).
CREATE TABLE t (id INT PRIMARY KEY, tm TIME, t3 TIME(3));
INSERT INTO t VALUES (1, '10:11:12', '01:00:00.5'), (2, '100:00:00', '-12:30:00.125'), (3, '-01:00:00', NULL), (4, '00:00:00', '23:59:59.999');
-- check:
SELECT tm, DATE_FORMAT(tm, '%H:%i:%s') FROM t ORDER BY id;
SELECT tm, DATE_FORMAT(tm, '%Y-%m-%d %H:%i:%s') FROM t ORDER BY id;
SELECT t3, DATE_FORMAT(t3, '%Y-%m-%d %H:%i:%s.%f') FROM t ORDER BY id;

-- name: types_time_as_datetime
-- Where a date is read (CAST AS DATETIME / DATE, DATE(), TIMESTAMP(), YEAR()/MONTH()/DAY(),
-- DATEDIFF) a TIME is the DATETIME it is on the current date (MySQL 13.2.8).
CREATE TABLE t (id INT PRIMARY KEY, tm TIME);
INSERT INTO t VALUES (1, '10:11:12'), (2, '100:00:00'), (3, '-01:00:00'), (4, NULL);
-- check:
SELECT id, CAST(tm AS DATETIME), CAST(tm AS DATE), DATE(tm), TIMESTAMP(tm) FROM t ORDER BY id;
SELECT id, YEAR(tm), MONTH(tm), DAY(tm) FROM t ORDER BY id;
SELECT id, DATEDIFF(tm, CURDATE()) FROM t ORDER BY id;
