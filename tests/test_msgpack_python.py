"""orcodec.msgpack against msgpack-python itself: random documents times random option
combinations, packed and unpacked by both, must give identical bytes, identical values
and exceptions of the same type; streams fed in random pieces must give the same
values and the same ``tell()`` after every call. The deviations of doc/msgpack-python.md
are asserted to still deviate at the end."""

from __future__ import annotations

import datetime as dt
import enum
import functools
import io
import os
import uuid

import msgpack
import orcodec.msgpack as om
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from orcodec.msgpack import exceptions as om_exceptions

# MP_EXAMPLES=2000 for a longer run than the normal one.
EXAMPLES = int(os.environ.get("MP_EXAMPLES", "150"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
    st.floats(allow_nan=False),
    st.text(max_size=40),
    st.binary(max_size=40),
)
keys = st.one_of(st.text(max_size=10), st.binary(max_size=10))
any_keys = st.one_of(keys, st.integers(-1000, 1000), st.none(), st.booleans())


def documents(key_strategy=keys):
    return st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=6),
            st.tuples(inner, inner),
            st.dictionaries(key_strategy, inner, max_size=6),
        ),
        max_leaves=30,
    )


def outcome(call):
    """The value, or the exception's type (a bytes object and a str compare unequal)."""
    try:
        return ("ok", call())
    except Exception as e:  # noqa: BLE001 - the kind is what is compared
        return ("raised", type(e).__name__)


pack_options = st.fixed_dictionaries(
    {},
    optional={
        "use_single_float": st.booleans(),
        "use_bin_type": st.booleans(),
        "strict_types": st.booleans(),
        "datetime": st.booleans(),
    },
)

unpack_options = st.fixed_dictionaries(
    {},
    optional={
        "use_list": st.booleans(),
        "raw": st.booleans(),
        "strict_map_key": st.booleans(),
        "timestamp": st.integers(0, 3),
        "unicode_errors": st.sampled_from(["strict", "replace", "ignore", "surrogateescape"]),
        "max_str_len": st.integers(-1, 20),
        "max_bin_len": st.integers(-1, 20),
        "max_array_len": st.integers(-1, 5),
        "max_map_len": st.integers(-1, 5),
        "max_ext_len": st.integers(-1, 12),
    },
)


@SETTINGS
@given(documents(any_keys), pack_options)
def test_packb_bytes_are_msgpacks(doc, opts):
    ours, theirs = outcome(lambda: om.packb(doc, **opts)), outcome(lambda: msgpack.packb(doc, **opts))
    if opts.get("use_single_float") and ours[0] == theirs[0] == "raised":
        # A float 32 out of range is found after the walk: with another
        # error in the document, which one is raised can differ.
        assert {ours[1], theirs[1]} <= {"TypeError", "OverflowError", "ValueError"}
    else:
        assert ours == theirs


@SETTINGS
@given(documents(any_keys), unpack_options, st.sampled_from(["none", "object", "pairs", "list"]))
def test_unpackb_values_are_msgpacks(doc, opts, hook):
    data = msgpack.packb(doc)
    theirs, ours = dict(opts), dict(opts)
    if hook == "object":
        theirs["object_hook"] = ours["object_hook"] = lambda d: ("obj", sorted(map(repr, d.items())))
    elif hook == "pairs":
        theirs["object_pairs_hook"] = ours["object_pairs_hook"] = lambda pairs: ("pairs", pairs)
    elif hook == "list":
        theirs["list_hook"] = ours["list_hook"] = lambda items: ("list", items)
    assert repr(outcome(lambda: om.unpackb(data, **ours))) == repr(outcome(lambda: msgpack.unpackb(data, **theirs)))


