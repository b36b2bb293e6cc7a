"""Every public name of orcodec used the way the stubs (python/orcodec/__init__.pyi)
promise. Checked with ``mypy --strict`` by test_typing.py, and run there too, so the
stubs and the runtime are checked against each other.

Lines marked ``# type: ignore[...]`` must be rejected by the stubs: with --strict
(warn_unused_ignores) an ignore that is not needed is itself an error, so a stub that
became too permissive fails the check.

Not a test module (pytest collects test_*.py only).
"""

from __future__ import annotations

import dataclasses
import json
from typing import Annotated, Any, Callable, Optional, Union, assert_type

import orcodec
from orcodec import (
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
    Ext,
    Fragment,
    JSONDecodeError,
    JSONEncodeError,
    MsgpackDecodeError,
    MsgpackEncodeError,
    ValidationError,
)

ALL_FLAGS: list[int] = [
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
]


def default(obj: Any) -> Any:
    if isinstance(obj, set):
        return sorted(obj)
    raise TypeError


def ext_hook(tag: int, data: bytes) -> Ext | tuple[int, bytes]:
    return Ext(tag, data) if tag else (tag, data)


def bad_hook(tag: str, data: bytes) -> None:
    return None


def rejected(call: Callable[[], object], *errors: type[BaseException]) -> None:
    """Runs a call the stubs reject; at run time it raises one of ``errors`` (or, with
    no ``errors`` given, it is one the runtime happens to accept)."""
    try:
        call()
    except errors:
        return
    assert not errors, "expected an exception"


def use_json() -> None:
    option: int = OPT_INDENT_2 | OPT_SORT_KEYS | OPT_APPEND_NEWLINE | OPT_NAIVE_UTC | OPT_UTC_Z
    out = orcodec.dumps({"a": {1, 2}}, default, option)
    assert_type(out, bytes)
    assert_type(orcodec.dumps([1], default=default, option=option), bytes)
    assert_type(orcodec.dumps(None, default=None, option=None), bytes)
    assert_type(orcodec.dumps(1.5), bytes)
    value = orcodec.loads(out)
    assert_type(value, Any)
    orcodec.loads(bytearray(out))
    orcodec.loads(memoryview(out))
    orcodec.loads(out.decode())
    orcodec.dumps([Fragment(b"[1]"), Fragment("{}")])
    rejected(lambda: orcodec.loads(1), TypeError, ValueError)  # type: ignore[call-overload]
    rejected(lambda: orcodec.dumps(1, option="x"), TypeError, ValueError)  # type: ignore[arg-type]
    rejected(lambda: orcodec.dumps(1, default=1))  # type: ignore[arg-type]
    rejected(lambda: orcodec.dumps(obj=1), TypeError, ValueError)  # type: ignore[call-arg]
    try:
        orcodec.loads(b"[")
    except JSONDecodeError as exc:
        assert_type(exc.msg, str)
        assert_type(exc.pos, int)
        assert isinstance(exc, json.JSONDecodeError) and isinstance(exc, ValueError)
    try:
        orcodec.dumps(object())
    except JSONEncodeError as exc:
        assert isinstance(exc, TypeError)


