"""Run orjson's, ormsgpack's and msgpack-python's own test suites against orcodec.

The drop-in promise is that code written and tested against orjson or ormsgpack keeps
passing when it imports orcodec instead. This script checks it with the peers' own tests:
it downloads the source distributions of the pinned versions (requirements-dev.txt) with
pip, runs each suite once as shipped (against the installed peer) and once with orcodec
injected as the peer's module (``sys.modules["orjson"] = orcodec``, by a pytest plugin
loaded before collection; msgpack-python's gets ``orcodec.msgpack`` and its submodules
``exceptions`` and ``ext``), and prints the failures of both runs side by side.

The bar: orcodec fails no test the peer passes, apart from the ones listed in ALLOWED
below with their reason (a function's ``__module__`` being literally the peer's name, which
no alias can satisfy, and the deviations listed in doc/compatibility.md). The exit status
is 1 when it is not met, 2 when a suite could not be obtained or run.

Nothing of the peers is kept in the repository: the suites are fetched at run time into
``--workdir`` (default ``target/peer-suites``, git-ignored) and reused on the next run.

orjson's tests read their fixtures from a ``data/`` directory that its sdist does not
ship; it is rebuilt here from the shared fixtures (``ORCODEC_FIXTURES`` or
``../shared/fixtures``): the JSON conformance sets, and the benchmark documents compressed
as the tests expect. ormsgpack's sdist ships no tests: the script then tries the tagged
source archive on GitHub, and ``--ormsgpack-tests DIR`` points it at a checkout's
``tests/`` directory instead.

msgpack-python's sdist ships its tests; they run from a copy outside the unpacked source
tree, whose ``msgpack/`` directory (uncompiled) would otherwise shadow the installed
module.

CPython's ``Lib/test/test_json`` against ``orcodec.json`` runs too (``--only json`` runs
it alone): see tools/stdlib_json_suite.py.

    python tools/peer_suites.py [--only orjson|ormsgpack|msgpack|json] [--workdir DIR] [--ormsgpack-tests DIR]
"""

from __future__ import annotations

import argparse
import io
import lzma
import os
import re
import shutil
import subprocess
import sys
import tarfile
import textwrap
import urllib.request
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# Failures with orcodec that are accepted: node id (without parametrization) -> reason.
ALLOWED: dict[str, dict[str, str]] = {
    "orjson": {
        "test/test_api.py::TestApi::test_dumps_module_str": "checks dumps.__module__ == 'orjson'",
        "test/test_api.py::TestApi::test_loads_module_str": "checks loads.__module__ == 'orjson'",
        "test/test_fragment.py::TestFragment::test_fragment_repr": "checks the repr names orjson.Fragment",
    },
    "ormsgpack": {
        "tests/test_api.py::test_packb_module_str": "checks packb.__module__ == 'ormsgpack.ormsgpack'",
        "tests/test_api.py::test_unpackb_module_str": "checks unpackb.__module__ == 'ormsgpack.ormsgpack'",
        # The signatures bind the same calls; their text lists orcodec's own keywords too.
        "tests/test_api.py::test_packb_signature": "checks the signature text; packb also takes numpy_ext_code",
        "tests/test_api.py::test_unpackb_signature": "checks the signature text; unpackb also takes numpy_ext_code, "
        "type, strict and dec_hook",
        # One Fragment class serves both formats and takes any content when made, as
        # orjson's must (orjson's own tests make Fragments of invalid JSON); packb
        # refuses a Fragment that is not exactly one MessagePack value instead.
        "tests/test_api.py::test_invalid_data": "expects Fragment(invalid MessagePack) to raise when made",
        "tests/test_fragment.py::test_fragment": "expects Fragment(two values) to raise when made",
    },
    # Each is a deviation listed in doc/msgpack-python.md.
    "msgpack": {
        "test/test_limits.py::test_nest_limit_1024": "packs 1024 nested lists; orcodec's walker nests at most 255",
        "test/test_unpack.py::test_unpacker_reinit_clears_partial_state": "expects ext_hook to run for an "
        "incomplete value; orcodec builds a value once it is whole",
        "test/test_except.py::test_unpacker_should_not_crash_after_exception": "expects the stream to resume "
        "inside a value that failed; orcodec drops a failed value whole",
    },
}


@dataclass
class Suite:
    name: str  # the peer's module name, also its PyPI name
    tests: str  # the test directory inside the source tree
    archive: str  # the tagged source on GitHub, tried when the sdist ships no tests
    target: str = "orcodec"  # what is injected as the peer's module
    submodules: tuple[str, ...] = ()  # the peer's submodules, injected as target's
    isolated: bool = False  # build the sdist's metadata in an isolated environment


