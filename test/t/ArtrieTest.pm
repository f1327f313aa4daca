# Helpers shared by artrie's TAP tests: a node with artrie preloaded, a
# real crash (SIGKILL of the postmaster and every child at once), and the
# files under $PGDATA/artrie; for the WAL tests (10x_wal_*.pl) also
# primaries and standbys, writers that log what was acknowledged, and
# comparisons of an index's answers with a sequential scan's (or with a
# refusal that names the index and hints at REINDEX).
package ArtrieTest;

use strict;
use warnings;
use IPC::Run;
use Time::HiRes ();
use File::Path ();
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::RecursiveCopy;
use PostgreSQL::Test::Utils;
use Exporter 'import';

our @EXPORT = qw(artrie_node crash_node artrie_files backends read_paths damage_pages
  artrie_primary artrie_standby start_ok wait_replayed standby_set vacuum_flushed conflicted wait_promoted
  make_wtable make_build_tables start_writers stop_writers writers_wait acked_ids
  index_queries check_index index_answers index_or_refusal verify_ok sql_ok
  small_fs artrie_dir_on_small_fs fill_small_fs copy_datadir write_backup_label);

# The I/O backends every durability test runs on.
sub backends { return ('io_uring', 'mmap'); }

# The ways a page read reaches a file, for the tests of what a read must
# catch: [label, artrie.io_backend, extra postgresql.conf lines].  Under
# io_uring a backend reads the pages it misses itself (artrie.backend_reads,
# the default), or asks the io worker.
sub read_paths
{
	return (['io_uring', 'io_uring'],
		['io_uring_worker', 'io_uring', 'artrie.backend_reads = off'],
		['mmap', 'mmap']);
}

