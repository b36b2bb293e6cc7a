"""orcodec responses for Starlette and FastAPI, and a FastAPI route class.

- `JSONResponse`: renders its content with `orcodec.dumps`
  (`application/json`).
- `MsgpackResponse`: renders its content with `orcodec.packb`
  (`application/msgpack`).

Both accept whatever `dumps`/`packb` accept. `option` and `default` are
class attributes, so each subclass (or `JSONResponse.with_options(...)`)
carries its own settings::

    class NumpyResponse(JSONResponse):
        option = orcodec.OPT_SERIALIZE_NUMPY | orcodec.OPT_UTC_Z
        default = staticmethod(str)

    app = FastAPI(default_response_class=NumpyResponse)

An exception from `default` (or an object it cannot serialize) makes the
response fail as any exception in an endpoint does: a 500 from the
application's error handling.

- `OrcodecRoute`: a FastAPI route class (`APIRouter(route_class=OrcodecRoute)`)
  that hands an endpoint's return value to the route's response class as it
  is, without `jsonable_encoder`, for routes without a response model.
- `TypedBody(T)`: a FastAPI dependency that reads the request body, JSON or
  MessagePack by its content type, straight into `T` with typed decoding
  (`order: Annotated[Order, Depends(TypedBody(Order))]`); data that does not
  fit is FastAPI's 422, with the location and message of the error.
- `read_body(request, T)`: the same for plain Starlette, where a body that
  does not fit is an `HTTPException(422)` with the message as its detail.
- `add_openapi(app)`: puts the JSON Schemas of `TypedBody` request bodies
  and of `OrcodecRoute` responses (a return annotation orcodec knows) into
  the FastAPI application's OpenAPI document, their classes in
  `components/schemas`.

Starlette (and FastAPI, for `OrcodecRoute` and `TypedBody`) is imported when
one of these names is first used, not when this module is imported.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import orcodec

__all__ = ["JSONResponse", "MsgpackResponse", "OrcodecRoute", "TypedBody", "add_openapi", "read_body"]

T = TypeVar("T")

if TYPE_CHECKING:  # pragma: no cover - what type checkers see
    import builtins
    from collections.abc import Callable

    from fastapi.routing import APIRoute
    from starlette.requests import Request
    from starlette.responses import Response

    class _OrcodecResponse(Response):
        option: int | None
        default: Callable[[Any], Any] | None

        @classmethod
        def with_options(
            cls,
            *,
            option: int | None = ...,
            default: Callable[[Any], Any] | None = ...,
            media_type: str | None = ...,
        ) -> type[_OrcodecResponse]: ...

    class JSONResponse(_OrcodecResponse): ...

    class MsgpackResponse(_OrcodecResponse): ...

    class OrcodecRoute(APIRoute):
        orcodec_response_type: Any

    class TypedBody(Generic[T]):
        type: Any
        format: str
        max_size: int | None

        def __init__(
            self,
            type: builtins.type[T],
            *,
            format: str = ...,
            strict: bool = ...,
            dec_hook: Callable[[builtins.type, Any], Any] | None = ...,
            option: int | None = ...,
            max_size: int | None = ...,
        ) -> None: ...
        async def __call__(self, request: Request) -> T: ...


_UNSET: Any = object()


def _build_responses() -> dict[str, Any]:
    from starlette.responses import Response

    class _OrcodecResponse(Response):
        option: int | None = None
        # A one-argument callable (a function or a staticmethod): read from
        # the class, so a plain function stays unbound.
        default: Any = None

        @classmethod
        def with_options(cls, *, option=_UNSET, default=_UNSET, media_type=_UNSET):
            """A subclass of this class with other `option`, `default` or `media_type`."""
            attrs: dict[str, Any] = {"__module__": cls.__module__, "__qualname__": cls.__qualname__}
            if option is not _UNSET:
                attrs["option"] = option
            if default is not _UNSET:
                attrs["default"] = staticmethod(default) if default is not None else None
            if media_type is not _UNSET:
                attrs["media_type"] = media_type
            return type(cls.__name__, (cls,), attrs)

    class JSONResponse(_OrcodecResponse):
        """A response whose content is rendered by `orcodec.dumps` (`application/json`)."""

        media_type = "application/json"

        def render(self, content: Any) -> bytes:
            cls = type(self)
            return orcodec.dumps(content, default=cls.default, option=cls.option)

    class MsgpackResponse(_OrcodecResponse):
        """A response whose content is rendered by `orcodec.packb` (`application/msgpack`)."""

        media_type = "application/msgpack"

        def render(self, content: Any) -> bytes:
            cls = type(self)
            return orcodec.packb(content, default=cls.default, option=cls.option)

    for cls in (_OrcodecResponse, JSONResponse, MsgpackResponse):
        cls.__module__ = __name__
    return {"_OrcodecResponse": _OrcodecResponse, "JSONResponse": JSONResponse, "MsgpackResponse": MsgpackResponse}


def _build_route() -> dict[str, Any]:
    import dataclasses
    import inspect

    import fastapi.routing
    import starlette.responses
    from fastapi.datastructures import DefaultPlaceholder
    from fastapi.dependencies import models as dependency_models
    from fastapi.dependencies.utils import get_typed_return_annotation
    from fastapi.utils import is_body_allowed_for_status_code
    from starlette.responses import Response

    json_response = globals().get("JSONResponse") or __getattr__("JSONResponse")

    # FastAPI's own tests of what an endpoint is, where it has them.
    is_coroutine = getattr(dependency_models, "_is_coroutine_callable", inspect.iscoroutinefunction)
    is_generator = getattr(dependency_models, "_is_gen_callable", inspect.isgeneratorfunction)
    is_async_generator = getattr(dependency_models, "_is_async_gen_callable", inspect.isasyncgenfunction)
    effective_context_var = getattr(fastapi.routing, "_effective_route_context_var", None)

    class OrcodecRoute(fastapi.routing.APIRoute):
        """A FastAPI route that renders an endpoint's return value with orcodec directly.

        FastAPI passes the return value of an endpoint without a response
        model through `jsonable_encoder` (which copies it and turns UUIDs,
        datetimes and dataclasses into strings and dicts) before the
        response class sees it. This route class gives the value to the
        route's response class as it is: FastAPI's default response class
        is replaced by orcodec's `JSONResponse`, any other (such as
        `MsgpackResponse`) is used as set. The status code of the route and
        the status code, headers and cookies set on an injected `Response`
        parameter apply as in FastAPI, and a returned `Response` is sent as
        it is.

        A return annotation that is a type orcodec knows (a dataclass, a
        TypedDict, `list[Item]`: anything `orcodec.json_schema` describes)
        is not made a response model: the value is rendered as it is, and
        `add_openapi(app)` documents the response with the type's schema.
        Routes with a response model (`response_model=`, or a return
        annotation orcodec does not know, such as a pydantic model) keep
        FastAPI's own path, which validates and filters the value first; so
        do streaming endpoints (generators).
        """

        def __init__(self, path: str, endpoint: Any, **kwargs: Any) -> None:
            self.orcodec_response_type = None
            if isinstance(kwargs.get("response_model", DefaultPlaceholder(None)), DefaultPlaceholder):
                annotation = get_typed_return_annotation(endpoint)
                if _known_type(annotation):
                    kwargs["response_model"] = None
                    self.orcodec_response_type = annotation
            super().__init__(path, endpoint, **kwargs)

        def get_route_handler(self):  # type: ignore[no-untyped-def]
            # A route included from another router is built once more for
            # its place in the application, with its own state.
            route: Any = self
            if effective_context_var is not None:
                context = effective_context_var.get()
                if context is not None and context.original_route is self:
                    route = context
            dependant = route.dependant
            call = dependant.call
            if (
                route.response_field is not None
                or getattr(route, "is_sse_stream", False)
                or getattr(route, "is_json_stream", False)
                or is_generator(call)
                or is_async_generator(call)
            ):
                return super().get_route_handler()

            response_class = route.response_class
            if isinstance(response_class, DefaultPlaceholder):
                response_class = response_class.value
            if response_class is starlette.responses.JSONResponse:
                response_class = json_response
            status_code = route.status_code

            # The endpoint's own `response: Response` parameter if it has
            # one, else one injected for the wrapper alone.
            own_response_param = dependant.response_param_name
            response_param = own_response_param or "_orcodec_sub_response"

            def respond(content: Any, sub_response: Response) -> Response:
                if isinstance(content, Response):
                    return content
                status = sub_response.status_code or status_code
                response = response_class(content) if status is None else response_class(content, status_code=status)
                response.headers.raw.extend(sub_response.headers.raw)
                if not is_body_allowed_for_status_code(response.status_code):
                    response.body = b""
                return response

            if is_coroutine(call):

                async def endpoint(**values: Any) -> Response:
                    sub_response = values[response_param] if own_response_param else values.pop(response_param)
                    return respond(await call(**values), sub_response)

            else:

                def endpoint(**values: Any) -> Response:
                    sub_response = values[response_param] if own_response_param else values.pop(response_param)
                    return respond(call(**values), sub_response)

            route.dependant = dataclasses.replace(dependant, call=endpoint, response_param_name=response_param)
            try:
                return super().get_route_handler()
            finally:
                route.dependant = dependant

    OrcodecRoute.__module__ = __name__
    return {"OrcodecRoute": OrcodecRoute}


# Reading request bodies into types.

_MSGPACK_MEDIA_TYPES = frozenset({"application/msgpack", "application/x-msgpack", "application/vnd.msgpack"})
_FORMATS = ("auto", "json", "msgpack")
_ACCEPTS = {
    "auto": "application/json or application/msgpack",
    "json": "application/json",
    "msgpack": "application/msgpack",
}
# One step of a ValidationError's path: `.name`, `[3]` or `[...]` (a dict value).
_PATH_STEP = re.compile(r"\.([^.\[]+)|\[(\d+)\]|(\[\.\.\.\])")


class _TooLarge(Exception):
    pass


def _check_format(format: str) -> str:
    if format not in _FORMATS:
        raise ValueError(f"format must be 'auto', 'json' or 'msgpack', not {format!r}")
    return format


def _body_format(content_type: str | None, allowed: str) -> str | None:
    """ "json" or "msgpack" for a request's content type, None if refused.

    A request without a content type is read in the allowed format (JSON
    when both are), as FastAPI reads a body without one as JSON.
    """
    if not content_type:
        return "msgpack" if allowed == "msgpack" else "json"
    media = content_type.split(";", 1)[0].strip().lower()
    if media == "application/json" or (media.startswith("application/") and media.endswith("+json")):
        kind = "json"
    elif media in _MSGPACK_MEDIA_TYPES or (media.startswith("application/") and media.endswith("+msgpack")):
        kind = "msgpack"
    else:
        return None
    return kind if allowed in ("auto", kind) else None


async def _read(request: Any, max_size: int | None) -> bytes:
    if max_size is None:
        return await request.body()
    # A declared length over the limit is refused before reading anything;
    # a chunked body is counted as it arrives.
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_size:
        raise _TooLarge
    chunks = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > max_size:
            raise _TooLarge
        chunks.append(chunk)
    return b"".join(chunks)


def _location(path: str) -> list[str | int]:
    """A ValidationError's path as FastAPI's `loc` steps: `$.items[3].qty` -> ["items", 3, "qty"]."""
    steps: list[str | int] = []
    for name, index, value in _PATH_STEP.findall(path, 1):
        steps.append(name or (int(index) if index else value))
    return steps


def _message(error: Any) -> str:
    """The error's message without its ` - at `$...`` suffix (the location says it)."""
    text = str(error)
    suffix = f" - at `{error.path}`"
    return text[: -len(suffix)] if text.endswith(suffix) else text


