# vmlab: the two commands that matter are `make test` and `make reproduce`.
# Everything runs from a project-local virtualenv (.venv) built on first use.

SHELL    := /bin/bash
PYTHON   ?= python3
VENV     ?= .venv
CARGO    ?= cargo
VPY      := $(VENV)/bin/python
VPIP     := $(VENV)/bin/pip
MATURIN  := $(VENV)/bin/maturin
VMLAB    := $(VENV)/bin/vmlab
# The trace `make reproduce` captures, and the report it writes.
TRACE    ?= traces/matmul.vmt
REPORT   ?= report/index.html
# Build products of `make reproduce` (inside cargo's ignored target folder).
BUILD    ?= target/reproduce
# S1's grid in `make reproduce`: `standard` (the four workloads' small
# traces, 10 M-reference prefixes, a few minutes) is what has been run end
# to end; `whole` (the whole traces of at least 100 M references, the
# paper's regime, issue 20) captures about 40 minutes of traces on first
# use and sweeps for longer: `make reproduce S1_GRID=whole`.
S1_GRID  ?= standard
# Where vmlab keeps what it makes from its workloads (S1 traces under
# traces/s1/, native builds under build/workloads/). Outside make it is the
# user's cache folder (~/.cache/vmlab); from the checkout it stays in cargo's
# ignored target folder, so `make` never writes into ~ and a clone is
# self-contained. Override with `make ... VMLAB_CACHE_DIR=DIR`.
export VMLAB_CACHE_DIR ?= $(CURDIR)/target/vmlab-cache

.PHONY: test reproduce bench develop venv cargo-test pytest test-install fmt clean help traces-s1 traces-s1-small

help:
	@echo "make test       build the engine, run the Rust tests (release) and the Python tests"
	@echo "make reproduce  capture real traces with valgrind, run every preset and every study, write $(REPORT)"
	@echo "make bench      throughput benchmarks (bench/run.sh)"
	@echo "make fmt        format the Rust code (cargo fmt, rustfmt.toml)"
	@echo "make test-install  only the install test: the wheel in a fresh venv, run from elsewhere (part of make test)"
	@echo "make traces-s1-small / traces-s1   capture the S1 workload traces (small / full) into \$$VMLAB_CACHE_DIR/traces/s1/"

# -- environment ---------------------------------------------------------------
# The stamp depends on pyproject.toml so a changed dependency list reinstalls.
$(VENV)/.stamp: pyproject.toml
	test -x $(VPY) || $(PYTHON) -m venv $(VENV)
	$(VPIP) install -q --disable-pip-version-check "maturin>=1.9.4,<2"
	touch $@

venv: $(VENV)/.stamp

# Builds the extension in release mode and installs vmlab (with its test
# extras: pytest, pandas, polars, pyarrow, matplotlib) into the venv.
develop: $(VENV)/.stamp
	VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(VENV))/bin:$$PATH \
		$(MATURIN) develop --release --extras test

# -- tests ---------------------------------------------------------------------
# The property tests draw their random cases from this seed, so `make test`
# (and CI) runs the same cases every time and a failure reproduces; explore
# others with `make test PROPTEST_RNG_SEED=<any u64>`.
PROPTEST_RNG_SEED ?= 20261122
cargo-test:
	PROPTEST_RNG_SEED=$(PROPTEST_RNG_SEED) $(CARGO) test --workspace --profile test-fast

pytest: develop
	$(VENV)/bin/pytest -q tests/python

# Only the install test (tests/python/test_install.py, also part of `pytest`):
# the wheel, built after `develop` so cargo compiles nothing and only packs
# it, installed with no extras into a fresh venv outside the checkout, and
# run from another folder.
test-install: develop
	$(VENV)/bin/pytest -q -m install tests/python

# The workspace's Rust code in its one style (rustfmt.toml).
fmt:
	$(CARGO) fmt --all

test: develop cargo-test pytest

# -- the reproduction ----------------------------------------------------------
# A small real program (traces/src/matmul.c: blocked matrix multiply,
# quicksort), compiled natively and run under valgrind's lackey: about 28
# million references, a minute to capture. (GCC's cc1 on even a small file
# gives ~250 million and takes over ten minutes.)
$(BUILD)/matmul: traces/src/matmul.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -o $@ $<

$(TRACE): $(BUILD)/matmul | develop
	@mkdir -p $(dir $@)
	@command -v valgrind >/dev/null || { echo "make reproduce needs valgrind (apt-get install valgrind)" >&2; exit 2; }
	$(VMLAB) trace -o $@ -- $(BUILD)/matmul

# Every study that exists: S1 on the four S1 workloads' traces at
# $(S1_GRID) (captured on first use), S2 from seed 000's primitives, S3's multiprocessor
# simulation, S4 from seed 004's copy routines, S5 from the lmbench-like
# programs captured with every process (on first use, about a minute) and
# replayed on the SA-1100, then the report, which links them.
reproduce: develop $(TRACE)
	$(VMLAB) trace info $(TRACE)
	$(VMLAB) reproduce s1 --grid $(S1_GRID) --report $(dir $(REPORT))s1
	$(VMLAB) reproduce s2 --report $(dir $(REPORT))s2
	$(VMLAB) reproduce s3 --report $(dir $(REPORT))s3
	$(VMLAB) reproduce s4 --report $(dir $(REPORT))s4
	$(VMLAB) reproduce s5 --report $(dir $(REPORT))s5
	$(VMLAB) report --trace $(TRACE) --out $(REPORT)
	@echo "report: $(REPORT)"

# -- S1 workload traces (python/vmlab/workload_sources/README.md) -------------
# $(VMLAB_CACHE_DIR)/traces/s1/<name>-<size>.vmt for the compiler, database,
# bigfoot and sparse workloads; each is built and captured only if its file
# is missing.
traces-s1-small: develop
	$(VPY) -m vmlab.workloads small

traces-s1: develop
	$(VPY) -m vmlab.workloads full

bench: develop
	bash bench/run.sh

clean:
	rm -rf $(VENV) report $(BUILD)
