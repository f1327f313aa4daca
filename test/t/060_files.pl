# File lifecycle: after every command that creates, moves or drops an
# index's storage, the files under $PGDATA/artrie are exactly those that
# the live artrie indexes of all databases name (artrie_stats()->>'file'),
# once the sweep has run (artrie_checkpoint() runs one); and the indexes
# still answer like a sequential scan.  One I/O backend keeps it quick:
# nothing here depends on which one moves the bytes.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my $node = artrie_node('files', 'io_uring', 'max_prepared_transactions = 5');

# Databases with the extension, whose artrie indexes must all have files.
my @dbs = ('postgres');

# Files named by the artrie indexes of the given databases (but not other
# sessions' temporary ones, which only their session may open).
sub expected_files
{
	my @files;
	for my $db (@_)
	{
		my $out = $node->safe_psql($db, q{
			SELECT artrie_stats(c.oid)->>'file'
			FROM pg_class c JOIN pg_am a ON a.oid = c.relam
			WHERE a.amname = 'artrie' AND c.relkind = 'i'
			  AND c.relpersistence <> 't'});
		push @files, grep { $_ ne '' } split /\n/, $out;
	}
	return sort map { s{^artrie/}{}r } @files;
}

# The files under $PGDATA/artrie (artrie_files) but the in-use marks of
# UNLOGGED indexes' files that are there (<file>.inuse), which belong to
# their file; a mark without its file is listed.
sub disk_files
{
	my @files = artrie_files($node);
	my %file = map { $_ => 1 } @files;
	return grep { !/^(.*)\.inuse$/ || !$file{$1} } @files;
}

# Sweep, then compare the files on disk with those the indexes name.  A
# file still pinned is skipped by a sweep, so try again for a while.
sub check_files
{
	my ($label, @in) = @_;
	@in = @dbs unless @in;
	my (@want, @have);
	for (1 .. 50)
	{
		$node->safe_psql('postgres', 'SELECT artrie_checkpoint()');
		@want = expected_files(@in);
		@have = disk_files();
		last if join(',', @want) eq join(',', @have);
		select(undef, undef, undef, 0.2);
	}
	is_deeply(\@have, \@want, "$label: files are exactly those of live indexes");
	return;
}

# The same queries through the index and by a sequential scan.
sub check_queries
{
	my ($db, $table, $label) = @_;
	my $q = qq{
		SELECT (SELECT count(*) FROM $table WHERE k = 'key-42'),
			   (SELECT count(*) FROM $table WHERE k ^@ 'key-1'),
			   (SELECT count(*) FROM $table WHERE k < 'key-5'),
			   (SELECT coalesce(sum(id), 0) FROM $table WHERE k >= 'key-3'),
			   (SELECT count(*) FROM $table WHERE k IS NULL)};
	my $idx = $node->safe_psql($db,
		"SET enable_seqscan = off; SET enable_bitmapscan = off; $q");
	my $seq = $node->safe_psql($db,
		"SET enable_indexscan = off; SET enable_indexonlyscan = off; "
		  . "SET enable_bitmapscan = off; $q");
	is($idx, $seq, "$label: the index answers like a sequential scan");
	return;
}

# A table with an artrie index on k.
sub make_table
{
	my ($db, $table, $index, $extra) = @_;
	$extra //= '';
	$node->safe_psql($db, qq{
		CREATE $extra TABLE $table (id int, k text COLLATE "C");
		INSERT INTO $table SELECT g, 'key-' || g FROM generate_series(1, 2000) g;
		INSERT INTO $table VALUES (0, NULL);
		CREATE INDEX $index ON $table USING artrie (k);
	});
	return;
}

sub db_oid
{
	my ($db) = @_;
	return $node->safe_psql('postgres',
		"SELECT oid FROM pg_database WHERE datname = '$db'");
}

# CREATE INDEX.
make_table('postgres', 't1', 't1_k');
$node->safe_psql('postgres', 'CREATE INDEX t1_id ON t1 (id)');
my @first = artrie_files($node);
is(scalar(@first), 1, 'CREATE INDEX: one file');
check_files('CREATE INDEX');
check_queries('postgres', 't1', 'CREATE INDEX');

