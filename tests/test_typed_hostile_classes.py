"""Typed decoding into classes that fight it: a `__new__` that returns what is no
instance of the class (an int, `object()`, an instance of another `__slots__` class), an
instance of a subclass, descriptors replaced after the decoder was made or while an
instance is filled, `__class__` changed under the decoder, hooks that raise. Slots,
frozen and attrs classes behave as plain ones do (their fields set as
`object.__setattr__` sets them); nothing is written into memory not laid out as the
class's. Cases that crashed the interpreter run in child processes."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import attrs
import orcodec
import pytest
from typed_helpers import FORMATS

HERE = Path(__file__).resolve().parent
by_format = pytest.mark.parametrize("fmt", FORMATS, ids=repr)


def run_child(code: str, timeout: int = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        cwd=HERE,
        timeout=timeout,
    )


# Each case decodes {"x": 1, "y": "s", "z": [1]} into a class `A` (x: int, y: str,
# z: list) whose `__new__` returns FOREIGN, and prints one JSON line with what came
# out: the exception, its message and notes, and whether the foreign object is
# unchanged. A crash ends the child: the lines before it name the cases that ran.
FOREIGN_CASES = """
    import dataclasses, json, sys
    import attrs, orcodec

    @dataclasses.dataclass(slots=True)
    class OtherSlots:
        q: int = 7

    @attrs.define
    class OtherAttrs:
        q: int = 7

    class Small:
        __slots__ = ()

    FOREIGN = {
        "int": lambda: 12345,
        "object": object,
        "slots dataclass": OtherSlots,
        "attrs class": OtherAttrs,
        "empty slots": Small,
    }

    def make(kind):
        ns = {"__annotations__": {"x": int, "y": str, "z": list}}
        raw = type("A", (), ns)
        if kind == "dataclass":
            return dataclasses.dataclass(raw)
        if kind == "slots dataclass":
            return dataclasses.dataclass(slots=True)(raw)
        if kind == "frozen slots dataclass":
            return dataclasses.dataclass(slots=True, frozen=True)(raw)
        if kind == "attrs":
            return attrs.define(raw)
        return attrs.frozen(raw)

    def entry(name, cls):
        data = {"x": 1, "y": "s", "z": [1]}
        if name == "loads":
            return lambda: orcodec.loads(orcodec.dumps(data), type=cls)
        if name == "unpackb":
            return lambda: orcodec.unpackb(orcodec.packb(data), type=cls)
        return lambda: orcodec.convert(data, cls)

    for kind in ("dataclass", "slots dataclass", "frozen slots dataclass", "attrs", "attrs frozen"):
        for foreign in FOREIGN:
            for name in ("loads", "unpackb", "convert"):
                cls = make(kind)
                made = []
                def new(cls, *args, **kwargs):
                    made.append(FOREIGN[foreign]())
                    return made[-1]
                # Given after the class was made, as in the report, and before
                # its first decode.
                cls.__new__ = new
                print(json.dumps({"case": [kind, foreign, name], "running": True}), flush=True)
                out = {"case": [kind, foreign, name]}
                try:
                    value = entry(name, cls)()
                    out["value"] = repr(value)
                except Exception as exc:
                    out["error"] = type(exc).__name__
                    out["message"] = str(exc)
                    out["notes"] = getattr(exc, "__notes__", [])
                # What `object.__setattr__` says of the same object (the wording
                # is the interpreter's, and changes across versions).
                try:
                    object.__setattr__(FOREIGN[foreign](), "x", 1)
                except AttributeError as exc:
                    out["reference"] = str(exc)
                out["foreign_intact"] = all(getattr(m, "q", 7) == 7 for m in made)
                out["foreign_has_x"] = any(hasattr(m, "x") for m in made)
                print(json.dumps(out), flush=True)
