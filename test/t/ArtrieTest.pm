# Helpers shared by artrie's TAP tests: a node with artrie preloaded, a
# real crash (SIGKILL of the postmaster and every child at once), and the
# files under $PGDATA/artrie.
package ArtrieTest;

use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Exporter 'import';

our @EXPORT = qw(artrie_node crash_node artrie_files backends damage_pages);

# The I/O backends every durability test runs on.
sub backends { return ('io_uring', 'mmap'); }

# A started node with artrie preloaded and the extension created in
# database postgres; extra postgresql.conf lines may be given.
sub artrie_node
{
	my ($name, $backend, @conf) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->append_conf('postgresql.conf', join("\n",
		"shared_preload_libraries = 'artrie'",
		"artrie.io_backend = '$backend'",
		'max_connections = 40', @conf));
	$node->start;
	$node->safe_psql('postgres', 'CREATE EXTENSION artrie');
	return $node;
}

# SIGKILL the postmaster and all of its children at the same instant, as a
# power loss would stop them, then forget the dead pid.
sub crash_node
{
	my ($node) = @_;
	my $pm = $node->{_pid};
	die "node is not running" unless $pm;
	my @kids = split /\s+/, `pgrep -P $pm`;
	kill 'KILL', $pm, grep { /^\d+$/ } @kids;
	# Wait until every process is gone and the port is free.
	for my $p ($pm, @kids)
	{
		next unless $p =~ /^\d+$/;
		for (1 .. 600)
		{
			last unless kill 0, $p;
			select(undef, undef, undef, 0.05);
		}
	}
	$node->{_pid} = undef;
	return;
}

# The regular files under $PGDATA/artrie but its control file, sorted,
# with paths relative to that directory: the index files, and the
# markers (<file>.damaged) of files that recovery found damaged.
sub artrie_files
{
	my ($node) = @_;
	my $dir = $node->data_dir . '/artrie';
	return () unless -d $dir;
	my @files;
	my @todo = ($dir);
	while (my $d = shift @todo)
	{
		opendir(my $dh, $d) or die "opendir $d: $!";
		for my $e (readdir $dh)
		{
			next if $e eq '.' || $e eq '..';
			my $p = "$d/$e";
			if (-d $p)
			{
				push @todo, $p;
			}
			elsif ($p ne "$dir/control")
			{
				push @files, substr($p, length($dir) + 1);
			}
		}
		closedir $dh;
	}
	return sort @files;
}

# Overwrite two bytes in the middle of every page of a kind (1 data, 3
# meta) of an artrie file, as a stray write would; returns how many pages
# it damaged.
sub damage_pages
{
	my ($path, $kind) = @_;
	open(my $fh, '+<:raw', $path) or die "open $path: $!";
	my $size = -s $path;
	my $n = 0;
	for (my $off = 0; $off < $size; $off += 8192)
	{
		my $hdr;
		sysseek($fh, $off, 0);
		sysread($fh, $hdr, 32) == 32 or die "read: $!";
		next unless unpack('v', substr($hdr, 20, 2)) == $kind;
		sysseek($fh, $off + 4000, 0);
		syswrite($fh, "\xAB\xCD") == 2 or die "write: $!";
		$n++;
	}
	close $fh;
	return $n;
}

1;
