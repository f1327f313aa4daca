# Base backups of a working database restore: pg_basebackup with
# --max-rate (a slow copy) while four writers insert, delete, update and
# vacuum, and while checkpoints run all along (PostgreSQL's CHECKPOINT
# every half second, artrie.checkpoint_timeout = 1, a small pool that is
# often half dirty), so that artrie's checkpoints free and write pages
# again while the copy reads the file.  Each backup is restored three
# ways: as a primary (recovery to the end of the archived WAL), as a
# streaming hot standby, and by point-in-time recovery to a restore
# point made while the writers ran.  Every restore must answer every
# index query exactly as a sequential scan on it does (and the first two
# as the primary does), with no REINDEX.  Repeated ARTRIE_BACKUP_ROUNDS
# times (5 by default), the restores alternating between the I/O
# backends.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my $rounds = $ENV{ARTRIE_BACKUP_ROUNDS} // 5;
my $dir = PostgreSQL::Test::Utils::tempdir;

my $primary = artrie_primary('busy_primary', 'io_uring', has_archiving => 1,
	conf => [ 'artrie.checkpoint_timeout = 1', "artrie.buffer_pool_size = '2MB'" ]);
make_wtable($primary, 'w', 'w_k', 1, 150000);

# PostgreSQL's checkpoints every half second until stopped.
sub start_checkpoints
{
	return start_sql_loop($primary, $dir, "CHECKPOINT;\nSELECT pg_sleep(0.5);\n", 400);
}

for my $round (1 .. $rounds)
{
	my $backend = $round % 2 ? 'io_uring' : 'mmap';
	my $label = "round $round ($backend restores)";
	my $w = start_writers($primary, 'w', $dir, $round, clients => 4, rows => 200000);
	writers_wait($w, 300 * $round);
	my $ckpts = start_checkpoints();

	my $c0 = $primary->safe_psql('postgres', 'SELECT checkpoints_req FROM pg_stat_bgwriter');
	$primary->backup("b$round", backup_options => [ '--max-rate=4M' ]);
	note('CHECKPOINTs during the backup: '
		  . ($primary->safe_psql('postgres', 'SELECT checkpoints_req FROM pg_stat_bgwriter') - $c0));

	# A target while the writers run.
	writers_wait($w, 300 * $round + 400);
	$primary->safe_psql('postgres', "SELECT pg_create_restore_point('mid$round')");
	writers_wait($w, 300 * $round + 800);
	stop_writers($primary, $w, $label);
	$ckpts->kill_kill;
	$ckpts->finish;
	my $want = index_answers($primary, 'w', 'seq');
	my $seg = $primary->safe_psql('postgres', 'SELECT pg_walfile_name(pg_current_wal_lsn())');
	$primary->safe_psql('postgres', 'SELECT pg_switch_wal()');
	$primary->poll_query_until('postgres',
		"SELECT last_archived_wal >= '$seg' FROM pg_stat_archiver")
	  or diag("$label: the WAL was not archived");

	# As a primary.
	my $node = PostgreSQL::Test::Cluster->new("restored_$round");
	$node->init_from_backup($primary, "b$round", has_restoring => 1, standby => 0);
	$node->append_conf('postgresql.conf',
		"archive_mode = off\nartrie.io_backend = '$backend'");
	if (start_ok($node, "$label: restored as a primary"))
	{
		wait_promoted($node, "$label: restored as a primary");
		check_index($node, 'w', 'w_k', "$label: restored as a primary", want => $want);
		$node->stop;
	}
	$node->clean_node;

	# As a hot standby.
	my $standby = PostgreSQL::Test::Cluster->new("standby_$round");
	# Streaming, with the archive for the WAL the primary recycled before
	# the standby connected (checkpoints every half second), as a DBA sets
	# a standby up.
	$standby->init_from_backup($primary, "b$round", has_streaming => 1,
		has_restoring => 1);
	$standby->append_conf('postgresql.conf',
		"hot_standby = on\nartrie.io_backend = '$backend'");
	if (start_ok($standby, "$label: as a standby"))
	{
		wait_replayed($primary, $standby);
		check_index($standby, 'w', 'w_k', "$label: as a standby", want => $want);
		$standby->stop;
	}
	$standby->clean_node;

	# Point-in-time recovery to the restore point.
	my $pitr = PostgreSQL::Test::Cluster->new("pitr_$round");
	$pitr->init_from_backup($primary, "b$round", has_restoring => 1, standby => 0);
	$pitr->append_conf('postgresql.conf', join("\n",
		'archive_mode = off', "artrie.io_backend = '$backend'",
		"recovery_target_name = 'mid$round'",
		"recovery_target_action = 'promote'"));
	if (start_ok($pitr, "$label: recovered to a target in the load"))
	{
		wait_promoted($pitr, "$label: recovered to a target in the load");
		check_index($pitr, 'w', 'w_k', "$label: recovered to a target in the load");
		$pitr->stop;
	}
	$pitr->clean_node;
	PostgreSQL::Test::Utils::system_or_bail('rm', '-rf', $primary->backup_dir . "/b$round");
}

$primary->stop;
done_testing();
