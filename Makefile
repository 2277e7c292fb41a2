# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The pcpu_mempool authors
#
# Thin wrappers around meson, ninja and the scripts in devtools/.
# The build itself is described in meson.build; nothing here compiles.
#
#   make deps         install the Debian 12 packages (as root), or print
#                     the apt command to run
#   make build        meson setup (first time) + ninja, in $(BUILDDIR)
#                     (JOBS=N: at most N parallel jobs)
#   make test         deps + build + the unit tests and fast autotests
#   make demo         deps + build + the demo
#   make bench        deps + build + the full benchmark suite, results
#                     and the targets table in $(BUILDDIR)/bench
#   make bench-smoke  deps + build + every benchmark case, briefly, in
#                     $(BUILDDIR)/bench-smoke (no judgement)
#   make bench-docs   copy the last `make bench` run's tables and figures
#                     into the programmer's guide (runs nothing)
#   make docs         API reference (Doxygen) and guides (Sphinx), with
#                     warnings as errors, into $(BUILDDIR)/doc
#   make hugepages    make sure $(HUGEPAGES) 2 MiB hugepages are free (root;
#                     optional; never lowers the host's count)
#   make hugepages-release  give back the pages make hugepages added
#   make test-asan    ASan+UBSan build in $(ASAN_BUILDDIR), unit and fast
#                     tests on --no-huge
#   make valgrind     deps + build + valgrind memcheck over the unit tests
#   make fuzz         clang libFuzzer build in $(FUZZ_BUILDDIR), each target
#                     for $(FUZZ_SECONDS) s
#   make stress       deps + build + the stress-tests suite, each test for
#                     $(STRESS_SECONDS) s
#   make fault-sweep  every failure point made to fail in every scenario
#                     (-Dfault_injection=true, ASan) in $(FAULT_BUILDDIR)
#   make soak         deps + build + allocator, pools, RCU, lcore registration
#                     and dpdk-flowcount together for $(SOAK_MINUTES) min,
#                     audited every second; memory curve in $(BUILDDIR)/soak
#   make deb          Debian packages into $(DEB_DIR) (dpkg-buildpackage), then
#                     lintian and the installed-package tests
#   make check-abi    abidiff of the library against devtools/abi/ (build-abi/)
#   make abi-update   regenerate devtools/abi/ (commit it with the ABI change)
#   make clean        remove $(BUILDDIR)
#
# Variables: BUILDDIR (default build), WERROR (true|false, default false),
# MESON_OPTS (extra -D options for meson setup), HUGEPAGES (default 512),
# ASAN_BUILDDIR (build-asan), FUZZ_BUILDDIR (build-fuzz), FUZZ_SECONDS (60),
# STRESS_SECONDS (60), DEB_DIR (build-deb), FAULT_BUILDDIR (build-fault),
# SOAK_MINUTES (1).

BUILDDIR   ?= build
WERROR     ?= false
MESON_OPTS ?=
HUGEPAGES  ?= 512
ASAN_BUILDDIR  ?= build-asan
FUZZ_BUILDDIR  ?= build-fuzz
FUZZ_SECONDS   ?= 60
STRESS_SECONDS ?= 60
DEB_DIR        ?= build-deb
FAULT_BUILDDIR ?= build-fault
SOAK_MINUTES   ?= 1

SRCDIR     := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
DEVTOOLS   := $(SRCDIR)/devtools
DOCDIR     := $(BUILDDIR)/doc

# Debian's python3 is the one with sphinx and matplotlib (a pyenv python
# earlier on PATH does not have them); sphinx-build already uses it.
SPHINXBUILD ?= sphinx-build
DOXYGEN     ?= doxygen

# every target runs its steps in order, even under make -j
.NOTPARALLEL:

.PHONY: all deps build test demo bench bench-smoke bench-docs docs doc-api \
	doc-guides hugepages hugepages-release clean help test-asan valgrind \
	fuzz stress check-abi abi-update deb fault-sweep soak

all: build

help:
	@sed -n '/^#   make deps/,/^#   make clean/p' $(firstword $(MAKEFILE_LIST)) | \
		sed 's/^#   //'

deps:
	@$(DEVTOOLS)/deps.sh

