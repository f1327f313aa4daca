# Helpers of the pager's TAP tests (010_pager_*.pl): a node with artrie
# preloaded, a deterministic word workload, and the answers of a set of
# queries through the index and through a sequential scan, which must
# agree.
package PagerTest;

use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Exporter 'import';

our @EXPORT = qw(pager_node load_words change_words answers
  index_answers seq_answers set_backend io_stats pool_stats worker_pid);

# A started node with artrie preloaded and the extension created.
sub pager_node
{
	my ($name, @conf) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->append_conf('postgresql.conf', join("\n",
		"shared_preload_libraries = 'artrie'", @conf));
	$node->start;
	$node->safe_psql('postgres', 'CREATE EXTENSION artrie');
	return $node;
}

# Table w of n words (md5 of 1..n) with an artrie index on it.
sub load_words
{
	my ($node, $n) = @_;
	$node->safe_psql('postgres', qq{
		CREATE TABLE w (t text COLLATE "C");
		INSERT INTO w SELECT md5(i::text) FROM generate_series(1, $n) i;
		CREATE INDEX wi ON w USING artrie (t);
	});
	return;
}

# Inserts and deletes through the index, then a vacuum.
sub change_words
{
	my ($node, $n) = @_;
	$node->safe_psql('postgres', qq{
		INSERT INTO w SELECT md5((i * 7)::text) || 'x' FROM generate_series(1, $n) i;
		DELETE FROM w WHERE t LIKE '0%' OR t LIKE '7a%';
		VACUUM w;
		INSERT INTO w SELECT 'k' || i FROM generate_series(1, $n / 10) i;
	});
	return;
}

# The queries whose answers are compared.
my @queries = (
	q{SELECT count(*), sum(hashtext(t)) FROM w WHERE t >= 'a' AND t < 'c'},
	q{SELECT count(*), sum(hashtext(t)) FROM w WHERE t >= '3' AND t <= '5f'},
	q{SELECT count(*) FROM w WHERE t = md5('4242')},
	q{SELECT count(*) FROM w WHERE t LIKE 'ff%'},
	q{SELECT string_agg(t, ',' ORDER BY t) FROM (SELECT t FROM w WHERE t > 'e' ORDER BY t LIMIT 50) s},
	q{SELECT string_agg(t, ',' ORDER BY t DESC) FROM (SELECT t FROM w WHERE t < '2' ORDER BY t DESC LIMIT 50) s},
	q{SELECT count(*) FROM w WHERE t >= 'k' AND t < 'l'},
);

# The answers, one line per query, under the given planner settings.
sub answers
{
	my ($node, $settings) = @_;
	return $node->safe_psql('postgres',
		join("\n", $settings, map { "$_;" } @queries));
}

# Through the index only.
sub index_answers
{
	my ($node) = @_;
	return answers($node, 'SET enable_seqscan = off;');
}

# Without the index.
sub seq_answers
{
	my ($node) = @_;
	return answers($node,
		'SET enable_indexscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off;');
}

# Restart the node on another I/O backend.
sub set_backend
{
	my ($node, $backend) = @_;
	$node->append_conf('postgresql.conf', "artrie.io_backend = '$backend'");
	$node->restart;
	return;
}

# artrie_io_stats() as a hash by process kind.
sub io_stats
{
	my ($node) = @_;
	my %s;
	my $out = $node->safe_psql('postgres',
		q{SELECT process, io_backend, buffer_mode, reads, writes, syncs,
				 submissions, sqes, coalesce(avg_batch, 0), requests,
				 coalesce(fallback, '')
		  FROM artrie_io_stats()});
	for my $line (split /\n/, $out)
	{
		my @f = split /\|/, $line, -1;
		$s{ $f[0] } = {
			io_backend => $f[1], buffer_mode => $f[2], reads => $f[3],
			writes => $f[4], syncs => $f[5], submissions => $f[6],
			sqes => $f[7], avg_batch => $f[8], requests => $f[9],
			fallback => $f[10] };
	}
	return \%s;
}

# artrie_pool_stats() as a hash.
sub pool_stats
{
	my ($node) = @_;
	my @names = qw(frames dirty files hits misses evictions eviction_writes
	  checkpoints checkpoint_pages);
	my @v = split /\|/,
	  $node->safe_psql('postgres', 'SELECT * FROM artrie_pool_stats()');
	my %s;
	@s{@names} = @v;
	return \%s;
}

# The io worker's pid: the postmaster's child titled "artrie io worker".
sub worker_pid
{
	my ($node) = @_;
	my $pm = $node->{_pid};
	my $pid = `pgrep -P $pm -f 'artrie io worker'`;
	chomp $pid;
	return $pid;
}

1;
