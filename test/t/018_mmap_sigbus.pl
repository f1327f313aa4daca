# A mapped read that faults (issue 13, item 8).  Under the mmap backend a
# page of a file cut short after the process mapped it (as a media error
# would) raises SIGBUS on the copy; it must be an ERROR naming the index,
# the file and the page, with the REINDEX hint, not a crash that restarts
# the cluster.  The file is cut between two statements of one session, so
# that the session's mapping and its idea of the file's size predate the
# cut.  Afterwards the same session and other sessions go on working, the
# postmaster is the same, and no process was terminated by a signal.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

my $idx = 'SET enable_seqscan = off; SET enable_bitmapscan = off;';

my $node = artrie_node('sigbus', 'mmap');
$node->safe_psql('postgres', q{
	CREATE TABLE w (t text COLLATE "C");
	INSERT INTO w SELECT md5(i::text) FROM generate_series(1, 20000) i;
	CREATE INDEX wi ON w USING artrie (t);
	CREATE TABLE h (t text COLLATE "C");
	INSERT INTO h SELECT md5(i::text) FROM generate_series(1, 1000) i;
	CREATE INDEX hi ON h USING artrie (t);
	SELECT artrie_checkpoint();
});
my $file = $node->safe_psql('postgres', "SELECT artrie_stats('wi')->>'file'");
my $path = $node->data_dir . "/$file";
cmp_ok(-s $path, '>', 10 * 8192, 'the index file has more than 10 pages');

# A cold pool: every page of the probe below is read from the file.
$node->restart;
my $pm = $node->safe_psql('postgres', 'SELECT pg_postmaster_start_time()');
my $logpos = -s $node->logfile;

my ($ret, $out, $err) = $node->psql('postgres', qq{
	$idx
	SELECT count(*) FROM w WHERE t = md5('1');
	COPY (SELECT 1) TO PROGRAM 'truncate -s 40960 $path && cat >/dev/null';
	SELECT count(*) FROM w WHERE t > '';
});
is($out, '1', 'the first lookup maps the file and finds its row');
is(-s $path, 40960, 'the file was cut to 5 pages under the session');
like($err, qr/ERROR:  index "wi" is corrupted: page \d+ of file "\Q$file\E"/,
	'the read past the cut is an ERROR naming the index, the page and the file');
like($err, qr/DETAIL:  could not read file "\Q$file\E" at offset \d+: unexpected end of file/,
	'which says the file ended');
like($err, qr/\nHINT:  REINDEX the index\./, 'with the REINDEX hint');

is($node->safe_psql('postgres', 'SELECT pg_postmaster_start_time()'), $pm,
	'the postmaster did not restart');
is($node->safe_psql('postgres', "$idx SELECT count(*) FROM h WHERE t > ''"), '1000',
	'another index still answers');
$node->safe_psql('postgres', 'REINDEX INDEX wi');
is($node->safe_psql('postgres', "$idx SELECT count(*) FROM w WHERE t > ''"), '20000',
	'REINDEX repairs the index');
unlike(slurp_file($node->logfile, $logpos), qr/terminated by signal|PANIC/,
	'no process was terminated by a signal');
$node->stop;

done_testing();
