"""orcodec.integrations.starlette against a real server.

The module-level `app` below is served by a uvicorn process that the
`server` fixture starts on a free loopback port (`--app-dir` is this
directory) and stops after the module; the tests call it with httpx and
compare every body byte for byte with `orcodec.dumps`/`packb` of the same
object.
"""

from __future__ import annotations

import dataclasses
import datetime
import os
import uuid
from collections.abc import Iterator
from typing import Annotated

import fastapi
import httpx
import numpy as np
import orcodec
import pytest
import servers
from fastapi import APIRouter, Depends, FastAPI, Response
from fastapi.encoders import jsonable_encoder
from orcodec.integrations.starlette import JSONResponse, MsgpackResponse, OrcodecRoute, TypedBody, read_body
from starlette.applications import Starlette
from starlette.routing import Route

UTC = datetime.timezone.utc


@dataclasses.dataclass
class Reading:
    id: uuid.UUID
    at: datetime.datetime
    values: np.ndarray
    tags: tuple


def reading() -> Reading:
    return Reading(
        id=uuid.UUID("8c7a3f0e-1d2b-4c5d-9e6f-0a1b2c3d4e5f"),
        at=datetime.datetime(2025, 3, 1, 12, 30, 15, 250000, tzinfo=UTC),
        values=np.array([[1.5, -2.0], [3.25, 1e-7]]),
        tags=("a", "é", "\U0001f600"),
    )


DOCUMENT = {
    "name": 'sensor "north"\n',
    "count": 2**63,
    "neg": -(2**63),
    "ratio": 0.1,
    "flags": [True, False, None],
    "nested": {"k": [1, {"x": "y"}]},
}
OPTION = orcodec.OPT_SERIALIZE_NUMPY | orcodec.OPT_UTC_Z | orcodec.OPT_NON_STR_KEYS


class Unknown:
    pass


def refuse(obj):
    raise ValueError(f"cannot serialize {type(obj).__name__}")


class NumpyJSON(JSONResponse):
    option = OPTION
    default = staticmethod(repr)


class NumpyMsgpack(MsgpackResponse):
    option = OPTION | orcodec.OPT_DATETIME_AS_TIMESTAMP_EXT


RefusingJSON = JSONResponse.with_options(default=refuse)
SortedJSON = NumpyJSON.with_options(option=OPTION | orcodec.OPT_SORT_KEYS, media_type="application/vnd.test+json")


@dataclasses.dataclass
class Item:
    sku: str
    qty: int


@dataclasses.dataclass
class Order:
    id: uuid.UUID
    at: datetime.datetime
    items: list[Item]


def order_summary(order: Order) -> dict:
    # What the endpoints received, types included.
    return {
        "id": order.id,
        "at": order.at.isoformat(),
        "qty": [item.qty for item in order.items],
        "types": [type(order).__name__, type(order.id).__name__, type(order.at).__name__],
    }


async def starlette_order(request):
    return JSONResponse(order_summary(await read_body(request, Order, max_size=1024)))


# Plain Starlette: the response classes render whatever they are given.
starlette_app = Starlette(
    routes=[
        Route("/json", lambda request: JSONResponse(DOCUMENT)),
        Route("/msgpack", lambda request: MsgpackResponse({"blob": b"\x00\xff", **DOCUMENT})),
        Route("/numpy-json", lambda request: NumpyJSON(reading(), status_code=201, headers={"x-test": "1"})),
        Route("/numpy-msgpack", lambda request: NumpyMsgpack(reading())),
        Route("/unknown-default", lambda request: NumpyJSON({"u": Unknown()})),
        Route("/unknown", lambda request: JSONResponse({"u": Unknown()})),
        Route("/refused", lambda request: RefusingJSON({"u": Unknown()})),
        Route("/refused-msgpack", lambda request: MsgpackResponse({"u": Unknown()})),
        Route("/orders", starlette_order, methods=["POST"]),
    ]
)

# FastAPI: FastAPI's default path, the response classes as default and per
# route, and the direct route class.
app = FastAPI(default_response_class=NumpyJSON)
app.mount("/starlette", starlette_app)


