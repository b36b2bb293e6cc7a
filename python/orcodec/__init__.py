# The docstrings (this module's, the functions', the classes') and the flags'
# descriptions are written once, in the extension: crates/orcodec-python/src/
# module/docs.rs and module/options.rs. __init__.pyi carries copies for
# editors and type checkers; tests/test_docstrings.py keeps them equal.

from collections import namedtuple
from types import MappingProxyType

from . import _orcodec
from ._files import dump, load, pack, unpack
from ._orcodec import (
    OPT_APPEND_NEWLINE,
    OPT_DATETIME_AS_TIMESTAMP_EXT,
    OPT_INDENT_2,
    OPT_MSGPACK_NUMPY,
    OPT_NAIVE_UTC,
    OPT_NON_STR_KEYS,
    OPT_NUMPY_EXT,
    OPT_NUMPY_ZERO_COPY,
    OPT_OMIT_DEFAULTS,
    OPT_OMIT_MICROSECONDS,
    OPT_OMIT_NONE,
    OPT_PASSTHROUGH_BIG_INT,
    OPT_PASSTHROUGH_DATACLASS,
    OPT_PASSTHROUGH_DATETIME,
    OPT_PASSTHROUGH_ENUM,
    OPT_PASSTHROUGH_SUBCLASS,
    OPT_PASSTHROUGH_TUPLE,
    OPT_PASSTHROUGH_UUID,
    OPT_REPLACE_SURROGATES,
    OPT_SERIALIZE_DATACLASS,
    OPT_SERIALIZE_NUMPY,
    OPT_SERIALIZE_PYDANTIC,
    OPT_SERIALIZE_UUID,
    OPT_SORT_KEYS,
    OPT_STRICT_INTEGER,
    OPT_UTC_Z,
    BufferFull,
    Decoder,
    Ext,
    Fragment,
    JSONDecodeError,
    JSONEncodeError,
    JSONInputTypeError,
    JSONUnpacker,
    MsgpackDecodeError,
    MsgpackEncodeError,
    MsgpackInputTypeError,
    OutOfData,
    Packer,
    Unpacker,
    ValidationError,
    __version__,
    convert,
    dumps,
    dumps_lines,
    iter_lines,
    json_to_msgpack,
    loads,
    loads_lines,
    msgpack_to_json,
    packb,
    unpackb,
)
from ._wire import Name, options


def json_schema(type, *, ref_template="#/$defs/{name}"):
    """The JSON Schema (Draft 2020-12) of the JSON documents
    loads(data, type=type) accepts, as a dict.

    Dataclasses, TypedDicts, NamedTuples, attrs classes and enums are
    defined once in "$defs" and referred to by ref_template (its {name} is
    the class's name), so recursive types are references. The schema says
    what the decoder accepts (strict=True); where JSON Schema cannot say it,
    the schema is the looser one (doc/typed.md lists those cases). Raises
    TypeError for a type typed decoding does not take, or one it hands to
    dec_hook."""
    from ._schema import json_schema as make

    return make(type, ref_template)


def json_schema_components(types, *, ref_template="#/$defs/{name}"):
    """The JSON Schemas of several types sharing their definitions: a tuple
    of one schema per type (references to the definitions where the type is a
    class) and a dict of the definitions by name, for a document that keeps
    them in one place (OpenAPI's components/schemas, with
    ref_template="#/components/schemas/{name}")."""
    from ._schema import json_schema_components as make

    return make(types, ref_template)


# A plain namedtuple (its types are in the stub): importing typing would
# triple the package's import time.
FlagInfo = namedtuple("FlagInfo", ["name", "value", "formats", "functions", "description"])
FlagInfo.__doc__ = """One OPT_* flag: its name and value, the formats and the functions whose
behaviour it changes (empty for the flags kept only for compatibility), and
what it does."""


def _flag_info(name, value, functions, description):
    formats = tuple(
        fmt for fmt, users in (("JSON", {"dumps"}), ("MessagePack", {"packb", "unpackb"})) if users & set(functions)
    )
    return FlagInfo(name, value, formats, functions, description)


flags = MappingProxyType({row[0]: _flag_info(*row) for row in _orcodec._flag_table})


def _wrap(text, indent=""):
    """`text` in lines of at most 76 characters, each starting with `indent`."""
    lines, line = [], ""
    for word in text.split():
        if line and len(indent) + len(line) + 1 + len(word) > 76:
            lines.append(indent + line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(indent + line)
    return "\n".join(lines)


def _flags_section():
    lines = [
        "Flags",
        "-----",
        _wrap(
            "option= takes an int of OPT_* flags combined with |. dumps and packb accept every flag and "
            "ignore those that do not concern them, so one value serves both; unpackb accepts only its own "
            "(as ormsgpack's). Anything else raises the function's error (Invalid opts). orcodec.flags maps "
            "each name to a FlagInfo with the same facts."
        ),
    ]
    for flag in flags.values():
        lines.append("")
        lines.append(f"{flag.name} = {flag.value} ({', '.join(flag.functions) or 'no effect'})")
        lines.append(_wrap(flag.description, "    "))
    return "\n".join(lines)


__doc__ = f"{_orcodec.__doc__}\n\n{_flags_section()}\n"

__all__ = [
    "BufferFull",
    "Decoder",
    "Ext",
    "FlagInfo",
    "Fragment",
    "JSONDecodeError",
    "JSONEncodeError",
    "JSONInputTypeError",
    "JSONUnpacker",
    "MsgpackDecodeError",
    "MsgpackEncodeError",
    "MsgpackInputTypeError",
    "Name",
    "OPT_APPEND_NEWLINE",
    "OPT_DATETIME_AS_TIMESTAMP_EXT",
    "OPT_INDENT_2",
    "OPT_MSGPACK_NUMPY",
    "OPT_NAIVE_UTC",
    "OPT_NON_STR_KEYS",
    "OPT_NUMPY_EXT",
    "OPT_NUMPY_ZERO_COPY",
    "OPT_OMIT_DEFAULTS",
    "OPT_OMIT_MICROSECONDS",
    "OPT_OMIT_NONE",
    "OPT_PASSTHROUGH_BIG_INT",
    "OPT_PASSTHROUGH_DATACLASS",
    "OPT_PASSTHROUGH_DATETIME",
    "OPT_PASSTHROUGH_ENUM",
    "OPT_PASSTHROUGH_SUBCLASS",
    "OPT_PASSTHROUGH_TUPLE",
    "OPT_PASSTHROUGH_UUID",
    "OPT_REPLACE_SURROGATES",
    "OPT_SERIALIZE_DATACLASS",
    "OPT_SERIALIZE_NUMPY",
    "OPT_SERIALIZE_PYDANTIC",
    "OPT_SERIALIZE_UUID",
    "OPT_SORT_KEYS",
    "OPT_STRICT_INTEGER",
    "OPT_UTC_Z",
    "OutOfData",
    "Packer",
    "Unpacker",
    "ValidationError",
    "__version__",
    "convert",
    "dump",
    "dumps",
    "dumps_lines",
    "flags",
    "iter_lines",
    "json_schema",
    "json_schema_components",
    "json_to_msgpack",
    "load",
    "loads",
    "loads_lines",
    "msgpack_to_json",
    "options",
    "pack",
    "packb",
    "unpack",
    "unpackb",
]
