# A base backup through the low-level API (pg_backup_start, a copier of
# one's own, pg_backup_stop) whose copier reads the meta pages of every
# artrie file first, then lets several checkpoints run while the indexes
# change (each frees pages of the one before, and the next writes them
# again), and only then reads the rest of the files.  The copy of a busy
# index then holds a meta page that points at pages which hold something
# else; the restore must still give every index exactly as it was at the
# recovery target, with no REINDEX: redo rebuilds a file from the image
# that the first checkpoint after the backup's start logged.  A quiet
# index (no change during the backup) restores too.  The copy includes
# pg_replslot, as a plain copy of the data directory does.  On both I/O
# backends.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

# The artrie files of a data directory, relative to it.
sub data_files
{
	my ($pgdata) = @_;
	my @files;
	for my $db (glob("$pgdata/artrie/*"))
	{
		next unless -d $db;
		for my $f (glob("$db/*"))
		{
			push @files, substr($f, length($pgdata) + 1)
			  if $f =~ m{/\d+/\d+\.\d+$};
		}
	}
	return @files;
}

for my $backend (backends())
{
	my $primary = artrie_primary("lowlevel_$backend", $backend,
		has_archiving => 1,
		conf => [ 'artrie.checkpoint_timeout = 1' ]);
	make_wtable($primary, 'busy', 'busy_k', 1, 20000);
	make_wtable($primary, 'quiet', 'quiet_k', 1000001, 1003000);
	$primary->safe_psql('postgres', 'CHECKPOINT');
	my $pgdata = $primary->data_dir;

	my $session = $primary->background_psql('postgres');
	$session->query_safe('SET client_min_messages = warning');
	$session->query_safe("SELECT pg_backup_start('lowlevel', true)");

	# The copier reads the meta pages first.
	my %meta;
	for my $f (data_files($pgdata))
	{
		open(my $fh, '<:raw', "$pgdata/$f") or die "open $f: $!";
		read($fh, $meta{$f}, 16384) == 16384 or die "read $f: $!";
		close $fh;
	}
	ok(scalar(keys %meta) >= 2, "$backend: the copier read the meta pages of the files");

	# Several checkpoints while busy changes: PostgreSQL's and artrie's.
	for my $round (1 .. 4)
	{
		my $from = 100000 + $round * 3000;
		$primary->safe_psql('postgres', qq{
			INSERT INTO busy SELECT g, wkey(g) FROM generate_series($from, $from + 2999) g;
			DELETE FROM busy WHERE id % 9 = $round;
			UPDATE busy SET k = k || '/u$round' WHERE id % 13 = $round;
		});
		$primary->safe_psql('postgres', 'CHECKPOINT');
		$primary->safe_psql('postgres', 'SELECT artrie_checkpoint()');
		$primary->safe_psql('postgres', 'SELECT artrie_checkpoint()');
	}

	# Then the rest: the whole data directory but the WAL, with the artrie
	# files' meta pages as read at first.
	my $backup = copy_datadir($primary, 'lowlevel');
	for my $f (keys %meta)
	{
		next unless -e "$backup/$f";
		open(my $fh, '+<:raw', "$backup/$f") or die "open $f: $!";
		print $fh $meta{$f};
		close $fh;
	}
	my $label = $session->query_safe(
		'SELECT labelfile FROM pg_backup_stop(true)');
	$session->quit;
	write_backup_label($backup, $label);

	# More changes after the backup, then its WAL is archived.
	$primary->safe_psql('postgres',
		'INSERT INTO busy SELECT g, wkey(g) FROM generate_series(200001, 201000) g');
	my %want = map { $_ => index_answers($primary, $_, 'seq') } ('busy', 'quiet');
	my $seg = $primary->safe_psql('postgres', 'SELECT pg_walfile_name(pg_current_wal_lsn())');
	$primary->safe_psql('postgres', 'SELECT pg_switch_wal()');
	ok($primary->poll_query_until('postgres',
		"SELECT last_archived_wal >= '$seg' FROM pg_stat_archiver"),
		"$backend: the WAL after the backup is archived");

	my $node = PostgreSQL::Test::Cluster->new("lowlevel_restored_$backend");
	$node->init_from_backup($primary, 'lowlevel', has_restoring => 1, standby => 0);
	$node->append_conf('postgresql.conf', 'archive_mode = off');
	next unless start_ok($node, "$backend: the low-level backup");
	wait_promoted($node, "$backend: the low-level backup");

	check_index($node, 'busy', 'busy_k', "$backend: the busy index", want => $want{busy});
	verify_ok($node, 'busy_k', "$backend: the busy index");
	check_index($node, 'quiet', 'quiet_k', "$backend: the quiet index", want => $want{quiet});
	verify_ok($node, 'quiet_k', "$backend: the quiet index");
	sql_ok($node, 'INSERT INTO busy SELECT g, wkey(g) FROM generate_series(300001, 300500) g',
		"$backend: the restored busy index takes new rows");
	$node->stop('immediate');
	ok(start_ok($node, "$backend: after a crash"), "$backend: restarted after a crash");
	check_index($node, 'busy', 'busy_k', "$backend: the busy index after a crash");
	$node->stop;
	$primary->stop;
}

done_testing();
