"""Fragment (verbatim output) and Ext (MessagePack extension values), and unpackb's
ext_hook, against orjson.Fragment, ormsgpack.Fragment and ormsgpack.Ext."""

from __future__ import annotations

import gc
import sys

import orcodec
import orjson
import ormsgpack
import pytest
from helpers import JSON, MSGPACK, MyBytes, by_format

# --------------------------------------------------------------------------------------
# Fragment
# --------------------------------------------------------------------------------------

JSON_FRAGMENTS = [
    b"1",
    b"[1, 2]",
    b'{"a": {"b": [true, null]}}',
    b"",
    b"not json at all",
    "\u00e9\U0001f600",
    '"str"',
    b"\xff\xfe",
]


MSGPACK_FRAGMENTS = [b"\x93\x01\x02\x03", b"\xc0", b"\x81\xa1a\xc3", b"", b"\xc1", b"\x92\x01"]


def _one_value(fmt, raw: bytes) -> bool:
    """Whether ``raw`` is exactly one value of the format."""
    try:
        fmt.decode(raw)
    except fmt.decode_error:
        return False
    return True


@pytest.mark.parametrize("fmt, contents", by_format(json=JSON_FRAGMENTS, msgpack=MSGPACK_FRAGMENTS, ids=repr))
def test_fragment_is_written_verbatim(fmt, contents):
    ours = orcodec.Fragment(contents)
    raw = contents.encode() if isinstance(contents, str) else contents
    if fmt is MSGPACK and not _one_value(fmt, raw):
        # ormsgpack refuses a Fragment that is not exactly one MessagePack value when
        # it is made (ValueError); orcodec's Fragment serves JSON too and takes any
        # content when made (a listed deviation), so packb refuses it when it meets it.
        with pytest.raises(ValueError):
            ormsgpack.Fragment(contents)
        for doc in (ours, [ours, 1], {"k": ours}):
            with pytest.raises(orcodec.MsgpackEncodeError) as info:
                orcodec.packb(doc)
            assert str(info.value) == "Fragment contents are not exactly one MessagePack value"
        return
    assert fmt.encode(ours) == raw
    assert fmt.encode([ours, 1]) == (b"[" + raw + b",1]" if fmt is JSON else b"\x92" + raw + b"\x01")
    theirs = fmt.peer.Fragment(contents)
    assert fmt.encode(ours) == fmt.peer_encode(theirs)
    assert fmt.encode({"k": ours}) == fmt.peer_encode({"k": theirs})
    doc_ours = {"x": [ours, 1, {"y": ours}], "z": ours}
    doc_theirs = {"x": [theirs, 1, {"y": theirs}], "z": theirs}
    for names in [
        ("OPT_INDENT_2",),
        ("OPT_SORT_KEYS",),
        ("OPT_APPEND_NEWLINE",),
        ("OPT_NON_STR_KEYS",),
        ("OPT_INDENT_2", "OPT_SORT_KEYS"),
    ]:
        expected = fmt.peer_encode(doc_theirs, option=fmt.peer_opts(fmt.peer_names(names)))
        assert fmt.encode(doc_ours, option=fmt.opts(names)) == expected, names


def test_fragment_exact_in_indent():
    frag = orcodec.Fragment(b'{"pre": [1,2]}')
    assert orcodec.dumps({"a": frag, "b": [frag]}, option=orcodec.OPT_INDENT_2) == (
        b'{\n  "a": {"pre": [1,2]},\n  "b": [\n    {"pre": [1,2]}\n  ]\n}'
    )


def test_fragment_str_in_packb_is_an_error():
    with pytest.raises(orcodec.MsgpackEncodeError, match="Fragment contents must be bytes"):
        orcodec.packb(orcodec.Fragment("1"))
    with pytest.raises(orcodec.MsgpackEncodeError):
        orcodec.packb({"a": [orcodec.Fragment("")]}, default=lambda o: None)
    # ormsgpack's Fragment refuses str when it is made.
    with pytest.raises(TypeError):
        ormsgpack.Fragment("1")


def test_fragment_str_with_surrogates_is_an_error():
    frag = orcodec.Fragment("a\ud800")
    with pytest.raises(orcodec.JSONEncodeError, match="surrogates"):
        orcodec.dumps(frag)
    with pytest.raises(TypeError):
        orjson.dumps(orjson.Fragment("a\ud800"))
    # Not replaced: a fragment is output, not text to escape.
    with pytest.raises(orcodec.JSONEncodeError):
        orcodec.dumps(frag, option=orcodec.OPT_REPLACE_SURROGATES)


