"""Help on encode errors that changes no message: PEP 678 notes (``exc.__notes__``, shown
by tracebacks after the message, left out of ``str(exc)``) with where the offending value
is in the document and which flag would have made it work. The messages themselves stay
the peers' (test_compat.py compares them)."""

from __future__ import annotations

import dataclasses
import decimal
import gc
import sys

import numpy as np
import orcodec
import pydantic
import pytest
from helpers import JSON, MSGPACK, Unsupported, nested_lists


def _error(fmt, obj, **kwargs):
    with pytest.raises(fmt.encode_error) as info:
        fmt.encode(obj, **kwargs)
    return info.value


def notes(exc) -> list[str]:
    return list(getattr(exc, "__notes__", []))


@dataclasses.dataclass
class Order:
    item: str
    price: object


@pytest.mark.parametrize(
    "doc, path",
    [
        ({"orders": [Order("a", 1), Order("b", decimal.Decimal("1.5"))]}, "$.orders[1].price"),
        ([1, [2, {"k": Unsupported()}]], "$[1][1].k"),
        ({"a b": {"": [Unsupported()]}}, '$["a b"][""][0]'),
        ({'quote"and\\': Unsupported()}, '$["quote\\"and\\\\"]'),
        ({"é": Unsupported()}, '$["é"]'),
        ((0, (1, Unsupported())), "$[1][1]"),
        ({"k" * 100: Unsupported()}, '$["' + "k" * 40 + '..."]'),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_path_of_the_offending_value(fmt, doc, path):
    exc = _error(fmt, doc)
    assert str(exc).startswith(f"Type is not {fmt.label} serializable: ")
    assert notes(exc)[0] == f"at {path}"
    # The same with OPT_SORT_KEYS (entries taken out of the dict and sorted).
    assert notes(_error(fmt, doc, option=orcodec.OPT_SORT_KEYS))[0] == f"at {path}"


def test_no_path_note_for_the_document_itself(fmt):
    assert notes(_error(fmt, Unsupported())) == []
    assert notes(_error(fmt, Unsupported(), default=lambda o: 1 / 0)) == []


def test_path_through_default_and_non_str_keys(fmt):
    # A value default returned is at the place of the object it replaced.
    exc = _error(fmt, {"a": [Unsupported()]}, default=lambda o: [1, {"x": object()}] if type(o) is Unsupported else o)
    assert notes(exc)[0] == "at $.a[0][1].x"
    exc = _error(fmt, {1: {"k": Unsupported()}}, option=orcodec.OPT_NON_STR_KEYS)
    assert notes(exc)[0] == "at $[1].k"


def test_deep_paths_are_shortened(fmt):
    exc = _error(fmt, nested_lists(1000))
    assert str(exc) == "Recursion limit reached"
    depth = fmt.max_depth
    assert notes(exc) == ["at $" + "[0]" * 8 + f"...({depth - 16} levels)..." + "[0]" * 8]


def test_dict_key_not_str(fmt):
    exc = _error(fmt, {"a": [{"ok": 1, 2: "two"}]})
    assert str(exc) == "Dict key must be str"
    assert notes(exc) == [
        "in the key 2 of the dict at $.a[0]",
        "dict keys must be str (this one is int): pass OPT_NON_STR_KEYS to write keys of other types",
    ]
    # At the top: no path, the key is named.
    assert notes(_error(fmt, {None: 1}))[0] == "in the key None"
    assert notes(_error(fmt, {"b": 1, (1,): 2}, option=orcodec.OPT_SORT_KEYS))[0] == "in the key (1,)"


def test_key_of_no_key_type(fmt):
    exc = _error(fmt, {"a": {frozenset(): 1}}, option=orcodec.OPT_NON_STR_KEYS)
    assert str(exc) == "Dict key must a type serializable with OPT_NON_STR_KEYS"
    assert notes(exc) == [
        "in the key frozenset() of the dict at $.a",
        "a key of type frozenset has no key form, even with OPT_NON_STR_KEYS",
    ]


def test_surrogates(fmt):
    exc = _error(fmt, {"k": ["ok", "a\ud800"]})
    assert str(exc) == fmt.surrogates_message
    assert notes(exc) == [
        "at $.k[1]",
        "a str with lone surrogates has no UTF-8 form: pass OPT_REPLACE_SURROGATES to write each as '?'",
    ]
    exc = _error(fmt, {"k": {"a\ud800": 1}}, option=orcodec.OPT_REPLACE_SURROGATES if fmt is MSGPACK else 0)
    if fmt is MSGPACK:
        # ormsgpack's flag is for values only.
        assert notes(exc)[1] == (
            "a str with lone surrogates has no UTF-8 form; as a dict key it is refused even with OPT_REPLACE_SURROGATES"
        )
    assert notes(exc)[0] == "in the key 'a\\ud800' of the dict at $.k"


def test_big_int(fmt):
    exc = _error(fmt, {"n": 2**64})
    assert str(exc) == "Integer exceeds 64-bit range"
    assert notes(exc) == ["at $.n", "pass OPT_PASSTHROUGH_BIG_INT to hand ints outside -2**63 .. 2**64-1 to default"]
    # No such note once the flag is given (default then is what is missing).
    exc = _error(fmt, {"n": 2**64}, option=orcodec.OPT_PASSTHROUGH_BIG_INT)
    assert notes(exc) == ["at $.n"]


@pytest.mark.parametrize("value", [np.arange(3), np.int32(1), np.float64(1.5), np.bool_(True)], ids=repr)
def test_numpy_without_the_flag(fmt, value):
    exc = _error(fmt, {"x": value})
    assert notes(exc) == ["at $.x", "pass OPT_SERIALIZE_NUMPY to write numpy arrays and scalars"]


@pytest.mark.parametrize(
    "arr, note",
    [
        (np.array([1 + 2j]), "the array's dtype is complex128"),
        (np.array(["a"]), "the array's dtype is <U1"),
        (np.array(2.5), "a 0-d array is no array: ndarray.item() in default gives its value"),
    ],
    ids=lambda v: str(getattr(v, "dtype", "")) or None,
)
def test_numpy_unsupported_arrays(fmt, arr, note):
    exc = _error(fmt, [arr], option=orcodec.OPT_SERIALIZE_NUMPY)
    assert notes(exc) == ["at $[0]", note]


def test_numpy_datetime_element_path(fmt):
    arr = np.array([["2020-01-01", "2020-01-02"], ["2020-01-03", "NaT"]], dtype="datetime64[D]")
    exc = _error(fmt, {"t": arr}, option=orcodec.OPT_SERIALIZE_NUMPY)
    assert notes(exc) == ["at $.t[1][1]"]


def test_pydantic_without_the_flag(fmt):
    class Model(pydantic.BaseModel):
        a: int

    exc = _error(fmt, [Model(a=1)])
    assert notes(exc) == ["at $[0]", "pass OPT_SERIALIZE_PYDANTIC to write pydantic models"]
    assert fmt.encode([Model(a=1)], option=orcodec.OPT_SERIALIZE_PYDANTIC) == fmt.encode([{"a": 1}])


def test_notes_are_not_in_the_message(fmt):
    exc = _error(fmt, {"a": {1: 2}})
    assert str(exc) == "Dict key must be str"
    assert exc.args == ("Dict key must be str",)


def test_a_key_removed_by_default_is_not_read(fmt):
    # default removes the entry being walked (freeing its key) and raises: the path
    # says a key was there, without touching the freed key.
    doc = {}

    def default(obj):
        doc.clear()
        gc.collect()
        raise ValueError("nope")

    doc["".join(["dyn", "amic"])] = Unsupported()
    exc = _error(fmt, {"outer": doc}, default=default)
    assert notes(exc) == ["at $.outer[?]"]
    assert type(exc.__cause__) is ValueError


def test_notes_cost_nothing_when_nothing_fails(fmt):
    # The error context is made only on failure: a call that succeeds leaves no
    # reference behind either.
    inner = [1, 2, {"b": "c"}]
    doc = {"a": inner, "d": 1.5}
    before = sys.getrefcount(inner)
    for _ in range(100):
        fmt.encode(doc)
    after = sys.getrefcount(inner)
    assert after == before


@pytest.mark.parametrize("fmt", [JSON, MSGPACK], ids=lambda f: f.name)
def test_errors_with_notes_do_not_leak(fmt):
    key = "".join(["lea", "ky"])
    doc = {key: [Unsupported()]}
    before = sys.getrefcount(key)
    for _ in range(100):
        _error(fmt, doc)
    gc.collect()
    after = sys.getrefcount(key)
    assert after == before
