"""The release metadata says the truth: one version everywhere (Cargo.toml, which
pyproject.toml takes dynamically; the installed package's metadata and __version__; the
CHANGELOG's newest release), and the Python versions claimed (requires-python, the
classifiers) are the ones built and tested (tools/release.py, make test-versions)."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re

import corpora
import orcodec

ROOT = corpora.REPO_ROOT


def _release_tool():
    spec = importlib.util.spec_from_file_location("release", ROOT / "tools/release.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _pyproject() -> str:
    return (ROOT / "pyproject.toml").read_text(encoding="utf-8")


def test_one_version_everywhere():
    found = _release_tool().versions()
    version = found["Cargo.toml"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", version)
    assert found["pyproject.toml"] == "dynamic (Cargo.toml)"
    assert orcodec.__version__ == importlib.metadata.version("orcodec") == version
    assert found["CHANGELOG.md newest release"] == version
    assert found["CHANGELOG.md top"] in ("Unreleased", version)


def test_claimed_pythons_are_the_built_and_tested_ones():
    supported = _release_tool().SUPPORTED
    text = _pyproject()
    assert re.search(r'^requires-python = ">=(\d+\.\d+)"', text, re.M).group(1) == supported[0]
    classified = re.findall(r'"Programming Language :: Python :: (3\.\d+)"', text)
    assert classified == supported
    assert '"Programming Language :: Python :: Implementation :: CPython"' in text
    # make test runs the suite on the main venv's Python and on each of OTHER_PYTHONS:
    # together they are every supported version.
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    others = re.search(r"^OTHER_PYTHONS \?= (.*)$", makefile, re.M).group(1).split()
    assert set(others) <= set(supported)
    assert len(set(supported) - set(others)) == 1


def test_running_on_a_supported_python():
    import sys

    assert f"{sys.version_info.major}.{sys.version_info.minor}" in _release_tool().SUPPORTED
