# Multicolumn artrie indexes survive a crash and replay on a standby: their
# WAL records carry the whole composite key.  A primary with a hot standby
# holds a table with an index on (tenant int, path text) and a UNIQUE one
# on (bucket text, key text) NULLS NOT DISTINCT; inserts, updates, deletes
# and VACUUM run on both sides of a CHECKPOINT.  On the standby, after
# replay, and on the primary after kill -9 and restart, every query forced
# through the indexes (plain, index-only, ordered both ways, bitmap: "="
# on the leading column with =, ^@, LIKE, ranges and IS NULL on the last)
# answers what a sequential scan answers on the primary, artrie_verify
# passes, the UNIQUE index still refuses a duplicate, and writes go on.
# On both I/O backends.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

# The queries: label => SQL returning one value.
my @queries = (
	eq => "SELECT count(*) || '/' || coalesce(sum(id), 0) FROM m WHERE tenant = 3 AND path = 'd1/f31'",
	pfx => "SELECT count(*) || '/' || coalesce(sum(id), 0) FROM m WHERE tenant = 3 AND path ^@ 'd1/'",
	like => "SELECT count(*) || '/' || coalesce(sum(id), 0) FROM m WHERE tenant = 7 AND path LIKE 'd2/%'",
	range => "SELECT count(*) || '/' || coalesce(sum(id), 0) FROM m WHERE tenant = 5 AND path >= 'd1' AND path < 'd3'",
	lead_range => "SELECT count(*) || '/' || coalesce(sum(id), 0) FROM m WHERE tenant >= 5 AND tenant < 7",
	null_lead => "SELECT count(*) || '/' || coalesce(sum(id), 0) FROM m WHERE tenant IS NULL",
	null_last => "SELECT count(*) || '/' || coalesce(sum(id), 0) FROM m WHERE tenant = 3 AND path IS NULL",
	ordered => "SELECT string_agg(path, ',') FROM (SELECT path FROM m WHERE tenant = 4 ORDER BY path LIMIT 20) s",
	ordered_desc => "SELECT string_agg(tenant || ':' || path, ',') FROM (SELECT tenant, path FROM m WHERE tenant > 0 ORDER BY tenant DESC, path DESC LIMIT 20) s",
	all => "SELECT count(*) || '/' || md5(coalesce(string_agg(id || ':' || path, ',' ORDER BY id), '')) FROM m WHERE tenant > -2147483648",
	bucket => "SELECT count(*) || '/' || coalesce(sum(id), 0) FROM m WHERE bucket = 'b1' AND key ^@ 'k1'",
);

my %modes = (
	index => 'SET enable_seqscan = off; SET enable_bitmapscan = off;',
	bitmap => 'SET enable_seqscan = off; SET enable_indexscan = off; SET enable_indexonlyscan = off;',
	seq => 'SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off;',
);

# The answers of every query in one mode, one "label=value" line each;
# with plans, also whether each plan uses an artrie index of m.
sub answers
{
	my ($node, $mode, $plans) = @_;
	my $sql = "$modes{$mode}\n";
	for (my $i = 0; $i < @queries; $i += 2)
	{
		my ($label, $q) = @queries[ $i, $i + 1 ];
		$sql .= "\\echo ==$label\nEXPLAIN (COSTS OFF) $q;\n" if $plans;
		$sql .= "SELECT '\@\@$label=' || coalesce(($q)::text, 'NULL');\n";
	}
	my ($ret, $out, $err) = $node->psql('postgres', $sql, on_error_stop => 0);
	my (@ans, @bad, $cur, $plan);
	for my $l (split /\n/, $out)
	{
		if ($l =~ /^==(\w+)$/) { ($cur, $plan) = ($1, ''); next; }
		if ($l =~ /^\@\@(\w+=.*)$/)
		{
			push @ans, $1;
			push @bad, $cur if $plans && $plan !~ /\bm_(tp|bk)\b/;
			undef $cur;
			next;
		}
		$plan .= "$l\n" if defined $cur;
	}
	push @bad, "stderr: $err" if $err ne '';
	return (join("\n", @ans), \@bad);
}