def _error_details(error: Exception, kind: str) -> dict[str, Any]:
    """A decoding failure in the shape of FastAPI's request validation errors."""
    if isinstance(error, orcodec.ValidationError):
        return {
            "type": "validation_error",
            "loc": ["body", *_location(error.path)],
            "msg": _message(error),
            "ctx": {"path": error.path},
        }
    pos = getattr(error, "pos", None)
    location: list[str | int] = ["body"] if pos is None else ["body", pos]
    if kind == "json":
        reason = getattr(error, "msg", str(error))
        return {
            "type": "json_invalid",
            "loc": location,
            "msg": "JSON decode error",
            "input": {},
            "ctx": {"error": reason},
        }
    return {
        "type": "msgpack_invalid",
        "loc": location,
        "msg": "MessagePack decode error",
        "input": {},
        "ctx": {"error": str(error)},
    }


async def read_body(
    request: Any,
    type: Any,
    *,
    format: str = "auto",
    strict: bool = True,
    dec_hook: Any = None,
    option: int | None = None,
    max_size: int | None = None,
) -> Any:
    """Read a Starlette request's body into `type` with typed decoding.

    JSON or MessagePack by the request's content type (`format` narrows it
    to one; a request without a content type is read as JSON unless
    `format="msgpack"`); `option` goes to `unpackb` for MessagePack bodies.
    Raises Starlette's `HTTPException`: 415 for another content type, 413
    for a body over `max_size` bytes, 400 for a body that is not valid JSON
    or MessagePack and 422 for one that does not fit `type`, each with the
    decoding error's message (and its `$` path) as the detail.
    """
    from starlette.exceptions import HTTPException

    kind = _body_format(request.headers.get("content-type"), _check_format(format))
    if kind is None:
        raise HTTPException(415, detail=f"Unsupported Media Type: expected {_ACCEPTS[format]}")
    try:
        body = await _read(request, max_size)
    except _TooLarge:
        raise HTTPException(413, detail=f"Request body is larger than {max_size} bytes") from None
    try:
        if kind == "json":
            return orcodec.loads(body, type=type, strict=strict, dec_hook=dec_hook)
        return orcodec.unpackb(body, type=type, strict=strict, dec_hook=dec_hook, option=option)
    except orcodec.ValidationError as e:
        raise HTTPException(422, detail=str(e)) from e
    except (orcodec.JSONDecodeError, orcodec.MsgpackDecodeError) as e:
        raise HTTPException(400, detail=str(e)) from e


