# Bad input in a SQL_ASCII database (issue 9, item 2; the rest of that
# item is sql/080_bad_input.sql): keys made of control characters and
# bytes 0x80-0xFF, 0xFF-heavy above all (0xFF is the largest byte, and a
# prefix of only 0xFF bytes has no upper bound a range could use), with
# no encoding to validate them.  Every operator, ORDER BY and the SQL
# functions answer as a sequential scan or plain SQL over the same rows
# does.  (0x00 cannot be in a text value at all.)  Then one key on 1M
# rows, before and after a VACUUM that removes half of them.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my $node = artrie_node('bad_input', 'io_uring');
$node->safe_psql('postgres', q{
	CREATE DATABASE ascii WITH ENCODING 'SQL_ASCII' LC_COLLATE 'C'
		LC_CTYPE 'C' TEMPLATE template0});
is($node->safe_psql('ascii', 'SHOW server_encoding'), 'SQL_ASCII',
	'the database is SQL_ASCII');

# Keys are built on the server from chr(), which takes 1 to 255 in a
# single-byte encoding, so that no client conversion touches them.
$node->safe_psql('ascii', q{
	CREATE EXTENSION artrie;
	CREATE EXTENSION fuzzystrmatch;
	CREATE TABLE t (id serial, k text);
	-- Every control character alone, doubled and between letters.
	INSERT INTO t (k) SELECT chr(c) FROM generate_series(1, 31) c;
	INSERT INTO t (k) VALUES (chr(127));
	INSERT INTO t (k) SELECT chr(c) || chr(c) FROM generate_series(1, 31) c;
	INSERT INTO t (k) SELECT 'a' || chr(c) || 'b' FROM generate_series(1, 31) c;
	-- Runs of 0xFF, and 0xFF around other bytes, as the issue names them.
	INSERT INTO t (k) SELECT repeat(chr(255), n) FROM generate_series(1, 40) n;
	INSERT INTO t (k) VALUES (convert_from(decode('ffff41ff', 'hex'), 'SQL_ASCII')),
		(E'\377\377A'), (chr(255) || 'A' || chr(255)), ('A' || repeat(chr(255), 5)),
		(chr(254) || chr(255)), (repeat(chr(255), 3) || chr(1)), (chr(127) || chr(255));
	-- Every high byte alone.
	INSERT INTO t (k) SELECT chr(c) FROM generate_series(128, 255) c;
	INSERT INTO t (k) VALUES (NULL), (''), (NULL), ('');
	-- Strings of 1 to 12 bytes, a third of them 0xFF, the rest any byte.
	INSERT INTO t (k)
		SELECT string_agg(chr(CASE WHEN b % 3 = 0 THEN 255 ELSE 1 + b % 255 END), '' ORDER BY j)
		FROM (SELECT i, j, get_byte(decode(md5(i || ':' || j), 'hex'), 0) AS b
			  FROM generate_series(1, 2500) i,
				   generate_series(1, 12) j WHERE j <= 1 + i % 12) s
		GROUP BY i;
	CREATE INDEX t_k ON t USING artrie (k);
	-- The same again, inserted one by one into the built index.
	INSERT INTO t (k) SELECT k FROM t WHERE id % 5 = 0;
	ANALYZE t;
});
is($node->safe_psql('ascii',
		q{SELECT count(*) FILTER (WHERE k ^@ chr(255)) > 1000
		  AND count(*) FILTER (WHERE k < chr(32) AND k > '') > 60 FROM t}),
	't', 'the table has many 0xFF-led and control-character keys');

my $idx_settings = 'SET enable_seqscan = off; SET enable_bitmapscan = off;';
my $bmp_settings = 'SET enable_seqscan = off; SET enable_indexscan = off; '
  . 'SET enable_indexonlyscan = off;';
my $seq_settings = 'SET enable_indexscan = off; SET enable_indexonlyscan = off; '
  . 'SET enable_bitmapscan = off;';

# A query through a plain index scan and a bitmap scan (each checked to
# use the index) gives what a sequential scan gives.
sub check_scan
{
	my ($query, $label) = @_;
	my $seq = $node->safe_psql('ascii', "$seq_settings $query");
	for my $s ([ $idx_settings, 'Index Scan' ], [ $bmp_settings, 'Bitmap Index Scan' ])
	{
		my ($settings, $kind) = @$s;
		my $plan = $node->safe_psql('ascii', "$settings EXPLAIN (COSTS OFF) $query");
		like($plan, qr/\Q$kind\E (using|on) t_k/, "$label: the plan uses the index ($kind)");
		is($node->safe_psql('ascii', "$settings $query"), $seq,
			"$label: $kind answers like a sequential scan");
	}
	return;
}

