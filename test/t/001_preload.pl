# artrie works only from shared_preload_libraries: without it, CREATE
# EXTENSION and any load of the library fail with an error that says how to
# fix it; with it, the extension can be created and dropped.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('preload');
$node->init;
$node->start;

my ($ret, $stdout, $stderr) =
  $node->psql('postgres', 'CREATE EXTENSION artrie');
isnt($ret, 0, 'CREATE EXTENSION fails without shared_preload_libraries');
like($stderr, qr/artrie must be loaded via shared_preload_libraries/,
	'the error says why');
like($stderr, qr/shared_preload_libraries = 'artrie'/,
	'the hint names the setting');

($ret, $stdout, $stderr) = $node->psql('postgres', "LOAD 'artrie'");
isnt($ret, 0, 'LOAD fails the same way');
like($stderr, qr/shared_preload_libraries/, 'LOAD names the setting');

is($node->safe_psql('postgres',
		"SELECT count(*) FROM pg_extension WHERE extname = 'artrie'"),
	'0', 'the failed CREATE EXTENSION left nothing behind');

$node->append_conf('postgresql.conf', "shared_preload_libraries = 'artrie'");
$node->restart;

$node->safe_psql('postgres', 'CREATE EXTENSION artrie');
is($node->safe_psql('postgres',
		"SELECT amtype FROM pg_am WHERE amname = 'artrie'"),
	'i', 'with the library preloaded, the access method exists');
$node->safe_psql('postgres', 'DROP EXTENSION artrie');
is($node->safe_psql('postgres',
		"SELECT count(*) FROM pg_am WHERE amname = 'artrie'"),
	'0', 'DROP EXTENSION removes it');

$node->stop;
done_testing();
