# Everything runs in a .venv at the repository root, made from the system
# Python; the extension is built in release mode into it.
#
#   make test    set up, build, run cargo test and pytest
#   make bench   set up, build, run the side-by-side benchmark (the main job),
#                the memory benchmark, and draw doc/benchmark.png
#   make bench-quick   the same as a smoke run of about a minute
#   make fuzz    set up, build, run every fuzz target FUZZ_TIME seconds (needs
#                nightly; installs cargo-fuzz if missing). `make test` ends
#                with the same run for FUZZ_SHORT_TIME seconds per target.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
DEPS   := $(VENV)/.deps-installed
BENCH_DEPS := $(VENV)/.bench-deps-installed
export VIRTUAL_ENV := $(abspath $(VENV))
export PATH := $(VIRTUAL_ENV)/bin:$(HOME)/.cargo/bin:$(PATH)

FUZZ_TIME       ?= 300
FUZZ_SHORT_TIME ?= 10

.PHONY: all setup build test cargo-test pytest bench bench-quick fuzz fuzz-short clean

all: test

$(DEPS): requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

$(BENCH_DEPS): bench/requirements.txt $(DEPS)
	$(PY) -m pip install --quiet -r bench/requirements.txt
	touch $@

setup: $(DEPS)

build: $(DEPS)
	maturin develop --release --quiet

cargo-test:
	cargo test -p orcodec-core

pytest: build
	$(PY) -m pytest

test: build cargo-test
	$(PY) -m pytest
	fuzz/run.sh $(FUZZ_SHORT_TIME)

fuzz: build
	fuzz/run.sh $(FUZZ_TIME)

fuzz-short: build
	fuzz/run.sh $(FUZZ_SHORT_TIME)

bench: build $(BENCH_DEPS)
	$(PY) bench/compare.py
	$(PY) bench/memory.py
	$(PY) bench/chart.py

bench-quick: build $(BENCH_DEPS)
	$(PY) bench/compare.py --quick --json bench/results/quick.json
	$(PY) bench/memory.py --mb 10 --json bench/results/memory-quick.json
	$(PY) bench/chart.py --json bench/results/quick.json --out bench/results/quick.png

clean:
	rm -rf $(VENV) target fuzz/target
