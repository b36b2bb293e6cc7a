"""Public names, exception hierarchy, option flags and call signatures."""

from __future__ import annotations

import functools
import json
import operator
import random

import orcodec
import pytest
from helpers import peer_is_pinned

ALL_FLAGS = [
    "OPT_APPEND_NEWLINE",
    "OPT_INDENT_2",
    "OPT_NAIVE_UTC",
    "OPT_NON_STR_KEYS",
    "OPT_OMIT_MICROSECONDS",
    "OPT_PASSTHROUGH_DATACLASS",
    "OPT_PASSTHROUGH_DATETIME",
    "OPT_PASSTHROUGH_SUBCLASS",
    "OPT_SERIALIZE_DATACLASS",
    "OPT_SERIALIZE_UUID",
    "OPT_SERIALIZE_NUMPY",
    "OPT_SORT_KEYS",
    "OPT_STRICT_INTEGER",
    "OPT_UTC_Z",
    "OPT_DATETIME_AS_TIMESTAMP_EXT",
    "OPT_PASSTHROUGH_BIG_INT",
    "OPT_PASSTHROUGH_ENUM",
    "OPT_PASSTHROUGH_TUPLE",
    "OPT_PASSTHROUGH_UUID",
    "OPT_REPLACE_SURROGATES",
    "OPT_SERIALIZE_PYDANTIC",
    "OPT_NUMPY_EXT",
    "OPT_NUMPY_ZERO_COPY",
    "OPT_MSGPACK_NUMPY",
    "OPT_OMIT_DEFAULTS",
    "OPT_OMIT_NONE",
]
ZERO_FLAGS = {"OPT_SERIALIZE_DATACLASS", "OPT_SERIALIZE_UUID"}

# Flags that cannot change the output for a document made only of None/bool/int/float/
# str/list/dict (no tuples, subclasses, ints beyond 53 bits or surrogates).
NO_EFFECT_ON_BUILTINS = [
    "OPT_OMIT_MICROSECONDS",
    "OPT_SERIALIZE_DATACLASS",
    "OPT_SERIALIZE_UUID",
    "OPT_SERIALIZE_NUMPY",
    "OPT_DATETIME_AS_TIMESTAMP_EXT",
    "OPT_SERIALIZE_PYDANTIC",
    "OPT_NUMPY_EXT",
    "OPT_NUMPY_ZERO_COPY",
    "OPT_MSGPACK_NUMPY",
    "OPT_OMIT_DEFAULTS",
    "OPT_OMIT_NONE",
]

# Builtin documents every flag must accept: no tuples, subclasses, ints beyond 53 bits
# (OPT_STRICT_INTEGER) or surrogates.
DOCUMENTS = [
    None,
    True,
    0,
    -5,
    2**53 - 1,
    1.5,
    "text \u00e9\u4e2d\U0001f600",
    [],
    {},
    [1, "two", 3.0, None, False, [[]], {"x": {}}],
    {"b": 1, "a": [1, 2, {"z": None, "y": "s"}], "c": {"nested": [True, False]}},
]


def _flag(name: str) -> int:
    return getattr(orcodec, name)


def _or(names) -> int:
    return functools.reduce(operator.or_, (_flag(n) for n in names), 0)


# --------------------------------------------------------------------------------------
# Names and exceptions
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["dumps", "loads", "packb", "unpackb"])
def test_functions_exist(name):
    assert callable(getattr(orcodec, name))


def test_version_is_nonempty_str():
    assert type(orcodec.__version__) is str
    assert orcodec.__version__.strip() != ""


@pytest.mark.parametrize(
    "name, base",
    [
        ("JSONEncodeError", TypeError),
        ("JSONDecodeError", json.JSONDecodeError),
        ("JSONDecodeError", ValueError),
        ("MsgpackEncodeError", TypeError),
        ("MsgpackDecodeError", ValueError),
    ],
)
def test_exception_hierarchy(name, base):
    cls = getattr(orcodec, name)
    assert isinstance(cls, type)
    assert issubclass(cls, base)


def test_raised_exceptions_are_the_exported_classes():
    with pytest.raises(orcodec.JSONEncodeError):
        orcodec.dumps(object())
    with pytest.raises(orcodec.JSONDecodeError):
        orcodec.loads(b"[")
    with pytest.raises(orcodec.MsgpackEncodeError):
        orcodec.packb(object())
    with pytest.raises(orcodec.MsgpackDecodeError):
        orcodec.unpackb(b"\xc1")


def test_raised_exceptions_are_the_peers_base_classes(fmt):
    # Code that catches the peer's exceptions (TypeError / ValueError) catches orcodec's.
    assert issubclass(fmt.encode_error, TypeError) and issubclass(fmt.peer_encode_error, TypeError)
    assert issubclass(fmt.decode_error, ValueError) and issubclass(fmt.peer_decode_error, ValueError)
    with pytest.raises(TypeError):
        fmt.encode(object())
    with pytest.raises(ValueError):
        fmt.decode(b"\xc1" if fmt.name == "msgpack" else b"[")


def test_json_decode_error_is_caught_by_stdlib_handlers():
    try:
        orcodec.loads(b"{")
    except json.JSONDecodeError as exc:
        assert isinstance(exc, orcodec.JSONDecodeError)
    else:  # pragma: no cover
        pytest.fail("no exception")


# --------------------------------------------------------------------------------------
# Flags
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL_FLAGS)
def test_flag_exists_and_is_int(name):
    value = getattr(orcodec, name)
    assert type(value) is int


@pytest.mark.parametrize("name", ALL_FLAGS)
def test_flag_is_single_bit_or_zero(name):
    value = _flag(name)
    if name in ZERO_FLAGS:
        assert value == 0
    else:
        assert value > 0
        assert value & (value - 1) == 0, f"{name}={value:#x} is not a single bit"


