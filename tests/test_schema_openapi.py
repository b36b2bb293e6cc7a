"""orcodec's JSON Schemas in FastAPI's OpenAPI document (add_openapi).

The module-level `app` (typed bodies in both formats, typed responses, a
tagged union, a recursive type) is served by a real uvicorn process on a
free loopback port, started by the `server` fixture (`--app-dir` is this
directory). Its openapi.json is compared with tests/golden/openapi/app.json
(rewritten with ``ORCODEC_REGENERATE_GOLDEN=1``), validated with
openapi-spec-validator, and schemathesis runs against the server with every
check, bounded: 30 examples per operation and 20 s in the normal run
(``make schemathesis`` runs it for longer, through ORCODEC_SCHEMATHESIS_TIME
and ORCODEC_SCHEMATHESIS_EXAMPLES).
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Literal

import annotated_types as at
import httpx
import openapi_spec_validator
import orcodec
import pydantic
import pytest
import servers
from fastapi import APIRouter, Depends, FastAPI
from orcodec.integrations.starlette import MsgpackResponse, OrcodecRoute, TypedBody, add_openapi

GOLDEN = Path(__file__).resolve().parent / "golden" / "openapi" / "app.json"
REGENERATE = os.environ.get("ORCODEC_REGENERATE_GOLDEN") == "1"


@dataclasses.dataclass
class Item:
    """One line of an order."""

    sku: Annotated[str, at.MinLen(1), at.MaxLen(16)]
    qty: Annotated[int, at.Ge(1), at.Le(1000)] = 1


@dataclasses.dataclass
class Order:
    id: uuid.UUID
    at: datetime.datetime
    items: Annotated[list[Item], at.MaxLen(20)]
    note: str | None = None


@dataclasses.dataclass
class Receipt:
    id: uuid.UUID
    units: int
    total: float


OrderId = Annotated[int, at.Ge(0), at.Le(2**53)]


@dataclasses.dataclass
class Cancel:
    kind: Literal["cancel"]
    order_id: OrderId


@dataclasses.dataclass
class Place:
    kind: Literal["place"]
    order_id: OrderId
    qty: Annotated[int, at.Ge(1), at.Le(1000)] = 1


@dataclasses.dataclass
class Category:
    """A category and its subcategories."""

    name: str
    children: Annotated[list[Category], at.MaxLen(3)] = dataclasses.field(default_factory=list)


router = APIRouter(route_class=OrcodecRoute)


@router.post("/orders")
def add_order(order: Annotated[Order, Depends(TypedBody(Order, max_size=1 << 16))]) -> Receipt:
    units = sum(item.qty for item in order.items)
    return Receipt(id=order.id, units=units, total=units / 4)


@router.post("/orders/items", response_class=MsgpackResponse)
def order_items(order: Annotated[Order, Depends(TypedBody(Order, format="msgpack"))]) -> list[Item]:
    return order.items


@router.post("/commands")
def command(cmd: Annotated[Cancel | Place, Depends(TypedBody(Cancel | Place))]) -> Cancel | Place:
    return cmd


@router.post("/categories", status_code=201)
def add_category(category: Annotated[Category, Depends(TypedBody(Category, format="json"))]) -> Category:
    return category


@router.get("/categories/{depth}")
def category_tree(depth: Annotated[int, at.Ge(0), at.Le(3)]) -> Category:
    node = Category(name="leaf")
    for level in range(depth):
        node = Category(name=f"level {level}", children=[node])
    return node


app = FastAPI(title="orders", version="1.0.0")
app.include_router(router)
add_openapi(app)


def test_add_openapi_twice_changes_nothing() -> None:
    first = app.openapi()
    assert add_openapi(app) is app
    assert app.openapi() is first


def test_document_equals_its_golden_file() -> None:
    text = json.dumps(app.openapi(), indent=2) + "\n"
    if REGENERATE:
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(text, encoding="utf-8")
    assert GOLDEN.read_text(encoding="utf-8") == text


def test_document_is_valid_openapi() -> None:
    openapi_spec_validator.validate(app.openapi())


def test_bodies_and_responses_use_the_components() -> None:
    doc = app.openapi()
    orders = doc["paths"]["/orders"]["post"]
    assert orders["requestBody"]["content"] == {
        "application/json": {"schema": {"$ref": "#/components/schemas/Order"}},
        "application/msgpack": {"schema": {"$ref": "#/components/schemas/Order"}},
    }
    assert orders["responses"]["200"]["content"] == {
        "application/json": {"schema": {"$ref": "#/components/schemas/Receipt"}}
    }
    assert sorted(orders["responses"]) == ["200", "413", "415", "422"]
    items = doc["paths"]["/orders/items"]["post"]
    assert list(items["requestBody"]["content"]) == ["application/msgpack"]
    assert items["responses"]["200"]["content"] == {
        "application/msgpack": {"schema": {"type": "array", "items": {"$ref": "#/components/schemas/Item"}}}
    }
    assert doc["paths"]["/categories"]["post"]["responses"]["201"]["content"]["application/json"] == {
        "schema": {"$ref": "#/components/schemas/Category"}
    }
    schemas = doc["components"]["schemas"]
    assert schemas["Category"]["properties"]["children"]["items"] == {"$ref": "#/components/schemas/Category"}
    commands = doc["paths"]["/commands"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert commands["discriminator"] == {
        "propertyName": "kind",
        "mapping": {"cancel": "#/components/schemas/Cancel", "place": "#/components/schemas/Place"},
    }
    # FastAPI's own components stay.
    assert "HTTPValidationError" in schemas


def test_a_known_return_annotation_is_rendered_by_orcodec() -> None:
    from fastapi.testclient import TestClient

    client = TestClient(app)
    body = {"id": str(uuid.UUID(int=1)), "at": "2024-01-01T00:00:00Z", "items": [{"sku": "a", "qty": 2}]}
    response = client.post("/orders", content=orcodec.dumps(body))
    # No response model: the route hands the dataclass to orcodec as it is.
    assert response.status_code == 200, response.text
    assert response.content == b'{"id":"00000000-0000-0000-0000-000000000001","units":2,"total":0.5}'
    route = next(r for r in router.routes if getattr(r, "path", None) == "/orders")
    assert route.response_model is None
    assert route.orcodec_response_type is Receipt


# A pydantic model named as the dataclass above, for FastAPI's component.
PydanticItem = pydantic.create_model("Item", other=(int, ...))


def test_a_name_fastapi_already_uses_is_renamed() -> None:
    other = FastAPI()
    named = APIRouter(route_class=OrcodecRoute)

    @named.post("/pydantic")
    def pyd(item: PydanticItem) -> int:
        return item.other

    @named.post("/dataclass")
    def dc(item: Annotated[Order, Depends(TypedBody(Order))]) -> None:
        return None

    other.include_router(named)
    add_openapi(other)
    doc = other.openapi()
    schemas = doc["components"]["schemas"]
    assert schemas["Item"]["properties"] == {"other": {"title": "Other", "type": "integer"}}
    assert schemas["Item2"]["properties"]["sku"] == {"type": "string", "minLength": 1, "maxLength": 16}
    assert schemas["Order"]["properties"]["items"]["items"] == {"$ref": "#/components/schemas/Item2"}
    openapi_spec_validator.validate(doc)


# -- against a real server -----------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[str]:
    with servers.uvicorn("test_schema_openapi:app", "/openapi.json", tmp_path_factory.mktemp("uvicorn")) as base:
        yield base


def test_served_document_is_the_app_document(server) -> None:
    assert httpx.get(server + "/openapi.json").json() == json.loads(json.dumps(app.openapi()))


def test_schemathesis_finds_no_failure(server, tmp_path) -> None:
    schemathesis = Path(sys.executable).with_name("schemathesis")
    result = subprocess.run(
        [str(schemathesis), "run", server + "/openapi.json", "--checks", "all",
         # Replaced by the hooks' schema_valid_data_is_accepted (see there).
         "--exclude-checks", "positive_data_acceptance",
         "--max-examples", os.environ.get("ORCODEC_SCHEMATHESIS_EXAMPLES", "30"),
         "--max-time", os.environ.get("ORCODEC_SCHEMATHESIS_TIME", "20"), "--generation-deterministic",
         "--request-timeout", "10", "--no-color"],
        capture_output=True, text=True, timeout=1200, cwd=tmp_path,
        env={**os.environ, "SCHEMATHESIS_HOOKS": str(Path(__file__).with_name("schemathesis_hooks.py"))},
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    # Every operation was exercised, in every phase but the explicit examples (there are none).
    assert "Tested: 5" in result.stdout, result.stdout[-4000:]
    for phase in ("Coverage", "Fuzzing", "Stateful"):
        assert f"✅ {phase}" in result.stdout, result.stdout[-4000:]
    assert "No issues found" in result.stdout, result.stdout[-4000:]
