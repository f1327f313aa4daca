# artrie_stats() answers from counts kept up to date instead of walking the
# index (issue 22, item 4): the entries from the tries' root counts, the
# distinct keys from the key trie's group count (kept by inserts, deletes,
# VACUUM and bulk builds, persisted with the file's checkpoint, brought up
# to date by redo), pages and sizes from the pager.  Checked here: the
# kept figures equal a walk's (artrie_stats(index, walk => true)) and the
# table's after a build, inserts, deletes and VACUUM, after a crash
# (kill -9) with changes on both sides of the file's last checkpoint, and
# on a hot standby after replay and after its own crash, for indexes
# built concurrently, reindexed, UNIQUE and copied with a database from a
# template; and a call without walk pins a few pages of a big index, not
# all of them (artrie's buffer pool counts every pin as a hit or a miss).
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my $primary = artrie_primary('stats_kept', 'io_uring',
	conf => [ 'autovacuum = off' ]);
$primary->safe_psql('postgres', q{
	CREATE TABLE t (id int, k text COLLATE "C");
	-- repeated keys, keys that are prefixes of others, long keys (their
	-- tails go to pages of their own), NULLs
	INSERT INTO t SELECT g, CASE
		WHEN g % 97 = 0 THEN NULL
		WHEN g % 89 = 0 THEN repeat('long', 600) || (g % 7)
		WHEN g % 5 = 0 THEN 'p' || (g % 300)
		ELSE 'key' || md5((g % 40000)::text) END
	FROM generate_series(1, 120000) g;
	CREATE INDEX t_k ON t USING artrie (k);
});
my $standby = artrie_standby($primary, 'stats_kept_standby');

# The kept statistics against a walk's and, with $table, the table's
# (true only once VACUUM removed every dead entry).
sub check_stats
{
	my ($node, $label, $table) = @_;
	my ($kept, $walked, $keptw, $entries, $wentries, $nulls, $wnulls) =
	  split /\|/, $node->safe_psql('postgres', q{
		SELECT s->>'distinct_keys', w->>'distinct_keys',
			w->>'kept_distinct_keys', s->>'entries',
			(w->'key_trie'->>'entries')::bigint + (w->'null_trie'->>'entries')::bigint,
			s->>'null_entries', w->'null_trie'->>'entries'
		FROM (SELECT artrie_stats('t_k') AS s) a,
			(SELECT artrie_stats('t_k', walk => true) AS w) b});
	is($kept, $walked, "$label: kept distinct keys equal a walk's");
	is($keptw, $walked, "$label: and the walk reports the kept count");
	is($entries, $wentries, "$label: entries equal a walk's");
	is($nulls, $wnulls, "$label: NULL entries equal a walk's");
	return unless $table;
	my ($distinct, $rows, $nullrows) = split /\|/, $node->safe_psql('postgres',
		'SELECT count(DISTINCT k), count(*), count(*) - count(k) FROM t');
	is($kept, $distinct, "$label: distinct keys equal the table's");
	is($entries, $rows, "$label: entries equal the table's rows");
	is($nulls, $nullrows, "$label: NULL entries equal the table's");
	return;
}

# Pages pinned (pool hits and misses) by one statement on $node.
sub pins
{
	my ($node, $sql) = @_;
	my $q = 'SELECT hits + misses FROM artrie_pool_stats()';
	my $before = $node->safe_psql('postgres', $q);
	$node->safe_psql('postgres', $sql);
	return $node->safe_psql('postgres', $q) - $before;
}

check_stats($primary, 'after the build', 1);

# A call without walk pins a few pages; a walk pins every page.
my $pages = $primary->safe_psql('postgres', q{SELECT (artrie_stats('t_k')->>'pages')::int});
cmp_ok($pages, '>', 300, "the index has $pages pages");
my $kept_pins = pins($primary, q{SELECT artrie_stats('t_k')});
my $walk_pins = pins($primary, q{SELECT artrie_stats('t_k', walk => true)});
note "pins: $kept_pins without walk, $walk_pins with, $pages pages";
cmp_ok($walk_pins, '>=', $pages, 'a walk pins every page of the index');
cmp_ok($kept_pins, '<', $pages / 4,
	'artrie_stats() without walk pins a few pages, not the index');

# Inserts: new keys, repeated keys (one per row and several in one
# statement), prefixes of stored keys, long keys.
$primary->safe_psql('postgres', q{
	INSERT INTO t SELECT g, CASE WHEN g % 3 = 0 THEN 'new' || g
		WHEN g % 3 = 1 THEN 'key' || md5((g % 40000)::text)
		ELSE 'p' || (g % 30) END
	FROM generate_series(200001, 215000) g;
	INSERT INTO t VALUES (1, 'k'), (2, 'ke'), (3, 'key'), (4, NULL),
		(5, repeat('long', 600) || 'x');
});
check_stats($primary, 'after inserts', 1);

