-- oracle(tbl, pred): runs "SELECT ... FROM tbl WHERE pred" as an index
-- scan and as a bitmap scan and compares the ids each finds with a
-- sequential scan's; the plan must use the index.  Included with psql's
-- \ir by the pg_regress files that need it (the path is relative to the
-- directory pg_regress runs in, the one holding sql/).
CREATE FUNCTION oracle(tbl text, pred text)
RETURNS TABLE (scan text, uses_index bool, same_rows bool, nrows int)
LANGUAGE plpgsql AS $$
DECLARE
  q text := format('SELECT count(*) || '':'' || coalesce(string_agg(id::text, '','' ORDER BY id), '''') FROM %I WHERE %s', tbl, pred);
  ref text;
  got text;
  plan text;
  line text;
  kind text;
BEGIN
  PERFORM set_config('enable_indexscan', 'off', true);
  PERFORM set_config('enable_indexonlyscan', 'off', true);
  PERFORM set_config('enable_bitmapscan', 'off', true);
  PERFORM set_config('enable_seqscan', 'on', true);
  EXECUTE q INTO ref;
  PERFORM set_config('enable_seqscan', 'off', true);
  FOREACH kind IN ARRAY ARRAY['Index Scan', 'Bitmap Heap Scan'] LOOP
    PERFORM set_config('enable_indexscan', (kind = 'Index Scan')::text, true);
    PERFORM set_config('enable_bitmapscan', (kind = 'Bitmap Heap Scan')::text, true);
    plan := '';
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
      plan := plan || line || E'\n';
    END LOOP;
    EXECUTE q INTO got;
    scan := kind;
    uses_index := plan LIKE '%' || kind || '%';
    same_rows := got = ref;
    nrows := split_part(ref, ':', 1)::int;
    RETURN NEXT;
  END LOOP;
END;
$$;
