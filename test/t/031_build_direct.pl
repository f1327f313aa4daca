# A build writes its pages straight to the file, outside the pool, and
# logs the file's image once it is durable (src/pager/pager_build.c):
# what a build leaves behind, on the primary, on a standby that streams
# from before it, and in a base backup taken while it runs.
#  - a crash (every process killed) while CREATE INDEX runs, in its load
#    phase where the poll catches it: after restart no index, and no
#    artrie file that no index names on the primary;
#  - a CREATE UNIQUE INDEX that fails at its last entries, after it wrote
#    most of its pages: no artrie file that no index names on the
#    primary, and no file of it on the standby (the failed build logged
#    nothing);
#  - a CREATE INDEX while a base backup is taken, then a standby from that
#    backup, the first standby and the primary: the index answers every
#    query like a sequential scan and like the primary; then a crash right
#    after the build's commit: the index answers and verifies.
# A coverage test of the direct build (its writes, its image read back
# and replayed, what a build that did not commit leaves); on both I/O
# backends.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);
use ArtrieTest;

my $rows = 100000;

# The files on $node's disk are those its indexes name, once its sweep
# has run (a standby sweeps by itself), bounded by the framework's timeout.
sub swept_ok
{
	my ($node, $label) = @_;
	my (@want, @have);
	for (1 .. $PostgreSQL::Test::Utils::timeout_default)
	{
		@want = named_files($node);
		@have = grep { !/\.inuse$/ } artrie_files($node);
		last if join(',', @want) eq join(',', @have);
		sleep 1;
	}
	is_deeply(\@have, \@want, "$label: no artrie file is left that no index names");
	return;
}

# Start CREATE INDEX $index in the background on $node, kill every process
# while it runs (in its load phase if a poll sees it there; at once if the
# index was committed first), and restart.
sub crash_during_build
{
	my ($node, $index, $sql, $label) = @_;
	my $s = bg_session($node);
	$s->{in} .= "$sql;\n";
	$s->{h}->pump_nb;
	my $phase = '';
	for (1 .. $PostgreSQL::Test::Utils::timeout_default * 10)
	{
		$phase = $node->safe_psql('postgres', qq{
			SELECT coalesce((SELECT phase FROM pg_stat_progress_create_index), '')
			  || (SELECT CASE WHEN count(*) > 0 THEN ' committed' ELSE '' END
				  FROM pg_class WHERE relname = '$index')});
		last if $phase =~ /loading trie|committed/;
		usleep(10_000);
	}
	note("$label: crash in phase '$phase'");
	crash_node($node);
	eval { $s->{h}->finish; };
	start_ok($node, "$label: after the crash");
	return;
}

for my $backend (backends())
{
	my $primary = artrie_primary("p_$backend", $backend);
	make_build_tables($primary, $rows);
	my $standby = artrie_standby($primary, "s_$backend");

	# 1. A crash during the build.  If the build committed before the
	# kill (the poll missed its load phase), its index must answer.
	crash_during_build($primary, 't_idx',
		'CREATE INDEX t_idx ON t USING artrie (k)', "$backend, crash");
	if ($primary->safe_psql('postgres',
			"SELECT count(*) FROM pg_class WHERE relname = 't_idx'") ne '0')
	{
		note("$backend, crash: the build committed before the crash");
		check_index($primary, 't', 't_idx', "$backend, crash after the build");
		$primary->safe_psql('postgres', 'DROP INDEX t_idx');
	}
	else
	{
		pass("$backend, crash: the index was not created");
	}
	swept_ok($primary, "$backend, crash, primary");
	wait_replayed($primary, $standby);
	is($standby->safe_psql('postgres',
			"SELECT count(*) FROM pg_class WHERE relname = 't_idx'"),
		'0', "$backend, crash: the standby has no index either");

	# 2. A UNIQUE build that fails after it wrote most of its pages: the
	# standby gets no file of it (the build logged nothing).
	my %before = map { $_ => 1 } artrie_files($standby);
	my ($ret, $out, $err) = $primary->psql('postgres',
		'CREATE UNIQUE INDEX u_idx ON u USING artrie (k)');
	like($err, qr/could not create unique index|duplicate key/,
		"$backend, unique: the build fails at the duplicate");
	swept_ok($primary, "$backend, unique, primary");
	wait_replayed($primary, $standby);
	my %named = map { $_ => 1 } named_files($standby);
	my @new = grep { !$before{$_} && !$named{$_} && !/\.inuse$/ }
	  artrie_files($standby);
	is_deeply(\@new, [], "$backend, unique: the standby has no file of the failed build");

	# 3. A build while a base backup is taken.
	my $s = bg_session($primary);
	$s->{in} .= "CREATE INDEX t_idx ON t USING artrie (k);\nSELECT 'built';\n";
	$s->{h}->pump_nb;
	$primary->backup("during_$backend", backup_options => [ '--max-rate=16M' ]);
	bg_run($s, '', qr/built/);
	is($s->{err}, '', "$backend, backup: CREATE INDEX succeeds");
	bg_end($s);
	my $from_backup = artrie_standby($primary, "b_$backend",
		backup => "during_$backend");
	my $want = index_answers($primary, 't', 'seq');
	for my $node ($standby, $from_backup)
	{
		wait_replayed($primary, $node);
		check_index($node, 't', 't_idx', "$backend, " . $node->name,
			want => $want);
		verify_ok($node, 't_idx', "$backend, " . $node->name);
	}

	# 4. A crash right after the build's commit.
	$primary->safe_psql('postgres', 'DROP INDEX t_idx; CREATE INDEX t_idx ON t USING artrie (k)');
	crash_node($primary);
	start_ok($primary, "$backend, crash after commit");
	check_index($primary, 't', 't_idx', "$backend, crash after commit",
		want => $want);
	verify_ok($primary, 't_idx', "$backend, crash after commit");
	files_ok($primary, "$backend, crash after commit");

	$from_backup->stop;
	$standby->stop;
	$primary->stop;
}

done_testing();