@SETTINGS
@given(st.binary(max_size=60), unpack_options)
def test_unpackb_of_any_bytes(data, opts):
    # Random bytes: the same value or the same kind of exception.
    ours = outcome(lambda: om.unpackb(data, **opts))
    theirs = outcome(lambda: msgpack.unpackb(data, **opts))
    if ours[0] == "ok" and theirs[0] == "ok":
        assert repr(ours[1]) == repr(theirs[1])
    elif theirs == ("raised", "StackError") or theirs[1] == "StackError":
        assert ours[1] == "StackError"
    else:
        assert ours[0] == theirs[0], (data, opts, ours, theirs)
        assert ours[1] == theirs[1] or {ours[1], theirs[1]} <= {"ValueError", "ExtraData", "UnicodeDecodeError"}


@SETTINGS
@given(st.lists(documents(), min_size=1, max_size=5), st.data())
def test_unpacker_fed_in_pieces(docs, data):
    stream = b"".join(msgpack.packb(d) for d in docs)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=6)))
    pieces = [stream[a:b] for a, b in zip([0, *cuts], [*cuts, len(stream)])]
    ours, theirs = om.Unpacker(), msgpack.Unpacker()
    for piece in pieces:
        ours.feed(piece)
        theirs.feed(piece)
        assert list(ours) == list(theirs)
        assert ours.tell() == theirs.tell()


def test_exceptions_hierarchy_and_names():
    for name in ["UnpackException", "BufferFull", "OutOfData", "FormatError", "StackError", "ExtraData"]:
        ours, theirs = getattr(om, name), getattr(msgpack, name)
        assert [c.__name__ for c in ours.__mro__] == [c.__name__ for c in theirs.__mro__]
        assert getattr(om_exceptions, name) is ours
    assert om.PackValueError is ValueError and om.PackOverflowError is OverflowError
    e = pytest.raises(om.ExtraData, om.unpackb, b"\x01\x02").value
    assert (e.unpacked, e.extra, str(e)) == (1, b"\x02", "unpack(b) received extra data.")


def test_messages_match():
    cases = [
        (lambda m: m.unpackb(b"\x81\x01\x02"), "int is not allowed for map key when strict_map_key=True"),
        (lambda m: m.unpackb(b"\x93\x01\x02\x03", max_array_len=2), "3 exceeds max_array_len(2)"),
        (lambda m: m.unpackb(b"\xa3abc", max_str_len=2), "3 exceeds max_str_len(2)"),
        (lambda m: m.unpackb(b"\xd5\x01\x00\x00", max_ext_len=1), "3 exceeds max_ext_len(1)"),
        (lambda m: m.unpackb(b"\x92\x01"), "Unpack failed: incomplete input"),
        (lambda m: m.unpackb(b"\xd5\xff\x00\x00"), "invalid timestamp data (length 2)"),
        (lambda m: m.packb(object()), "can not serialize 'object' object"),
        (lambda m: m.packb(dt.datetime(2020, 1, 1)), "can not serialize 'datetime.datetime' object"),
        (lambda m: m.packb(2**64), "Integer value out of range"),
        (lambda m: m.packb(uuid.UUID(int=1)), "can not serialize 'UUID' object"),
        (lambda m: m.Packer().pack_array_header(-1), "array size must be non-negative"),
    ]
    for call, message in cases:
        for module in (om, msgpack):
            with pytest.raises(Exception) as info:
                call(module)
            assert str(info.value) == message, (module, message)
        assert outcome(functools.partial(call, om)) == outcome(functools.partial(call, msgpack))


def test_types_msgpack_does_not_serialize_go_to_default():
    class Color(enum.Enum):
        RED = "red"

    class Level(enum.IntEnum):
        LOW = 1

    for obj in [dt.date(2020, 1, 1), dt.time(1), uuid.UUID(int=5), Color.RED, {1, 2}]:
        for module in (om, msgpack):
            assert module.packb(obj, default=repr) == msgpack.packb(repr(obj))
            with pytest.raises(TypeError):
                module.packb(obj)
    assert om.packb(Level.LOW) == msgpack.packb(Level.LOW)
    assert om.packb(Level.LOW, strict_types=True, default=int) == msgpack.packb(1)