# Deletes: every row of some keys, some rows of others, NULLs; the
# entries stay until VACUUM removes them.
$primary->safe_psql('postgres', q{
	DELETE FROM t WHERE k LIKE 'p1%' OR k LIKE 'new1%' OR id % 7 = 0;
});
check_stats($primary, 'after deletes, before VACUUM', 0);
$primary->safe_psql('postgres', 'VACUUM t');
check_stats($primary, 'after VACUUM', 1);

wait_replayed($primary, $standby);
check_stats($standby, 'standby after replay', 1);

# A crash: changes before and after the file's last checkpoint, then
# kill -9; redo brings the checkpointed count up to date.
$primary->safe_psql('postgres', q{
	INSERT INTO t SELECT g, 'c' || (g % 500) FROM generate_series(300001, 306000) g;
	DELETE FROM t WHERE k LIKE 'key0%';
	VACUUM t;
	SELECT artrie_checkpoint();
	INSERT INTO t SELECT g, 'd' || (g % 700) FROM generate_series(400001, 406000) g;
	DELETE FROM t WHERE k LIKE 'c1%' OR k LIKE 'key1%';
	VACUUM t;
	INSERT INTO t VALUES (6, 'c1'), (7, 'key1');
});
my $lsn = wait_replayed($primary, $standby);
check_stats($standby, 'standby after more changes', 1);
crash_node($primary);
$primary->start;
check_stats($primary, 'after a crash and recovery', 1);

# The standby: crashed too, it replays from its own checkpoint; then it
# follows the recovered primary.
crash_node($standby);
$standby->start;
$primary->safe_psql('postgres', q{
	INSERT INTO t SELECT g, 'e' || (g % 90) FROM generate_series(500001, 503000) g;
	DELETE FROM t WHERE k LIKE 'd2%';
	VACUUM t;
});
wait_replayed($primary, $standby);
check_stats($standby, 'standby after its crash and more replay', 1);
check_stats($primary, 'primary at the end', 1);

# Other ways an index gets its entries: CREATE INDEX CONCURRENTLY (a
# build, then inserts), REINDEX, a UNIQUE index, a database copied from
# a template (its files copied with their counts).
$primary->safe_psql('postgres', q{
	CREATE TABLE u (id int, k text COLLATE "C");
	CREATE UNIQUE INDEX u_k ON u USING artrie (k);
	INSERT INTO u SELECT g, 'u' || g FROM generate_series(1, 3000) g;
	DELETE FROM u WHERE id % 3 = 0;
	VACUUM u;
});
$primary->safe_psql('postgres', 'CREATE INDEX CONCURRENTLY t_k2 ON t USING artrie (k)');
$primary->safe_psql('postgres', 'REINDEX INDEX t_k');
$primary->safe_psql('postgres', 'CREATE DATABASE copy024 TEMPLATE postgres');
for my $db ('postgres', 'copy024')
{
	for my $idx ('t_k', 't_k2', 'u_k')
	{
		my ($kept, $walked, $distinct) = split /\|/, $primary->safe_psql($db, qq{
			SELECT artrie_stats('$idx')->>'distinct_keys',
				artrie_stats('$idx', true)->>'distinct_keys',
				(SELECT count(DISTINCT k) FROM } . ($idx eq 'u_k' ? 'u' : 't') . q{)});
		is("$kept $walked", "$distinct $distinct",
			"$db, $idx: kept and walked distinct keys equal the table's");
	}
}

# artrie_verify checks the kept count against the distinct keys it walks:
# a count made wrong in both meta pages of a cleanly stopped server's file
# (and their checksums made right again) is found and named.
my $u_file = $primary->data_dir . '/'
  . $primary->safe_psql('postgres', q{SELECT artrie_stats('u_k')->>'file'});
my $u_kept = $primary->safe_psql('postgres',
	q{SELECT artrie_stats('u_k')->>'distinct_keys'});
$primary->stop;
open(my $fh, '+<:raw', $u_file) or die "open $u_file: $!";
for my $slot (0, 1)
{
	my $page;
	sysseek($fh, $slot * 8192, 0);
	sysread($fh, $page, 8192) == 8192 or die "read: $!";
	# the meta page's first user word (the count's low half) follows a
	# 32-byte page header and 60 bytes of the meta page
	substr($page, 92, 4) = pack('V', unpack('V', substr($page, 92, 4)) + 5);
	substr($page, 0, 4) = pack('V', crc32c(substr($page, 4)));
	sysseek($fh, $slot * 8192, 0);
	syswrite($fh, $page) == 8192 or die "write: $!";
}
close $fh;
$primary->start;
is($primary->safe_psql('postgres', q{SELECT artrie_stats('u_k')->>'distinct_keys'}),
	$u_kept + 5, 'a count made wrong on disk is what artrie_stats reports');
my ($ret, $out, $err) = $primary->psql('postgres', q{SELECT artrie_verify('u_k')});
like($err, qr/index "u_k" is corrupt: it keeps a count of @{[ $u_kept + 5 ]} distinct keys, its entries hold $u_kept/,
	'artrie_verify finds the wrong count and says both figures');
$primary->safe_psql('postgres', 'REINDEX INDEX u_k');
verify_ok($primary, 'u_k', 'after REINDEX');

$standby->stop;
$primary->stop;
done_testing();
