# UNLOGGED indexes and standbys.  An UNLOGGED table's rows never reach a
# standby, so its artrie index must not either: after promotion the
# table is empty (PostgreSQL resets it from its init fork) and its index
# must be too, or an index scan would return rows that the promoted
# server never had, or rows written later at the same heap positions
# under other keys.  The primary writes and checkpoints the UNLOGGED
# table (PostgreSQL's CHECKPOINT, which artrie's pass follows, and
# artrie_checkpoint()); the standby, promoted, must answer every query
# through the index exactly like a sequential scan, before and after new
# writes; so must the primary after a crash.  On both I/O backends.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

for my $backend (backends())
{
	my $primary = artrie_primary("uls_p_$backend", $backend);
	make_wtable($primary, 'u', 'u_k', 1, 1, unlogged => 1);
	my $standby = artrie_standby($primary, "uls_s_$backend");
	$primary->safe_psql('postgres', q{
		INSERT INTO u SELECT g, wkey(g) FROM generate_series(2, 30000) g;
		DELETE FROM u WHERE id % 7 = 0;
		CHECKPOINT;
		SELECT artrie_checkpoint();
		INSERT INTO u SELECT g, wkey(g) FROM generate_series(30001, 31000) g;
		CHECKPOINT;
	});
	wait_replayed($primary, $standby);
	my ($ret, $out, $err) = $standby->psql('postgres', 'SELECT count(*) FROM u');
	like($err, qr/cannot access temporary or unlogged relations during recovery/,
		"$backend: the standby refuses to read the UNLOGGED table");

	$standby->promote;
	wait_promoted($standby, "$backend: promoted");
	is($standby->safe_psql('postgres', 'SELECT count(*) FROM u'), '0',
		"$backend: promoted, the UNLOGGED table is empty");
	check_index($standby, 'u', 'u_k', "$backend: promoted, the empty table");
	$standby->safe_psql('postgres', q{
		INSERT INTO u SELECT g, 'new/' || g FROM generate_series(1, 3000) g;
		INSERT INTO u SELECT g, wkey(g) FROM generate_series(3001, 6000) g;
	});
	check_index($standby, 'u', 'u_k', "$backend: promoted, after new writes");
	verify_ok($standby, 'u_k', "$backend: promoted, after new writes");
	$standby->stop;

	crash_node($primary);
	start_ok($primary, "$backend: the primary after a crash");
	is($primary->safe_psql('postgres', 'SELECT count(*) FROM u'), '0',
		"$backend: after a crash, the UNLOGGED table is empty");
	$primary->safe_psql('postgres',
		q{INSERT INTO u SELECT g, wkey(g) FROM generate_series(40001, 43000) g});
	check_index($primary, 'u', 'u_k', "$backend: after a crash and new writes");
	$primary->stop;
}

done_testing();