def _build_typed_body() -> dict[str, Any]:
    from fastapi.exceptions import RequestValidationError
    from starlette.exceptions import HTTPException
    from starlette.requests import Request

    class TypedBody:
        """A FastAPI dependency that reads the request body into a type.

        ``order: Annotated[Order, Depends(TypedBody(Order))]`` gives the
        endpoint the body decoded by a `Decoder(Order)` compiled once:
        JSON or MessagePack by the content type (`format` narrows it to
        one; a request without a content type is read as JSON unless
        `format="msgpack"`), with `option` passed to `unpackb`. A body that
        is not valid JSON or MessagePack, or that does not fit the type, is
        FastAPI's `RequestValidationError` (a 422 through the application's
        handler) with the location of the error under ``"body"`` and its
        message; another content type is a 415 and a body over `max_size`
        bytes a 413 (`HTTPException`).
        """

        def __init__(
            self,
            type: Any,
            *,
            format: str = "auto",
            strict: bool = True,
            dec_hook: Any = None,
            option: int | None = None,
            max_size: int | None = None,
        ) -> None:
            self.type = type
            self.format = _check_format(format)
            self.option = option
            self.max_size = max_size
            self.decoder = orcodec.Decoder(type, strict=strict, dec_hook=dec_hook)

        def __repr__(self) -> str:
            return f"TypedBody({self.type!r}, format={self.format!r})"

        async def __call__(self, request: Request) -> Any:
            kind = _body_format(request.headers.get("content-type"), self.format)
            if kind is None:
                raise HTTPException(415, detail=f"Unsupported Media Type: expected {_ACCEPTS[self.format]}")
            try:
                body = await _read(request, self.max_size)
            except _TooLarge:
                raise HTTPException(413, detail=f"Request body is larger than {self.max_size} bytes") from None
            try:
                if kind == "json":
                    return self.decoder.loads(body)
                return self.decoder.unpackb(body, option=self.option)
            except (orcodec.JSONDecodeError, orcodec.MsgpackDecodeError) as e:
                raise RequestValidationError([_error_details(e, kind)]) from e

    # FastAPI reads the dependency's parameters from these annotations; with
    # postponed evaluation they would be strings it cannot resolve here.
    TypedBody.__call__.__annotations__ = {"request": Request, "return": Any}
    TypedBody.__module__ = __name__
    return {"TypedBody": TypedBody}


