"""orcodec.integrations.kombu: the serializers in kombu's registry, on kombu's in-memory transport.

The Celery worker on a real Redis broker is in test_integrations_celery.py.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime
import decimal
import enum
import importlib.metadata
import json
import subprocess
import sys
import uuid

import kombu
import kombu.serialization
import numpy as np
import orcodec
import pytest
from kombu.exceptions import ContentDisallowed, DecodeError, EncodeError
from kombu.utils import json as kombu_json
from orcodec.integrations import kombu as okombu

UTC = datetime.timezone.utc


@dataclasses.dataclass
class Order:
    id: uuid.UUID
    placed: datetime.datetime
    total: decimal.Decimal
    lines: list


class Color(enum.Enum):
    RED = "red"


# What kombu's own json serializer carries, exactly.
KOMBU_TYPES = {
    "aware": datetime.datetime(2025, 3, 1, 12, 0, 0, 5, tzinfo=UTC),
    "naive": datetime.datetime(2025, 3, 1, 12, 0),
    "offset": datetime.datetime(2025, 3, 1, tzinfo=datetime.timezone(datetime.timedelta(hours=-5))),
    "day": datetime.date(2024, 2, 29),
    "clock": datetime.time(23, 59, 1, 10),
    "id": uuid.UUID("12345678-1234-5678-1234-567812345678"),
    "price": decimal.Decimal("19.990"),
    "text_bytes": b"abc",
    "binary": b"\xff\x00",
    "list": [1, 2.5, "x", None, True, {"nested": [datetime.date(2000, 1, 1)]}],
    "big": 2**70,
    "negative_big": -(2**64) - 1,
    "unicode": "é\u2028\U0001f600",
}


def test_the_entry_points_are_installed() -> None:
    points = {ep.name: ep.value for ep in importlib.metadata.entry_points(group="kombu.serializers")}
    assert points["orcodec-json"] == "orcodec.integrations.kombu:json_codec"
    assert points["orcodec-msgpack"] == "orcodec.integrations.kombu:msgpack_codec"
    assert points["orcodec-msgpack-numpy"] == "orcodec.integrations.kombu:msgpack_numpy_codec"


def test_kombu_registers_them_when_it_loads() -> None:
    # A fresh interpreter that only imports kombu: no orcodec import, no register().
    code = (
        "import sys, kombu.serialization as s\n"
        "print(s.registry.name_to_type['orcodec-json'], s.registry.name_to_type['orcodec-msgpack'])\n"
        "print(s.dumps({'a': 1}, serializer='orcodec-msgpack'))\n"
        "print('starlette' in sys.modules, 'distributed' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == [
        "application/json application/x-msgpack",
        "('application/x-msgpack', 'binary', b'\\x81\\xa1a\\x01')",
        "False False",
    ]


def test_register_is_idempotent() -> None:
    okombu.register()
    okombu.register()
    registry = kombu.serialization.registry
    assert registry._encoders["orcodec-json"] == (
        "application/json",
        "utf-8",
        okombu.dumps_json,
    )
    assert registry._encoders["orcodec-msgpack"] == ("application/x-msgpack", "binary", okombu.dumps_msgpack)
    assert registry._decoders["application/json"] is okombu.loads_json
    assert registry._decoders["application/x-msgpack"] is okombu.loads_msgpack
    assert registry._encoders["orcodec-msgpack-numpy"] == (
        "application/x-orcodec-msgpack-numpy",
        "binary",
        okombu.dumps_msgpack_numpy,
    )
    assert registry._decoders["application/x-orcodec-msgpack-numpy"] is okombu.loads_msgpack_numpy


@pytest.mark.parametrize("name", ["orcodec-json", "orcodec-msgpack"])
def test_round_trip_of_kombus_types(name) -> None:
    value = dict(KOMBU_TYPES)
    if name == "orcodec-msgpack":
        del value["big"], value["negative_big"]  # MessagePack has no encoding for them
    content_type, encoding, body = kombu.serialization.dumps(value, serializer=name)
    assert (content_type, encoding) == (
        ("application/json", "utf-8") if name == "orcodec-json" else ("application/x-msgpack", "binary")
    )
    decoded = kombu.serialization.loads(body, content_type, encoding, accept=[content_type])
    assert decoded == value
    assert {k: type(v) for k, v in decoded.items()} == {k: type(v) for k, v in value.items()}
    assert decoded["offset"].utcoffset() == datetime.timedelta(hours=-5)
    assert decoded["naive"].tzinfo is None


def test_json_is_readable_by_kombus_own_json_and_back() -> None:
    value = dict(KOMBU_TYPES)
    ours = okombu.dumps_json(value)
    theirs = kombu_json.dumps(value).encode()
    # Each side reads the other's bytes to the same objects.
    assert kombu_json.loads(ours) == value
    assert okombu.loads_json(theirs) == value
    # The same document, up to JSON whitespace.
    assert json.loads(ours) == json.loads(theirs)
    assert json.loads(ours)["aware"] == {"__type__": "datetime", "__value__": "2025-03-01T12:00:00.000005+00:00"}
    assert json.loads(ours)["binary"] == {"__type__": "base64", "__value__": base64.b64encode(b"\xff\x00").decode()}


def test_json_decoding_matches_kombus_where_orcodec_is_stricter() -> None:
    # Python's json accepts NaN and keeps every integer exact; so does the decoder.
    for text in [b"[NaN, Infinity, -Infinity]", b"123456789012345678901234567890", b"-9999999999999999999"]:
        expected = kombu_json.loads(text)
        decoded = okombu.loads_json(text)
        assert repr(decoded) == repr(expected)
    assert okombu.loads_json("[1, 2]") == [1, 2]
    assert okombu.loads_json(memoryview(b'{"a": 1}')) == {"a": 1}
    assert okombu.loads_json(bytearray(b'{"a": 1}')) == {"a": 1}
    assert okombu.loads_json('"\\ud800"') == "\ud800"
    with pytest.raises(DecodeError):
        kombu.serialization.loads(b"{", "application/json", "utf-8")
    with pytest.raises(ValueError, match="Unsupported type"):
        okombu.loads_json(b'{"__type__": "nope", "__value__": 1}')


def test_envelopes_are_opened_innermost_first_at_any_depth() -> None:
    deep = [{"__type__": "decimal", "__value__": "1"}]
    for _ in range(200):
        deep = [deep]
    decoded = okombu.loads_json(orcodec.dumps(deep))
    for _ in range(200):
        decoded = decoded[0]
    assert decoded == [decimal.Decimal("1")]
    # A map that only looks like an envelope is left as it is.
    lookalike = {"__type__": "decimal", "__value__": "1", "other": 2}
    assert okombu.loads_json(orcodec.dumps(lookalike)) == lookalike
    assert okombu.loads_msgpack(orcodec.packb({"x": {"__type__": "uuid", "__value__": {"hex": "0" * 32}}})) == {
        "x": uuid.UUID(int=0)
    }


def test_types_orcodec_adds() -> None:
    order = Order(uuid.UUID(int=9), datetime.datetime(2025, 1, 1, tzinfo=UTC), decimal.Decimal("2.50"), [1, 2])
    value = {"order": order, "array": np.array([[1, 2], [3, 4]], dtype=np.int16), "color": Color.RED, 7: "seven"}
    with pytest.raises(TypeError):
        kombu_json.dumps(value)  # kombu's own json refuses dataclasses and arrays
    json_value = okombu.loads_json(okombu.dumps_json(value))
    expected = {
        "order": {"id": order.id, "placed": order.placed, "total": order.total, "lines": [1, 2]},
        "array": [[1, 2], [3, 4]],
        "color": "red",
    }
    assert json_value == {**expected, "7": "seven"}
    assert okombu.loads_msgpack(okombu.dumps_msgpack(value)) == {**expected, 7: "seven"}


def test_msgpack_numpy_round_trips_arrays_bit_for_bit() -> None:
    value = {
        "grid": np.arange(12, dtype=">i4").reshape(3, 4)[:, ::2],
        "nan": np.array([np.nan, -0.0, np.inf], dtype=np.float32),
        "when": np.array(["2025-01-01T00:00", "NaT"], dtype="datetime64[m]"),
        "scalar": np.uint16(7),
        "at": datetime.datetime(2025, 1, 1, tzinfo=datetime.timezone.utc),
        "id": uuid.UUID(int=3),
    }
    content_type, encoding, body = kombu.serialization.dumps(value, serializer="orcodec-msgpack-numpy")
    assert (content_type, encoding) == ("application/x-orcodec-msgpack-numpy", "binary")
    assert body == orcodec.packb(
        value,
        default=okombu._envelope,
        option=orcodec.OPT_NUMPY_EXT
        | orcodec.OPT_NON_STR_KEYS
        | orcodec.OPT_SERIALIZE_PYDANTIC
        | orcodec.OPT_PASSTHROUGH_DATETIME
        | orcodec.OPT_PASSTHROUGH_UUID,
    )
    decoded = kombu.serialization.loads(body, content_type, encoding, accept=[content_type])
    for key in ("grid", "nan", "when"):
        assert decoded[key].dtype == value[key].dtype and decoded[key].shape == value[key].shape
        assert decoded[key].tobytes() == np.ascontiguousarray(value[key]).tobytes()
        assert decoded[key].flags.writeable
    assert type(decoded["scalar"]) is np.uint16 and decoded["scalar"] == 7
    assert decoded["at"] == value["at"] and decoded["id"] == value["id"]
    # The plain serializer keeps writing arrays as lists, readable by any consumer.
    assert okombu.loads_msgpack(okombu.dumps_msgpack({"a": np.array([1, 2])})) == {"a": [1, 2]}


def test_unserializable_values_raise_kombus_encode_error() -> None:
    for name in ("orcodec-json", "orcodec-msgpack"):
        with pytest.raises(EncodeError, match="serializable: object"):
            kombu.serialization.dumps({"x": object()}, serializer=name)
    with pytest.raises(EncodeError, match="Integer exceeds 64-bit range"):
        kombu.serialization.dumps(2**64, serializer="orcodec-msgpack")


def test_msgpack_reads_what_kombus_msgpack_writes() -> None:
    import msgpack

    value = {"a": [1, 2], "b": b"\x00", "c": "x", 1: -1}
    assert okombu.loads_msgpack(msgpack.packb(value, use_bin_type=True)) == value
    # An extension type orcodec does not know: msgpack-python's answer, as kombu's msgpack gives.
    ext = msgpack.packb(msgpack.ExtType(5, b"\x01"))
    assert okombu.loads_msgpack(ext) == msgpack.ExtType(5, b"\x01")


@pytest.mark.parametrize("serializer", ["orcodec-json", "orcodec-msgpack"])
def test_in_memory_transport(serializer) -> None:
    payload = {k: v for k, v in KOMBU_TYPES.items() if serializer == "orcodec-json" or "big" not in k}
    exchange = kombu.Exchange("orcodec-test", type="direct")
    queue = kombu.Queue("orcodec-test", exchange, routing_key="k")
    received = []
    with kombu.Connection("memory://") as conn:
        with conn.Producer() as producer:
            producer.publish(payload, exchange=exchange, routing_key="k", serializer=serializer, declare=[queue])
            producer.publish([1, "two"], exchange=exchange, routing_key="k", serializer=serializer, declare=[queue])

        def on_message(body, message):
            received.append((body, message.content_type, message.body))
            message.ack()

        with conn.Consumer(queue, callbacks=[on_message], accept=[serializer]):
            while len(received) < 2:
                conn.drain_events(timeout=2)
    (body, content_type, raw), (second, _, _) = received
    assert body == payload
    assert second == [1, "two"]
    encode = okombu.dumps_json if serializer == "orcodec-json" else okombu.dumps_msgpack
    assert raw == encode(payload)
    assert content_type == kombu.serialization.registry.name_to_type[serializer]


def test_a_consumer_must_accept_the_content_type() -> None:
    exchange = kombu.Exchange("orcodec-accept", type="direct")
    queue = kombu.Queue("orcodec-accept", exchange, routing_key="k")
    errors = []
    with kombu.Connection("memory://") as conn:
        with conn.Producer() as producer:
            producer.publish(
                {"a": 1}, exchange=exchange, routing_key="k", serializer="orcodec-msgpack", declare=[queue]
            )

        def on_message(body, message):
            message.ack()

        def on_decode_error(message, exc):
            errors.append(exc)
            message.ack()

        consumer = conn.Consumer(queue, callbacks=[on_message], accept=["json"], on_decode_error=on_decode_error)
        with consumer:
            conn.drain_events(timeout=2)
    assert isinstance(errors[0], ContentDisallowed)
    assert "orcodec-msgpack" in str(errors[0])