# A build runs while sweeps run over and over: its main fork is empty
# until the metapage is written, but its transaction is running, so its
# file stays.
$node->safe_psql('postgres', q{
	CREATE TABLE big (id int, k text COLLATE "C");
	INSERT INTO big SELECT g, md5(g::text) FROM generate_series(1, 1000000) g;
});
my ($bout, $berr) = ('', '');
my $build = IPC::Run::start(
	[ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-h', $node->host,
	  '-p', $node->port, '-d', 'postgres',
	  '-c', 'CREATE INDEX big_k ON big USING artrie (k)' ],
	'>', \$bout, '2>', \$berr);
my $sweeps = 0;
while ($build->pumpable)
{
	$node->safe_psql('postgres', 'SELECT artrie_checkpoint()');
	$sweeps++;
	$build->pump_nb;
}
ok($build->finish, "CREATE INDEX during $sweeps sweeps: the build succeeds")
  or diag($berr);
cmp_ok($sweeps, '>', 1, 'sweeps ran during the build');
check_files('CREATE INDEX during sweeps');
check_queries('postgres', 'big', 'CREATE INDEX during sweeps');
$node->safe_psql('postgres', 'DROP TABLE big');
check_files('DROP TABLE after the build');

# CREATE INDEX, rolled back.
$node->safe_psql('postgres', q{
	BEGIN;
	CREATE INDEX t1_k2 ON t1 USING artrie (k);
	ROLLBACK;
});
check_files('CREATE INDEX + ROLLBACK');

# CREATE INDEX in a savepoint, rolled back to it: while the transaction
# runs its file stays, since its generation is that transaction; then it
# goes.
my $pgdb = db_oid('postgres');
my $during = $node->safe_psql('postgres', qq{
	BEGIN;
	SAVEPOINT s;
	CREATE INDEX t1_k3 ON t1 USING artrie (k);
	ROLLBACK TO s;
	SELECT artrie_checkpoint();
	SELECT count(*) FROM pg_ls_dir('artrie/$pgdb');
	COMMIT;
});
is((split /\n/, $during)[-1], 2,
	'ROLLBACK TO SAVEPOINT: the file stays while its transaction runs');
check_files('CREATE INDEX in a savepoint + ROLLBACK TO');
check_queries('postgres', 't1', 'savepoint');

# CREATE INDEX in a prepared transaction: the file stays while it is
# prepared, then goes with ROLLBACK PREPARED or is the index's after
# COMMIT PREPARED.
for my $end ('ROLLBACK', 'COMMIT')
{
	$node->safe_psql('postgres', q{
		BEGIN;
		CREATE INDEX t1_kp ON t1 USING artrie (k);
		PREPARE TRANSACTION 'p';
	});
	$node->safe_psql('postgres', 'SELECT artrie_checkpoint()');
	my @files = artrie_files($node);
	my @want = expected_files(@dbs);
	is(scalar(@files), scalar(@want) + 1,
		"CREATE INDEX + PREPARE TRANSACTION: the file stays");
	$node->safe_psql('postgres', "$end PREPARED 'p'");
	check_files("CREATE INDEX + $end PREPARED");
}
check_queries('postgres', 't1', 'COMMIT PREPARED');
$node->safe_psql('postgres', 'DROP INDEX t1_kp');

# A temporary table's index: its main fork is t<backend>_<relfilenode>;
# the file stays while the session lasts and goes with it.
my ($tin, $tout, $terr) = ('', '', '');
my $temp = IPC::Run::start(
	[ 'psql', '-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-h', $node->host,
	  '-p', $node->port, '-d', 'postgres' ],
	'<', \$tin, '>', \$tout, '2>', \$terr);
$tin .= q{
	CREATE TEMP TABLE tt (id int, k text COLLATE "C");
	INSERT INTO tt SELECT g, 'key-' || g FROM generate_series(1, 500) g;
	CREATE INDEX tt_k ON tt USING artrie (k);
	SELECT 'built';
};
$temp->pump until $tout =~ /built/ || $terr ne '';
$node->safe_psql('postgres', 'SELECT artrie_checkpoint()');
my @with_temp = artrie_files($node);
my @without_temp = expected_files(@dbs);
is(scalar(@with_temp), scalar(@without_temp) + 1,
	'temporary index: its file stays while its session lasts');
