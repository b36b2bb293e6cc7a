#!/usr/bin/env bash
# Runs every fuzz target for SECONDS seconds each: the cargo-fuzz targets on
# orcodec-core (nightly, AddressSanitizer) and the atheris targets on the
# built extension. Called by `make fuzz` (long) and `make test` (short).
# Inputs that grow coverage go to fuzz/corpus/<target>/ (not committed);
# a crash leaves its input in fuzz/artifacts/<target>/ and fails the run.
#
#   fuzz/run.sh [--skip-without-nightly] SECONDS
#
# cargo-fuzz needs a nightly toolchain. Without one the run fails, unless
# --skip-without-nightly is given (`make test`): then nothing is fuzzed, a
# notice says so, the exit status is 0 and, if SKIP_LOG names a file, a line
# is added to it for the caller's summary.
set -euo pipefail
cd "$(dirname "$0")/.."
skip_without_nightly=0
if [ "${1:-}" = "--skip-without-nightly" ]; then
    skip_without_nightly=1
    shift
fi
seconds="${1:?usage: fuzz/run.sh [--skip-without-nightly] SECONDS}"
python="${PYTHON:-.venv/bin/python}"
cargo_fuzz_version=0.13.2
seeds=fixtures/fuzz

if ! cargo +nightly --version >/dev/null 2>&1; then
    if [ "$skip_without_nightly" = 1 ]; then
        why="no nightly Rust toolchain (install one with: rustup toolchain install nightly)"
        {
            echo "********************************************************************"
            echo "fuzz: SKIPPED, nothing was fuzzed: $why"
            echo "********************************************************************"
        } >&2
        if [ -n "${SKIP_LOG:-}" ]; then
            echo "the fuzz run (fuzz/run.sh): $why" >>"$SKIP_LOG"
        fi
        exit 0
    fi
    echo "fuzz: cargo-fuzz needs a nightly toolchain (rustup toolchain install nightly)" >&2
    exit 1
fi
if ! cargo fuzz --version 2>/dev/null | grep -q " $cargo_fuzz_version\$"; then
    echo "fuzz: installing cargo-fuzz $cargo_fuzz_version from crates.io"
    cargo install cargo-fuzz --locked --version "$cargo_fuzz_version"
fi

summary=()
run() {  # name, log, command...
    local name="$1" log="$2"
    shift 2
    mkdir -p "fuzz/corpus/$name" "fuzz/artifacts/$name"
    if ! "$@" >"$log" 2>&1; then
        tail -n 40 "$log" >&2
        echo "fuzz: $name FAILED (input saved under fuzz/artifacts/$name/, log $log)" >&2
        exit 1
    fi
    local runs
    runs=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$log" | tail -n 1 | awk '{print $2}')
    summary+=("$(printf '%-24s %10s executions in %ss' "$name" "${runs:-?}" "$seconds")")
}
flags=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048)
logs=$(mktemp -d)

cargo +nightly fuzz build --fuzz-dir fuzz
for spec in json_scanner:json json_pull:json json_partial:json pointer:json json_stream:json msgpack_reader:msgpack msgpack_pull:msgpack msgpack_scan:msgpack transcode:json,msgpack number_format:number string_format:string utf8_decode:json writer_roundtrip: numpy_ext:numpy-ext text_forms:text-forms duration:durations; do
    target="${spec%%:*}" seed="${spec#*:}" dirs=()
    for s in ${seed//,/ }; do dirs+=("$seeds/$s"); done
    # cargo-fuzz itself puts crashes in fuzz/artifacts/<target>/.
    run "$target" "$logs/$target.log" cargo +nightly fuzz run --fuzz-dir fuzz "$target" \
        "fuzz/corpus/$target" "${dirs[@]}" -- "${flags[@]}"
done
for spec in loads_bytes:json json_pieces:json unpackb_bytes:msgpack msgpack_python:msgpack stream_chunks:msgpack transcode:json,msgpack structured:json,msgpack roundtrip: numpy_ext:numpy typed:typed typed_classes: ndarray:ndarray dataclass_dumps: wire_names: decimal_text:text-forms stdlib_json:json; do
    target="${spec%%:*}" seed="${spec#*:}" dirs=()
    for s in ${seed//,/ }; do dirs+=("$seeds/$s"); done
    run "py_$target" "$logs/py_$target.log" "$python" "fuzz/python/$target.py" \
        "fuzz/corpus/py_$target" "${dirs[@]}" "${flags[@]}" -artifact_prefix="fuzz/artifacts/py_$target/"
done

echo "fuzz: every target ran ${seconds}s without a failure"
printf '  %s\n' "${summary[@]}"
rm -rf "$logs"