# Rows are compared by id and key bytes.
sub rows_where
{
	my ($pred) = @_;
	return "SELECT count(*), md5(string_agg(id || ':' || encode(textsend(k), 'hex'), ',' ORDER BY id)) "
	  . "FROM t WHERE $pred";
}

for my $probe (
	'chr(1)', 'chr(31)', 'chr(127)', 'chr(9) || chr(9)', q{'a' || chr(10) || 'b'},
	'chr(255)', 'repeat(chr(255), 3)', 'repeat(chr(255), 40)',
	'repeat(chr(255), 41)', q{chr(255) || 'A' || chr(255)}, 'chr(128)',
	'chr(254)', q{''})
{
	for my $op ('=', '^@', '>', '<=')
	{
		check_scan(rows_where("k $op ($probe)"), "$op $probe");
	}
}
check_scan(rows_where('k >= chr(1) AND k < chr(32)'), 'control characters as a range');
check_scan(rows_where('k > chr(127)'), 'high bytes as a range');
check_scan(rows_where('k BETWEEN chr(255) AND repeat(chr(255), 5)'), 'a range within 0xFF runs');
check_scan(rows_where(q{k LIKE (repeat(chr(255), 2) || '%')}), 'LIKE of a 0xFF prefix');
check_scan(rows_where(q{k LIKE (chr(254) || '%')}), 'LIKE of a 0xFE prefix');
check_scan(rows_where(q{k LIKE (chr(1) || '_')}), 'LIKE of a control character prefix');
check_scan(rows_where('k = ANY (ARRAY[chr(1), chr(255), repeat(chr(255), 7), chr(127), NULL])'),
	'= ANY of control characters and 0xFF');
check_scan(rows_where('k ^@ ANY (ARRAY[chr(2), repeat(chr(255), 9)])'),
	'^@ ANY of a control character and 0xFF');

# ORDER BY walks the index in unsigned byte order: '' and 0x01 first, the
# longest run of 0xFF last.
for my $dir ('', 'DESC')
{
	for my $pred ('k IS NOT NULL', 'k ^@ chr(255)', 'k < chr(32)', 'k > chr(200)')
	{
		my $q = "SELECT string_agg(encode(textsend(k), 'hex'), ',') FROM "
		  . "(SELECT k FROM t WHERE $pred ORDER BY k $dir LIMIT 300) s";
		my $plan = $node->safe_psql('ascii', "$idx_settings SET enable_sort = off; EXPLAIN (COSTS OFF) $q");
		unlike($plan, qr/Sort/, "ORDER BY k $dir where $pred: no sort");
		is($node->safe_psql('ascii', "$idx_settings $q"),
			$node->safe_psql('ascii', "$seq_settings $q"),
			"ORDER BY k $dir where $pred: the order a sort gives");
	}
}
is($node->safe_psql('ascii',
		"$idx_settings SELECT encode(textsend(k), 'hex') FROM t WHERE k IS NOT NULL ORDER BY k LIMIT 3"),
	"\n\n01", 'ORDER BY: the empty key twice, then 0x01');
is($node->safe_psql('ascii',
		"$idx_settings SELECT encode(textsend(k), 'hex') FROM t WHERE k IS NOT NULL ORDER BY k DESC LIMIT 1"),
	'ff' x 40, 'ORDER BY DESC: the longest run of 0xFF first');

