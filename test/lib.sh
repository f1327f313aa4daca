# test/lib.sh: shared by test/run-all.sh and bench/*.sh.
#
# Installs what artrie needs on Debian 12 (when run as root), builds and
# installs the extension, and runs a throwaway PostgreSQL 15 cluster as the
# postgres OS user (or as the calling user when not root).  Source it, then
# call the functions; artrie_cleanup runs on exit.

PG_MAJOR=15
PG_BIN=/usr/lib/postgresql/$PG_MAJOR/bin
PG_CONFIG=$PG_BIN/pg_config
PGXS_DIR=/usr/lib/postgresql/$PG_MAJOR/lib/pgxs
ARTRIE_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Debian packages the build, the tests and the demo use.
ARTRIE_PACKAGES="build-essential clang libclang-rt-14-dev postgresql-$PG_MAJOR
postgresql-server-dev-$PG_MAJOR liburing-dev postgresql-$PG_MAJOR-pgtap
libtap-parser-sourcehandler-pgtap-perl libipc-run-perl wamerican-insane
wbritish-insane wbulgarian util-linux procps postgresql-$PG_MAJOR-repack
postgresql-$PG_MAJOR-partman"

# Print a progress line.
say() { printf '== %s\n' "$*"; }

# Run a command as the cluster's OS user.
as_pg() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

# Install the Debian packages that are missing (root only).
artrie_install_packages() {
	local missing=() p
	for p in $ARTRIE_PACKAGES; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" != 0 ]; then
		echo "missing Debian packages: ${missing[*]}" >&2
		echo "install them as root (apt-get install ${missing[*]}) or run this script as root" >&2
		exit 1
	fi
	say "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# Build artrie and install it where the cluster's server will find it.
#
# As root, into the system's PostgreSQL.  As another user who cannot write
# there, or when ARTRIE_PRIVATE_INSTALL is set (two working trees tested at
# once), into a private copy of the installation under $ARTRIE_TMP/inst:
# the server binaries are copied (PostgreSQL finds its share and lib
# directories relative to its own executable) and everything else is
# linked, so nothing outside the work directory changes.
artrie_build_install() {
	say "building artrie"
	make -C "$ARTRIE_SRC" -s PG_CONFIG="$PG_CONFIG" >/dev/null ||
		{ echo "the build failed" >&2; exit 1; }
	local pkglibdir sharedir
	pkglibdir=$($PG_CONFIG --pkglibdir)
	sharedir=$($PG_CONFIG --sharedir)
	if [ -z "${ARTRIE_PRIVATE_INSTALL:-}" ] && [ -w "$pkglibdir" ] && [ -w "$sharedir/extension" ]; then
		make -C "$ARTRIE_SRC" -s PG_CONFIG="$PG_CONFIG" install >/dev/null ||
			{ echo "make install failed" >&2; exit 1; }
		return
	fi
	say "installing into a private copy of $PG_BIN"
	local inst=$ARTRIE_TMP/inst f
	mkdir -p "$inst$PG_BIN" "$inst$pkglibdir" "$inst$sharedir/extension"
	cp -p "$PG_BIN"/* "$inst$PG_BIN/"
	for f in "$pkglibdir"/*; do ln -s "$f" "$inst$pkglibdir/"; done
	for f in "$sharedir"/*; do
		[ "$(basename "$f")" = extension ] || ln -s "$f" "$inst$sharedir/"
	done
	for f in "$sharedir"/extension/*; do ln -s "$f" "$inst$sharedir/extension/"; done
	# The JIT bitcode directory is a link to the system's: no bitcode here.
	make -C "$ARTRIE_SRC" -s PG_CONFIG="$PG_CONFIG" DESTDIR="$inst" with_llvm=no install >/dev/null ||
		{ echo "make install into $inst failed" >&2; exit 1; }
	PG_BIN=$inst$PG_BIN
}

# A TCP port nobody listens on.
artrie_free_port() {
	local port
	for port in $(seq 54320 54420); do
		if ! (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null; then
			echo "$port"
			return
		fi
	done
	echo "no free port in 54320-54420" >&2
	exit 1
}

# Make the scratch directory for this run, readable and writable by the
# cluster's user; everything a run leaves goes there.
artrie_make_tmp() {
	ARTRIE_TMP=$(mktemp -d /tmp/artrie.XXXXXX)
	chmod 755 "$ARTRIE_TMP"
	trap artrie_cleanup EXIT
	trap 'exit 130' INT TERM
}

# Create and start the throwaway cluster; sets PGHOST, PGPORT, PGDATA.
# Extra postgresql.conf lines may be given as arguments.
artrie_start_cluster() {
	export PGDATA=$ARTRIE_TMP/data PGHOST=$ARTRIE_TMP/sock
	PGPORT=$(artrie_free_port)
	export PGPORT PGUSER=$(if [ "$(id -u)" = 0 ]; then echo postgres; else id -un; fi)
	mkdir -p "$PGHOST"
	[ "$(id -u)" = 0 ] && chown -R postgres: "$ARTRIE_TMP"
	say "creating a cluster in $PGDATA on port $PGPORT"
	as_pg "$PG_BIN/initdb" -D "$PGDATA" -E UTF8 --locale=C.UTF-8 -A trust >"$ARTRIE_TMP/initdb.log" 2>&1 ||
		{ cat "$ARTRIE_TMP/initdb.log"; exit 1; }
	{
		echo "port = $PGPORT"
		echo "listen_addresses = ''"
		echo "unix_socket_directories = '$PGHOST'"
		echo "shared_preload_libraries = 'artrie'"
		echo "max_prepared_transactions = 10"
		local line
		for line in "$@"; do echo "$line"; done
	} | as_pg tee -a "$PGDATA/postgresql.conf" >/dev/null
	as_pg "$PG_BIN/pg_ctl" -D "$PGDATA" -l "$ARTRIE_TMP/server.log" -w -t 60 start >/dev/null ||
		{ cat "$ARTRIE_TMP/server.log"; exit 1; }
}

# Stop the cluster and remove the scratch directory.
artrie_cleanup() {
	local rc=$?
	if [ -n "${PGDATA:-}" ] && [ -f "$PGDATA/postmaster.pid" ]; then
		as_pg "$PG_BIN/pg_ctl" -D "$PGDATA" -m immediate -w stop >/dev/null 2>&1
	fi
	if [ -n "${ARTRIE_TMP:-}" ] && [ -z "${ARTRIE_KEEP:-}" ]; then
		rm -rf "$ARTRIE_TMP"
	fi
	exit $rc
}
