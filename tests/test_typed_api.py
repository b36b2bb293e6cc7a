"""The typed decoding API: Decoder (attributes, repr, methods, garbage collection), the
type cache, the keyword arguments of loads and unpackb, and the docstrings and stubs of
the new names."""

from __future__ import annotations

import ast
import dataclasses
import gc
import inspect
import threading
from pathlib import Path
from typing import Any

import orcodec
import pytest

# The stub of the orcodec under test (the source tree's in a development build, the
# installed package's when testing a wheel).
STUB = Path(orcodec.__file__).with_name("__init__.pyi")


@dataclasses.dataclass
class Item:
    qty: int


def test_decoder_attributes_and_methods():
    def hook(tp, value):
        return value

    d = orcodec.Decoder(list[Item], strict=False, dec_hook=hook)
    assert d.type == list[Item]
    assert d.strict is False
    assert d.dec_hook is hook
    assert d.forbid_unknown_fields is False
    assert repr(d) == "Decoder(list[test_typed_api.Item])"
    assert d.loads(b'[{"qty": "1"}]') == [Item(1)]
    assert d.unpackb(orcodec.packb([{"qty": 2}])) == [Item(2)]
    assert d.convert([{"qty": 3.0}]) == [Item(3)]
    plain = orcodec.Decoder(int)
    assert (plain.strict, plain.dec_hook, plain.forbid_unknown_fields) == (True, None, False)
    with pytest.raises(AttributeError):
        plain.strict = False  # type: ignore[misc]
    assert orcodec.Decoder[Item] == orcodec.Decoder[Item]


def test_decoder_arguments():
    with pytest.raises(TypeError, match="exactly 1 positional"):
        orcodec.Decoder()  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="unexpected keyword argument 'nope'"):
        orcodec.Decoder(int, nope=1)  # type: ignore[call-overload]
    d = orcodec.Decoder(int)
    with pytest.raises(TypeError):
        d.loads()  # type: ignore[call-arg]
    with pytest.raises(orcodec.JSONDecodeError, match="Input must be"):
        d.loads(1)  # type: ignore[arg-type]
    with pytest.raises(orcodec.MsgpackDecodeError, match="Input must be"):
        d.unpackb("x")  # type: ignore[arg-type]
    with pytest.raises(orcodec.MsgpackDecodeError, match="Invalid opts"):
        d.unpackb(b"\x01", option=-1)
    assert d.loads(bytearray(b"1")) == 1 and d.loads(memoryview(b"2")) == 2 and d.loads("3") == 3
    assert d.unpackb(memoryview(b"\x04")) == 4


def test_decoder_method_arguments_exactly():
    # The argument parsing of the methods, every path: positional slots, keywords
    # (matched by pointer and by value), a keyword repeated or unknown, the
    # object missing or given by keyword, too many positional arguments.
    d = orcodec.Decoder(list[int])
    data = orcodec.packb([1, 2])
    assert d.unpackb(data) == [1, 2]
    assert d.unpackb(data, option=None) == [1, 2]
    assert d.unpackb(data, ext_hook=None, option=None) == [1, 2]
    assert d.unpackb(data, **{"".join(["opt", "ion"]): None}) == [1, 2]
    assert d.loads(b"[3]") == [3]
    cases = [
        (lambda: d.unpackb(), "unpackb() missing 1 required positional argument: 'obj'"),
        (lambda: d.unpackb(option=None), "unpackb() missing 1 required positional argument: 'obj'"),
        (lambda: d.unpackb(data, None), "unpackb() takes 1 positional arguments but 2 were given"),
        (lambda: d.unpackb(data, nope=1), "unpackb() got an unexpected keyword argument 'nope'"),
        (
            lambda: d.unpackb(obj=data),
            "unpackb() got some positional-only arguments passed as keyword arguments: 'obj'",
        ),
        (lambda: d.loads(), "loads() missing 1 required positional argument: 'obj'"),
        (lambda: d.loads(b"[1]", b"[2]"), "loads() takes 1 positional arguments but 2 were given"),
        (lambda: d.loads(b"[1]", option=None), "loads() got an unexpected keyword argument 'option'"),
    ]
    for call, message in cases:
        with pytest.raises(TypeError) as e:
            call()  # type: ignore[call-arg]
        assert str(e.value) == message


