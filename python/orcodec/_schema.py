"""JSON Schema (Draft 2020-12) of the types typed decoding accepts.

The schema is made from the same analysis as the decoder: the type is
compiled by :mod:`orcodec._typed` into its spec (the tree of checks the
extension runs), and each spec node is described by the schema of exactly the
JSON documents that node accepts with ``strict=True``. Where JSON Schema
cannot express a check, the schema is the looser one (doc/typed.md lists
those cases). Classes and enums go into ``$defs`` (or the components of
:func:`json_schema_components`), so recursive types are references.

Imported lazily, on the first call: it imports ``typing`` and ``dataclasses``.
"""

from __future__ import annotations

import dataclasses
import enum
import inspect
import re
import typing

from . import _typed
from ._typed import (
    ANY,
    BOOL,
    BYTEARRAY,
    BYTES,
    CHOICE,
    CLASS,
    CUSTOM,
    DATE,
    DATETIME,
    DECIMAL,
    DICT,
    FLOAT,
    FROZENSET,
    INT,
    K_BYTES,
    K_EXT,
    LIST,
    NDARRAY,
    NONE,
    SET,
    STR,
    TAGGED,
    TIME,
    TIMEDELTA,
    TUPLE,
    UNION,
    UUID,
    VARTUPLE,
)

DIALECT = "https://json-schema.org/draft/2020-12/schema"

# -- text forms ----------------------------------------------------------------
#
# The patterns are matched as JSON Schema matches them: anywhere in the string
# (hence the anchors), and by validators written in Python with `re.search`,
# whose `$` also matches before a final newline: `$(?!\n)` is the end of the
# string for both ECMA-262 and Python. Digits are `[0-9]` (Python's `\d` is
# every Unicode digit).

_END = r"$(?!\n)"
_YEAR = "[0-9]{4}"
_MONTH_DAY = (
    "(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])"
    "|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)"
    "|02-(?:0[1-9]|1[0-9]|2[0-8]))"
)
# Years divisible by 4 and not by 100, or by 400 (0000 is excluded below).
_LEAP_YEAR = "(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)"
_DATE = f"(?!0000)(?:{_YEAR}-{_MONTH_DAY}|{_LEAP_YEAR}-02-29)"
_TIME = "(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\\.[0-9]+)?"
_OFFSET = "(?:[Zz]|[+-](?:[01][0-9]|2[0-3]):?[0-5][0-9])"
# A fraction that rounds up to the next second: refused by `time`, carried
# into the date by `datetime` (refused past 9999-12-31).
_CARRY = "[0-9]{2}:[0-9]{2}:[0-9]{2}\\.999999[5-9]"

DATETIME_PATTERN = f"^(?!9999-12-31[Tt ]23:59:59\\.999999[5-9]){_DATE}[Tt ]{_TIME}{_OFFSET}?{_END}"
DATE_PATTERN = f"^{_DATE}{_END}"
TIME_PATTERN = f"^(?!{_CARRY}){_TIME}{_OFFSET}?{_END}"
# ISO 8601 durations as the decoder reads them (orcodec_core's `duration`):
# letters in either case, components in the order D, H, M, S (the time ones
# after a `T`, which needs one), a fraction only on the last one.
_AMOUNT = "[0-9]+(?:\\.[0-9]+)?"
_DURATION_TIME = f"[Tt](?=[0-9])(?:{_AMOUNT}[Hh])?(?:{_AMOUNT}[Mm])?(?:{_AMOUNT}[Ss])?"
DURATION_PATTERN = f"^[+-]?[Pp](?!.*\\.[0-9]+[A-Za-z].)(?:{_AMOUNT}[Dd](?:{_DURATION_TIME})?|{_DURATION_TIME}){_END}"
UUID_PATTERN = f"^(?:[0-9A-Fa-f]{{8}}(?:-[0-9A-Fa-f]{{4}}){{3}}-[0-9A-Fa-f]{{12}}|[0-9A-Fa-f]{{32}}){_END}"
INT_KEY_PATTERN = f"^-?(?:0|[1-9][0-9]*){_END}"
NUMBER_KEY_PATTERN = f"^-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?{_END}"
# float keys also read `nan` in any case (infinities are out of range).
FLOAT_KEY_PATTERN = f"^(?:-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|[+-]?[Nn][Aa][Nn]){_END}"