# meson setup once; later runs only change werror when asked to, so an
# unchanged tree is a no-op for ninja.
build:
	@if [ ! -f $(BUILDDIR)/build.ninja ]; then \
		echo "meson setup $(BUILDDIR) -Dwerror=$(WERROR) $(MESON_OPTS)"; \
		meson setup $(BUILDDIR) -Dwerror=$(WERROR) $(MESON_OPTS) || exit 1; \
	elif ! meson introspect $(BUILDDIR) --buildoptions 2>/dev/null | \
		grep -q '"name": "werror", "value": $(WERROR),'; then \
		echo "meson configure $(BUILDDIR) -Dwerror=$(WERROR)"; \
		meson configure $(BUILDDIR) -Dwerror=$(WERROR) || exit 1; \
	fi
	ninja -C $(BUILDDIR) $(if $(JOBS),-j$(JOBS))

test: deps build
	@if [ ! -x $(DEVTOOLS)/run-tests.sh ]; then \
		echo "make test: devtools/run-tests.sh is missing (the test harness work adds it)" >&2; \
		exit 1; \
	fi
	$(DEVTOOLS)/run-tests.sh $(BUILDDIR)

# dpdk-flowcount on the shipped capture (devtools/demo.sh).
demo: deps build
	$(DEVTOOLS)/demo.sh $(BUILDDIR)

bench: deps build
	@$(MAKE) --no-print-directory bench-run BENCH_MODE=full

bench-smoke: deps build
	@$(MAKE) --no-print-directory bench-run BENCH_MODE=smoke

.PHONY: bench-run
bench-run:
	@if [ ! -x $(DEVTOOLS)/bench.sh ]; then \
		echo "make bench: devtools/bench.sh is missing (the benchmark work adds it)" >&2; \
		exit 1; \
	fi
	BUILDDIR=$(BUILDDIR) $(DEVTOOLS)/bench.sh $(BENCH_MODE)

# the guide's bench_results.rst and figures, from $(BUILDDIR)/bench
bench-docs:
	BUILDDIR=$(BUILDDIR) $(DEVTOOLS)/bench.sh docs

docs: doc-api doc-guides doc-check
	@echo "API reference: $(DOCDIR)/api/html/index.html"
	@echo "Guides:        $(DOCDIR)/guides/html/index.html"

# FAIL_ON_WARNINGS in doxy-api.conf makes doxygen exit non-zero on any
# warning; they are printed to stderr.
doc-api:
	@mkdir -p $(DOCDIR)/api
	PCPU_SRCDIR=$(SRCDIR) PCPU_APIDIR=$(abspath $(DOCDIR)/api) \
		$(DOXYGEN) $(SRCDIR)/doc/api/doxy-api.conf

# the guide's bad-input table and pcpu_bad_input_autotest: same rows
.PHONY: doc-check
doc-check:
	$(DEVTOOLS)/check-error-table.py $(SRCDIR)

doc-guides:
	@mkdir -p $(DOCDIR)/guides
	$(SPHINXBUILD) -W --keep-going -q -b html \
		-d $(DOCDIR)/guides/.doctrees \
		$(SRCDIR)/doc/guides $(DOCDIR)/guides/html

hugepages:
	@$(DEVTOOLS)/hugepages.sh reserve $(HUGEPAGES)

hugepages-release:
	@$(DEVTOOLS)/hugepages.sh release

# Robustness gates (see each script's header).
test-asan: deps
	WERROR=$(WERROR) $(DEVTOOLS)/test-asan.sh $(ASAN_BUILDDIR)

valgrind: deps build
	$(DEVTOOLS)/valgrind.sh $(BUILDDIR)

fuzz: deps
	FUZZ_BUILDDIR=$(FUZZ_BUILDDIR) $(DEVTOOLS)/fuzz.sh $(FUZZ_SECONDS)

stress: deps build
	PCPU_STRESS_SECONDS=$(STRESS_SECONDS) $(DEVTOOLS)/run-tests.sh \
		$(BUILDDIR) --suite stress-tests

# the library with failure points, in its own ASan build directory
fault-sweep: deps
	WERROR=$(WERROR) $(DEVTOOLS)/fault-sweep.sh $(FAULT_BUILDDIR)

# devtools/soak.py: fails on an audit failure, an error or memory growth
soak: deps build
	$(DEVTOOLS)/soak.py --minutes $(SOAK_MINUTES) --build $(BUILDDIR)

# from a clean copy of the tree: the build tree is not used
deb: deps
	$(DEVTOOLS)/test-packages.sh $(DEB_DIR)

# ABI: a fresh build of the library alone in build-abi/, fixed options
check-abi: deps
	$(DEVTOOLS)/check-abi.sh

abi-update: deps
	$(DEVTOOLS)/check-abi.sh --update

clean:
	@if [ -n "$(BUILDDIR)" ] && [ "$(BUILDDIR)" != "/" ]; then \
		echo "rm -rf $(BUILDDIR)"; rm -rf $(BUILDDIR); \
	fi