$tin .= q{
	SET enable_seqscan = off;
	SELECT count(*) FROM tt WHERE k ^@ 'key-1';
};
$temp->pump until $tout =~ /\n111\n/ || $terr ne '';
like($tout, qr/\n111\n/, 'temporary index: it still answers after the sweep');
is($node->safe_psql('postgres',
		q{SELECT count(*) FILTER (WHERE index::text LIKE '%tt_k'), count(*) FILTER (WHERE problem IS NOT NULL) FROM artrie_indexes}),
	'0|0', 'temporary index: artrie_indexes in another session leaves it out');
$tin .= q{
	SELECT 'own ' || count(*) FROM artrie_indexes WHERE index = 'tt_k'::regclass AND entries = 500;
};
$temp->pump until $tout =~ /own \d/ || $terr ne '';
like($tout, qr/own 1/, 'temporary index: its own session sees it in artrie_indexes');
$tin .= "\\q\n";
$temp->finish;
check_files('temporary index after its session');

# DROP INDEX.
$node->safe_psql('postgres', 'CREATE INDEX t1_k4 ON t1 USING artrie (k)');
check_files('second CREATE INDEX');
$node->safe_psql('postgres', 'DROP INDEX t1_k4');
check_files('DROP INDEX');

# DROP TABLE.
make_table('postgres', 't2', 't2_k');
check_files('CREATE TABLE + INDEX');
$node->safe_psql('postgres', 'DROP TABLE t2');
check_files('DROP TABLE');

# DROP SCHEMA ... CASCADE.
$node->safe_psql('postgres', 'CREATE SCHEMA s1');
make_table('postgres', 's1.t', 's1_k');
check_files('index in a schema');
$node->safe_psql('postgres', 'DROP SCHEMA s1 CASCADE');
check_files('DROP SCHEMA CASCADE');

# DROP DATABASE.
$node->safe_psql('postgres', 'CREATE DATABASE d1');
$node->safe_psql('d1', 'CREATE EXTENSION artrie');
make_table('d1', 't', 't_k');
check_files('index in another database', 'postgres', 'd1');
check_queries('d1', 't', 'another database');
my $d1 = db_oid('d1');
ok(-d $node->data_dir . "/artrie/$d1", 'DROP DATABASE: directory before');
$node->safe_psql('postgres', 'DROP DATABASE d1');
check_files('DROP DATABASE');
ok(!-d $node->data_dir . "/artrie/$d1", 'DROP DATABASE: directory removed');

# TRUNCATE, also of a table created in the same transaction.
$node->safe_psql('postgres', q{
	TRUNCATE t1;
	INSERT INTO t1 SELECT g, 'key-' || g FROM generate_series(1, 3000) g;
	INSERT INTO t1 VALUES (0, NULL);
});
check_files('TRUNCATE');
check_queries('postgres', 't1', 'TRUNCATE');
$node->safe_psql('postgres', q{
	BEGIN;
	CREATE TABLE t3 (id int, k text COLLATE "C");
	CREATE INDEX t3_k ON t3 USING artrie (k);
	INSERT INTO t3 SELECT g, 'key-' || g FROM generate_series(1, 100) g;
	TRUNCATE t3;
	INSERT INTO t3 SELECT g, 'key-' || g FROM generate_series(1, 50) g;
	COMMIT;
});
check_files('TRUNCATE in the creating transaction');
check_queries('postgres', 't3', 'TRUNCATE in the creating transaction');
$node->safe_psql('postgres', 'DROP TABLE t3');

# REINDEX, plain and CONCURRENTLY.
$node->safe_psql('postgres', 'REINDEX INDEX t1_k');
check_files('REINDEX INDEX');
check_queries('postgres', 't1', 'REINDEX INDEX');
$node->safe_psql('postgres', 'REINDEX INDEX CONCURRENTLY t1_k');
check_files('REINDEX INDEX CONCURRENTLY');
check_queries('postgres', 't1', 'REINDEX INDEX CONCURRENTLY');

# VACUUM FULL and CLUSTER.
$node->safe_psql('postgres', q{
	DELETE FROM t1 WHERE id % 3 = 0;
	VACUUM FULL t1;
});
check_files('VACUUM FULL');
check_queries('postgres', 't1', 'VACUUM FULL');
$node->safe_psql('postgres', 'CLUSTER t1 USING t1_id');
check_files('CLUSTER');
check_queries('postgres', 't1', 'CLUSTER');

