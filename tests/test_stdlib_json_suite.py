"""CPython's own Lib/test/test_json against orcodec.json, on the running interpreter
(tools/stdlib_json_suite.py; `make test-versions` runs it on each version): every test
the standard library passes, orcodec.json passes."""

import re
import subprocess
import sys

import pytest
from helpers import REPO_ROOT


def test_cpythons_test_json_passes_with_orcodec_json():
    tool = REPO_ROOT / "tools" / "stdlib_json_suite.py"
    run = subprocess.run([sys.executable, str(tool)], capture_output=True, text=True, timeout=300)
    if run.returncode == 2:
        pytest.skip(f"this interpreter has no test package: {run.stdout.strip()} {run.stderr.strip()}")
    counts = dict(re.findall(r"with (json|orcodec\.json): (\d+ of \d+) passed", run.stdout))
    assert run.returncode == 0, run.stdout + run.stderr
    total = counts["json"].split(" of ")[1]
    assert counts == {"json": f"{total} of {total}", "orcodec.json": f"{total} of {total}"}
    assert int(total) >= 121
