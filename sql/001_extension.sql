-- The extension installs the access method and its default operator class.
CREATE EXTENSION artrie;

SELECT amname, amtype FROM pg_am WHERE amname = 'artrie';

SELECT opc.opcname, opc.opcdefault, t.typname
FROM pg_opclass opc
	JOIN pg_am am ON am.oid = opc.opcmethod
	JOIN pg_type t ON t.oid = opc.opcintype
WHERE am.amname = 'artrie'
ORDER BY 1;

-- Creating it twice is refused; IF NOT EXISTS is a no-op.
CREATE EXTENSION artrie;
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS artrie;
RESET client_min_messages;

-- An index keeps the extension from being dropped without CASCADE.
CREATE TABLE ext_t (k text);
CREATE INDEX ext_t_k ON ext_t USING artrie (k);
DROP EXTENSION artrie;
DROP EXTENSION artrie CASCADE;
SELECT count(*) AS artrie_indexes_left
FROM pg_class c JOIN pg_am am ON am.oid = c.relam
WHERE am.amname = 'artrie';
SELECT count(*) AS access_methods_left FROM pg_am WHERE amname = 'artrie';
DROP TABLE ext_t;

-- And it comes back cleanly.
CREATE EXTENSION artrie;
SELECT count(*) FROM pg_am WHERE amname = 'artrie';
