"""Classes that fight typed decoding, and what decoding into them must give.

A *scenario* is a tuple of small ints (drawn by hypothesis in
``test_typed_hostile_classes.py``, or by the atheris target
``fuzz/python/typed_classes.py``). :func:`build` turns it into a fresh class
(a dataclass or an attrs class, with or without ``__slots__``, frozen or
not) whose ``__new__``, ``__post_init__``, descriptors and ``dec_hook`` may
misbehave: return an int, ``None``, ``object()``, an instance of another
``__slots__`` class or of a subclass with more slots, raise, change the
instance's ``__class__`` or the class's descriptors while the instance is
being filled. It also gives a document and an entry point (``loads``,
``unpackb``, ``convert``).

:func:`reference` is what typed decoding promises, written in Python:
the object is what the class's own ``__new__`` returns (``object.__new__``
for a class without one), each field read is set with ``object.__setattr__``
in the order of the input, missing fields get their defaults (or the
"missing required field" error), then ``__post_init__`` runs; a
``ValueError`` or ``TypeError`` from the hook or ``__post_init__`` is a
``ValidationError`` with its text, anything else propagates.
:func:`check` decodes the scenario with orcodec and compares the outcome
with the reference's, both run on classes of their own (built twice from
the scenario), so side effects of one cannot reach the other.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import attrs
import orcodec

# How many choices each position of a scenario has.
KINDS = 7  # see `_make_class`
NEWS = 14  # see `_new`
POST_INITS = 6  # see `_post_init`
HOOKS = 6  # see `_hook`
LATE = 3  # a change to the class after the decoder was made: none, a property, a plain value
ENTRIES = 3  # loads, unpackb, convert
SHAPE = (KINDS, NEWS, POST_INITS, HOOKS, LATE, ENTRIES)

FIELDS = ("x", "y", "z", "h")
UNSET = "<unset>"


class Hooked:
    """The type of field ``h``: decoded by the ``dec_hook``."""


@dataclasses.dataclass
class Case:
    cls: type
    hook: Any
    decoder: orcodec.Decoder
    world: dict


def _bare(kind: int) -> bool:
    """Whether instances of kind `kind` have no ``__dict__``."""
    return kind in (1, 2, 4, 5)


def _make_class(kind: int, namespace: dict) -> type:
    """Kind 0: a dataclass; 1: with slots; 2: frozen with slots; 3: frozen;
    4: an attrs class (slots); 5: frozen attrs with slots; 6: attrs without slots."""
    annotations = {"x": int, "y": str, "z": list[int], "h": Hooked}
    if kind <= 3:
        body = dict(namespace)
        body["__annotations__"] = annotations
        body["z"] = dataclasses.field(default_factory=list)
        body["h"] = None
        raw = type("Target", (), body)
        return dataclasses.dataclass(slots=kind in (1, 2), frozen=kind in (2, 3))(raw)
    body = dict(namespace)
    body["__annotations__"] = annotations
    body["z"] = attrs.field(factory=list)
    body["h"] = None
    raw = type("Target", (), body)
    return attrs.define(slots=kind != 6, frozen=kind == 5)(raw)


def _twin(cls: type) -> type:
    """A class unrelated to `cls` whose instances have its layout (what
    ``__class__`` assignment allows)."""
    slots = cls.__dict__.get("__slots__")
    if slots is None:
        return type("Twin", (), {})
    return type("Twin", (), {"__slots__": tuple(slots)})


@dataclasses.dataclass(slots=True)
class OtherSlots:
    """A foreign ``__slots__`` dataclass with other fields."""

    q: int = 0


@dataclasses.dataclass(slots=True)
class SameNames:
    """A foreign ``__slots__`` dataclass with the same field names."""

    x: Any = None
    y: Any = None
    z: Any = None
    h: Any = None


@attrs.define
class AttrsSameNames:
    x: Any = None
    y: Any = None
    z: Any = None
    h: Any = None


class Small:
    """A foreign object smaller than any instance of the classes above."""

    __slots__ = ()


def _new(choice: int, world: dict):
    """The class's ``__new__`` (None: object's).

    0: none; 1: ``object.__new__(cls)``, kept in ``world["made"]``; 2: 12345;
    3: None; 4: ``object()``; 5: an ``OtherSlots``; 6: a ``SameNames``;
    7: an ``AttrsSameNames``; 8: a ``Small``; 9: an instance of a subclass
    with an extra slot (or attribute); 10: an instance of a subclass whose
    ``y`` is a property; 11: raises ``RuntimeError``; 12: the same instance
    at every call; 13: a class (whose attributes only ``type.__setattr__``
    may set)."""
    if choice == 0:
        return None

    def new(cls, *args, **kwargs):
        if choice == 1:
            obj = object.__new__(cls)
            world["made"].append(obj)
            return obj
        if choice == 2:
            return 12345
        if choice == 3:
            return None
        if choice == 4:
            return object()
        if choice == 5:
            return OtherSlots(7)
        if choice == 6:
            return SameNames()
        if choice == 7:
            return AttrsSameNames()
        if choice == 8:
            return Small()
        if choice == 9:
            return object.__new__(world["sub_extra"])
        if choice == 10:
            return object.__new__(world["sub_property"])
        if choice == 11:
            raise RuntimeError("no instance today")
        if choice == 13:
            return Small
        if "single" not in world:
            world["single"] = object.__new__(cls)
        return world["single"]

    return new


def _post_init(choice: int, world: dict):
    """0: none; 1: records that it ran; 2: raises ValueError; 3: raises
    RuntimeError; 4: changes the instance's ``__class__`` to the twin;
    5: returns a value (ignored)."""
    if choice == 0:
        return None

    def post_init(self, *args):
        world["post_init"].append(type(self).__name__)
        if choice == 2:
            raise ValueError("post-init refuses")
        if choice == 3:
            raise RuntimeError("post-init broke")
        if choice == 4:
            self.__class__ = world["twin"]
        if choice == 5:
            return 42
        return None

    return post_init


def _hook(choice: int, world: dict):
    """The ``dec_hook`` for field ``h``. 0: returns a ``Hooked``; 1: gives the
    class a property ``y`` first; 2: changes the ``__class__`` of the last
    instance ``__new__`` made to the twin; 3: raises ValueError; 4: sets the
    class's ``y`` to a plain value; 5: makes the last instance's ``__dict__``."""

    def hook(tp, value):
        cls = world["cls"]
        if choice == 1:
            cls.y = _recording_property(world)
        elif choice == 2 and world["made"]:
            try:
                world["made"][-1].__class__ = world["twin"]
            except TypeError:
                pass
        elif choice == 3:
            raise ValueError("hook refuses")
        elif choice == 4:
            cls.y = "plain"
        elif choice == 5 and world["made"]:
            getattr(world["made"][-1], "__dict__", None)
        out = Hooked()
        out.value = value
        return out

    return hook


def _recording_property(world: dict) -> property:
    def get(self):
        return ("property", world["set"][-1] if world["set"] else None)

    def put(self, value):
        world["set"].append(value)

    return property(get, put)


def build(scenario) -> Case:
    """A fresh class (and the world it keeps its side effects in) for `scenario`."""
    kind, new_choice, post_choice, hook_choice, late, _entry = scenario
    world: dict = {"made": [], "post_init": [], "set": []}
    namespace: dict = {}
    new = _new(new_choice, world)
    if new is not None:
        namespace["__new__"] = new
    post_init = _post_init(post_choice, world)
    if post_init is not None:
        namespace["__attrs_post_init__" if kind >= 4 else "__post_init__"] = post_init
    cls = _make_class(kind, namespace)
    world["cls"] = cls
    world["twin"] = _twin(cls)
    extra = {"__slots__": ("extra",)} if _bare(kind) else {}
    world["sub_extra"] = type("SubExtra", (cls,), dict(extra))
    world["sub_property"] = type(
        "SubProperty", (cls,), {**({"__slots__": ()} if _bare(kind) else {}), "y": _recording_property(world)}
    )
    hook = _hook(hook_choice, world)
    decoder = orcodec.Decoder(cls, dec_hook=hook)
    if late == 1:
        cls.y = _recording_property(world)
    elif late == 2:
        cls.y = "plain"
    return Case(cls, hook, decoder, world)


def snapshot(obj) -> tuple:
    """What a decoded object is, comparable across two runs."""
    values = []
    for name in (*FIELDS, "extra"):
        try:
            value = getattr(obj, name)
        except AttributeError:
            value = UNSET
        if isinstance(value, Hooked):
            value = ("Hooked", value.value)
        values.append(value)
    d = getattr(obj, "__dict__", None)
    items = None
    if isinstance(d, dict):
        items = [(k, ("Hooked", v.value) if isinstance(v, Hooked) else v) for k, v in d.items()]
    return ("value", type(obj).__name__, tuple(values), items)


def failure(exc: BaseException) -> tuple:
    kind = "ValidationError" if isinstance(exc, orcodec.ValidationError) else type(exc).__name__
    return ("error", kind, str(exc))


def reference(scenario, document: dict) -> tuple:
    """The outcome typed decoding promises for `scenario` and `document`."""
    case = build(scenario)
    cls, world = case.cls, case.world
    try:
        new = cls.__dict__.get("__new__")
        obj = new(cls) if new is not None else object.__new__(cls)
        seen = set()
        for key, value in document.items():
            if key not in FIELDS:
                continue
            if key == "h":
                try:
                    value = case.hook(Hooked, value)
                except (ValueError, TypeError) as exc:
                    raise orcodec.ValidationError(f"{exc} - at `$.h`") from exc
            if key == "z":
                value = list(value)
            object.__setattr__(obj, key, value)
            seen.add(key)
        for key in FIELDS:
            if key in seen:
                continue
            if key in ("x", "y"):
                raise orcodec.ValidationError(f"Object missing required field `{key}`")
            object.__setattr__(obj, key, [] if key == "z" else None)
        name = "__attrs_post_init__" if scenario[0] >= 4 else "__post_init__"
        if scenario[2] != 0:
            try:
                getattr(obj, name)()
            except (ValueError, TypeError) as exc:
                raise orcodec.ValidationError(str(exc)) from exc
    except Exception as exc:  # noqa: BLE001 - the outcome compared
        return failure(exc), world["post_init"], world["set"]
    return snapshot(obj), world["post_init"], world["set"]


def decode(scenario, document: dict) -> tuple:
    """The outcome of orcodec's typed decoding for `scenario` and `document`."""
    case = build(scenario)
    entry = scenario[5]
    try:
        if entry == 0:
            out = case.decoder.loads(orcodec.dumps(document))
        elif entry == 1:
            out = case.decoder.unpackb(orcodec.packb(document))
        else:
            out = case.decoder.convert(document)
    except Exception as exc:  # noqa: BLE001 - the outcome compared
        if isinstance(exc, orcodec.ValidationError):
            expected = (orcodec.JSONDecodeError, orcodec.MsgpackDecodeError, orcodec.ValidationError)[entry]
            assert isinstance(exc, expected), (scenario, exc)
        return failure(exc), case.world["post_init"], case.world["set"]
    return snapshot(out), case.world["post_init"], case.world["set"]


