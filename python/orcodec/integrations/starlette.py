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

Starlette (and FastAPI, for `OrcodecRoute`) is imported when one of these
names is first used, not when this module is imported.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orcodec

__all__ = ["JSONResponse", "MsgpackResponse", "OrcodecRoute"]

if TYPE_CHECKING:  # pragma: no cover - what type checkers see
    from collections.abc import Callable

    from fastapi.routing import APIRoute
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

    class OrcodecRoute(APIRoute): ...


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

        Routes with a response model (`response_model=` or a return
        annotation) keep FastAPI's own path, which validates and filters
        the value first; so do streaming endpoints (generators).
        """

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


def __getattr__(name: str) -> Any:
    if name in ("JSONResponse", "MsgpackResponse", "_OrcodecResponse"):
        built = _build_responses()
    elif name == "OrcodecRoute":
        built = _build_route()
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals().update(built)
    return built[name]


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
