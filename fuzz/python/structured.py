"""atheris, structure-aware: valid JSON and MessagePack documents, edited as
object trees (values swapped for edge cases, items added, dropped, nested)
and re-encoded, sometimes with a byte-level mutation on top; each input goes
through both decoders, checked against orjson and msgpack."""

import copy
import random
import sys

import atheris

with atheris.instrument_imports():
    import msgpack
    import oracle
    import orjson

EDGE_VALUES = [
    None,
    True,
    False,
    0,
    -1,
    127,
    128,
    -32,
    -33,
    255,
    256,
    65535,
    65536,
    2**31,
    2**32,
    2**53 + 1,
    2**63 - 1,
    2**63,
    2**64 - 1,
    -(2**63),
    0.0,
    -0.0,
    1.5,
    1e16,
    1e-7,
    5e-324,
    2.2250738585072014e-308,
    1.7976931348623157e308,
    "",
    "a",
    '"\\/\b\f\n\r\t',
    "\x00\x1f\x7f",
    "é",
    "\u2028\u2029",
    "\ufeff",
    "\U0001f600",
    "x" * 31,
    "x" * 32,
    "x" * 255,
    "x" * 256,
    "k" * 65,
    [],
    {},
    [[]],
    {"": {}},
]


def decode(data: bytes):
    """The document and its format, or None when neither reference reads it."""
    try:
        return orjson.loads(data), "json"
    except orjson.JSONDecodeError:
        pass
    try:
        return msgpack.unpackb(data, raw=False, strict_map_key=True), "msgpack"
    except Exception:  # msgpack raises many types for bad input
        return None


def containers(root):
    """Every list and dict in the tree (iteratively: documents nest 1024 deep)."""
    found, todo = [], [root]
    while todo:
        obj = todo.pop()
        if isinstance(obj, (list, dict)):
            found.append(obj)
            todo.extend(obj.values() if isinstance(obj, dict) else obj)
    return found


def edit(obj, rnd: random.Random):
    """One random edit of the tree; returns the (possibly new) root."""
    found = containers(obj)
    if not found or rnd.random() < 0.1:
        return rnd.choice([[obj], {"k": obj}, copy.deepcopy(rnd.choice(EDGE_VALUES))])
    target = rnd.choice(found)
    # Fresh copies: an edge value shared between edits would grow into cycles.
    value = copy.deepcopy(rnd.choice(EDGE_VALUES))
    if rnd.random() < 0.3:
        value = [copy.deepcopy(value) for _ in range(rnd.randint(1, 3))]
    if isinstance(target, list):
        action = rnd.randrange(3)
        if action == 0 or not target:
            target.insert(rnd.randint(0, len(target)), value)
        elif action == 1:
            del target[rnd.randrange(len(target))]
        else:
            target[rnd.randrange(len(target))] = value
    else:
        if target and rnd.random() < 0.4:
            del target[rnd.choice(list(target))]
        else:
            key = rnd.choice([k for k in EDGE_VALUES if isinstance(k, str)] + list(target))
            target[key] = value
    return obj


def custom_mutator(data: bytes, max_size: int, seed: int) -> bytes:
    rnd = random.Random(seed)
    decoded = decode(data)
    if decoded is None or rnd.random() < 0.2:
        return atheris.Mutate(data, max_size)
    obj, fmt = decoded
    for _ in range(rnd.randint(1, 4)):
        obj = edit(obj, rnd)
    try:
        out = orjson.dumps(obj) if fmt == "json" else msgpack.packb(obj, use_bin_type=True)
    except (TypeError, ValueError, OverflowError, RecursionError):  # too deep or big for the reference
        return atheris.Mutate(data, max_size)
    if rnd.random() < 0.25:
        out = atheris.Mutate(out, max(max_size, len(out)))
    return out[:max_size]


def test_one_input(data: bytes) -> None:
    oracle.check_loads(data)
    oracle.check_unpackb(data)


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input, custom_mutator=custom_mutator)
    atheris.Fuzz()
