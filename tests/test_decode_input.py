"""What loads and unpackb accept as input (bytes, bytearray, memoryview and, for JSON,
str), and the inputs they refuse: other types, empty or blank input, data after the
value, memoryviews that cannot be read. Each test runs once per format."""

from __future__ import annotations

import io
import json

import msgpack
import orcodec
import pytest
from helpers import JSON, MSGPACK_SAMPLES, assert_strict_equal, by_format

JSON_DOCS = [
    b"[]",
    b'{"a":[1,2.5,"\xc3\xa9",null,true]}',
    '"\u4e2d\U0001f600"'.encode(),
    b"-12345678901234567890123",
    b"  1.5e3  ",
]


@pytest.mark.parametrize(
    "fmt, data", by_format(json=JSON_DOCS, msgpack=MSGPACK_SAMPLES, ids=lambda data: data[:8].hex())
)
def test_input_types_identical(fmt, data):
    if fmt is JSON:
        expected = json.loads(data)
        assert_strict_equal(fmt.decode(data), expected, big_int_as_float=True)
        expected = fmt.decode(data)
    else:
        expected = msgpack.unpackb(data, raw=False)
    for converted in fmt.inputs(data):
        assert_strict_equal(fmt.decode(converted), expected)


def test_memoryview_slice_input(fmt):
    data = fmt.reference([1, "a"])
    buf = b"xx" + data + b"yy"
    assert fmt.decode(memoryview(buf)[2 : 2 + len(data)]) == [1, "a"]


@pytest.mark.parametrize(
    "fmt, obj",
    by_format(
        json=[(obj,) for obj in [1, 1.5, None, [b"[]"], {"a": 1}, ("[]",), True, object()]],
        msgpack=[(obj,) for obj in [1, 1.5, None, [b"\x90"], {"a": 1}, (b"\x90",), True, object(), "\x01", ""]],
        ids=lambda case: repr(case[0]),
    ),
)
def test_other_input_types_rejected(fmt, obj):
    # The peer's decode error and message; the class is a TypeError too.
    with pytest.raises(fmt.decode_error) as info:
        fmt.decode(obj)
    assert isinstance(info.value, TypeError)
    assert type(info.value) is (orcodec.JSONInputTypeError if fmt is JSON else orcodec.MsgpackInputTypeError)
    with pytest.raises(fmt.peer_decode_error) as peer:
        fmt.peer_decode(obj)
    assert str(info.value) == str(peer.value)
    assert getattr(info.value, "__notes__", []) == []


@pytest.mark.parametrize("kind", ["BytesIO", "StringIO", "file"])
def test_a_file_object_is_a_type_error_saying_to_read_it(fmt, kind, tmp_path):
    path = tmp_path / "document"
    path.write_bytes(b"[1]")
    opened = {"BytesIO": lambda: io.BytesIO(b"[1]"), "StringIO": lambda: io.StringIO("[1]"), "file": path.open}
    with opened[kind]() as stream:
        with pytest.raises(TypeError) as info:
            fmt.decode(stream)
    assert isinstance(info.value, fmt.decode_error)  # what the peer raises
    function = "loads" if fmt is JSON else "unpackb"
    assert info.value.__notes__ == [f"{function}() takes the document itself, not a file: pass f.read()"]


@pytest.mark.parametrize(
    "fmt, data", by_format(json=[b"", b" ", b"\n", b" \t\r\n "], msgpack=[b""], ids=lambda data: repr(data))
)
def test_empty_or_blank_input(fmt, data):
    for converted in fmt.inputs(data):
        with pytest.raises(fmt.decode_error) as info:
            fmt.decode(converted)
        # The error is at the start: where the value should have been.
        if fmt is JSON and not data:
            err = info.value
            assert (err.pos, err.lineno, err.colno, err.doc) == (0, 1, 1, "")
        elif not data:
            assert (str(info.value), info.value.pos) == ("unexpected end of file", 0)


@pytest.mark.parametrize(
    "fmt, data",
    by_format(
        json=[b"1 2", b"[1]x", b"{}{}", b"[1] ]", b"[][]", b"null null", b'"a" "b"', b"1,", b"[1],", b"0 0", b"true1"],
        msgpack=[b"\x01\x02", b"\xc0\xc0", b"\x90\x90", b"\x80\x00", b"\xa1a\x00", b"\x92\x01\x02\x03", b"\x01\xc1"],
        ids=lambda data: data.hex(),
    ),
)
def test_data_after_the_value_rejected(fmt, data):
    fmt.refuses_every_input(data)


def _released_view() -> memoryview:
    view = memoryview(b"[1]")
    view.release()
    return view


@pytest.mark.parametrize(
    "make_view, cause",
    [(lambda: memoryview(b"[1, 2]")[::2], BufferError), (_released_view, ValueError)],
    ids=["non-contiguous", "released"],
)
def test_unreadable_memoryview_is_the_decode_error(fmt, make_view, cause):
    with pytest.raises(fmt.decode_error) as info:
        fmt.decode(make_view())
    assert type(info.value.__cause__) is cause
    expected = "Input memoryview cannot be read: it must be C-contiguous and not released"
    assert (info.value.msg if fmt is JSON else str(info.value)) == expected


def test_msgpack_bytearray_input_cannot_be_resized_by_a_hook():
    # The input is exported for the length of the decode, so an ext_hook that
    # resizes it gets a BufferError instead of freeing the memory being read.
    data = bytearray(b"\x92\xd4\x05\x00" + b"\xa1x")

    def hook(tag, payload):
        data.extend(b"\x00" * 4096)
        return payload

    with pytest.raises(orcodec.MsgpackDecodeError, match="ext_hook raised for extension type 5") as info:
        orcodec.unpackb(data, ext_hook=hook)
    assert type(info.value.__cause__) is BufferError
    assert len(data) == 6
    data.extend(b"ok")  # and the export is released afterwards
    assert len(data) == 8
