-- INSERT / UPDATE / DELETE / REPLACE: affected rows and the OK packet's info string.

-- name: insert_single_row
-- One-row INSERT: 1 affected row, no info string.
CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10));
-- check:
INSERT INTO t VALUES (1, 'a');

-- name: insert_multi_row_info
-- Multi-row INSERT: affected rows and "Records: 3  Duplicates: 0  Warnings: 0".
CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10));
-- check:
INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c');
SELECT * FROM t ORDER BY id;

-- name: insert_select_info
-- INSERT … SELECT: the Records info string.
CREATE TABLE s (id INT PRIMARY KEY);
CREATE TABLE t (id INT PRIMARY KEY);
INSERT INTO s VALUES (1), (2);
-- check:
INSERT INTO t SELECT id FROM s;

-- name: insert_auto_increment
-- AUTO_INCREMENT values and LAST_INSERT_ID() of a multi-row INSERT (the first generated value).
CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(10));
-- check:
INSERT INTO t (v) VALUES ('a'), ('b');
SELECT LAST_INSERT_ID();
INSERT INTO t VALUES (10, 'c');
INSERT INTO t (v) VALUES ('d');
SELECT * FROM t ORDER BY id;

-- name: update_matched_changed_info
-- UPDATE answers the rows changed, and "Rows matched: 3  Changed: 2  Warnings: 0".
CREATE TABLE t (id INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 1), (2, 2), (3, 3);
-- check:
UPDATE t SET v = 2 WHERE id <= 3;
UPDATE t SET v = 2 WHERE id = 99;

-- name: delete_affected_rows
-- DELETE answers the rows deleted; a DELETE that matches nothing answers 0.
CREATE TABLE t (id INT PRIMARY KEY);
INSERT INTO t VALUES (1), (2), (3);
-- check:
DELETE FROM t WHERE id >= 2;
DELETE FROM t WHERE id = 99;
SELECT COUNT(*) FROM t;

-- name: on_duplicate_key_update_counts
-- INSERT … ON DUPLICATE KEY UPDATE: 1 per insert, 2 per updated row, 0 when the row is unchanged.
CREATE TABLE t (id INT PRIMARY KEY, n INT);
INSERT INTO t VALUES (1, 10);
-- check:
INSERT INTO t VALUES (1, 11) ON DUPLICATE KEY UPDATE n = VALUES(n);
INSERT INTO t VALUES (1, 11) ON DUPLICATE KEY UPDATE n = VALUES(n);
INSERT INTO t VALUES (2, 20) ON DUPLICATE KEY UPDATE n = VALUES(n);
SELECT * FROM t ORDER BY id;

-- name: on_duplicate_key_update_multi_row_info
-- Several rows, some duplicates: the Records/Duplicates info string.
CREATE TABLE t (id INT PRIMARY KEY, n INT);
INSERT INTO t VALUES (1, 10), (2, 20);
-- check:
INSERT INTO t VALUES (1, 100), (2, 20), (3, 30) ON DUPLICATE KEY UPDATE n = VALUES(n);
SELECT * FROM t ORDER BY id;

-- name: replace_counts
-- REPLACE: a replaced row counts 2 (delete + insert), a new row 1.
CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10));
INSERT INTO t VALUES (1, 'a');
-- check:
REPLACE INTO t VALUES (1, 'b');
REPLACE INTO t VALUES (1, 'c'), (2, 'd');
SELECT * FROM t ORDER BY id;

-- name: insert_ignore_duplicates
-- INSERT IGNORE skips duplicate keys with a 1062 warning per skipped row.
CREATE TABLE t (id INT PRIMARY KEY);
INSERT INTO t VALUES (1);
-- check:
INSERT IGNORE INTO t VALUES (1), (2);

-- name: truncate_table
-- TRUNCATE TABLE answers 0 affected rows; the table is empty afterwards.
CREATE TABLE t (id INT);
INSERT INTO t VALUES (1), (2);
-- check:
TRUNCATE TABLE t;
SELECT COUNT(*) FROM t;

