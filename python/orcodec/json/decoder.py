"""The decoder of ``orcodec.json``: the standard library's ``json.decoder`` API.

``JSONDecodeError`` is the standard library's own class, so ``except
json.JSONDecodeError`` catches what ``orcodec.json`` raises, and the reverse.

A decoder without hooks and with ``strict=True`` reads a document with orcodec's
Rust scanner (``_json_loads``). What that scanner does not read as the standard
library does (``NaN`` and ``Infinity``, lone surrogate escapes, integers beyond 64
bits, numbers beyond the doubles, deep nesting, and every malformed document, whose
error message and position are the standard library's) is read by the standard
library's decoder instead, as are documents decoded with hooks, ``strict=False`` or
``raw_decode``.
"""

import json.decoder as _std_decoder
from json.decoder import JSONDecodeError

from .._orcodec import _json_loads

__all__ = ["JSONDecoder", "JSONDecodeError"]

_std_raw_decode = _std_decoder.JSONDecoder.raw_decode


class JSONDecoder(_std_decoder.JSONDecoder):
    """Simple JSON decoder, as ``json.JSONDecoder``: the same arguments, values,
    hooks and errors (messages and positions).
    """

    def __init__(
        self,
        *,
        object_hook=None,
        parse_float=None,
        parse_int=None,
        parse_constant=None,
        strict=True,
        object_pairs_hook=None,
    ):
        super().__init__(
            object_hook=object_hook,
            parse_float=parse_float,
            parse_int=parse_int,
            parse_constant=parse_constant,
            strict=strict,
            object_pairs_hook=object_pairs_hook,
        )
        # The options are read once, when the decoder is made, as the standard
        # library's scanner reads them.
        self._native = (
            object_hook is None
            and parse_float is None
            and parse_int is None
            and parse_constant is None
            and object_pairs_hook is None
            and strict is True
            and type(self).raw_decode is _std_raw_decode
        )

    def decode(self, s, _w=_std_decoder.WHITESPACE.match):
        """Return the Python representation of ``s`` (a ``str`` holding a JSON
        document)."""
        if self._native and isinstance(s, str):
            value = _json_loads(s)
            if value is not NotImplemented:
                return value
        return super().decode(s, _w)
