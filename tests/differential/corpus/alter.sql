-- ALTER TABLE forms: what the table looks like afterwards (DESCRIBE) and the rows it keeps.

-- name: alter_add_column
-- ADD COLUMN with a default fills existing rows; FIRST / AFTER place it.
CREATE TABLE t (id INT PRIMARY KEY, a INT);
INSERT INTO t VALUES (1, 10);
-- check:
ALTER TABLE t ADD COLUMN b VARCHAR(10) NOT NULL DEFAULT 'z';
ALTER TABLE t ADD COLUMN c INT AFTER id;
ALTER TABLE t ADD COLUMN z INT FIRST;
DESCRIBE t;
SELECT * FROM t;

-- name: alter_drop_column
-- DROP COLUMN removes it and its values.
CREATE TABLE t (id INT PRIMARY KEY, a INT, b INT);
INSERT INTO t VALUES (1, 2, 3);
-- check:
ALTER TABLE t DROP COLUMN a;
SELECT * FROM t;

-- name: alter_modify_column
-- MODIFY COLUMN changes the type; values convert.
CREATE TABLE t (id INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 42);
-- check:
ALTER TABLE t MODIFY COLUMN v VARCHAR(20) NOT NULL;
DESCRIBE t;
SELECT * FROM t;

-- name: alter_change_column
-- CHANGE COLUMN renames and retypes in one step.
CREATE TABLE t (id INT PRIMARY KEY, old_name INT);
INSERT INTO t VALUES (1, 5);
-- check:
ALTER TABLE t CHANGE COLUMN old_name new_name BIGINT;
DESCRIBE t;
SELECT new_name FROM t;

-- name: alter_rename_column_and_table
-- RENAME COLUMN and RENAME TO.
CREATE TABLE t (id INT PRIMARY KEY, a INT);
-- check:
ALTER TABLE t RENAME COLUMN a TO b;
ALTER TABLE t RENAME TO t2;
SHOW TABLES;
DESCRIBE t2;

-- name: alter_add_drop_index
-- ADD UNIQUE INDEX / ADD INDEX / DROP INDEX, visible in SHOW INDEX.
CREATE TABLE t (id INT PRIMARY KEY, a INT, b INT);
-- check:
ALTER TABLE t ADD UNIQUE INDEX uq_a (a);
ALTER TABLE t ADD INDEX ix_b (b);
ALTER TABLE t DROP INDEX ix_b;
SELECT INDEX_NAME, NON_UNIQUE, COLUMN_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 't' ORDER BY INDEX_NAME;

-- name: alter_add_unique_on_duplicates
-- ADD UNIQUE over duplicate values fails with 1062.
CREATE TABLE t (id INT PRIMARY KEY, a INT);
INSERT INTO t VALUES (1, 5), (2, 5);
-- check:
ALTER TABLE t ADD UNIQUE INDEX uq_a (a);

-- name: alter_alter_column_default
-- ALTER COLUMN SET DEFAULT / DROP DEFAULT.
CREATE TABLE t (id INT PRIMARY KEY, a INT DEFAULT 1);
-- check:
ALTER TABLE t ALTER COLUMN a SET DEFAULT 7;
INSERT INTO t (id) VALUES (1);
SELECT a FROM t;
ALTER TABLE t ALTER COLUMN a DROP DEFAULT;
DESCRIBE t;

-- name: alter_add_primary_key
-- ADD PRIMARY KEY then SHOW CREATE TABLE.
CREATE TABLE t (id INT NOT NULL, v INT);
-- check:
ALTER TABLE t ADD PRIMARY KEY (id);
SHOW CREATE TABLE t;

-- name: alter_modify_narrowing_error
-- MODIFY to a type too narrow for the data is 1265 / 1264 in strict mode.
CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10));
INSERT INTO t VALUES (1, 'abcdef');
-- check:
ALTER TABLE t MODIFY COLUMN v VARCHAR(3);
SELECT v FROM t;

-- name: rename_table_into_another_database
-- RENAME TABLE t TO other_db.t moves the table with its rows and keys; a foreign key referencing
-- it follows it.
DROP DATABASE IF EXISTS diff_rename_other;
CREATE DATABASE diff_rename_other;
CREATE TABLE par (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(5), UNIQUE KEY uname (name));
INSERT INTO par (name) VALUES ('a'), ('b');
CREATE TABLE kid (id INT PRIMARY KEY, p INT, CONSTRAINT kid_p FOREIGN KEY (p) REFERENCES par (id));
INSERT INTO kid VALUES (1, 1);
-- check:
RENAME TABLE par TO diff_rename_other.par;
SELECT id, name FROM diff_rename_other.par ORDER BY id;
SELECT id FROM par;
INSERT INTO kid VALUES (2, 7);
INSERT INTO kid VALUES (2, 2);
DELETE FROM diff_rename_other.par WHERE id = 2;
INSERT INTO diff_rename_other.par (name) VALUES ('c');
SELECT id, name FROM diff_rename_other.par ORDER BY id;
ALTER TABLE diff_rename_other.par RENAME TO par2;
SELECT id FROM par2 ORDER BY id;
DROP TABLE kid;
DROP DATABASE diff_rename_other;
