"""atheris: objects generated from the fuzz input, encoded and decoded in
both formats. The encodings must equal orjson's and msgpack's byte for byte
(the drop-in promise) and decode back to the object (tuples as lists, and in
JSON NaN and the infinities as None)."""

import math
import sys

import atheris

with atheris.instrument_imports():
    import msgpack
    import oracle
    import orcodec
    import orjson

JSON_OPTIONS = [
    (0, 0),
    (orcodec.OPT_SORT_KEYS, orjson.OPT_SORT_KEYS),
    (orcodec.OPT_INDENT_2, orjson.OPT_INDENT_2),
    (orcodec.OPT_INDENT_2 | orcodec.OPT_SORT_KEYS, orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS),
]


def generate(fdp: atheris.FuzzedDataProvider, depth: int, with_bytes: bool):
    kind = fdp.ConsumeIntInRange(0, 9 if depth < 8 else 5)
    if kind == 0:
        return fdp.PickValueInList([None, True, False])
    if kind == 1:
        # Half of them below 2**30 in magnitude: the runs of ints a JSON list
        # writes in one loop, and every digit count of the int writer.
        if fdp.ConsumeBool():
            return fdp.ConsumeIntInRange(-(2**30) + 1, 2**30 - 1) // 10 ** fdp.ConsumeIntInRange(0, 9)
        return fdp.ConsumeIntInRange(-(2**63), 2**64 - 1)
    if kind == 2:
        return fdp.ConsumeFloat()
    if kind == 3:
        return fdp.ConsumeUnicodeNoSurrogates(fdp.ConsumeIntInRange(0, 40))
    if kind == 4:
        return fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 40)) if with_bytes else fdp.ConsumeIntInRange(-40, 40)
    if kind == 5:
        return fdp.ConsumeIntInRange(-40, 300)
    if kind == 9:
        # A list of floats (coordinates, measurements), which JSON writes by
        # a loop of its own, sometimes with another item among them.
        floats = [fdp.ConsumeFloat() for _ in range(fdp.ConsumeIntInRange(0, 80))]
        if floats and fdp.ConsumeBool():
            floats[fdp.ConsumeIntInRange(0, len(floats) - 1)] = generate(fdp, depth + 1, with_bytes)
        return floats
    n = fdp.ConsumeIntInRange(0, 12)
    if kind == 6:
        return [generate(fdp, depth + 1, with_bytes) for _ in range(n)]
    if kind == 7:
        return tuple(generate(fdp, depth + 1, with_bytes) for _ in range(n))
    return {
        fdp.ConsumeUnicodeNoSurrogates(fdp.ConsumeIntInRange(0, 10)): generate(fdp, depth + 1, with_bytes)
        for _ in range(n)
    }


def plain(obj, json: bool, sort_keys: bool = False):
    """What the object decodes back as."""
    if isinstance(obj, (list, tuple)):
        return [plain(x, json, sort_keys) for x in obj]
    if isinstance(obj, dict):
        items = sorted(obj.items()) if sort_keys else obj.items()
        return {k: plain(v, json, sort_keys) for k, v in items}
    if json and isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def test_one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    with_bytes = fdp.ConsumeBool()
    ours, theirs = fdp.PickValueInList(JSON_OPTIONS)
    obj = generate(fdp, 0, with_bytes)

    packed = orcodec.packb(obj)
    assert packed == msgpack.packb(obj, use_bin_type=True), f"{obj!r:.300}"
    assert oracle.same(orcodec.unpackb(packed), plain(obj, json=False)), f"{obj!r:.300}"
    # The same output length again: from the third call on the buffer is sized to
    # it and to what the writes reserve past it (learned from a grow).
    for _ in range(2):
        assert orcodec.packb(obj) == packed, f"{obj!r:.300}"
    if not with_bytes:
        text = orcodec.dumps(obj, option=ours)
        assert text == orjson.dumps(obj, option=theirs), f"{obj!r:.300}"
        for _ in range(2):
            assert orcodec.dumps(obj, option=ours) == text, f"{obj!r:.300}"
        expected = plain(obj, json=True, sort_keys=bool(ours & orcodec.OPT_SORT_KEYS))
        assert oracle.same(orcodec.loads(text), expected), f"{obj!r:.300}"


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
