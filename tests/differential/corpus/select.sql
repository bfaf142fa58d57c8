-- SELECT expressions: result types (type code, length, decimals) and values as MySQL computes them.

-- name: select_integer_arithmetic
-- Integer arithmetic stays BIGINT; DIV is integer division; % is MOD.
-- check:
SELECT 1 + 2, 7 - 10, 6 * 7, 7 DIV 2, 7 % 3, -7 % 3;

-- name: select_decimal_division
-- `/` is DECIMAL division with div_precision_increment (4) more digits than its operands.
-- check:
SELECT 1 / 3, 10 / 4, 1.0 / 3, 2 / 1;

-- name: select_decimal_literals
-- DECIMAL literals keep their scale; DECIMAL + DECIMAL takes the larger scale.
-- check:
SELECT 1.50, 1.5 + 2.25, 0.1 + 0.2, 3.0 * 1.5;

-- name: select_float_double
-- FLOAT/DOUBLE columns and arithmetic print their shortest form.
CREATE TABLE t (f FLOAT, g DOUBLE);
INSERT INTO t VALUES (0.1, 0.1);
-- check:
SELECT f, g, g * 3, f + 0 FROM t;
SELECT 1e0 / 3;

-- name: select_aggregate_types
-- SUM of INT is DECIMAL, AVG of INT is DECIMAL with 4 more digits, COUNT is BIGINT.
CREATE TABLE t (n INT, d DECIMAL(10,2));
INSERT INTO t VALUES (1, 1.10), (2, 2.20), (4, 3.30);
-- check:
SELECT SUM(n), AVG(n), COUNT(*), MIN(n), MAX(n) FROM t;
SELECT SUM(d), AVG(d) FROM t;

-- name: select_aggregate_empty
-- Aggregates over no rows: SUM/AVG/MIN are NULL, COUNT 0.
CREATE TABLE t (n INT);
-- check:
SELECT SUM(n), AVG(n), MIN(n), COUNT(n) FROM t;

-- name: select_string_functions
-- CONCAT, UPPER, LOWER, LENGTH (bytes) vs CHAR_LENGTH, SUBSTRING, TRIM, REPLACE, LPAD.
-- check:
SELECT CONCAT('a', 'b', 'c'), UPPER('abc'), LOWER('ÀB'), LENGTH('é'), CHAR_LENGTH('é');
SELECT SUBSTRING('hello', 2, 3), TRIM('  x  '), REPLACE('aXbX', 'X', '-'), LPAD('7', 3, '0');
SELECT CONCAT('a', NULL), CONCAT_WS(',', 'a', NULL, 'b'), LEFT('hello', 2), REVERSE('abc');

-- name: select_date_functions
-- DATE_ADD, DATEDIFF, DATE_FORMAT, YEAR/MONTH/DAY, LAST_DAY on constant dates.
-- check:
SELECT DATE_ADD('2024-01-31', INTERVAL 1 MONTH), DATEDIFF('2024-03-01', '2024-02-01');
SELECT DATE_FORMAT('2024-02-29 13:14:15', '%Y/%m/%d %H:%i'), YEAR('2024-02-29'), MONTH('2024-02-29'), DAY('2024-02-29');
SELECT LAST_DAY('2024-02-10'), DAYOFWEEK('2024-02-29'), TIMESTAMPDIFF(DAY, '2024-01-01', '2024-03-01');

-- name: select_date_column_arithmetic
-- Date columns: DATE + INTERVAL stays a DATE, DATETIME column functions.
CREATE TABLE t (d DATE, dt DATETIME);
INSERT INTO t VALUES ('2024-01-31', '2024-01-31 23:59:59');
-- check:
SELECT d + INTERVAL 1 DAY, DATE(dt), dt + INTERVAL 1 SECOND, DATE_FORMAT(d, '%W') FROM t;

-- name: select_cast
-- CAST to SIGNED, UNSIGNED, DECIMAL(5,1), CHAR, DATE, DATETIME.
-- check:
SELECT CAST('12' AS SIGNED), CAST(-1 AS UNSIGNED), CAST(3.14159 AS DECIMAL(5,1)), CAST(42 AS CHAR);
SELECT CAST('2024-02-29' AS DATE), CAST('2024-02-29 01:02:03' AS DATETIME), CAST(1.5 AS SIGNED);

-- name: select_comparisons_collation
-- String comparisons ignore case (the default collation); comparisons answer 1/0/NULL.
-- check:
SELECT 'abc' = 'ABC', 'a' < 'B', 'abc' LIKE 'A%', NULL = NULL, NULL <=> NULL, 1 = 1.0;

-- name: select_collation_in_tables
-- GROUP BY and DISTINCT on a VARCHAR column fold case; WHERE = matches any case.
CREATE TABLE t (name VARCHAR(20));
INSERT INTO t VALUES ('Alice'), ('alice'), ('Bob');
-- check:
SELECT COUNT(*) FROM t WHERE name = 'ALICE';
SELECT COUNT(DISTINCT name) FROM t;
SELECT COUNT(*) AS n FROM t GROUP BY LOWER(name) ORDER BY n;

