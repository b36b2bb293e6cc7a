"""Shared helpers and data for the orcodec test suite.

Imported by the test modules as ``helpers`` (``conftest.py`` puts this directory on
``sys.path``).  Nothing in here depends on orcodec itself, so the reference expectations
can be checked against orjson / msgpack / the stdlib alone.
"""

from __future__ import annotations

import math
import os
import struct
from pathlib import Path

import pytest

# --------------------------------------------------------------------------------------
# Shared fixtures directory
# --------------------------------------------------------------------------------------

REPO_ROOT = Path(__file__).resolve().parent.parent


def fixtures_dir() -> Path:
    """``$ORCODEC_FIXTURES`` if set, else ``<repo root>/../shared/fixtures``."""
    env = os.environ.get("ORCODEC_FIXTURES")
    if env:
        return Path(env)
    return REPO_ROOT.parent / "shared" / "fixtures"


FIXTURES_DIR = fixtures_dir()


def missing_fixtures(what: str) -> None:
    """Fail (never skip) when the shared fixtures are not where they should be."""
    pytest.fail(
        f"shared test fixtures missing: {what} not found under {FIXTURES_DIR} "
        "(set ORCODEC_FIXTURES to the shared fixtures directory; "
        "default is <repo root>/../shared/fixtures)",
        pytrace=False,
    )


def fixture_file(*parts: str) -> Path:
    path = FIXTURES_DIR.joinpath(*parts)
    if not path.is_file():
        missing_fixtures("/".join(parts))
    return path


def fixture_bytes(*parts: str) -> bytes:
    return fixture_file(*parts).read_bytes()


class MissingFixtures:
    """Stands in for the files of a fixture set that is not there (see fixture_params)."""

    def __init__(self, what: str) -> None:
        self.what = what


def fixture_params(subdir: str, pattern: str) -> list:
    """``pytest.param`` per file matching ``pattern`` in ``subdir``, for parametrize.

    When nothing matches (fixtures missing) a single MissingFixtures parameter is returned
    so the test runs and fails via :func:`read_param` instead of being silently skipped as
    an empty parameter set.
    """
    directory = FIXTURES_DIR / subdir
    files = sorted(directory.glob(pattern)) if directory.is_dir() else []
    if not files:
        what = f"{subdir}/{pattern}"
        return [pytest.param(MissingFixtures(what), id=f"MISSING:{what}")]
    return [pytest.param(p, id=p.name) for p in files]


def read_param(path: Path | MissingFixtures) -> bytes:
    if isinstance(path, MissingFixtures):
        missing_fixtures(path.what)
    return path.read_bytes()


def blns_strings() -> list[str]:
    """The Big List of Naughty Strings: one per line, '#' comments and blanks skipped."""
    path = FIXTURES_DIR / "blns.txt"
    if not path.is_file():
        return []
    text = path.read_bytes().decode("utf-8")
    # Split on '\n' only: str.splitlines() would also split on U+2028, U+0085, ...
    return [line for line in text.split("\n") if line and not line.startswith("#")]


def blns_params() -> list:
    strings = blns_strings()
    if not strings:
        return [pytest.param(None, id="MISSING:blns.txt")]
    return [pytest.param(s, id=f"blns{i}") for i, s in enumerate(strings)]


def require_blns(s: str | None) -> str:
    if s is None:
        missing_fixtures("blns.txt")
    return s


# --------------------------------------------------------------------------------------
# Exact comparison
# --------------------------------------------------------------------------------------


