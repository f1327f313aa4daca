# File modes (issue 9, item 6): every file artrie creates under
# $PGDATA/artrie (index files, the control file that says which WAL they
# need) belongs to the server's OS user and has the mode PostgreSQL gives
# its own files: 0600, or 0640 in a cluster initdb'ed with group access
# (-g), where directories are 0750 instead of 0700.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use File::Find;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

for my $group (0, 1)
{
	my $label = $group ? 'group access' : 'owner only';
	my $node = PostgreSQL::Test::Cluster->new($group ? 'modes_group' : 'modes_owner');
	$node->init(extra => $group ? ['-g'] : []);
	$node->append_conf('postgresql.conf', "shared_preload_libraries = 'artrie'");
	$node->start;
	$node->safe_psql('postgres', q{
		CREATE EXTENSION artrie;
		CREATE TABLE t (k text);
		INSERT INTO t SELECT 'key' || i FROM generate_series(1, 5000) i;
		CREATE INDEX t_k ON t USING artrie (k);
		INSERT INTO t SELECT 'more' || i FROM generate_series(1, 500) i;
		CREATE DATABASE other;
	});
	$node->safe_psql('other', q{
		CREATE EXTENSION artrie;
		CREATE TABLE u (k text);
		CREATE INDEX u_k ON u USING artrie (k);
		INSERT INTO u VALUES ('a'), ('b');
		REINDEX INDEX u_k;
		SELECT artrie_checkpoint();
	});

	my $file_mode = $group ? 0640 : 0600;
	my $dir_mode = $group ? 0750 : 0700;
	my $owner = (stat($node->data_dir))[4];
	my (%kinds, @bad);
	find(
		{
			no_chdir => 1,
			wanted => sub {
				my @st = lstat($_) or die "lstat $_: $!";
				my $rel = substr($_, length($node->data_dir) + 1);
				my $want = -d _ ? $dir_mode : $file_mode;
				push @bad, sprintf('%s: mode %04o uid %d', $rel, $st[2] & 07777, $st[4])
				  if ($st[2] & 07777) != $want || $st[4] != $owner || -l _;
				$kinds{ -d _ ? 'dir'
					  : $rel eq 'artrie/control' ? 'control'
					  : 'index file' }++;
			}
		},
		$node->data_dir . '/artrie');
	for my $kind ('dir', 'control', 'index file')
	{
		ok($kinds{$kind}, "$label: artrie made at least one $kind");
	}
	is_deeply(\@bad, [],
		sprintf('%s: every file is %04o, every directory %04o, all owned by the server user',
			$label, $file_mode, $dir_mode));
	$node->stop;
}

done_testing();