def test_timestamps_ext_types_and_datetimes():
    utc = dt.timezone.utc
    for seconds, ns in [(0, 0), (1, 0), (2**32, 5), (2**34, 1), (-1, 999_999_999), (-(2**40), 0)]:
        ours, theirs = om.Timestamp(seconds, ns), msgpack.Timestamp(seconds, ns)
        assert om.packb(ours) == msgpack.packb(theirs)
        assert ours.to_bytes() == theirs.to_bytes()
        assert ours.to_unix_nano() == theirs.to_unix_nano() and ours.to_unix() == theirs.to_unix()
        for mode in range(4):
            packed = msgpack.packb(theirs)
            assert repr(outcome(functools.partial(om.unpackb, packed, timestamp=mode))) == repr(
                outcome(functools.partial(msgpack.unpackb, packed, timestamp=mode))
            )
    aware = dt.datetime(2024, 4, 16, 8, 43, 9, 420317, tzinfo=utc)
    assert om.packb(aware, datetime=True) == msgpack.packb(aware, datetime=True)
    assert om.unpackb(om.packb(aware, datetime=True), timestamp=3) == aware
    assert om.packb(om.ExtType(5, b"xy")) == msgpack.packb(msgpack.ExtType(5, b"xy"))
    assert om.unpackb(b"\xd5\x05xy") == om.ExtType(5, b"xy")
    assert om.Timestamp.from_unix(-1.5) == om.Timestamp(-2, 500_000_000)
    assert msgpack.Timestamp.from_unix(-1.5) == msgpack.Timestamp(-2, 500_000_000)


def test_lone_surrogates_with_every_handler():
    # The writer refuses them; the packer then encodes them with the handler,
    # as msgpack-python does, in keys, values, nested, with the other options.
    docs = ["abc\udc80\udcffdef", {"k\udc80": ["x\udc80", 1, 1.5]}, ["a" * 40 + "\udc80", (1, 2)]]
    for doc in docs:
        for errors in ["ignore", "replace", "surrogateescape", "surrogatepass", "strict", None]:
            for opts in [{}, {"use_bin_type": False}, {"use_single_float": True}]:
                ours = outcome(lambda: om.packb(doc, unicode_errors=errors, **opts))  # noqa: B023
                theirs = outcome(lambda: msgpack.packb(doc, unicode_errors=errors, **opts))  # noqa: B023
                assert ours == theirs, (doc, errors, opts)
    with pytest.raises(UnicodeEncodeError) as ours:
        om.packb(["a\udc80"])
    with pytest.raises(UnicodeEncodeError) as theirs:
        msgpack.packb(["a\udc80"])
    assert str(ours.value) == str(theirs.value)


def test_packer_methods_match():
    for module in (om, msgpack):
        p = module.Packer(autoreset=False)
        p.pack_array_header(3)
        p.pack_map_header(70000)
        p.pack_ext_type(9, b"abc")
        p.pack_map_pairs([("a", 1), (2, b"b")])
        p.pack([1.5, "x" * 40])
        if module is om:
            ours = p.bytes()
            assert bytes(p.getbuffer()) == ours
        else:
            assert p.bytes() == ours
        p.reset()
        assert p.bytes() == b""


def test_unpacker_methods_and_tell():
    stream = msgpack.packb([1, 2]) + msgpack.packb({"a": b"b"}) + msgpack.packb("tail") + b"\x01\x02\x03"
    results = []
    for module in (om, msgpack):
        u = module.Unpacker(io.BytesIO(stream), read_size=3)
        got = [u.read_array_header(), u.unpack(), u.tell(), u.skip(), u.read_map_header(), u.unpack()]
        got += [u.unpack(), u.tell(), u.unpack(), u.read_bytes(2), u.tell(), u.unpack(), u.tell()]
        with pytest.raises(module.OutOfData):
            u.unpack()
        results.append(got)
    assert results[0] == results[1]
    # tell() counts what was consumed of an incomplete value, as msgpack-python does.
    for partial in [b"\x92", b"\x92\x01", b"\xcd\x01", b"\xd9", b"\xd9\x05ab", b"\xc7\x02\x05", b"\x91\x92\xc0"]:
        ours, theirs = om.Unpacker(), msgpack.Unpacker()
        ours.feed(partial)
        theirs.feed(partial)
        for u, module in ((ours, om), (theirs, msgpack)):
            with pytest.raises(module.OutOfData):
                u.unpack()
        assert ours.tell() == theirs.tell(), partial


