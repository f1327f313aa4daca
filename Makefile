# artrie: an adaptive radix trie index access method for PostgreSQL.

EXTENSION = artrie
EXTVERSION = 0.4.0
MODULE_big = artrie
# The install script of the first version and the update scripts from
# each version to the next: CREATE EXTENSION of a later version runs the
# first, then the updates (src/artrie--0.1.0.sql says more).
DATA = $(wildcard src/artrie--*.sql)
PGFILEDESC = "artrie - adaptive radix trie index access method"

# The PostgreSQL side: SQL surface, pager, I/O backends, and the trie core
# without its in-memory test store.
TRIE_SRCS = $(filter-out src/trie/trie_memstore.c,$(wildcard src/trie/*.c))
PG_SRCS = $(wildcard src/*.c src/am/*.c src/func/*.c src/wal/*.c src/pager/*.c src/io/*.c)
OBJS = $(patsubst %.c,%.o,$(PG_SRCS) $(TRIE_SRCS))

PG_CPPFLAGS = -I$(srcdir)/src
# Each object's header dependencies, written by the compiler beside it
# (src/am/am_scan.d), so that a changed header rebuilds what includes it.
# Calls from one of artrie's files to another bind inside the library
# (-Bsymbolic: the linker makes them direct calls and its globals' GOT
# loads addresses, where each call went through a PLT stub), and calls
# into the server go through the GOT without a stub (-fno-plt; the
# server loads libraries with RTLD_NOW, so nothing is bound lazily).  No
# symbol of artrie's is also the server's or a library's it links.
# The functions every read statement runs are marked hot in the source
# (pg_attribute_hot, ART_HOT): at -O2 GCC puts them in .text.hot, which
# the linker's default script gathers from every object into one run of
# pages (docs/DESIGN.md, "Scans").
PG_CFLAGS = -MMD -MP -fno-plt
SHLIB_LINK = -luring -Wl,-Bsymbolic

# pg_regress over sql/ and expected/.
REGRESS = $(patsubst sql/%.sql,%,$(sort $(wildcard sql/*.sql)))

# Isolation specs, when there are any.
ISOLATION = $(patsubst test/specs/%.spec,%,$(sort $(wildcard test/specs/*.spec)))
ISOLATION_OPTS = --inputdir=test

# TAP tests with PostgreSQL::Test::Cluster.
TAP_TESTS = 1
PROVE_TESTS = $(sort $(wildcard test/t/*.pl))

EXTRA_CLEAN = build $(OBJS:.o=.d)

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

-include $(OBJS:.o=.d)

# The JIT's bitcode of a source is rebuilt whenever its object is.
$(OBJS:.o=.bc): %.bc: %.o

# The trie core's own build: unit tests, sanitizers, benchmark.
include $(srcdir)/src/trie/trie.mk

# The libFuzzer harnesses (trie core, page and journal decoders).
include $(srcdir)/test/fuzz/fuzz.mk