@pytest.mark.parametrize("bad", [1, None, bytearray(b"1"), memoryview(b"1"), [b"1"], 1.5], ids=repr)
def test_fragment_of_other_types_refused_when_written(fmt, bad):
    # As orjson: any content is accepted when the Fragment is made and refused when it
    # is written, in orjson's words.
    frag = orcodec.Fragment(bad)
    assert frag.contents is bad
    with pytest.raises(fmt.encode_error) as info:
        fmt.encode([frag])
    with pytest.raises(TypeError) as peer:
        orjson.dumps([orjson.Fragment(bad)])
    assert str(info.value) == str(peer.value).replace("orjson.", "orcodec.")
    assert str(info.value) == "orcodec.Fragment's content is not of type bytes or str"


def test_fragment_constructor_arguments_and_attributes():
    with pytest.raises(TypeError):
        orcodec.Fragment()
    with pytest.raises(TypeError):
        orcodec.Fragment(b"1", b"2")
    with pytest.raises(TypeError):
        orcodec.Fragment(contents=b"1")
    frag = orcodec.Fragment(b"[1]")
    assert frag.contents == b"[1]"
    s = "text"
    assert orcodec.Fragment(s).contents is s
    with pytest.raises(AttributeError):
        frag.contents = b"2"
    # orjson's form: the default repr.
    assert repr(frag) == f"<orcodec.Fragment object at {id(frag):#x}>"
    assert repr(orjson.Fragment(b"[1]")).startswith("<orjson.Fragment object at 0x")
    assert type(frag).__name__ == "Fragment"
    assert orcodec.Fragment.__module__ == "orcodec"


def test_fragment_subclass_contents_kept_alive(fmt):
    frag = orcodec.Fragment(MyBytes(b"\x91\x07" if fmt is MSGPACK else b"[7]"))
    gc.collect()
    assert fmt.encode(frag) == frag.contents
    contents = frag.contents
    before = sys.getrefcount(contents)
    for _ in range(100):
        fmt.encode([frag])
    after = sys.getrefcount(contents)
    assert after == before


def test_fragment_passthrough_flags_do_not_apply(fmt):
    frag = orcodec.Fragment(b"1")
    option = orcodec.OPT_PASSTHROUGH_SUBCLASS | orcodec.OPT_PASSTHROUGH_DATACLASS | orcodec.OPT_PASSTHROUGH_TUPLE
    assert fmt.encode(frag, option=option) == b"1"


# --------------------------------------------------------------------------------------
# Ext
# --------------------------------------------------------------------------------------

EXT_LENGTHS = [0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 255, 256, 65535, 65536, 70000]


@pytest.mark.parametrize("length", EXT_LENGTHS)
@pytest.mark.parametrize("tag", [0, 1, 42, 127])
def test_ext_equals_ormsgpack(tag, length):
    data = bytes(i % 251 for i in range(length))
    ours = orcodec.packb(orcodec.Ext(tag, data))
    assert ours == ormsgpack.packb(ormsgpack.Ext(tag, data))
    assert orcodec.packb([orcodec.Ext(tag, data)]) == ormsgpack.packb([ormsgpack.Ext(tag, data)])
    assert orcodec.unpackb(ours, ext_hook=lambda t, d: (t, d)) == (tag, data)
    assert orcodec.unpackb(ours, ext_hook=orcodec.Ext) == orcodec.Ext(tag, data)


@pytest.mark.parametrize(
    "length, header",
    [
        (1, b"\xd4"),
        (2, b"\xd5"),
        (4, b"\xd6"),
        (8, b"\xd7"),
        (16, b"\xd8"),
        (0, b"\xc7\x00"),
        (3, b"\xc7\x03"),
        (255, b"\xc7\xff"),
        (256, b"\xc8\x01\x00"),
        (65535, b"\xc8\xff\xff"),
        (65536, b"\xc9\x00\x01\x00\x00"),
    ],
)
def test_ext_exact_forms(length, header):
    data = b"\xab" * length
    assert orcodec.packb(orcodec.Ext(9, data)) == header + b"\x09" + data


@pytest.mark.parametrize("tag", [128, 255, -1, -128, -129, 2**31, 2**63, 2**70, -(2**70)])
def test_ext_tag_out_of_range_is_an_encode_error(tag):
    ext = orcodec.Ext(tag, b"")
    with pytest.raises(orcodec.MsgpackEncodeError, match="Extension type out of range"):
        orcodec.packb(ext)
    with pytest.raises(orcodec.MsgpackEncodeError):
        orcodec.packb({"a": [ext]}, default=lambda o: None)
    with pytest.raises(TypeError):
        ormsgpack.packb(ormsgpack.Ext(tag, b""))