-- name: transaction_rollback
-- Rows inserted in a rolled-back transaction are gone.
CREATE TABLE t (id INT PRIMARY KEY);
-- check:
BEGIN;
INSERT INTO t VALUES (1);
ROLLBACK;
SELECT COUNT(*) FROM t;

-- name: savepoint_rollback_to
-- ROLLBACK TO SAVEPOINT undoes only the work after the savepoint.
CREATE TABLE t (id INT PRIMARY KEY);
-- check:
BEGIN;
INSERT INTO t VALUES (1);
SAVEPOINT s1;
INSERT INTO t VALUES (2);
ROLLBACK TO SAVEPOINT s1;
COMMIT;
SELECT * FROM t;

-- name: enum_non_member_non_strict
-- sql_mode '': a non-member of an ENUM is stored as '' (index 0) with warning 1265, not NULL.
CREATE TABLE t (id INT PRIMARY KEY, e ENUM('a','b'));
-- check:
SET sql_mode = '';
INSERT INTO t VALUES (1, 'c'), (2, NULL), (3, 'B');
SELECT id, e FROM t ORDER BY id;

-- name: create_table_like_enforces
-- CREATE TABLE … LIKE: the copy has the original's keys, lengths, defaults and AUTO_INCREMENT
-- (restarting at 1), but not its foreign keys.
CREATE TABLE par (id INT PRIMARY KEY);
CREATE TABLE t1 (id INT AUTO_INCREMENT PRIMARY KEY, email VARCHAR(8) NOT NULL DEFAULT 'none', n INT DEFAULT 1, p INT, UNIQUE KEY ue (email), CONSTRAINT t1_p FOREIGN KEY (p) REFERENCES par (id));
INSERT INTO t1 (email) VALUES ('a'), ('b');
-- check:
CREATE TABLE t2 LIKE t1;
INSERT INTO t2 (email, p) VALUES ('x', 99);
INSERT INTO t2 (email) VALUES ('X');
INSERT INTO t2 (email) SELECT 'X';
INSERT INTO t2 (email) VALUES ('too long text');
SELECT id, email, n, p FROM t2 ORDER BY id;

-- name: division_warnings_once_per_row
-- Warning 1365 once per row that divides by zero, on a table with a definition: INSERT IGNORE
-- in strict mode, and INSERT / UPDATE under ERROR_FOR_DIVISION_BY_ZERO without strict mode (the
-- answers compare each statement's warnings).
CREATE TABLE t (id INT PRIMARY KEY, v INT);
-- check:
INSERT IGNORE INTO t VALUES (1, 1 / 0), (2, 2 / 0), (3, 3);
SET sql_mode = 'ERROR_FOR_DIVISION_BY_ZERO';
INSERT INTO t VALUES (4, 4 DIV 0);
UPDATE t SET v = id / 0 WHERE id <= 3;
SELECT * FROM t ORDER BY id;

-- name: replace_column_list_takes_defaults
-- REPLACE deletes the old row and inserts the new one: columns left out take their defaults,
-- not the old row's values; affected rows are 2 for a replaced row and 1 for a new one.
CREATE TABLE t (id INT PRIMARY KEY, v INT, w INT DEFAULT 7, s VARCHAR(5));
INSERT INTO t VALUES (1, 1, 5, 'x'), (2, 2, 6, 'y');
-- check:
REPLACE INTO t (id, v) VALUES (1, 100);
REPLACE INTO t (id, v) VALUES (9, 100);
REPLACE INTO t (id, s) VALUES (2, 'z'), (10, 'n');
REPLACE INTO t SET id = 1, s = 'q';
SELECT * FROM t ORDER BY id;

-- name: failed_insert_spends_auto_increment
-- A refused INSERT spends the AUTO_INCREMENT values InnoDB reserved when it wrote the first row
-- (innodb_autoinc_lock_mode 2): a duplicate key or a missing parent spends them, a value
-- refused in a later row spends the whole statement's, a value refused in row 1 spends none.
CREATE TABLE p (id INT PRIMARY KEY);
CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, u VARCHAR(3) UNIQUE, pid INT, CONSTRAINT t_p FOREIGN KEY (pid) REFERENCES p (id));
INSERT INTO t (u) VALUES ('a');
-- check:
INSERT INTO t (u) VALUES ('a');
INSERT INTO t (u) VALUES ('b');
INSERT INTO t (u) VALUES ('toolong');
INSERT INTO t (u) VALUES ('c');
INSERT INTO t (u) VALUES ('d'), ('toolong'), ('e');
INSERT INTO t (u) VALUES ('f');
INSERT INTO t (u, pid) VALUES ('g', 5);
INSERT INTO t (id, u) VALUES (NULL, 'h');
SELECT * FROM t ORDER BY id;