@app.get("/fastapi/default-class")
def default_class():
    # Through jsonable_encoder first (FastAPI's default path), then NumpyJSON.
    return {"id": uuid.UUID(int=7), "at": datetime.datetime(2025, 1, 2, tzinfo=UTC), "n": [1, 2]}


@app.get("/fastapi/msgpack", response_class=MsgpackResponse)
def fastapi_msgpack():
    return DOCUMENT


direct = APIRouter(route_class=OrcodecRoute)


@direct.get("/reading")
async def direct_reading():
    return reading()


@direct.get("/reading-msgpack", response_class=NumpyMsgpack)
def direct_reading_msgpack():
    return {"reading": reading(), "blob": b"\x01\x02"}


@direct.post("/created", status_code=201)
async def created(response: Response):
    response.headers["x-created"] = "yes"
    response.set_cookie("session", "abc")
    return {"id": uuid.UUID(int=1)}


@direct.get("/status-from-response")
def status_from_response(response: Response):
    response.status_code = 202
    return ["accepted"]


@direct.get("/no-content", status_code=204)
def no_content():
    return None


@direct.get("/returns-response")
def returns_response():
    return MsgpackResponse([1, 2], status_code=203)


@direct.get("/fragment")
def fragment():
    return {"pre": orcodec.Fragment(b'{"already":"json"}')}


@direct.get("/with-model", response_model=dict[str, int])
def with_model():
    return {"a": 1, "b": True}


@direct.get("/unknown", response_class=JSONResponse)
def direct_unknown():
    return {"u": Unknown()}


@direct.get("/query/{item_id}")
def query(item_id: int, q: str = "none"):
    return {"item_id": item_id, "q": q}


@direct.post("/orders")
async def create_order(order: Annotated[Order, Depends(TypedBody(Order, max_size=1024))]):
    return order_summary(order)


@direct.post("/orders-msgpack")
def create_order_msgpack(order: Annotated[Order, Depends(TypedBody(Order, format="msgpack"))]):
    return order_summary(order)


app.include_router(direct, prefix="/direct")

# The same endpoint on FastAPI's own defaults, for comparison.
stock = FastAPI()


@stock.get("/reading")
def stock_reading():
    return {"id": uuid.UUID(int=7), "at": datetime.datetime(2025, 1, 2, tzinfo=UTC)}


app.mount("/stock", stock)


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[str]:
    with servers.uvicorn(
        "test_integrations_starlette:app", "/starlette/json", tmp_path_factory.mktemp("uvicorn")
    ) as base:
        yield base


@pytest.fixture(scope="module")
def client(server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server, timeout=10) as c:
        yield c


def test_a_real_server_process_answers(server) -> None:
    # The fixture's server is another process, on loopback.
    response = httpx.get(server + "/starlette/json")
    assert response.status_code == 200
    assert response.headers["server"] == "uvicorn"
    assert os.getpid() != 0


@pytest.mark.parametrize(
    ("path", "body", "content_type"),
    [
        ("/starlette/json", orcodec.dumps(DOCUMENT), "application/json"),
        ("/starlette/msgpack", orcodec.packb({"blob": b"\x00\xff", **DOCUMENT}), "application/msgpack"),
        ("/starlette/numpy-msgpack", orcodec.packb(reading(), option=NumpyMsgpack.option), "application/msgpack"),
        ("/fastapi/msgpack", orcodec.packb(DOCUMENT), "application/msgpack"),
        ("/direct/reading", orcodec.dumps(reading(), option=OPTION, default=repr), "application/json"),
        (
            "/direct/reading-msgpack",
            orcodec.packb({"reading": reading(), "blob": b"\x01\x02"}, option=NumpyMsgpack.option),
            "application/msgpack",
        ),
        ("/direct/fragment", b'{"pre":{"already":"json"}}', "application/json"),
    ],
)
def test_bodies_are_orcodecs_bytes(client, path, body, content_type) -> None:
    response = client.get(path)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == content_type
    assert response.content == body
    assert int(response.headers["content-length"]) == len(body)


