-- pg_stat_user_indexes counts artrie's scans as it counts btree's: the
-- same queries (plain, bitmap, index-only) over the same rows give the
-- same idx_scan, idx_tup_read and idx_tup_fetch for an artrie index and a
-- btree index.  Not in one transaction: the statistics reach the shared
-- views when a transaction ends (pg_stat_force_next_flush makes it the
-- next one).  The ranges stay away from the column's smallest and largest
-- values: there the planner itself reads a btree index (never an artrie
-- one) for the actual extreme value, which btree's idx_scan counts.
\ir setup.psql

DROP TABLE IF EXISTS st_art, st_bt;
CREATE TABLE st_art (id int, w text COLLATE "C");
CREATE TABLE st_bt (id int, w text COLLATE "C");
INSERT INTO st_art SELECT i, 'k' || i FROM generate_series(1, 3000) i;
INSERT INTO st_bt SELECT * FROM st_art;
CREATE INDEX st_art_idx ON st_art USING artrie (w);
CREATE INDEX st_bt_idx ON st_bt USING btree (w);
VACUUM ANALYZE st_art;
VACUUM ANALYZE st_bt;

-- The plan node a query runs on (its first scan node's type), so that a
-- query that did not use the index cannot pass unnoticed.
CREATE FUNCTION pg_temp.scan_node(query text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	plan json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || query INTO plan;
	plan := plan -> 0 -> 'Plan';
	WHILE plan ->> 'Node Type' IN ('Aggregate', 'Limit') LOOP
		plan := plan -> 'Plans' -> 0;
	END LOOP;
	RETURN plan ->> 'Node Type';
END;
$$;

-- Run a query on both tables (the table's name is %s in it) under the
-- given scan settings; returns the plan nodes used, "artrie / btree".
CREATE FUNCTION pg_temp.run_both(query text, scan text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	nodes text := '';
	t text;
BEGIN
	PERFORM set_config('enable_seqscan', 'off', true);
	PERFORM set_config('enable_indexscan', (scan = 'Index Scan')::text, true);
	PERFORM set_config('enable_bitmapscan', (scan = 'Bitmap Heap Scan')::text, true);
	PERFORM set_config('enable_indexonlyscan', (scan = 'Index Only Scan')::text, true);
	FOREACH t IN ARRAY ARRAY['st_art', 'st_bt'] LOOP
		nodes := nodes || CASE WHEN t = 'st_bt' THEN ' / ' ELSE '' END
			|| pg_temp.scan_node(format(query, t));
		EXECUTE format(query, t);
	END LOOP;
	RETURN nodes;
END;
$$;

CREATE TEMP TABLE st_nodes (n serial, nodes text);
INSERT INTO st_nodes (nodes) VALUES
	(pg_temp.run_both($$SELECT * FROM %s WHERE w = 'k42'$$, 'Index Scan')),
	(pg_temp.run_both($$SELECT * FROM %s WHERE w >= 'k2' AND w < 'k3'$$, 'Index Scan')),
	(pg_temp.run_both($$SELECT * FROM %s WHERE w < 'k5' AND w > 'k4' ORDER BY w DESC LIMIT 5$$, 'Index Scan')),
	(pg_temp.run_both($$SELECT count(*) FROM %s WHERE w >= 'k3' AND w < 'k4'$$, 'Bitmap Heap Scan')),
	(pg_temp.run_both($$SELECT * FROM %s WHERE w = 'nothing'$$, 'Bitmap Heap Scan')),
	(pg_temp.run_both($$SELECT count(w) FROM %s WHERE w >= 'k5' AND w < 'k6'$$, 'Index Only Scan')),
	(pg_temp.run_both($$SELECT w FROM %s WHERE w = 'k7'$$, 'Index Only Scan'));
SELECT pg_stat_force_next_flush();

SELECT plan(12);

SELECT is(nodes, 'Index Scan / Index Scan', 'query ' || n || ' ran on plain index scans')
	FROM st_nodes WHERE n <= 3 ORDER BY n;
SELECT is(nodes, 'Bitmap Heap Scan / Bitmap Heap Scan', 'query ' || n || ' ran on bitmap scans')
	FROM st_nodes WHERE n IN (4, 5) ORDER BY n;
SELECT is(nodes, 'Index Only Scan / Index Only Scan', 'query ' || n || ' ran on index-only scans')
	FROM st_nodes WHERE n >= 6 ORDER BY n;

SELECT is((SELECT idx_scan FROM pg_stat_user_indexes WHERE indexrelid = 'st_art_idx'::regclass),
	7::bigint, 'idx_scan counts each of the seven artrie scans once');
SELECT is((SELECT idx_scan FROM pg_stat_user_indexes WHERE indexrelid = 'st_art_idx'::regclass),
	(SELECT idx_scan FROM pg_stat_user_indexes WHERE indexrelid = 'st_bt_idx'::regclass),
	'idx_scan: artrie as btree');
SELECT is((SELECT idx_tup_read FROM pg_stat_user_indexes WHERE indexrelid = 'st_art_idx'::regclass),
	(SELECT idx_tup_read FROM pg_stat_user_indexes WHERE indexrelid = 'st_bt_idx'::regclass),
	'idx_tup_read: artrie as btree');
SELECT is((SELECT idx_tup_fetch FROM pg_stat_user_indexes WHERE indexrelid = 'st_art_idx'::regclass),
	(SELECT idx_tup_fetch FROM pg_stat_user_indexes WHERE indexrelid = 'st_bt_idx'::regclass),
	'idx_tup_fetch: artrie as btree');
SELECT is((SELECT idx_scan FROM pg_stat_user_tables WHERE relid = 'st_art'::regclass),
	(SELECT idx_scan FROM pg_stat_user_tables WHERE relid = 'st_bt'::regclass),
	'the table''s idx_scan: artrie as btree');

SELECT * FROM finish();

DROP TABLE st_art, st_bt;
