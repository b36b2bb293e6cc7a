"""atheris: arbitrary bytes as JSON read in pieces. For a valid document: every
prefix read with loads(partial=...) equals jiter's partial mode (value, or both
refusing); every path to one of its values, looked up with loads(pointer=...),
equals the walk of loads()' result. For any bytes: JSONUnpacker fed in
arbitrary pieces gives the outcomes (values, or errors with their message, and
tell()) of the whole stream fed at once."""

import json
import sys

import atheris

with atheris.instrument_imports():
    import jiter
    import orcodec
    from oracle import feature, same

MOST = 100


def stream_outcomes(pieces):
    unpacker = orcodec.JSONUnpacker()
    found = []
    for piece in pieces:
        unpacker.feed(piece)
        while len(found) < MOST:
            try:
                value = unpacker.unpack()
            except orcodec.OutOfData:
                break
            except orcodec.JSONDecodeError as e:
                found.append(("error", str(e), unpacker.tell()))
                continue
            found.append(("value", value, unpacker.tell()))
    return found


def paths(doc, here, out):
    if len(out) >= 32:
        return
    out.append((list(here), doc))
    if isinstance(doc, list):
        for i, item in enumerate(doc[:8]):
            paths(item, here + [str(i)], out)
    elif isinstance(doc, dict):
        for key in list(doc)[:8]:
            paths(doc[key], here + [key], out)


def test_one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    sizes = [fdp.ConsumeIntInRange(1, 16) for _ in range(fdp.ConsumeIntInRange(1, 4))]
    text = fdp.ConsumeBytes(fdp.remaining_bytes())
    whole = stream_outcomes([text])
    pieces, at, i = [], 0, 0
    while at < len(text):
        pieces.append(text[at : at + sizes[i % len(sizes)]])
        at += sizes[i % len(sizes)]
        i += 1
    chunked = stream_outcomes(pieces)
    assert [o[0] for o in chunked] == [o[0] for o in whole], f"{text!r:.300}"
    for got, want in zip(chunked, whole):
        assert got[2] == want[2] and (got[1] == want[1] if got[0] == "error" else same(got[1], want[1]))
    try:
        doc = orcodec.loads(text)
    except orcodec.JSONDecodeError:
        feature("invalid")
        return
    # Duplicate keys: loads keeps the last, jiter too; a pointer follows the first.
    feature("valid", type(doc).__name__)
    for cut in range(0, len(text) + 1, max(1, len(text) // 64)):
        prefix = text[:cut]
        for mode in (True, "trailing-strings"):
            try:
                want = ("value", jiter.from_json(prefix, partial_mode=mode))
            except ValueError:
                want = ("error", None)
            try:
                got = ("value", orcodec.loads(prefix, partial=mode))
            except orcodec.JSONDecodeError:
                got = ("error", None)
            if want[0] == "value" and isinstance(want[1], (int, float)) and not isinstance(want[1], bool):
                if abs(want[1]) >= 2**64 or isinstance(want[1], int) and want[1] < -(2**63):
                    continue  # orcodec reads integers beyond 64 bits as floats, as orjson does
            assert got[0] == want[0], f"{prefix!r:.300} {mode}: {got!r:.100} vs {want!r:.100}"
    if repeats_a_key(text):
        return  # the pointer follows a repeated key's first occurrence, loads keeps the last
    found = []
    paths(doc, [], found)
    for tokens, value in found:
        pointer = "".join("/" + t.replace("~", "~0").replace("/", "~1") for t in tokens)
        assert same(orcodec.loads(text, pointer=pointer), value), pointer


def repeats_a_key(text: bytes) -> bool:
    repeated = False

    def pairs(items):
        nonlocal repeated
        repeated = repeated or len({k for k, _ in items}) != len(items)
        return dict(items)

    try:
        json.loads(text, object_pairs_hook=pairs)
    except (ValueError, RecursionError):
        return True
    return repeated


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
