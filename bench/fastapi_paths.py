"""FastAPI: one endpoint, four ways to turn its return value into a response.

The endpoint returns 100 dataclass records (UUID, aware datetime, floats,
a list of str, a nested dataclass). Each variant is called in-process
through its ASGI interface (no network, no server), round-robin, and the
median time per request is reported:

- `fastapi default`: FastAPI's stock path, `jsonable_encoder` then
  Starlette's JSONResponse (`json.dumps`);
- `response_model`: the same endpoint with `response_model=list[Record]`,
  FastAPI's pydantic path (validation, then pydantic-core writes the JSON);
- `orcodec class`: `default_response_class=orcodec...JSONResponse`:
  `jsonable_encoder` still runs first, then `orcodec.dumps`;
- `OrcodecRoute`: `APIRouter(route_class=OrcodecRoute)`: the return value
  goes to `orcodec.dumps` as it is.

The bodies of the three untyped variants are checked to be the same bytes,
and the response_model body to decode to the same value (pydantic writes
UTC as "Z").

    python bench/fastapi_paths.py [--rounds 30] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import datetime
import json
import statistics
import sys
import time
import uuid
from pathlib import Path

from fastapi import APIRouter, FastAPI
from orcodec.integrations.starlette import JSONResponse, OrcodecRoute

UTC = datetime.timezone.utc


@dataclasses.dataclass
class Owner:
    id: uuid.UUID
    name: str


@dataclasses.dataclass
class Record:
    id: uuid.UUID
    created: datetime.datetime
    score: float
    tags: list[str]
    owner: Owner


RECORDS = [
    Record(
        id=uuid.UUID(int=i * 7919),
        created=datetime.datetime(2025, 1, 1, tzinfo=UTC) + datetime.timedelta(seconds=i * 3607),
        score=i / 7,
        tags=[f"tag{j}" for j in range(i % 5)],
        owner=Owner(uuid.UUID(int=i), f"owner {i} é"),
    )
    for i in range(100)
]


def endpoint():
    return RECORDS


def build_apps() -> dict[str, FastAPI]:
    default = FastAPI()
    default.get("/records")(endpoint)
    typed = FastAPI()
    typed.get("/records", response_model=list[Record])(endpoint)
    orcodec_class = FastAPI(default_response_class=JSONResponse)
    orcodec_class.get("/records")(endpoint)
    direct = FastAPI()
    router = APIRouter(route_class=OrcodecRoute)
    router.get("/records")(endpoint)
    direct.include_router(router)
    return {"fastapi default": default, "response_model": typed, "orcodec class": orcodec_class, "OrcodecRoute": direct}


SCOPE = {
    "type": "http",
    "asgi": {"version": "3.0"},
    "http_version": "1.1",
    "method": "GET",
    "scheme": "http",
    "path": "/records",
    "raw_path": b"/records",
    "root_path": "",
    "query_string": b"",
    "headers": [(b"host", b"bench")],
    "client": ("127.0.0.1", 1),
    "server": ("127.0.0.1", 80),
}


async def call(app) -> bytes:
    chunks = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        if message["type"] == "http.response.start":
            assert message["status"] == 200, message
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(dict(SCOPE), receive, send)
    return b"".join(chunks)


async def measure(apps: dict[str, FastAPI], rounds: int, per_round: int) -> dict[str, float]:
    bodies = {name: await call(app) for name, app in apps.items()}
    untyped = {bodies["fastapi default"], bodies["orcodec class"], bodies["OrcodecRoute"]}
    if len(untyped) != 1:
        raise SystemExit("fastapi_paths: the untyped variants' bodies differ")
    # pydantic writes UTC as "Z", the others as "+00:00".
    if json.loads(bodies["response_model"]) != json.loads(bodies["OrcodecRoute"].replace(b"+00:00", b"Z")):
        raise SystemExit("fastapi_paths: the response_model body decodes to another value")
    samples: dict[str, list[float]] = {name: [] for name in apps}
    for _ in range(rounds):
        for name, app in apps.items():
            start = time.perf_counter()
            for _ in range(per_round):
                await call(app)
            samples[name].append((time.perf_counter() - start) / per_round * 1e6)
    return {name: statistics.median(values) for name, values in samples.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--per-round", type=int, default=20)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    medians = asyncio.run(measure(build_apps(), args.rounds, args.per_round))
    base = medians["fastapi default"]
    print("FastAPI, one endpoint returning 100 dataclass records; median µs per request, in-process ASGI")
    print(f"{'variant':<18}{'µs/request':>12}{'vs default':>12}")
    for name, value in medians.items():
        print(f"{name:<18}{value:>12.0f}{value / base:>12.2f}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(medians, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