def test_unpacker_limits_buffer_and_reentry():
    for module in (om, msgpack):
        u = module.Unpacker(max_buffer_size=4)
        with pytest.raises(module.BufferFull):
            u.feed(b"12345")
        u = module.Unpacker(max_buffer_size=6)
        u.feed(b"\xde\x00\x04zzz")
        with pytest.raises(ValueError, match="exceeds max_map_len"):
            u.unpack()
        box = []
        fed = module.Unpacker(object_hook=lambda d, box=box: box[0].feed(b"\x01"))
        box.append(fed)
        fed.feed(b"\x80")
        with pytest.raises(RuntimeError):
            fed.unpack()


def test_deviations_still_deviate():
    # Nesting: orcodec's walker writes at most 255 levels, msgpack-python 1024.
    deep = None
    for _ in range(300):
        deep = [deep]
    assert msgpack.packb(deep)
    with pytest.raises(ValueError, match="recursion limit exceeded"):
        om.packb(deep)
    # Hooks of an incomplete value run once it is whole.
    calls = []
    for module in (om, msgpack):
        hook = lambda code, data, module=module: calls.append(module) or data  # noqa: E731
        u = module.Unpacker(ext_hook=hook, strict_map_key=False)
        u.feed(b"\x91\x81\xd4\x01a")
        with pytest.raises(module.OutOfData):
            u.unpack()
    assert calls == [msgpack]
    # After a value failed inside, msgpack-python goes on inside it; orcodec drops it.
    results = []
    for module in (om, msgpack):
        u = module.Unpacker()
        u.feed(b"\x82\x01\x02\xa1a\x03\x05")
        got = []
        for _ in range(3):
            try:
                got.append(u.unpack())
            except (ValueError, module.OutOfData) as e:
                got.append(type(e).__name__)
        results.append(got)
    assert results == [["ValueError", 5, "OutOfData"], ["ValueError", 2, "a"]]


def test_stubs_type_check(tmp_path):
    import subprocess
    import sys

    usage = tmp_path / "usage.py"
    usage.write_text(
        "import io\n"
        "import orcodec.msgpack as msgpack\n"
        "from orcodec.msgpack.ext import Timestamp\n"
        "b: bytes = msgpack.packb({'a': 1}, use_bin_type=True)\n"
        "v = msgpack.unpackb(b, raw=False, strict_map_key=False, object_hook=dict)\n"
        "u = msgpack.Unpacker(io.BytesIO(b), max_buffer_size=1024, max_str_len=10)\n"
        "n: int = u.tell() + u.read_array_header()\n"
        "t: Timestamp = msgpack.Timestamp.from_unix(1.5)\n"
        "code: int = msgpack.ExtType(1, b'x').code\n"
        "wrong: str = msgpack.packb(1)\n"
    )
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(usage)], capture_output=True, text=True
    )
    errors = [line for line in run.stdout.splitlines() if ": error:" in line]
    # Only the wrong line is an error: bytes is no str.
    assert len(errors) == 1 and "usage.py:10:" in errors[0] and "[assignment]" in errors[0], run.stdout


