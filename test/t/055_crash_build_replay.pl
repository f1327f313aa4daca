# A crash soon after CREATE INDEX, with the index's image in the WAL that
# artrie replays itself at start, before PostgreSQL's redo: PostgreSQL
# checkpointed after the build, but the io worker's checkpoint that
# follows it (artrie.test_checkpoint_pause holds it in its write phase)
# had not yet moved artrie's control file past the image (PostgreSQL's
# checkpoint waits for that pass only artrie.checkpoint_gate_timeout).  Replay of the
# image starts the file afresh and must apply the image and every record
# after it, whether the file is there ("kept") or was removed while the
# server was down ("missing": the WAL holds all of it, so it is made
# anew).  Either way the index then answers as a sequential scan does,
# with the rows inserted before and after PostgreSQL's checkpoint, and
# artrie_verify finds it sound.  On both I/O backends.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my $idx = 'SET enable_seqscan = off; SET enable_bitmapscan = off;';
my $seq = 'SET enable_indexscan = off; SET enable_indexonlyscan = off; '
  . 'SET enable_bitmapscan = off;';
my $probe = "SELECT count(*), sum(hashtext(t)) FROM w WHERE t > ''; "
  . "SELECT count(*) FROM w WHERE t ^@ 'after-'";

for my $backend (backends())
{
	my $node = artrie_node("build_replay_$backend", $backend,
		'artrie.test_checkpoint_pause = on',
		'artrie.checkpoint_gate_timeout = 1000');
	my $pause = $node->data_dir . '/artrie_checkpoint_pause';

	for my $case ('kept', 'missing')
	{
		my $label = "$backend, $case";
		$node->safe_psql('postgres', q{
			DROP TABLE IF EXISTS w;
			CREATE TABLE w (t text COLLATE "C");
			INSERT INTO w SELECT md5(i::text) FROM generate_series(1, 20000) i;
			CREATE INDEX wi ON w USING artrie (t);
		});
		my $path = $node->data_dir . '/'
		  . $node->safe_psql('postgres', "SELECT artrie_stats('wi')->>'file'");

		# From here on the io worker's checkpoints of changed files pause
		# before they write, so artrie's control file stays before the
		# build's image.
		open(my $fh, '>', $pause) or die "cannot create $pause: $!";
		close($fh);
		my $logpos = -s $node->logfile;
		$node->safe_psql('postgres', q{
			INSERT INTO w SELECT 'before-' || i FROM generate_series(1, 300) i;
			CHECKPOINT;
		});
		ok($node->wait_for_log(
				qr/artrie checkpoint of file "[^"]+" pauses in its write phase/, $logpos),
			"$label: the io worker's checkpoint after PostgreSQL's pauses");
		my $control = $node->safe_psql('postgres', q{
			SELECT (artrie_stats('wi')->'wal'->>'replay_from')::pg_lsn < c.redo_lsn
			FROM pg_control_checkpoint() c});
		is($control, 't', "$label: artrie's WAL to replay begins before PostgreSQL's checkpoint");
		$node->safe_psql('postgres',
			"INSERT INTO w SELECT 'after-' || i FROM generate_series(1, 300) i");
		my $want = $node->safe_psql('postgres', "$seq $probe");
		like($want, qr/\n300$/, "$label: 300 rows after PostgreSQL's checkpoint");

		crash_node($node);
		unlink($pause) or die "unlink $pause: $!";
		if ($case eq 'missing')
		{
			ok(unlink($path), "$label: the file removed");
		}
		$logpos = -s $node->logfile;
		$node->start;
		like(slurp_file($node->logfile, $logpos),
			qr/artrie replayed \d+ WAL records from/,
			"$label: artrie replayed its WAL before PostgreSQL's redo");
		ok(-e $path, "$label: the file is there");

		my ($ret, $out, $err) = $node->psql('postgres', "$idx $probe");
		is($ret, 0, "$label: a query through the index runs") or diag($err);
		is($err, '', "$label: without a warning");
		is($out, $want, "$label: the index has every committed row");
		like($node->safe_psql('postgres', "$idx EXPLAIN (COSTS OFF) SELECT count(*) FROM w WHERE t > ''"),
			qr/Index Only Scan using wi/, "$label: the query goes through the index");
		verify_ok($node, 'wi', $label);
		is($node->psql('postgres', "INSERT INTO w VALUES ('after-restart')"), 0,
			"$label: an insert maintains the index");
	}
	$node->stop;
}

done_testing();