_B64 = "[A-Za-z0-9+/]"
_B64_TAILS = ("", f"{_B64}{{2}}==", f"{_B64}{{3}}=")


def _repeat(low: int, high: int | None) -> str:
    if high is None:
        return "*" if low == 0 else f"{{{low},}}"
    if low == high:
        return "" if low == 1 else f"{{{low}}}"
    return f"{{{low},{high}}}"


def base64_pattern(min_length: int | None, max_length: int | None) -> str:
    """Standard padded base64 of data of ``min_length`` to ``max_length``
    bytes: ``3q + r`` bytes are q groups of four and the tail of r (0, 1, 2)."""
    low, high = min_length or 0, max_length
    if low == 0 and high is None:
        return f"^(?:{_B64}{{4}})*(?:{_B64_TAILS[1]}|{_B64_TAILS[2]})?{_END}"
    branches = []
    for r, tail in enumerate(_B64_TAILS):
        q_low = max(0, -(-(low - r) // 3))
        q_high = None if high is None else (high - r) // 3
        if q_high is not None and (q_high < q_low or high < r):
            continue
        if r and q_low * 3 + r < low:  # pragma: no cover - q_low already ensures it
            continue
        if r == 0 and q_high == 0 and low <= 0:
            branches.append("")
            continue
        groups = "" if q_high == 0 else f"(?:{_B64}{{4}}){_repeat(q_low, q_high)}"
        branches.append(groups + tail)
    if not branches:
        return "^(?!)"
    return f"^(?:{'|'.join(branches)}){_END}"


# numpy element types: the JSON values each accepts.
_INT_RANGES = {
    "int8": (-(2**7), 2**7 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
    "uint8": (0, 2**8 - 1),
    "uint16": (0, 2**16 - 1),
    "uint32": (0, 2**32 - 1),
    "uint64": (0, 2**64 - 1),
}
# A number is refused where it rounds to infinity in the element type: from
# the largest value plus half its last unit on.
_FLOAT_LIMITS = {"float16": 65520.0, "float32": 3.4028235677973366e38}


def _element_schema(dtype: int) -> dict:
    if dtype < 0:
        return {"type": ["boolean", "number"]}
    name = _typed._NDARRAY_DTYPES[dtype]
    if name == "bool":
        return {"type": "boolean"}
    if name in _INT_RANGES:
        low, high = _INT_RANGES[name]
        return {"type": "integer", "minimum": low, "maximum": high}
    if name in _FLOAT_LIMITS:
        limit = _FLOAT_LIMITS[name]
        return {"type": "number", "exclusiveMinimum": -limit, "exclusiveMaximum": limit}
    return {"type": "number"}


# -- annotations a type carries ------------------------------------------------


def _annotations(tp) -> dict:
    """title, description and examples from ``Annotated`` metadata (any object
    with those attributes, such as msgspec's ``Meta`` or pydantic's
    ``FieldInfo``; ``typing_extensions.Doc`` and ``annotated_types.doc``)."""
    found: dict = {}
    for _ in range(100):
        if typing.get_origin(tp) is not typing.Annotated:
            break
        for meta in tp.__metadata__:
            for name in ("title", "description"):
                value = getattr(meta, name, None)
                if isinstance(value, str):
                    found[name] = value
            examples = getattr(meta, "examples", None)
            if isinstance(examples, (list, tuple)) and examples:
                found["examples"] = list(examples)
            documentation = getattr(meta, "documentation", None)
            if isinstance(documentation, str) and type(meta).__name__ in ("Doc", "DocInfo"):
                found["description"] = documentation
        tp = tp.__origin__
    return found


def _auto_doc(cls) -> str | None:
    """The docstring Python makes up for a class that has none (dataclasses'
    signature, namedtuple's field list, old enums' text)."""
    if dataclasses.is_dataclass(cls):
        try:
            return cls.__name__ + str(inspect.signature(cls)).replace(" -> None", "")
        except (TypeError, ValueError):  # pragma: no cover - a signature Python cannot show
            return None
    if _typed._is_namedtuple(cls):
        return f"{cls.__name__}({repr(tuple(cls._fields)).replace(chr(39), '')[1:-1]})"
    if isinstance(cls, type) and issubclass(cls, enum.Enum):
        return "An enumeration."
    return None


def _description(cls) -> str | None:
    doc = cls.__dict__.get("__doc__")
    if not isinstance(doc, str) or not doc.strip():
        return None
    # The made-up ones are the class's name and a parenthesized list on one
    # line (a signature costs more to compute than the rest of the schema).
    if doc.startswith(f"{cls.__name__}(") and doc.endswith(")") and "\n" not in doc:
        if dataclasses.is_dataclass(cls) or doc == _auto_doc(cls):
            return None
    if doc == "An enumeration.":
        return None
    return inspect.cleandoc(doc)


def _encodable(value):
    """``value`` as JSON data (for ``default``), or a marker when it has no JSON form."""
    import orcodec

    try:
        return orcodec.loads(orcodec.dumps(value))
    except (TypeError, ValueError):
        return _NO_JSON


_NO_JSON = object()

# -- the compiler, remembering what the schema needs ---------------------------


class _SchemaCompiler(_typed._Compiler):
    """The type compiler of typed decoding, which also keeps, for each node,
    the annotations written where it is used and the generic type a class
    node stands for."""

    def __init__(self):
        super().__init__()
        self.docs: dict = {}  # node index -> annotations at that use
        self.canonical: dict = {}  # a copied class or enum node -> the original
        self.class_types: dict = {}  # class node -> the type (Page[Item])

    def node(self, tp, typevars=None) -> int:
        docs = _annotations(tp)
        before = len(self.nodes)
        index = super().node(tp, typevars)
        if not docs:
            return index
        if index < before or index in self.class_types or self.is_enum(index):
            # A class or enum node is shared by all its uses: the annotations
            # of this one go on a copy.
            if self.nodes[index] is None:  # a class still being compiled
                return index
            copy = self.add(self.nodes[index])
            self.canonical[copy] = self.canonical.get(index, index)
            index = copy
        self.docs[index] = docs
        return index

    def is_enum(self, index) -> bool:
        return self.enum_class(index) is not None

    def enum_class(self, index):
        index = self.canonical.get(index, index)
        for key, value in self.classes.items():
            if value == index and key[0] == "enum":
                return key[1]
        return None

    def cls_node(self, cls, tp, typevars, kind) -> int:
        index = super().cls_node(cls, tp, typevars, kind)
        self.class_types.setdefault(index, tp)
        return index


def _type_name(tp) -> str:
    args = typing.get_args(tp)
    origin = typing.get_origin(tp)
    base = getattr(origin if origin is not None else tp, "__name__", None) or repr(tp)
    if not args:
        return base
    return f"{base}_{'_'.join(_type_name(a) for a in args)}_"


class _Generator:
    def __init__(self, compiler: _SchemaCompiler, ref_template: str):
        self.c = compiler
        self.nodes = compiler.nodes
        self.ref_template = ref_template
        self.names: dict = {}  # canonical index -> name
        self.taken: dict = {}  # name -> canonical index
        self.defs: dict = {}  # name -> schema
        self.pending: list = []

    # -- names and references ---------------------------------------------------

    def name(self, index, cls, tp) -> str:
        if index in self.names:
            return self.names[index]
        base = re.sub(r"[^A-Za-z0-9._-]", "_", _type_name(tp if tp is not None else cls))
        name = base
        if name in self.taken:
            name = re.sub(r"[^A-Za-z0-9._-]", "_", f"{cls.__module__}.{cls.__qualname__}")
            if tp is not None and typing.get_args(tp):
                name += base[len(cls.__name__) :]
        n = 2
        unique = name
        while unique in self.taken:
            unique = f"{name}{n}"
            n += 1
        self.names[index] = unique
        self.taken[unique] = index
        self.pending.append(index)
        return unique

    def ref(self, name: str) -> dict:
        return {"$ref": self.ref_template.format(name=name)}

    def run_pending(self) -> None:
        while self.pending:
            index = self.pending.pop()
            name = self.names[index]
            if name not in self.defs:
                self.defs[name] = {}  # reserved: a recursive reference finds it
                self.defs[name] = self.definition(index)

    # -- schemas ----------------------------------------------------------------

    def schema(self, index: int) -> dict:
        out = self.bare(index)
        docs = self.c.docs.get(index)
        if docs:
            out = {**out, **docs}
        return out

    def bare(self, index: int) -> dict:
        canonical = self.c.canonical.get(index, index)
        node = self.nodes[canonical]
        if node is None:  # pragma: no cover - the compiler fills every node it keeps
            raise TypeError("json_schema: incomplete type")
        kind = node[0]
        if kind == CLASS:
            tp = self.c.class_types.get(canonical)
            return self.ref(self.name(canonical, node[2], tp))
        if kind == CHOICE:
            cls = self.c.enum_class(canonical)
            if cls is not None:
                return self.ref(self.name(canonical, cls, None))
        return self.inline(node)

    def definition(self, index: int) -> dict:
        node = self.nodes[index]
        if node[0] == CHOICE:
            cls = self.c.enum_class(index)
            out: dict = {"title": cls.__name__}
            description = _description(cls)
            if description:
                out["description"] = description
            out.update(self.choice(node))
            return out
        return self.class_schema(node)

    def inline(self, node) -> dict:  # noqa: C901 - one branch per kind of node
        kind = node[0]
        if kind == ANY:
            return {}
        if kind == NONE:
            return {"type": "null"}
        if kind == BOOL:
            return {"type": "boolean"}
        if kind == INT:
            _, _, ge, le, mult = node
            return _put({"type": "integer"}, minimum=ge, maximum=le, multipleOf=mult)
        if kind == FLOAT:
            _, _, ge, gt, le, lt, mult = node
            out = {"type": "number"}
            for key, value in (
                ("minimum", ge),
                ("exclusiveMinimum", gt),
                ("maximum", le),
                ("exclusiveMaximum", lt),
                ("multipleOf", mult),
            ):
                if value is not None and value == value and value not in (float("inf"), float("-inf")):
                    out[key] = value
            return out
        if kind == STR:
            _, _, min_length, max_length, pattern = node
            return _put(
                {"type": "string"},
                minLength=min_length,
                maxLength=max_length,
                pattern=_pattern_text(pattern),
            )
        if kind in (BYTES, BYTEARRAY):
            _, _, min_length, max_length = node
            return {
                "type": "string",
                "contentEncoding": "base64",
                "pattern": base64_pattern(min_length, max_length),
            }
        if kind in (LIST, VARTUPLE, SET, FROZENSET):
            _, _, item, min_length, max_length = node
            out = {"type": "array"}
            items = self.schema(item)
            if items != {}:
                out["items"] = items
            return _put(out, minItems=min_length, maxItems=max_length)
        if kind == TUPLE:
            items = node[2]
            if not items:
                return {"type": "array", "maxItems": 0}
            return {
                "type": "array",
                "prefixItems": [self.schema(i) for i in items],
                "minItems": len(items),
                "maxItems": len(items),
            }
        if kind == DICT:
            _, _, key, value, min_length, max_length = node
            out = {"type": "object"}
            names = self.key_schema(key)
            if names != {}:
                out["propertyNames"] = names
            values = self.schema(value)
            if values != {}:
                out["additionalProperties"] = values
            return _put(out, minProperties=min_length, maxProperties=max_length)
        if kind == UNION:
            by_kind = node[2]
            members = []
            for k in (*range(1, len(by_kind)), 0):  # null last
                m = by_kind[k]
                if m == -1 or m in members or k in (K_BYTES, K_EXT) and m not in _json_members(by_kind):
                    continue
                members.append(m)
            schemas = []
            for m in members:
                s = self.schema(m)
                if s not in schemas:
                    schemas.append(s)
            return schemas[0] if len(schemas) == 1 else {"anyOf": schemas}
        if kind == CHOICE:
            return self.choice(node)
        if kind == TAGGED:
            return self.tagged(node)
        if kind == DATETIME:
            return {"type": "string", "pattern": DATETIME_PATTERN}
        if kind == DATE:
            return {"type": "string", "pattern": DATE_PATTERN}
        if kind == TIME:
            return {"type": "string", "pattern": TIME_PATTERN}
        if kind == TIMEDELTA:
            return {"type": "string", "pattern": DURATION_PATTERN}
        if kind == UUID:
            return {"type": "string", "pattern": UUID_PATTERN}
        if kind == DECIMAL:
            return {"type": ["number", "string"]}
        if kind == NDARRAY:
            return self.ndarray(node)
        if kind == CUSTOM:
            raise TypeError(
                f"Type `{node[2]!r}` has no JSON Schema: typed decoding hands it to dec_hook, which may accept anything"
            )
        raise TypeError(f"json_schema: unknown node kind {kind}")  # pragma: no cover

    def choice(self, node) -> dict:
        _, _, strs, ints, bools, flag = node
        if flag is not None:
            return _flag_schema(flag)
        values = [*strs, *ints, *bools]
        return {"enum": values}

    def tagged(self, node) -> dict:
        _, _, tag, by_tag, members = node
        schemas = [self.schema(m) for m in members]
        out: dict = {"anyOf": schemas}
        if all(isinstance(value, str) for value in by_tag):
            mapping = {}
            for value, m in by_tag.items():
                ref = self.schema(m).get("$ref")
                if ref is not None:
                    mapping[value] = ref
            out["discriminator"] = {"propertyName": tag, "mapping": mapping}
        # The tag is required of the union even where a member has a default for it.
        for m in members:
            fields = self.nodes[self.c.canonical.get(m, m)][3]
            if any(name == tag and default_kind != 0 for name, _, default_kind, _ in fields):
                out["required"] = [tag]
                break
        return out

    def class_schema(self, node) -> dict:
        cls, fields, kind = node[2], node[3], node[5]
        out: dict = {"title": cls.__name__}
        description = _description(cls)
        if description:
            out["description"] = description
        if kind == 3:  # NamedTuple: an array
            items = []
            for field in fields:
                items.append(self.schema(field[1]))
            required = sum(1 for f in fields if f[2] == 0)
            out["type"] = "array"
            if items:
                out["prefixItems"] = items
            out["minItems"] = required
            out["maxItems"] = len(items)
            return out
        properties = {}
        required = []
        for name, field_node, default_kind, default in fields:
            if default_kind & 4:  # never read from the input
                continue
            s = self.schema(field_node)
            if default_kind == 1:
                value = _encodable(default)
                if value is not _NO_JSON:
                    s = {**s, "default": value}
            properties[name] = s
            if default_kind == 0:
                required.append(name)
        out["type"] = "object"
        out["properties"] = properties
        if required:
            out["required"] = required
        if node[8]:  # forbid_unknown_fields: the decoder refuses other properties
            out["additionalProperties"] = False
        return out

    def key_schema(self, index: int) -> dict:  # noqa: C901 - one branch per kind of key
        """The schema of the JSON object keys a dict with this key node accepts."""
        node = self.nodes[self.c.canonical.get(index, index)]
        kind = node[0]
        if kind == ANY:
            return {}
        if kind == STR:
            return self.inline(node)
        if kind == INT:
            # The constraints are checked on the number (not expressible on its text).
            return {"pattern": INT_KEY_PATTERN}
        if kind == FLOAT:
            return {"pattern": FLOAT_KEY_PATTERN}
        if kind == CHOICE:
            _, _, strs, ints, _, flag = node
            if strs:
                return {"enum": list(strs)}
            if flag is not None:
                return {"pattern": INT_KEY_PATTERN}
            if ints:
                texts = [str(v) for v in ints]
                if 0 in ints:
                    texts.append("-0")
                return {"enum": texts}
            return False
        if kind in (DATETIME, DATE, TIME, UUID, BYTES, BYTEARRAY, DECIMAL):
            s = self.inline(node)
            s.pop("type", None)
            return s if s else {}
        if kind == UNION:
            by_kind = node[2]
            str_member = by_kind[4]
            if str_member != -1:
                return self.key_schema(str_member)
            int_member, float_member = by_kind[2], by_kind[3]
            if float_member != -1:
                return {"pattern": NUMBER_KEY_PATTERN}
            if int_member != -1:
                return self.key_schema(int_member) if self.nodes[int_member][0] != INT else {"pattern": INT_KEY_PATTERN}
            return False
        if kind == CUSTOM:
            self.inline(node)  # raises
        # None, bool, tuples: no JSON text is such a key.
        return False

    def ndarray(self, node) -> dict:
        _, _, dtype, shape = node
        element = _element_schema(dtype)
        if shape is not None:
            # The dimensions are read from the nesting: an empty array above
            # the last level would leave the others unknown, and is refused.
            if 0 in shape[:-1]:
                return {"not": {}}
            out = element
            for depth, length in enumerate(reversed(shape)):
                out = {"type": "array", "items": out}
                if length >= 0:
                    out["minItems"] = length
                    out["maxItems"] = length
                elif depth > 0:
                    out["minItems"] = 1
            return out
        # Any number of dimensions: an element, or an array of such.
        name = "ndarray" if dtype < 0 else f"ndarray_{_typed._NDARRAY_DTYPES[dtype]}"
        key = ("ndarray", dtype)
        if key not in self.names:
            unique = name
            n = 2
            while unique in self.taken:
                unique = f"{name}{n}"
                n += 1
            self.names[key] = unique
            self.taken[unique] = key
            self.defs[unique] = {"anyOf": [element, {"type": "array", "items": self.ref(unique)}]}
        return self.ref(self.names[key])


def _json_members(by_kind):
    return {m for k, m in enumerate(by_kind) if k not in (K_BYTES, K_EXT) and m != -1}


def _put(out: dict, **values) -> dict:
    for key, value in values.items():
        if value is not None:
            out[key] = value
    return out


def _pattern_text(pattern):
    if pattern is None:
        return None
    text = pattern.pattern
    if isinstance(text, bytes):  # pragma: no cover - the compiler takes str patterns
        text = text.decode()
    flags = pattern.flags & ~re.UNICODE
    inline = "".join(letter for flag, letter in ((re.I, "i"), (re.M, "m"), (re.S, "s"), (re.X, "x")) if flags & flag)
    return f"(?{inline}){text}" if inline else text


def _flag_schema(cls) -> dict:
    """The ints a ``Flag`` class accepts (its members' composites)."""
    members = [m.value for m in cls.__members__.values()]
    mask = 0
    for v in members:
        mask |= v
    low, high = -(2**63), 2**63 - 1

    def accepts(v) -> bool:
        try:
            cls(v)
        except ValueError:
            return False
        return True

    if accepts(high) and accepts(low):
        return {"type": "integer", "minimum": low, "maximum": high}
    if mask < 4096:
        window = range(-2 * mask - 2, 2 * mask + 3)
        values = [v for v in window if accepts(v)]
        if values and values == list(range(values[0], values[-1] + 1)):
            return {"type": "integer", "minimum": values[0], "maximum": values[-1]}
        return {"enum": values}
    limit = 2 ** mask.bit_length()
    return {"type": "integer", "minimum": -limit, "maximum": limit - 1}


# -- entry points --------------------------------------------------------------


def _check_template(ref_template) -> str:
    if not isinstance(ref_template, str) or "{name}" not in ref_template:
        raise ValueError(f"ref_template must be a str containing '{{name}}', not {ref_template!r}")
    return ref_template


def components(types, ref_template: str):
    ref_template = _check_template(ref_template)
    compiler = _SchemaCompiler()
    roots = [compiler.node(tp) for tp in types]
    compiler.finish()
    gen = _Generator(compiler, ref_template)
    schemas = tuple(gen.schema(root) for root in roots)
    gen.run_pending()
    return schemas, {name: gen.defs[name] for name in sorted(gen.defs)}


def json_schema(tp, ref_template: str = "#/$defs/{name}") -> dict:
    (schema,), defs = components([tp], ref_template)
    out = {"$schema": DIALECT, **schema}
    if defs:
        out["$defs"] = defs
    return out


def json_schema_components(types, ref_template: str = "#/$defs/{name}"):
    if isinstance(types, (str, bytes)) or not hasattr(types, "__iter__"):
        raise TypeError(f"types must be an iterable of types, not {type(types).__name__}")
    return components(list(types), ref_template)