# On $node both index modes answer $want (the primary's sequential scan)
# through the indexes, and both indexes verify.
sub check
{
	my ($node, $want, $label) = @_;
	for my $mode ('index', 'bitmap')
	{
		my ($got, $bad) = answers($node, $mode, 1);
		ok(!@$bad, "$label: every query plans a $mode scan of an artrie index")
		  or diag(join("\n", @$bad));
		is($got, $want, "$label: $mode scans answer like a sequential scan on the primary");
	}
	verify_ok($node, $_, $label) for ('m_tp', 'm_bk');
	return;
}

# Writes of round $r: inserts (NULLs among them), updates, deletes.
sub writes
{
	my ($node, $r) = @_;
	my $base = 100000 * $r;
	$node->safe_psql('postgres', qq{
		INSERT INTO m SELECT $base + g, CASE WHEN g % 41 = 0 THEN NULL ELSE g % 10 END,
			CASE WHEN g % 43 = 0 THEN NULL ELSE 'd' || (g % 4) || '/r$r/' || g END,
			'b' || (g % 3), 'k$r/' || g
		  FROM generate_series(1, 1500) g;
		UPDATE m SET path = path || '/u$r' WHERE id % 17 = $r;
		DELETE FROM m WHERE id % 13 = $r;
	});
	return;
}

for my $backend (backends())
{
	my $primary = artrie_primary("primary_$backend", $backend);
	$primary->safe_psql('postgres', q{
		CREATE TABLE m (id int, tenant int, path text COLLATE "C", bucket text, key text);
		INSERT INTO m SELECT g, CASE WHEN g % 97 = 0 THEN NULL ELSE g % 10 END,
			CASE WHEN g % 89 = 0 THEN NULL ELSE 'd' || (g % 4) || '/f' || g END,
			'b' || (g % 3), 'k' || g
		  FROM generate_series(1, 4000) g;
		CREATE INDEX m_tp ON m USING artrie (tenant, path);
		CREATE UNIQUE INDEX m_bk ON m USING artrie (bucket, key) NULLS NOT DISTINCT;
	});
	my $standby = artrie_standby($primary, "standby_$backend");

	# Changes on both sides of a checkpoint, then VACUUM.
	writes($primary, 1);
	$primary->safe_psql('postgres', 'CHECKPOINT');
	writes($primary, 2);
	$primary->safe_psql('postgres', 'VACUUM m');
	writes($primary, 3);

	my ($want) = answers($primary, 'seq', 0);
	like($want, qr/^pfx=[1-9]/m, "$backend: the prefix query finds rows");
	wait_replayed($primary, $standby);
	check($standby, $want, "$backend: standby after replay");

	# kill -9 with changes since the last checkpoint.
	$primary->stop('immediate');
	start_ok($primary, "$backend: after kill -9");
	check($primary, $want, "$backend: primary after kill -9");
	my ($b, $k) = split /\|/, $primary->safe_psql('postgres',
		'SELECT bucket, key FROM m ORDER BY id LIMIT 1');
	my ($ret, $out, $err) = $primary->psql('postgres',
		"INSERT INTO m VALUES (1, 1, 'x', '$b', '$k')");
	like($err, qr/duplicate key value violates unique constraint "m_bk"/,
		"$backend: after the crash the UNIQUE index still refuses a duplicate");

	# Writes go on after the crash and reach the standby.
	writes($primary, 4);
	($want) = answers($primary, 'seq', 0);
	check($primary, $want, "$backend: primary after more writes");
	wait_replayed($primary, $standby);
	check($standby, $want, "$backend: standby after more writes");

	$standby->stop;
	$primary->stop;
}

done_testing();
