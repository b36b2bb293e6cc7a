# Everything runs in a .venv at the repository root, made from the system
# Python; the extension is built in release mode into it.
#
#   make test    set up, build, run cargo test and pytest
#   make bench   set up, build, run the side-by-side benchmark (the main job)

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
DEPS   := $(VENV)/.deps-installed
export VIRTUAL_ENV := $(abspath $(VENV))
export PATH := $(VIRTUAL_ENV)/bin:$(HOME)/.cargo/bin:$(PATH)

.PHONY: all setup build test cargo-test pytest bench bench-quick clean

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

bench: build
	$(PY) bench/compare.py

bench-quick: build
	$(PY) bench/compare.py --quick

clean:
	rm -rf $(VENV) target
