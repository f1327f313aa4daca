# pg_rewind and timelines.  A standby is promoted (timeline 2) while the
# old primary goes on writing on timeline 1 and checkpoints its artrie
# file there; the old primary is rewound with pg_rewind from the new one
# and attached to it as a hot standby.  Its artrie index then answers
# exactly as a sequential scan and the new primary do (no refusal), also
# after more writes on the new primary.  Then the
# old primary's own file from timeline 1, checkpointed after the point
# where timeline 2 left timeline 1 (its rows were never on the new
# primary), is put back: it is refused, naming the index, the timeline
# and the REINDEX hint, and never answers a query.  Also: meta pages
# record the timeline they were checkpointed on.  On both I/O backends.
use strict;
use warnings;
use File::Copy;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

# The timeline of the newest meta page of the index's file on a node.
sub file_timeline
{
	my ($node, $file) = @_;
	my $path = $node->data_dir . "/artrie/$file";
	open(my $fh, '<:raw', $path) or die "$path: $!";
	my ($best, $tli) = (-1, undef);
	for my $slot (0, 1)
	{
		seek($fh, $slot * 8192, 0);
		read($fh, my $page, 8192) == 8192 or die "short read of $path";
		my $ckpt = unpack('Q<', substr($page, 24, 8));
		($best, $tli) = ($ckpt, unpack('V', substr($page, 32 + 76, 4)))
		  if $ckpt > $best;
	}
	close $fh;
	return $tli;
}

for my $backend (backends())
{
	note("I/O backend $backend");
	my $old = artrie_primary("rw_old_$backend", $backend,
		conf => ['wal_log_hints = on', 'wal_keep_size = 256MB']);
	make_wtable($old, 'h', 'h_k', 1, 4000);
	my $new = artrie_standby($old, "rw_new_$backend");
	wait_replayed($old, $new);

	my ($file) = grep { !/\.damaged$/ } artrie_files($old);
	ok(defined $file, "the index's artrie file: $file");
	$old->safe_psql('postgres', 'SELECT artrie_checkpoint()');
	is(file_timeline($old, $file), 1, 'a meta page records timeline 1');

	# Promotion: the new primary writes on timeline 2.
	$new->promote;
	wait_promoted($new, 'new primary');
	$new->safe_psql('postgres', q{
		INSERT INTO h SELECT g, wkey(g) FROM generate_series(3000001, 3002000) g;
		DELETE FROM h WHERE id % 10 = 0 AND id < 4000;
		CHECKPOINT;
		SELECT artrie_checkpoint();
	});
	is(file_timeline($new, $file), 2, 'after promotion, a meta page records timeline 2');

	# The old primary goes on, on timeline 1, and checkpoints its file there.
	$old->safe_psql('postgres', q{
		INSERT INTO h SELECT g, wkey(g) FROM generate_series(2000001, 2003000) g;
		DELETE FROM h WHERE id % 7 = 0 AND id < 4000;
		CHECKPOINT;
		SELECT artrie_checkpoint();
	});
	my $old_end = $old->safe_psql('postgres', 'SELECT pg_current_wal_lsn()');
	$old->stop;
	my $diverged = PostgreSQL::Test::Utils::tempdir() . "/diverged_$backend";
	copy($old->data_dir . "/artrie/$file", $diverged) or die "copy: $!";

	# pg_rewind the old primary from the new one (it copies the new one's
	# configuration too: the old one's is put back); attach it as a standby.
	my $conf = slurp_file($old->data_dir . '/postgresql.conf');
	command_ok(
		[ 'pg_rewind', '--target-pgdata=' . $old->data_dir,
			'--source-server=' . $new->connstr('postgres') ],
		'pg_rewind of the old primary from the new one');
	open(my $cf, '>', $old->data_dir . '/postgresql.conf') or die $!;
	print $cf $conf;
	close $cf;
	$old->enable_streaming($new);
	$old->append_conf('postgresql.conf', 'hot_standby = on');
	start_ok($old, 'rewound old primary');
	wait_replayed($new, $old);

	my $want = index_answers($new, 'h', 'seq');
	check_index($old, 'h', 'h_k', 'rewound old primary', want => $want);
	is($old->safe_psql('postgres', q{
			SET enable_seqscan = off; SET enable_bitmapscan = off;
			SELECT count(*) FROM h WHERE k ^@ 'w2/'}), '0',
		'rewound old primary: none of its own rows of timeline 1 are found');

	# More writes on the new primary reach the rewound standby's index.
	$new->safe_psql('postgres', q{
		INSERT INTO h SELECT g, wkey(g) FROM generate_series(4000001, 4001000) g;
		UPDATE h SET k = k || '-u' WHERE id % 13 = 0 AND id < 4000;
	});
	wait_replayed($new, $old);
	$want = index_answers($new, 'h', 'seq');
	check_index($old, 'h', 'h_k', 'rewound standby after more writes', want => $want);

	# The new primary's WAL goes past the end of what the old one wrote on
	# timeline 1, so that the old file is not simply newer than the WAL.
	for (1 .. 10)
	{
		last if $new->safe_psql('postgres',
			"SELECT pg_current_wal_lsn() > '$old_end'::pg_lsn") eq 't';
		$new->safe_psql('postgres', q{
			INSERT INTO h SELECT g, wkey(g) FROM generate_series(5000001, 5000100) g;
			SELECT pg_switch_wal();
			DELETE FROM h WHERE id > 5000000;
		});
	}
	$new->safe_psql('postgres', 'CHECKPOINT');
	wait_replayed($new, $old);

	# The old primary's own file of timeline 1 put back: refused.
	$old->stop;
	copy($diverged, $old->data_dir . "/artrie/$file") or die "copy: $!";
	start_ok($old, 'standby with a file of a foreign timeline');
	wait_replayed($new, $old);
	$want = index_answers($new, 'h', 'seq');
	my $result = index_or_refusal($old, 'h', 'h_k', 'file of a foreign timeline', want => $want);
	is($result, 'refused', 'a file checkpointed on a timeline not in the history is refused');
	my ($ret, $out, $err) = $old->psql('postgres', q{
		SET enable_seqscan = off; SET enable_bitmapscan = off;
		SELECT count(*) FROM h WHERE k ^@ 'w2/'});
	like($err,
		qr/index "h_k" cannot be used: file "artrie\/\Q$file\E" was checkpointed on a timeline that is not in this server's history\n.*timeline 1, after the history of timeline 2 left it at [0-9A-F]+\/[0-9A-F]+.*\n.*HINT:  REINDEX the index/,
		'the refusal names the index, the file and the timelines, with the REINDEX hint');

	$old->stop;
	$new->stop;
}

done_testing();
