# A base backup may copy an artrie file before the io worker's checkpoint
# that follows the backup's start has written it: the copy then carries a
# checkpoint older than the backup, and the backup holds no WAL before its
# start.  Such a copy is still current if the file had no change since
# that checkpoint, which the io worker's checkpoint says in the WAL (an
# unchanged record); a copy of a file that did change is rebuilt from
# the image that the first checkpoint after the backup's start logged.
#
# The race is made certain: the files are copied before the backup starts
# and put into the backup in place of its own copies, as a backup that
# reached the artrie directory first would have them.  A third index is
# not used at all between a restart of the primary and the backup, so no
# checkpoint of its file begins after the backup's start; the io worker
# logs it unchanged all the same.  Then:
#  - the unchanged index and the unused one answer exactly what a
#    sequential scan answers, with no error (the unchanged one also after
#    new rows and a restart);
#  - the index whose table changed after the copy answers exactly what
#    a sequential scan answers too (redo rebuilt its file from the
#    checkpoint's image), never a wrong answer, and REINDEX keeps it so.
# On both I/O backends.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use File::Copy;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

# The path under $PGDATA of an index's artrie file.
sub index_file
{
	my ($node, $index) = @_;
	my $stats = $node->safe_psql('postgres', "SELECT artrie_stats('$index')->>'file'");
	die "no file for $index" unless $stats =~ m{^artrie/\d+/\d+\.\d+$};
	return $stats;
}

for my $backend (backends())
{
	my $primary = artrie_primary("primary_$backend", $backend, has_archiving => 1);
	make_wtable($primary, 'unused', 'unused_k', 2000001, 2002000);
	my $unused_file = index_file($primary, 'unused_k');
	$primary->restart;
	make_wtable($primary, 'quiet', 'quiet_k', 1, 3000);
	make_wtable($primary, 'busy', 'busy_k', 1000001, 1003000);
	my %file = map { $_ => index_file($primary, $_) } ('quiet_k', 'busy_k');

	# Both files checkpointed after the last change, then copied.
	$primary->safe_psql('postgres', 'CHECKPOINT');
	my $redo = $primary->safe_psql('postgres', 'SELECT redo_lsn FROM pg_control_checkpoint()');
	for my $index ('quiet_k', 'busy_k')
	{
		ok($primary->poll_query_until('postgres',
			"SELECT (artrie_stats('$index')->'checkpoint'->>'redo_lsn')::pg_lsn >= '$redo'"),
			"$backend: $index checkpointed after PostgreSQL's checkpoint");
	}
	my $early = PostgreSQL::Test::Utils::tempdir;
	for my $index ('quiet_k', 'busy_k')
	{
		copy($primary->data_dir . "/$file{$index}", "$early/$index")
		  or die "copy $file{$index}: $!";
	}

	# busy changes after the copy; quiet does not.
	$primary->safe_psql('postgres',
		'INSERT INTO busy SELECT g, wkey(g) FROM generate_series(1003001, 1003500) g');
	$primary->safe_psql('postgres', 'DELETE FROM busy WHERE id < 1000200');

	$primary->backup('b');
	my $label = slurp_file($primary->backup_dir . '/b/backup_label');
	my ($start) = $label =~ /^START WAL LOCATION: (\S+)/m;
	ok(defined $start, "$backend: the backup names its start");

	# The io worker's checkpoint after the backup's start has run for
	# both (quiet's logged it unchanged); its WAL is archived.
	for my $index ('quiet_k', 'busy_k')
	{
		ok($primary->poll_query_until('postgres',
			"SELECT (artrie_stats('$index')->'checkpoint'->>'redo_lsn')::pg_lsn > '$start'"),
			"$backend: $index checkpointed after the backup's start");
	}
	my %want = map { $_ => index_answers($primary, $_, 'seq') } ('quiet', 'busy', 'unused');
	my $seg = $primary->safe_psql('postgres', 'SELECT pg_walfile_name(pg_current_wal_lsn())');
	$primary->safe_psql('postgres', 'SELECT pg_switch_wal()');
	ok($primary->poll_query_until('postgres',
		"SELECT last_archived_wal >= '$seg' FROM pg_stat_archiver"),
		"$backend: the WAL after the backup is archived");

	# The backup, restored with the early copies in place of its own.
	my $node = PostgreSQL::Test::Cluster->new("restored_$backend");
	$node->init_from_backup($primary, 'b', has_restoring => 1, standby => 0);
	$node->append_conf('postgresql.conf', 'archive_mode = off');
	for my $index ('quiet_k', 'busy_k')
	{
		copy("$early/$index", $node->data_dir . "/$file{$index}")
		  or die "copy into the backup: $!";
	}
	next unless start_ok($node, "$backend: backup with early copies");
	wait_promoted($node, "$backend: backup with early copies");

	check_index($node, 'quiet', 'quiet_k', "$backend: the unchanged copy",
		want => $want{quiet});
	verify_ok($node, 'quiet_k', "$backend: the unchanged copy");
	ok(-e $node->data_dir . "/$unused_file", "$backend: the unused index's file is in the backup");
	check_index($node, 'unused', 'unused_k', "$backend: the index unused since the restart",
		want => $want{unused});
	verify_ok($node, 'unused_k', "$backend: the index unused since the restart");
	my $r = index_or_refusal($node, 'busy', 'busy_k', "$backend: the changed copy",
		want => $want{busy});
	is($r, 'answered', "$backend: the copy of the changed file is rebuilt from the WAL");
	sql_ok($node, 'REINDEX INDEX busy_k', "$backend: REINDEX busy_k");
	check_index($node, 'busy', 'busy_k', "$backend: busy_k after REINDEX",
		want => $want{busy});

	# The unchanged copy stays usable: new rows, then a restart.
	sql_ok($node, 'INSERT INTO quiet SELECT g, wkey(g) FROM generate_series(5001, 5300) g',
		"$backend: new rows go into quiet");
	check_index($node, 'quiet', 'quiet_k', "$backend: quiet_k after new rows");
	$node->restart;
	check_index($node, 'quiet', 'quiet_k', "$backend: quiet_k after a restart");
	$node->stop('immediate');
	ok(start_ok($node, "$backend: after a crash"), "$backend: restarted after a crash");
	check_index($node, 'quiet', 'quiet_k', "$backend: quiet_k after a crash");
	verify_ok($node, 'quiet_k', "$backend: after a crash");
	$node->stop;
	$primary->stop;
}

done_testing();
