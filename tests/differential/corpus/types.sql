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
