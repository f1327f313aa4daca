# An older copy of one artrie file, put back while the control file and
# the WAL are current: the WAL that artrie replays at start begins after
# that copy's checkpoint, so nothing brings the copy up to date, and the
# index must be refused (an ERROR, or a planner WARNING, naming it and
# hinting at REINDEX; artrie_indexes names the problem), never serve the
# old rows.  Another index, unused since a restart, stays usable: every
# file is stamped anew when PostgreSQL's redo pointer moves, so a file
# is not refused merely because it did not change.
#
# The copy is taken with the server stopped; then rows are deleted and
# added and checkpoints move PostgreSQL's redo pointer (and artrie's
# replay start) past the copy's checkpoint; the copy is put back with the
# server stopped cleanly (io_uring) or by a crash (mmap, where artrie's
# window of WAL is replayed at start).
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
	my $file = $node->safe_psql('postgres', "SELECT artrie_stats('$index')->>'file'");
	die "no file for $index" unless $file =~ m{^artrie/\d+/\d+\.\d+$};
	return $file;
}

for my $backend (backends())
{
	my $node = artrie_node("old_file_$backend", $backend);
	make_wtable($node, 'old', 'old_k', 1, 50000);
	make_wtable($node, 'idle', 'idle_k', 1000001, 1003000);
	my $file = index_file($node, 'old_k');
	my $idle_want = index_answers($node, 'idle', 'seq');

	# Last night's copy.
	$node->stop;
	my $dir = PostgreSQL::Test::Utils::tempdir;
	copy($node->data_dir . "/$file", "$dir/old_k") or die "copy $file: $!";
	$node->start;

	# The day's changes, and checkpoints past the copy's.
	$node->safe_psql('postgres', 'DELETE FROM old WHERE id % 10 = 0');
	$node->safe_psql('postgres',
		'INSERT INTO old SELECT g, wkey(g) FROM generate_series(60001, 61000) g');
	for (1 .. 3)
	{
		$node->safe_psql('postgres', 'CHECKPOINT');
		$node->safe_psql('postgres', 'SELECT artrie_checkpoint()');
	}
	my $want = index_answers($node, 'old', 'seq');

	if ($backend eq 'mmap')
	{
		$node->safe_psql('postgres', 'INSERT INTO old VALUES (70001, wkey(70001))');
		$node->stop('immediate');
	}
	else
	{
		$node->stop;
	}
	copy("$dir/old_k", $node->data_dir . "/$file") or die "copy back: $!";
	next unless start_ok($node, "$backend: with the old copy put back");

	my $r = index_or_refusal($node, 'old', 'old_k', "$backend: the old copy");
	is($r, 'refused', "$backend: the old copy of the file is refused");
	my $problem = $node->safe_psql('postgres',
		"SELECT coalesce(problem, 'none') FROM artrie_indexes WHERE index = 'old_k'::regclass");
	like($problem, qr/cannot be used/, "$backend: artrie_indexes names the problem");

	check_index($node, 'idle', 'idle_k', "$backend: the index unused since a restart",
		want => $idle_want);

	sql_ok($node, 'REINDEX INDEX old_k', "$backend: REINDEX old_k");
	check_index($node, 'old', 'old_k', "$backend: old_k after REINDEX");
	$node->stop;
}

done_testing();