def add_openapi(app: Any) -> Any:
    """Put orcodec's JSON Schemas into a FastAPI application's OpenAPI document.

    Wraps `app.openapi`: each operation that reads its body with a
    `TypedBody(T)` dependency gets a `requestBody` with the schema of `T`
    under each media type the dependency reads (`application/json`,
    `application/msgpack`) and its 422 and 415 answers (413 with
    `max_size`); each `OrcodecRoute` whose endpoint's return annotation is
    a type orcodec knows gets that schema as its response, under the route's
    response class's media type. Classes and enums go into
    `components/schemas` (renamed if FastAPI has another schema of the same
    name). Returns `app`; calling it twice changes nothing.
    """
    import sys

    from orcodec.integrations._openapi import add_openapi as add

    # Through the module, so each class is the one made (once) on first use.
    module = sys.modules[__name__]
    return add(app, module.TypedBody, module.OrcodecRoute)


def __getattr__(name: str) -> Any:
    if name in ("JSONResponse", "MsgpackResponse", "_OrcodecResponse"):
        built = _build_responses()
    elif name == "OrcodecRoute":
        built = _build_route()
    elif name == "TypedBody":
        built = _build_typed_body()
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals().update(built)
    return built[name]


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


def _known_type(annotation: Any) -> bool:
    """Whether orcodec has a schema for a return annotation (and so renders it itself)."""
    if annotation is None or annotation is type(None) or annotation is Any:
        return False
    try:
        from starlette.responses import Response

        if isinstance(annotation, type) and issubclass(annotation, Response):
            return False
        orcodec.json_schema_components([annotation], ref_template="#/components/schemas/{name}")
    except (TypeError, ValueError):
        return False
    return True
