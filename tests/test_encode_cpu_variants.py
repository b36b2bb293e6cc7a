"""The str transcoders a narrower CPU would run, in the extension itself.

orcodec picks its UTF-8 transcoder at run time (AVX-512 VBMI2, AVX2 blocks with
AVX-512 BW tails, AVX2 blocks, SSSE3 steps); a test run takes only the widest the
machine has. ``ORCODEC_DISABLE_CPU_FEATURES`` turns detected features off, so the
str storage tests (every kind, every length around each block size, escapes and
lone surrogates at every position, against orjson and ormsgpack) run again in a
child process for each narrower path.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent

# Each narrower path, as the features turned off to reach it.
VARIANTS = {
    "avx512bw": "avx512vbmi2",
    "avx2": "avx512vbmi2,avx512bw",
    "ssse3": "avx512vbmi2,avx512bw,avx2",
}


@pytest.mark.parametrize("variant", VARIANTS)
def test_str_storage_on_each_narrower_path(variant):
    env = dict(os.environ, ORCODEC_DISABLE_CPU_FEATURES=VARIANTS[variant])
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-x",
            "-p",
            "no:cacheprovider",
            str(HERE / "test_encode_str_storage.py"),
        ],
        env=env,
        cwd=HERE.parent,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert " passed" in result.stdout and "failed" not in result.stdout, result.stdout[-2000:]