-- name: select_group_by_having
-- GROUP BY with HAVING and ORDER BY an aggregate.
CREATE TABLE t (k VARCHAR(5), n INT);
INSERT INTO t VALUES ('a', 1), ('a', 2), ('b', 5), ('c', 1);
-- check:
SELECT k, SUM(n) AS total, COUNT(*) AS cnt FROM t GROUP BY k HAVING SUM(n) > 1 ORDER BY total DESC;

-- name: select_order_by_null_placement
-- NULLs sort first ascending, last descending.
CREATE TABLE t (id INT PRIMARY KEY, n INT);
INSERT INTO t VALUES (1, 3), (2, NULL), (3, 1);
-- check:
SELECT id, n FROM t ORDER BY n;
SELECT id, n FROM t ORDER BY n DESC;

-- name: select_limit_offset
-- LIMIT n, LIMIT offset, n and LIMIT n OFFSET m.
CREATE TABLE t (id INT PRIMARY KEY);
INSERT INTO t VALUES (1), (2), (3), (4), (5);
-- check:
SELECT id FROM t ORDER BY id LIMIT 2;
SELECT id FROM t ORDER BY id LIMIT 1, 2;
SELECT id FROM t ORDER BY id LIMIT 2 OFFSET 3;

-- name: select_if_case_coalesce
-- IF, CASE, COALESCE, IFNULL, NULLIF result types and values.
-- check:
SELECT IF(1 > 0, 'yes', 'no'), CASE 2 WHEN 1 THEN 'one' WHEN 2 THEN 'two' END, COALESCE(NULL, 5), IFNULL(NULL, 'x'), NULLIF(3, 3);

-- name: select_join
-- INNER and LEFT JOIN with column names of both tables.
CREATE TABLE a (id INT PRIMARY KEY, name VARCHAR(10));
CREATE TABLE b (a_id INT, v INT);
INSERT INTO a VALUES (1, 'x'), (2, 'y');
INSERT INTO b VALUES (1, 10), (1, 11);
-- check:
SELECT a.name, b.v FROM a JOIN b ON b.a_id = a.id ORDER BY b.v;
SELECT a.name, b.v FROM a LEFT JOIN b ON b.a_id = a.id ORDER BY a.id, b.v;

-- name: select_boolean_and_bit_ops
-- Boolean expressions answer BIGINT 1/0; bit operators on unsigned BIGINT.
-- check:
SELECT TRUE, FALSE, 1 AND 0, 1 OR 0, NOT 1, 5 & 3, 5 | 3, 1 << 4;

-- name: float_min_max_six_digits
-- MIN and MAX of a FLOAT column are FLOAT: printed with FLOAT's 6 significant digits (0.1, not
-- 0.10000000149011612), where arithmetic on it is DOUBLE.
CREATE TABLE f (id INT PRIMARY KEY, x FLOAT, d DOUBLE);
INSERT INTO f VALUES (1, 0.1, 0.1), (2, 3.3, 3.3), (3, 16777217, 1);
-- check:
SELECT MAX(x), MIN(x), MAX(x) AS m, MIN(d) FROM f GROUP BY x ORDER BY x;
SELECT MAX(x + 0) FROM f GROUP BY x ORDER BY x;

-- name: compound_interval_units
-- Compound INTERVAL units: '1-2' YEAR_MONTH is 1 year 2 months; fewer numbers than fields fill
-- the smallest fields ('5' DAY_HOUR is 5 hours); a *_MICROSECOND unit's last number is a
-- fraction ('4.5' is 4.5 seconds); a leading '-' negates the whole value.
CREATE TABLE d (id INT PRIMARY KEY, dt DATETIME, da DATE);
INSERT INTO d VALUES (1, '2024-01-31 10:00:00', '2024-01-31');
-- check:
SELECT DATE_ADD(da, INTERVAL '1-2' YEAR_MONTH), da + INTERVAL '1-1' YEAR_MONTH FROM d;
SELECT DATE_SUB(da, INTERVAL '-1-1' YEAR_MONTH), DATE_ADD(da, INTERVAL '1 1' DAY_HOUR) FROM d;
SELECT DATE_SUB(dt, INTERVAL '1 2' DAY_HOUR), dt + INTERVAL '1 2:3' DAY_MINUTE FROM d;
SELECT DATE_ADD(dt, INTERVAL '1 2:3:4' DAY_SECOND), DATE_ADD(dt, INTERVAL '2:3' HOUR_MINUTE) FROM d;
SELECT DATE_ADD(dt, INTERVAL '2:3:4' HOUR_SECOND), dt - INTERVAL '3:4' MINUTE_SECOND FROM d;
SELECT DATE_ADD(dt, INTERVAL '5' DAY_HOUR), DATE_ADD(dt, INTERVAL 1.5 HOUR_MINUTE) FROM d;
SELECT DATE_ADD(dt, INTERVAL '1 2:3:4.5' DAY_MICROSECOND) FROM d;
SELECT DATE_ADD(dt, INTERVAL '2:3:4.000005' HOUR_MICROSECOND) FROM d;
SELECT DATE_ADD(dt, INTERVAL '3:4.5' MINUTE_MICROSECOND), dt + INTERVAL '4.5' SECOND_MICROSECOND FROM d;
