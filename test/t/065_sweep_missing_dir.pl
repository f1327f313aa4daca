# The orphan sweep removes nothing while a directory that may hold an
# index's storage cannot be read: a tablespace whose directory is missing
# (a mount that failed at boot, leaving an empty mount point) or
# unreadable.  It says so in the log once, and once every place can be
# read again, it removes the files of indexes dropped meanwhile and keeps
# the others, which answer as before.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my $node = artrie_node('sweepdir', 'io_uring');
my $tsdir = PostgreSQL::Test::Utils::tempdir;
my $away = PostgreSQL::Test::Utils::tempdir;
my $msg = qr/artrie removes no orphaned file while directory "[^"]*" cannot be read/;

$node->safe_psql('postgres', qq{
	CREATE TABLESPACE ts1 LOCATION '$tsdir';
	CREATE TABLE tts (id int, k text COLLATE "C") TABLESPACE ts1;
	INSERT INTO tts SELECT g, 'key-' || g FROM generate_series(1, 3000) g;
	CREATE INDEX tts_k ON tts USING artrie (k) TABLESPACE ts1;
	CREATE TABLE tb (id int, k text COLLATE "C");
	INSERT INTO tb SELECT g, 'key-' || g FROM generate_series(1, 100) g;
	CREATE INDEX tb_k ON tb USING artrie (k);
	CREATE INDEX tb_k2 ON tb USING artrie (k);
});

sub file_of
{
	my ($index) = @_;
	return $node->data_dir . '/'
	  . $node->safe_psql('postgres', "SELECT artrie_stats('$index')->>'file'");
}

# Let the sweep run: artrie_checkpoint() runs one, the io worker one every
# five seconds.
sub sweep_rounds
{
	for (1 .. 3)
	{
		$node->psql('postgres', 'SELECT artrie_checkpoint()');
		sleep 2;
	}
	sleep 2;
	return;
}

sub messages_since
{
	my ($offset) = @_;
	my $log = slurp_file($node->logfile, $offset);
	my $n = () = $log =~ /$msg/g;
	return $n;
}

sub index_count
{
	return $node->safe_psql('postgres', q{
		SET enable_seqscan = off; SET enable_bitmapscan = off;
		SELECT count(*) FROM tts WHERE k ^@ 'key-1'});
}

my $tts_file = file_of('tts_k');
my $tb_file = file_of('tb_k');
my $tb2_file = file_of('tb_k2');
ok(-f $tts_file && -f $tb_file && -f $tb2_file, 'three index files');
my $want = index_count();
is($want, '1111', 'the index in the tablespace answers');

# The tablespace's directory moved away, its mount point left empty.
$node->stop;
my ($version) = glob("$tsdir/PG_*");
ok(defined $version, 'the tablespace has its version directory');
my $moved = "$away/version";
rename($version, $moved) or die "rename $version: $!";
my $offset = -s $node->logfile;
$node->start;
$node->safe_psql('postgres', 'DROP INDEX tb_k');
sweep_rounds();
ok(-f $tts_file, 'tablespace missing: the file of its index is kept');
ok(-f $tb_file, 'tablespace missing: a dropped index\'s file is kept too');
is(messages_since($offset), 1, 'tablespace missing: the log says so once');

# Back in place: the dropped index's file goes, the other answers.
$node->stop;
rename($moved, $version) or die "rename back: $!";
$offset = -s $node->logfile;
$node->start;
sweep_rounds();
ok(-f $tts_file, 'tablespace back: the file of its index is kept');
ok(!-f $tb_file, 'tablespace back: the dropped index\'s file is removed');
is(index_count(), $want, 'tablespace back: the index answers as before');
is(messages_since($offset), 0, 'tablespace back: no complaint in the log');

# The tablespace's directory unreadable for a while (permissions mean
# nothing to root).
SKIP:
{
	skip 'root reads any directory', 5 if $> == 0;
	chmod 0, $version or die "chmod: $!";
	$offset = -s $node->logfile;
	$node->safe_psql('postgres', 'DROP INDEX tb_k2');
	sweep_rounds();
	ok(-f $tb2_file, 'tablespace unreadable: a dropped index\'s file is kept');
	is(messages_since($offset), 1, 'tablespace unreadable: the log says so once');
	chmod 0700, $version or die "chmod: $!";
	sweep_rounds();
	ok(!-f $tb2_file, 'readable again: the dropped index\'s file is removed');
	ok(-f $tts_file, 'readable again: the file of the index in it is kept');
	is(index_count(), $want, 'readable again: the index answers as before');
}

$node->stop;
done_testing();
