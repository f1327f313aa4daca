# The orphan sweep removes an artrie file only when the catalog proves its
# relation dropped (its relfilenode in no row of its database's pg_class,
# or its database in no row of pg_database) and the disk agrees; evidence
# that could be a mount problem removes nothing.
#
# Dropped: an index in the database artrie_checkpoint() runs in, an index
# in another database (the io worker's sweeper connects to it), a dropped
# database; on a hot standby the drops replayed.  Not dropped: an index
# whose main fork went missing, a database whose directory is missing
# (logged once) or unreadable; once the directory is back, a real orphan
# in it goes and the indexes answer as before.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use File::Copy;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my $primary = artrie_primary('sweepcat', 'io_uring',
	conf => ['autovacuum = off']);
my $pgdata = $primary->data_dir;
my $missing_msg = qr/artrie removes no file of database \d+ while its directory is missing/;

sub db_oid
{
	my ($db) = @_;
	return $primary->safe_psql('postgres',
		"SELECT oid FROM pg_database WHERE datname = '$db'");
}

# The path of an index's artrie file in a node's data directory.
sub file_of
{
	my ($node, $db, $index) = @_;
	return $node->data_dir . '/'
	  . $node->safe_psql($db, "SELECT artrie_stats('$index')->>'file'");
}

# Poll until path is gone, bounded by the framework's timeout.
sub gone
{
	my ($path) = @_;
	for (1 .. $PostgreSQL::Test::Utils::timeout_default * 5)
	{
		return 1 unless -e $path;
		select(undef, undef, undef, 0.2);
	}
	return 0;
}

# Give the sweep every chance to run: artrie_checkpoint() in postgres, and
# the io worker's looks every five seconds with the sweepers they start.
sub sweep_rounds
{
	my ($node) = @_;
	for (1 .. 4)
	{
		$node->psql('postgres', 'SELECT artrie_checkpoint()');
		sleep 3;
	}
	return;
}

sub messages_since
{
	my ($node, $offset, $re) = @_;
	my $log = slurp_file($node->logfile, $offset);
	my $n = () = $log =~ /$re/g;
	return $n;
}

sub make_index
{
	my ($db, $table, @indexes) = @_;
	$primary->safe_psql($db, qq{
		CREATE TABLE $table (id int, k text COLLATE "C");
		INSERT INTO $table SELECT g, 'key-' || g FROM generate_series(1, 2000) g;
	});
	$primary->safe_psql($db,
		"CREATE INDEX $_ ON $table USING artrie (k)") for @indexes;
	return;
}

sub index_count
{
	my ($db, $table) = @_;
	return $primary->safe_psql($db, qq{
		SET enable_seqscan = off; SET enable_bitmapscan = off;
		SELECT count(*) FROM $table WHERE k ^@ 'key-1'});
}

$primary->safe_psql('postgres', 'CREATE DATABASE d1');
$primary->safe_psql('postgres', 'CREATE DATABASE d2');
$primary->safe_psql($_, 'CREATE EXTENSION artrie') for ('d1', 'd2');
make_index('postgres', 't', 't_a', 't_b', 't_c');
make_index('d1', 't1', 't1_a', 't1_b');
make_index('d2', 't2', 't2_a');
my $d1 = db_oid('d1');
my $d2 = db_oid('d2');
my $standby = artrie_standby($primary, 'sweepcat_standby');
wait_replayed($primary, $standby);

my %file;
$file{$_} = file_of($primary, 'postgres', $_) for ('t_a', 't_b', 't_c');
$file{$_} = file_of($primary, 'd1', $_) for ('t1_a', 't1_b');
$file{t2_a} = file_of($primary, 'd2', 't2_a');
my %sfile = map { $_ => $standby->data_dir . substr($file{$_}, length($pgdata)) }
  keys %file;
ok(-f $file{$_}, "$_ has its file") for sort keys %file;
ok(-f $sfile{$_}, "$_ has its file on the standby") for sort keys %sfile;

# Dropped relations and databases: their files go, on the standby too.
$primary->safe_psql('postgres', 'DROP INDEX t_a');
$primary->safe_psql('d1', 'DROP INDEX t1_a');
$primary->safe_psql('postgres', 'DROP DATABASE d2');
wait_replayed($primary, $standby);
ok(gone($file{t_a}), 'DROP INDEX: the file goes');
ok(gone($file{t1_a}), 'DROP INDEX in another database: the file goes');
ok(gone($file{t2_a}), 'DROP DATABASE: the file goes');
ok(gone("$pgdata/artrie/$d2"), 'DROP DATABASE: its artrie directory goes');
ok(gone($sfile{t_a}), 'standby: the dropped index\'s file goes');
ok(gone($sfile{t1_a}), 'standby: the file of the index dropped in another database goes');
ok(gone($sfile{t2_a}), 'standby: the dropped database\'s file goes');
ok(-f $file{$_}, "$_ is kept") for ('t_b', 't_c', 't1_b');
ok(-f $sfile{$_}, "$_ is kept on the standby") for ('t_b', 't_c', 't1_b');
$standby->stop;