@SETTINGS
@given(
    st.lists(documents(), min_size=1, max_size=6),
    st.lists(
        st.one_of(
            st.sampled_from(["next", "unpack", "skip", "tell", "array", "map"]),
            st.tuples(st.just("read_bytes"), st.integers(0, 5)),
            st.tuples(st.just("feed"), st.integers(0, 40)),
        ),
        max_size=25,
    ),
)
def test_unpacker_any_sequence_of_calls(docs, calls):
    # Any mix of the methods, with bytes fed between them: the same results,
    # exceptions and positions as msgpack-python's Unpacker.
    stream = b"".join(msgpack.packb(d) for d in docs)
    ours, theirs = om.Unpacker(), msgpack.Unpacker()
    fed = 0
    for call in calls:
        if isinstance(call, tuple) and call[0] == "feed":
            piece = stream[fed : fed + call[1]]
            fed += len(piece)
            ours.feed(piece)
            theirs.feed(piece)
            continue
        results = []
        for u in (ours, theirs):
            if call == "next":
                results.append(outcome(lambda u=u: next(u)))
            elif call == "unpack":
                results.append(outcome(u.unpack))
            elif call == "skip":
                results.append(outcome(u.skip))
            elif call == "tell":
                results.append(u.tell())
            elif call == "array":
                results.append(outcome(u.read_array_header))
            elif call == "map":
                results.append(outcome(u.read_map_header))
            else:
                results.append(outcome(functools.partial(u.read_bytes, call[1])))
        assert results[0] == results[1], (call, results)
        if isinstance(results[0], tuple) and results[0][1] not in ("StopIteration", "OutOfData"):
            # A value failed (read_bytes can leave the stream inside one):
            # where each resumes after it differs (doc/msgpack-python.md).
            break
        assert ours.tell() == theirs.tell(), call


LEAK_CALLS = 20_000


def _leak_calls():
    # Every path of the extension's half: values, hooks, errors, limits,
    # ExtraData, a stream's batches and partial values, the dialects.
    doc = {"a": [1, 2.5, "x" * 40, b"b", om.ExtType(3, b"z"), om.Timestamp(5, 6)], "b": {"c": None}}
    packed = om.packb(doc)

    def raising(obj):
        raise KeyError("hook")

    for _ in range(LEAK_CALLS // 20):
        om.unpackb(packed)
        om.unpackb(packed, use_list=False, raw=True, timestamp=3, object_pairs_hook=list, list_hook=tuple)
        om.unpackb(b"\xa2\xc3\x28", unicode_errors="replace")
        for bad, kwargs in [
            (packed + b"\x01", {}),
            (packed[:-1], {}),
            (b"\xc1", {}),
            (packed, {"object_hook": raising}),
            (packed, {"max_str_len": 3}),
            (b"\x81\x01\x02", {}),
            (b"\xa2\xc3\x28", {}),
        ]:
            with pytest.raises((ValueError, KeyError)):
                om.unpackb(bad, **kwargs)
        u = om.Unpacker(max_buffer_size=1 << 16)
        u.feed(packed * 3 + packed[:7])
        assert len(list(u)) == 3
        u.feed(packed[7:])
        assert u.unpack() == om.unpackb(packed)
        u.feed(b"\x93\x01")
        with pytest.raises(om.OutOfData):
            u.unpack()
        om.packb([1.5, "x" * 40, b"y"], use_single_float=True, use_bin_type=False)
        om.packb(["a\udc80"], unicode_errors="replace")
        with pytest.raises(TypeError):
            om.packb([object()])
        with pytest.raises(KeyError):
            om.packb([object()], default=raising)


def test_no_leaks():
    import gc
    import sys

    from helpers import assert_blocks_steady, assert_resident_set_steady, rss

    _leak_calls()
    gc.collect()
    blocks, resident = sys.getallocatedblocks(), rss()
    _leak_calls()
    gc.collect()
    assert_blocks_steady(sys.getallocatedblocks() - blocks, _leak_calls, 100, LEAK_CALLS)
    assert_resident_set_steady(rss() - resident, _leak_calls, 1 << 20, LEAK_CALLS)


def test_unpackb_of_bytes_with_the_defaults_agrees_with_every_other_call():
    # One bytes object with no option is decoded by the extension's unpackb
    # itself; every other call goes through the Python function: the same
    # values and the same exceptions either way, as msgpack-python's.
    packed = msgpack.packb([{"a": [1, 2.5, b"x", None]}, "t", -(2**63)])
    cases = [packed, packed + b"\x01", packed[:-1], b"\xc1", b"\x81\x01\x02", b"\xa2\xc3\x28", b""]
    for data in cases:
        calls = [
            lambda data=data: om.unpackb(data),
            lambda data=data: om.unpackb(bytearray(data)),
            lambda data=data: om.unpackb(memoryview(data)),
            lambda data=data: om.unpackb(packed=data),
            lambda data=data: om.unpackb(data, raw=False, use_list=True),
        ]
        results = []
        for call in calls:
            try:
                results.append(("ok", call()))
            except Exception as e:  # noqa: BLE001 - the type and message are compared
                results.append(("raised", type(e), str(e)))
        try:
            expected = ("ok", msgpack.unpackb(data))
        except Exception as e:  # noqa: BLE001
            expected = ("raised", type(e).__name__)
        assert all(r == results[0] for r in results), (data, results)
        assert results[0][:1] + ((results[0][1],) if results[0][0] == "ok" else (results[0][1].__name__,)) == expected
    with pytest.raises(TypeError):
        om.unpackb()
    with pytest.raises(TypeError):
        om.unpackb(packed, nonsense=1)
    with pytest.raises(om.ExtraData) as info:
        om.unpackb(b"\x01\x02")
    assert (info.value.unpacked, info.value.extra) == (1, b"\x02")


def test_packb_with_the_defaults_agrees_with_every_other_call():
    # One object with no option goes to the walker from the extension's
    # packb; what the walker refuses, and every call with options, goes
    # through the Python packer: the same bytes and exceptions either way.
    import datetime
    import enum

    class Color(enum.IntEnum):
        RED = 1

    surrogate, unsupported = "a\udc80", object()

    def values(m):
        # Each module its own ExtType and Timestamp.
        return [
            {"a": [1, 2.5, b"x", None, True]},
            (1, (2, 3)),
            m.ExtType(5, b"ab"),
            m.Timestamp(1, 2),
            [Color.RED, 2**64 - 1, -(2**63)],
            2**64,
            surrogate,
            unsupported,
            datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc),
            {1: {"k": (m.ExtType(1, b""),)}},
        ]

    def outcome(call):
        try:
            return ("ok", call())
        except Exception as e:  # noqa: BLE001 - the type is compared
            return ("raised", type(e).__name__)

    for ours, theirs in zip(values(om), values(msgpack)):
        results = [
            outcome(lambda v=ours: om.packb(v)),
            outcome(lambda v=ours: om.packb(o=v)),
            outcome(lambda v=ours: om.packb(v, use_bin_type=True)),
            outcome(lambda v=ours: om.Packer().pack(v)),
            outcome(lambda v=theirs: msgpack.packb(v)),
        ]
        assert all(r == results[0] for r in results), (ours, results)
    with pytest.raises(TypeError):
        om.packb()
    with pytest.raises(TypeError):
        om.packb(1, nonsense=True)