"""


def test_new_returning_no_instance_of_the_class():
    """The crash: `__new__` returning 12345 ended the process (SIGSEGV) for `slots=True`
    dataclasses, frozen or not, and attrs classes, in loads, unpackb and convert; an
    `object()` or an instance of another `__slots__` class got the slot values written
    past its end. Now every class gives what a plain dataclass gives: the fields are set
    with `object.__setattr__`, which refuses them, and a note says why."""
    done = run_child(FOREIGN_CASES)
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    ran = [line["case"] for line in lines if "running" in line]
    assert done.returncode == 0, f"child died ({done.returncode}) in case {ran[-1] if ran else None}: {done.stderr}"
    results = [line for line in lines if "running" not in line]
    assert len(results) == 5 * 5 * 3
    type_names = {
        "int": "int",
        "object": "object",
        "slots dataclass": "OtherSlots",
        "attrs class": "OtherAttrs",
        "empty slots": "Small",
    }
    by_case = {}
    for r in results:
        kind, foreign, _ = r["case"]
        got = type_names[foreign]
        assert r.get("error") == "AttributeError", r
        assert r["message"] == r["reference"], r
        assert r["message"].startswith(f"'{got}' object has no attribute 'x'"), r
        assert r["notes"] == [f"`A.__new__` returned an instance of `{got}`, not of `A`"], r
        assert r["foreign_intact"] and not r["foreign_has_x"], r
        by_case.setdefault(tuple(r["case"][1:]), []).append((r["error"], r["message"]))
    # Slots, frozen and attrs classes fail exactly as the plain dataclass does.
    for outcomes in by_case.values():
        assert len(set(outcomes)) == 1, outcomes


@dataclasses.dataclass(slots=True)
class Slotted:
    x: int
    y: str
    z: list = dataclasses.field(default_factory=list)


@by_format
def test_new_returning_a_foreign_object_with_the_same_fields(fmt):
    """A foreign `__slots__` object whose own descriptors take the field names gets
    them through those descriptors, as `object.__setattr__` would set them."""

    @dataclasses.dataclass(slots=True)
    class Lookalike:
        x: int = 0
        y: str = ""
        z: list = dataclasses.field(default_factory=list)
        extra: str = "kept"

    @dataclasses.dataclass(slots=True)
    class A:
        x: int
        y: str
        z: list

        def __new__(cls, *args, **kwargs):
            return Lookalike()

    out = fmt.decode({"x": 1, "y": "s", "z": [2]}, A)
    assert type(out) is Lookalike
    assert out == Lookalike(1, "s", [2], "kept")


def _subclass_new(sub):
    def new(cls, *args, **kwargs):
        return object.__new__(sub)

    return new


@by_format
@pytest.mark.parametrize("frozen", [False, True], ids=["mutable", "frozen"])
def test_new_returning_an_instance_of_a_subclass(fmt, frozen):
    """An instance of a subclass is filled through the subclass's own descriptors: one
    that adds a slot, one that shadows a field's slot with a slot of its own, one that
    makes a field a property."""

    @dataclasses.dataclass(slots=True, frozen=frozen)
    class A:
        x: int
        y: str
        z: list = dataclasses.field(default_factory=list)

    class MoreSlots(A):
        __slots__ = ("extra",)

    class Shadowing(A):
        __slots__ = ("x",)

    seen = []

    class WithProperty(A):
        __slots__ = ()

        @property
        def y(self):
            return ("property", seen[-1])

        @y.setter
        def y(self, value):
            seen.append(value)

    value = {"x": 1, "y": "s", "z": [2]}
    A.__new__ = _subclass_new(MoreSlots)
    out = fmt.decode(value, A)
    assert type(out) is MoreSlots and (out.x, out.y, out.z) == (1, "s", [2])
    assert not hasattr(out, "extra")
    A.__new__ = _subclass_new(Shadowing)
    orcodec.Decoder(A)  # compiled again with its own `__new__` (a new Decoder each time)
    out = orcodec.Decoder(A).convert(value) if fmt.name == "convert" else fmt.decode(value, A)
    assert type(out) is Shadowing and (out.x, out.y, out.z) == (1, "s", [2])
    # The value is in the subclass's slot, where attribute access finds it.
    assert Shadowing.__dict__["x"].__get__(out) == 1
    A.__new__ = _subclass_new(WithProperty)
    out = fmt.decode(value, A)
    assert type(out) is WithProperty and seen == ["s"] and out.y == ("property", "s")


@by_format
def test_new_returning_a_class(fmt):
    """A class's attributes are set by `type.__setattr__`, which keeps the type's lookup
    cache right: `object.__setattr__` refuses to pass over it, and so does decoding (the
    generic setattr, called directly, would have changed the class's dict behind that
    cache's back)."""

    class Victim:
        x = "class attribute"

    @dataclasses.dataclass
    class A:
        x: int

        def __new__(cls, *args, **kwargs):
            return Victim

    with pytest.raises(TypeError) as info:
        fmt.decode({"x": 1}, A)
    assert str(info.value) == "can't apply this __setattr__ to type object"
    assert info.value.__notes__ == ["`A.__new__` returned an instance of `type`, not of `A`"]
    assert Victim.x == "class attribute"


def test_a_class_whose_instances_refuse_object_setattr_is_refused():
    @dataclasses.dataclass
    class Meta(type):
        x: int = 0

    message = (
        "Type `Meta` is not supported: its instances set attributes with `type.__setattr__`, "
        "which `object.__setattr__` may not pass over"
    )
    with pytest.raises(TypeError, match=f"^{message.replace('(', '[(]')}$"):
        orcodec.Decoder(Meta)

    # A `__setattr__` written in Python (a frozen class's) is passed over, as
    # `object.__setattr__` passes over it; so is an exception's generic one.
    @dataclasses.dataclass(frozen=True)
    class Frozen:
        x: int

    @dataclasses.dataclass
    class Failure(Exception):
        x: int

    assert orcodec.convert({"x": 1}, Frozen) == Frozen(1)
    assert orcodec.convert({"x": 1}, Failure).x == 1


@by_format
def test_new_raising_propagates(fmt):
    @dataclasses.dataclass(slots=True)
    class A:
        x: int

        def __new__(cls, *args, **kwargs):
            raise LookupError("no instances today")

    with pytest.raises(LookupError, match="^no instances today$"):
        fmt.decode({"x": 1}, A)


@by_format
def test_a_slot_descriptor_replaced_after_the_decoder_was_made(fmt):
    """A field whose `__slots__` member was replaced on the class after the decoder was
    made is stored as `object.__setattr__` stores it now: through a property's setter,
    or refused where the class holds a plain value; the class restored, the slot again."""

    @dataclasses.dataclass(slots=True)
    class A:
        x: int
        y: str

    member = A.__dict__["y"]
    decoder = orcodec.Decoder(A)
    decode = {
        "json": lambda v: decoder.loads(orcodec.dumps(v)),
        "msgpack": lambda v: decoder.unpackb(orcodec.packb(v)),
        "convert": decoder.convert,
    }[fmt.name]
    assert decode({"x": 1, "y": "a"}) == A(1, "a")
    seen = []
    A.y = property(lambda self: ("property", seen[-1]), lambda self, value: seen.append(value))
    out = decode({"x": 2, "y": "b"})
    assert seen == ["b"] and out.y == ("property", "b") and out.x == 2
    A.y = "plain"
    with pytest.raises(AttributeError) as info:
        decode({"x": 3, "y": "c"})
    with pytest.raises(AttributeError) as reference:
        object.__setattr__(object.__new__(A), "y", "c")
    assert str(info.value) == str(reference.value)
    A.y = member
    assert decode({"x": 4, "y": "d"}) == A(4, "d")


@by_format
@pytest.mark.parametrize("kind", ["slots", "attrs", "dict"])
def test_class_changed_while_an_instance_is_filled(fmt, kind):
    """A `dec_hook` run between two fields changes the instance's `__class__` to a class
    of the same layout, or the class's descriptor of a field still to come: the fields
    after it are stored as `object.__setattr__` stores them then."""

    class Hooked:
        pass

    made = []
    ns = {
        "__annotations__": {"x": int, "h": Hooked, "y": str},
        "__new__": lambda cls, *a, **k: made.append(object.__new__(cls)) or made[-1],
    }
    raw = type("A", (), ns)
    if kind == "slots":
        cls = dataclasses.dataclass(slots=True)(raw)
    elif kind == "attrs":
        # (A `__weakref__` slot after the others would refuse any `__class__`
        # assignment: CPython's layout check.)
        cls = attrs.define(weakref_slot=False)(raw)
    else:
        cls = dataclasses.dataclass(raw)
    slots = cls.__dict__.get("__slots__")
    twin = type("Twin", (), {"__slots__": tuple(slots)} if slots is not None else {})
    seen = []

    def to_twin(tp, value):
        made[-1].__class__ = twin
        return value

    out = fmt.decode({"x": 1, "h": 2, "y": "s"}, cls, dec_hook=to_twin)
    assert type(out) is twin and (out.x, out.h, out.y) == (1, 2, "s")

    def replace_y(tp, value):
        cls.y = property(lambda self: ("property", seen[-1]), lambda self, v: seen.append(v))
        return value

    out = fmt.decode({"x": 1, "h": 2, "y": "s"}, cls, dec_hook=replace_y)
    assert type(out) is cls and (out.x, out.h) == (1, 2) and seen == ["s"]


def test_hostile_classes_property():
    """hypothesis: classes with every combination of hostile `__new__`, `__post_init__`
    (`__attrs_post_init__`), late descriptor changes and a `dec_hook` that meddles,
    decoded by loads, unpackb and convert: the reference outcome (see hostile_classes),
    never a crash. In a child process, so a crash is this test's failure."""
    done = subprocess.run(
        [sys.executable, str(HERE / "hostile_classes.py"), "400"],
        capture_output=True,
        text=True,
        cwd=HERE,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.stdout.strip().endswith("property held")


def test_every_hostile_new_once_in_a_child():
    """Each hostile `__new__` of hostile_classes with each class kind and entry point, the
    document complete: deterministic companions to the property test."""
    code = """
        import itertools, sys
        sys.path.insert(0, ".")
        import hostile_classes as hc
        document = hc.document_from(["y", "u", "x", "h", "z"], 5, "s", [1, 2], 3)
        for kind, new, entry in itertools.product(range(hc.KINDS), range(hc.NEWS), range(hc.ENTRIES)):
            print(kind, new, entry, flush=True)
            hc.check((kind, new, 1, 0, 0, entry), document)
            hc.check((kind, new, 0, 2, 0, entry), document)
        print("all held")
    """
    done = run_child(code)
    assert done.returncode == 0, done.stdout[-500:] + done.stderr[-3000:]
    assert done.stdout.strip().endswith("all held")
