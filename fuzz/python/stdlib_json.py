"""atheris: orcodec.json against the standard library's json, which is the oracle.
The input builds a document (str values and keys with any code point, lone
surrogates included; ints past 64 bits; floats with NaN and infinities; int, float,
str, list and dict subclasses; keys of every coercible type and some that are not;
objects only `default` knows; shared and circular containers) and one combination of
dumps' options; `orcodec.json.dumps` and `json.dumps` must give the same text, or
raise the same exception type with the same message. The text is then read back by
both `loads` (as str and as UTF-8 bytes), and the rest of the input is decoded as
JSON text by both too.

    python fuzz/python/stdlib_json.py [corpus...] [libFuzzer flags]
"""

import json
import sys

import atheris

with atheris.instrument_imports():
    import orcodec.json as oj


class SubStr(str):
    pass


class SubInt(int):
    pass


class SubFloat(float):
    pass


class SubList(list):
    pass


class SubDict(dict):
    pass


class Opaque:
    pass


INDENTS = [None, 0, 1, 2, 4, -1, "", "\t", "\u00e9", " \ud800 "]
SEPARATORS = [None, (",", ":"), (", ", ": "), (" ,", " : "), ("\u00b7", "\U0001f600"), (";", "\udc00")]
DEFAULTS = [None, repr, lambda o: [type(o).__name__], lambda o: {"o": 1.5}, lambda o: o]


def text(fdp):
    units = fdp.ConsumeIntListInRange(fdp.ConsumeIntInRange(0, 6), 0, 0x10FFFF)
    return "".join(map(chr, units)) if fdp.ConsumeBool() else fdp.ConsumeUnicode(6)


@atheris.instrument_func
def key(fdp):
    kind = fdp.ConsumeIntInRange(0, 8)
    if kind == 0:
        return fdp.ConsumeInt(10)
    if kind == 1:
        return fdp.ConsumeFloat()
    if kind == 2:
        return fdp.ConsumeBool()
    if kind == 3:
        return None
    if kind == 4:
        return SubStr(text(fdp))
    if kind == 5:
        return (1,) if fdp.ConsumeBool() else b"k"
    return text(fdp)


@atheris.instrument_func
def value(fdp, depth, shared):
    kind = fdp.ConsumeIntInRange(0, 14)
    if kind == 0:
        return fdp.ConsumeInt(fdp.ConsumeIntInRange(1, 12))
    if kind == 1:
        return fdp.ConsumeFloat()
    if kind == 2:
        return text(fdp)
    if kind == 3:
        return fdp.ConsumeBool()
    if kind == 4:
        return None
    if kind == 5:
        return SubInt(fdp.ConsumeInt(9))
    if kind == 6:
        return SubFloat(fdp.ConsumeFloat())
    if kind == 7:
        return SubStr(text(fdp))
    if kind == 8:
        return Opaque() if fdp.ConsumeBool() else complex(1, 2)
    if kind == 9 and shared:
        # A container met again: shared, or circular if it is an ancestor.
        return shared[fdp.ConsumeIntInRange(0, len(shared) - 1)]
    if depth >= 4:
        return 0
    if kind in (10, 11):
        out = [] if kind == 10 else SubList()
        shared.append(out)
        out.extend(value(fdp, depth + 1, shared) for _ in range(fdp.ConsumeIntInRange(0, 4)))
        return tuple(out) if fdp.ConsumeIntInRange(0, 5) == 0 else out
    out = {} if kind != 12 else SubDict()
    shared.append(out)
    for _ in range(fdp.ConsumeIntInRange(0, 4)):
        out[key(fdp)] = value(fdp, depth + 1, shared)
    return out


def pick(fdp, choices):
    return choices[fdp.ConsumeIntInRange(0, len(choices) - 1)]


def outcome(fn, *args, **kwargs):
    try:
        return ("ok", fn(*args, **kwargs))
    except (TypeError, ValueError, RecursionError) as exc:
        return ("raised", type(exc), str(exc))


def test_one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    doc = value(fdp, 0, [])
    options = {
        "skipkeys": fdp.ConsumeBool(),
        "ensure_ascii": fdp.ConsumeBool(),
        "check_circular": fdp.ConsumeIntInRange(0, 7) != 0,
        "allow_nan": fdp.ConsumeBool(),
        "sort_keys": fdp.ConsumeBool(),
        "indent": pick(fdp, INDENTS),
        "separators": pick(fdp, SEPARATORS),
        "default": pick(fdp, DEFAULTS),
    }
    got, want = outcome(oj.dumps, doc, **options), outcome(json.dumps, doc, **options)
    if want[0] == "raised" and want[1] is RecursionError:
        # Only the type: the depth at which each runs out differs.
        assert got[:2] == want[:2], (doc, options, got, want)
        return
    assert got == want, (doc, options, got, want)
    texts = [got[1]] if got[0] == "ok" else []
    texts.append(fdp.ConsumeUnicode(fdp.remaining_bytes()))
    for t in texts:
        assert repr(outcome(oj.loads, t)) == repr(outcome(json.loads, t)), t
        raw = t.encode("utf-8", "surrogatepass")
        assert repr(outcome(oj.loads, raw)) == repr(outcome(json.loads, raw)), raw


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