# A started node with artrie preloaded and the extension created in
# database postgres; extra postgresql.conf lines may be given.  The WAL
# level is PostgreSQL's default, replica (the test framework's own default
# is minimal), so that artrie keeps the WAL its files need with its slot.
sub artrie_node
{
	my ($name, $backend, @conf) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->append_conf('postgresql.conf', join("\n",
		"shared_preload_libraries = 'artrie'",
		"artrie.io_backend = '$backend'",
		'wal_level = replica', 'max_connections = 40', @conf));
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

# The regular files under $PGDATA/artrie but its control file and its
# vouch list (vouched, and vouched.tmp while it is written), sorted, with
# paths relative to that directory: the index files, and the markers
# (<file>.damaged) of files that recovery found damaged.
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
			elsif (!grep { $p eq "$dir/$_" } ('control', 'vouched', 'vouched.tmp'))
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

# ---------------------------------------------------------------------
# WAL, standbys and backups (test/t/10x_wal_*.pl)
# ---------------------------------------------------------------------

# The postgresql.conf lines every node of the WAL tests gets.
sub _conf_lines
{
	my ($backend, @conf) = @_;
	return join("\n",
		"shared_preload_libraries = 'artrie'",
		"artrie.io_backend = '$backend'",
		"artrie.buffer_pool_size = '32MB'",
		'max_connections = 40',
		'shared_buffers = 16MB',
		'allow_in_place_tablespaces = on', @conf);
}

# A started primary that allows streaming replication (and archives its
# WAL with has_archiving => 1), with artrie preloaded and the extension
# created in database postgres.
sub artrie_primary
{
	my ($name, $backend, %opt) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init(allows_streaming => 1,
		has_archiving => ($opt{has_archiving} ? 1 : 0));
	$node->append_conf('postgresql.conf',
		_conf_lines($backend, @{ $opt{conf} // [] }));
	$node->start;
	$node->safe_psql('postgres', 'CREATE EXTENSION artrie');
	return $node;
}

# A new node made from a fresh base backup of $primary (or of the named
# backup already taken), streaming from it and open to queries (hot
# standby); started unless start => 0.
sub artrie_standby
{
	my ($primary, $name, %opt) = @_;
	my $backup = $opt{backup};
	unless (defined $backup)
	{
		$backup = "for_$name";
		$primary->backup($backup);
	}
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init_from_backup($primary, $backup, has_streaming => 1);
	$node->append_conf('postgresql.conf', 'hot_standby = on');
	$node->start unless defined $opt{start} && !$opt{start};
	return $node;
}

# Start a node, as a test: a node that does not come up fails the
# assertion (and shows the end of its log) instead of ending the script.
sub start_ok
{
	my ($node, $label) = @_;
	my $ok = $node->start(fail_ok => 1);
	Test::More::ok($ok, "$label: the server starts")
	  or Test::More::diag(_log_tail($node));
	return $ok;
}

sub _log_tail
{
	my ($node) = @_;
	my @lines = split /\n/, PostgreSQL::Test::Utils::slurp_file($node->logfile);
	splice(@lines, 0, @lines - 30) if @lines > 30;
	return join("\n", @lines);
}

# Wait until $standby has replayed $primary's WAL up to everything
# inserted so far (or the given LSN); bounded by the framework's timeout.
# Records such as VACUUM's may sit in WAL buffers, neither written nor
# sent, when no commit flushed them: a transaction that takes an xid
# commits synchronously and flushes them first.  Returns the LSN it
# waited for.
sub wait_replayed
{
	my ($primary, $standby, $lsn) = @_;
	if (!defined $lsn)
	{
		$primary->safe_psql('postgres', 'SELECT pg_current_xact_id()');
		$lsn = $primary->safe_psql('postgres', 'SELECT pg_current_wal_lsn()');
	}
	my $ok = $standby->poll_query_until('postgres',
		"SELECT pg_last_wal_replay_lsn() >= '$lsn'::pg_lsn");
	Test::More::ok($ok, $standby->name . " replayed the primary's WAL up to $lsn")
	  or Test::More::diag(_log_tail($standby));
	return $lsn;
}

# Set a setting of a standby (or any node) with ALTER SYSTEM, reload,
# and wait until its sessions see the new value.
sub standby_set
{
	my ($standby, $name, $value) = @_;
	$standby->safe_psql('postgres', "ALTER SYSTEM SET $name = '$value'");
	$standby->safe_psql('postgres', 'SELECT pg_reload_conf()');
	$standby->poll_query_until('postgres', "SELECT current_setting('$name') = '$value'")
	  or die "$name did not become $value";
	return;
}

# VACUUM a table on the primary and make its WAL written: VACUUM's commit
# does not flush, so pg_current_wal_lsn() (the write position, which
# wait_replayed compares with) may still be short of its records; the
# commit of a transaction that wrote WAL flushes them.
sub vacuum_flushed
{
	my ($primary, $table) = @_;
	$primary->safe_psql('postgres', "VACUUM $table");
	$primary->safe_psql('postgres',
		'CREATE TABLE IF NOT EXISTS wal_flush (i int); INSERT INTO wal_flush VALUES (1)');
	return;
}

# Whether a background session's query or session was ended by a
# recovery conflict.
sub conflicted
{
	my ($s) = @_;
	return $s->{err} =~ /conflict with recovery/;
}

# Wait until a node has left recovery (promotion, or the end of a
# point-in-time recovery with recovery_target_action = 'promote').
sub wait_promoted
{
	my ($node, $label) = @_;
	my $ok = $node->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()');
	Test::More::ok($ok, "$label: the node left recovery")
	  or Test::More::diag(_log_tail($node));
	return $ok;
}

# The key of row id, as the writers and the preloads insert it:
# id = client * 1000000 + i; every 97th i is NULL, every 53rd a long key
# (over 2500 bytes, past btree's limit), the others "w<client>/<id % 40>/<id>".
my $wkey_sql = q{
CREATE FUNCTION wkey(id int) RETURNS text IMMUTABLE LANGUAGE sql AS $$
	SELECT CASE
		WHEN id % 1000000 % 97 = 0 THEN NULL
		WHEN id % 1000000 % 53 = 0
			THEN 'long/' || repeat(chr(97 + id / 1000000), 2500) || '/' || id
		ELSE 'w' || id / 1000000 || '/' || lpad((id % 40)::text, 2, '0') || '/' || id
	END $$;
CREATE TABLE IF NOT EXISTS ctl (stop bool);
INSERT INTO ctl SELECT false WHERE NOT EXISTS (SELECT FROM ctl);
};

# A table (id int, k text COLLATE "C") with an artrie index on k, rows
# $from .. $to keyed by wkey(); creates wkey() and the writers' control
# table on first use in a database.  With unlogged => 1 the table (and so
# the index) is UNLOGGED.
sub make_wtable
{
	my ($node, $table, $index, $from, $to, %opt) = @_;
	my $db = $opt{db} // 'postgres';
	my $have = $node->safe_psql($db,
		"SELECT count(*) FROM pg_proc WHERE proname = 'wkey'");
	$node->safe_psql($db, $wkey_sql) if $have eq '0';
	my $ts = $opt{tablespace} ? "TABLESPACE $opt{tablespace}" : '';
	my $unlogged = $opt{unlogged} ? 'UNLOGGED' : '';
	$node->safe_psql($db, qq{
		CREATE $unlogged TABLE $table (id int, k text COLLATE "C");
		INSERT INTO $table SELECT g, wkey(g) FROM generate_series($from, $to) g;
		CREATE INDEX $index ON $table USING artrie (k) $ts;
	});
	return;
}

# The tables of the build tests on $node: t, $rows rows keyed by wkey();
# u, $rows distinct keys and then the key 'zzzz' twice, so that a UNIQUE
# build of u fails at its last entries; and w0 with an index, which makes
# wkey().
sub make_build_tables
{
	my ($node, $rows) = @_;
	make_wtable($node, 'w0', 'w0_idx', 1, 10);
	$node->safe_psql('postgres', qq{
		CREATE TABLE t (id int, k text COLLATE "C");
		INSERT INTO t SELECT g, wkey(g) FROM generate_series(1, $rows) g;
		CREATE TABLE u (id int, k text COLLATE "C");
		INSERT INTO u SELECT g, 'u' || lpad(g::text, 7, '0') FROM generate_series(1, $rows) g;
		INSERT INTO u VALUES (0, 'zzzz'), (-1, 'zzzz');
		CHECKPOINT;
	});
	return;
}

# Start $n writers on table $table of $node (database postgres), each
# in its own psql session, one statement per transaction: inserts of
# rows keyed by wkey(), a delete of one of its own earlier rows every
# 7th row and an update of one every 11th; writer 1 also runs VACUUM
# every 300 rows.  Each writer echoes "i <id>" after an insert has
# committed, so what it prints was acknowledged.  Writers stop by
# themselves when ctl.stop is set (stop_writers), after at most $rows
# rows each, or when the server goes away.  $round separates the ids of
# successive rounds: writer c of round r uses ids (10 * r + c) * 1000000 + i.
sub start_writers
{
	my ($node, $table, $dir, $round, %opt) = @_;
	my $n = $opt{clients} // 4;
	my $rows = $opt{rows} // 20000;
	$node->safe_psql('postgres', 'UPDATE ctl SET stop = false');
	my @w;
	for my $c (1 .. $n)
	{
		my $client = 10 * $round + $c;
		my $base = $client * 1000000;
		my $script = "$dir/writer_${round}_$c.sql";
		open(my $fh, '>', $script) or die "$script: $!";
		for my $i (1 .. $rows)
		{
			my $id = $base + $i;
			print $fh "INSERT INTO $table VALUES ($id, wkey($id));\n\\echo i $id\n";
			if ($i % 7 == 0)
			{
				print $fh "DELETE FROM $table WHERE id = " . ($id - 3) . ";\n";
			}
			if ($i % 11 == 0)
			{
				print $fh "UPDATE $table SET k = k || '-u' WHERE id = " . ($id - 5) . ";\n";
			}
			if ($c == 1 && $i % 300 == 0)
			{
				print $fh "VACUUM $table;\n";
			}
			if ($i % 10 == 0)
			{
				print $fh "SELECT stop FROM ctl \\gset\n\\if :stop\n\\q\n\\endif\n";
			}
		}
		close $fh;
		my $out = "$dir/acked_${round}_$c";
		my $h = IPC::Run::start(
			[ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1',
			  '-h', $node->host, '-p', $node->port, '-d', 'postgres',
			  '-f', $script ],
			'>', $out, '2>', "$dir/err_${round}_$c");
		push @w, { h => $h, out => $out, err => "$dir/err_${round}_$c" };
	}
	return \@w;
}

# The ids the writers acknowledged so far (inserts whose commit returned).
sub acked_ids
{
	my ($w) = @_;
	my @ids;
	for my $x (@$w)
	{
		next unless -e $x->{out};
		open(my $fh, '<', $x->{out}) or die "$x->{out}: $!";
		while (my $l = <$fh>)
		{
			push @ids, $1 if $l =~ /^i (\d+)$/;
		}
		close $fh;
	}
	return @ids;
}

# Wait until the writers have acknowledged at least $want rows in all,
# at most $seconds; returns how many they had.
sub writers_wait
{
	my ($w, $want, $seconds) = @_;
	$seconds //= 60;
	my $n = 0;
	for (1 .. $seconds * 10)
	{
		$n = scalar(acked_ids($w));
		last if $n >= $want;
		# Stop waiting if every writer has ended (an error, a crash).
		last unless grep { $_->{h}->pumpable } @$w;
		select(undef, undef, undef, 0.1);
	}
	return $n;
}

# Ask the writers to stop and wait for them; with crashed => 1 (the
# server is gone) just reap them.  Asserts that they ended without an
# error unless the server was crashed under them.
sub stop_writers
{
	my ($node, $w, $label, %opt) = @_;
	$node->safe_psql('postgres', 'UPDATE ctl SET stop = true')
	  unless $opt{crashed};
	my $clean = 1;
	for my $x (@$w)
	{
		eval { $x->{h}->finish; };
		$clean = 0 if $@ || $x->{h}->result;
	}
	unless ($opt{crashed})
	{
		my $errs = join('', map { -e $_->{err} ? PostgreSQL::Test::Utils::slurp_file($_->{err}) : '' } @$w);
		Test::More::ok($clean, "$label: the writers ran without an error")
		  or Test::More::diag($errs);
	}
	return;
}

# The queries by which the tests compare an index with a sequential
# scan: label => a query returning one value, over table $t (columns id,
# k).  Equality, = ANY, prefixes (^@ and LIKE), ranges, ordered scans
# forward and backward with LIMIT, NULLs, long keys, and a digest of every
# (id, key) the index finds.
sub index_queries
{
	my ($t) = @_;
	return (
		eq => "SELECT count(*) || '/' || coalesce(sum(id), 0) FROM $t WHERE k = wkey(17)",
		eq_any => "SELECT count(*) || '/' || coalesce(sum(id), 0) FROM $t WHERE k = ANY (ARRAY[wkey(1), wkey(2), wkey(53), wkey(1000001), wkey(2000002), wkey(11000004), wkey(12000010), wkey(13000053), 'absent', ''])",
		pfx_w => "SELECT count(*) || '/' || coalesce(sum(id), 0) FROM $t WHERE k ^@ 'w'",
		pfx_w1 => "SELECT count(*) || '/' || coalesce(sum(id), 0) FROM $t WHERE k ^@ 'w1'",
		pfx_w12 => "SELECT count(*) || '/' || coalesce(sum(id), 0) FROM $t WHERE k ^@ 'w12/1'",
		pfx_long => "SELECT count(*) || '/' || coalesce(sum(id), 0) || '/' || coalesce(sum(length(k)), 0) FROM $t WHERE k ^@ 'long/'",
		like => "SELECT count(*) || '/' || coalesce(sum(id), 0) FROM $t WHERE k LIKE 'w0/1%'",
		range => "SELECT count(*) || '/' || coalesce(sum(id), 0) FROM $t WHERE k >= 'w1' AND k < 'w13'",
		range_gt => "SELECT count(*) || '/' || coalesce(sum(id), 0) FROM $t WHERE k > 'w13/20'",
		range_le => "SELECT count(*) || '/' || coalesce(sum(id), 0) FROM $t WHERE k <= 'w0/05'",
		ordered => "SELECT string_agg(id::text, ',') FROM (SELECT id FROM $t WHERE k >= 'w11/1' ORDER BY k LIMIT 25) s",
		ordered_desc => "SELECT string_agg(id::text, ',') FROM (SELECT id FROM $t WHERE k < 'w13' ORDER BY k DESC LIMIT 25) s",
		ordered_all => "SELECT string_agg(id::text, ',') FROM (SELECT id FROM $t WHERE k >= '' ORDER BY k LIMIT 25) s",
		nulls => "SELECT count(*) || '/' || coalesce(sum(id), 0) FROM $t WHERE k IS NULL",
		all => "SELECT count(*) || '/' || md5(coalesce(string_agg(id || ':' || k, ',' ORDER BY id), '')) FROM $t WHERE k >= ''",
	);
}

my %mode_sql = (
	index => 'SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_indexscan = on; SET enable_indexonlyscan = on;',
	bitmap => 'SET enable_seqscan = off; SET enable_bitmapscan = on; SET enable_indexscan = off; SET enable_indexonlyscan = off;',
	seq => 'SET enable_seqscan = on; SET enable_bitmapscan = off; SET enable_indexscan = off; SET enable_indexonlyscan = off;',
);

# Run the queries of index_queries($table) on $node in one session, in
# mode index (plain, index-only and ordered scans), bitmap or seq, each
# after its EXPLAIN when $explain.  Returns (answers: label => value for
# each query that answered, plans: label => plan text, stderr).  Errors
# do not stop the later queries.
sub _run_queries
{
	my ($node, $db, $table, $mode, $explain) = @_;
	my @q = index_queries($table);
	my $sql = $mode_sql{$mode} . "\n";
	for (my $i = 0; $i < @q; $i += 2)
	{
		my ($label, $query) = @q[ $i, $i + 1 ];
		$sql .= "\\echo ==$label\nEXPLAIN (COSTS OFF) $query;\n" if $explain;
		$sql .= "SELECT '\@\@$label=' || coalesce(($query)::text, 'NULL');\n";
	}
	my ($ret, $out, $err) = $node->psql($db, $sql, on_error_stop => 0);
	my (%ans, %plans, $cur);
	for my $l (split /\n/, $out)
	{
		if ($l =~ /^==(\w+)$/) { $cur = $1; next; }
		if ($l =~ /^\@\@(\w+)=(.*)$/s) { $ans{$1} = $2; undef $cur; next; }
		$plans{$cur} .= "$l\n" if defined $cur;
	}
	return (\%ans, \%plans, $err);
}

# The answers of the index queries on $table forced through the index
# (mode index or bitmap) or by a sequential scan (seq), as one string
# (label=value per line, ERROR for a query that failed, then stderr).
sub index_answers
{
	my ($node, $table, $mode, %opt) = @_;
	my ($ans, undef, $err) = _run_queries($node, $opt{db} // 'postgres', $table, $mode, 0);
	return _answers_string($table, $ans, $err);
}

sub _answers_string
{
	my ($table, $ans, $err) = @_;
	my @q = index_queries($table);
	my @labels = @q[ grep { $_ % 2 == 0 } 0 .. $#q ];
	return join("\n", map { "$_=" . ($ans->{$_} // "ERROR") } @labels) . ($err ne '' ? "\nstderr: $err" : '');
}

# Long keys shortened for diagnostics.
sub _short
{
	my ($s) = @_;
	$s =~ s/((.)\2{15})\2+/$1.../g;
	return $s;
}

# is(), with long keys shortened in the diagnostics only.
sub _same
{
	my ($got, $want, $label) = @_;
	return 1 if Test::More::ok($got eq $want, $label);
	Test::More::diag("got:\n" . _short($got) . "\nexpected:\n" . _short($want));
	return 0;
}

sub _plans_ok
{
	my ($plans, $mode, $index, $table) = @_;
	my @q = index_queries($table);
	my @labels = @q[ grep { $_ % 2 == 0 } 0 .. $#q ];
	my @bad;
	for my $l (@labels)
	{
		my $p = $plans->{$l} // '';
		my $want = $mode eq 'bitmap'
		  ? qr/Bitmap Index Scan on \Q$index\E\b/
		  : qr/Index (Only )?Scan (Backward )?using \Q$index\E\b/;
		push @bad, "$l:\n$p" unless $p =~ $want && ($mode eq 'bitmap' || $p !~ /Bitmap/);
	}
	return @bad;
}

# Assert that on $node every query of index_queries($table) goes through
# $index in both index modes, and answers there exactly what a sequential
# scan on the same node answers; with want => $answers (index_answers()
# of another node, say the primary), also that the answers equal those.
# Returns true if all held.
sub check_index
{
	my ($node, $table, $index, $label, %opt) = @_;
	my $db = $opt{db} // 'postgres';
	my $seq = index_answers($node, $table, 'seq', db => $db);
	my $all = 1;
	for my $mode ('index', 'bitmap')
	{
		my ($ans, $plans, $err) = _run_queries($node, $db, $table, $mode, 1);
		my @bad = _plans_ok($plans, $mode, $index, $table);
		$all &= Test::More::ok(!@bad,
			"$label: every query plans a $mode scan of $index")
		  or Test::More::diag(_short(join("\n", @bad)));
		my $got = _answers_string($table, $ans, $err);
		$all &= _same($got, $seq,
			"$label: $index ($mode scans) answers like a sequential scan");
		if (defined $opt{want})
		{
			$all &= _same($got, $opt{want},
				"$label: $index ($mode scans) answers like the reference node");
		}
	}
	return $all;
}

# Run SQL on a node under test as an assertion that it succeeds (a
# failure is a failed test, not the end of the script); returns its
# output.
sub sql_ok
{
	my ($node, $sql, $label, %opt) = @_;
	my ($ret, $out, $err) = $node->psql($opt{db} // 'postgres', $sql);
	Test::More::ok($ret == 0, $label) or Test::More::diag(_short($err));
	return $out;
}

# artrie_verify(index, true) as an assertion.
sub verify_ok
{
	my ($node, $index, $label, %opt) = @_;
	my ($ret, $out, $err) = $node->psql($opt{db} // 'postgres',
		"SELECT artrie_verify('$index', true)");
	return Test::More::ok($ret == 0 && $err eq '',
		"$label: artrie_verify($index, true) finds it sound")
	  || Test::More::diag($err);
}

# On a node whose artrie file may not be provably current (a copy): the
# index must either answer every query exactly as a sequential scan does,
# or refuse: an ERROR that names the index with a hint to REINDEX, or a
# plan that leaves the index out with a WARNING that names it and hints at
# REINDEX (the answers must then still be right).  Never a different
# answer.  With want => $answers,
# a query that answers must also equal that reference.  Returns 'answered'
# if every query answered, 'refused' if any refused (with a failed
# assertion if anything else happened).
sub index_or_refusal
{
	my ($node, $table, $index, $label, %opt) = @_;
	my $db = $opt{db} // 'postgres';
	my $seq = index_answers($node, $table, 'seq', db => $db);
	my %seq = map { /^(\w+)=(.*)$/s ? ($1, $2) : () } split /\n/, $seq;
	my @q = index_queries($table);
	my @labels = @q[ grep { $_ % 2 == 0 } 0 .. $#q ];
	my %want;
	%want = map { /^(\w+)=(.*)$/s ? ($1, $2) : () } split /\n/, $opt{want}
	  if defined $opt{want};
	my $refused = 0;
	for my $mode ('index', 'bitmap')
	{
		my ($ans, $plans, $errs) = _run_queries($node, $db, $table, $mode, 1);
		my @wrong;
		my $answered = 0;
		for my $l (@labels)
		{
			next unless exists $ans->{$l};
			$answered++;
			push @wrong, "$l: index $ans->{$l}, seq scan " . ($seq{$l} // 'none')
			  if !defined $seq{$l} || $ans->{$l} ne $seq{$l};
			push @wrong, "$l: index $ans->{$l}, reference $want{$l}"
			  if defined $opt{want} && $ans->{$l} ne ($want{$l} // '');
		}
		_same(join("\n", @wrong), '',
			"$label: no query through $index ($mode scans) answers differently from a sequential scan"
			  . (defined $opt{want} ? ' or the reference' : ''));
		# The plans of the queries that answered must be index scans of
		# $index, or a right answer would prove nothing; unless the planner
		# left out an index it cannot use, which it must say in a WARNING
		# that names the index and hints at REINDEX.
		my @bad = grep { my $l = (split /:/)[0]; exists $ans->{$l} }
		  _plans_ok($plans, $mode, $index, $table);
		my @w = ($errs =~ /^(?:psql:[^\n]*?)?WARNING:\s+([^\n]*)/mg);
		if (@bad && @w)
		{
			$refused = 1;
			Test::More::ok(!grep({ !/index "\Q$index\E"/ } @w),
				"$label: the plans leave out $index ($mode scans) with a WARNING that names it")
			  or Test::More::diag($errs);
			Test::More::like($errs, qr/^HINT:\s+REINDEX/m,
				"$label: and hints at REINDEX ($mode scans)");
		}
		else
		{
			_same(join("\n", @bad), '',
				"$label: the queries that answered planned $mode scans of $index");
		}
		if ($answered < @labels)
		{
			$refused = 1;
			my @e = ($errs =~ /^(?:psql:[^\n]*?)?ERROR:\s+([^\n]*)/mg);
			my @h = ($errs =~ /^HINT:\s+([^\n]*)/mg);
			Test::More::ok(@e > 0 && !grep({ !/index "\Q$index\E"/ } @e),
				"$label: every refusal ($mode scans) is an ERROR that names index \"$index\"")
			  or Test::More::diag($errs);
			Test::More::ok(@h >= @e && !grep({ !/REINDEX/ } @h),
				"$label: every refusal ($mode scans) has a hint to REINDEX")
			  or Test::More::diag($errs);
		}
	}
	return $refused ? 'refused' : 'answered';
}

# ---------------------------------------------------------------------
# Sessions in the background (scan holds, recovery conflicts)
# ---------------------------------------------------------------------

push @EXPORT, qw(start_sql_loop);

# psql running $sql on $node $times times in a row in the background (a
# script file in $dir: IPC::Run would feed a scalar input only while
# pumped); returns the IPC::Run harness, errors collect in $dir/loop.err.
sub start_sql_loop
{
	my ($node, $dir, $sql, $times) = @_;
	my $script = "$dir/loop.sql";
	open(my $fh, '>', $script) or die "$script: $!";
	print $fh $sql x $times;
	close $fh;
	return IPC::Run::start(
		[ 'psql', '-X', '-q', '-h', $node->host, '-p', $node->port,
		  '-d', 'postgres', '-f', $script ],
		'>', '/dev/null', '2>', "$dir/loop.err");
}

push @EXPORT, qw(named_files files_ok);

# The files the artrie indexes of database postgres name, without the
# leading "artrie/".
sub named_files
{
	my ($node) = @_;
	my $out = $node->safe_psql('postgres',
		'SELECT file FROM artrie_indexes WHERE file IS NOT NULL ORDER BY 1');
	return sort map { s{^artrie/}{}r } grep { $_ ne '' } split /\n/, $out;
}

# Sweep until the files on disk are those the indexes name (a pinned file
# waits for the next round), bounded by the framework's timeout.
sub files_ok
{
	my ($node, $label) = @_;
	my (@want, @have);
	for (1 .. $PostgreSQL::Test::Utils::timeout_default)
	{
		$node->safe_psql('postgres', 'SELECT artrie_checkpoint()');
		@want = named_files($node);
		@have = grep { !/\.inuse$/ } artrie_files($node);
		last if join(',', @want) eq join(',', @have);
		sleep 1;
	}
	Test::More::is_deeply(\@have, \@want, "$label: no orphaned artrie file is left");
	return;
}

push @EXPORT, qw(bg_session bg_run bg_end bg_start bg_wait_ended bg_still_running bg_paused
  writes_while_paused sessions_run);

# Run each SQL script of @scripts in a psql session of its own, all at
# once (each reads its script from a file, not from a scalar that
# IPC::Run feeds only while that one handle is pumped, so they do not run
# one after the other), stopping a session at its first error.  Returns
# whether every session ended without an error, and their stderr joined.
sub sessions_run
{
	my ($node, @scripts) = @_;
	my $dir = PostgreSQL::Test::Utils::tempdir;
	my (@h, @err);
	for my $c (0 .. $#scripts)
	{
		PostgreSQL::Test::Utils::append_to_file("$dir/s$c.sql", $scripts[$c]);
		push @h, IPC::Run::start(
			[ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-h', $node->host,
			  '-p', $node->port, '-d', 'postgres', '-f', "$dir/s$c.sql" ],
			'>', \my $out, '2>', \$err[$c]);
	}
	my $clean = 1;
	$clean &&= $_->finish for @h;
	return ($clean, join("\n", grep { defined && $_ ne '' } @err));
}

# psql connected to $node's database postgres in the background, fed
# statements with bg_run; its output and errors collect in $s->{out} and
# $s->{err}.  Errors do not end it (no ON_ERROR_STOP).
sub bg_session
{
	my ($node) = @_;
	my %s = (in => '', out => '', err => '');
	$s{h} = IPC::Run::start(
		[ 'psql', '-X', '-q', '-A', '-t', '-h', $node->host,
		  '-p', $node->port, '-d', 'postgres' ],
		'<', \$s{in}, '>', \$s{out}, '2>', \$s{err},
		IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default));
	return \%s;
}

# Feed sql to a background session and wait until its output matches
# $want, it reports an error, or it has ended (its connection lost).
sub bg_run
{
	my ($s, $sql, $want) = @_;
	$s->{in} .= $sql;
	$s->{h}->pump
	  while $s->{out} !~ $want && $s->{err} !~ /ERROR|FATAL|server closed/
	  && $s->{h}->pumpable;
	return;
}

# Send a statement to a background session without waiting for it; the
# session echoes "ended" once it is done.
sub bg_start
{
	my ($s, $sql) = @_;
	$s->{in} .= "$sql;\n\\echo ended\n";
	$s->{h}->pump_nb;
	return;
}

# Pump a background session until it echoed "ended" (bg_start) or the
# framework's timeout passed; whether it ended.
sub bg_wait_ended
{
	my ($s) = @_;
	my $start = Time::HiRes::time();
	while (Time::HiRes::time() - $start < $PostgreSQL::Test::Utils::timeout_default)
	{
		$s->{h}->pump_nb;
		return 1 if $s->{out} =~ /ended/;
		select(undef, undef, undef, 0.1);
	}
	return 0;
}

# Whether a background session's statement (bg_start) is still running
# after $secs seconds.
sub bg_still_running
{
	my ($s, $secs) = @_;
	for (1 .. 10 * $secs)
	{
		$s->{h}->pump_nb;
		return 0 if $s->{out} =~ /ended/;
		select(undef, undef, undef, 0.1);
	}
	return 1;
}

# Create the file $file in $node's data directory, start $sql in a
# background session (bg_start) and wait until $node's log says, after
# that, what $re matches: a pause the file holds (artrie.test_checkpoint_pause,
# artrie.test_walk_pause); as the assertion $label.  Returns the session.
sub bg_paused
{
	my ($node, $file, $sql, $re, $label) = @_;
	my $pause = $node->data_dir . "/$file";
	open(my $fh, '>', $pause) or die "cannot create $pause: $!";
	close($fh);
	my $offset = -s $node->logfile;
	my $s = bg_session($node);
	bg_start($s, $sql);
	Test::More::ok($node->wait_for_log($re, $offset), $label);
	return $s;
}

# INSERTs into table t (rows $from + 1 .. $from + 4000, then 2000 rows
# with repeated keys), a DELETE (id % 17 = $mod) and VACUUM t, in a
# background session while the checkpoint in session $ckpt is paused
# ($what names it): as assertions, they must complete without an error
# while it still is.
sub writes_while_paused
{
	my ($node, $ckpt, $from, $mod, $label, $what) = @_;
	my $w = bg_session($node);
	bg_start($w, qq{
		INSERT INTO t SELECT g, wkey(g) FROM generate_series($from + 1, $from + 4000) g;
		INSERT INTO t SELECT g, wkey(g % 5000) FROM generate_series($from + 4001, $from + 6000) g;
		DELETE FROM t WHERE id % 17 = $mod;
		VACUUM t});
	Test::More::ok(bg_wait_ended($w),
		"$label: writes into the index complete while its $what is paused");
	$ckpt->{h}->pump_nb;
	Test::More::is($ckpt->{out} =~ /ended/ ? 'ended' : 'paused', 'paused',
		"$label: the $what was still paused when the writes completed");
	Test::More::is($w->{err}, '', "$label: the writes report no error");
	bg_end($w);
	return;
}

# Copy $node's data directory into the backup $name under its backup
# directory, as a low-level backup's copier does: all but the WAL, the
# postmaster's files and the tests' checkpoint pause files.  Returns the
# backup's path.
sub copy_datadir
{
	my ($node, $name) = @_;
	my $backup = $node->backup_dir . "/$name";
	PostgreSQL::Test::RecursiveCopy::copypath($node->data_dir, $backup,
		filterfn => sub {
			my $src = shift;
			return $src ne 'postmaster.pid' && $src ne 'postmaster.opts' &&
			  $src !~ m{^pg_wal/} && $src !~ /^artrie_checkpoint_pause/;
		});
	File::Path::make_path("$backup/pg_wal/archive_status");
	return $backup;
}

# Put the label that pg_backup_stop() returned into the backup at $backup.
sub write_backup_label
{
	my ($backup, $label) = @_;
	open(my $lf, '>', "$backup/backup_label") or die "backup_label: $!";
	print $lf $label, "\n";
	close $lf;
	return;
}

# End a background session.
sub bg_end
{
	my ($s) = @_;
	$s->{in} .= "\\q\n" if $s->{h}->pumpable;
	eval { $s->{h}->finish; };
	return;
}

# The small filesystem that test/run-all.sh mounts for the full-disk
# tests when it runs as root (ARTRIE_FULLDISK_DIR), or undef.
sub small_fs
{
	my $small = $ENV{ARTRIE_FULLDISK_DIR};
	return (defined $small && -d $small && -w $small) ? $small : undef;
}

# Put $node's artrie directory on the small filesystem: the node is
# stopped, the directory moved there (a symbolic link in its place) and
# the node started again.  Returns the directory there; the caller
# removes it.
sub artrie_dir_on_small_fs
{
	my ($node) = @_;
	my $small = small_fs() or die 'no small filesystem';
	my $pgdata = $node->data_dir;
	my $adir = "$small/artrie-" . $node->name . "-$$";
	$node->stop;
	File::Path::rmtree($adir);
	mkdir($adir) or die "mkdir $adir: $!";
	# The io worker may not have made the directory yet.
	if (-d "$pgdata/artrie")
	{
		system('cp', '-a', "$pgdata/artrie/.", $adir) == 0 or die "cp: $?";
		File::Path::rmtree("$pgdata/artrie");
	}
	symlink($adir, "$pgdata/artrie") or die "symlink: $!";
	$node->start;
	return $adir;
}

# Fill the small filesystem but for $leave bytes with one file (made
# anew); returns its name, for the caller to remove.
sub fill_small_fs
{
	my ($leave) = @_;
	my $small = small_fs() or die 'no small filesystem';
	my $filler = "$small/filler-$$";
	unlink($filler);
	my $out = `df -B1 --output=avail $small`;
	my ($avail) = $out =~ /(\d+)\s*$/;
	system('fallocate', '-l', $avail - $leave, $filler) == 0
	  or die "fallocate: $?";
	return $filler;
}

push @EXPORT, qw(crc32c);

my @crc_table = map {
	my $c = $_;
	$c = ($c & 1) ? (($c >> 1) ^ 0x82F63B78) : ($c >> 1) for 1 .. 8;
	$c;
} 0 .. 255;

# CRC32C (Castagnoli) of a string, as artrie seals its pages and its
# control file, for tests that change a page and seal it again.
sub crc32c
{
	my ($data) = @_;
	my $crc = 0xFFFFFFFF;
	$crc = $crc_table[ ($crc ^ $_) & 0xFF ] ^ ($crc >> 8) for unpack('C*', $data);
	return $crc ^ 0xFFFFFFFF;
}

push @EXPORT, qw(prefix_counts_ok ordered_scan_ok);

# artrie_prefix_count($index, p), for each of the prefixes, equals the
# rows of $table whose k begins with p.
sub prefix_counts_ok
{
	my ($node, $index, $table, $prefixes, $label) = @_;
	my $list = join(', ', map { "'$_'" } @$prefixes);
	my $counts = $node->safe_psql('postgres', qq{
		SELECT string_agg(p || '=' || (artrie_prefix_count('$index', p) = n)::text, ' ' ORDER BY p)
		FROM (SELECT p, (SELECT count(*) FROM $table WHERE left(k, length(p)) = p) AS n
			  FROM unnest(ARRAY[$list]::text[]) p) s});
	return Test::More::unlike($counts, qr/=false/,
		"$label: every prefix count equals the rows")
	  || Test::More::diag($counts);
}

# An ordered index scan of $table (columns id, k) returns every row, as a
# sequential scan does.
sub ordered_scan_ok
{
	my ($node, $table, $label) = @_;
	my $q = "SELECT count(*) || '/' || md5(string_agg(id || ':' || k, ',' ORDER BY k, id)) "
	  . "FROM $table WHERE k >= ''";
	return Test::More::is(
		$node->safe_psql('postgres',
			"SET enable_seqscan = off; SET enable_bitmapscan = off; $q"),
		$node->safe_psql('postgres',
			'SET enable_indexscan = off; SET enable_indexonlyscan = off; '
			  . "SET enable_bitmapscan = off; $q"),
		"$label: an ordered index scan returns every row, like a seq scan");
}

1;
