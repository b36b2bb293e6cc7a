"""`datetime.timedelta` in typed decoding and JSON Schema: ISO 8601 durations as msgspec
writes and reads them (and numbers of seconds with strict=False), against msgspec itself
on random timedeltas and random texts; the schema against the decoder.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from pathlib import Path
from typing import Optional, Union

import jsonschema
import msgspec
import orcodec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typed_helpers import FORMATS, exact

td = dt.timedelta
by_format = pytest.mark.parametrize("fmt", FORMATS, ids=repr)

INVALID = "Invalid ISO8601 duration"
RANGE = "Duration is out of range"
UNSUPPORTED = "Only units 'D', 'H', 'M', and 'S' are supported when parsing ISO8601 durations"


@by_format
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("P1D", td(days=1)),
        ("P0D", td(0)),
        ("PT1H", td(hours=1)),
        ("PT36H", td(hours=36)),
        ("P1DT7203.5S", td(days=1, hours=2, seconds=3.5)),
        ("p1dt1h1m1.5s", td(days=1, hours=1, minutes=1, seconds=1.5)),
        ("+P1D", td(days=1)),
        ("-P1D", td(days=-1)),
        ("-PT0.000001S", td(microseconds=-1)),
        ("PT0.0000005S", td(microseconds=1)),
        ("PT1.5H", td(minutes=90)),
        ("P0.5D", td(hours=12)),
        ("P001D", td(days=1)),
        ("P999999999DT86399.999999S", td.max),
        ("-P999999999D", td.min),
    ],
)
def test_durations(fmt, text, expected):
    exact(fmt.decode(text, td), expected)
    assert fmt.decode(text, td) == fmt.peer(text, td)


@by_format
@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("P", INVALID),
        ("PT", INVALID),
        ("P1DT", INVALID),
        ("PT1.5H1S", INVALID),
        ("PT1M1H", INVALID),
        ("PT1,5S", INVALID),
        (" PT1S", INVALID),
        ("PT1S\n", INVALID),
        ("1", INVALID),
        ("P1W", UNSUPPORTED),
        ("P1Y", UNSUPPORTED),
        ("P1M", UNSUPPORTED),
        ("P1000000000D", RANGE),
        ("-P999999999DT1S", RANGE),
        ("P999999999DT86399.9999995S", RANGE),
        ("PT99999999999999999999S", RANGE),
    ],
)
def test_refused_texts(fmt, text, message):
    assert str(fmt.error(text, td)) == message == fmt.peer_error(text, td)


def test_fractions_are_rounded_from_every_digit():
    # (msgspec reads 11 digits: tests/test_typed_compat.py.)
    assert orcodec.loads(b'"P0.123456789012345D"', type=td) == td(seconds=10666, microseconds=666571)
    assert orcodec.loads(b'"PT0.00000049999999999999999S"', type=td) == td(0)
    assert orcodec.loads(b'"PT0.0000014999999999999999999S"', type=td) == td(microseconds=1)


@dataclasses.dataclass
class Job:
    name: str
    timeout: td
    retry: Optional[td] = None  # noqa: UP045 (evaluated on 3.9 too)


@by_format
def test_fields_paths_and_kinds(fmt):
    exact(fmt.decode({"name": "a", "timeout": "PT30S"}, Job), Job("a", td(seconds=30)))
    exact(fmt.decode({"name": "a", "timeout": "PT1S", "retry": None}, Job), Job("a", td(seconds=1)))
    assert str(fmt.error({"name": "a", "timeout": "PT"}, Job)) == f"{INVALID} - at `$.timeout`"
    assert str(fmt.error({"name": "a", "timeout": 5}, Job)) == "Expected `duration`, got `int` - at `$.timeout`"
    assert str(fmt.error({"name": "a", "timeout": 5}, Job)) == fmt.peer_error({"name": "a", "timeout": 5}, Job)
    assert str(fmt.error([1.5], list[td])) == "Expected `duration`, got `float` - at `$[0]`"
    assert str(fmt.error({"x": "P1W"}, dict[str, td])) == f"{UNSUPPORTED} - at `$[...]`"
    assert str(fmt.error(["P1D", 1], list[Union[td, None]])) == "Expected `duration | null`, got `int` - at `$[1]`"
    exact(fmt.decode(["P1D", None], list[Optional[td]]), [td(1), None])
    exact(fmt.decode(["P1D", 3], list[Union[td, int]]), [td(1), 3])


def test_json_error_position():
    with pytest.raises(orcodec.JSONDecodeError) as info:
        orcodec.loads(b'{"name": "a", "timeout": "P1"}', type=Job)
    assert info.value.pos == 25


def test_convert_keeps_timedeltas():
    class Sub(td):
        pass

    for value in (td(days=-3, microseconds=7), Sub(1)):
        assert orcodec.convert(value, td) is value
    assert orcodec.convert("PT1S", td) == td(seconds=1)
    with pytest.raises(orcodec.ValidationError, match="Expected `duration`, got `date`"):
        orcodec.convert(dt.date(2024, 1, 1), td)


@by_format
@pytest.mark.parametrize(
    "value",
    [
        1,
        -1,
        0,
        1.5,
        -1.0000015,
        2.5e-6,
        86399999999999,
        86399999999999.5,
        -86399999913600,
        -86399999913601,
        1e20,
        "1",
        "1.5",
        "-1",
        "1e3",
        "nan",
        "inf",
        "-inf",
        " 1",
        "0x10",
        "1_0",
        "86399999999999",
        "P1D",
        True,
    ],
    ids=repr,
)
def test_lax_numbers_of_seconds(fmt, value):
    try:
        theirs = fmt.peer(value, td, strict=False)
    except msgspec.ValidationError as exc:
        assert str(fmt.error(value, td, strict=False)) == str(exc)
    else:
        exact(fmt.decode(value, td, strict=False), theirs)


def test_lax_ints_beyond_64_bits_are_out_of_range():
    for data in (str(2**70).encode(), f'"{2**70}"'.encode()):
        with pytest.raises(orcodec.ValidationError, match=f"^{RANGE}$"):
            orcodec.loads(data, type=td, strict=False)
    with pytest.raises(orcodec.ValidationError, match=f"^{RANGE}$"):
        orcodec.convert(2**70, td, strict=False)


timedeltas = st.timedeltas(min_value=td.min, max_value=td.max)


@settings(max_examples=300, deadline=None)
@given(value=timedeltas)
def test_what_msgspec_writes_reads_back(value):
    text = msgspec.json.encode(value)
    assert orcodec.loads(text, type=td) == value
    assert orcodec.unpackb(msgspec.msgpack.encode(value), type=td) == value
    assert orcodec.convert(msgspec.json.decode(text), td) == value


# Random texts from the grammar's pieces, near misses included.
TOKENS = [
    "P",
    "p",
    "T",
    "t",
    "D",
    "d",
    "H",
    "h",
    "M",
    "m",
    "S",
    "s",
    "W",
    "Y",
    "-",
    "+",
    ".",
    ",",
    " ",
    "e",
    "0",
    "1",
    "7",
    "12",
    "86399",
    "999999999",
    "5",
    "0000001",
    "99999999999999",
]
texts = st.lists(st.sampled_from(TOKENS), max_size=9).map("".join) | st.text(
    alphabet="PTDHMS0123456789.-+", max_size=12
)


def outcome(decode, text):
    try:
        return repr(decode(text))
    except (orcodec.ValidationError, msgspec.ValidationError) as exc:
        return str(exc)
    except OverflowError as exc:  # msgspec past 64 bits of seconds
        return f"OverflowError: {exc}"


@settings(max_examples=800, deadline=None)
@given(text=texts)
def test_random_texts_agree_with_msgspec(text):
    data = msgspec.json.encode(text)
    ours = outcome(lambda d: orcodec.loads(d, type=td), data)
    theirs = outcome(lambda d: msgspec.json.decode(d, type=td), data)
    if theirs.startswith("OverflowError") or "magnitude" in theirs:
        assert ours == RANGE
    elif ours != theirs and re.search(r"\.[0-9]{12,}[Dd]", text):
        # More than 11 digits of a fraction of days: exact here, within a
        # microsecond of it there.
        a, b = orcodec.loads(data, type=td), msgspec.json.decode(data, type=td)
        assert abs(a - b) <= td(microseconds=1)
    else:
        assert ours == theirs


SCHEMA = orcodec.json_schema(td)
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


def test_schema():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["type"] == "string" and "pattern" in SCHEMA and "format" not in SCHEMA
    assert orcodec.json_schema(Optional[td])["anyOf"][0] == {"type": "string", "pattern": SCHEMA["pattern"]}


@settings(max_examples=800, deadline=None)
@given(text=texts)
def test_the_schema_takes_what_the_decoder_takes(text):
    try:
        orcodec.loads(orcodec.dumps(text), type=td)
    except orcodec.ValidationError as exc:
        if str(exc) == RANGE:
            # The one check the schema leaves to the decoder: it takes the text
            # if it is a duration once its numbers are small (a number too large
            # for any duration is out of range before its unit is read).
            small = re.sub("[0-9]+", "1", text)
            try:
                orcodec.loads(orcodec.dumps(small), type=td)
            except orcodec.ValidationError:
                assert not VALIDATOR.is_valid(text), text
            else:
                assert VALIDATOR.is_valid(text), text
        else:
            assert not VALIDATOR.is_valid(text), text
    else:
        assert VALIDATOR.is_valid(text), text


def test_encoding_a_timedelta_is_the_peers_type_error():
    with pytest.raises(orcodec.JSONEncodeError, match="not JSON serializable"):
        orcodec.dumps(td(1))
    with pytest.raises(orcodec.MsgpackEncodeError):
        orcodec.packb(td(1))


def doc_recipe() -> dict:
    """doc/typed.md's `iso_duration` and `default`, as the page runs them."""
    page = (Path(__file__).resolve().parent.parent / "doc" / "typed.md").read_text(encoding="utf-8")
    lines, taking = [], False
    for line in page.splitlines():
        if line.startswith(">>> def iso_duration"):
            taking = True
        if taking and line.startswith(">>> orcodec."):
            break
        if taking and line[:4] in (">>> ", "... "):
            lines.append(line[4:])
    namespace = {"datetime": dt}
    exec("\n".join(lines), namespace)  # noqa: S102 - the documentation's own example
    return namespace


RECIPE = doc_recipe()


@settings(max_examples=300, deadline=None)
@given(value=timedeltas)
def test_the_default_recipe_writes_msgspecs_text(value):
    default = RECIPE["default"]
    assert orcodec.dumps([value], default=default) == msgspec.json.encode([value])
    assert orcodec.packb(value, default=default) == msgspec.msgpack.encode(value)
    assert orcodec.loads(orcodec.dumps(value, default=default), type=td) == value
