# Everything runs in a .venv at the repository root, made from the system
# Python; the extension is built in release mode into it. Needs python3 (with
# its venv module), a stable Rust toolchain with rustfmt and clippy, and
# network access to PyPI (and crates.io for cargo-fuzz).
#
#   make test    set up, build, then: lint, cargo test, pytest, a short fuzz
#                run, and pytest on OTHER_PYTHONS. The fuzz step needs a nightly
#                toolchain: without one it is skipped, with a notice at the end
#                (FUZZ_NIGHTLY=required makes that an error, as .ci/run does).
#                Steps that were skipped are listed at the end.
#   make lint    cargo fmt --check, cargo clippy -D warnings, ruff check, ruff
#                format --check; every check runs, the target fails if any did.
#   make bench   set up, build, run the side-by-side benchmark (the main job),
#                the numpy round-trip benchmark, the typed-decoding benchmark
#                and the memory benchmark, and draw the chart; everything goes
#                to bench/results/ (not tracked), so the tree stays unchanged.
#   make publish-chart   copy the chart of the last `make bench` to
#                doc/benchmark.png, the chart README.md shows.
#   make bench-quick   the same as a smoke run of a few minutes
#   make bench-versions   the quick side-by-side table on each of
#                OTHER_PYTHONS (their venvs and builds as test-versions makes them)
#   make fuzz    set up, build, run every fuzz target FUZZ_TIME seconds (needs
#                nightly, fails without it; installs cargo-fuzz if missing).
#   make peer-suites   set up, build, then run orjson's, ormsgpack's and
#                msgpack-python's own test suites (fetched from PyPI at run
#                time, never kept in the tree) with the peer and with orcodec
#                (orcodec.msgpack for msgpack-python's) in its place, and
#                compare their failures (tools/peer_suites.py; a few minutes,
#                not part of `make test`). ormsgpack's sdist ships no tests:
#                PEER_SUITES_ARGS="--ormsgpack-tests DIR" names a checkout's.
#                Also CPython's own Lib/test/test_json against orcodec.json
#                (the interpreter's copy; tools/stdlib_json_suite.py).
#   make loadtest   set up, build, serve bench/loadtest_app.py with uvicorn
#                and load it with wrk on loopback (orcodec, orjson/ormsgpack,
#                stdlib): zero non-2xx responses and flat server RSS, a table
#                of requests per second (about 2.5 minutes; needs Debian's wrk,
#                which .ci/run installs). `make test` runs a few-second version
#                (tests/test_integrations_loadtest.py). Also times FastAPI's
#                serialization paths (bench/fastapi_paths.py).
#   make test-long   set up, build, then the long versions of tests whose
#                normal run is short: JSONUnpacker reading a 500 MB stream
#                (made as it is read) with its peak memory flat
#                (ORCODEC_LONG_STREAM_MB; `make test` reads 32 MB).
#   make schemathesis   set up, build, then run schemathesis (every check)
#                for 10 minutes against the OpenAPI test app served by
#                uvicorn (tests/test_schema_openapi.py; `make test` runs it
#                for 20 s).
#   make test-versions   build and run pytest on each of OTHER_PYTHONS that is
#                installed (on PATH or under pyenv), each in .venv-X.Y; part
#                of `make test`: code following CPython's struct layouts
#                differs by version. With the main venv's Python (3.11 on
#                the project's machines) that is every supported CPython,
#                3.11 to 3.13.
#   make wheel   manylinux wheels (manylinux_2_17, linked with zig from PyPI)
#                for every supported CPython (WHEEL_PYTHONS), and the sdist,
#                into dist/; each wheel's policy is checked with auditwheel
#                (tools/release.py). Minutes per version: not part of make test.
#   make wheel-test   for each wheel in dist/ (WHEEL_PYTHONS): a fresh venv
#                with no Rust on PATH, the wheel and the test requirements
#                installed, and the test suite run from a copy of the tests
#                outside the source tree against the installed package.
#                Several minutes per version.
#   make release-check   the versions agree (Cargo.toml, pyproject.toml,
#                __version__, the CHANGELOG); the wheel for the main venv's
#                Python and the sdist each install into a fresh venv, run the
#                README's examples and `python -m orcodec --version`.
#                RELEASE_FINAL=1 also requires the CHANGELOG's top entry to
#                be the version (no [Unreleased] section on top).
#
# Test data: everything the tests need is in the repository (fixtures/).
# The shared fixtures ($ORCODEC_FIXTURES, else ../shared/fixtures when it
# exists) are used in addition; `make test` ends with a line saying which.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
DEPS   := $(VENV)/.deps-installed
BENCH_DEPS := $(VENV)/.bench-deps-installed
RELEASE_DEPS := $(VENV)/.release-deps-installed
export VIRTUAL_ENV := $(abspath $(VENV))
export PATH := $(VIRTUAL_ENV)/bin:$(HOME)/.cargo/bin:$(PATH)

