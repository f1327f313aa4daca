-- UNIQUE artrie indexes in one session: every statement runs against an
-- artrie UNIQUE index (table u_art) and a btree one (u_bt) on the same
-- data, and must end the same way, with the same error texts.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS artrie;
RESET client_min_messages;

SELECT pg_indexam_has_property(oid, 'can_unique') FROM pg_am WHERE amname = 'artrie';

CREATE TABLE u_art (id int, k text COLLATE "C");
CREATE TABLE u_bt (id int, k text COLLATE "C");
CREATE UNIQUE INDEX u_art_k ON u_art USING artrie (k);
CREATE UNIQUE INDEX u_bt_k ON u_bt (k);

-- Run a statement on one table (%I in the statement): 'ok', or the error
-- with its SQLSTATE, detail, constraint and table.
CREATE FUNCTION u_try(stmt text, tab text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	st text;
	msg text;
	det text;
	con text;
	tbl text;
BEGIN
	EXECUTE format(stmt, tab);
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT,
		det = PG_EXCEPTION_DETAIL, con = CONSTRAINT_NAME, tbl = TABLE_NAME;
	RETURN format('%s %s | %s | constraint %s, table %s', st, msg, det, con, tbl);
END $$;

-- Run a statement on both tables; the outcomes, made comparable by
-- naming both tables T, must be the same, and both tables must then hold
-- the same rows.
CREATE FUNCTION u_both(stmt text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	a text := replace(u_try(stmt, 'u_art'), 'u_art', 'T');
	b text := replace(u_try(stmt, 'u_bt'), 'u_bt', 'T');
BEGIN
	IF a IS DISTINCT FROM b THEN
		RETURN format('DIFFERENT: artrie: %s; btree: %s', a, b);
	END IF;
	IF EXISTS (SELECT id, k FROM u_art EXCEPT SELECT id, k FROM u_bt)
		OR EXISTS (SELECT id, k FROM u_bt EXCEPT SELECT id, k FROM u_art) THEN
		RETURN 'DIFFERENT ROWS after: ' || a;
	END IF;
	RETURN a;
END $$;

-- The error as psql shows it, on both.
INSERT INTO u_art VALUES (1, 'a'), (2, 'ab'), (3, ''), (4, NULL), (5, NULL);
INSERT INTO u_bt VALUES (1, 'a'), (2, 'ab'), (3, ''), (4, NULL), (5, NULL);
INSERT INTO u_art VALUES (6, 'a');
INSERT INTO u_bt VALUES (6, 'a');

SELECT s, u_both(s) FROM (VALUES
	('INSERT INTO %I VALUES (6, ''ab'')'),
	('INSERT INTO %I VALUES (6, '''')'),
	('INSERT INTO %I VALUES (6, ''abc''), (7, ''abc'')'),
	('INSERT INTO %I VALUES (6, ''abc''), (7, ''abd'')'),
	('INSERT INTO %I VALUES (8, NULL), (9, NULL)'),
	('INSERT INTO %I VALUES (10, ''a b''), (11, ''a'' || chr(1))'),
	('UPDATE %I SET k = ''a'' WHERE id = 2'),
	('UPDATE %I SET k = ''x'' WHERE id IN (6, 7)'),
	('UPDATE %I SET k = k || ''!'' WHERE id IN (1, 2)'),
	('UPDATE %I SET k = k WHERE id = 1'),
	('UPDATE %I SET id = id + 100 WHERE k = ''a!'''),
	('DELETE FROM %I WHERE k = ''a!'''),
	('INSERT INTO %I VALUES (12, ''a!'')'),
	('INSERT INTO %I VALUES (13, ''a!'')'),
	('INSERT INTO %I SELECT 14, ''abc'' FROM generate_series(1, 2)'),
	('INSERT INTO %I SELECT g, ''g'' || g FROM generate_series(100, 2100) g'),
	('INSERT INTO %I VALUES (15, ''g2000'')'),
	('INSERT INTO %I VALUES (16, ''g20000'')'),
	('INSERT INTO %I VALUES (17, ''g''), (18, ''g2'')')
) v(s);

-- Transactions: a row deleted by the same transaction frees its key; a
-- rolled-back insert leaves no key behind; a savepoint's neither.
BEGIN;
SELECT u_both('DELETE FROM %I WHERE k = ''abc''');
SELECT u_both('INSERT INTO %I VALUES (20, ''abc'')');
SELECT u_both('INSERT INTO %I VALUES (21, ''abc'')');
ROLLBACK;
BEGIN;
SELECT u_both('INSERT INTO %I VALUES (22, ''t1'')');
SAVEPOINT s;
SELECT u_both('INSERT INTO %I VALUES (23, ''t2'')');
ROLLBACK TO SAVEPOINT s;
SELECT u_both('INSERT INTO %I VALUES (24, ''t2'')');
SELECT u_both('INSERT INTO %I VALUES (25, ''t1'')');
COMMIT;
SELECT u_both('INSERT INTO %I VALUES (26, ''t2'')');
SELECT u_both('INSERT INTO %I VALUES (26, ''t3'')');
SELECT count(*), count(DISTINCT k), count(k) FROM u_art;

-- The index answers as before, and still holds every row once.
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM u_art WHERE k = 'abc';
SELECT id FROM u_art WHERE k = 'abc';
SELECT count(*) FROM u_art WHERE k ^@ 'g';
SELECT count(*) FROM u_art WHERE k IS NULL;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT artrie_verify('u_art_k');

-- Keys far longer than btree allows.
CREATE TABLE u_long (k text COLLATE "C");
CREATE UNIQUE INDEX u_long_k ON u_long USING artrie (k);
INSERT INTO u_long VALUES (repeat('x', 20000) || 'a'), (repeat('x', 20000) || 'b'), (repeat('x', 20000));
SELECT left(u_try('INSERT INTO %I VALUES (repeat(''x'', 20000) || ''b'')', 'u_long'), 60);
SELECT u_try('INSERT INTO %I VALUES (repeat(''x'', 20001))', 'u_long');
SELECT count(*) FROM u_long;

-- CREATE UNIQUE INDEX over duplicates: btree's error.  Dead tuples and
-- rows deleted by the building transaction are not duplicates.
CREATE TABLE b_art (id int, k text COLLATE "C");
INSERT INTO b_art SELECT g, 'k' || g FROM generate_series(1, 1000) g;
INSERT INTO b_art VALUES (0, NULL), (-1, NULL), (1007, 'k7');
CREATE TABLE b_bt AS SELECT * FROM b_art;
CREATE UNIQUE INDEX b_art_k ON b_art USING artrie (k);
CREATE UNIQUE INDEX b_bt_k ON b_bt (k);
DELETE FROM b_art WHERE id = 7;
DELETE FROM b_bt WHERE id = 7;
BEGIN;
DELETE FROM b_art WHERE id = 1007;
DELETE FROM b_bt WHERE id = 1007;
INSERT INTO b_art VALUES (1008, 'k8');
INSERT INTO b_bt VALUES (1008, 'k8');
SELECT u_try('CREATE UNIQUE INDEX b_art_k ON %I USING artrie (k)', 'b_art'),
	u_try('CREATE UNIQUE INDEX b_bt_k ON %I (k)', 'b_bt');
ROLLBACK;
BEGIN;
DELETE FROM b_art WHERE id = 1007;
DELETE FROM b_bt WHERE id = 1007;
CREATE UNIQUE INDEX b_art_k ON b_art USING artrie (k);
CREATE UNIQUE INDEX b_bt_k ON b_bt (k);
SELECT u_try('INSERT INTO %I VALUES (1009, ''k9'')', 'b_art'), u_try('INSERT INTO %I VALUES (1009, ''k9'')', 'b_bt');
SELECT u_try('INSERT INTO %I VALUES (1007, ''k7'')', 'b_art'), u_try('INSERT INTO %I VALUES (1007, ''k7'')', 'b_bt');
COMMIT;
REINDEX INDEX b_art_k;
SELECT u_try('INSERT INTO %I VALUES (1010, ''k10'')', 'b_art');
SELECT u_try('INSERT INTO %I VALUES (1010, ''k1010'')', 'b_art');
SELECT u_try('INSERT INTO %I VALUES (1001, NULL)', 'b_art');
SELECT count(*), count(k), count(DISTINCT k) FROM b_art;
SELECT artrie_verify('b_art_k');

-- A build whose values outgrow maintenance_work_mem (40,000 values of
-- about 41 bytes, each with a 24-byte sort item, against 1MB) sorts them
-- in runs written out and merged: the same duplicate check, the same
-- content.
SET maintenance_work_mem = '1MB';
CREATE TABLE s_art (id int, k text COLLATE "C");
INSERT INTO s_art SELECT g, md5(g::text) FROM generate_series(1, 40000) g;
INSERT INTO s_art VALUES (0, NULL), (-1, NULL), (40001, md5('77'));
SELECT u_try('CREATE UNIQUE INDEX s_art_k ON %I USING artrie (k)', 's_art');
DELETE FROM s_art WHERE id = 40001;
CREATE UNIQUE INDEX s_art_k ON s_art USING artrie (k);
RESET maintenance_work_mem;
SELECT artrie_verify('s_art_k');
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*), min(k), max(k) FROM s_art WHERE k >= '';
SELECT count(*) FROM s_art WHERE k IS NULL;
SELECT id FROM s_art WHERE k = md5('77');
RESET enable_seqscan;
RESET enable_bitmapscan;
DROP TABLE s_art;

-- CREATE UNIQUE INDEX CONCURRENTLY: the same check; a failed build
-- leaves an invalid index behind, as btree's does.
CREATE TABLE cc (id int, k text COLLATE "C");
INSERT INTO cc SELECT g, 'c' || g FROM generate_series(1, 100) g;
INSERT INTO cc VALUES (0, 'c5');
CREATE UNIQUE INDEX CONCURRENTLY cc_k ON cc USING artrie (k);
SELECT indisvalid FROM pg_index WHERE indexrelid = 'cc_k'::regclass;
DROP INDEX cc_k;
DELETE FROM cc WHERE id = 0;
CREATE UNIQUE INDEX CONCURRENTLY cc_k ON cc USING artrie (k);
SELECT indisvalid FROM pg_index WHERE indexrelid = 'cc_k'::regclass;
INSERT INTO cc VALUES (0, 'c5');
REINDEX INDEX CONCURRENTLY cc_k;
INSERT INTO cc VALUES (0, 'c6');
INSERT INTO cc VALUES (0, 'c0');
DROP TABLE cc;

-- NULLS NOT DISTINCT: one NULL at most, at build and at insert.
CREATE TABLE n_art (id int, k text COLLATE "C");
INSERT INTO n_art VALUES (1, NULL), (2, 'a'), (3, NULL);
CREATE TABLE n_bt AS SELECT * FROM n_art;
CREATE UNIQUE INDEX n_art_k ON n_art USING artrie (k) NULLS NOT DISTINCT;
CREATE UNIQUE INDEX n_bt_k ON n_bt (k) NULLS NOT DISTINCT;
DELETE FROM n_art WHERE id = 3;
DELETE FROM n_bt WHERE id = 3;
CREATE UNIQUE INDEX n_art_k ON n_art USING artrie (k) NULLS NOT DISTINCT;
CREATE UNIQUE INDEX n_bt_k ON n_bt (k) NULLS NOT DISTINCT;
INSERT INTO n_art VALUES (4, NULL);
INSERT INTO n_bt VALUES (4, NULL);
SELECT u_try('UPDATE %I SET k = NULL WHERE id = 2', 'n_art'), u_try('UPDATE %I SET k = NULL WHERE id = 2', 'n_bt');
SELECT u_try('DELETE FROM %I WHERE id = 1; INSERT INTO %1$I VALUES (5, NULL)', 'n_art'),
	u_try('DELETE FROM %I WHERE id = 1; INSERT INTO %1$I VALUES (5, NULL)', 'n_bt');
SELECT * FROM n_art ORDER BY id;

-- A deterministic collation other than "C": equality is byte equality,
-- as artrie stores the bytes.  Nondeterministic collations are refused.
CREATE TABLE c_art (k text COLLATE "en-x-icu");
CREATE UNIQUE INDEX c_art_k ON c_art USING artrie (k);
INSERT INTO c_art VALUES ('a'), ('A'), ('b');
INSERT INTO c_art VALUES ('A');
CREATE COLLATION u_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE c_ci (k text COLLATE u_ci);
CREATE UNIQUE INDEX c_ci_k ON c_ci USING artrie (k);

-- Constraints: UNIQUE and PRIMARY KEY constraints are btree's alone in
-- PostgreSQL, so an artrie index cannot back one (nor be deferrable).
ALTER TABLE u_art ADD CONSTRAINT u_art_unique UNIQUE USING INDEX u_art_k;
ALTER TABLE u_art ADD PRIMARY KEY USING INDEX u_art_k;

-- INSERT ... ON CONFLICT: before version 18 PostgreSQL supports only
-- btree UNIQUE indexes there, and fails with an internal error on a table
-- with another; artrie refuses the statement first, saying why, also in a
-- WITH query and through a partitioned table.  A plain artrie index does
-- not stand in the way.
INSERT INTO u_art VALUES (1, 'a') ON CONFLICT (k) DO NOTHING;
INSERT INTO u_art VALUES (1, 'a') ON CONFLICT DO NOTHING;
INSERT INTO u_art VALUES (1, 'a') ON CONFLICT (k) DO UPDATE SET id = 0;
WITH w AS (INSERT INTO u_art VALUES (1, 'a') ON CONFLICT DO NOTHING RETURNING id) SELECT * FROM w;
CREATE TABLE p_art (k text COLLATE "C") PARTITION BY LIST (k);
CREATE TABLE p_art_a PARTITION OF p_art FOR VALUES IN ('a');
CREATE UNIQUE INDEX p_art_a_k ON p_art_a USING artrie (k);
INSERT INTO p_art VALUES ('a') ON CONFLICT DO NOTHING;
DROP INDEX p_art_a_k;
CREATE INDEX p_art_a_k ON p_art_a USING artrie (k);
CREATE UNIQUE INDEX p_art_a_bt ON p_art_a (k);
INSERT INTO p_art VALUES ('a') ON CONFLICT DO NOTHING;
INSERT INTO p_art_a VALUES ('a') ON CONFLICT (k) DO UPDATE SET k = EXCLUDED.k;
SELECT count(*) FROM p_art;
INSERT INTO p_art VALUES ('a');
DROP TABLE p_art;

-- The executor's own check through an index under a dirty snapshot,
-- which ON CONFLICT uses from PostgreSQL 18 on, serves exclusion
-- constraints today: an artrie scan under a dirty snapshot finds the
-- conflicting row as btree's does.
CREATE TABLE x_art (k text COLLATE "C", EXCLUDE USING artrie (k WITH =));
CREATE TABLE x_bt (k text COLLATE "C", EXCLUDE USING btree (k WITH =));
INSERT INTO x_art VALUES ('a'), ('ab'), (NULL), (NULL);
INSERT INTO x_bt VALUES ('a'), ('ab'), (NULL), (NULL);
SELECT s, u_try(s, 'x_art'), u_try(s, 'x_bt') FROM (VALUES
	('INSERT INTO %I VALUES (''a'')'),
	('INSERT INTO %I VALUES (''abc''), (''abc'')'),
	('UPDATE %I SET k = ''a'' WHERE k = ''ab'''),
	('UPDATE %I SET k = ''b'' WHERE k = ''ab''')
) v(s);
-- Such a constraint is the way to a uniqueness constraint on artrie today:
-- ON CONFLICT DO NOTHING honours it, and it may be deferred.
INSERT INTO x_art VALUES ('a'), ('new') ON CONFLICT DO NOTHING;
SELECT k FROM x_art ORDER BY k;
CREATE TABLE xd_art (k text COLLATE "C",
	CONSTRAINT xd_art_k EXCLUDE USING artrie (k WITH =) DEFERRABLE INITIALLY DEFERRED);
BEGIN;
INSERT INTO xd_art VALUES ('a'), ('a');
UPDATE xd_art SET k = 'b' WHERE ctid = (SELECT ctid FROM xd_art LIMIT 1);
COMMIT;
BEGIN;
INSERT INTO xd_art VALUES ('a');
COMMIT;
SELECT k FROM xd_art ORDER BY k;
DROP TABLE x_art, x_bt, xd_art;

DROP TABLE u_art, u_bt, u_long, b_art, b_bt, n_art, n_bt, c_art, c_ci;
DROP COLLATION u_ci;
DROP FUNCTION u_both(text), u_try(text, text);
