"""atheris: dataclass instances whose `__dict__` the input shapes (attributes
set, deleted and set again, names private or not, ASCII or not, past the
split table's size), written by `dumps` in orjson's form and checked byte for
byte against orjson; and by `packb` against ormsgpack. Instances of several
classes are mixed in one call, and classes gain and lose `__slots__` and
`__dataclass_fields__` between calls, so what is remembered of each class is
exercised too. Never a crash; an error only where the peer raises one too.

Empty attribute names are left out (orjson aborts the process on one), and
so are missing fields of a class that declares `__slots__` (orjson crashes)."""

import dataclasses
import sys

import atheris

with atheris.instrument_imports():
    import orcodec
    import ormsgpack

import orjson

NAMES = ["x", "y", "_h", "z", "é", "_é", "a" * 20, "_" + "b" * 20, "\U0001f600", "_", "x_", "n1", "n2", "n3"]


@dataclasses.dataclass
class A:
    x: int
    y: str = "y"
    _h: int = 0
    z: float = 1.5


@dataclasses.dataclass
class B:
    x: int = 0


class Plain:
    pass


CLASSES = [A, B, Plain]


@atheris.instrument_func
def value(fdp: atheris.FuzzedDataProvider, depth: int):
    kind = fdp.ConsumeIntInRange(0, 6)
    if kind == 0:
        return fdp.ConsumeInt(8)
    if kind == 1:
        return fdp.ConsumeUnicodeNoSurrogates(8)
    if kind == 2:
        return None
    if kind == 3:
        return fdp.ConsumeRegularFloat()
    if kind == 4 and depth < 3:
        return [value(fdp, depth + 1) for _ in range(fdp.ConsumeIntInRange(0, 3))]
    if kind == 5 and depth < 3:
        return instance(fdp, depth + 1)
    return True


@atheris.instrument_func
def instance(fdp: atheris.FuzzedDataProvider, depth: int):
    cls = CLASSES[fdp.ConsumeIntInRange(0, len(CLASSES) - 1)]
    obj = cls.__new__(cls)
    for _ in range(fdp.ConsumeIntInRange(0, 40)):
        op = fdp.ConsumeIntInRange(0, 3)
        if op == 3:
            name = f"m{fdp.ConsumeIntInRange(0, 40)}"
        else:
            name = NAMES[fdp.ConsumeIntInRange(0, len(NAMES) - 1)]
        if op == 2:
            obj.__dict__.pop(name, None)
        else:
            setattr(obj, name, value(fdp, depth))
    if "__slots__" in vars(cls):
        # orjson then reads the fields by getattr, and crashes on a missing one.
        for name in getattr(cls, "__dataclass_fields__", {}):
            if name not in obj.__dict__:
                setattr(obj, name, 0)
    return obj


@atheris.instrument_func
def change_classes(fdp: atheris.FuzzedDataProvider) -> None:
    op = fdp.ConsumeIntInRange(0, 7)
    cls = CLASSES[fdp.ConsumeIntInRange(0, len(CLASSES) - 1)]
    if op == 0:
        cls.__slots__ = ()
    elif op == 1 and "__slots__" in vars(cls):
        del cls.__slots__
    elif op == 2 and cls is Plain:
        Plain.__dataclass_fields__ = {}
    elif op == 3 and "__dataclass_fields__" in vars(Plain):
        del Plain.__dataclass_fields__


@atheris.instrument_func
def outcome(encode, objs):
    """The bytes, or "error" for an encode error (a TypeError in all four libraries)."""
    try:
        return encode(objs)
    except TypeError:
        return "error"


def test_one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    change_classes(fdp)
    objs = [instance(fdp, 0) for _ in range(fdp.ConsumeIntInRange(1, 4))]
    got, want = outcome(orcodec.dumps, objs), outcome(orjson.dumps, objs)
    assert got == want, ("dumps", got, want)
    got, want = outcome(orcodec.packb, objs), outcome(ormsgpack.packb, objs)
    assert got == want, ("packb", got, want)


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
