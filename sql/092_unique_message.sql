-- The duplicate-key messages of artrie UNIQUE indexes on name, char(n),
-- varchar and text columns and on an expression: at CREATE UNIQUE INDEX
-- (from the build's sorted keys) and at INSERT, each must be btree's,
-- with the value printed as the column's own type prints it.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS artrie;
RESET client_min_messages;

-- Run a statement (%s: the access method): its error's SQLSTATE, detail
-- and constraint, or 'ok'.
CREATE FUNCTION m_try(stmt text, am text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	st text;
	det text;
	con text;
BEGIN
	EXECUTE format(stmt, am);
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, det = PG_EXCEPTION_DETAIL,
		con = CONSTRAINT_NAME;
	RETURN format('%s | %s | %s', st, det, con);
END $$;

-- The statement with artrie and with btree: artrie's outcome, and
-- whether btree's is the same.
CREATE FUNCTION m_both(stmt text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	a text := m_try(stmt, 'artrie');
	b text := m_try(stmt, 'btree');
BEGIN
	IF a IS DISTINCT FROM b THEN
		RETURN format('DIFFERENT: artrie: %s; btree: %s', a, b);
	END IF;
	RETURN a;
END $$;

CREATE TABLE tn (k name);
INSERT INTO tn VALUES ('pg'), ('other'), ('pg');
CREATE TABLE tc (k char(6));
INSERT INTO tc VALUES ('ab'), ('cd'), ('ab  ');
CREATE TABLE tv (k varchar(10));
INSERT INTO tv VALUES ('x y'), ('x y');
CREATE TABLE tt (k text);
INSERT INTO tt VALUES ('Caf'), ('caf');
CREATE TABLE tl (k name);
INSERT INTO tl VALUES (repeat('n', 40)), (repeat('n', 40));
CREATE TABLE t0 (k text);
INSERT INTO t0 VALUES (NULL), (NULL);

SELECT s, m_both(s) FROM (VALUES
	('CREATE UNIQUE INDEX tn_k ON tn USING %s (k)'),
	('CREATE UNIQUE INDEX tc_k ON tc USING %s (k)'),
	('CREATE UNIQUE INDEX tv_k ON tv USING %s (k)'),
	('CREATE UNIQUE INDEX tt_k ON tt USING %s (lower(k))'),
	('CREATE UNIQUE INDEX tl_k ON tl USING %s (k)'),
	('CREATE UNIQUE INDEX t0_k ON t0 USING %s (k) NULLS NOT DISTINCT')
) v(s);

-- The 40-byte name under a client encoding other than the server's: the
-- unique violation, not an encoding error.
SET client_encoding = 'LATIN1';
SELECT m_both('CREATE UNIQUE INDEX tl_k ON tl USING %s (k)');
RESET client_encoding;

-- At INSERT, into an index built without duplicates.
DELETE FROM tn WHERE ctid = (SELECT max(ctid) FROM tn);
DELETE FROM tc WHERE k = 'ab' AND ctid = (SELECT max(ctid) FROM tc);
SELECT s, m_both(s) FROM (VALUES
	('CREATE UNIQUE INDEX tn_k ON tn USING %s (k); INSERT INTO tn VALUES (''pg'')'),
	('CREATE UNIQUE INDEX tc_k ON tc USING %s (k); INSERT INTO tc VALUES (''cd'')')
) v(s);

DROP TABLE tn, tc, tv, tt, tl, t0;
DROP FUNCTION m_both(text), m_try(text, text);
