"""The JSON Schemas of typed request bodies and responses in FastAPI's OpenAPI document.

`add_openapi(app)` wraps the application's `openapi()`: after FastAPI has
made its document, each operation whose route reads its body with a
`TypedBody(T)` dependency gets a `requestBody` (the schema of `T` under each
media type the dependency reads), and each `OrcodecRoute` whose endpoint's
return annotation is a type orcodec knows gets that type's schema as its
response. The classes and enums go into `components/schemas`.
"""

from __future__ import annotations

from typing import Any

import orcodec

REF_TEMPLATE = "#/components/schemas/{name}"

_MEDIA_TYPES = {
    "auto": ("application/json", "application/msgpack"),
    "json": ("application/json",),
    "msgpack": ("application/msgpack",),
}

# The error TypedBody answers a body that does not fit with (FastAPI's
# RequestValidationError, in FastAPI's shape).
_VALIDATION_ERROR = {
    "type": "object",
    "properties": {
        "detail": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "type": {"type": "string"},
                    "loc": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]}},
                    "msg": {"type": "string"},
                },
                "required": ["type", "loc", "msg"],
            },
        }
    },
    "required": ["detail"],
}
_HTTP_ERROR = {"type": "object", "properties": {"detail": {"type": "string"}}, "required": ["detail"]}


def _typed_bodies(dependant: Any, typed_body: type) -> list:
    found = []
    for sub in getattr(dependant, "dependencies", ()):
        if isinstance(sub.call, typed_body):
            found.append(sub.call)
        found.extend(_typed_bodies(sub, typed_body))
    return found


def _routes(app: Any):
    """(path, methods, route) of every API route of the application in its document."""
    import fastapi.routing

    iterate = getattr(fastapi.routing, "iter_route_contexts", None)
    contexts = iterate(app.routes) if iterate is not None else app.routes
    for context in contexts:
        original = getattr(context, "original_route", context)
        if not isinstance(original, fastapi.routing.APIRoute) or not context.include_in_schema:
            continue
        yield context.path_format, context.methods or (), context


def _rename(obj: Any, refs: dict) -> Any:
    if isinstance(obj, dict):
        return {k: (refs.get(v, v) if k == "$ref" else _rename(v, refs)) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_rename(v, refs) for v in obj]
    return obj


def extend(app: Any, document: dict, typed_body: type, route_class: type) -> None:
    """Adds the schemas to `document`; `typed_body` and `route_class` are
    `TypedBody` and `OrcodecRoute` (passed in by `starlette.add_openapi`,
    which this module sits on top of)."""
    TypedBody, OrcodecRoute = typed_body, route_class

    # What each operation needs: its body type, and its response type.
    plans = []
    types: list = []
    for path, methods, route in _routes(app):
        bodies = _typed_bodies(route.dependant, TypedBody)
        original = getattr(route, "original_route", route)
        response_type = getattr(original, "orcodec_response_type", None) if isinstance(original, OrcodecRoute) else None
        if not bodies and response_type is None:
            continue
        for tp in [b.type for b in bodies[:1]] + ([response_type] if response_type is not None else []):
            if tp not in types:
                types.append(tp)
        plans.append((path, methods, route, bodies[:1], response_type))
    if not plans:
        return
    schemas, components = orcodec.json_schema_components(types, ref_template=REF_TEMPLATE)
    by_type = dict(zip(map(_key, types), schemas))
    existing = document.setdefault("components", {}).setdefault("schemas", {})
    # A name FastAPI already gave another schema (a pydantic model of the
    # same name): ours are renamed.
    refs = {}
    for name, schema in components.items():
        if name in existing and existing[name] != schema:
            new = name
            n = 2
            while new in existing or new in components:
                new = f"{name}{n}"
                n += 1
            refs[REF_TEMPLATE.format(name=name)] = REF_TEMPLATE.format(name=new)
    for name, schema in components.items():
        target = refs.get(REF_TEMPLATE.format(name=name), REF_TEMPLATE.format(name=name)).rsplit("/", 1)[1]
        existing[target] = _rename(schema, refs)
    document["components"]["schemas"] = {k: existing[k] for k in sorted(existing)}

    for path, methods, route, bodies, response_type in plans:
        operations = document.get("paths", {}).get(path, {})
        for method in methods:
            operation = operations.get(method.lower())
            if operation is None:
                continue
            responses = operation.setdefault("responses", {})
            if bodies:
                body = bodies[0]
                schema = _rename(by_type[_key(body.type)], refs)
                operation["requestBody"] = {
                    "required": True,
                    "content": {media: {"schema": schema} for media in _MEDIA_TYPES[body.format]},
                }
                responses.setdefault(
                    "422",
                    {
                        "description": "The body does not fit the type, or is not valid JSON or MessagePack",
                        "content": {"application/json": {"schema": _VALIDATION_ERROR}},
                    },
                )
                responses.setdefault(
                    "415",
                    {
                        "description": "Unsupported Media Type",
                        "content": {"application/json": {"schema": _HTTP_ERROR}},
                    },
                )
                if body.max_size is not None:
                    responses.setdefault(
                        "413",
                        {
                            "description": "The body is larger than the limit",
                            "content": {"application/json": {"schema": _HTTP_ERROR}},
                        },
                    )
            if response_type is not None:
                status = str(getattr(route, "status_code", None) or 200)
                response_class = route.response_class
                response_class = getattr(response_class, "value", response_class)
                media = getattr(response_class, "media_type", None) or "application/json"
                schema = _rename(by_type[_key(response_type)], refs)
                entry = responses.setdefault(status, {"description": "Successful Response"})
                entry["content"] = {media: {"schema": schema}}


def _key(tp: Any) -> Any:
    try:
        hash(tp)
    except TypeError:
        return repr(tp)
    return tp


def add_openapi(app: Any, typed_body: type, route_class: type) -> Any:
    original = app.openapi
    if getattr(original, "_orcodec", False):
        return app
    done: list = []

    def openapi() -> dict:
        document = original()
        if not done or done[0] is not document:
            extend(app, document, typed_body, route_class)
            done[:] = [document]
        return document

    openapi._orcodec = True  # type: ignore[attr-defined]
    app.openapi = openapi
    return app
