# trie.mk: the trie core's own build, included by the top-level Makefile
# after PGXS.  Everything here compiles without PostgreSQL headers (only
# -I$(srcdir)/src) and writes under build/.
#
#   make unittest           gcc -O2 -Werror build of the unit and property
#                           tests (and of the page map's arithmetic,
#                           test_pagefmt), then run them (ART_TEST_SCALE=n
#                           for n times more property-test operations)
#   make unittest-sanitize  the same under clang ASan + UBSan
#   make unittest-shallow   the unit tests with ART_MAX_LOCKED_PAGES at 2,
#                           so that every path past two pages takes the
#                           ways around holding a long path locked
#   make trie-bench         the microbenchmark (BENCH_ARGS passed through)
#   make trie-dups          the trie's shape under repeated keys
#                           (bench/trie_dups.c; DUPS_ARGS passed through)
#   make trie-scan          prefix scans as an index scan reads them
#                           (bench/trie_scan.c; SCAN_ARGS passed through)
#   make trie-churn         pages under bench/space_churn.sh's churn
#                           (bench/trie_churn.c; CHURN_ARGS passed through)
#   make trie-paths         pages on a lookup's path after a bulk load of
#                           paths (bench/trie_paths.c; PATHS_ARGS passed
#                           through: FILE [N [ROWS [PLAIN]]]; PATHS_MODE
#                           bulk,insert,half,churn: how the entries
#                           come in)
#
# The fuzzers (the trie harness among them) are in test/fuzz/fuzz.mk.

TRIE_CORE_SRCS = $(filter-out $(srcdir)/src/trie/trie_memstore.c,$(wildcard $(srcdir)/src/trie/trie*.c)) \
	$(srcdir)/src/trie/trie_memstore.c
