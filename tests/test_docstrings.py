"""Help where a user looks first: help(), the docstrings, the stubs an editor shows, and
orcodec.flags. The docstrings are written once in the extension; the stub carries copies,
and these tests keep the two equal. The flag table says which functions each flag
changes, and the tests hold it to what the functions do."""

from __future__ import annotations

import ast
import dataclasses
import datetime as dt
import enum
import inspect
import pydoc
import re
import uuid
from pathlib import Path

import numpy as np
import orcodec
import pydantic
import pytest

# The stub of the orcodec under test (the source tree's in a development build, the
# installed package's when testing a wheel).
STUB = Path(orcodec.__file__).with_name("__init__.pyi")
FUNCTIONS = ["dumps", "loads", "packb", "unpackb"]
CLASSES = ["Fragment", "Ext"]
EXCEPTIONS = ["JSONEncodeError", "JSONDecodeError", "MsgpackEncodeError", "MsgpackDecodeError"]
OPT_NAMES = sorted(name for name in dir(orcodec) if name.startswith("OPT_"))


def stub_tree() -> ast.Module:
    return ast.parse(STUB.read_text(encoding="utf-8"))


def stub_nodes() -> dict[str, ast.AST]:
    return {node.name: node for node in stub_tree().body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}


def words(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("name", FUNCTIONS + CLASSES + EXCEPTIONS + ["FlagInfo", "Name", "options"])
def test_stub_docstring_equals_the_runtime_one(name):
    runtime = getattr(orcodec, name).__doc__
    assert runtime, name
    # The runtime text has no signature header left: CPython moved it to __text_signature__.
    assert "\n--\n" not in runtime
    assert ast.get_docstring(stub_nodes()[name]) == inspect.cleandoc(runtime)


@pytest.mark.parametrize(("cls", "attr"), [("Fragment", "contents"), ("Ext", "tag"), ("Ext", "data")])
def test_stub_property_docstring_equals_the_runtime_one(cls, attr):
    members = {n.name: n for n in stub_nodes()[cls].body if isinstance(n, ast.FunctionDef)}
    runtime = getattr(getattr(orcodec, cls), attr).__doc__
    assert runtime
    assert ast.get_docstring(members[attr]) == runtime


@pytest.mark.parametrize("name", FUNCTIONS + CLASSES)
def test_signature_at_run_time_matches_the_stub(name):
    obj = getattr(orcodec, name)
    assert obj.__text_signature__
    runtime = inspect.signature(obj)
    node = stub_nodes()[name]
    if isinstance(node, ast.ClassDef):
        node = next(n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__new__")
        params = node.args.posonlyargs[1:] + node.args.args
    else:
        params = node.args.posonlyargs + node.args.args
    stub = [(p.arg, "POSITIONAL_ONLY" if p in node.args.posonlyargs else "POSITIONAL_OR_KEYWORD") for p in params]
    stub += [(p.arg, "KEYWORD_ONLY") for p in node.args.kwonlyargs]
    assert [(p.name, p.kind.name) for p in runtime.parameters.values()] == stub
    if name in FUNCTIONS:
        # Every argument but the object is optional: None (strict, of typed decoding: True).
        assert all(p.default is (True if p.name == "strict" else None) for p in list(runtime.parameters.values())[1:])
    # pydoc shows the same signature (from 3.13 a long one over several lines).
    rendered = pydoc.render_doc(obj, renderer=pydoc.plaintext)
    assert re.sub(r"\s+", "", f"{name}{runtime}") in re.sub(r"\s+", "", rendered)


def test_flags_table_has_every_flag_the_module_exports():
    assert sorted(orcodec.flags) == OPT_NAMES
    for name, info in orcodec.flags.items():
        assert isinstance(info, orcodec.FlagInfo)
        assert info.name == name
        assert info.value == getattr(orcodec, name)
        assert info.description.strip() and info.description.endswith(".")
        assert set(info.functions) <= {"dumps", "packb", "unpackb"}
        expected = tuple(
            fmt
            for fmt, users in (("JSON", {"dumps"}), ("MessagePack", {"packb", "unpackb"}))
            if users & set(info.functions)
        )
        assert info.formats == expected
        # The flags kept for compatibility are 0 and change nothing; the others are one bit each.
        assert (info.value == 0) == (info.functions == ())
        assert info.value == 0 or info.value & (info.value - 1) == 0
    with pytest.raises(TypeError):
        orcodec.flags["OPT_NEW"] = orcodec.flags["OPT_UTC_Z"]


def test_every_flag_is_in_help_with_its_value_functions_and_description():
    doc = orcodec.__doc__
    text = words(doc)
    for info in orcodec.flags.values():
        functions = ", ".join(info.functions) or "no effect"
        assert f"\n{info.name} = {info.value} ({functions})\n" in doc
        assert words(info.description) in text
    assert "orcodec.flags" in doc
    rendered = pydoc.render_doc(orcodec, renderer=pydoc.plaintext)
    assert "OPT_DATETIME_AS_TIMESTAMP_EXT = 16384 (packb, unpackb)" in rendered


def test_stub_documents_every_flag_as_the_table_does():
    body = stub_tree().body
    documented = {}
    for node, after in zip(body, body[1:]):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id.startswith("OPT_"):
            assert isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant), node.target.id
            documented[node.target.id] = after.value.value
    assert sorted(documented) == OPT_NAMES
    for name, text in documented.items():
        assert words(text) == words(orcodec.flags[name].description), name


@pytest.mark.parametrize("function", FUNCTIONS)
def test_function_docstring_names_exactly_the_flags_that_change_it(function):
    named = set(re.findall(r"\bOPT_[A-Z0-9_]+", getattr(orcodec, function).__doc__))
    assert named == {name for name, info in orcodec.flags.items() if function in info.functions}
    assert named <= set(OPT_NAMES)


# What the table says each flag changes, checked against what the functions do: a flag
# changes a function if the function's result (or error) differs with it on any probe.


class Color(enum.Enum):
    RED = "red"


class Text(str):
    pass


@dataclasses.dataclass
class Point:
    x: int


@dataclasses.dataclass
class WithDefaults:
    x: int = 0
    y: object = None


class Model(pydantic.BaseModel):
    name: str


ENCODE_PROBES = [
    1,
    [1, [2]],
    {"b": 1, "a": {"d": 2, "c": 3}},
    {1: "int key"},
    dt.datetime(2024, 3, 1, 12, 30, 0, 250),
    dt.datetime(2024, 3, 1, 12, 30, 0, 250, tzinfo=dt.timezone.utc),
    dt.date(2024, 3, 1),
    2**53 + 1,
    2**70,
    Point(1),
    WithDefaults(y=None),
    Color.RED,
    Text("subclass"),
    (1, 2),
    uuid.UUID(int=1),
    "lone \ud800 surrogate",
    np.array([1.5, 2.5]),
    Model(name="ada"),
]

DECODE_PROBES = [
    b"\x81\x01\x02",  # {1: 2}
    b"\xd6\xff\x65\xe1\x1a\x80",  # a timestamp
    b"\xd4\x05\x00",  # another extension
    b"\x82\xa1b\x01\xa1a\x02",
    b"\x92\x01\xcb\x3f\xf8\x00\x00\x00\x00\x00\x00",
    b"\xd7N\x01\x00\x03\x00|i1\x05",  # numpy.int8(5) as the numpy extension (type 78)
    b"\x83\xc4\x02nd\xc2\xc4\x04type\xa3|i1\xc4\x04data\xc4\x01\x05",  # numpy.int8(5) as msgpack-numpy's map
]


def outcome(call, probe, option):
    try:
        return ("ok", call(probe, option))
    except Exception as exc:
        return (type(exc).__name__, str(exc))


def from_default(obj):
    return "from default"


CALLS = {
    "dumps": (ENCODE_PROBES, lambda probe, option: orcodec.dumps(probe, default=from_default, option=option)),
    "packb": (ENCODE_PROBES, lambda probe, option: orcodec.packb(probe, default=from_default, option=option)),
    "unpackb": (DECODE_PROBES, lambda probe, option: orcodec.unpackb(probe, option=option)),
}


REFUSED = ("MsgpackDecodeError", "Invalid opts")


@pytest.mark.parametrize("name", OPT_NAMES)
def test_flag_changes_exactly_the_functions_the_table_names(name):
    value = orcodec.flags[name].value
    changed = {
        function
        for function, (probes, call) in CALLS.items()
        if any(outcome(call, probe, 0) != outcome(call, probe, value) for probe in probes)
        and not all(outcome(call, probe, value) == REFUSED for probe in probes)
    }
    assert changed == set(orcodec.flags[name].functions)
    # unpackb refuses the flags that do not change it, as ormsgpack's does (dumps and
    # packb take every flag, so that one option value serves both).
    unpackb_probes, unpackb = CALLS["unpackb"]
    refused = all(outcome(unpackb, probe, value) == REFUSED for probe in unpackb_probes)
    assert refused == (value != 0 and "unpackb" not in orcodec.flags[name].functions)


def test_the_package_metadata_names_the_project_urls():
    from importlib.metadata import metadata

    urls = dict(entry.split(", ", 1) for entry in metadata("orcodec").get_all("Project-URL") or [])
    assert urls == {
        "Homepage": "https://github.com/orcodec/orcodec",
        "Documentation": "https://github.com/orcodec/orcodec/tree/main/doc",
        "Changelog": "https://github.com/orcodec/orcodec/blob/main/CHANGELOG.md",
        "Source": "https://github.com/orcodec/orcodec",
    }