@pytest.mark.parametrize("default", [None, str, repr], ids=["no default", "str", "repr"])
def test_map_keys_are_packed_as_values_are(default):
    # msgpack-python packs a key as it packs a value: extension types and
    # timestamps natively, anything else it does not know through `default`.
    class Color(enum.Enum):
        RED = 1

    keys = [
        (om.Timestamp(1, 500), msgpack.Timestamp(1, 500)),
        (om.ExtType(5, b"x"), msgpack.ExtType(5, b"x")),
        (dt.datetime(2020, 1, 2, 3, 4, 5), None),
        (uuid.UUID(int=7), None),
        (Color.RED, None),
        ((1, (2, "a")), None),
        (2**70, None),
        (-1.5, None),
        (b"k", None),
        (None, None),
        (True, None),
    ]
    kw = {} if default is None else {"default": default}
    for ours, theirs in keys:
        theirs = ours if theirs is None else theirs

        def outcome(pack, key):
            try:
                return pack({key: [key]})
            except Exception as e:
                return type(e)

        assert outcome(functools.partial(om.packb, **kw), ours) == outcome(
            functools.partial(msgpack.packb, **kw), theirs
        )
        assert outcome(om.Packer(**kw).pack, ours) == outcome(msgpack.Packer(**kw).pack, theirs)