# The functions against plain SQL.
for my $prefix ('chr(255)', 'repeat(chr(255), 4)', 'chr(1)', 'chr(127)', q{''})
{
	is($node->safe_psql('ascii',
			"SELECT string_agg(encode(textsend(c), 'hex'), ',') FROM artrie_complete('t_k', $prefix, 100000) c"),
		$node->safe_psql('ascii',
			"SELECT string_agg(encode(textsend(k), 'hex'), ',' ORDER BY k) FROM "
			  . "(SELECT DISTINCT k FROM t WHERE k ^@ ($prefix)) s"),
		"artrie_complete($prefix): every key with the prefix, in byte order");
	is($node->safe_psql('ascii', "SELECT artrie_prefix_count('t_k', $prefix)"),
		$node->safe_psql('ascii', "SELECT count(*) FROM t WHERE k ^@ ($prefix)"),
		"artrie_prefix_count($prefix)");
}
for my $value ('repeat(chr(255), 50)', q{repeat(chr(255), 3) || chr(1) || 'x'}, 'chr(9) || chr(9) || chr(9)')
{
	is($node->safe_psql('ascii',
			"SELECT string_agg(encode(textsend(p), 'hex'), ',') FROM artrie_prefixes_of('t_k', $value) p"),
		$node->safe_psql('ascii',
			"SELECT string_agg(encode(textsend(k), 'hex'), ',' ORDER BY length(k) DESC) FROM "
			  . "(SELECT DISTINCT k FROM t WHERE starts_with($value, k)) s"),
		"artrie_prefixes_of($value): longest first");
}
# In SQL_ASCII a character is a byte, for artrie_fuzzy as for levenshtein().
for my $f ([ q{chr(255) || 'A' || chr(255)}, 1 ], [ 'repeat(chr(255), 6)', 2 ],
	[ 'chr(1) || chr(2)', 1 ], [ 'chr(127)', 0 ], [ 'chr(200)', 1 ])
{
	my ($term, $d) = @$f;
	is($node->safe_psql('ascii',
			"SELECT string_agg(encode(textsend(key), 'hex') || '/' || distance, ',') "
			  . "FROM artrie_fuzzy('t_k', $term, $d)"),
		$node->safe_psql('ascii',
			"SELECT string_agg(encode(textsend(k), 'hex') || '/' || dist, ',' ORDER BY dist, k) FROM "
			  . "(SELECT k, levenshtein(k, $term) AS dist FROM (SELECT DISTINCT k FROM t "
			  . "WHERE k IS NOT NULL) s) s WHERE dist <= $d"),
		"artrie_fuzzy($term, $d) agrees with levenshtein()");
}

is($node->psql('ascii', "SELECT artrie_verify('t_k', true)"), 0,
	'artrie_verify: the index is sound, every row in it');

# One key on 1M rows (sql/080_bad_input.sql has 200k): half from the bulk
# build, half inserted one by one, with neighbours on both sides; then
# VACUUM removes the entries of half of them.
$node->safe_psql('postgres', q{
	CREATE TABLE rep (id int, k text COLLATE "C");
	INSERT INTO rep SELECT i, 'same' FROM generate_series(1, 500000) i;
	INSERT INTO rep VALUES (0, 'sam'), (-1, 'samd'), (-2, 'samee'), (-3, 'samf');
	CREATE INDEX rep_k ON rep USING artrie (k);
	INSERT INTO rep SELECT i, 'same' FROM generate_series(500001, 1000000) i;
	ANALYZE rep;
});
my $rep_idx = 'SET enable_seqscan = off; SET enable_bitmapscan = off;';
like($node->safe_psql('postgres',
		"$rep_idx EXPLAIN (COSTS OFF) SELECT count(*) FROM rep WHERE k = 'same'"),
	qr/Index Only Scan using rep_k/, '1M duplicates: counted through the index');
for my $pass ('1M duplicates', 'after VACUUM')
{
	my $n = $pass eq '1M duplicates' ? 1000000 : 500000;
	is($node->safe_psql('postgres', "$rep_idx SELECT count(*) FROM rep WHERE k = 'same'"),
		$n, "$pass: the count through the index");
	is($node->safe_psql('postgres',
			"$rep_idx SELECT string_agg(k, ',') FROM (SELECT k FROM rep "
			  . "WHERE k > 'sam' ORDER BY k LIMIT 3) s; "
			  . "SELECT string_agg(k, ',') FROM (SELECT k FROM rep "
			  . "WHERE k < 'samf' ORDER BY k DESC LIMIT 3) s; "
			  . "SELECT string_agg(k, ',') FROM rep WHERE k > 'same'"),
		"samd,same,same
samee,same,same
samee,samf",
		"$pass: the neighbours, past the run of one key both ways");
	is($node->safe_psql('postgres',
			"SELECT artrie_prefix_count('rep_k', 'same'), artrie_prefix_count('rep_k', 'samee')"),
		($n + 1) . '|1', "$pass: artrie_prefix_count");
	is($node->safe_psql('postgres',
			"SELECT string_agg(c, ',') FROM artrie_complete('rep_k', 'sa') c; "
			  . "SELECT string_agg(key || '/' || distance, ',') FROM artrie_fuzzy('rep_k', 'same', 0)"),
		"sam,samd,same,samee,samf
same/0", "$pass: each key once from artrie_complete and artrie_fuzzy");
	is($node->psql('postgres', "SELECT artrie_verify('rep_k', true)"), 0,
		"$pass: artrie_verify finds the index sound, every row in it");
	$node->safe_psql('postgres',
		"DELETE FROM rep WHERE k = 'same' AND id % 2 = 0; VACUUM rep")
	  if $pass eq '1M duplicates';
}

$node->stop;
done_testing();
