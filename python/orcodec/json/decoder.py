"""The decoder of ``orcodec.json``: the standard library's ``json.decoder`` API.

``JSONDecodeError`` is the standard library's own class, so ``except
json.JSONDecodeError`` catches what ``orcodec.json`` raises, and the reverse.
"""

import json.decoder as _std_decoder
from json.decoder import JSONDecodeError

__all__ = ["JSONDecoder", "JSONDecodeError"]


class JSONDecoder(_std_decoder.JSONDecoder):
    """Simple JSON decoder, as ``json.JSONDecoder``: the same arguments, values,
    hooks and errors (messages and positions).
    """
