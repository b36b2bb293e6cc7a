# Everything runs in a .venv at the repository root, made from the system
# Python; the extension is built in release mode into it.
#
#   make test    set up, build, run cargo test and pytest
#   make bench   set up, build, run the side-by-side benchmark (the main job)
#   make fuzz    set up, build, run every fuzz target FUZZ_TIME seconds (needs
#                nightly; installs cargo-fuzz if missing). `make test` ends
#                with the same run for FUZZ_SHORT_TIME seconds per target.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
DEPS   := $(VENV)/.deps-installed
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

setup: $(DEPS)

build: $(DEPS)
	maturin develop --release --quiet

cargo-test:
	cargo test -p orcodec-core --release

pytest: build
	$(PY) -m pytest

test: build cargo-test
	$(PY) -m pytest
	fuzz/run.sh $(FUZZ_SHORT_TIME)

fuzz: build
	fuzz/run.sh $(FUZZ_TIME)

fuzz-short: build
	fuzz/run.sh $(FUZZ_SHORT_TIME)

bench: build
	$(PY) bench/compare.py

bench-quick: build
	$(PY) bench/compare.py --quick

clean:
	rm -rf $(VENV) target fuzz/target