def strict_diff(actual, expected, *, big_int_as_float: bool = False) -> str | None:
    """Return None if equal, else a description of the first difference.

    Equality is exact: types must match exactly (bool vs int vs float, list vs tuple, no
    subclasses), floats compare by value with -0.0 distinct from 0.0 and NaN equal to NaN,
    dicts compare key order too.  With ``big_int_as_float`` an int outside
    -2**63..2**64-1 in ``expected`` is expected as ``float(value)`` in ``actual``
    (orjson's/orcodec's behaviour for big JSON integers).

    Iterative, so 100 000-deep structures do not hit Python's recursion limit.
    """
    stack = [(actual, expected, "$")]
    while stack:
        a, e, where = stack.pop()
        if big_int_as_float and type(e) is int and not (-(2**63) <= e <= 2**64 - 1):
            e = float(e)
        if type(a) is not type(e):
            return f"{where}: type {type(a).__name__} != {type(e).__name__} ({a!r:.80} vs {e!r:.80})"
        if type(e) is float:
            if math.isnan(e):
                if not math.isnan(a):
                    return f"{where}: {a!r} != nan"
            elif a != e or math.copysign(1.0, a) != math.copysign(1.0, e):
                return f"{where}: {a!r} != {e!r}"
        elif type(e) in (list, tuple):
            if len(a) != len(e):
                return f"{where}: length {len(a)} != {len(e)}"
            for i in range(len(e) - 1, -1, -1):
                stack.append((a[i], e[i], f"{where}[{i}]"))
        elif type(e) is dict:
            if list(a) != list(e):
                return f"{where}: keys {list(a)!r:.200} != {list(e)!r:.200}"
            for k in reversed(list(e)):
                stack.append((a[k], e[k], f"{where}[{k!r}]"))
        elif a != e:
            return f"{where}: {a!r:.200} != {e!r:.200}"
    return None


def assert_strict_equal(actual, expected, *, big_int_as_float: bool = False) -> None:
    diff = strict_diff(actual, expected, big_int_as_float=big_int_as_float)
    assert diff is None, diff


def to_plain(obj):
    """What a round trip through either format gives back for a builtin document:
    tuples become lists and subclasses of str/int/float/dict/list become the base type."""
    if obj is None or type(obj) is bool:
        return obj
    if isinstance(obj, int):
        return int(obj)
    if isinstance(obj, float):
        return float(obj)
    if isinstance(obj, str):
        return str(obj)
    if isinstance(obj, (bytes, bytearray, memoryview)):
        return bytes(obj)
    if isinstance(obj, (list, tuple)):
        return [to_plain(x) for x in obj]
    if isinstance(obj, dict):
        return {str(k): to_plain(v) for k, v in obj.items()}
    raise TypeError(f"not a builtin document: {type(obj)!r}")


def json_plain(obj):
    """What a JSON round trip gives back: like :func:`to_plain`, and NaN/±inf become None."""
    if type(obj) is float and (math.isnan(obj) or math.isinf(obj)):
        return None
    if isinstance(obj, (list, tuple)):
        return [json_plain(x) for x in obj]
    if isinstance(obj, dict):
        return {str(k): json_plain(v) for k, v in obj.items()}
    return to_plain(obj)


# --------------------------------------------------------------------------------------
# Builders
# --------------------------------------------------------------------------------------


def nested_lists(depth: int, innermost=None):
    """``depth`` nested lists: nested_lists(1) == [], nested_lists(2) == [[]]."""
    obj = [] if innermost is None else [innermost]
    for _ in range(depth - 1):
        obj = [obj]
    return obj


def nested_dicts(depth: int):
    """``depth`` nested dicts: nested_dicts(1) == {}, nested_dicts(2) == {"a": {}}."""
    obj: dict = {}
    for _ in range(depth - 1):
        obj = {"a": obj}
    return obj


def nested_tuples(depth: int):
    obj: tuple = ()
    for _ in range(depth - 1):
        obj = (obj,)
    return obj


def nested_mixed(depth: int):
    """Alternating list / dict nesting, ``depth`` containers in total."""
    obj = [] if depth % 2 else {}
    for level in range(depth - 1):
        obj = {"k": obj} if level % 2 else [obj]
    return obj


def utf8_string(nbytes: int, char: str) -> str:
    """A str whose UTF-8 encoding is exactly ``nbytes`` long, made of ``char`` padded
    with ASCII 'a'."""
    width = len(char.encode("utf-8"))
    s = char * (nbytes // width) + "a" * (nbytes % width)
    assert len(s.encode("utf-8")) == nbytes
    return s


def random_doubles(count: int, seed: int) -> list[float]:
    """Finite doubles from uniformly random 64-bit patterns (NaN and inf excluded)."""
    import random

    rng = random.Random(seed)
    out = []
    while len(out) < count:
        (x,) = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))
        if math.isfinite(x):
            out.append(x)
    return out


# --------------------------------------------------------------------------------------
# Shared test data
# --------------------------------------------------------------------------------------