def test_decoder_in_a_cycle_is_collected():
    collected = threading.Event()

    class Marker:
        def __del__(self):
            collected.set()

    def make():
        marker = Marker()
        box: list[Any] = []

        def hook(tp, value, box=box, marker=marker):
            return value

        box.append(orcodec.Decoder(int, dec_hook=hook))

    make()
    gc.collect()
    assert collected.is_set()


def test_keywords_of_loads_and_unpackb():
    assert orcodec.loads(b'{"qty": 1}', type=Item) == Item(1)
    assert orcodec.unpackb(orcodec.packb({"qty": 1}), type=Item, option=None, ext_hook=None) == Item(1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'typ'"):
        orcodec.loads(b"1", typ=int)  # type: ignore[call-overload]
    # orjson's words for a positional count loads does not take.
    with pytest.raises(TypeError, match=r"^orcodec\.loads\(\) takes exactly one argument \(2 given\)$"):
        orcodec.loads(b"1", int)  # type: ignore[call-overload]
    # strict and dec_hook are checked even without a type.
    with pytest.raises(TypeError, match="dec_hook must be callable"):
        orcodec.loads(b"1", dec_hook=3)
    assert orcodec.loads(b"1", strict=False) == 1


def test_types_refused_when_compiled():
    class Unresolved:
        pass

    @dataclasses.dataclass
    class Forward:
        a: Missing  # type: ignore[name-defined]  # noqa: F821

    with pytest.raises(TypeError, match="forward reference"):
        orcodec.Decoder(Forward)
    with pytest.raises(TypeError, match="dict keys"):
        orcodec.Decoder(dict[list[int], int])
    # A custom class is fine: it goes to dec_hook.
    assert orcodec.Decoder(Unresolved).type is Unresolved


def test_the_cache_serves_equal_types():
    for _ in range(3):
        assert orcodec.loads(b"[1]", type=list[int]) == [1]
    # More types than the cache holds: it starts over, and stays correct.
    for i in range(1100):
        tp = dataclasses.make_dataclass(f"C{i}", [("a", int)])
        assert orcodec.convert({"a": i}, tp) == tp(i)


NEW = ["convert", "Decoder", "ValidationError"]


def stub_nodes() -> dict[str, ast.AST]:
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    return {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}


@pytest.mark.parametrize("name", NEW)
def test_stub_docstrings_equal_the_runtime_ones(name):
    runtime = getattr(orcodec, name).__doc__
    assert runtime and "\n--\n" not in runtime
    assert ast.get_docstring(stub_nodes()[name]) == inspect.cleandoc(runtime)


@pytest.mark.parametrize(
    ("name", "signature"),
    [
        ("convert", "(obj, type, *, strict=True, dec_hook=None)"),
        ("Decoder", "(type, *, strict=True, dec_hook=None, forbid_unknown_fields=False)"),
    ],
)
def test_text_signatures(name, signature):
    assert str(inspect.signature(getattr(orcodec, name))) == signature


def test_decoder_method_docstrings_equal_the_stub():
    cls = stub_nodes()["Decoder"]
    members = {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)}
    for name in ("loads", "unpackb", "convert"):
        assert ast.get_docstring(members[name]) == inspect.cleandoc(getattr(orcodec.Decoder, name).__doc__)
    for name in ("type", "strict", "dec_hook", "forbid_unknown_fields"):
        assert ast.get_docstring(members[name]) == getattr(orcodec.Decoder, name).__doc__