def test_flags_are_distinct_bits():
    values = [_flag(n) for n in ALL_FLAGS if n not in ZERO_FLAGS]
    assert len(set(values)) == len(values)
    assert _or(ALL_FLAGS) == sum(values)


def _invalid_bits() -> list[int]:
    valid = 0
    for name in ALL_FLAGS:
        valid |= getattr(orcodec, name, 0)
    return [1 << b for b in range(64) if not valid & (1 << b)]


@pytest.mark.parametrize("name", ALL_FLAGS)
def test_each_flag_accepted(fmt, name):
    encode = fmt.encode
    for doc in DOCUMENTS:
        assert type(encode(doc, option=_flag(name))) is bytes


def _accepted_together(fmt, names):
    """``names`` less the combination packb refuses as ormsgpack does (it refuses
    OPT_NON_STR_KEYS with OPT_SORT_KEYS once it meets a dict)."""
    if fmt.name == "msgpack" and "OPT_NON_STR_KEYS" in names:
        return [n for n in names if n != "OPT_SORT_KEYS"]
    return names


def test_all_flags_together_accepted(fmt):
    encode = fmt.encode
    everything = _or(_accepted_together(fmt, ALL_FLAGS))
    for doc in DOCUMENTS:
        assert type(encode(doc, option=everything)) is bytes


@pytest.mark.parametrize("seed", range(20))
def test_random_flag_combinations_accepted(fmt, seed):
    encode = fmt.encode
    rng = random.Random(seed)
    names = rng.sample(ALL_FLAGS, rng.randint(2, len(ALL_FLAGS) - 1))
    for doc in DOCUMENTS:
        assert type(encode(doc, option=_or(_accepted_together(fmt, names)))) is bytes


@pytest.mark.parametrize(
    "names",
    [[n] for n in NO_EFFECT_ON_BUILTINS] + [NO_EFFECT_ON_BUILTINS],
    ids=lambda names: "|".join(names),
)
def test_flags_without_behaviour_do_not_change_output(fmt, names):
    encode = fmt.encode
    for doc in DOCUMENTS:
        assert encode(doc, option=_or(names)) == encode(doc)


@pytest.mark.parametrize("option", [None, 0])
def test_option_none_and_zero(fmt, option):
    encode = fmt.encode
    for doc in DOCUMENTS:
        assert encode(doc, option=option) == encode(doc)
        assert encode(doc, None, option) == encode(doc)


def test_invalid_option_bit_40(fmt):
    encode, error = fmt.encode, fmt.encode_error
    with pytest.raises(error) as excinfo:
        encode([1, 2], option=1 << 40)
    assert str(excinfo.value) == "Invalid opts"


def test_every_non_flag_bit_is_invalid(fmt):
    encode, error = fmt.encode, fmt.encode_error
    bits = _invalid_bits()
    assert 1 << 40 in bits
    for bit in bits:
        with pytest.raises(error) as excinfo:
            encode({"a": 1}, option=bit)
        assert str(excinfo.value) == "Invalid opts", hex(bit)


def test_invalid_bit_combined_with_valid_flags(fmt):
    encode, error = fmt.encode, fmt.encode_error
    with pytest.raises(error) as excinfo:
        encode({"a": 1}, option=orcodec.OPT_SORT_KEYS | orcodec.OPT_SERIALIZE_NUMPY | (1 << 40))
    assert str(excinfo.value) == "Invalid opts"


@pytest.mark.parametrize("option", [-1, 1 << 64, 1 << 70], ids=["minus1", "bit64", "bit70"])
def test_out_of_range_int_options_are_invalid(fmt, option):
    encode, error = fmt.encode, fmt.encode_error
    with pytest.raises(error) as excinfo:
        encode([1], option=option)
    assert str(excinfo.value) == "Invalid opts"


@pytest.mark.parametrize("option", ["x", 1.5, b"\x01", [1], {}], ids=["str", "float", "bytes", "list", "dict"])
def test_option_of_wrong_type(fmt, option):
    encode, error = fmt.encode, fmt.encode_error
    with pytest.raises(error):
        encode([1], option=option)


# --------------------------------------------------------------------------------------
# Signatures
# --------------------------------------------------------------------------------------


def test_encode_default_and_option_positional_or_keyword(fmt):
    encode = fmt.encode
    expected = encode([1, "a"])
    assert encode([1, "a"], None) == expected
    assert encode([1, "a"], None, None) == expected
    assert encode([1, "a"], default=None, option=None) == expected
    assert encode([1, "a"], option=0, default=None) == expected


def test_encode_obj_is_positional_only(fmt):
    encode = fmt.encode
    with pytest.raises(TypeError):
        encode(obj=[1])


def test_encode_requires_an_argument(fmt):
    encode = fmt.encode
    with pytest.raises(TypeError):
        encode()


def test_decode_takes_its_input_positionally_and_nothing_else(fmt):
    data = fmt.reference([1])
    assert fmt.decode(data) == [1]
    for args, kwargs in [((), {}), ((data, None), {}), ((), {"data": data}), ((), {"obj": data})]:
        with pytest.raises(TypeError):
            fmt.decode(*args, **kwargs)
        # As the peer (ormsgpack releases before 1.13, the newest on Python 3.9 and
        # 3.10, raise ValueError here).
        if peer_is_pinned(fmt.peer):
            with pytest.raises(TypeError):
                fmt.peer_decode(*args, **kwargs)


def test_unpackb_options_are_keyword_only():
    assert orcodec.unpackb(b"\x01", ext_hook=None, option=None) == 1
    with pytest.raises(TypeError):
        orcodec.unpackb(b"\x01", None)
