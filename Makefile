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
#   make test-versions   build and run pytest on each of OTHER_PYTHONS that is
#                installed (on PATH or under pyenv), each in .venv-X.Y; part
#                of `make test`: code following CPython's struct layouts
#                differs by version.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
DEPS   := $(VENV)/.deps-installed
BENCH_DEPS := $(VENV)/.bench-deps-installed
export VIRTUAL_ENV := $(abspath $(VENV))
export PATH := $(VIRTUAL_ENV)/bin:$(HOME)/.cargo/bin:$(PATH)

OTHER_PYTHONS ?= 3.12 3.13

FUZZ_TIME       ?= 300
FUZZ_SHORT_TIME ?= 10

.PHONY: all setup build test test-versions cargo-test pytest bench bench-quick fuzz fuzz-short clean

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
	$(MAKE) test-versions

# Each version gets its own venv and cargo target directory (a build for one
# version would otherwise invalidate the other's).
test-versions:
	@for v in $(OTHER_PYTHONS); do \
	  py=$$(command -v python$$v 2>/dev/null); \
	  if [ -z "$$py" ] || ! "$$py" -c pass 2>/dev/null; then \
	    py=$$(ls -d "$${PYENV_ROOT:-$$HOME/.pyenv}"/versions/$$v.*/bin/python$$v 2>/dev/null | tail -1); \
	  fi; \
	  if [ -z "$$py" ]; then echo "test-versions: no Python $$v installed, not tested"; continue; fi; \
	  echo "test-versions: $$py"; \
	  venv=$(CURDIR)/.venv-$$v; \
	  [ -f $$venv/.deps-installed ] || { "$$py" -m venv $$venv \
	    && $$venv/bin/python -m pip install --quiet --upgrade pip \
	    && $$venv/bin/python -m pip install --quiet -r requirements-dev.txt \
	    && touch $$venv/.deps-installed; } || exit 1; \
	  VIRTUAL_ENV=$$venv CARGO_TARGET_DIR=$(CURDIR)/target/python$$v \
	    $$venv/bin/maturin develop --release --quiet || exit 1; \
	  $$venv/bin/python -m pytest -q -p no:cacheprovider || exit 1; \
	done

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
	rm -rf $(VENV) .venv-3.* target fuzz/target
