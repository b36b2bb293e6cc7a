"""atheris: arbitrary bytes as a MessagePack stream, fed to orcodec.Unpacker in
arbitrary pieces. Every chunking gives the same outcomes (each value, or each
error with its message) as the whole stream fed at once, and each value is
what unpackb returns for the bytes tell() says it took."""

import sys

import atheris

with atheris.instrument_imports():
    import orcodec
    from oracle import feature, same

# Outcomes per stream; past this many the rest is not compared (a stream of
# tiny values is long enough by then).
MOST = 200


def outcomes(pieces, max_buffer_size):
    unpacker = orcodec.Unpacker(max_buffer_size=max_buffer_size)
    found = []
    for piece in pieces:
        unpacker.feed(piece)
        while len(found) < MOST:
            start = unpacker.tell()
            try:
                value = unpacker.unpack()
            except orcodec.OutOfData:
                break
            except orcodec.MsgpackDecodeError as e:
                found.append(("error", str(e), start, unpacker.tell()))
                if unpacker.tell() == start:
                    return found  # the stream can never be read past this
                continue
            found.append(("value", value, start, unpacker.tell()))
    return found


def test_one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    sizes = [fdp.ConsumeIntInRange(1, 64) for _ in range(fdp.ConsumeIntInRange(0, 8))]
    # 0: no limit; 1 MiB: far more than an input holds, so never BufferFull, but a
    # value declared larger than that is refused at its header.
    limit = fdp.PickValueInList([0, 1 << 20])
    stream = fdp.ConsumeBytes(fdp.remaining_bytes())
    whole = outcomes([stream], limit)
    pieces, at, i = [], 0, 0
    while at < len(stream):
        n = sizes[i % len(sizes)] if sizes else 1
        pieces.append(stream[at : at + n])
        at += n
        i += 1
    chunked = outcomes(pieces, limit)
    kinds = [type(value).__name__ if kind == "value" else value[:30] for kind, value, _, _ in whole]
    feature(len(whole).bit_length(), kinds[:3], kinds[-1:])
    assert len(chunked) == len(whole), f"{len(chunked)} outcomes, {len(whole)} fed whole, for {stream!r:.300}"
    for got, want in zip(chunked, whole):
        assert got[0] == want[0] and got[2:] == want[2:], f"{got!r:.200} vs {want!r:.200} for {stream!r:.300}"
        if got[0] == "error":
            assert got[1] == want[1]
        else:
            assert same(got[1], want[1]), f"{got!r:.200} vs {want!r:.200}"
    for kind, value, start, end in whole:
        if kind == "value":
            assert same(value, orcodec.unpackb(stream[start:end])), f"{stream[start:end]!r:.300}"


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