TRIE_HDRS = $(wildcard $(srcdir)/src/trie/*.h)
TRIE_TEST_SRCS = $(srcdir)/test/unit/test_trie.c $(srcdir)/test/unit/trie_check.c \
	$(srcdir)/test/unit/trie_pages.c
TRIE_TEST_HDRS = $(wildcard $(srcdir)/test/unit/*.h)
TRIE_BUILD = build/trie
TRIE_STD = -std=c99 -D_DEFAULT_SOURCE
TRIE_INC = -I$(srcdir)/src -I$(srcdir)/test/unit

TRIE_GCC_FLAGS = $(TRIE_STD) -O2 -g -Wall -Wextra -Werror -Wmissing-prototypes \
	-Wdeclaration-after-statement -Werror=vla -Wpointer-arith
TRIE_SAN_FLAGS = $(TRIE_STD) -O1 -g -fno-omit-frame-pointer \
	-fsanitize=address,undefined -fno-sanitize-recover=all
CLANG ?= clang-14

.PHONY: unittest unittest-sanitize unittest-shallow trie-bench trie-dups trie-scan trie-churn trie-paths

$(TRIE_BUILD)/test_trie: $(TRIE_CORE_SRCS) $(TRIE_HDRS) $(TRIE_TEST_SRCS) $(TRIE_TEST_HDRS)
	@mkdir -p $(TRIE_BUILD)
	gcc $(TRIE_GCC_FLAGS) $(TRIE_INC) -o $@ $(TRIE_CORE_SRCS) $(TRIE_TEST_SRCS)

$(TRIE_BUILD)/test_trie_shallow: $(TRIE_CORE_SRCS) $(TRIE_HDRS) $(TRIE_TEST_SRCS) $(TRIE_TEST_HDRS)
	@mkdir -p $(TRIE_BUILD)
	gcc $(TRIE_GCC_FLAGS) -DART_MAX_LOCKED_PAGES=2 $(TRIE_INC) -o $@ $(TRIE_CORE_SRCS) $(TRIE_TEST_SRCS)

$(TRIE_BUILD)/test_trie_san: $(TRIE_CORE_SRCS) $(TRIE_HDRS) $(TRIE_TEST_SRCS) $(TRIE_TEST_HDRS)
	@mkdir -p $(TRIE_BUILD)
	$(CLANG) $(TRIE_SAN_FLAGS) $(TRIE_INC) -o $@ $(TRIE_CORE_SRCS) $(TRIE_TEST_SRCS)

$(TRIE_BUILD)/trie_bench: $(TRIE_CORE_SRCS) $(TRIE_HDRS) $(srcdir)/bench/trie_bench.c
	@mkdir -p $(TRIE_BUILD)
	gcc $(TRIE_STD) -O2 -g -Wall -Wextra -Werror -I$(srcdir)/src -o $@ \
		$(TRIE_CORE_SRCS) $(srcdir)/bench/trie_bench.c

$(TRIE_BUILD)/trie_dups: $(TRIE_CORE_SRCS) $(TRIE_HDRS) $(TRIE_TEST_HDRS) $(srcdir)/test/unit/trie_pages.c $(srcdir)/bench/trie_dups.c
	@mkdir -p $(TRIE_BUILD)
	gcc $(TRIE_STD) -O2 -g -Wall -Wextra -Werror $(TRIE_INC) -o $@ \
		$(TRIE_CORE_SRCS) $(srcdir)/test/unit/trie_pages.c $(srcdir)/bench/trie_dups.c

$(TRIE_BUILD)/trie_scan: $(TRIE_CORE_SRCS) $(TRIE_HDRS) $(srcdir)/bench/trie_scan.c
	@mkdir -p $(TRIE_BUILD)
	gcc $(TRIE_STD) -O2 -g -Wall -Wextra -Werror -I$(srcdir)/src -o $@ \
		$(TRIE_CORE_SRCS) $(srcdir)/bench/trie_scan.c

$(TRIE_BUILD)/trie_churn: $(TRIE_CORE_SRCS) $(TRIE_HDRS) $(srcdir)/bench/trie_churn.c
	@mkdir -p $(TRIE_BUILD)
	gcc $(TRIE_STD) -O2 -g -Wall -Wextra -Werror -I$(srcdir)/src -o $@ \
		$(TRIE_CORE_SRCS) $(srcdir)/bench/trie_churn.c

$(TRIE_BUILD)/trie_paths: $(TRIE_CORE_SRCS) $(TRIE_HDRS) $(TRIE_TEST_HDRS) $(srcdir)/bench/trie_paths.c
	@mkdir -p $(TRIE_BUILD)
	gcc $(TRIE_STD) -O2 -g -Wall -Wextra -Werror $(TRIE_INC) -o $@ \
		$(TRIE_CORE_SRCS) $(srcdir)/bench/trie_paths.c

$(TRIE_BUILD)/test_pagefmt: $(srcdir)/src/pager/pager_page.c $(srcdir)/src/pager/pager_page.h $(TRIE_HDRS) $(srcdir)/test/unit/test_pagefmt.c
	@mkdir -p $(TRIE_BUILD)
	gcc $(TRIE_GCC_FLAGS) $(TRIE_INC) -o $@ $(srcdir)/src/pager/pager_page.c $(srcdir)/test/unit/test_pagefmt.c

$(TRIE_BUILD)/test_pagefmt_san: $(srcdir)/src/pager/pager_page.c $(srcdir)/src/pager/pager_page.h $(TRIE_HDRS) $(srcdir)/test/unit/test_pagefmt.c
	@mkdir -p $(TRIE_BUILD)
	$(CLANG) $(TRIE_SAN_FLAGS) $(TRIE_INC) -o $@ $(srcdir)/src/pager/pager_page.c $(srcdir)/test/unit/test_pagefmt.c

$(TRIE_BUILD)/test_fuzzy: $(TRIE_CORE_SRCS) $(TRIE_HDRS) $(srcdir)/test/unit/test_fuzzy.c
	@mkdir -p $(TRIE_BUILD)
	gcc $(TRIE_GCC_FLAGS) $(TRIE_INC) -o $@ $(TRIE_CORE_SRCS) $(srcdir)/test/unit/test_fuzzy.c

$(TRIE_BUILD)/test_fuzzy_san: $(TRIE_CORE_SRCS) $(TRIE_HDRS) $(srcdir)/test/unit/test_fuzzy.c
	@mkdir -p $(TRIE_BUILD)
	$(CLANG) $(TRIE_SAN_FLAGS) $(TRIE_INC) -o $@ $(TRIE_CORE_SRCS) $(srcdir)/test/unit/test_fuzzy.c

unittest: $(TRIE_BUILD)/test_trie $(TRIE_BUILD)/test_fuzzy $(TRIE_BUILD)/test_pagefmt
	$(TRIE_BUILD)/test_trie
	$(TRIE_BUILD)/test_fuzzy
	$(TRIE_BUILD)/test_pagefmt

# Fewer property-test operations under the sanitizers (they are ~10x slower).
unittest-sanitize: $(TRIE_BUILD)/test_trie_san $(TRIE_BUILD)/test_fuzzy_san $(TRIE_BUILD)/test_pagefmt_san
	ART_TEST_SEEDS=$${ART_TEST_SEEDS:-2} ART_TEST_OPS=$${ART_TEST_OPS:-250000} \
		ART_TEST_FAIL_KEYS=$${ART_TEST_FAIL_KEYS:-600} \
		ASAN_OPTIONS=detect_leaks=1 $(TRIE_BUILD)/test_trie_san
	ART_TEST_SEEDS=$${ART_TEST_SEEDS:-2} ASAN_OPTIONS=detect_leaks=1 \
		$(TRIE_BUILD)/test_fuzzy_san
	ASAN_OPTIONS=detect_leaks=1 $(TRIE_BUILD)/test_pagefmt_san

# Fewer property-test operations: the property tests run in unittest too.
unittest-shallow: $(TRIE_BUILD)/test_trie_shallow
	ART_TEST_SEEDS=$${ART_TEST_SEEDS:-2} ART_TEST_OPS=$${ART_TEST_OPS:-250000} \
		$(TRIE_BUILD)/test_trie_shallow

trie-bench: $(TRIE_BUILD)/trie_bench
	$(TRIE_BUILD)/trie_bench $(BENCH_ARGS)

trie-dups: $(TRIE_BUILD)/trie_dups
	$(TRIE_BUILD)/trie_dups $(DUPS_ARGS)

trie-scan: $(TRIE_BUILD)/trie_scan
	$(TRIE_BUILD)/trie_scan $(SCAN_ARGS)

trie-churn: $(TRIE_BUILD)/trie_churn
	$(TRIE_BUILD)/trie_churn $(CHURN_ARGS)

trie-paths: $(TRIE_BUILD)/trie_paths
	$(TRIE_BUILD)/trie_paths $(PATHS_ARGS)
