"""The encoder of ``orcodec.json``: the standard library's ``json.encoder`` API.

``JSONEncoder`` takes the standard library's arguments and writes its text byte for
byte. Encoding runs in orcodec's Rust core (``_json_encode``) for every option; only a
subclass that overrides ``iterencode`` runs its own Python code, as it asks to.
"""

import json.encoder as _std_encoder

from .._orcodec import _json_encode

__all__ = ["JSONEncoder", "encode_basestring", "encode_basestring_ascii"]

INFINITY = float("inf")


def _separator(value, position):
    if not isinstance(value, str):
        raise TypeError(f"make_encoder() argument {position} must be str, not {type(value).__name__}")
    return value.encode("utf-8", "surrogatepass")


def _encode(encoder, o, py_messages):
    """``o`` as ``encoder``'s options write it, in the Rust core."""
    indent = encoder.indent
    if indent is not None:
        if not isinstance(indent, str):
            indent = " " * indent
        indent = indent.encode("utf-8", "surrogatepass")
    return _json_encode(
        o,
        encoder.default,
        encoder.skipkeys,
        encoder.ensure_ascii,
        encoder.check_circular,
        encoder.allow_nan,
        encoder.sort_keys,
        indent,
        _separator(encoder.key_separator, 6),
        _separator(encoder.item_separator, 7),
        py_messages,
    )


def encode_basestring(s):
    """Return a JSON representation of a Python string."""
    if not isinstance(s, str):
        raise TypeError(f"first argument must be a string, not {type(s).__name__}")
    return _json_encode(s, None, False, False, False, True, False, None, b": ", b", ", False)


def encode_basestring_ascii(s):
    """Return an ASCII-only JSON representation of a Python string."""
    if not isinstance(s, str):
        raise TypeError(f"first argument must be a string, not {type(s).__name__}")
    return _json_encode(s, None, False, True, False, True, False, None, b": ", b", ", False)


class JSONEncoder(_std_encoder.JSONEncoder):
    """Extensible JSON encoder for Python data structures, as ``json.JSONEncoder``.

    Supports dict, list, tuple, str, int, float, True, False and None (and subclasses
    of dict, list, tuple, str, int and float); everything else goes to ``default``.
    Subclass it and override ``default`` to serialize other objects; ``encode`` and
    ``iterencode`` may be overridden too.
    """

    item_separator = ", "
    key_separator = ": "

    def __init__(
        self,
        *,
        skipkeys=False,
        ensure_ascii=True,
        check_circular=True,
        allow_nan=True,
        sort_keys=False,
        indent=None,
        separators=None,
        default=None,
    ):
        self.skipkeys = skipkeys
        self.ensure_ascii = ensure_ascii
        self.check_circular = check_circular
        self.allow_nan = allow_nan
        self.sort_keys = sort_keys
        self.indent = indent
        if separators is not None:
            self.item_separator, self.key_separator = separators
        elif indent is not None:
            self.item_separator = ","
        if default is not None:
            self.default = default

    def default(self, o):
        """Return a serializable object for ``o``, or raise TypeError (the default)."""
        raise TypeError(f"Object of type {o.__class__.__name__} is not JSON serializable")

    def encode(self, o):
        """Return the JSON text of ``o`` (a str)."""
        if type(self).iterencode is not JSONEncoder.iterencode:
            # The subclass produces the chunks itself.
            chunks = self.iterencode(o, _one_shot=True)
            if not isinstance(chunks, (list, tuple)):
                chunks = list(chunks)
            return "".join(chunks)
        return _encode(self, o, self.indent is not None)

    def iterencode(self, o, _one_shot=False):
        """Encode ``o``, yielding its text in chunks (here: one chunk).

        As the standard library's: the error of an unserializable object is raised
        when the chunks are iterated, except for a one-shot call without indent.
        """
        if _one_shot and self.indent is None:
            return (_encode(self, o, False),)
        return self._chunks(o)

    def _chunks(self, o):
        yield _encode(self, o, True)
