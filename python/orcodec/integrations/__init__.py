"""Ready-made glue between orcodec and the engines payloads travel through.

Each submodule imports its library only when it is used, and `import orcodec`
imports none of them:

- `orcodec.integrations.starlette`: `JSONResponse` and `MsgpackResponse` for
  Starlette and FastAPI, and `OrcodecRoute`, a FastAPI route class that hands
  an endpoint's return value to orcodec without `jsonable_encoder`
  (`pip install orcodec[starlette]`).
- `orcodec.integrations.kombu`: the `orcodec-json` and `orcodec-msgpack`
  serializers for kombu and Celery (`pip install orcodec[celery]`).
- `orcodec.integrations.dask`: the `"orcodec"` serialization family for Dask
  distributed (`pip install orcodec[dask]`).

See doc/integrations.md.
"""

import importlib as _importlib

_SUBMODULES = ("dask", "kombu", "starlette")

__all__ = list(_SUBMODULES)


def __getattr__(name):
    # `orcodec.integrations.kombu` works after `import orcodec.integrations`.
    if name in _SUBMODULES:
        return _importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted({*globals(), *_SUBMODULES})