@pytest.mark.parametrize("bad_tag", ["1", 1.0, None, b"\x01"], ids=repr)
def test_ext_constructor_rejects_non_int_tag(bad_tag):
    with pytest.raises(TypeError):
        orcodec.Ext(bad_tag, b"")


@pytest.mark.parametrize("bad_data", ["x", bytearray(b"x"), memoryview(b"x"), None, 1, [1]], ids=repr)
def test_ext_constructor_rejects_non_bytes_data(bad_data):
    with pytest.raises(TypeError):
        orcodec.Ext(1, bad_data)
    with pytest.raises(TypeError):
        ormsgpack.Ext(1, bad_data)


def test_ext_constructor_arguments_and_attributes():
    for args in [(), (1,), (1, b"", 2)]:
        with pytest.raises(TypeError):
            orcodec.Ext(*args)
    with pytest.raises(TypeError):
        orcodec.Ext(tag=1, data=b"")
    data = b"payload"
    ext = orcodec.Ext(5, data)
    assert ext.tag == 5 and type(ext.tag) is int
    assert ext.data is data
    with pytest.raises(AttributeError):
        ext.tag = 6
    with pytest.raises(AttributeError):
        ext.data = b""
    assert repr(ext) == "Ext(5, b'payload')"
    assert orcodec.Ext.__module__ == "orcodec"
    assert orcodec.Ext(True, b"").tag == 1 and type(orcodec.Ext(True, b"").tag) is int
    assert repr(orcodec.Ext(2**70, b"")) == f"Ext({2**70}, b'')"


def test_ext_equality_and_hash():
    a, b = orcodec.Ext(1, b"x"), orcodec.Ext(1, b"x")
    assert a == b and not (a != b)
    assert hash(a) == hash(b)
    assert a != orcodec.Ext(2, b"x")
    assert a != orcodec.Ext(1, b"y")
    assert a != (1, b"x")
    assert (a == (1, b"x")) is False
    assert len({a, b, orcodec.Ext(1, b"y")}) == 2
    assert {a: 1}[b] == 1
    with pytest.raises(TypeError):
        a < b  # noqa: B015


def test_ext_in_dumps_goes_to_default():
    ext = orcodec.Ext(1, b"\x01")
    with pytest.raises(orcodec.JSONEncodeError, match="Type is not JSON serializable: orcodec.Ext"):
        orcodec.dumps(ext)
    assert orcodec.dumps([ext], default=lambda o: {"tag": o.tag, "data": o.data.hex()}) == b'[{"tag":1,"data":"01"}]'


def test_ext_passthrough_flags_do_not_apply():
    ext = orcodec.Ext(3, b"abc")
    option = orcodec.OPT_PASSTHROUGH_SUBCLASS | orcodec.OPT_PASSTHROUGH_DATACLASS | orcodec.OPT_PASSTHROUGH_TUPLE
    assert orcodec.packb(ext, option=option) == b"\xc7\x03\x03abc"


# --------------------------------------------------------------------------------------
# unpackb's ext_hook
# --------------------------------------------------------------------------------------


def test_ext_hook_is_called_with_tag_and_bytes():
    calls = []

    def hook(tag, data):
        calls.append((tag, data, type(data)))
        return {"ext": tag}

    data = orcodec.packb([orcodec.Ext(1, b"a"), {"k": orcodec.Ext(127, b"")}])
    assert orcodec.unpackb(data, ext_hook=hook) == [{"ext": 1}, {"k": {"ext": 127}}]
    assert calls == [(1, b"a", bytes), (127, b"", bytes)]
    # Negative (reserved) types are passed as negative ints.
    assert orcodec.unpackb(b"\xd4\x80\x00", ext_hook=lambda t, d: t) == -128
    assert orcodec.unpackb(b"\xd4\x80\x00", ext_hook=lambda t, d: t) == ormsgpack.unpackb(
        b"\xd4\x80\x00", ext_hook=lambda t, d: t
    )
    assert orcodec.unpackb(data, ext_hook=lambda t, d: (t, d)) == ormsgpack.unpackb(data, ext_hook=lambda t, d: (t, d))


