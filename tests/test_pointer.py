"""loads(data, pointer=...) and unpackb(data, pointer=...): RFC 6901 JSON Pointers that
build only the target, compared with walking the whole decoded document, in both formats;
escaped tokens; every kind of path that does not exist; typed targets; what is validated."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import helpers
import orcodec
import pytest


def escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def walk(doc: Any, tokens: list[str]) -> Any:
    for token in tokens:
        doc = doc[int(token)] if isinstance(doc, list) else doc[token]
    return doc


def random_paths(doc: Any, rng: random.Random, count: int) -> list[list[str]]:
    """`count` paths to values of `doc`, of every depth."""
    paths = []
    for _ in range(count):
        tokens: list[str] = []
        here = doc
        while isinstance(here, (dict, list)) and here and rng.random() < 0.85:
            if isinstance(here, dict):
                key = rng.choice(list(here))
                tokens.append(key)
                here = here[key]
            else:
                i = rng.randrange(len(here))
                tokens.append(str(i))
                here = here[i]
        paths.append(tokens)
    return paths


def fixture_paths() -> list[Any]:
    shared = [helpers.fixture_file(f"{name}.json") for name in ("twitter", "github", "citm_catalog", "canada")]
    generated = sorted((helpers.REPO_ROOT / "fixtures" / "generated").glob("*.json"))
    assert generated
    return shared + generated


@pytest.mark.parametrize("path", fixture_paths(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_random_paths_into_every_fixture_equal_the_walk(path: Any) -> None:
    data = path.read_bytes()
    doc = orcodec.loads(data)
    packed = orcodec.packb(doc)
    rng = random.Random(path.name)
    count = 1500 if len(data) < 100_000 else 300
    for tokens in random_paths(doc, rng, count):
        pointer = "".join("/" + escape(t) for t in tokens)
        want = walk(doc, tokens)
        assert orcodec.loads(data, pointer=pointer) == want, pointer
        assert orcodec.unpackb(packed, pointer=pointer) == want, pointer


def test_escaped_tokens_and_the_empty_pointer() -> None:
    doc = {"a/b": {"m~n": [1, {"": 2}]}, "": {"x": 3}, "~1": 4}
    data, packed = orcodec.dumps(doc), orcodec.packb(doc)
    for pointer, want in [
        ("/a~1b/m~0n/0", 1),
        ("/a~1b/m~0n/1/", 2),
        ("//x", 3),
        ("/~01", 4),
        ("", doc),
        (None, doc),
    ]:
        assert orcodec.loads(data, pointer=pointer) == want, pointer
        assert orcodec.unpackb(packed, pointer=pointer) == want, pointer
        assert orcodec.loads(data.decode(), pointer=pointer) == want, pointer


DOC = {"items": [{"name": "a", "tags": ["x"]}, {"name": "b", "tags": []}], "count": 2}
MISSING = [
    ("/nope", 'pointer "/nope": no key "nope" in the object at the document\'s root', 0),
    ("/items/2", "pointer \"/items/2\": index 2 is past the end of the array at '/items' (2 items)", 9),
    ("/items/-", "pointer \"/items/-\": '-' (the item after the last) does not exist in the array at '/items'", 9),
    ("/items/01", 'pointer "/items/01": array index "01" has a leading zero (at \'/items\')', 9),
    ("/items/x", 'pointer "/items/x": "x" is not an array index (the value at \'/items\' is an array)', 9),
    ("/items/" + "9" * 40, f"pointer \"/items/{'9' * 40}\": array index {'9' * 40} is too large (at '/items')", 9),
    ("/count/0", "pointer \"/count/0\": the value at '/count' is a number, not an object or array", 68),
    (
        "/items/0/name/x",
        "pointer \"/items/0/name/x\": the value at '/items/0/name' is a string, not an object or array",
        18,
    ),
]


@pytest.mark.parametrize(("pointer", "message", "pos"), MISSING, ids=[m[0][:20] for m in MISSING])
def test_a_path_that_does_not_exist(pointer: str, message: str, pos: int) -> None:
    data = orcodec.dumps(DOC)
    with pytest.raises(orcodec.JSONDecodeError) as info:
        orcodec.loads(data, pointer=pointer)
    assert info.value.msg == message
    assert info.value.pos == pos
    assert data[pos : pos + 1] in (b"{", b"[", b'"', b"2")
    with pytest.raises(orcodec.MsgpackDecodeError) as packed:
        orcodec.unpackb(orcodec.packb(DOC), pointer=pointer)
    assert str(packed.value) == message
    assert isinstance(packed.value.pos, int)


@pytest.mark.parametrize("pointer", ["x", "items", "/a~2", "/a~"])
def test_a_malformed_pointer_is_a_value_error(pointer: str) -> None:
    with pytest.raises(ValueError, match="pointer") as info:
        orcodec.loads(b"{}", pointer=pointer)
    assert not isinstance(info.value, orcodec.JSONDecodeError)
    with pytest.raises(ValueError, match="pointer"):
        orcodec.unpackb(b"\x80", pointer=pointer)


def test_long_pointers_and_deep_documents() -> None:
    with pytest.raises(ValueError, match="100000 tokens, more than documents can nest"):
        orcodec.loads(b"{}", pointer="/a" * 100_000)
    deep = b'{"a":' * 1000 + b"1" + b"}" * 1000
    assert orcodec.loads(deep, pointer="/a" * 1000) == 1
    deep_packed = b"\x81\xa1a" * 1000 + b"\x01"
    assert orcodec.unpackb(deep_packed, pointer="/a" * 1000) == 1
    assert orcodec.unpackb(deep_packed, pointer="/a" * 999) == {"a": 1}
    with pytest.raises(orcodec.MsgpackDecodeError):
        orcodec.unpackb(b"\x91" * 2000, pointer="/0" * 1024)
    too_deep = b"[" * 2000
    with pytest.raises(orcodec.JSONDecodeError) as info:
        orcodec.loads(too_deep, pointer="/0" * 1024)
    assert "depth" in str(info.value) or "recursion" in str(info.value)


def test_what_is_validated() -> None:
    # Before the target: everything, as loads does (here a trailing comma).
    with pytest.raises(orcodec.JSONDecodeError) as info:
        orcodec.loads(b'{"x": [1,], "a": 1}', pointer="/a")
    assert info.value.pos == 8
    # The target: whole (its end is found by reading it).
    with pytest.raises(orcodec.JSONDecodeError):
        orcodec.loads(b'{"a": [1, 2', pointer="/a")
    # After it: not read.
    assert orcodec.loads(b'{"a": 1, "x": [1,]', pointer="/a") == 1
    assert orcodec.unpackb(b"\x82\xa1a\x01\xa1x\xc1", pointer="/a") == 1
    # A repeated key: the first is followed.
    assert orcodec.loads(b'{"a": 1, "a": 2}', pointer="/a") == 1


@dataclasses.dataclass
class Item:
    name: str
    tags: list[str]


def test_with_a_type() -> None:
    data, packed = orcodec.dumps(DOC), orcodec.packb(DOC)
    assert orcodec.loads(data, pointer="/items/1", type=Item) == Item("b", [])
    assert orcodec.unpackb(packed, pointer="/items/0", type=Item) == Item("a", ["x"])
    assert orcodec.loads(data, pointer="/items", type=list[Item]) == [Item("a", ["x"]), Item("b", [])]
    with pytest.raises(orcodec.ValidationError, match=r"^Expected `int`, got `str`$"):
        orcodec.loads(data, pointer="/items/0/name", type=int)
    with pytest.raises(orcodec.ValidationError, match=r"^Expected `int`, got `str`$"):
        orcodec.unpackb(packed, pointer="/items/0/name", type=int)
    # Paths of validation errors count from the target.
    with pytest.raises(orcodec.ValidationError, match=r"Expected `array`, got `str` - at `\$.tags`"):
        orcodec.loads(b'{"items": [{"name": "a", "tags": "x"}]}', pointer="/items/0", type=Item)


def test_bad_arguments() -> None:
    with pytest.raises(TypeError, match="pointer must be a str"):
        orcodec.loads(b"{}", pointer=b"/a")
    with pytest.raises(ValueError, match="partial and pointer cannot be combined"):
        orcodec.loads(b"{}", pointer="/a", partial=True)


def test_only_the_target_is_built() -> None:
    # A document of a million items: the first one is had without the rest being built
    # (nor read).
    data = b"[" + b",".join([b'{"k": [1, 2, 3]}'] * 1_000_000) + b"]"
    assert orcodec.loads(data, pointer="/0/k/2") == 3
    assert orcodec.loads(data, pointer="/999999/k") == [1, 2, 3]


@pytest.mark.parametrize(
    ("data", "pointer"),
    [
        (b"\xdd\xff\xff\xff\xff", "/0"),
        (b"\xdf\xff\xff\xff\xff", "/a"),
        (b"\xdb\xff\xff\xff\xff", "/a"),
        (b"\x81\xa1a\xdd\xff\xff\xff\xff", "/a/3"),
        (b"\x91" * 5000, "/0" * 1024),
    ],
)
def test_hostile_msgpack(data: bytes, pointer: str) -> None:
    # Declared sizes beyond the input and nesting past the limit: the decoder's errors,
    # before anything is allocated for them.
    with pytest.raises(orcodec.MsgpackDecodeError) as info:
        orcodec.unpackb(data, pointer=pointer)
    with pytest.raises(orcodec.MsgpackDecodeError) as whole:
        orcodec.unpackb(data)
    assert str(info.value) == str(whole.value)


def decoded(f: Any, *args: Any, **kwargs: Any) -> tuple[str, Any]:
    """A call's value, or its exception's class, text and place."""
    try:
        return ("value", f(*args, **kwargs))
    except (ValueError, TypeError) as e:
        return ("error", (type(e).__name__, str(e), getattr(e, "pos", None), getattr(e, "path", None)))


POINTER_TYPES: list[Any] = [Any, Item, list[Item], dict[str, Any], list[str], str, int, dict[str, int]]


@pytest.mark.parametrize("tp", POINTER_TYPES, ids=str)
def test_a_decoder_takes_the_same_pointers_as_loads(tp: Any) -> None:
    # Decoder(T).loads/unpackb(data, pointer=...) against loads/unpackb(data, type=T,
    # pointer=...): values and errors alike, for every path into the document and for
    # paths that do not exist or are malformed.
    data, packed = orcodec.dumps(DOC), orcodec.packb(DOC)
    decoder = orcodec.Decoder(tp)
    pointers = ["".join("/" + escape(t) for t in tokens) for tokens in random_paths(DOC, random.Random(7), 60)]
    pointers += [m[0] for m in MISSING] + ["", None, "x", "/items/0/~2", "/items/1/tags/0"]
    for pointer in pointers:
        want = decoded(orcodec.loads, data, type=tp, pointer=pointer)
        assert decoded(decoder.loads, data, pointer=pointer) == want, pointer
        assert decoded(decoder.loads, data.decode(), pointer=pointer) == want, pointer
        want = decoded(orcodec.unpackb, packed, type=tp, pointer=pointer)
        assert decoded(decoder.unpackb, packed, pointer=pointer) == want, pointer
    outcomes = {decoded(decoder.loads, data, pointer=p)[0] for p in pointers}
    assert "error" in outcomes
    assert "value" in outcomes or tp in (int, dict[str, int])
    # Without pointer (and with pointer=None): what the decoder gives without it.
    assert decoded(decoder.loads, data, pointer=None) == decoded(decoder.loads, data)
    assert decoded(decoder.unpackb, packed, pointer=None) == decoded(decoder.unpackb, packed)
    # The other arguments of unpackb still apply with a pointer.
    keyed = orcodec.packb({"a": {1: "x"}, "b": [{"name": "n", "tags": []}]}, option=orcodec.OPT_NON_STR_KEYS)
    for pointer in ("/a", "/b/0", "/b"):
        options = {"pointer": pointer, "option": orcodec.OPT_NON_STR_KEYS}
        assert decoded(decoder.unpackb, keyed, **options) == decoded(orcodec.unpackb, keyed, type=tp, **options)
    if tp is Any:
        assert decoder.unpackb(keyed, pointer="/a", option=orcodec.OPT_NON_STR_KEYS) == {1: "x"}


@pytest.mark.parametrize("path", fixture_paths()[:4], ids=lambda p: p.name)
def test_a_decoder_follows_pointers_into_the_fixtures(path: Any) -> None:
    data = path.read_bytes()
    doc = orcodec.loads(data)
    packed = orcodec.packb(doc)
    decoder = orcodec.Decoder(Any)
    strings = orcodec.Decoder(str)
    for tokens in random_paths(doc, random.Random(path.name), 200):
        pointer = "".join("/" + escape(t) for t in tokens)
        want = walk(doc, tokens)
        assert decoder.loads(data, pointer=pointer) == want, pointer
        assert decoder.unpackb(packed, pointer=pointer) == want, pointer
        assert decoded(strings.loads, data, pointer=pointer) == decoded(orcodec.loads, data, type=str, pointer=pointer)


def test_decoder_pointer_arguments() -> None:
    decoder = orcodec.Decoder(dict[str, int])
    with pytest.raises(TypeError, match="pointer must be a str"):
        decoder.loads(b"{}", pointer=b"/a")
    with pytest.raises(TypeError, match="pointer must be a str"):
        decoder.unpackb(b"\x80", pointer=1)
    with pytest.raises(ValueError, match="partial and pointer cannot be combined"):
        decoder.loads(b"{}", pointer="/a", partial=True)
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        decoder.unpackb(b"\x80", partial=True)