-- name: replace_and_upsert_counts_with_auto_increment
-- REPLACE and ON DUPLICATE KEY UPDATE into a table with an AUTO_INCREMENT column count as
-- elsewhere: 2 per replaced or changed row, 1 per inserted one.
CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, u VARCHAR(5) UNIQUE, n INT DEFAULT 7);
INSERT INTO t (u, n) VALUES ('a', 1), ('b', 2);
-- check:
REPLACE INTO t (id, u) VALUES (1, 'c'), (5, 'e');
REPLACE INTO t (u) VALUES ('d');
INSERT INTO t (id, u, n) VALUES (2, 'b', 3) ON DUPLICATE KEY UPDATE n = VALUES(n);
INSERT INTO t (id, u, n) VALUES (2, 'b', 3), (9, 'z', 1) ON DUPLICATE KEY UPDATE n = VALUES(n);
INSERT INTO t (u, n) VALUES ('q', 3) ON DUPLICATE KEY UPDATE n = VALUES(n);
SELECT * FROM t ORDER BY id;

-- name: duckdb_refused_insert_spends_auto_increment
-- An INSERT that DuckDB itself refuses (an arithmetic overflow in a later row, a date that does
-- not exist) spends AUTO_INCREMENT values as InnoDB does: every value of the statement when a
-- later row fails, none when the first row fails; inside a transaction too.
CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, n BIGINT, d DATE, u INT UNIQUE);
INSERT INTO t (n) VALUES (0);
-- check:
INSERT INTO t (n) VALUES (1), (9223372036854775807 + 1), (3);
INSERT INTO t (n) VALUES (4);
INSERT INTO t (n) VALUES (9223372036854775807 + 1), (5);
INSERT INTO t (n) VALUES (6);
INSERT INTO t (n, d) VALUES (7, '2020-01-02'), (8, '2020-02-30');
INSERT INTO t (n) VALUES (9);
BEGIN;
INSERT INTO t (n) VALUES (10), (9223372036854775807 + 1);
INSERT INTO t (n, u) VALUES (11, 1), (12, 1);
INSERT INTO t (n) VALUES (13);
COMMIT;
SELECT id, n FROM t ORDER BY id;

-- name: replace_counts_every_key
-- REPLACE as MySQL runs it: row by row, each colliding old row deleted (counted), except that a
-- collision on the table's last unique key changes the old row in place and counts nothing when
-- the row is the same. A table whose columns are all its key: an existing row counts 1.
CREATE TABLE k (a INT, b INT, PRIMARY KEY (a, b));
INSERT INTO k VALUES (1, 2);
CREATE TABLE t (id INT PRIMARY KEY, u INT UNIQUE, v INT);
INSERT INTO t VALUES (1, 10, 0), (2, 20, 0);
-- check:
REPLACE INTO k VALUES (1, 2);
REPLACE INTO k VALUES (1, 2), (3, 4);
REPLACE INTO k VALUES (3, 4), (3, 4);
SELECT * FROM k ORDER BY a;
REPLACE INTO t VALUES (1, 20, 5);
SELECT * FROM t ORDER BY id;
REPLACE INTO t VALUES (3, 20, 6);
REPLACE INTO t VALUES (3, 20, 6);
REPLACE INTO t VALUES (4, 20, 6), (5, 50, 0);
SELECT * FROM t ORDER BY id;

