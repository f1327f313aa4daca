# UNLOGGED indexes across a clean fast shutdown.  Their changes have no
# WAL, so after a clean stop the index is only what the io worker's last
# checkpoint wrote.  Writers (inserts, deletes, updates, VACUUM) run into
# `pg_ctl stop -m fast`; after the restart the UNLOGGED index answers
# every query (index, index-only and bitmap scans) exactly as a
# sequential scan does, and no in-use mark is left.  Then the last
# checkpoint is made to fail (artrie.debug_fault = 'write'): the UNLOGGED
# index is refused with a hint to REINDEX, never served, while a
# permanent index is brought up to date by the WAL; REINDEX makes the
# UNLOGGED index whole again.  On both I/O backends.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use ArtrieTest;

# Every key of the table through an index-only scan of the index (or a
# sequential scan), with its plan.
sub keys_digest
{
	my ($node, $mode) = @_;
	my $set = $mode eq 'index'
	  ? 'SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_indexscan = off;'
	  : 'SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off;';
	my $q = q{SELECT count(*) || '/' || md5(coalesce(string_agg(k, ','), '')) FROM (SELECT k FROM u WHERE k >= '' ORDER BY k) s};
	my ($ret, $out, $err) = $node->psql('postgres', "$set EXPLAIN (COSTS OFF) $q; $q");
	return ($out, $err);
}

# The index-only scan of u_k finds exactly the keys a sequential scan
# finds.
sub index_only_ok
{
	my ($node, $label) = @_;
	my ($iout, $ierr) = keys_digest($node, 'index');
	my ($sout, $serr) = keys_digest($node, 'seq');
	like($iout, qr/Index Only Scan using u_k/, "$label: the key digest plans an index-only scan of u_k");
	my ($idig) = $iout =~ /^(\d+\/[0-9a-f]{32})$/m;
	my ($sdig) = $sout =~ /^(\d+\/[0-9a-f]{32})$/m;
	ok(defined $idig && defined $sdig && $idig eq $sdig,
		"$label: the index-only scan of u_k finds every key of the table and no other")
	  or diag("index: $iout $ierr\nseq: $sout $serr");
	return;
}

for my $backend (backends())
{
	my $node = artrie_node("unlogged_$backend", $backend);
	make_wtable($node, 'u', 'u_k', 1, 5000, unlogged => 1);
	make_wtable($node, 'p', 'p_k', 1, 2000);
	my $dir = PostgreSQL::Test::Utils::tempdir;

	for my $round (1 .. 2)
	{
		my $label = "$backend, round $round";
		my $w = start_writers($node, 'u', $dir, $round, clients => 4);
		my $acked = writers_wait($w, 1500 * $round, 60);
		cmp_ok($acked, '>=', 1500, "$label: the writers committed rows");
		# The writers run into the fast shutdown.
		$node->stop('fast');
		stop_writers($node, $w, $label, crashed => 1);
		ok(!grep(/\.inuse$/, artrie_files($node)),
			"$label: no file is left marked in use after the clean stop");
		$node->start;
		check_index($node, 'u', 'u_k', "$label: UNLOGGED index after a fast stop under writers");
		index_only_ok($node, $label);
		verify_ok($node, 'u_k', $label);
		# New rows take the TIDs VACUUM freed before the stop.
		$node->safe_psql('postgres',
			"VACUUM u; INSERT INTO u SELECT g, wkey(g) FROM generate_series(900000 + 1000 * $round, 900999 + 1000 * $round) g");
		check_index($node, 'u', 'u_k', "$label: UNLOGGED index after new rows reuse freed TIDs");
	}

	# The last checkpoint fails: the UNLOGGED index cannot be proven whole.
	my $label = "$backend, failed last checkpoint";
	$node->append_conf('postgresql.conf', "artrie.debug_fault = 'write'");
	$node->reload;
	my $w = start_writers($node, 'u', $dir, 3, clients => 2);
	writers_wait($w, 500, 60);
	$node->safe_psql('postgres',
		'INSERT INTO p SELECT g, wkey(g) FROM generate_series(3000, 3999) g');
	my $logstart = -s $node->logfile;
	$node->stop('fast');
	stop_writers($node, $w, $label, crashed => 1);
	like(slurp_file($node->logfile, $logstart),
		qr/artrie could not checkpoint file "[^"]+" of index "u_k" at shutdown/,
		"$label: the log says which file the last checkpoint could not write");
	ok(scalar(grep(/\.inuse$/, artrie_files($node))) == 1,
		"$label: the UNLOGGED index's file stays marked in use");
	$node->append_conf('postgresql.conf', "artrie.debug_fault = 'none'");
	$logstart = -s $node->logfile;
	$node->start;
	ok($node->wait_for_log(
			qr/artrie: the last shutdown left files of UNLOGGED indexes that lack changes: "artrie\/\d+\/\d+\.\d+"\n/,
			$logstart),
		"$label: the start says which UNLOGGED index's file lacks changes");

	is(index_or_refusal($node, 'u', 'u_k', $label), 'refused',
		"$label: the UNLOGGED index is refused, not served");
	my ($ret, $out, $err) = $node->psql('postgres',
		"INSERT INTO u VALUES (999999, 'after')");
	ok($ret != 0 && $err =~ /index "u_k" cannot be used/ && $err =~ /HINT:\s+REINDEX/,
		"$label: an insert into its table fails, naming the index, with a hint to REINDEX")
	  or diag($err);
	check_index($node, 'p', 'p_k', "$label: the permanent index is brought up to date by the WAL");

	sql_ok($node, 'REINDEX INDEX u_k', "$label: REINDEX of the refused index succeeds");
	check_index($node, 'u', 'u_k', "$label: the UNLOGGED index after REINDEX");
	index_only_ok($node, "$label, after REINDEX");
	my $file = $node->safe_psql('postgres',
		"SELECT file FROM artrie_indexes WHERE index = 'u_k'::regclass");
	$file =~ s{^artrie/}{};
	$node->stop('fast');
	# The refused file is the sweep's to remove, with its mark.
	ok(!grep({ $_ eq "$file.inuse" } artrie_files($node)),
		"$label: after REINDEX and a clean stop the index's new file is not marked in use");
}

done_testing();
