"""The application `loadtest.py` serves under wrk: one FastAPI app, two endpoints.

`GET /json` and `GET /msgpack` return the github fixture (a real GitHub API
response, about 55 KB of JSON), encoded on every request by the codec that
ORCODEC_LOADTEST_CODEC names:

- `orcodec`: orcodec.integrations.starlette's JSONResponse and MsgpackResponse;
- `peers`: orjson and ormsgpack, in response classes written the same way;
- `stdlib`: Starlette's JSONResponse (json.dumps) and msgpack-python (the
  standard library has no MessagePack).

Run: ORCODEC_LOADTEST_CODEC=orcodec uvicorn loadtest_app:app --app-dir bench
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from fastapi import FastAPI
from starlette.responses import Response

sys.path.insert(0, str(Path(__file__).resolve().parent))
from documents import fixture_path  # noqa: E402

CODEC = os.environ.get("ORCODEC_LOADTEST_CODEC", "orcodec")
DOCUMENT = json.loads(fixture_path("github")[0].read_bytes())


def response_classes(codec: str) -> tuple[type[Response], type[Response]]:
    if codec == "orcodec":
        from orcodec.integrations.starlette import JSONResponse, MsgpackResponse

        return JSONResponse, MsgpackResponse
    if codec == "peers":
        import orjson
        import ormsgpack

        class OrjsonResponse(Response):
            media_type = "application/json"

            def render(self, content):
                return orjson.dumps(content)

        class OrmsgpackResponse(Response):
            media_type = "application/msgpack"

            def render(self, content):
                return ormsgpack.packb(content)

        return OrjsonResponse, OrmsgpackResponse
    if codec == "stdlib":
        import msgpack
        from starlette.responses import JSONResponse

        class MsgpackPythonResponse(Response):
            media_type = "application/msgpack"

            def render(self, content):
                return msgpack.packb(content, use_bin_type=True)

        return JSONResponse, MsgpackPythonResponse
    raise SystemExit(f"ORCODEC_LOADTEST_CODEC must be orcodec, peers or stdlib, not {codec!r}")


JSON_RESPONSE, MSGPACK_RESPONSE = response_classes(CODEC)
app = FastAPI(openapi_url=None)


@app.get("/json")
async def get_json():
    return JSON_RESPONSE(DOCUMENT)


@app.get("/msgpack")
async def get_msgpack():
    return MSGPACK_RESPONSE(DOCUMENT)