def test_ext_hook_raising_is_a_decode_error_with_cause():
    def hook(tag, data):
        raise KeyError(tag)

    with pytest.raises(orcodec.MsgpackDecodeError) as info:
        orcodec.unpackb(b"\x92\x01\xd4\x05\x00", ext_hook=hook)
    assert type(info.value.__cause__) is KeyError
    assert info.value.__cause__.args == (5,)
    with pytest.raises(ValueError):
        ormsgpack.unpackb(b"\x92\x01\xd4\x05\x00", ext_hook=hook)


def test_ext_without_hook_is_a_decode_error():
    for data in [b"\xd4\x05\x00", b"\x91\xc7\x00\x01", b"\x81\xa1k\xd8\x01" + bytes(16)]:
        with pytest.raises(orcodec.MsgpackDecodeError, match="ext_hook"):
            orcodec.unpackb(data)
        with pytest.raises(orcodec.MsgpackDecodeError):
            orcodec.unpackb(data, ext_hook=None)
        with pytest.raises(ValueError):
            ormsgpack.unpackb(data)


@pytest.mark.parametrize("hook", [1, "f", b"", object()], ids=repr)
def test_non_callable_ext_hook_is_a_decode_error(hook):
    # As ormsgpack: "ext_hook failed" once an extension needs the hook (the
    # TypeError of calling it is the cause); input without extensions never calls it.
    with pytest.raises(orcodec.MsgpackDecodeError) as info:
        orcodec.unpackb(b"\xd4\x05\x00", ext_hook=hook)
    assert str(info.value) == "ext_hook failed"
    assert type(info.value.__cause__) is TypeError
    with pytest.raises(ValueError, match="(?m)^ext_hook failed$"):
        ormsgpack.unpackb(b"\xd4\x05\x00", ext_hook=hook)
    assert orcodec.unpackb(b"\x01", ext_hook=hook) == ormsgpack.unpackb(b"\x01", ext_hook=hook) == 1


def test_ext_hook_truncated_ext_is_a_decode_error_not_a_call():
    calls = []
    for data in [b"\xd4\x05", b"\xd6\x05\x00\x00", b"\xc7\x05\x01\x00", b"\xc9\xff\xff\xff\xff\x01"]:
        with pytest.raises(orcodec.MsgpackDecodeError):
            orcodec.unpackb(data, ext_hook=lambda t, d: calls.append(t))
    assert calls == []


def test_ext_hook_results_are_not_leaked():
    marker = object()
    before = sys.getrefcount(marker)
    data = orcodec.packb([orcodec.Ext(1, b"")] * 50)
    for _ in range(20):
        assert orcodec.unpackb(data, ext_hook=lambda t, d: marker) == [marker] * 50
    gc.collect()
    assert sys.getrefcount(marker) == before


def test_extension_map_keys_are_refused_as_ormsgpack_does():
    data = b"\x81\xd4\x01\x00\x01"  # {ext(1, b"\x00"): 1}
    calls = []

    def hook(tag, payload):
        calls.append(tag)
        return (tag, payload)

    # With or without OPT_NON_STR_KEYS, an extension is no key: the hook is never asked.
    for option in (None, orcodec.OPT_NON_STR_KEYS):
        with pytest.raises(orcodec.MsgpackDecodeError) as ours:
            orcodec.unpackb(data, ext_hook=hook, option=option)
        peer_option = None if option is None else ormsgpack.OPT_NON_STR_KEYS
        with pytest.raises(ValueError) as theirs:
            ormsgpack.unpackb(data, ext_hook=hook, option=peer_option)
        assert str(ours.value) == str(theirs.value) == "invalid type FixExt1"
        assert ours.value.pos == 1
    assert calls == []
    # A timestamp read as a datetime is a key.
    stamp_key = b"\x81\xd6\xff\x00\x00\x00\x01\x01"
    option = orcodec.OPT_NON_STR_KEYS | orcodec.OPT_DATETIME_AS_TIMESTAMP_EXT
    peer_option = ormsgpack.OPT_NON_STR_KEYS | ormsgpack.OPT_DATETIME_AS_TIMESTAMP_EXT
    assert orcodec.unpackb(stamp_key, option=option) == ormsgpack.unpackb(stamp_key, option=peer_option)


def test_ext_round_trip_through_hook_in_nested_documents():
    doc = {"a": [orcodec.Ext(i % 128, bytes([i % 256]) * (i % 20)) for i in range(300)], "b": orcodec.Ext(0, b"")}
    packed = orcodec.packb(doc)
    assert orcodec.unpackb(packed, ext_hook=orcodec.Ext) == doc