def use_msgpack() -> None:
    option: int = OPT_DATETIME_AS_TIMESTAMP_EXT | OPT_NON_STR_KEYS | OPT_PASSTHROUGH_BIG_INT
    packed = orcodec.packb({1: [Ext(1, b"x"), Fragment(b"\xc0")]}, default, option)
    assert_type(packed, bytes)
    assert_type(orcodec.packb(b"x", default=default, option=option), bytes)
    assert_type(orcodec.packb(None, default=None, option=None), bytes)
    value = orcodec.unpackb(packed, ext_hook=ext_hook, option=OPT_NON_STR_KEYS)
    assert_type(value, Any)
    hook: Callable[[int, bytes], Any] | None = Ext
    orcodec.unpackb(packed, ext_hook=hook, option=OPT_DATETIME_AS_TIMESTAMP_EXT | OPT_NON_STR_KEYS)
    simple = orcodec.packb({"k": Ext(3, b"")})
    orcodec.unpackb(bytearray(orcodec.packb([1])), ext_hook=None, option=None)
    orcodec.unpackb(memoryview(simple), ext_hook=lambda tag, data: (tag + 1, data.hex()))
    rejected(lambda: orcodec.unpackb(packed, ext_hook=bad_hook), TypeError, ValueError)  # type: ignore[arg-type]
    rejected(lambda: orcodec.unpackb(packed, OPT_NON_STR_KEYS), TypeError, ValueError)  # type: ignore[call-overload]
    rejected(lambda: orcodec.unpackb("str"), TypeError, ValueError)  # type: ignore[call-overload]
    rejected(lambda: orcodec.packb(1, option=1.5), TypeError, ValueError)  # type: ignore[arg-type]
    numpy_option: int = OPT_NUMPY_EXT | OPT_NUMPY_ZERO_COPY | OPT_MSGPACK_NUMPY
    coded = orcodec.packb([1], option=numpy_option, numpy_ext_code=5)
    assert_type(coded, bytes)
    orcodec.unpackb(coded, option=numpy_option, numpy_ext_code=None)
    rejected(lambda: orcodec.packb(1, None, None, 5), TypeError, ValueError)  # type: ignore[call-arg]
    rejected(lambda: orcodec.unpackb(coded, numpy_ext_code="5"), TypeError, ValueError)  # type: ignore[call-overload]
    try:
        orcodec.unpackb(b"\xc1")
    except MsgpackDecodeError as exc:
        assert isinstance(exc, ValueError)
    try:
        orcodec.packb(object())
    except MsgpackEncodeError as exc:
        assert isinstance(exc, TypeError)


def use_fragment_and_ext() -> None:
    frag = Fragment(b"[]")
    assert_type(frag.contents, Union[bytes, str])
    assert_type(Fragment("x"), Fragment)
    # Refused when written, as orjson: any content is taken when made.
    rejected(lambda: Fragment(1))  # type: ignore[arg-type]
    rejected(lambda: Fragment(bytearray(b"")))  # type: ignore[arg-type]
    try:
        frag.contents = b""  # type: ignore[misc]
    except AttributeError:
        pass
    else:
        raise AssertionError("Fragment.contents is writable")
    ext = Ext(5, b"data")
    assert_type(ext.tag, int)
    assert_type(ext.data, bytes)
    assert_type(ext == Ext(5, b"data"), bool)
    assert_type(hash(ext), int)
    rejected(lambda: Ext("5", b""), TypeError, ValueError)  # type: ignore[arg-type]
    rejected(lambda: Ext(5, "data"), TypeError, ValueError)  # type: ignore[arg-type]
    rejected(lambda: Ext(tag=5, data=b""), TypeError, ValueError)  # type: ignore[call-arg]
    try:
        ext.tag = 1  # type: ignore[misc]
    except AttributeError:
        pass
    else:
        raise AssertionError("Ext.tag is writable")
    try:
        ext.data = b""  # type: ignore[misc]
    except AttributeError:
        pass
    else:
        raise AssertionError("Ext.data is writable")
    assert_type(orcodec.__version__, str)


def use_flags() -> None:
    info = orcodec.flags["OPT_SORT_KEYS"]
    assert_type(info, orcodec.FlagInfo)
    assert_type(info.value, int)
    assert_type(info.formats, tuple[str, ...])
    assert_type(info.functions, tuple[str, ...])
    assert_type(info.description, str)
    assert info.value == OPT_SORT_KEYS and "packb" in info.functions
    name, value, formats, functions, description = info
    assert_type(name, str)
    packb_flags: int = 0
    for flag in orcodec.flags.values():
        if "packb" in flag.functions:
            packb_flags |= flag.value
    # (packb refuses OPT_NON_STR_KEYS with OPT_SORT_KEYS, as ormsgpack.)
    orcodec.packb({"a": 1}, option=packb_flags & ~OPT_PASSTHROUGH_DATACLASS & ~OPT_SORT_KEYS)
    rejected(lambda: orcodec.flags.update({}), AttributeError)  # type: ignore[attr-defined]


@dataclasses.dataclass
class Item:
    qty: int
    name: str = "x"


def item_hook(tp: Any, value: Any) -> Any:
    return value