SUITES = {
    "orjson": Suite("orjson", "test", "https://github.com/ijl/orjson/archive/refs/tags/{version}.tar.gz"),
    "ormsgpack": Suite(
        "ormsgpack", "tests", "https://github.com/ormsgpack/ormsgpack/archive/refs/tags/{version}.tar.gz"
    ),
    "msgpack": Suite(
        "msgpack",
        "test",
        "https://github.com/msgpack/msgpack-python/archive/refs/tags/v{version}.tar.gz",
        target="orcodec.msgpack",
        submodules=("exceptions", "ext"),
        isolated=True,
    ),
}


def pinned_version(name: str) -> str:
    for line in (REPO / "requirements-dev.txt").read_text().splitlines():
        m = re.match(rf"^{re.escape(name)}==([^\s#;]+)", line.strip())
        if m:
            return m.group(1)
    raise SystemExit(f"peer-suites: {name} is not pinned in requirements-dev.txt")


def fixtures_dir() -> Path:
    env = os.environ.get("ORCODEC_FIXTURES")
    return Path(env) if env else REPO.parent / "shared" / "fixtures"


def download_sdist(suite: Suite, version: str, workdir: Path) -> Path:
    """The unpacked sdist of ``suite`` at ``version`` (downloaded once)."""
    root = workdir / f"{suite.name}-{version}"
    if root.is_dir():
        return root
    downloads = workdir / "downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    # pip prepares the metadata of a source distribution it downloads, which runs the
    # build backend (maturin, installed in this venv): without build isolation, so that
    # pip does not build maturin itself from source.
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:"]
    if not suite.isolated:
        cmd.append("--no-build-isolation")
    cmd += ["--dest", str(downloads), f"{suite.name}=={version}"]
    subprocess.run(cmd, check=True, env=env)
    (archive,) = downloads.glob(f"{suite.name}-{version}.tar.gz")
    with tarfile.open(archive) as tar:
        tar.extractall(workdir, filter="data")
    return root


def find_tests(suite: Suite, version: str, root: Path, override: Path | None) -> Path | None:
    """The directory holding the suite's tests, placed inside ``root``."""
    tests = root / suite.tests
    if override is not None:
        if tests.exists() or tests.is_symlink():
            shutil.rmtree(tests) if tests.is_dir() and not tests.is_symlink() else tests.unlink()
        shutil.copytree(override, tests)
        return tests
    if tests.is_dir() and any(tests.glob("test_*.py")):
        return tests
    print(f"peer-suites: the {suite.name} {version} sdist ships no tests; trying the tagged source archive")
    try:
        with urllib.request.urlopen(suite.archive.format(version=version), timeout=60) as response:
            data = response.read()
    except OSError as exc:
        print(f"peer-suites: could not fetch {suite.archive.format(version=version)}: {exc}")
        return None
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        prefix = tar.getnames()[0].split("/")[0]
        members = [m for m in tar.getmembers() if m.name.startswith(f"{prefix}/{suite.tests}/")]
        for member in members:
            member.name = member.name[len(prefix) + 1 :]
        tar.extractall(root, members=members, filter="data")
    return tests if any(tests.glob("test_*.py")) else None


def orjson_data(root: Path) -> None:
    """orjson's ``data/`` fixture directory, from the shared fixtures."""
    data = root / "data"
    if data.is_dir():
        return
    shared = fixtures_dir()
    if not (shared / "json-conformance").is_dir():
        print(f"peer-suites: shared fixtures not found at {shared}: orjson's fixture tests are skipped")
        return
    data.mkdir()
    for sub in ("jsonchecker", "roundtrip", "transform"):
        (data / sub).symlink_to(shared / "json-conformance" / sub)
    # JSONTestSuite's parsing cases; orjson's tests read the three largest
    # compressed.
    parsing = data / "parsing"
    parsing.mkdir()
    for case in (shared / "json-conformance" / "parsing").iterdir():
        (parsing / case.name).symlink_to(case)
    for name in (
        "i_structure_500_nested_arrays.json",
        "n_structure_100000_opening_arrays.json",
        "n_structure_open_array_object.json",
    ):
        if (parsing / name).exists():
            (parsing / f"{name}.xz").write_bytes(lzma.compress((parsing / name).read_bytes()))
    for name in ("twitter.json", "github.json", "canada.json", "citm_catalog.json", "blns.txt"):
        if (shared / name).is_file():
            (data / f"{name}.xz").write_bytes(lzma.compress((shared / name).read_bytes()))


def alias_plugin(workdir: Path, module: str, target: str = "orcodec", submodules: tuple[str, ...] = ()) -> Path:
    """A directory with a pytest plugin that makes ``import <module>`` give ``target``
    (and ``import <module>.<sub>`` give ``target.<sub>``)."""
    plugin_dir = workdir / f"alias-{module}"
    plugin_dir.mkdir(parents=True, exist_ok=True)
    (plugin_dir / "orcodec_alias.py").write_text(
        textwrap.dedent(
            f"""\
            # Loaded by pytest before the tests are collected: every `import {module}`
            # that follows gets orcodec.
            import importlib
            import sys

            sys.modules[{module!r}] = importlib.import_module({target!r})
            for sub in {submodules!r}:
                sys.modules[{module!r} + "." + sub] = importlib.import_module({target!r} + "." + sub)
            """
        )
    )
    return plugin_dir