def test_status_and_headers_pass_through(client) -> None:
    response = client.get("/starlette/numpy-json")
    assert response.status_code == 201
    assert response.headers["x-test"] == "1"
    assert response.headers["content-type"] == "application/json"
    assert response.content == orcodec.dumps(reading(), option=OPTION)
    assert orcodec.loads(response.content)["values"] == [[1.5, -2.0], [3.25, 1e-7]]


def test_the_decoded_body_is_the_document(client) -> None:
    assert orcodec.loads(client.get("/starlette/json").content) == DOCUMENT
    unpacked = orcodec.unpackb(client.get("/starlette/msgpack").content)
    assert unpacked == {"blob": b"\x00\xff", **DOCUMENT}


def test_default_and_options_are_per_class(client) -> None:
    # NumpyJSON's default (repr) serializes what the plain class refuses.
    response = client.get("/starlette/unknown-default")
    assert response.status_code == 200
    assert orcodec.loads(response.content)["u"].startswith("<test_integrations_starlette.Unknown object at")
    assert JSONResponse.option is None and JSONResponse.default is None
    assert SortedJSON.media_type == "application/vnd.test+json" and SortedJSON.default is repr
    assert SortedJSON.option == OPTION | orcodec.OPT_SORT_KEYS
    assert SortedJSON({"b": 1, "a": np.int8(2)}).body == b'{"a":2,"b":1}'
    assert issubclass(SortedJSON, NumpyJSON) and SortedJSON.__name__ == "NumpyJSON"


@pytest.mark.parametrize(
    "path", ["/starlette/unknown", "/starlette/refused", "/starlette/refused-msgpack", "/direct/unknown"]
)
def test_serialization_errors_are_500s(server, path) -> None:
    # Own connections: uvicorn closes one after an unhandled exception.
    response = httpx.get(server + path)
    assert response.status_code == 500
    assert response.headers["content-type"] == "text/plain; charset=utf-8"
    assert response.content == b"Internal Server Error"
    # The server keeps serving.
    assert httpx.get(server + "/starlette/json").content == orcodec.dumps(DOCUMENT)


def test_errors_are_the_formats_exceptions() -> None:
    with pytest.raises(orcodec.JSONEncodeError, match="Type is not JSON serializable: Unknown"):
        JSONResponse({"u": Unknown()})
    with pytest.raises(orcodec.JSONEncodeError) as info:
        RefusingJSON({"u": Unknown()})
    assert isinstance(info.value.__cause__, ValueError)
    assert str(info.value.__cause__) == "cannot serialize Unknown"
    with pytest.raises(orcodec.MsgpackEncodeError):
        MsgpackResponse({"u": Unknown()})


def test_fastapi_default_path_runs_jsonable_encoder_first(client) -> None:
    # default_response_class alone still gets jsonable_encoder's output:
    # the datetime is already a "+00:00" string, so OPT_UTC_Z cannot apply.
    value = {"id": uuid.UUID(int=7), "at": datetime.datetime(2025, 1, 2, tzinfo=UTC), "n": [1, 2]}
    response = client.get("/fastapi/default-class")
    assert response.content == orcodec.dumps(jsonable_encoder(value))
    assert b'"2025-01-02T00:00:00+00:00"' in response.content
    # FastAPI's stock response, same endpoint shape.
    stock_body = client.get("/stock/reading").content
    assert stock_body == b'{"id":"00000000-0000-0000-0000-000000000007","at":"2025-01-02T00:00:00+00:00"}'


def test_orcodec_route_skips_jsonable_encoder(client) -> None:
    body = client.get("/direct/reading").content
    # OPT_UTC_Z applied: orcodec saw the datetime itself.
    assert b'"at":"2025-03-01T12:30:15.250000Z"' in body
    assert orcodec.loads(body)["values"] == [[1.5, -2.0], [3.25, 1e-7]]
    # What jsonable_encoder would have made of the array: a dict of its rows.
    assert jsonable_encoder(reading())["values"] == {1.5: -2.0, 3.25: 1e-7}
    # MessagePack keeps bytes as bin (jsonable_encoder would make them str).
    # unpackb takes only its own flags (as ormsgpack's does).
    unpacked = orcodec.unpackb(
        client.get("/direct/reading-msgpack").content, option=orcodec.OPT_DATETIME_AS_TIMESTAMP_EXT
    )
    assert unpacked["reading"]["at"] == reading().at
    assert unpacked["blob"] == b"\x01\x02"