# ALTER INDEX ... SET TABLESPACE: the file follows the new relfilenode.
my $tsdir = PostgreSQL::Test::Utils::tempdir;
$node->safe_psql('postgres', "CREATE TABLESPACE ts1 LOCATION '$tsdir'");
$node->safe_psql('postgres', 'REINDEX (TABLESPACE ts1) INDEX t1_k');
check_files('REINDEX (TABLESPACE)');
check_queries('postgres', 't1', 'REINDEX (TABLESPACE)');
$node->safe_psql('postgres', 'ALTER INDEX t1_k SET TABLESPACE pg_default');
check_files('ALTER INDEX SET TABLESPACE back to the default');
check_queries('postgres', 't1', 'ALTER INDEX SET TABLESPACE back to the default');
my $before = $node->safe_psql('postgres', "SELECT artrie_stats('t1_k')->>'file'");
$node->safe_psql('postgres', 'ALTER INDEX t1_k SET TABLESPACE ts1');
my $after = $node->safe_psql('postgres', "SELECT artrie_stats('t1_k')->>'file'");
my $relnode = $node->safe_psql('postgres', "SELECT pg_relation_filenode('t1_k')");
isnt($after, $before, 'ALTER INDEX SET TABLESPACE: a new file');
like($after, qr{^artrie/$pgdb/$relnode\.\d+$},
	'ALTER INDEX SET TABLESPACE: the file is named after the new relfilenode');
check_files('ALTER INDEX SET TABLESPACE');
check_queries('postgres', 't1', 'ALTER INDEX SET TABLESPACE');
$node->safe_psql('postgres', q{
	INSERT INTO t1 SELECT g, 'key-' || g FROM generate_series(5000, 5100) g;
});
check_queries('postgres', 't1', 'insert after ALTER INDEX SET TABLESPACE');

$node->safe_psql('postgres', q{
	BEGIN;
	ALTER INDEX t1_k SET TABLESPACE pg_default;
	ROLLBACK;
});
is($node->safe_psql('postgres', "SELECT artrie_stats('t1_k')->>'file'"), $after,
	'ALTER INDEX SET TABLESPACE + ROLLBACK: the file is unchanged');
check_files('ALTER INDEX SET TABLESPACE + ROLLBACK');
check_queries('postgres', 't1', 'ALTER INDEX SET TABLESPACE + ROLLBACK');

$node->safe_psql('postgres', 'ALTER INDEX ALL IN TABLESPACE ts1 SET TABLESPACE pg_default');
is($node->safe_psql('postgres',
	"SELECT reltablespace FROM pg_class WHERE relname = 't1_k'"), '0',
	'ALTER INDEX ALL IN TABLESPACE moved the index');
check_files('ALTER INDEX ALL IN TABLESPACE');
check_queries('postgres', 't1', 'ALTER INDEX ALL IN TABLESPACE');

# ALTER TABLE ... SET TABLESPACE moves the table, not its indexes.
$node->safe_psql('postgres', 'ALTER TABLE t1 SET TABLESPACE ts1');
check_files('ALTER TABLE SET TABLESPACE');
check_queries('postgres', 't1', 'ALTER TABLE SET TABLESPACE');

# CREATE DATABASE ... TEMPLATE: the copy gets files of its own, named
# after its database (test/t/066_createdb_template.pl tests what they
# hold); the original's are untouched.
$node->safe_psql('postgres', 'CREATE DATABASE dsrc');
$node->safe_psql('dsrc', 'CREATE EXTENSION artrie');
make_table('dsrc', 't', 't_k');
make_table('dsrc', 'tu', 'tu_k', 'UNLOGGED');
push @dbs, 'dsrc';
check_files('index in the template');
$node->safe_psql('postgres', 'CREATE DATABASE dcopy TEMPLATE dsrc');
push @dbs, 'dcopy';
check_files('CREATE DATABASE TEMPLATE');
check_queries('dsrc', 't', 'the original after CREATE DATABASE TEMPLATE');
check_queries('dcopy', 't', 'the copy after CREATE DATABASE TEMPLATE');
check_queries('dcopy', 'tu', 'the copy\'s UNLOGGED index after CREATE DATABASE TEMPLATE');
my @fsrc = expected_files('dsrc');
my @fcopy = expected_files('dcopy');
my %seen;
$seen{$_}++ for @fsrc, @fcopy;
is(scalar(keys %seen), 4, 'the original and the copy have distinct files');

