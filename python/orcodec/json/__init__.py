"""The standard library ``json`` module's API and text, on orcodec's core.

``import orcodec.json as json`` in code written for the standard library: ``dumps``
returns the same ``str`` byte for byte for every combination of options, ``loads``
the same values, and both raise the same exceptions with the same messages. See
doc/stdlib-json.md for what runs in Rust and for the deviations.
"""

from .._orcodec import _json_encode, _json_loads
from .decoder import JSONDecodeError, JSONDecoder
from .encoder import JSONEncoder

__all__ = ["dump", "dumps", "load", "loads", "JSONDecoder", "JSONDecodeError", "JSONEncoder"]

_default_encoder = JSONEncoder()
_default_default = _default_encoder.default
_default_decoder = JSONDecoder()


def dumps(
    obj,
    *,
    skipkeys=False,
    ensure_ascii=True,
    check_circular=True,
    allow_nan=True,
    cls=None,
    indent=None,
    separators=None,
    default=None,
    sort_keys=False,
    **kw,
):
    """Serialize ``obj`` to a JSON formatted ``str``, as ``json.dumps``."""
    if cls is None and not kw and separators is None and (indent is None or type(indent) is int):
        # Every option straight to the core, without making an encoder.
        return _json_encode(
            obj,
            _default_default if default is None else default,
            skipkeys,
            ensure_ascii,
            check_circular,
            allow_nan,
            sort_keys,
            None if indent is None else b" " * indent,
            b": ",
            b", " if indent is None else b",",
            indent is not None,
        )
    if cls is None:
        cls = JSONEncoder
    return cls(
        skipkeys=skipkeys,
        ensure_ascii=ensure_ascii,
        check_circular=check_circular,
        allow_nan=allow_nan,
        indent=indent,
        separators=separators,
        default=default,
        sort_keys=sort_keys,
        **kw,
    ).encode(obj)


def dump(
    obj,
    fp,
    *,
    skipkeys=False,
    ensure_ascii=True,
    check_circular=True,
    allow_nan=True,
    cls=None,
    indent=None,
    separators=None,
    default=None,
    sort_keys=False,
    **kw,
):
    """Serialize ``obj`` as a JSON formatted stream to ``fp`` (a ``.write()``-supporting
    file-like object), as ``json.dump``."""
    if cls is None:
        cls = JSONEncoder
    iterable = cls(
        skipkeys=skipkeys,
        ensure_ascii=ensure_ascii,
        check_circular=check_circular,
        allow_nan=allow_nan,
        indent=indent,
        separators=separators,
        default=default,
        sort_keys=sort_keys,
        **kw,
    ).iterencode(obj)
    for chunk in iterable:
        fp.write(chunk)


def detect_encoding(b):
    """The encoding of JSON bytes ``b``: UTF-8, -16 or -32, by its BOM or by where its
    first characters' zero bytes are (the standard library's rule)."""
    bstartswith = b.startswith
    if bstartswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        return "utf-32"
    if bstartswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    if bstartswith(b"\xef\xbb\xbf"):
        return "utf-8-sig"
    if len(b) >= 4:
        if not b[0]:
            # 00 00 -- -- is UTF-32-BE, 00 XX -- -- UTF-16-BE
            return "utf-16-be" if b[1] else "utf-32-be"
        if not b[1]:
            # XX 00 00 00 is UTF-32-LE, XX 00 00 XX or XX 00 XX -- UTF-16-LE
            return "utf-16-le" if b[2] or b[3] else "utf-32-le"
    elif len(b) == 2:
        if not b[0]:
            return "utf-16-be"
        if not b[1]:
            return "utf-16-le"
    return "utf-8"


def loads(
    s,
    *,
    cls=None,
    object_hook=None,
    parse_float=None,
    parse_int=None,
    parse_constant=None,
    object_pairs_hook=None,
    **kw,
):
    """Deserialize ``s`` (a ``str``, ``bytes`` or ``bytearray`` holding a JSON document)
    to a Python object, as ``json.loads``."""
    plain = (
        cls is None
        and object_hook is None
        and parse_int is None
        and parse_float is None
        and parse_constant is None
        and object_pairs_hook is None
        and not kw
    )
    if isinstance(s, str):
        if s.startswith("\ufeff"):
            raise JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", s, 0)
    else:
        if not isinstance(s, (bytes, bytearray)):
            raise TypeError(f"the JSON object must be str, bytes or bytearray, not {s.__class__.__name__}")
        encoding = detect_encoding(s)
        if plain and encoding == "utf-8" and type(s) is bytes:
            # UTF-8 bytes straight to the core, without a str in between.
            value = _json_loads(s)
            if value is not NotImplemented:
                return value
        s = s.decode(encoding, "surrogatepass")
    if plain:
        return _default_decoder.decode(s)
    if cls is None:
        cls = JSONDecoder
    if object_hook is not None:
        kw["object_hook"] = object_hook
    if object_pairs_hook is not None:
        kw["object_pairs_hook"] = object_pairs_hook
    if parse_float is not None:
        kw["parse_float"] = parse_float
    if parse_int is not None:
        kw["parse_int"] = parse_int
    if parse_constant is not None:
        kw["parse_constant"] = parse_constant
    return cls(**kw).decode(s)


def load(
    fp,
    *,
    cls=None,
    object_hook=None,
    parse_float=None,
    parse_int=None,
    parse_constant=None,
    object_pairs_hook=None,
    **kw,
):
    """Deserialize ``fp`` (a ``.read()``-supporting file-like object holding a JSON
    document) to a Python object, as ``json.load``."""
    return loads(
        fp.read(),
        cls=cls,
        object_hook=object_hook,
        parse_float=parse_float,
        parse_int=parse_int,
        parse_constant=parse_constant,
        object_pairs_hook=object_pairs_hook,
        **kw,
    )