def test_orcodec_route_keeps_fastapis_status_headers_and_cookies(client) -> None:
    response = client.post("/direct/created")
    assert response.status_code == 201
    assert response.headers["x-created"] == "yes"
    assert response.cookies["session"] == "abc"
    assert response.content == b'{"id":"00000000-0000-0000-0000-000000000001"}'
    response = client.get("/direct/status-from-response")
    assert (response.status_code, response.content) == (202, b'["accepted"]')
    response = client.get("/direct/no-content")
    assert (response.status_code, response.content) == (204, b"")
    response = client.get("/direct/returns-response")
    assert response.status_code == 203
    assert response.headers["content-type"] == "application/msgpack"
    assert response.content == orcodec.packb([1, 2])


def test_orcodec_route_keeps_parameters_and_models(client) -> None:
    assert client.get("/direct/query/5", params={"q": "x"}).json() == {"item_id": 5, "q": "x"}
    response = client.get("/direct/query/five")
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["path", "item_id"]
    # A response model is validated by FastAPI, as without the route class.
    assert client.get("/direct/with-model").json() == {"a": 1, "b": 1}


def test_openapi_schema_still_describes_the_routes(client) -> None:
    schema = client.get("/openapi.json").json()
    parameters = schema["paths"]["/direct/query/{item_id}"]["get"]["parameters"]
    assert [p["name"] for p in parameters] == ["item_id", "q"]
    assert fastapi.__version__


ORDER = {
    "id": "6f1c2b3a-9d4e-4f60-8a7b-0c1d2e3f4a5b",
    "at": "2024-03-01T00:00:00Z",
    "items": [{"sku": "A-1", "qty": 2}, {"sku": "B-2", "qty": 5}],
}
ORDER_SUMMARY = (
    b'{"id":"6f1c2b3a-9d4e-4f60-8a7b-0c1d2e3f4a5b","at":"2024-03-01T00:00:00+00:00","qty":[2,5],'
    b'"types":["Order","UUID","datetime"]}'
)


@pytest.mark.parametrize(
    ("body", "headers"),
    [
        (orcodec.dumps(ORDER), {"content-type": "application/json"}),
        (orcodec.dumps(ORDER), {"content-type": "application/vnd.api+json; charset=utf-8"}),
        (orcodec.dumps(ORDER), {}),
        (orcodec.packb(ORDER), {"content-type": "application/msgpack"}),
        (orcodec.packb(ORDER), {"content-type": "application/x-msgpack"}),
    ],
)
@pytest.mark.parametrize("path", ["/direct/orders", "/starlette/orders"])
def test_typed_body_is_decoded_into_the_type(client, path, body, headers) -> None:
    response = client.post(path, content=body, headers=headers)
    assert response.status_code == 200, response.text
    assert response.content == ORDER_SUMMARY


def bad_qty() -> dict:
    return {**ORDER, "items": [{"sku": "A-1", "qty": 2}, {"sku": "B-2", "qty": "five"}]}


@pytest.mark.parametrize("encode", [orcodec.dumps, orcodec.packb])
def test_typed_body_that_does_not_fit_is_a_422_with_location_and_message(client, encode) -> None:
    content_type = "application/json" if encode is orcodec.dumps else "application/msgpack"
    response = client.post("/direct/orders", content=encode(bad_qty()), headers={"content-type": content_type})
    assert response.status_code == 422
    assert response.json() == {
        "detail": [
            {
                "type": "validation_error",
                "loc": ["body", "items", 1, "qty"],
                "msg": "Expected `int`, got `str`",
                "ctx": {"path": "$.items[1].qty"},
            }
        ]
    }
    missing = {key: value for key, value in ORDER.items() if key != "id"}
    response = client.post("/direct/orders", content=encode(missing), headers={"content-type": content_type})
    assert (response.status_code, response.json()["detail"]) == (
        422,
        [
            {
                "type": "validation_error",
                "loc": ["body"],
                "msg": "Object missing required field `id`",
                "ctx": {"path": "$"},
            }
        ],
    )


