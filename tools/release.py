"""Release artifacts: build the wheels and the sdist, and check them as a user gets them.

    python tools/release.py wheel [--pythons 3.9 3.10 ...]
        manylinux wheels (POLICY, linked with zig) for each CPython, and the
        sdist, into dist/; every wheel's policy is checked with auditwheel.
    python tools/release.py wheel-test [--pythons ...] [--pytest-args ...]
        for each wheel in dist/: a fresh venv, the wheel and the test
        requirements installed, no Rust toolchain on PATH, and the test suite
        run from a copy of tests/ outside the source tree against the
        installed package.
    python tools/release.py release-check [--final]
        the versions agree (pyproject.toml's dynamic version is Cargo.toml's,
        __version__, the CHANGELOG's top entry); the wheel for this Python
        and the sdist are each installed into a fresh venv, where the
        README's examples run as doctests and `python -m orcodec --version`
        prints the version. Without --final, an [Unreleased] section may sit
        on top of the CHANGELOG as long as the newest released entry is the
        version; with --final the top entry must be the version itself.

Needs requirements-release.txt (ziglang, auditwheel) besides requirements-dev.txt.
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DIST = REPO / "dist"
POLICY = "manylinux_2_17"
# The CPython versions orcodec supports (requires-python and the classifiers say the same;
# tests/test_release_metadata.py checks that they agree).
SUPPORTED = ["3.11", "3.12", "3.13"]


def say(*parts: object) -> None:
    print("release:", *parts, flush=True)


def run(cmd: list, **kwargs) -> subprocess.CompletedProcess:
    say("$", " ".join(str(c) for c in cmd))
    return subprocess.run([str(c) for c in cmd], check=True, **kwargs)


def find_python(version: str) -> Path | None:
    """python{version} on PATH that runs, else the newest pyenv install of it."""
    found = shutil.which(f"python{version}")
    if found and subprocess.run([found, "-c", "pass"], capture_output=True).returncode == 0:
        return Path(found)
    root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    candidates = sorted(
        glob.glob(f"{root}/versions/{version}.*/bin/python{version}"),
        key=lambda p: [int(x) for x in re.findall(r"\d+", p.split("/versions/")[1].split("/")[0])],
    )
    return Path(candidates[-1]) if candidates else None


def pythons(versions: list[str]) -> dict[str, Path]:
    found = {}
    for v in versions:
        py = find_python(v)
        if py is None:
            sys.exit(f"release: no Python {v} installed (on PATH or under pyenv)")
        found[v] = py
    return found


# --------------------------------------------------------------------------------------
# Versions
# --------------------------------------------------------------------------------------


def versions() -> dict[str, str]:
    """The version as each place states it (the package's own is read at check time)."""
    pyproject = (REPO / "pyproject.toml").read_text()
    cargo = (REPO / "Cargo.toml").read_text()
    changelog = (REPO / "CHANGELOG.md").read_text()
    found = {}
    dynamic = re.search(r"^dynamic\s*=\s*\[([^\]]*)\]", pyproject, re.M)
    static = re.search(r'^version\s*=\s*"([^"]+)"', pyproject.split("[project]", 1)[1].split("\n[", 1)[0], re.M)
    if static:
        found["pyproject.toml"] = static.group(1)
    elif dynamic and '"version"' in dynamic.group(1):
        found["pyproject.toml"] = "dynamic (Cargo.toml)"
    workspace = re.search(r"^\[workspace\.package\][^\[]*?^version\s*=\s*\"([^\"]+)\"", cargo, re.M | re.S)
    if workspace:
        found["Cargo.toml"] = workspace.group(1)
    entries = re.findall(r"^## \[([^\]]+)\](?: - (\d{4}-\d\d-\d\d))?", changelog, re.M)
    found["CHANGELOG.md top"] = entries[0][0] if entries else "none"
    released = [name for name, _ in entries if name.lower() != "unreleased"]
    found["CHANGELOG.md newest release"] = released[0] if released else "none"
    return found


def check_versions(final: bool, installed: str | None = None) -> str:
    found = versions()
    if installed is not None:
        found["orcodec.__version__"] = installed
    for where, v in found.items():
        say(f"version in {where}: {v}")
    version = found.get("Cargo.toml")
    problems = []
    if version is None:
        problems.append("no [workspace.package] version in Cargo.toml")
    if found.get("pyproject.toml") not in ("dynamic (Cargo.toml)", version):
        problems.append(f"pyproject.toml says {found.get('pyproject.toml')}")
    if installed is not None and installed != version:
        problems.append(f"__version__ is {installed}")
    if final:
        if found["CHANGELOG.md top"] != version:
            problems.append(f"the CHANGELOG's top entry is [{found['CHANGELOG.md top']}], not [{version}]")
    elif found["CHANGELOG.md newest release"] != version:
        problems.append(f"the CHANGELOG's newest release is [{found['CHANGELOG.md newest release']}], not [{version}]")
    if problems:
        sys.exit("release: versions disagree: " + "; ".join(problems))
    if found["CHANGELOG.md top"] != version:
        say(f"note: the CHANGELOG has an [{found['CHANGELOG.md top']}] section on top (--final refuses that)")
    return version


# --------------------------------------------------------------------------------------
# Building
# --------------------------------------------------------------------------------------


def wheel_tag(version: str) -> str:
    return "cp" + version.replace(".", "")


def build_wheels(selected: dict[str, Path]) -> list[Path]:
    DIST.mkdir(exist_ok=True)
    for v in selected:
        for old in DIST.glob(f"orcodec-*-{wheel_tag(v)}-{wheel_tag(v)}-*.whl"):
            old.unlink()
    # One maturin run per interpreter, each with its own target directory (they share
    # nothing: every version has its own cfgs); maturin checks the policy itself when
    # --compatibility is given, and auditwheel checks it again below.
    for v, py in selected.items():
        run(
            [
                sys.executable,
                "-m",
                "maturin",
                "build",
                "--release",
                "--zig",
                "--compatibility",
                POLICY,
                "--interpreter",
                py,
                "--out",
                DIST,
            ],
            cwd=REPO,
            env={
                **os.environ,
                "CARGO_TARGET_DIR": str(REPO / "target" / f"wheel{v}"),
                # maturin runs zig as `python3 -m ziglang`: this venv's, where it is installed.
                "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
            },
        )
    wheels = []
    for v in selected:
        built = sorted(DIST.glob(f"orcodec-*-{wheel_tag(v)}-{wheel_tag(v)}-*.whl"))
        if len(built) != 1:
            sys.exit(f"release: expected one wheel for {v} in {DIST}, found {built}")
        check_policy(built[0])
        wheels.append(built[0])
    return wheels


def check_policy(wheel: Path) -> None:
    """The wheel's tag claims POLICY, and auditwheel finds it consistent with it."""
    if f"{POLICY}_x86_64" not in wheel.name and f"{POLICY}_" not in wheel.name:
        sys.exit(f"release: {wheel.name} is not tagged {POLICY}")
    out = subprocess.run(
        [sys.executable, "-m", "auditwheel", "show", wheel], capture_output=True, text=True, check=True
    ).stdout
    flat = " ".join(out.split())
    match = re.search(r'consistent with the following platform tag: "([^"]+)"', flat)
    if not match:
        sys.exit(f"release: auditwheel gave no platform tag for {wheel.name}:\n{out}")
    tag = match.group(1)
    glibc = tuple(int(x) for x in re.match(r"manylinux_(\d+)_(\d+)", tag).groups())
    wanted = tuple(int(x) for x in re.match(r"manylinux_(\d+)_(\d+)", POLICY).groups())
    if glibc > wanted:
        sys.exit(f"release: {wheel.name} needs {tag}, newer than {POLICY}:\n{out}")
    say(f"{wheel.name}: auditwheel: consistent with {tag}")


def build_sdist() -> Path:
    DIST.mkdir(exist_ok=True)
    for old in DIST.glob("orcodec-*.tar.gz"):
        old.unlink()
    run([sys.executable, "-m", "maturin", "sdist", "--out", DIST], cwd=REPO)
    built = sorted(DIST.glob("orcodec-*.tar.gz"))
    if len(built) != 1:
        sys.exit(f"release: expected one sdist in {DIST}, found {built}")
    return built[0]


# --------------------------------------------------------------------------------------
# Installing as a user would
# --------------------------------------------------------------------------------------


def without_rust_env(venv: Path) -> dict[str, str]:
    """The environment of a user without Rust: the venv's bin and the system's, no cargo."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("CARGO", "RUSTUP", "RUSTC", "VIRTUAL_ENV", "PYTHON", "MATURIN", "PYO3"))
    }
    env["PATH"] = os.pathsep.join([str(venv / "bin"), "/usr/local/bin", "/usr/bin", "/bin"])
    env["VIRTUAL_ENV"] = str(venv)
    for tool in ("cargo", "rustc", "rustup"):
        found = shutil.which(tool, path=env["PATH"])
        if found:
            sys.exit(f"release: {tool} is on the clean PATH ({found}): cannot test an install without Rust")
    return env


def fresh_venv(python: Path, where: Path) -> Path:
    run([python, "-m", "venv", where])
    run([where / "bin" / "python", "-m", "pip", "install", "--quiet", "--upgrade", "pip"])
    return where


def installed_location(venv: Path, cwd: Path, env: dict[str, str]) -> tuple[str, str]:
    """(orcodec.__file__, orcodec.__version__) as the venv's Python imports it from cwd."""
    out = subprocess.run(
        [venv / "bin" / "python", "-c", "import orcodec; print(orcodec.__file__); print(orcodec.__version__)"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    location, version = out[0], out[1]
    if not Path(location).resolve().is_relative_to(venv.resolve()):
        sys.exit(f"release: orcodec was imported from {location}, not from the venv {venv}")
    if Path(location).resolve().is_relative_to(REPO):
        sys.exit(f"release: orcodec was imported from the source tree ({location})")
    return location, version


def copy_tests(where: Path) -> Path:
    """What the test suite reads, without the package's source (python/) or the crates."""
    copy = where / "suite"
    copy.mkdir()
    for name in ["tests", "fixtures", "tools", "doc", "bench"]:
        shutil.copytree(REPO / name, copy / name, ignore=shutil.ignore_patterns("__pycache__", "results"))
    for name in ["README.md", "CHANGELOG.md", "pyproject.toml", "Cargo.toml", "Makefile", "requirements-dev.txt"]:
        shutil.copy2(REPO / name, copy / name)
    return copy


def wheel_for(version: str) -> Path:
    found = sorted(DIST.glob(f"orcodec-*-{wheel_tag(version)}-{wheel_tag(version)}-*.whl"))
    if not found:
        sys.exit(f"release: no wheel for Python {version} in {DIST}: run make wheel first")
    return found[-1]


def wheel_test(selected: dict[str, Path], pytest_args: list[str]) -> None:
    for v, py in selected.items():
        wheel = wheel_for(v)
        with zipfile.ZipFile(wheel) as z:
            if any(n.endswith((".rs", "Cargo.toml")) for n in z.namelist()):
                sys.exit(f"release: {wheel.name} carries Rust sources")
        with tempfile.TemporaryDirectory(prefix=f"orcodec-wheel-{v}-") as tmp:
            tmp = Path(tmp)
            venv = fresh_venv(py, tmp / "venv")
            env = without_rust_env(venv)
            run([venv / "bin/python", "-m", "pip", "install", "--quiet", wheel], env=env)
            # The test requirements, with orcodec already there.
            install_test_requirements(venv, env, tmp)
            suite = copy_tests(tmp)
            location, version = installed_location(venv, suite, env)
            say(f"Python {v}: orcodec {version} imported from {location}")
            run(
                [venv / "bin/python", "-m", "pytest", "-q", "-p", "no:cacheprovider", *pytest_args],
                cwd=suite,
                env={**env, "ORCODEC_EXPECT_INSTALLED": str(venv)},
            )
            say(f"Python {v}: the test suite passed against {wheel.name}")


def install_test_requirements(venv: Path, env: dict[str, str], tmp: Path) -> None:
    """requirements-dev.txt without the build tools (maturin) and the fuzzer (atheris),
    which a user of the wheel does not need: the suite runs without them."""
    lines = []
    for line in (REPO / "requirements-dev.txt").read_text().splitlines():
        name = re.split(r"[=<>;\s]", line.strip(), maxsplit=1)[0].lower()
        if name in ("maturin", "atheris"):
            continue
        lines.append(line)
    req = tmp / "requirements-test.txt"
    req.write_text("\n".join(lines) + "\n")
    run([venv / "bin/python", "-m", "pip", "install", "--quiet", "-r", req], env=env)


def readme_doctests_and_version(venv: Path, env: dict[str, str], cwd: Path, version: str) -> None:
    run([venv / "bin/python", REPO / "tools/readme_doctest.py", REPO / "README.md"], cwd=cwd, env=env)
    out = subprocess.run(
        [venv / "bin/python", "-m", "orcodec", "--version"], cwd=cwd, env=env, capture_output=True, text=True
    )
    printed = (out.stdout + out.stderr).strip()
    say(f"python -m orcodec --version: {printed!r}")
    if out.returncode != 0 or version not in printed.split():
        sys.exit(f"release: `python -m orcodec --version` printed {printed!r} (exit {out.returncode}), not {version}")


def release_check(final: bool) -> None:
    version = check_versions(final)
    current = f"{sys.version_info.major}.{sys.version_info.minor}"
    py = find_python(current) or Path(sys.executable)
    wheels = build_wheels({current: py})
    sdist = build_sdist()
    if f"orcodec-{version}" not in sdist.name or f"orcodec-{version}-" not in wheels[0].name:
        sys.exit(f"release: artifacts {wheels[0].name}, {sdist.name} are not version {version}")
    with tarfile_names(sdist) as names:
        for needed in ("pyproject.toml", "Cargo.toml", "Cargo.lock", "README.md", "python/orcodec/__init__.py"):
            if not any(n.split("/", 1)[-1] == needed for n in names):
                sys.exit(f"release: the sdist has no {needed}")
    for artifact in (wheels[0], sdist):
        with tempfile.TemporaryDirectory(prefix="orcodec-release-") as tmp:
            tmp = Path(tmp)
            venv = fresh_venv(py, tmp / "venv")
            if artifact is sdist:
                # An sdist is built on install: that needs the Rust toolchain.
                env = {
                    **os.environ,
                    "VIRTUAL_ENV": str(venv),
                    "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}",
                }
                env.pop("CARGO_TARGET_DIR", None)
            else:
                env = without_rust_env(venv)
            run([venv / "bin/python", "-m", "pip", "install", "--quiet", artifact], env=env, cwd=tmp)
            _, installed = installed_location(venv, tmp, env)
            check_versions(final, installed)
            readme_doctests_and_version(venv, env, tmp, version)
            say(f"{artifact.name}: installs, README examples pass, version {installed}")
    say(f"release check passed for orcodec {version}")


class tarfile_names:
    def __init__(self, path: Path) -> None:
        import tarfile

        self._tar = tarfile.open(path)

    def __enter__(self) -> list[str]:
        return self._tar.getnames()

    def __exit__(self, *exc) -> None:
        self._tar.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    w = sub.add_parser("wheel")
    w.add_argument("--pythons", nargs="+", default=SUPPORTED)
    t = sub.add_parser("wheel-test")
    t.add_argument("--pythons", nargs="+", default=SUPPORTED)
    t.add_argument("--pytest-args", nargs=argparse.REMAINDER, default=[])
    r = sub.add_parser("release-check")
    r.add_argument("--final", action="store_true")
    args = parser.parse_args()
    if args.command == "wheel":
        build_wheels(pythons(args.pythons))
        build_sdist()
        say("built:", *sorted(p.name for p in DIST.iterdir()))
    elif args.command == "wheel-test":
        wheel_test(pythons(args.pythons), args.pytest_args)
    else:
        release_check(args.final)


if __name__ == "__main__":
    main()
