"""The type stubs: ``mypy --strict`` accepts tests/typing_usage.py (which uses the whole
public API), rejects a few wrong uses, and the stubs name everything the module has."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import orcodec

TESTS = Path(__file__).resolve().parent
STUB = Path(orcodec.__file__).with_name("__init__.pyi")  # the stub of the orcodec under test

# Each line must be reported by mypy with this error code.
WRONG_USES = {
    "x: str = orcodec.dumps(1)": "assignment",
    "orcodec.Ext(1, 'text')": "arg-type",
    "orcodec.Fragment(b'1').contents.decode()": "union-attr",
    "orcodec.unpackb(b'', ext_hook=lambda tag: tag)": "arg-type",
    "orcodec.packb(1, default=1)": "arg-type",
    "y: int = orcodec.OPT_UTC_Z.bit_length() + orcodec.Ext(1, b'').tag + len(orcodec.Ext(1, b'').data)"
    " + orcodec.nope": "attr-defined",
}


def test_mypy_strict_accepts_the_usage_and_rejects_wrong_uses(tmp_path):
    wrong = tmp_path / "wrong_uses.py"
    wrong.write_text("import orcodec\n\n" + "\n".join(WRONG_USES) + "\n")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--no-incremental",
            "--cache-dir",
            str(tmp_path / "cache"),
            "--hide-error-context",
            "--no-error-summary",
            str(TESTS / "typing_usage.py"),
            str(wrong),
        ],
        capture_output=True,
        text=True,
        cwd=str(TESTS.parent),
        timeout=300,
    )
    lines = [line for line in result.stdout.splitlines() if ": error:" in line]
    usage_errors = [line for line in lines if "typing_usage.py" in line]
    assert not usage_errors, "\n".join(usage_errors)
    reported = {}
    for line in lines:
        m = re.match(r".*wrong_uses\.py:(\d+): error: .*\[([a-z-]+)\]$", line)
        assert m, line
        reported.setdefault(int(m.group(1)), set()).add(m.group(2))
    for lineno, (source, code) in enumerate(WRONG_USES.items(), start=3):
        assert code in reported.get(lineno, set()), f"mypy did not reject {source!r} with [{code}]: {result.stdout}"
    assert result.returncode == 1, result.stderr


def test_usage_runs():
    # The same file at run time: what the stubs allow, the module does.
    sys.path.insert(0, str(TESTS))
    try:
        import typing_usage
    finally:
        sys.path.remove(str(TESTS))
    typing_usage.main()
    assert sorted(set(typing_usage.ALL_FLAGS)) == sorted(
        {getattr(orcodec, n) for n in dir(orcodec) if n.startswith("OPT_")}
    )


def test_stub_names_every_public_name():
    tree = ast.parse(STUB.read_text())
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    assert names == set(orcodec.__all__)
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    # Fragment and Ext: read-only attributes (properties) and a constructor signature.
    for cls, attrs in {"Fragment": {"contents"}, "Ext": {"tag", "data"}}.items():
        members = {n.name: n for n in classes[cls].body if isinstance(n, ast.FunctionDef)}
        assert "__new__" in members or "__init__" in members
        for attr in attrs:
            assert attr in members, f"{cls}.{attr}"
            assert any(isinstance(d, ast.Name) and d.id == "property" for d in members[attr].decorator_list)
    src = textwrap.dedent(STUB.read_text())
    assert "ext_hook: Callable[[int, bytes], Any] | None" in src