# 3.9 and 3.10 build (`make test-versions OTHER_PYTHONS="3.9 3.10"` runs their
# suites) but are not supported yet: see README, Install.
OTHER_PYTHONS ?= 3.12 3.13
# The CPython versions `make wheel` builds for and `make wheel-test` tests.
WHEEL_PYTHONS ?= 3.11 3.12 3.13
RELEASE_FINAL ?=

FUZZ_TIME       ?= 300
FUZZ_SHORT_TIME ?= 10
# `optional`: `make test` skips its fuzz step when no nightly toolchain is
# installed; `required`: it fails instead.
FUZZ_NIGHTLY    ?= optional

# Where `make test` lists the steps it skipped (a fresh list each run).
SKIPPED := $(CURDIR)/target/make-test-skipped.txt

.PHONY: all setup build lint test test-long test-versions bench-versions cargo-test pytest bench bench-quick publish-chart fuzz fuzz-short loadtest schemathesis clean peer-suites bench-parallel wheel wheel-test release-check

all: test

$(DEPS): requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

$(BENCH_DEPS): bench/requirements.txt $(DEPS)
	$(PY) -m pip install --quiet -r bench/requirements.txt
	touch $@

$(RELEASE_DEPS): requirements-release.txt $(DEPS)
	$(PY) -m pip install --quiet -r requirements-release.txt
	touch $@

setup: $(DEPS)

build: $(DEPS)
	maturin develop --release --quiet

cargo-test:
	cargo test -p orcodec-core

pytest: build
	$(PY) -m pytest

# Checks that need no build; every one runs, and the target fails if any did.
lint: $(DEPS)
	@status=0; \
	for tool in fmt clippy; do \
	  cargo $$tool --version >/dev/null 2>&1 || { \
	    echo "lint: cargo $$tool is not installed (rustup component add $$( [ $$tool = fmt ] && echo rustfmt || echo clippy))" >&2; \
	    status=1; }; \
	done; \
	for check in "cargo fmt --all --check" \
	             "cargo clippy --workspace --all-targets -- -D warnings" \
	             "$(PY) -m ruff check ." \
	             "$(PY) -m ruff format --check ."; do \
	  echo "lint: $$check"; \
	  $$check || { echo "lint: FAILED: $$check" >&2; status=1; }; \
	done; \
	exit $$status

test: lint build cargo-test
	@mkdir -p $(dir $(SKIPPED)) && rm -f $(SKIPPED)
	$(PY) -m pytest
	SKIP_LOG=$(SKIPPED) PYTHON=$(abspath $(PY)) fuzz/run.sh $(if $(filter required,$(FUZZ_NIGHTLY)),,--skip-without-nightly) $(FUZZ_SHORT_TIME)
	SKIP_LOG=$(SKIPPED) $(MAKE) test-versions
	@if [ -s $(SKIPPED) ]; then \
	  echo; echo "********************************************************************"; \
	  echo "make test passed, but these steps did NOT run:"; sed 's/^/  - /' $(SKIPPED); \
	  echo "********************************************************************"; \
	fi
	@$(PY) tests/corpora.py

# Each version gets its own venv and cargo target directory (a build for one
# version would otherwise invalidate the other's).
# For each of OTHER_PYTHONS that is installed: its venv (.venv-X.Y, created or
# refreshed when requirements-dev.txt changes) with a release build of
# orcodec, then RUN with $$venv and $$v set. Shared by test-versions and
# bench-versions.
define each_other_python
	@for v in $(OTHER_PYTHONS); do \
	  py=$$(command -v python$$v 2>/dev/null); \
	  if [ -z "$$py" ] || ! "$$py" -c pass 2>/dev/null; then \
	    py=$$(ls -d "$${PYENV_ROOT:-$$HOME/.pyenv}"/versions/$$v.*/bin/python$$v 2>/dev/null | tail -1); \
	  fi; \
	  if [ -z "$$py" ]; then \
	    echo "$@: no Python $$v installed, skipped"; \
	    [ -z "$$SKIP_LOG" ] || echo "$(1) on Python $$v: not installed (on PATH or under pyenv)" >> "$$SKIP_LOG"; \
	    continue; \
	  fi; \
	  echo "$@: $$py"; \
	  venv=$(CURDIR)/.venv-$$v; \
	  [ $$venv/.deps-installed -nt requirements-dev.txt ] || { "$$py" -m venv $$venv \
	    && $$venv/bin/python -m pip install --quiet --upgrade pip \
	    && $$venv/bin/python -m pip install --quiet -r requirements-dev.txt \
	    && touch $$venv/.deps-installed; } || exit 1; \
	  VIRTUAL_ENV=$$venv CARGO_TARGET_DIR=$(CURDIR)/target/python$$v \
	    $$venv/bin/maturin develop --release --quiet || exit 1; \
	  $(2) || exit 1; \
	done
endef

test-versions:
	$(call each_other_python,pytest,$$venv/bin/python -m pytest -q -p no:cacheprovider)