INT_BOUNDARIES = [
    0,
    1,
    127,
    128,
    255,
    256,
    65535,
    65536,
    2**31 - 1,
    2**31,
    2**32 - 1,
    2**32,
    2**53,
    2**53 + 1,
    2**63 - 1,
    2**63,
    2**64 - 1,
    -1,
    -31,
    -32,
    -33,
    -127,
    -128,
    -129,
    -255,
    -256,
    -32767,
    -32768,
    -32769,
    -65535,
    -65536,
    -(2**31) + 1,
    -(2**31),
    -(2**31) - 1,
    -(2**32),
    -(2**53),
    -(2**63) + 1,
    -(2**63),
]

INTS_OUT_OF_RANGE = [2**64, 2**64 + 1, 2**65, 10**30, -(2**63) - 1, -(2**64), -(10**30)]

SPECIAL_FLOATS = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    0.1,
    0.2,
    0.3,
    1.5,
    2.5,
    100.0,
    1e1,
    1e15,
    1e16,
    1e17,
    1e21,
    1e22,
    1e23,
    1e100,
    1e-5,
    1e-6,
    1e-7,
    1e-100,
    1e300,
    1e-300,
    123456.789,
    -123456.789,
    3.141592653589793,
    2.718281828459045,
    1 / 3,
    2 / 3,
    9007199254740992.0,
    9007199254740993.0,
    18446744073709551616.0,
    -9.223372036854776e18,
    5e-324,
    -5e-324,
    1e-323,
    2.225073858507201e-308,
    2.2250738585072014e-308,
    1.7976931348623157e308,
    -1.7976931348623157e308,
    4.9406564584124654e-324,
    1.2345,
    -1.2345,
    0.000001,
    123e-20,
    1.0e-10,
    7e22,
    8.41e21,
    5.0e-100,
]

NON_FINITE_FLOATS = [float("nan"), float("inf"), float("-inf")]

# One representative string per class; "kind" ids are used in several files.
STRING_KINDS = {
    "empty": "",
    "ascii": "hello, world",
    "latin1": "caf\u00e9 \u00ff\u00e0\u00c9",
    "bmp": "\u4e2d\u6587 \u2028 \u2029 \uffff \u0800 \ufeff",
    "astral": "\U0001f600 \U00010000 \U0010ffff \U0001d11e",
    "controls": "".join(chr(c) for c in range(0x20)) + "\x7f",
    "quotes": '"quoted" \'single\' back\\slash /slash/ \\" \\\\',
    "mixed": 'a\u00e9\u4e2d\U0001f600\n\t"\\\x00\x7f\u2028',
}

# 100 KB strings of each kind.
LONG_STRINGS = {
    "ascii": "abcdefghij" * 10_000,
    "latin1": "\u00e9\u00ff" * 50_000,
    "bmp": "\u4e2d\u6587" * 50_000,
    "astral": "\U0001f600" * 100_000,
    "controls": '\x00\x1f\n"\\' * 20_000,
    "mixed": "a\u00e9\u4e2d\U0001f600\n" * 20_000,
}

CONTROL_CHARS = [chr(c) for c in range(0x20)] + ["\x7f"]

# Lone surrogates cannot be encoded as UTF-8.
SURROGATE_STRINGS = ["\ud800", "\udfff", "\udc00", "a\ud83d", "\ude00b", "x\ud800y\udbff", "\udfff\ud800"]


class MyStr(str):
    pass


class MyInt(int):
    pass


class MyFloat(float):
    pass


class MyDict(dict):
    pass


class MyList(list):
    pass


class Unsupported:
    """A type neither encoder knows."""

    def __repr__(self) -> str:
        return "Unsupported()"


def depth_of(obj) -> int:
    """Nesting depth of a decoded chain of single-item lists/dicts (iterative, so any depth)."""
    depth = 0
    while isinstance(obj, (list, dict)):
        depth += 1
        if not obj:
            break
        obj = obj[0] if isinstance(obj, list) else next(iter(obj.values()))
    return depth


# --------------------------------------------------------------------------------------
# Flags by name, for comparing with the peers
# --------------------------------------------------------------------------------------


def opts(module, names) -> int:
    """The bitwise or of ``module.<name>`` for each flag name: orjson's, ormsgpack's and
    orcodec's OPT_ values differ, so each library is given its own constants."""
    value = 0
    for name in names:
        value |= getattr(module, name)
    return value


def outcome(call, *args, **kwargs):
    """``("ok", result)`` or ``("raise", exception type)`` of a call, for comparisons."""
    try:
        return ("ok", call(*args, **kwargs))
    except Exception as exc:  # noqa: BLE001 - the type is the result
        return ("raise", type(exc))