-- name: replace_same_row_and_chains
-- An unchanged row under a single key counts 1, a changed one 2; new rows that collide with each
-- other are applied in order (each replaces the one before); a table without a unique key
-- inserts; nullable unique keys never collide on NULL.
CREATE TABLE t (id INT PRIMARY KEY, v INT);
INSERT INTO t VALUES (1, 1);
CREATE TABLE c (id INT PRIMARY KEY, u INT UNIQUE);
INSERT INTO c VALUES (1, 1), (2, 2);
CREATE TABLE n (id INT, v INT);
INSERT INTO n VALUES (1, 1);
CREATE TABLE z (id INT PRIMARY KEY, u INT NULL, w INT NOT NULL, UNIQUE KEY ku (u), UNIQUE KEY kw (w));
INSERT INTO z VALUES (1, NULL, 1), (2, NULL, 2), (3, 3, 3);
-- check:
REPLACE INTO t VALUES (1, 1);
REPLACE INTO t VALUES (1, 1), (1, 2), (1, 2);
SELECT * FROM t;
REPLACE INTO c VALUES (1, 2), (3, 1), (2, 3), (2, 3);
SELECT * FROM c ORDER BY id;
REPLACE INTO n VALUES (1, 1), (2, 2);
REPLACE INTO z VALUES (9, NULL, 2);
REPLACE INTO z VALUES (9, NULL, 2);
REPLACE INTO z VALUES (10, 3, 1);
SELECT * FROM z ORDER BY id;

-- name: replace_select_and_parents
-- REPLACE … SELECT counts as REPLACE … VALUES (source rows in order, colliding ones replacing
-- each other); a table a foreign key references always deletes, so an unchanged row counts 2.
CREATE TABLE s (id INT, v INT);
CREATE TABLE t (id INT PRIMARY KEY, v INT);
INSERT INTO s VALUES (1, 1), (2, 2), (1, 3);
INSERT INTO t VALUES (2, 0);
CREATE TABLE p (id INT PRIMARY KEY, v INT);
CREATE TABLE ch (id INT PRIMARY KEY, pid INT, CONSTRAINT ch_p FOREIGN KEY (pid) REFERENCES p (id));
INSERT INTO p VALUES (1, 1);
-- check:
REPLACE INTO t SELECT id, v FROM s ORDER BY v;
SELECT * FROM t ORDER BY id;
REPLACE INTO t SELECT id, v FROM s ORDER BY v;
REPLACE INTO t (id) SELECT id + 10 FROM s WHERE v < 3;
SELECT * FROM t ORDER BY id;
REPLACE INTO p VALUES (1, 1);
REPLACE INTO p VALUES (1, 2);

-- name: replace_in_transaction_with_auto_increment
-- REPLACE inside a transaction, undone by ROLLBACK TO SAVEPOINT; AUTO_INCREMENT values and
-- LAST_INSERT_ID() of the rows it inserts.
CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, u VARCHAR(5) UNIQUE, n INT DEFAULT 7);
INSERT INTO t (u, n) VALUES ('a', 1), ('b', 2);
-- check:
BEGIN;
REPLACE INTO t (u) VALUES ('a'), ('c');
SELECT LAST_INSERT_ID();
SAVEPOINT s;
REPLACE INTO t (id, u) VALUES (3, 'b');
ROLLBACK TO SAVEPOINT s;
REPLACE INTO t (id, u, n) VALUES (4, 'c', 9);
REPLACE INTO t (u, n) VALUES ('x', 1);
SELECT LAST_INSERT_ID();
COMMIT;
INSERT INTO t (u) VALUES ('zz');
SELECT * FROM t ORDER BY id;

