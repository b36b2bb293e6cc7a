"""atheris: dataclasses made from the input with a wire policy (a rename
policy or a callable whose answers the input chooses, some of them no str,
raising, or two fields' same name; Name markers; omit_defaults and
omit_none) and per-call OPT_OMIT_DEFAULTS / OPT_OMIT_NONE, nested in each
other. What dumps and packb write is held to the policy computed here in
Python (the fields under their wire names, the left-out ones absent), typed
decoding reads it back into equal instances in both formats, and a policy
that cannot be made is a TypeError everywhere. Never a crash."""

import dataclasses
import sys
from typing import Annotated, Any, Optional

import atheris

with atheris.instrument_imports():
    import orcodec

NAMES = ["a", "b_c", "order_id", "_p", "x1_y", "HTTP_code", "é_ü", "z__z"]
WIRE = ["A", "b", "orderId", "same", "é", "", "a"]
POLICIES = ["camel", "pascal", "kebab", "screaming_snake"]


class Refused(Exception):
    pass


@atheris.instrument_func
def make_class(fdp: atheris.FuzzedDataProvider, inner):
    count = fdp.ConsumeIntInRange(1, 5)
    names = []
    for _ in range(count):
        name = NAMES[fdp.ConsumeIntInRange(0, len(NAMES) - 1)]
        if name not in names:
            names.append(name)
    fields = []
    for name in names:
        tp: Any = Optional[inner] if inner is not None and fdp.ConsumeBool() else Any
        if fdp.ConsumeIntInRange(0, 4) == 0:
            tp = Annotated[tp, orcodec.Name(WIRE[fdp.ConsumeIntInRange(0, len(WIRE) - 1)])]
        default = [None, 0, "", dataclasses.MISSING][fdp.ConsumeIntInRange(0, 3)]
        fields.append((name, tp, dataclasses.field(default=default)))
    # Fields without a default may not follow fields with one.
    fields.sort(key=lambda f: f[2].default is not dataclasses.MISSING)
    cls = dataclasses.make_dataclass("Fuzzed", fields)
    choice = fdp.ConsumeIntInRange(0, 7)
    if choice < 4:
        rename = POLICIES[choice]
    elif choice == 4:
        answers = {name: WIRE[fdp.ConsumeIntInRange(0, len(WIRE) - 1)] for name in names}
        rename = answers.__getitem__
    elif choice == 5:
        rename = lambda name: 1  # noqa: E731 - no str
    elif choice == 6:

        def rename(name):
            raise Refused(name)

    else:
        rename = None
    return orcodec.options(rename=rename, omit_defaults=fdp.ConsumeBool(), omit_none=fdp.ConsumeBool())(cls)


def expected(value, omit_defaults: bool, omit_none: bool):
    """What the encoders must write of `value`, as Python objects; raises
    TypeError where the policy cannot be made."""
    if isinstance(value, list):
        return [expected(v, omit_defaults, omit_none) for v in value]
    if not dataclasses.is_dataclass(value):
        return value
    from orcodec import _wire

    cls = type(value)
    opts = _wire.class_options(cls)
    fields = [f for f in dataclasses.fields(cls) if not f.name.startswith("_")]
    wire = _wire.wire_names(cls, [(f.name, f.type) for f in fields])
    out = {}
    for f, key in zip(fields, wire):
        v = getattr(value, f.name)
        if (omit_none or opts.get("omit_none")) and v is None:
            continue
        if (omit_defaults or opts.get("omit_defaults")) and f.default is not dataclasses.MISSING and v == f.default:
            continue
        out[key] = expected(v, omit_defaults, omit_none)
    return out


def _nests(field) -> bool:
    """Whether the field's type is the inner class (optional), not `Any`."""
    return getattr(field.type, "__origin__", field.type) is not Any


@atheris.instrument_func
def test_one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    inner = make_class(fdp, None) if fdp.ConsumeBool() else None
    outer = make_class(fdp, inner)
    values = []
    for cls in (inner, outer):
        if cls is None:
            continue
        kwargs = {}
        for f in dataclasses.fields(cls):
            # The inner instance only where the type says so: under `Any` it reads back as a dict.
            nested = values and _nests(f)
            if nested:
                kwargs[f.name] = values[-1] if fdp.ConsumeBool() else None
            else:
                kwargs[f.name] = [None, 0, fdp.ConsumeUnicodeNoSurrogates(4)][fdp.ConsumeIntInRange(0, 2)]
        values.append(cls(**kwargs))
    value = values[-1]
    omit_defaults, omit_none = fdp.ConsumeBool(), fdp.ConsumeBool()
    option = (orcodec.OPT_OMIT_DEFAULTS if omit_defaults else 0) | (orcodec.OPT_OMIT_NONE if omit_none else 0)
    try:
        want = expected(value, omit_defaults, omit_none)
    except TypeError:
        for encode in (orcodec.dumps, orcodec.packb):
            try:
                encode(value, option=option)
            except TypeError:
                continue
            raise AssertionError("a policy that cannot be made was used") from None
        return
    assert orcodec.loads(orcodec.dumps(value, option=option)) == want
    assert orcodec.unpackb(orcodec.packb(value, option=option)) == want
    from orcodec import _wire

    classes = [type(v) for v in values]
    lossless = not omit_none and not any(_wire.class_options(c).get("omit_none") for c in classes)
    if lossless and not any("_p" in c.__dataclass_fields__ for c in classes):
        # Only defaults left out: typed decoding reads an equal instance back,
        # or refuses the type when a class in it (the inner one, even unused
        # by the value) has a policy that cannot be made.
        used = [outer]
        if inner is not None and any(_nests(f) for f in dataclasses.fields(outer)):
            used.append(inner)
        try:
            for c in used:
                _wire.wire_names(c, [(f.name, f.type) for f in dataclasses.fields(c)])
        except TypeError:
            for call in (lambda: orcodec.loads(b"{}", type=outer), lambda: orcodec.unpackb(b"\x80", type=outer)):
                try:
                    call()
                except TypeError:
                    continue
                raise AssertionError("a type whose policy cannot be made was compiled") from None
            return
        assert orcodec.loads(orcodec.dumps(value), type=type(value)) == value
        assert orcodec.unpackb(orcodec.packb(value), type=type(value)) == value


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
