-- Strict mode (STRICT_TRANS_TABLES, MySQL 8's default): bad values are errors with MySQL's codes
-- and SQLSTATEs, and the row is not written.

-- name: error_1406_data_too_long
-- A string longer than VARCHAR(n) / CHAR(n): 1406 (22001).
CREATE TABLE t (v VARCHAR(3), c CHAR(2));
-- check:
INSERT INTO t (v) VALUES ('abcd');
INSERT INTO t (c) VALUES ('abc');
SELECT COUNT(*) FROM t;

-- name: error_1264_out_of_range
-- A number outside the column's range: 1264 (22003), for TINYINT, unsigned and DECIMAL.
CREATE TABLE t (a TINYINT, b INT UNSIGNED, d DECIMAL(5,2));
-- check:
INSERT INTO t (a) VALUES (128);
INSERT INTO t (b) VALUES (-1);
INSERT INTO t (d) VALUES (1000);
SELECT COUNT(*) FROM t;

-- name: error_1048_null
-- NULL into a NOT NULL column: 1048 (23000).
CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10) NOT NULL);
INSERT INTO t VALUES (1, 'a');
-- check:
INSERT INTO t VALUES (2, NULL);
UPDATE t SET v = NULL WHERE id = 1;

-- name: error_1062_duplicate
-- A duplicate primary or unique key: 1062 (23000).
CREATE TABLE t (id INT PRIMARY KEY, email VARCHAR(40), UNIQUE KEY uq_email (email));
INSERT INTO t VALUES (1, 'a@x');
-- check:
INSERT INTO t VALUES (1, 'b@x');
INSERT INTO t VALUES (2, 'a@x');
UPDATE t SET id = 1 WHERE id = 1;

-- name: error_1265_enum
-- A value that is not an ENUM member: 1265 (01000) "Data truncated".
CREATE TABLE t (e ENUM('a','b'));
-- check:
INSERT INTO t VALUES ('c');
INSERT INTO t VALUES ('b');
SELECT e FROM t;

-- name: error_1452_foreign_key
-- A child row whose parent does not exist: 1452 (23000); deleting a referenced parent: 1451.
CREATE TABLE p (id INT PRIMARY KEY);
CREATE TABLE c (id INT PRIMARY KEY, p_id INT, CONSTRAINT fk_p FOREIGN KEY (p_id) REFERENCES p (id));
INSERT INTO p VALUES (1);
INSERT INTO c VALUES (1, 1);
-- check:
INSERT INTO c VALUES (2, 2);
DELETE FROM p WHERE id = 1;

-- name: error_1366_incorrect_integer
-- Text that is no number into an INT column: 1366 (22007).
CREATE TABLE t (n INT);
-- check:
INSERT INTO t VALUES ('abc');

-- name: error_1292_incorrect_date
-- An impossible date in an INSERT: 1292 (22007) "Incorrect date value".
CREATE TABLE t (d DATE);
-- check:
INSERT INTO t VALUES ('2024-02-30');

-- name: error_1146_no_table
-- Unknown table 1146 (42S02), unknown column 1054 (42S22), table exists 1050 (42S01).
CREATE TABLE t (id INT);
-- check:
SELECT * FROM missing;
SELECT nope FROM t;
CREATE TABLE t (id INT);

-- name: error_division_by_zero
-- Division by zero in a SELECT is NULL with warning 1365; in an INSERT under strict mode an error.
CREATE TABLE t (n INT);
-- check:
SELECT 1 / 0;
INSERT INTO t VALUES (1 / 0);

-- name: drop_several_tables_missing
-- DROP TABLE of several tables, some missing: error 1051 names every missing one. (MySQL 8 then
-- has dropped nothing — atomic DDL; MariaDB drops the others, so what is left is not compared.)
CREATE TABLE a (id INT PRIMARY KEY);
CREATE TABLE b (id INT PRIMARY KEY);
-- check:
DROP TABLE a, nope1, b, nope2;

-- name: drop_several_tables_if_exists
-- DROP TABLE IF EXISTS of several tables: the others go, with a Note 1051 per missing table.
CREATE TABLE a (id INT PRIMARY KEY);
CREATE TABLE b (id INT PRIMARY KEY);
CREATE TABLE c (id INT PRIMARY KEY);
-- check:
DROP TABLE IF EXISTS a, nope1, b;
SELECT id FROM a;
SELECT id FROM b;
SELECT id FROM c;

-- name: insert_select_keys_foreign_keys_checks
-- INSERT … SELECT judged row by row: a duplicate key (also between rows of the source, under the
-- collation) is 1062, a missing parent 1452; nothing is inserted. IGNORE skips those rows with a
-- warning each. (A FALSE check is 3819 in MySQL 8, 4025 in MariaDB: tests/sql covers it.)
CREATE TABLE par (id INT PRIMARY KEY);
INSERT INTO par VALUES (1), (2);
CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(10), p INT, n INT, UNIQUE KEY uname (name), CONSTRAINT t_p FOREIGN KEY (p) REFERENCES par (id), CONSTRAINT pos CHECK (n > 0));
INSERT INTO t VALUES (1, 'Ann', 1, 1);
CREATE TABLE src (id INT, name VARCHAR(10), p INT, n INT);
-- check:
INSERT INTO src VALUES (2, 'bob', 2, 1), (3, 'ANN', 1, 1);
INSERT INTO t SELECT * FROM src ORDER BY id;
DELETE FROM src;
INSERT INTO src VALUES (2, 'bob', 2, 1), (3, 'Bob', 1, 1);
INSERT INTO t SELECT * FROM src ORDER BY id;
DELETE FROM src;
INSERT INTO src VALUES (2, 'bob', 9, 1);
INSERT INTO t SELECT * FROM src;
SELECT id, name, p, n FROM t ORDER BY id;
DELETE FROM src;
INSERT INTO src VALUES (3, 'ann', 1, 1), (4, 'cy', 7, 1), (6, 'ed', NULL, 2);
INSERT IGNORE INTO t SELECT * FROM src ORDER BY id;
SELECT id, name, p, n FROM t ORDER BY id;
