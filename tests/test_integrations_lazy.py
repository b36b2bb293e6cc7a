"""orcodec.integrations is imported lazily: `import orcodec` needs none of the libraries.

Each check runs in a fresh interpreter, so modules imported by other tests
do not count.
"""

from __future__ import annotations

import subprocess
import sys

LIBRARIES = ("starlette", "fastapi", "kombu", "celery", "distributed", "dask", "numpy")

# Makes the libraries impossible to import, as if they were not installed.
BLOCK = f"""
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {LIBRARIES!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
sys.meta_path.insert(0, Block())
"""


def run(code: str) -> list[str]:
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def test_importing_orcodec_and_the_integration_modules_imports_no_library() -> None:
    out = run(
        "import sys, orcodec\n"
        "print(sorted(m for m in sys.modules if m.startswith('orcodec.integrations')))\n"
        "import orcodec.integrations.starlette, orcodec.integrations.kombu, orcodec.integrations.dask\n"
        f"print([m for m in {LIBRARIES!r} if m in sys.modules])\n"
        "from orcodec.integrations.starlette import JSONResponse\n"
        "print('starlette' in sys.modules, 'fastapi' in sys.modules, JSONResponse.__module__)\n"
        "from orcodec.integrations.starlette import OrcodecRoute\n"
        "print('fastapi' in sys.modules, OrcodecRoute.__module__)\n"
    )
    assert out == [
        "[]",
        "[]",
        "True False orcodec.integrations.starlette",
        "True orcodec.integrations.starlette",
    ]


def test_orcodec_works_without_the_libraries() -> None:
    out = run(
        BLOCK + "import orcodec, orcodec.integrations\n"
        "from orcodec.integrations import starlette, kombu, dask\n"
        "print(orcodec.dumps({'a': 1}), kombu.dumps_json({'a': 1}), dask.serialize((1,))[0])\n"
        "try:\n"
        "    starlette.JSONResponse\n"
        "except ModuleNotFoundError as e:\n"
        "    print(e.name)\n"
        "try:\n"
        "    dask.register()\n"
        "except ModuleNotFoundError as e:\n"
        "    print(e.name)\n"
        "try:\n"
        "    kombu.register()\n"
        "except ModuleNotFoundError as e:\n"
        "    print(e.name)\n"
    )
    assert out == ["b'{\"a\":1}' b'{\"a\":1}' {'kind': 'msgpack'}", "starlette", "distributed", "kombu"]


def test_submodules_are_attributes_of_the_package() -> None:
    out = run(
        "import orcodec.integrations as i\n"
        "print(i.kombu.__name__, sorted(n for n in dir(i) if not n.startswith('_')))\n"
        "try:\n"
        "    i.nope\n"
        "except AttributeError as e:\n"
        "    print(e)\n"
    )
    assert out == [
        "orcodec.integrations.kombu ['dask', 'kombu', 'starlette']",
        "module 'orcodec.integrations' has no attribute 'nope'",
    ]
