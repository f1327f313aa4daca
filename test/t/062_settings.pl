# Start-time settings out of range stop the server with a message naming
# the setting, as PostgreSQL's own do, and a reloadable one is refused;
# a buffer pool far too small for the pages in use is reported in the log
# and by artrie_pool_stats().
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('settings');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'artrie'");

# Start with one bad line in postgresql.conf: the server must not come up,
# and its log must name the setting.
sub refused_start
{
	my ($line, $message, $what) = @_;
	my $offset = -s $node->logfile;
	$node->append_conf('postgresql.conf', $line);
	ok(!$node->start(fail_ok => 1), "$what: the server does not start");
	like(slurp_file($node->logfile, $offset), $message,
		"$what: the log names the setting and its range");
	$node->adjust_conf('postgresql.conf', (split / = /, $line)[0], undef);
}

refused_start('artrie.max_files = 5',
	qr/FATAL:  5 is outside the valid range for parameter "artrie.max_files" \(16 \.\. 1048576\)/,
	'artrie.max_files below its minimum');
refused_start('artrie.buffer_pool_size = 64kB',
	qr/FATAL:  64kB is outside the valid range for parameter "artrie.buffer_pool_size" \(128 \.\. \d+\)/,
	'artrie.buffer_pool_size below its minimum');
refused_start("artrie.buffer_pool_size = 'lots'",
	qr/FATAL:  invalid value for parameter "artrie.buffer_pool_size": "lots"/,
	'artrie.buffer_pool_size not a size');
refused_start("artrie.io_backend = 'aio'",
	qr/FATAL:  invalid value for parameter "artrie.io_backend": "aio"\n(.*\n)*.*HINT:  Available values: io_uring, mmap\./,
	'artrie.io_backend not a backend');
refused_start('artrie.io_ring_entries = 100000',
	qr/FATAL:  100000 is outside the valid range for parameter "artrie.io_ring_entries"/,
	'artrie.io_ring_entries above its maximum');

# The smallest pool (16 frames) and random lookups over an index of a few
# hundred pages: the pool is replaced over and over.
$node->append_conf('postgresql.conf',
	"artrie.buffer_pool_size = 128kB\nartrie.max_files = 16");
$node->start;
is($node->safe_psql('postgres', 'SHOW artrie.buffer_pool_size'), '128kB',
	'values in range are taken');
is($node->safe_psql('postgres', 'SHOW artrie.max_files'), '16',
	'artrie.max_files at its minimum is taken');
$node->safe_psql('postgres', q{
	CREATE EXTENSION artrie;
	CREATE TABLE t (w text);
	INSERT INTO t SELECT 'key/' || i || '/' || md5(i::text) FROM generate_series(1, 50000) i;
	CREATE INDEX t_idx ON t USING artrie (w);
});
is($node->safe_psql('postgres', q{SELECT (artrie_stats('t_idx')->>'pages')::int > 100}),
	't', 'the index has many more pages than the pool has frames');

# Lookups for 25 s, which hold at least one whole 10-second interval of
# the pool's watch; while they run, what artrie_pool_stats() and
# artrie_stats() say once the watch has judged an interval.
$node->safe_psql('postgres', q{
	CREATE FUNCTION thrash(seconds int) RETURNS text LANGUAGE plpgsql AS $$
	DECLARE
		t0 timestamptz := clock_timestamp();
		k text;
		n int;
		i int := 0;
		seen text := 'not seen';
	BEGIN
		SET LOCAL enable_seqscan = off;
		SET LOCAL enable_bitmapscan = off;
		WHILE clock_timestamp() < t0 + make_interval(secs => seconds) LOOP
			k := 'key/' || (1 + (random() * 49999)::int) || '/';
			SELECT count(*) INTO n FROM t WHERE w ^@ k;
			i := i + 1;
			IF seen = 'not seen' AND i % 200 = 0 AND
				(SELECT too_small AND recent_hit_ratio < 0.9 FROM artrie_pool_stats()) THEN
				seen := 'artrie_pool_stats too_small, artrie_stats too_small '
					|| (artrie_stats('t_idx')->'pool'->>'too_small');
			END IF;
		END LOOP;
		RETURN seen;
	END;
	$$;
});
my $offset = -s $node->logfile;
is($node->safe_psql('postgres', 'SELECT thrash(25)'),
	'artrie_pool_stats too_small, artrie_stats too_small true',
	'artrie_pool_stats() and artrie_stats() show a pool too small, and a low recent hit ratio');
ok($node->wait_for_log(
		qr/LOG:  artrie's buffer pool is too small for the pages in use: \d+% of page requests missed over the last 10 seconds/,
		$offset),
	'a pool far too small is reported in the log');
like(slurp_file($node->logfile, $offset),
	qr/HINT:  Consider increasing the configuration parameter "artrie.buffer_pool_size" \(now 128 kB\)/,
	'with a hint naming the setting');
my @lines = grep { /buffer pool is too small/ } split /\n/, slurp_file($node->logfile, $offset);
is(scalar(@lines), 1, 'once, not at every interval (rate-limited)');

# A reloadable setting out of its range is refused with the same message,
# and one in range taken at the reload.
my ($rc, $out, $err) = $node->psql('postgres',
	q{ALTER SYSTEM SET artrie.checkpoint_gate_timeout = '500ms'});
isnt($rc, 0, 'artrie.checkpoint_gate_timeout below its minimum is refused');
like($err,
	qr/ERROR:  500 ms is outside the valid range for parameter "artrie.checkpoint_gate_timeout" \(1000 \.\. 3600000\)/,
	'the error names the setting and its range');
$node->safe_psql('postgres',
	q{ALTER SYSTEM SET artrie.checkpoint_gate_timeout = '5s'});
$node->reload;
ok($node->poll_query_until('postgres',
		q{SELECT current_setting('artrie.checkpoint_gate_timeout') = '5s'}),
	'artrie.checkpoint_gate_timeout in range is taken at the reload');

$node->stop;
done_testing();