def check(scenario, document: dict) -> tuple:
    """Decodes `document` for `scenario` and asserts the reference's outcome;
    returns it."""
    got = decode(scenario, document)
    want = reference(scenario, document)
    assert got == want, f"scenario {scenario}, document {document!r}:\n  orcodec:   {got}\n  reference: {want}"
    return got


def document_from(keys, x: int, y: str, z: list, h: int) -> dict:
    """The document holding `keys` (in that order) of the field values given,
    and ``u``, an unknown field."""
    values = {"x": x, "y": y, "z": z, "h": h, "u": [1, {"v": 2}]}
    return {k: values[k] for k in keys}


def run_property(examples: int) -> None:
    """Checks `examples` scenarios and documents drawn by hypothesis (run in a
    child process by the tests: a crash there is a failed test, not a dead
    test run)."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    scenarios = st.tuples(*(st.integers(0, n - 1) for n in SHAPE))
    keys = st.permutations(["x", "y", "z", "h", "u"]).flatmap(lambda p: st.integers(0, 5).map(lambda n: p[:n]))
    documents = st.builds(
        document_from,
        keys,
        st.integers(-(2**63), 2**64 - 1),
        st.text(max_size=8),
        st.lists(st.integers(-(2**63), 2**63 - 1), max_size=3),
        st.integers(0, 9),
    )

    @settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(scenarios, documents)
    def property_holds(scenario, document):
        check(scenario, document)

    property_holds()


if __name__ == "__main__":
    import sys

    run_property(int(sys.argv[1]) if len(sys.argv) > 1 else 500)
    print("property held")
