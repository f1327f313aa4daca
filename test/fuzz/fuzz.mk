# fuzz.mk: the libFuzzer harnesses, included by the top-level Makefile
# after src/trie/trie.mk (whose variables it uses).  Like the trie core's
# own build, everything here compiles without PostgreSQL headers and
# writes under build/.
#
#   make fuzz-run       every harness for FUZZ_SECONDS each (default 20),
#                       on the committed seeds (test/fuzz/corpus/<name>)
#                       plus what earlier runs found (build/fuzz/corpus)
#   make fuzz-regress   every committed input (seeds and the crashes found
#                       so far, test/fuzz/regress/<name>) once
#
# Harnesses: trie (operations against a model), page (the pager's page
# and meta checks, and art_verify over damaged trie pages), wal (the
# decoders of artrie's WAL record payloads).  A crash, or an input that runs over 10 s,
# leaves its input in build/fuzz/; after the fix, it goes under
# test/fuzz/regress/<name>/.

FUZZ_SECONDS ?= 20
FUZZ_NAMES = trie page wal
FUZZ_BUILD = build/fuzz
FUZZ_FLAGS = $(TRIE_STD) -O1 -g -Wall -Wextra -Werror -Wmissing-prototypes \
	-fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all $(TRIE_INC)
PAGER_PURE_SRCS = $(srcdir)/src/pager/pager_page.c
PAGER_PURE_HDRS = $(srcdir)/src/pager/pager_page.h
WAL_PURE_SRCS = $(srcdir)/src/wal/wal_record.c
WAL_PURE_HDRS = $(srcdir)/src/wal/wal_record.h
FUZZ_HDRS = $(TRIE_HDRS) $(TRIE_TEST_HDRS) $(PAGER_PURE_HDRS) $(WAL_PURE_HDRS) \
	$(srcdir)/test/fuzz/fuzz_common.h

# Longest input per harness.
FUZZ_MAXLEN_trie = 4096
FUZZ_MAXLEN_page = 8200
FUZZ_MAXLEN_wal = 16500

.PHONY: fuzz-build fuzz-run fuzz-regress

$(FUZZ_BUILD)/fuzz_trie: $(TRIE_CORE_SRCS) $(srcdir)/test/fuzz/fuzz_trie.c $(srcdir)/test/unit/trie_check.c $(FUZZ_HDRS)
	@mkdir -p $(FUZZ_BUILD)
	$(CLANG) $(FUZZ_FLAGS) -o $@ $(TRIE_CORE_SRCS) \
		$(srcdir)/test/fuzz/fuzz_trie.c $(srcdir)/test/unit/trie_check.c

$(FUZZ_BUILD)/fuzz_page: $(TRIE_CORE_SRCS) $(PAGER_PURE_SRCS) $(srcdir)/test/fuzz/fuzz_page.c $(srcdir)/test/unit/trie_check.c $(FUZZ_HDRS)
	@mkdir -p $(FUZZ_BUILD)
	$(CLANG) $(FUZZ_FLAGS) -o $@ $(TRIE_CORE_SRCS) $(PAGER_PURE_SRCS) \
		$(srcdir)/test/fuzz/fuzz_page.c $(srcdir)/test/unit/trie_check.c

$(FUZZ_BUILD)/fuzz_wal: $(WAL_PURE_SRCS) $(srcdir)/test/fuzz/fuzz_wal.c $(FUZZ_HDRS)
	@mkdir -p $(FUZZ_BUILD)
	$(CLANG) $(FUZZ_FLAGS) -o $@ $(WAL_PURE_SRCS) $(srcdir)/test/fuzz/fuzz_wal.c

fuzz-build: $(addprefix $(FUZZ_BUILD)/fuzz_,$(FUZZ_NAMES))

fuzz-run: fuzz-build
	@set -e; for h in $(FUZZ_NAMES); do \
		mkdir -p $(FUZZ_BUILD)/corpus/$$h; \
		echo "fuzz_$$h: $(FUZZ_SECONDS) s"; \
		$(FUZZ_BUILD)/fuzz_$$h -max_total_time=$(FUZZ_SECONDS) \
			-max_len=$$(case $$h in trie) echo $(FUZZ_MAXLEN_trie);; page) echo $(FUZZ_MAXLEN_page);; wal) echo $(FUZZ_MAXLEN_wal);; esac) \
			-timeout=10 -print_final_stats=1 -artifact_prefix=$(FUZZ_BUILD)/ \
			$(FUZZ_BUILD)/corpus/$$h $(srcdir)/test/fuzz/corpus/$$h; \
	done

fuzz-regress: fuzz-build
	@set -e; for h in $(FUZZ_NAMES); do \
		dirs=""; \
		for d in $(srcdir)/test/fuzz/corpus/$$h $(srcdir)/test/fuzz/regress/$$h; do \
			if [ -d $$d ]; then dirs="$$dirs $$d"; fi; \
		done; \
		echo "fuzz_$$h: replaying$$dirs"; \
		$(FUZZ_BUILD)/fuzz_$$h -runs=0 -timeout=10 $$dirs; \
	done
