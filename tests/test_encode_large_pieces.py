"""packb of large pieces (str, bin, ext, numpy data): from 256 KiB on the output's memory
is made ready before the copy (fresh pages faulted in at once, the largest advised for
huge pages). Exact bytes against ormsgpack and msgpack-python, whether the outputs land in
fresh memory (every output kept) or in memory just freed (each dropped), at every size
around the thresholds and at offsets that put the piece anywhere on its first page."""

from __future__ import annotations

import msgpack
import orcodec
import ormsgpack
import pytest

KIB = 1024
BULK = 256 * KIB
HUGE = 4 * KIB * KIB
SIZES = [BULK - 1, BULK, BULK + 1, 5 * BULK + 4093, KIB * KIB, HUGE - 1, HUGE, HUGE + 4097]


def pieces(n: int) -> dict[str, object]:
    body = bytes(range(256)) * (n // 256) + bytes(n % 256)
    return {
        "ascii": "lorem ipsum dolor sit amet "[: min(n, 27)] * (n // 27) + "x" * (n % 27),
        "bytes": body,
        "bytearray": bytearray(body),
        "memoryview": memoryview(body),
    }


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("kind", ["ascii", "bytes", "bytearray", "memoryview"])
def test_large_pieces_kept_and_dropped(n, kind):
    value = pieces(n)[kind]
    expected = msgpack.packb(value, use_bin_type=True)
    assert ormsgpack.packb(value) == expected
    kept = [orcodec.packb(value) for _ in range(6)]
    assert all(out == expected for out in kept)
    for _ in range(6):
        assert orcodec.packb(value) == expected
    # Behind a header of every length that moves the piece along its first page.
    for prefix in ("", "a", "ab" * 7, "c" * 31, "d" * 255):
        doc = [prefix, value, prefix]
        expected = msgpack.packb(doc, use_bin_type=True)
        assert orcodec.packb(doc) == expected
        assert ormsgpack.packb(doc) == expected


@pytest.mark.parametrize("n", [BULK - 1, BULK, KIB * KIB + 7, HUGE + 1])
def test_large_ext_pieces(n):
    data = b"\xa5" * n
    expected = msgpack.packb(msgpack.ExtType(5, data))
    kept = [orcodec.packb(orcodec.Ext(5, data)) for _ in range(4)]
    assert all(out == expected for out in kept)
    assert orcodec.unpackb(kept[0], ext_hook=lambda tag, payload: (tag, payload)) == (5, data)


@pytest.mark.parametrize("n", [BULK - 1, BULK, KIB * KIB + 7])
def test_large_non_ascii_str(n):
    # Not compact ASCII: written from the str's storage or its UTF-8 copy.
    for text in ("é" * n, "中" * (n // 3), "😀" * (n // 4)):
        expected = msgpack.packb(text)
        kept = [orcodec.packb(text) for _ in range(4)]
        assert all(out == expected for out in kept)
        assert orcodec.unpackb(kept[0]) == text


def test_large_numpy_data():
    np = pytest.importorskip("numpy")
    for shape in [(BULK // 8 - 1,), (BULK // 8,), (1000, 100), (HUGE // 8 + 3,)]:
        arr = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
        kept = [orcodec.packb(arr, option=orcodec.OPT_NUMPY_EXT) for _ in range(4)]
        assert all(out == kept[0] for out in kept)
        back = orcodec.unpackb(kept[0], option=orcodec.OPT_NUMPY_EXT)
        assert back.dtype == arr.dtype and back.shape == arr.shape and (back == arr).all()


def test_many_large_pieces_in_one_output():
    # What the first piece finds of the output's pages serves the rest: every
    # piece must still land whole, in outputs kept (fresh memory, grown many
    # times from a small start) and dropped (memory in use).
    for n, count in [(BULK, 40), (BULK + 4093, 33), (5 * BULK, 9), (HUGE + 5, 3)]:
        doc = [("y" * n + str(i)) if i % 2 else bytes([i]) * n for i in range(count)]
        expected = msgpack.packb(doc, use_bin_type=True)
        kept = [orcodec.packb(doc) for _ in range(3)]
        assert all(out == expected for out in kept)
        for _ in range(3):
            assert orcodec.packb(doc) == expected
