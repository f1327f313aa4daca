-- UNIQUE multicolumn artrie indexes follow btree's rules: a row with a
-- NULL in any column never conflicts (NULLS DISTINCT), and under NULLS
-- NOT DISTINCT NULLs compare equal; inserts and builds refuse the same
-- rows as a btree index on the same columns, with the same messages.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS artrie;
RESET client_min_messages;
\pset null '(null)'

-- try(tbl, tenant, path): insert one row; 'ok' or the error's SQLSTATE.
CREATE FUNCTION try(tbl text, t int, p text) RETURNS text
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('INSERT INTO %I VALUES ($1, $2)', tbl) USING t, p;
  RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE;
END;
$$;

CREATE TABLE ua (tenant int, path text);
CREATE TABLE ub (tenant int, path text);
CREATE UNIQUE INDEX ua_tp ON ua USING artrie (tenant, path);
CREATE UNIQUE INDEX ub_tp ON ub USING btree (tenant, path);
CREATE TABLE una (tenant int, path text);
CREATE TABLE unb (tenant int, path text);
CREATE UNIQUE INDEX una_tp ON una USING artrie (tenant, path) NULLS NOT DISTINCT;
CREATE UNIQUE INDEX unb_tp ON unb USING btree (tenant, path) NULLS NOT DISTINCT;

-- The same rows into each pair: the outcomes agree.
SELECT r.n, r.t, r.p,
  try('ua', r.t, r.p) AS artrie, try('ub', r.t, r.p) AS btree,
  try('una', r.t, r.p) AS artrie_nnd, try('unb', r.t, r.p) AS btree_nnd
FROM (VALUES (1, 1, 'a'), (2, 1, 'a'), (3, 1, 'ab'), (4, 2, 'a'),
  (5, 1, NULL), (6, 1, NULL), (7, NULL, 'a'), (8, NULL, 'a'),
  (9, NULL, NULL), (10, NULL, NULL), (11, 1, ''), (12, 1, ''),
  (13, -1, 'a'), (14, 1, E'a\x01'), (15, 1, E'a\x01')) r(n, t, p)
ORDER BY r.n;

-- The message names the columns and values, as btree's does.
INSERT INTO ua VALUES (1, 'a');
INSERT INTO una VALUES (NULL, 'a');
INSERT INTO una VALUES (1, NULL);

-- A deleted row's key may be taken again, after VACUUM too.
DELETE FROM ua WHERE tenant = 1 AND path = 'a';
INSERT INTO ua VALUES (1, 'a');
DELETE FROM ua WHERE tenant = 1 AND path = 'a';
VACUUM ua;
INSERT INTO ua VALUES (1, 'a');
SELECT artrie_verify('ua_tp', true), artrie_verify('una_tp', true);

-- Builds: NULLs do not conflict under NULLS DISTINCT, do under NULLS NOT
-- DISTINCT; a duplicate is reported with its values.
CREATE TABLE ub2 (tenant int, path text);
INSERT INTO ub2 VALUES (1, NULL), (1, NULL), (NULL, 'a'), (NULL, 'a'), (2, 'x');
CREATE UNIQUE INDEX ub2_tp ON ub2 USING artrie (tenant, path);
CREATE UNIQUE INDEX ub2_nnd ON ub2 USING artrie (tenant, path) NULLS NOT DISTINCT;
INSERT INTO ub2 VALUES (2, 'x');
DROP INDEX ub2_tp;
DELETE FROM ub2 WHERE path IS NULL;
CREATE UNIQUE INDEX ub2_nnd ON ub2 USING artrie (tenant, path) NULLS NOT DISTINCT;
-- Dead duplicates do not count.
DELETE FROM ub2 WHERE tenant IS NULL;
INSERT INTO ub2 VALUES (NULL, 'a');
CREATE UNIQUE INDEX ub2_nnd ON ub2 USING artrie (tenant, path) NULLS NOT DISTINCT;
INSERT INTO ub2 VALUES (NULL, 'a');
SELECT artrie_verify('ub2_nnd', true);

-- uuid and text leading columns: the same rules.
CREATE TABLE uo (bucket uuid, key text);
CREATE UNIQUE INDEX uo_bk ON uo USING artrie (bucket, key);
INSERT INTO uo VALUES (md5('1')::uuid, 'k'), (md5('2')::uuid, 'k'), (md5('1')::uuid, 'k2');
INSERT INTO uo VALUES (md5('1')::uuid, 'k');
INSERT INTO uo VALUES (NULL, 'k'), (NULL, 'k');
SELECT count(*) FROM uo;

DROP TABLE ua, ub, una, unb, ub2, uo;
DROP FUNCTION try(text, int, text);