-- name: replace_deletes_through_foreign_keys
-- REPLACE deletes the old row of a parent table: 1451 when a child references it (RESTRICT),
-- its children go with it under ON DELETE CASCADE; refused midway inside a transaction, the
-- statement is undone and the transaction goes on; FOREIGN_KEY_CHECKS = 0 checks nothing.
CREATE TABLE p (id INT PRIMARY KEY, v INT);
CREATE TABLE c (id INT PRIMARY KEY, pid INT, CONSTRAINT c_p FOREIGN KEY (pid) REFERENCES p (id));
CREATE TABLE p2 (id INT PRIMARY KEY, v INT);
CREATE TABLE c2 (id INT PRIMARY KEY, pid INT, CONSTRAINT c2_p FOREIGN KEY (pid) REFERENCES p2 (id) ON DELETE CASCADE);
INSERT INTO p VALUES (1, 1), (2, 2);
INSERT INTO c VALUES (1, 1);
INSERT INTO p2 VALUES (1, 1), (2, 2);
INSERT INTO c2 VALUES (1, 1), (2, 2);
-- check:
REPLACE INTO p VALUES (1, 2);
REPLACE INTO p VALUES (2, 5), (3, 3);
REPLACE INTO p2 VALUES (1, 2);
SELECT * FROM c2 ORDER BY id;
SELECT * FROM p ORDER BY id;
BEGIN;
INSERT INTO p VALUES (7, 7);
REPLACE INTO p VALUES (4, 4), (4, 5), (1, 1);
INSERT INTO p VALUES (8, 8);
COMMIT;
SELECT * FROM p ORDER BY id;
SET FOREIGN_KEY_CHECKS = 0;
REPLACE INTO p VALUES (1, 9);
SELECT * FROM p ORDER BY id;

-- name: refused_insert_select_spends_auto_increment
-- A refused INSERT … SELECT spends what InnoDB reserved for the rows it wrote, in intervals of
-- 1, 2, 4 … rows: a duplicate in row 3 spends 3 (rows 1–3), a value refused in row 6 spends 7
-- (rows 1–5), a duplicate in row 7 spends 7.
CREATE TABLE s (x INT, y VARCHAR(20));
INSERT INTO s VALUES (2, 'a'), (3, 'b'), (1, 'c'), (4, 'd'), (5, 'e'), (6, 'toolongvalue');
CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, u INT UNIQUE, v VARCHAR(3));
INSERT INTO t (u) VALUES (1);
-- check:
INSERT INTO t (u) SELECT x FROM s WHERE x <= 3 ORDER BY x DESC;
INSERT INTO t (u) VALUES (50);
INSERT INTO t (u, v) SELECT x + 20, y FROM s ORDER BY x;
INSERT INTO t (u) VALUES (51);
INSERT INTO t (u) SELECT 60 + x FROM s UNION ALL SELECT 60 + x FROM s;
INSERT INTO t (u) VALUES (52);
SELECT id, u FROM t ORDER BY id;

-- name: replace_rows_collide_through_earlier_new_rows
-- New rows that collide, by different keys, with a row the same REPLACE inserted before them
-- are applied in order: each deletes (and counts) what the table holds by then.
CREATE TABLE t (id INT PRIMARY KEY, u INT UNIQUE, w INT UNIQUE, x INT);
INSERT INTO t VALUES (1, 1, 1, 1), (2, 2, NULL, 3), (4, 3, 4, 2);
-- check:
REPLACE INTO t VALUES (3, 1, 1, 2), (1, 1, NULL, 2), (3, 4, 3, 2), (4, 1, NULL, 2);
SELECT * FROM t ORDER BY id;