def use_typed() -> None:
    item = orcodec.loads(b'{"qty": 1}', type=Item)
    assert_type(item, Item)
    assert item.qty == 1
    assert_type(orcodec.unpackb(orcodec.packb({"qty": 2}), type=Item, strict=False), Item)
    assert_type(orcodec.unpackb(orcodec.packb([1]), ext_hook=None, option=None, type=list[int]), list[int])
    assert_type(orcodec.loads(b"[1]", type=list[int], dec_hook=item_hook), list[int])
    assert_type(orcodec.loads(b"null", type=Optional[int]), Any)
    assert_type(orcodec.convert({"qty": 3}, Item), Item)
    decoder = orcodec.Decoder(Item, strict=True, dec_hook=None, forbid_unknown_fields=True)
    assert_type(decoder, orcodec.Decoder[Item])
    assert_type(decoder.loads(b'{"qty": 1}'), Item)
    assert_type(decoder.unpackb(orcodec.packb({"qty": 1}), ext_hook=None, option=None), Item)
    assert_type(decoder.convert({"qty": 1}), Item)
    assert_type(decoder.strict, bool)
    assert_type(decoder.forbid_unknown_fields, bool)
    try:
        orcodec.loads(b'{"qty": "x"}', type=Item)
    except ValidationError as exc:
        assert_type(exc.path, str)
        assert isinstance(exc, ValueError) and isinstance(exc, JSONDecodeError)
    rejected(lambda: orcodec.loads(b"1", type=int, strict="no", dec_hook=1), TypeError)  # type: ignore[call-overload]
    rejected(lambda: orcodec.convert(1), TypeError)  # type: ignore[call-overload]
    schema = orcodec.json_schema(Item, ref_template="#/$defs/{name}")
    assert_type(schema, dict[str, Any])
    assert schema["$ref"] == "#/$defs/Item"
    schemas, components = orcodec.json_schema_components([Item, list[Item]])
    assert_type(schemas, tuple[dict[str, Any], ...])
    assert_type(components, dict[str, dict[str, Any]])
    assert sorted(components) == ["Item"]
    rejected(lambda: orcodec.json_schema(Item, "#/{name}"), TypeError)  # type: ignore[call-arg]


def use_wire_names() -> None:
    @orcodec.options(rename="camel", omit_defaults=True, omit_none=None, forbid_unknown_fields=True)
    @dataclasses.dataclass
    class Order:
        order_id: int
        note: Annotated[str | None, orcodec.Name("memo")] = None

    assert_type(Order, type[Order])
    assert orcodec.dumps(Order(1), option=OPT_OMIT_NONE | OPT_OMIT_DEFAULTS) == b'{"orderId":1}'
    assert_type(orcodec.loads(b'{"orderId": 2}', type=Order), Order)
    assert_type(orcodec.Name("x").name, str)
    assert callable(orcodec.options(rename=str.upper))
    rejected(lambda: orcodec.options(rename=1), ValueError)  # type: ignore[arg-type]
    rejected(lambda: orcodec.Name(1), TypeError)  # type: ignore[arg-type]


def use_stdlib_json() -> None:
    import io

    import orcodec.json as ojson

    text = ojson.dumps({"a": [1, 2.5]}, indent=2, ensure_ascii=False, sort_keys=True, default=str)
    assert_type(text, str)
    assert_type(ojson.loads(text, object_pairs_hook=dict), Any)
    assert ojson.loads(b"[1]") == [1]
    buffer = io.StringIO()
    ojson.dump([1], buffer, separators=(",", ":"))
    assert ojson.load(io.StringIO(buffer.getvalue())) == [1]

    class Encoder(ojson.JSONEncoder):
        def default(self, o: Any) -> Any:
            return repr(o)

    assert_type(Encoder(indent="\t").encode(object), str)
    assert_type(ojson.JSONDecoder(strict=False).decode("[]"), Any)
    assert ojson.JSONDecodeError is json.JSONDecodeError
    rejected(lambda: ojson.dumps([], indent=[]), TypeError)  # type: ignore[arg-type]


def main() -> None:
    use_json()
    use_stdlib_json()
    use_msgpack()
    use_fragment_and_ext()
    use_flags()
    use_typed()
    use_wire_names()


if __name__ == "__main__":
    main()