# After a crash each UNLOGGED index resets its own file.
crash_node($node);
$node->start;
for my $db ('dsrc', 'dcopy')
{
	is($node->safe_psql($db,
		"SET enable_seqscan = off; SELECT count(*) FROM tu WHERE k ^@ 'key'"), '0',
		"CREATE DATABASE TEMPLATE + crash: the UNLOGGED index of $db is reset");
}
check_files('CREATE DATABASE TEMPLATE + crash');
check_queries('dsrc', 't', 'the original after a crash');
check_queries('dcopy', 't', 'the copy after a crash');
$node->safe_psql('dcopy', 'REINDEX TABLE t; REINDEX TABLE tu');
check_files('REINDEX in the copy');
check_queries('dcopy', 't', 'the copy after REINDEX');
check_queries('dsrc', 't', 'the original after REINDEX in the copy');
$node->safe_psql('dcopy', q{
	INSERT INTO t SELECT g, 'key-' || g FROM generate_series(7000, 7100) g;
});
check_queries('dcopy', 't', 'the copy after an insert');
check_queries('dsrc', 't', 'the original after an insert into the copy');

# ALTER DATABASE ... SET TABLESPACE moves the main forks, not the
# relfilenodes: the files stay.
$node->safe_psql('postgres', 'ALTER DATABASE dcopy SET TABLESPACE ts1');
check_files('ALTER DATABASE SET TABLESPACE');
check_queries('dcopy', 't', 'ALTER DATABASE SET TABLESPACE');

# UNLOGGED: after a crash the index comes back empty, like its table, with
# a new file (the init fork names the file of the build, and the reset
# takes the next generation: a second crash reuses that name for a new,
# empty file).
make_table('postgres', 'tu', 'tu_k', 'UNLOGGED');
check_files('UNLOGGED index');
$node->safe_psql('postgres', 'ALTER INDEX tu_k SET TABLESPACE ts1');
check_files('UNLOGGED index moved to a tablespace');
check_queries('postgres', 'tu', 'UNLOGGED index moved to a tablespace');
my $built = $node->safe_psql('postgres', "SELECT artrie_stats('tu_k')->>'file'");
for my $round (1, 2)
{
	crash_node($node);
	$node->start;
	# One session resets the index at its first scan, keeps the new
	# metapage (rd_amcache), inserts and scans again: the cached copy
	# must name the new file.
	is($node->safe_psql('postgres', q{
		SET enable_seqscan = off; SET enable_bitmapscan = off;
		SELECT count(*) FROM tu WHERE k ^@ 'key';
		INSERT INTO tu VALUES (-1, 'key-reset');
		SELECT count(*) FROM tu WHERE k ^@ 'key';}), "0\n1",
		"UNLOGGED after crash $round: the index is empty, then takes a row in the same session");
	is($node->safe_psql('postgres',
		"SELECT artrie_stats('tu_k')->>'entries'"), '1',
		"UNLOGGED after crash $round: its file is new, with only that row");
	my $new = $node->safe_psql('postgres', "SELECT artrie_stats('tu_k')->>'file'");
	isnt($new, $built, "UNLOGGED after crash $round: not the file of the build");
	my $un = $node->safe_psql('postgres', "SELECT pg_relation_filenode('tu_k')");
	like($new, qr{^artrie/$pgdb/$un\.\d+$},
		"UNLOGGED after crash $round: the file is named after the moved index");
	check_files("UNLOGGED after crash $round");
	ok(!-e $node->data_dir . "/$built",
		"UNLOGGED after crash $round: the file of the build is gone");
	$node->safe_psql('postgres', q{
		INSERT INTO tu SELECT g, 'key-' || g FROM generate_series(1, 500) g;
	});
	check_queries('postgres', 'tu', "UNLOGGED after crash $round");
	check_queries('postgres', 't1', "logged index after crash $round");
}

# PostgreSQL unlinks the emptied main forks at its checkpoint; nothing
# changes for artrie.
$node->safe_psql('postgres', 'CHECKPOINT');
check_files('after CHECKPOINT');

# The io worker sweeps on its own too, every few seconds.
$node->safe_psql('postgres', 'DROP TABLE tu');
my @want = expected_files(@dbs);
my $swept = 0;
for (1 .. 150)
{
	if (join(',', disk_files()) eq join(',', @want))
	{
		$swept = 1;
		last;
	}
	select(undef, undef, undef, 0.1);
}
ok($swept, 'io worker: the dropped index\'s file goes without asking');

$node->stop;
done_testing();