def run_pytest(root: Path, tests: Path, report: Path, plugin_dir: Path | None) -> tuple[set[str], int]:
    """Failed and errored node ids of one run, and the number of tests run."""
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--tb=no", "-rN"]
    cmd += [f"--junitxml={report}", "-o", "junit_family=xunit1", str(tests.relative_to(root))]
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if plugin_dir is not None:
        cmd[3:3] = ["-p", "orcodec_alias"]
        env["PYTHONPATH"] = str(plugin_dir)
    try:
        subprocess.run(cmd, cwd=root, env=env, timeout=1800, stdout=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise SystemExit(f"peer-suites: pytest in {root} did not finish in 30 minutes") from None
    if not report.is_file():
        raise SystemExit(f"peer-suites: pytest in {root} wrote no report (did it crash?)")
    failed, total = set(), 0
    for case in ET.parse(report).iter("testcase"):
        total += 1
        if case.find("failure") is not None or case.find("error") is not None:
            path = case.get("file") or case.get("classname", "").replace(".", "/") + ".py"
            cls = case.get("classname", "").rsplit(".", 1)[-1]
            module_cls = "" if path.endswith(f"{cls}.py") else f"::{cls}"
            failed.add(f"{path}{module_cls}::{case.get('name')}")
    return failed, total


def base_id(node: str) -> str:
    return node.split("[", 1)[0]


def check(suite: Suite, args) -> int:
    version = pinned_version(suite.name)
    workdir = Path(args.workdir).resolve()
    root = download_sdist(suite, version, workdir)
    override = Path(args.ormsgpack_tests).resolve() if suite.name == "ormsgpack" and args.ormsgpack_tests else None
    tests = find_tests(suite, version, root, override)
    if tests is None:
        print(f"peer-suites: no {suite.name} test suite: NOT RUN (see --ormsgpack-tests)")
        return 2
    if suite.name == "orjson":
        orjson_data(root)
    if suite.name == "msgpack":
        # Out of the source tree, whose msgpack/ would shadow the installed module.
        run_root = workdir / f"{suite.name}-{version}-run"
        if not run_root.is_dir():
            shutil.copytree(tests, run_root / suite.tests)
            # Its own rootdir: pytest would otherwise take this repository's settings.
            (run_root / "pytest.ini").write_text("[pytest]\n")
        root, tests = run_root, run_root / suite.tests
    peer_failed, peer_total = run_pytest(root, tests, workdir / f"{suite.name}-peer.xml", None)
    ours_failed, ours_total = run_pytest(
        root,
        tests,
        workdir / f"{suite.name}-orcodec.xml",
        alias_plugin(workdir, suite.name, suite.target, suite.submodules),
    )
    allowed = ALLOWED[suite.name]
    only_ours = sorted(ours_failed - peer_failed)
    unexpected = [n for n in only_ours if base_id(n) not in allowed]
    print(f"\n=== {suite.name} {version}: its own suite ({tests.relative_to(root)}/)")
    print(f"with {suite.name}: {len(peer_failed)} of {peer_total} failed")
    for node in sorted(peer_failed):
        print(f"    {node}")
    print(f"with orcodec as {suite.name}: {len(ours_failed)} of {ours_total} failed")
    for node in sorted(ours_failed):
        if node in peer_failed:
            note = ""
        elif node in unexpected:
            note = "  NEW"
        else:
            note = f"  (allowed: {allowed[base_id(node)]})"
        print(f"    {node}{note}")
    fixed = sorted(peer_failed - ours_failed)
    if fixed:
        print(f"failing with {suite.name} only: {len(fixed)}")
    verdict = "OK" if not unexpected else f"{len(unexpected)} failures beyond the peer's and the allowed ones"
    print(f"{suite.name}: {verdict}")
    return 1 if unexpected else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=sorted(SUITES) + ["json"])
    parser.add_argument("--workdir", default=str(REPO / "target" / "peer-suites"))
    parser.add_argument("--ormsgpack-tests", help="a directory with ormsgpack's tests (its sdist ships none)")
    args = parser.parse_args()
    statuses = [check(SUITES[name], args) for name in sorted(SUITES) if args.only in (None, name)]
    if args.only in (None, "json"):
        # CPython's own test_json against orcodec.json (tools/stdlib_json_suite.py).
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import stdlib_json_suite

        statuses.append(stdlib_json_suite.main())
    return max(statuses)


if __name__ == "__main__":
    sys.exit(main())
