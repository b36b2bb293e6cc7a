"""atheris: typed decoding into classes that fight it (see tests/hostile_classes.py):
a `__new__` returning an int, None, `object()`, a class, an instance of another
`__slots__` class or of a subclass, `__post_init__` that raises or changes
`__class__`, descriptors replaced after the decoder was made or by the
`dec_hook` while an instance is filled, dataclasses and attrs classes with and
without slots, frozen or not, in loads, unpackb and convert. The input picks
the scenario and the document; each decode must give the outcome the reference
model gives (`object.__new__` or the class's `__new__`, then
`object.__setattr__` per field in input order, defaults, `__post_init__`):
the same object (type and fields) or the same exception and message. A crash
is a failure."""

import sys
from pathlib import Path

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))

with atheris.instrument_imports():
    import hostile_classes
    import orcodec  # noqa: F401 - instrumented before hostile_classes uses it

import oracle

KEYS = ["x", "y", "z", "h", "u"]


@atheris.instrument_func
def test_one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    scenario = tuple(fdp.ConsumeIntInRange(0, n - 1) for n in hostile_classes.SHAPE)
    keys = [k for k in KEYS if fdp.ConsumeBool()]
    order = fdp.ConsumeIntInRange(0, 119)
    # One of the orders of the keys chosen.
    ordered = []
    while keys:
        ordered.append(keys.pop(order % len(keys)))
        order //= len(keys) + 1
    document = hostile_classes.document_from(
        ordered,
        fdp.ConsumeIntInRange(-(2**63), 2**64 - 1),
        fdp.ConsumeUnicodeNoSurrogates(fdp.ConsumeIntInRange(0, 8)),
        [fdp.ConsumeIntInRange(-(2**63), 2**63 - 1) for _ in range(fdp.ConsumeIntInRange(0, 3))],
        fdp.ConsumeIntInRange(0, 9),
    )
    outcome = hostile_classes.check(scenario, document)
    oracle.feature(scenario[:3], outcome[0][0], outcome[0][1])


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