def test_typed_body_that_is_not_json_is_fastapis_json_invalid(client) -> None:
    body = b'{"id": "6f1c2b3a-9d4e-4f60-8a7b-0c1d2e3f4a5b", "at": '
    with pytest.raises(orcodec.JSONDecodeError) as info:
        orcodec.loads(body)
    response = client.post("/direct/orders", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 422
    # The shape FastAPI gives a body it cannot parse as JSON.
    assert response.json() == {
        "detail": [
            {
                "type": "json_invalid",
                "loc": ["body", len(body)],
                "msg": "JSON decode error",
                "input": {},
                "ctx": {"error": info.value.msg},
            }
        ]
    }
    assert info.value.pos == len(body)


def test_typed_body_that_is_not_msgpack_is_msgpack_invalid(client) -> None:
    body = orcodec.packb(ORDER)[:-3]
    with pytest.raises(orcodec.MsgpackDecodeError) as info:
        orcodec.unpackb(body)
    response = client.post("/direct/orders-msgpack", content=body, headers={"content-type": "application/msgpack"})
    assert response.status_code == 422
    [detail] = response.json()["detail"]
    pos = getattr(info.value, "pos", None)
    assert detail == {
        "type": "msgpack_invalid",
        "loc": ["body"] if pos is None else ["body", pos],
        "msg": "MessagePack decode error",
        "input": {},
        "ctx": {"error": str(info.value)},
    }


@pytest.mark.parametrize(
    ("path", "content_type", "accepts"),
    [
        ("/direct/orders", "text/plain", "application/json or application/msgpack"),
        ("/direct/orders", "application/x-www-form-urlencoded", "application/json or application/msgpack"),
        ("/direct/orders-msgpack", "application/json", "application/msgpack"),
    ],
)
def test_typed_body_of_another_media_type_is_a_415(client, path, content_type, accepts) -> None:
    response = client.post(path, content=orcodec.dumps(ORDER), headers={"content-type": content_type})
    assert response.status_code == 415
    assert response.json() == {"detail": f"Unsupported Media Type: expected {accepts}"}


def test_typed_body_over_max_size_is_a_413(client) -> None:
    large = {**ORDER, "items": [{"sku": "x" * 100, "qty": 1}] * 10}
    body = orcodec.dumps(large)
    assert len(body) > 1024
    # Declared by Content-Length, and sent in chunks without one.
    for content in (body, iter([body[:600], body[600:]])):
        response = client.post("/direct/orders", content=content, headers={"content-type": "application/json"})
        assert response.status_code == 413
        assert response.json() == {"detail": "Request body is larger than 1024 bytes"}
    # At the limit exactly, the body is read.
    fits = {
        **ORDER,
        "items": [{"sku": "x" * (1024 - len(orcodec.dumps({**ORDER, "items": [{"sku": "", "qty": 1}]}))), "qty": 1}],
    }
    assert len(orcodec.dumps(fits)) == 1024
    assert client.post("/direct/orders", content=orcodec.dumps(fits)).status_code == 200


def test_read_body_in_plain_starlette_answers_with_the_message(client) -> None:
    response = client.post("/starlette/orders", content=orcodec.dumps(bad_qty()))
    assert (response.status_code, response.text) == (422, "Expected `int`, got `str` - at `$.items[1].qty`")
    response = client.post("/starlette/orders", content=b'{"id": ', headers={"content-type": "application/json"})
    with pytest.raises(orcodec.JSONDecodeError) as info:
        orcodec.loads(b'{"id": ', type=Order)
    assert (response.status_code, response.text) == (400, str(info.value))
    response = client.post("/starlette/orders", content=b"{}", headers={"content-type": "text/csv"})
    assert (response.status_code, response.text) == (
        415,
        "Unsupported Media Type: expected application/json or application/msgpack",
    )


def test_typed_body_checks_its_arguments() -> None:
    with pytest.raises(ValueError, match="format must be 'auto', 'json' or 'msgpack', not 'yaml'"):
        TypedBody(Order, format="yaml")
    # The type is compiled when the dependency is made, not on the first request.
    with pytest.raises(TypeError, match="dict keys must be str, int, float"):
        TypedBody(dict[list, int])
