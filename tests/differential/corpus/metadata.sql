-- Metadata statements and information_schema: what ORMs, dumps and BI tools read to learn a table.

-- name: show_create_table_types
-- SHOW CREATE TABLE spells each declared type back as MySQL normalises it.
CREATE TABLE t (id INT NOT NULL AUTO_INCREMENT, flag TINYINT(1) DEFAULT NULL, big BIGINT UNSIGNED, d DECIMAL(10,2) NOT NULL DEFAULT '0.00', f FLOAT, g DOUBLE, c CHAR(3), v VARCHAR(40), tx TEXT, b BLOB, dt DATETIME(3), y YEAR, e ENUM('x','y'), PRIMARY KEY (id));
-- check:
SHOW CREATE TABLE t;

-- name: show_create_table_keys
-- Unique and secondary keys in SHOW CREATE TABLE.
CREATE TABLE t (id INT PRIMARY KEY, email VARCHAR(80) NOT NULL, name VARCHAR(40), UNIQUE KEY uq_email (email), KEY ix_name (name));
-- check:
SHOW CREATE TABLE t;

-- name: show_index_rows
-- SHOW INDEX: one row per key column, Non_unique, Seq_in_index, Null.
CREATE TABLE t (id INT PRIMARY KEY, a INT NOT NULL, b VARCHAR(10), UNIQUE KEY uq_ab (a, b), KEY ix_b (b));
-- check:
SHOW INDEX FROM t;

-- name: information_schema_columns
-- information_schema.COLUMNS: the declared types, keys, nullability, defaults.
CREATE TABLE t (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, name VARCHAR(40) NOT NULL DEFAULT 'x', price DECIMAL(10,2), created DATETIME(3), kind ENUM('a','b'), big BIGINT UNSIGNED);
-- check:
SELECT COLUMN_NAME, ORDINAL_POSITION, COLUMN_DEFAULT, IS_NULLABLE, DATA_TYPE, CHARACTER_MAXIMUM_LENGTH, NUMERIC_PRECISION, NUMERIC_SCALE, DATETIME_PRECISION, COLUMN_TYPE, COLUMN_KEY, EXTRA FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 't' ORDER BY ORDINAL_POSITION;

-- name: information_schema_columns_types
-- information_schema.COLUMNS DATA_TYPE and COLUMN_TYPE for every common type.
CREATE TABLE t (a INT, b TINYINT(1), c BIGINT UNSIGNED, d DECIMAL(10,2), e FLOAT, f DOUBLE, g CHAR(3), h VARCHAR(40), i TEXT, j LONGTEXT, k BLOB, l DATE, m DATETIME, n TIMESTAMP NULL, o TIME, p YEAR, q SET('x','y'), r BIT(4));
-- check:
SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, CHARACTER_MAXIMUM_LENGTH, NUMERIC_PRECISION, NUMERIC_SCALE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 't' ORDER BY ORDINAL_POSITION;

-- name: information_schema_statistics
-- information_schema.STATISTICS: index names, uniqueness, column order.
CREATE TABLE t (id INT PRIMARY KEY, a INT NOT NULL, b VARCHAR(10), UNIQUE KEY uq_ab (a, b), KEY ix_b (b));
-- check:
SELECT INDEX_NAME, NON_UNIQUE, SEQ_IN_INDEX, COLUMN_NAME, NULLABLE FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 't' ORDER BY INDEX_NAME, SEQ_IN_INDEX;

-- name: information_schema_table_constraints
-- information_schema.TABLE_CONSTRAINTS: PRIMARY KEY, UNIQUE and FOREIGN KEY constraints.
CREATE TABLE p (id INT PRIMARY KEY);
CREATE TABLE c (id INT PRIMARY KEY, p_id INT, code VARCHAR(5), UNIQUE KEY uq_code (code), CONSTRAINT fk_p FOREIGN KEY (p_id) REFERENCES p (id));
-- check:
SELECT CONSTRAINT_NAME, TABLE_NAME, CONSTRAINT_TYPE FROM information_schema.TABLE_CONSTRAINTS WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME, CONSTRAINT_NAME;

-- name: information_schema_key_column_usage
-- information_schema.KEY_COLUMN_USAGE: key columns and what a foreign key references.
CREATE TABLE p (id INT PRIMARY KEY);
CREATE TABLE c (id INT PRIMARY KEY, p_id INT, CONSTRAINT fk_p FOREIGN KEY (p_id) REFERENCES p (id));
-- check:
SELECT CONSTRAINT_NAME, TABLE_NAME, COLUMN_NAME, ORDINAL_POSITION, REFERENCED_TABLE_NAME, REFERENCED_COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME, CONSTRAINT_NAME, ORDINAL_POSITION;

-- name: show_tables_and_full_tables
-- SHOW TABLES and SHOW FULL TABLES list base tables and views.
CREATE TABLE b (id INT);
CREATE TABLE a (id INT);
CREATE VIEW v AS SELECT id FROM a;
-- check:
SHOW TABLES;
SHOW FULL TABLES;

-- name: information_schema_tables
-- information_schema.TABLES: TABLE_TYPE of tables and views.
CREATE TABLE a (id INT);
CREATE VIEW v AS SELECT id FROM a;
-- check:
SELECT TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME;

-- name: fulltext_index_recorded
-- CREATE FULLTEXT INDEX and FULLTEXT KEY: keys of type FULLTEXT in information_schema.STATISTICS.
CREATE TABLE t (id INT PRIMARY KEY, title VARCHAR(50), body TEXT, FULLTEXT KEY fb (body));
-- check:
CREATE FULLTEXT INDEX ftb ON t (title, body);
SELECT INDEX_NAME, SEQ_IN_INDEX, COLUMN_NAME, INDEX_TYPE, NON_UNIQUE FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 't' ORDER BY INDEX_NAME, SEQ_IN_INDEX;
