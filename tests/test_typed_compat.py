"""The deliberate differences of typed decoding from msgspec (doc/compatibility.md), each
asserted to still differ."""

from __future__ import annotations

import decimal
import json
from typing import Annotated

import annotated_types as at
import msgspec
import orcodec
import pytest


def test_constraint_messages_name_what_was_found():
    tp, peer_tp = Annotated[int, at.Ge(1)], Annotated[int, msgspec.Meta(ge=1)]
    with pytest.raises(orcodec.ValidationError) as mine:
        orcodec.loads(b"0", type=tp)
    with pytest.raises(msgspec.ValidationError) as peer:
        msgspec.json.decode(b"0", type=peer_tp)
    assert str(peer.value) == "Expected `int` >= 1"
    assert str(mine.value) == "Expected `int` >= 1, got `0`"
    with pytest.raises(orcodec.ValidationError, match=r"^Expected `str` of length <= 3, got length 4$"):
        orcodec.loads(b'"abcd"', type=Annotated[str, at.MaxLen(3)])
    with pytest.raises(msgspec.ValidationError, match=r"^Expected `str` of length <= 3$"):
        msgspec.json.decode(b'"abcd"', type=Annotated[str, msgspec.Meta(max_length=3)])


def test_decimal_from_a_json_number_keeps_its_text():
    assert str(orcodec.loads(b"-0", type=decimal.Decimal)) == "-0"
    assert str(msgspec.json.decode(b"-0", type=decimal.Decimal)) == "0"


def test_typed_json_errors_have_a_position():
    with pytest.raises(json.JSONDecodeError) as mine:
        orcodec.loads(b'[1, "x"]', type=list[int])
    assert (mine.value.pos, mine.value.lineno, mine.value.colno) == (4, 1, 5)
    with pytest.raises(msgspec.ValidationError) as peer:
        msgspec.json.decode(b'[1, "x"]', type=list[int])
    assert not hasattr(peer.value, "pos")


def test_msgpack_array_keys_into_typed_targets():
    data = b"\x81\x91\x01\x02"
    assert msgspec.msgpack.decode(data, type=dict[tuple[int], int]) == {(1,): 2}
    with pytest.raises(orcodec.ValidationError, match=r"^Expected `str`, got `array` - at `key` in `\$`$"):
        orcodec.unpackb(data, type=dict[tuple[int], int])


def test_long_values_are_quoted_in_part():
    import enum

    class Color(enum.Enum):
        RED = "red"

    value = "a" * 1000
    with pytest.raises(orcodec.ValidationError) as mine:
        orcodec.loads(orcodec.dumps(value), type=Color)
    with pytest.raises(msgspec.ValidationError) as peer:
        msgspec.json.decode(orcodec.dumps(value), type=Color)
    assert str(peer.value) == f"Invalid enum value '{value}'"
    assert str(mine.value) == f"Invalid enum value '{value[:200]}'..."


def test_timedelta_fractions_of_days_are_rounded_from_every_digit():
    import datetime

    data = b'"P0.123456789012345D"'
    assert msgspec.json.decode(data, type=datetime.timedelta).microseconds == 666570
    assert orcodec.loads(data, type=datetime.timedelta).microseconds == 666571


def test_timedelta_day_counts_past_64_bits_of_seconds_are_out_of_range():
    import datetime

    data = b'"P140737488355328D"'
    with pytest.raises(Exception, match="days=-1158050442") as peer:  # noqa: PT011 - msgspec's own error
        msgspec.json.decode(data, type=datetime.timedelta)
    assert not isinstance(peer.value, msgspec.ValidationError)
    with pytest.raises(orcodec.ValidationError, match=r"^Duration is out of range$"):
        orcodec.loads(data, type=datetime.timedelta)
