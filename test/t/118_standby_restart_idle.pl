# A hot standby restarted while it has much WAL to replay again keeps
# serving an index that nothing changed since the standby took it.
#
# The standby's last checkpoint of artrie files at shutdown vouches for
# the idle index's file up to where replay had got (the vouch list), and
# the next start refuses files not current from there.  After the
# restart, replay begins again at the last restart point, well before
# that position, and the io worker's first pass runs while replay is
# still behind: it must not replace the list's entry with one current
# only up to replay's position then, which would leave the file refused
# on the standby (and, once promoted, on the new primary) until REINDEX.
# The primary takes no checkpoint while it writes, so that the restart
# replays all of its writes again.  On both I/O backends.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my @conf = ("checkpoint_timeout = '1h'", "max_wal_size = '4GB'");

for my $backend (backends())
{
	my $primary = artrie_primary("sri_p_$backend", $backend, conf => \@conf);
	make_wtable($primary, 'w', 'w_k', 1, 20000);
	make_wtable($primary, 'i', 'i_k', 1, 20000);
	my $standby = artrie_standby($primary, "sri_s_$backend");
	wait_replayed($primary, $standby);
	my $want = index_answers($primary, 'i', 'seq');
	check_index($standby, 'i', 'i_k', "$backend: before the restart",
		want => $want);

	# Much WAL after the primary's last checkpoint, all of which the
	# restart replays again; the idle index takes none of it.
	my $before = $primary->safe_psql('postgres', 'SELECT pg_current_wal_lsn()');
	$primary->safe_psql('postgres', q{
		CREATE TABLE IF NOT EXISTS junk (n int, t text);
		INSERT INTO junk SELECT g, repeat('x', 200) FROM generate_series(1, 600000) g;
		INSERT INTO w SELECT g, wkey(g) FROM generate_series(1000001, 1300000) g;
		DELETE FROM w WHERE id % 7 = 0;
	});
	wait_replayed($primary, $standby);
	$standby->restart;
	wait_replayed($primary, $standby);
	my @starts = slurp_file($standby->logfile) =~ /redo starts at (\S+)/g;
	is( $standby->safe_psql('postgres',
			"SELECT '$starts[-1]'::pg_lsn < '$before'::pg_lsn"),
		't', "$backend: the restart replayed the writes again");

	check_index($standby, 'i', 'i_k', "$backend: after the restart",
		want => $want);
	verify_ok($standby, 'i_k', "$backend: after the restart");
	check_index($standby, 'w', 'w_k', "$backend: after the restart, the busy index",
		want => index_answers($primary, 'w', 'seq'));

	# It stays served after a second restart and after a promotion.
	$standby->restart;
	check_index($standby, 'i', 'i_k', "$backend: after a second restart",
		want => $want);
	$primary->stop;
	$standby->promote;
	wait_promoted($standby, "$backend: promoted");
	$standby->safe_psql('postgres', 'CHECKPOINT');
	check_index($standby, 'i', 'i_k', "$backend: promoted", want => $want);
	$standby->safe_psql('postgres',
		'INSERT INTO i SELECT g, wkey(g) FROM generate_series(500001, 501000) g');
	check_index($standby, 'i', 'i_k', "$backend: promoted, after writes");
	$standby->stop;
}

done_testing();
