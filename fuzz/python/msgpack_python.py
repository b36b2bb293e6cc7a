"""atheris: arbitrary bytes and option combinations into orcodec.msgpack, with
msgpack-python as the oracle. unpackb gives msgpack's value or an exception of
msgpack's kind; an Unpacker fed the bytes in arbitrary pieces gives msgpack's
values and tell() after every call, and so do its other methods (skip,
read_array_header, read_map_header, read_bytes, tell) called between feeds
in an order the input picks; a value both decoded is packed back with random
packer options to msgpack's bytes."""

import sys

import atheris

with atheris.instrument_imports():
    import msgpack
    import orcodec.msgpack as om
    from oracle import feature

# Kinds of exception that may name the same bad input: msgpack-python builds
# as it reads, so on input that is both incomplete and wrong inside it may
# report the inside (an unhashable map key: TypeError) where orcodec, which
# reads a value whole before building it, reports the end (ValueError).
SAME = {"ValueError", "ExtraData", "UnicodeDecodeError", "FormatError", "StackError", "TypeError"}


def outcome(call):
    try:
        return ("ok", repr(call()))
    except RecursionError:
        return ("raised", "RecursionError")
    except Exception as e:  # noqa: BLE001 - the kind is what is compared
        return ("raised", type(e).__name__)


def unpack_options(fdp):
    opts = {}
    for name in ("use_list", "raw", "strict_map_key"):
        if fdp.ConsumeBool():
            opts[name] = fdp.ConsumeBool()
    if fdp.ConsumeBool():
        opts["timestamp"] = fdp.ConsumeIntInRange(0, 3)
    if fdp.ConsumeBool():
        opts["unicode_errors"] = ["strict", "replace", "ignore", "surrogateescape"][fdp.ConsumeIntInRange(0, 3)]
    for name in ("max_str_len", "max_bin_len", "max_array_len", "max_map_len", "max_ext_len"):
        if fdp.ConsumeBool():
            opts[name] = fdp.ConsumeIntInRange(-1, 16)
    return opts


METHODS = (
    lambda u, n: u.unpack(),
    lambda u, n: u.skip(),
    lambda u, n: u.read_array_header(),
    lambda u, n: u.read_map_header(),
    lambda u, n: u.read_bytes(n),
    lambda u, n: u.tell(),
)


def methods_between_feeds(opts, payload, chunk, ops):
    """Op 0 feeds the next piece, the others call a method on both: the same
    result, or the same kind of exception, and the same tell(); after an
    exception other than OutOfData the two resume at different places
    (documented), so the run stops there."""
    a, b = om.Unpacker(**opts), msgpack.Unpacker(**opts)
    pieces = [payload[at : at + chunk] for at in range(0, len(payload), chunk)]
    for op in ops:
        if op == 0:
            if pieces:
                piece = pieces.pop(0)
                a.feed(piece)
                b.feed(piece)
            continue
        method = METHODS[op - 1]
        got_a, got_b = outcome(lambda m=method: m(a, chunk)), outcome(lambda m=method: m(b, chunk))
        if got_a[0] == got_b[0] == "raised" and got_a != got_b:
            # An incomplete value wrong inside: msgpack-python, building as
            # it reads, may raise the inside's error where orcodec says
            # OutOfData (documented).
            assert {got_a[1], got_b[1]} <= SAME | {"OutOfData"}, (payload, chunk, ops, got_a, got_b)
            break
        assert got_a == got_b, (payload, chunk, ops, got_a, got_b)
        if got_a[0] == "raised" and got_a[1] != "OutOfData":
            break
        assert a.tell() == b.tell(), (payload, chunk, ops, a.tell(), b.tell())


def test_one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    opts = unpack_options(fdp)
    chunk = fdp.ConsumeIntInRange(1, 16)
    ops = [fdp.ConsumeIntInRange(0, len(METHODS)) for _ in range(fdp.ConsumeIntInRange(0, 16))]
    payload = fdp.ConsumeBytes(fdp.remaining_bytes())

    ours = outcome(lambda: om.unpackb(payload, **opts))
    theirs = outcome(lambda: msgpack.unpackb(payload, **opts))
    feature("unpackb", ours[0], ours[1] if ours[0] == "raised" else "")
    if ours != theirs:
        # Nesting past 1024 levels: both refuse it, msgpack-python as it
        # runs out of input or stack, orcodec at the level; and the
        # deviation of an empty container at level 1025.
        both_raised = ours[0] == theirs[0] == "raised" and {ours[1], theirs[1]} <= SAME
        assert both_raised, (payload, opts, ours, theirs)

    # A stream fed in pieces: the same values and positions.
    stream_opts = {k: v for k, v in opts.items() if not k.startswith("max_")}
    a, b = om.Unpacker(**stream_opts), msgpack.Unpacker(**stream_opts)
    for at in range(0, len(payload), chunk):
        piece = payload[at : at + chunk]
        a.feed(piece)
        b.feed(piece)
        got_a, got_b = outcome(lambda: list(a)), outcome(lambda: list(b))
        if got_a[0] == got_b[0] == "ok":
            assert got_a == got_b, (payload, chunk, got_a, got_b)
            assert a.tell() == b.tell(), (payload, chunk, a.tell(), b.tell())
        else:
            # After an error the two resume at different places (documented).
            break

    methods_between_feeds(stream_opts, payload, chunk, ops)

    # Packing back what both read, with random packer options.
    if ours[0] == "ok" and theirs == ours:
        # Each its own value: its own ExtType and Timestamp classes.
        value_ours, value_theirs = om.unpackb(payload, **opts), msgpack.unpackb(payload, **opts)
        pack_opts = {"use_single_float": fdp.ConsumeBool(), "use_bin_type": fdp.ConsumeBool()}
        packed_ours = outcome(lambda: om.packb(value_ours, **pack_opts))
        packed_theirs = outcome(lambda: msgpack.packb(value_theirs, **pack_opts))
        if packed_theirs[0] == "ok" and packed_ours[1] == "ValueError":
            return  # nesting past the walker's 255 levels (documented)
        assert packed_ours == packed_theirs, (value_theirs, pack_opts, packed_ours, packed_theirs)


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
