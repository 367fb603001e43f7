# chash: consistent hashing for PostgreSQL, built with PGXS.
#
# Layout: install scripts in sql/, C in src/, regression inputs in
# test/sql/, isolation specs in test/specs/, all expected outputs in
# expected/ (regress and isolation test names are kept distinct).
#
#   make demo    set up, build, install, and walk through a session on a
#                throwaway cluster
#   make test    set up, build, install, and run every test suite, in
#                lanes side by side on throwaway clusters
#   make test-quick
#                the edit loop: a build with warnings as errors, the unit
#                tests, the regression and isolation suites
#   make bench, make figures, make fuzz
#                speed against peers, the balance figures, the fuzzers
#   make test-versions
#                every suite against each PostgreSQL major buildable here
#   make deb, make dist
#                Debian packages for the installed majors; a PGXN tarball
#   make && make install && make installcheck
#                the usual PGXS targets, against any running server

EXTENSION = chash
# the version of chash.control, which the library and the packages carry too
CHASH_VERSION := $(shell sed -n "s/^default_version = '\(.*\)'$$/\1/p" $(dir $(lastword $(MAKEFILE_LIST)))chash.control)
MODULE_big = chash
# src/ in folders by layer (src/README.md)
OBJS = $(patsubst %.c,%.o,$(sort $(wildcard src/*.c src/*/*.c src/*/*/*.c)))
# SQL: the released versions' scripts are frozen in sql/ (sql/released.sha256
# names each one and the commit it was frozen at); make writes the install
# script of the version in development and its update from the previous
# version from the sources in sql/src/, in this order (schema.sql and
# catalog.sql only in the install script), and the hand-written part of the
# update in sql/updates/ (see doc/development.md)
CHASH_SQL_FIRST = sql/src/checks.sql
CHASH_SQL_SOURCES = $(addprefix sql/src/,common.sql catalog_triggers.sql hashing.sql \
	rings.sql routing.sql introspection.sql planning.sql reports.sql load.sql rebalance.sql rebalance_copies.sql tokens.sql pictures.sql \
	imports.sql export.sql export_clients.sql export_systems.sql export_plan.sql export_plan_config.sql export_plan_cassandra.sql migration.sql online_moves.sql views.sql grants.sql)
CHASH_SQL_INSTALL = sql/src/schema.sql $(CHASH_SQL_FIRST) sql/src/catalog.sql $(CHASH_SQL_SOURCES)
CHASH_SQL_PART := $(wildcard sql/updates/*--$(CHASH_VERSION).sql)
CHASH_SQL_PREVIOUS := $(patsubst sql/updates/%--$(CHASH_VERSION).sql,%,$(CHASH_SQL_PART))
DATA_built = sql/chash--$(CHASH_VERSION).sql sql/chash--$(CHASH_SQL_PREVIOUS)--$(CHASH_VERSION).sql
DATA = $(filter-out $(DATA_built),$(wildcard sql/chash--*.sql))
PG_CPPFLAGS = -I$(srcdir)/src -DCHASH_VERSION='"$(CHASH_VERSION)"'
# ketama reproduces clients' single-precision arithmetic: no fused multiply-adds
PG_CFLAGS = -ffp-contract=off
SHLIB_LINK = -lz -lnettle

REGRESS = hash_functions api ring_admin lookup key_types fastpath ketama placement profiles planning ring_switch ring_set reporting load shard_load rebalance allocate_tokens transactions cache_memory errors privileges import_checks pg_partitions export export_plan export_plan_config notify hostile search_path online_moves upgrade routing_memory
# test/bin/run-suites.sh gives each lane's pg_regress an output directory of its own
CHASH_OUTPUTDIR ?= .
REGRESS_OPTS = --inputdir=test --outputdir=$(CHASH_OUTPUTDIR) --load-extension=chash
ISOLATION = cache_visibility cache_statement cache_snapshots cache_per_ring ring_size_race ring_change_locks serializable
ISOLATION_OPTS = --inputdir=test --outputdir=$(CHASH_OUTPUTDIR) --load-extension=chash

EXTRA_CLEAN = results output_iso regression.diffs regression.out

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs 2>/dev/null)
ifneq ($(wildcard $(PGXS)),)
include $(PGXS)
else
# Before `make setup` has installed postgresql-server-dev there is no PGXS;
# setup, demo and test install it first and then build in a sub-make.
all install installcheck:
	@echo "PGXS not found: run 'make setup' first (or set PG_CONFIG)" >&2; exit 1
endif

sql/chash--$(CHASH_VERSION).sql: sql/build.sh $(CHASH_SQL_INSTALL)
	sh sql/build.sh install $(CHASH_VERSION) $(CHASH_SQL_INSTALL) >$@.tmp
	mv $@.tmp $@

sql/chash--$(CHASH_SQL_PREVIOUS)--$(CHASH_VERSION).sql: sql/build.sh $(CHASH_SQL_FIRST) $(CHASH_SQL_PART) $(CHASH_SQL_SOURCES)
	sh sql/build.sh update $(CHASH_SQL_PREVIOUS) $(CHASH_VERSION) $(CHASH_SQL_FIRST) $(CHASH_SQL_PART) $(CHASH_SQL_SOURCES) >$@.tmp
	mv $@.tmp $@

# every object depends on every header (PGXS tracks no header changes)
$(OBJS): $(wildcard src/*/*.h src/*/*/*.h)

.PHONY: setup demo test test-quick figures bench fuzz test-versions deb dist

# Debian packages the project needs, installed only when missing
setup:
	test/bin/setup.sh

demo: setup
	test/bin/install.sh
	test/bin/with-cluster.sh psql -X -v ON_ERROR_STOP=1 -q -f test/demo.sql

test: setup
	test/bin/install.sh
	test/bin/run-suites.sh

# not PGXS's check, which tells users to run installcheck: see
# doc/development.md
test-quick: setup
	test/bin/quick.sh

# the balance and placement figures of README, and chash_allocate_tokens's
# of doc/benchmarks.md (not part of make test)
figures: setup
	test/bin/install.sh
	test/bin/with-cluster.sh test/figures/balance_figures.sh
	test/bin/with-cluster.sh test/figures/placement_figures.sh
	test/bin/with-cluster.sh test/figures/token_allocation.sh

# speed, side by side with peers (not part of make test): see README.  The
# cluster takes huge pages where the machine has them reserved
# (vm.nr_hugepages), and dynamic shared memory, rings shared across
# backends among it, from its main shared memory (doc/benchmarks.md)
bench: setup
	test/bin/install.sh
	CHASH_SERVER_OPTIONS="-c huge_pages=try -c min_dynamic_shared_memory=128MB" \
		test/bin/with-cluster.sh test/bench/bench.sh
	test/bin/with-cluster.sh test/bench/move_online.sh

# libFuzzer harnesses of the pure ring code under AddressSanitizer and UBSan
# (not part of make test): CHASH_FUZZ_SECONDS a harness (default 60, about
# 5 minutes in all); see test/fuzz/run.sh
fuzz:
	test/fuzz/run.sh

# every suite against each PostgreSQL major that can be built here from its
# source package, into a cache outside the tree (not part of make test)
test-versions:
	test/bin/versions.sh

# Debian packages postgresql-NN-chash for the installed majors, in build/deb
deb:
	test/bin/deb.sh

# the PGXN distribution of the committed tree, in build/
dist:
	mkdir -p build
	git archive --format=tar.gz --prefix=chash-$(CHASH_VERSION).0/ \
		-o build/chash-$(CHASH_VERSION).0.tar.gz HEAD