# A fake orphan: a copy of t1_b's file under a relfilenode that no relation
# has, in d1's artrie directory.
my $orphan = "$pgdata/artrie/$d1/999999." . ($file{t1_b} =~ /\.(\d+)$/)[0];

# Lost storage while the server was down: t_b's main fork and d1's whole
# directory.  The catalog still names both, so nothing goes.
my $t_b_fork = $pgdata . '/'
  . $primary->safe_psql('postgres', "SELECT pg_relation_filepath('t_b')");
my $want_t = index_count('postgres', 't');
my $want_t1 = index_count('d1', 't1');
$primary->safe_psql('postgres', 'CHECKPOINT');
$primary->stop;
rename($t_b_fork, "$t_b_fork.away") or die "rename $t_b_fork: $!";
rename("$pgdata/base/$d1", "$pgdata/base/$d1.away") or die "rename base/$d1: $!";
copy($file{t1_b}, $orphan) or die "copy: $!";
my $offset = -s $primary->logfile;
$primary->start;
sweep_rounds($primary);
ok(-f $file{t_b}, 'main fork missing: the index\'s file is kept');
ok(-f $file{t1_b}, 'database directory missing: its index\'s file is kept');
ok(-f $orphan, 'database directory missing: even an orphan in it is kept');
is(messages_since($primary, $offset, $missing_msg), 1,
	'database directory missing: the log says so once');

# Back in place: the orphan goes, the indexes answer as before.
$primary->stop;
rename("$t_b_fork.away", $t_b_fork) or die "rename back: $!";
rename("$pgdata/base/$d1.away", "$pgdata/base/$d1") or die "rename back: $!";
$offset = -s $primary->logfile;
$primary->start;
ok(gone($orphan), 'directory back: the orphan in it goes');
ok(-f $file{t_b} && -f $file{t1_b}, 'directory back: the indexes\' files are kept');
is(index_count('postgres', 't'), $want_t, 'main fork back: the index answers as before');
is(index_count('d1', 't1'), $want_t1, 'directory back: the index answers as before');
is(messages_since($primary, $offset, $missing_msg), 0,
	'directory back: no complaint in the log');

# A database directory unreadable for a while (permissions mean nothing to
# root): an orphan in it stays until it can be read.
SKIP:
{
	skip 'root reads any directory', 4 if $> == 0;
	$primary->safe_psql('postgres', 'CHECKPOINT');
	$offset = -s $primary->logfile;
	chmod 0, "$pgdata/base/$d1" or die "chmod: $!";
	copy($file{t1_b}, $orphan) or die "copy: $!";
	sweep_rounds($primary);
	ok(-f $orphan, 'database directory unreadable: an orphan in it is kept');
	is(messages_since($primary, $offset,
			qr/artrie removes no orphaned file while directory "[^"]*base\/$d1" cannot be read/),
		1, 'database directory unreadable: the log says so once');
	chmod 0700, "$pgdata/base/$d1" or die "chmod: $!";
	ok(gone($orphan), 'readable again: the orphan goes');
	is(index_count('d1', 't1'), $want_t1, 'readable again: the index answers as before');
}

# A database left invalid by an interrupted DROP DATABASE refuses every
# connection with a FATAL, the sweeper's too: that is logged once and the
# database is not tried again every few seconds; dropping it for good
# removes its files.  The test marks the database invalid as DROP
# DATABASE does before it removes anything, from a session that stays
# connected to drop an index there afterwards.
$primary->safe_psql('postgres', 'CREATE DATABASE inv');
$primary->safe_psql('inv', 'CREATE EXTENSION artrie');
make_index('inv', 'ti', 'ti_a', 'ti_b');
my $inv = db_oid('inv');
my $ti_b = file_of($primary, 'inv', 'ti_b');
my $s = bg_session($primary);
bg_run($s, "\\c inv\nSELECT 'in ' || current_database();\n", qr/in inv/);
$offset = -s $primary->logfile;
$primary->safe_psql('postgres',
	"UPDATE pg_database SET datconnlimit = -2 WHERE datname = 'inv'");
bg_run($s, "DROP INDEX ti_b;\nSELECT 'dropped';\n", qr/dropped/);
bg_end($s);
my $nosweep = qr/artrie could not sweep database $inv: its sweeper could not connect/;
my $fatal = qr/FATAL:  cannot connect to invalid database "inv"/;
my $logged = 0;
for (1 .. $PostgreSQL::Test::Utils::timeout_default)
{
	last if ($logged = messages_since($primary, $offset, $nosweep)) > 0;
	sleep 1;
}
is($logged, 1, 'invalid database: the log says the sweeper could not connect');
# Two more of the io worker's looks at the disk after the first refusal
# (PAGER_SWEEP_AGAIN_MS is 15 s): no second connection attempt.
sleep 25;
is(messages_since($primary, $offset, $fatal), 1,
	'invalid database: its sweeper tried to connect once');
is(messages_since($primary, $offset, $nosweep), 1,
	'invalid database: and the log says so once');
ok(-f $ti_b, 'invalid database: the dropped index\'s file stays meanwhile');
$primary->safe_psql('postgres', 'DROP DATABASE inv');
ok(gone("$pgdata/artrie/$inv"),
	'invalid database dropped: its artrie directory goes');

$primary->stop;
done_testing();