# The quick side-by-side table on each of OTHER_PYTHONS (bench/results/quick-X.Y.json).
bench-versions:
	$(call each_other_python,the quick benchmark,$$venv/bin/python bench/compare.py --quick --json bench/results/quick-$$v.json)

fuzz: build
	PYTHON=$(abspath $(PY)) fuzz/run.sh $(FUZZ_TIME)

PEER_SUITES_ARGS ?=
peer-suites: build
	$(PY) tools/peer_suites.py $(PEER_SUITES_ARGS)

fuzz-short: build
	PYTHON=$(abspath $(PY)) fuzz/run.sh $(FUZZ_SHORT_TIME)

# Results, memory figures and chart all go to bench/results/ (git-ignored).
bench: build $(BENCH_DEPS)
	$(PY) bench/compare.py --json bench/results/latest.json
	$(PY) bench/numpy_roundtrip.py --json bench/results/numpy.json
	$(PY) bench/typed.py --json bench/results/typed.json
	$(PY) bench/wire.py --json bench/results/wire.json
	$(PY) bench/memory.py --json bench/results/memory.json
	$(PY) bench/streams.py --json bench/results/streams.json
	$(PY) bench/dropins.py --json bench/results/dropins.json
	$(PY) bench/schema.py --json bench/results/schema.json
	$(PY) bench/gil_threshold.py --json bench/results/gil-threshold.json
	$(PY) bench/chart.py --json bench/results/latest.json --out bench/results/benchmark.png
	$(MAKE) --no-print-directory bench-parallel

# One worker against two: isolated interpreters (their own GIL is new in
# CPython 3.12), transcoding threads, threads of one interpreter and a
# process pool, on PARALLEL_PYTHON (built as test-versions builds it).
PARALLEL_PYTHON ?= 3.13
bench-parallel: OTHER_PYTHONS = $(PARALLEL_PYTHON)
bench-parallel:
	$(call each_other_python,the parallel benchmark,$$venv/bin/python bench/parallel.py $(PARALLEL_ARGS) --json bench/results/parallel-$$v.json)

# The README's chart is refreshed only on request, from a full `make bench`.
publish-chart:
	@test -f bench/results/benchmark.png || { echo "publish-chart: no bench/results/benchmark.png: run make bench first" >&2; exit 1; }
	cp bench/results/benchmark.png doc/benchmark.png
	@echo "doc/benchmark.png updated; update README.md's table from the same run (bench/results/latest.json)"

bench-quick: build $(BENCH_DEPS)
	$(PY) bench/compare.py --quick --json bench/results/quick.json
	$(PY) bench/numpy_roundtrip.py --quick --json bench/results/numpy-quick.json
	$(PY) bench/typed.py --quick --json bench/results/typed-quick.json
	$(PY) bench/wire.py --quick --json bench/results/wire-quick.json
	$(PY) bench/memory.py --mb 10 --cjk-mb 10 --json bench/results/memory-quick.json
	$(PY) bench/streams.py --quick --json bench/results/streams-quick.json
	$(PY) bench/dropins.py --quick --json bench/results/dropins-quick.json
	$(PY) bench/schema.py --quick --json bench/results/schema-quick.json
	$(PY) bench/gil_threshold.py --quick --json bench/results/gil-threshold-quick.json
	$(PY) bench/chart.py --json bench/results/quick.json --out bench/results/quick.png
	$(MAKE) --no-print-directory bench-parallel PARALLEL_ARGS=--quick

# Writes its results to bench/results/ (git-ignored) as well as printing them.
loadtest: build
	@command -v wrk >/dev/null || { echo "loadtest: wrk is not installed (Debian/Ubuntu: apt-get install -y wrk)" >&2; exit 2; }
	$(PY) bench/loadtest.py --json bench/results/loadtest.json
	$(PY) bench/fastapi_paths.py --json bench/results/fastapi_paths.json

LONG_STREAM_MB ?= 500
test-long: build
	ORCODEC_LONG_STREAM_MB=$(LONG_STREAM_MB) $(PY) -m pytest -q tests/test_json_unpacker.py -k memory_stays_flat

# schemathesis against the OpenAPI test app for 10 minutes (make test runs it for 20 s).
schemathesis: build
	ORCODEC_SCHEMATHESIS_TIME=600 ORCODEC_SCHEMATHESIS_EXAMPLES=200 $(PY) -m pytest -q tests/test_schema_openapi.py -k schemathesis

# Release artifacts (tools/release.py): not part of `make test`.
wheel: $(RELEASE_DEPS)
	$(PY) tools/release.py wheel --pythons $(WHEEL_PYTHONS)

wheel-test: $(RELEASE_DEPS)
	$(PY) tools/release.py wheel-test --pythons $(WHEEL_PYTHONS)

release-check: $(RELEASE_DEPS)
	$(PY) tools/release.py release-check $(if $(RELEASE_FINAL),--final,)

clean:
	rm -rf $(VENV) .venv-3.* target fuzz/target dist
