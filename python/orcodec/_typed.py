"""The type compiler of typed decoding: turns a Python type into a plain spec.

``loads(data, type=T)``, ``unpackb(data, type=T)``, ``convert(obj, T)`` and
``Decoder(T)`` call :func:`compile_type` once per type (the extension caches
the result). Everything that needs typing introspection happens here, where it
is readable: ``typing.get_type_hints``, dataclass and attrs fields,
``Annotated`` metadata and ``annotated-types`` constraints, ``NewType``,
``Final``, ``TypeAliasType``, generic substitution, recursive types. The
extension turns the spec into its node tree and does all per-value work.

The spec is ``(root, nodes)``: ``nodes`` is a list of tuples ``(KIND, expected,
*payload)`` and children are referred to by their index in ``nodes``, so a
recursive type is a graph. ``expected`` is the name used in messages
(``Expected `int | null`, got `str```). The payload of each kind is documented
beside its constant below and read by ``decode/typed/compile.rs``.

Imported lazily, on the first typed call: importing ``typing`` and
``dataclasses`` at ``import orcodec`` would slow every user's import down.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import re
import sys
import typing
import uuid
from collections import abc

from . import _wire

try:  # Python 3.12+
    from typing import TypeAliasType as _TypeAliasType
except ImportError:  # pragma: no cover - older Pythons
    _TypeAliasType = None

try:
    import typing_extensions as _typing_extensions
except ImportError:  # pragma: no cover - typing_extensions not installed
    _typing_extensions = None

# Node kinds (the payload after KIND and expected):
ANY = 0  # ()
NONE = 1  # ()
BOOL = 2  # ()
INT = 3  # (ge, le, multiple_of): int or None each; gt/lt are folded into ge/le
FLOAT = 4  # (ge, gt, le, lt, multiple_of): float or None each
STR = 5  # (min_length, max_length, pattern): int/int/compiled re or None
BYTES = 6  # (min_length, max_length)
BYTEARRAY = 7  # (min_length, max_length)
LIST = 8  # (item, min_length, max_length)
VARTUPLE = 9  # (item, min_length, max_length)
TUPLE = 10  # (items,): a tuple of node indexes
SET = 11  # (item, min_length, max_length)
FROZENSET = 12  # (item, min_length, max_length)
DICT = 13  # (key, value, min_length, max_length)
UNION = 14  # (by_kind, by_class): by_kind is a tuple of node indexes (-1: none) for
#             null, bool, int, float, str, bytes, array, object, ext; by_class a tuple
#             of (class, node) tried first for Python objects (convert); members: the
#             member nodes (for flattening nested unions)
CHOICE = 15  # (strs, ints, bools, flag): dicts from each accepted str, int and bool value
#              to what it decodes to (an enum member or the Literal value); flag is the
#              Flag class to call for an int not in ints (composite flags), or None
CLASS = 16  # (cls, fields, post_init, kind, init_vars, attr_names, forbid_unknown):
#             fields is a tuple of (name, node, default_kind, default), name the wire
#             name (orcodec.Name, the rename policy), with default_kind 0: required,
#             1: default value, 2: default_factory, 3: optional and left unset when
#             missing, each | 4 when the field is never read from the input (init=False);
#             post_init: whether __post_init__ (__attrs_post_init__) is to be called;
#             kind 0: dataclass, 1: attrs, 2: TypedDict, 3: NamedTuple; init_vars: how
#             many of the last fields are InitVars (given to __post_init__, not stored);
#             attr_names: None when each field's Python name is its wire name, else a
#             tuple of the Python names (attributes, TypedDict keys); forbid_unknown:
#             the class refuses fields it does not have (@orcodec.options)
DATETIME = 17  # ()
DATE = 18  # ()
TIME = 19  # ()
UUID = 20  # ()
DECIMAL = 21  # ()
CUSTOM = 22  # (cls,): decoded as builtins and given to dec_hook(cls, value)
TAGGED = 23  # (tag_name, by_tag, members): by_tag maps each tag value (str or int) to a CLASS node
NDARRAY = 24  # (dtype, shape): dtype the index of the element type in _NDARRAY_DTYPES, or -1
#             (inferred); shape None (any) or a tuple of lengths, -1 for any length
TIMEDELTA = 25  # ()

# Value kinds, the order of UNION's by_kind.
K_NULL, K_BOOL, K_INT, K_FLOAT, K_STR, K_BYTES, K_ARRAY, K_OBJECT, K_EXT = range(9)

_NoneType = type(None)

_SEQUENCES = {
    list: LIST,
    abc.Sequence: LIST,
    abc.MutableSequence: LIST,
    abc.Collection: LIST,
    abc.Iterable: LIST,
    abc.Reversible: LIST,
    set: SET,
    abc.Set: SET,
    abc.MutableSet: SET,
    frozenset: FROZENSET,
}
_MAPPINGS = (dict, abc.Mapping, abc.MutableMapping)

_SCALARS = {
    bool: (BOOL, "bool"),
    datetime.datetime: (DATETIME, "datetime"),
    datetime.date: (DATE, "date"),
    datetime.time: (TIME, "time"),
    datetime.timedelta: (TIMEDELTA, "duration"),
    uuid.UUID: (UUID, "uuid"),
    decimal.Decimal: (DECIMAL, "decimal"),
}


# The element types of numpy array targets, in the extension's order (numpy's
# dtype names).
_NDARRAY_DTYPES = (
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
)


def _ndarray_dtype(np, tp, args) -> int:
    """The element type code of ``numpy.ndarray`` or ``ndarray[shape, dtype[T]]``
    (``NDArray[T]``): -1 when it is left open (inferred from the values)."""
    if len(args) < 2:
        return -1
    dtype_arg = args[1]
    if dtype_arg is typing.Any:
        return -1
    if _origin(dtype_arg) is not np.dtype:
        raise _unsupported(tp, "the dtype of an ndarray must be given as numpy.dtype[...]")
    (scalar,) = typing.get_args(dtype_arg) or (typing.Any,)
    if scalar is typing.Any or isinstance(scalar, typing.TypeVar):
        return -1
    concrete = isinstance(scalar, type) and issubclass(scalar, (np.bool_, np.number)) and scalar not in _abstract(np)
    name = np.dtype(scalar).name if concrete else None
    if name not in _NDARRAY_DTYPES:
        raise _unsupported(
            tp, "ndarray element types are bool, int8 to int64, uint8 to uint64 and float16, float32, float64"
        )
    return _NDARRAY_DTYPES.index(name)


def _ndarray_shape(tp, args):
    """The shape ``ndarray[shape, dtype]`` states: None when it states none
    (``Any``, ``tuple[int, ...]``), else a tuple with each dimension's length
    (``Literal[n]``) or -1 (``int``: any length)."""
    if not args:
        return None
    shape = args[0]
    if shape is typing.Any or isinstance(shape, typing.TypeVar):
        return None
    why = "the shape of an ndarray must be given as tuple[...] of int or Literal[n] entries"
    if _origin(shape) is not tuple:
        raise _unsupported(tp, why)
    entries = typing.get_args(shape)
    if len(entries) == 2 and entries[1] is Ellipsis:
        return None
    if _is_empty_tuple(shape, entries):
        entries = ()
    if len(entries) > 64:
        raise _unsupported(tp, "an ndarray has at most 64 dimensions")
    dims = []
    for entry in entries:
        if entry is int or entry is typing.Any or isinstance(entry, typing.TypeVar):
            dims.append(-1)
        elif (
            _origin(entry) is typing.Literal
            and len(typing.get_args(entry)) == 1
            and type(typing.get_args(entry)[0]) is int
            and typing.get_args(entry)[0] >= 0
        ):
            dims.append(typing.get_args(entry)[0])
        else:
            raise _unsupported(tp, why)
    return tuple(dims)


def _abstract(np):
    return (np.number, np.integer, np.signedinteger, np.unsignedinteger, np.inexact, np.floating, np.complexfloating)


def _unsupported(tp, why=""):
    return TypeError(f"Type `{tp!r}` is not supported{': ' + why if why else ''}")


def _is_typeddict(tp) -> bool:
    if typing.is_typeddict(tp):
        return True
    return _typing_extensions is not None and _typing_extensions.is_typeddict(tp)


def _is_namedtuple(tp) -> bool:
    return isinstance(tp, type) and issubclass(tp, tuple) and hasattr(tp, "_fields")


def _is_attrs(tp) -> bool:
    return isinstance(tp, type) and hasattr(tp, "__attrs_attrs__")


def _origin(tp):
    return typing.get_origin(tp)


def _is_empty_tuple(tp, args) -> bool:
    """Whether the tuple type ``tp`` (with ``args``) is ``tuple[()]``: its
    arguments are ``((),)`` in ``typing.Tuple[()]`` before Python 3.11 and
    none at all from 3.11 (and in ``tuple[()]`` everywhere), which is what
    bare ``tuple`` and ``typing.Tuple`` have too."""
    if args == ((),):
        return True
    return not args and tp is not tuple and tp is not typing.Tuple  # noqa: UP006 - the typing alias itself


def _is_alias_type(tp) -> bool:
    if _TypeAliasType is not None and isinstance(tp, _TypeAliasType):
        return True
    return (
        _typing_extensions is not None
        and hasattr(_typing_extensions, "TypeAliasType")
        and isinstance(tp, _typing_extensions.TypeAliasType)
    )


class _Constraints:
    """Constraints collected from ``Annotated`` metadata (annotated-types and
    the orcodec-independent forms pydantic users write)."""

    __slots__ = ("gt", "ge", "lt", "le", "multiple_of", "min_length", "max_length", "pattern")

    def __init__(self):
        for name in self.__slots__:
            setattr(self, name, None)

    def any(self) -> bool:
        return any(getattr(self, name) is not None for name in self.__slots__)

    def add(self, meta) -> None:
        for name in ("gt", "ge", "lt", "le", "multiple_of", "min_length", "max_length", "pattern"):
            value = getattr(meta, name, None)
            if value is not None:
                setattr(self, name, value)
        # annotated_types.Len / MinLen / MaxLen use these names.
        for source, target in (("min_length", "min_length"), ("max_length", "max_length")):
            value = getattr(meta, source, None)
            if value is not None:
                setattr(self, target, value)
        if isinstance(meta, re.Pattern):
            self.pattern = meta


def _collect_meta(meta, into: _Constraints) -> None:
    """Adds the constraints ``meta`` (one Annotated metadata item) carries;
    other metadata is ignored, as type checkers do."""
    if isinstance(meta, (list, tuple)):
        for item in meta:
            _collect_meta(item, into)
        return
    # annotated_types.GroupedMetadata (Interval, Len) iterate into their parts.
    if type(meta).__module__ == "annotated_types" and hasattr(meta, "__iter__"):
        for item in meta:
            _collect_meta(item, into)
        return
    into.add(meta)


def _int_bound(value, name):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"constraint {name}={value!r} on an int must be a number")
    return value


class _Compiler:
    def __init__(self):
        self.nodes: list = []
        # (id of the type, constraint-free) -> index, for classes, so recursive
        # types become a graph and a class used twice is compiled once.
        self.classes: dict = {}
        # Index -> (class, kind) of the classes being compiled (their node is
        # filled in when their fields are done).
        self.reserved: dict = {}
        # Tagged unions whose members were still being compiled: resolved at the end.
        self.pending_tagged: list = []
        # Class -> how many parametrizations of it were compiled.
        self.parametrized: dict = {}

    def add(self, node) -> int:
        self.nodes.append(node)
        return len(self.nodes) - 1

    def reserve(self) -> int:
        self.nodes.append(None)
        return len(self.nodes) - 1

    # -- entry -----------------------------------------------------------------

    def node(self, tp, typevars=None) -> int:
        constraints = _Constraints()
        tp = self.resolve(tp, constraints, typevars)
        return self.build(tp, constraints, typevars)

    def resolve(self, tp, constraints, typevars):
        """Strips Annotated, NewType, Final, TypeAliasType and TypeVars down to the
        type that decides the node, collecting constraints on the way."""
        for _ in range(100):
            origin = _origin(tp)
            if origin is typing.Annotated:
                for meta in tp.__metadata__:
                    _collect_meta(meta, constraints)
                tp = tp.__origin__
            elif isinstance(tp, typing.NewType) if isinstance(typing.NewType, type) else hasattr(tp, "__supertype__"):
                tp = tp.__supertype__
            elif origin is typing.Final or (
                _typing_extensions is not None and origin is getattr(_typing_extensions, "Final", None)
            ):
                args = typing.get_args(tp)
                tp = args[0] if args else typing.Any
            elif _is_alias_type(tp):
                tp = tp.__value__
            elif origin is not None and _is_alias_type(origin):
                params = getattr(origin, "__type_params__", ())
                mapping = dict(zip(params, typing.get_args(tp)))
                tp = _substitute(origin.__value__, mapping)
            elif isinstance(tp, typing.TypeVar):
                if typevars is not None and tp in typevars and typevars[tp] is not tp:
                    tp = typevars[tp]
                else:
                    tp = _unbound(tp)
            elif isinstance(tp, str):
                raise TypeError(f"Type `{tp!r}` is an unresolved forward reference")
            elif isinstance(tp, typing.ForwardRef):
                raise TypeError(f"Type `{tp!r}` is an unresolved forward reference")
            else:
                return tp
        raise TypeError(f"Type `{tp!r}` nests type aliases too deeply")

    # -- building --------------------------------------------------------------

    def build(self, tp, c: _Constraints, typevars) -> int:
        if tp is typing.Any or tp is object:
            return self.add((ANY, "any"))
        if tp is None or tp is _NoneType:
            return self.add((NONE, "null"))
        if tp is int:
            ge, le = c.ge, c.le
            if c.gt is not None:
                gt = _int_bound(c.gt, "gt")
                ge = gt + 1 if isinstance(gt, int) else int(gt // 1) + 1
            if c.lt is not None:
                lt = _int_bound(c.lt, "lt")
                le = lt - 1 if isinstance(lt, int) else -int(-lt // 1) - 1
            if ge is not None and not isinstance(ge, int):
                ge = -int(-ge // 1)
            if le is not None and not isinstance(le, int):
                le = int(le // 1)
            for name, value in (("ge", ge), ("le", le)):
                if value is not None and not -(2**63) <= value <= 2**63 - 1:
                    raise TypeError(f"constraint {name}={value!r} on an int must fit in 64 bits")
            mult = c.multiple_of
            if mult is not None and (not isinstance(mult, int) or isinstance(mult, bool) or mult <= 0):
                raise TypeError(f"constraint multiple_of={mult!r} on an int must be a positive int")
            return self.add((INT, "int", ge, le, mult))
        if tp is float:
            bounds = [None if v is None else float(v) for v in (c.ge, c.gt, c.le, c.lt, c.multiple_of)]
            return self.add((FLOAT, "float", *bounds))
        if tp is str:
            pattern = c.pattern
            if isinstance(pattern, str):
                pattern = re.compile(pattern)
            return self.add((STR, "str", c.min_length, c.max_length, pattern))
        if tp is bytes or tp is bytearray:
            return self.add((BYTES if tp is bytes else BYTEARRAY, "bytes", c.min_length, c.max_length))
        if tp in _SCALARS:
            kind, name = _SCALARS[tp]
            return self.add((kind, name))
        origin = _origin(tp)
        args = typing.get_args(tp)
        if origin is typing.Union or (sys.version_info >= (3, 10) and isinstance(tp, __import__("types").UnionType)):
            return self.union(tp, args, typevars)
        if origin is typing.Literal:
            return self.literal(tp, args)
        if tp in _SEQUENCES or origin in _SEQUENCES:
            kind = _SEQUENCES[origin if origin is not None else tp]
            item = self.node(args[0], typevars) if args else self.add((ANY, "any"))
            return self.add((kind, "array", item, c.min_length, c.max_length))
        if tp is tuple or origin is tuple:
            if _is_empty_tuple(tp, args):
                return self.add((TUPLE, "array", ()))
            if not args or (len(args) == 2 and args[1] is Ellipsis):
                item = self.node(args[0], typevars) if args else self.add((ANY, "any"))
                return self.add((VARTUPLE, "array", item, c.min_length, c.max_length))
            return self.add((TUPLE, "array", tuple(self.node(a, typevars) for a in args)))
        if tp in _MAPPINGS or origin in _MAPPINGS:
            key = self.node(args[0], typevars) if args else self.add((STR, "str", None, None, None))
            value = self.node(args[1], typevars) if args else self.add((ANY, "any"))
            self.check_key(key, tp)
            return self.add((DICT, "object", key, value, c.min_length, c.max_length))
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            return self.enum(tp)
        # numpy is never imported here: a numpy type exists only once it is.
        np = sys.modules.get("numpy")
        if np is not None and (tp is np.ndarray or origin is np.ndarray):
            return self.add((NDARRAY, "array", _ndarray_dtype(np, tp, args), _ndarray_shape(tp, args)))
        cls = origin if origin is not None else tp
        if isinstance(cls, type):
            # The class's type variables, each bound to its argument (in which
            # the enclosing class's variables are replaced) or, when it has
            # none (`Tree`, not `Tree[int]`), to what an unbound one means.
            params = getattr(cls, "__parameters__", ())
            given = [_bind(a, typevars) for a in args]
            inner = {p: given[i] if i < len(given) else _unbound(p) for i, p in enumerate(params)}
            if dataclasses.is_dataclass(cls):
                return self.cls_node(cls, tp, inner, 0)
            if _is_attrs(cls):
                return self.cls_node(cls, tp, inner, 1)
            if _is_typeddict(cls):
                return self.cls_node(cls, tp, inner, 2)
            if _is_namedtuple(cls):
                return self.cls_node(cls, tp, inner, 3)
            if cls in (list, tuple, dict, set, frozenset):  # pragma: no cover - handled above
                raise _unsupported(tp)
            return self.add((CUSTOM, cls.__name__, cls))
        raise _unsupported(tp)

    def check_key(self, key: int, tp) -> None:
        # A class still being compiled (a recursive reference) is a class.
        kind = CLASS if self.nodes[key] is None else self.nodes[key][0]
        if kind == UNION:
            return
        if kind not in (ANY, STR, INT, FLOAT, BOOL, CHOICE, UUID, DATETIME, DATE, TIME, DECIMAL, BYTES, CUSTOM, NONE):
            if kind in (TUPLE, VARTUPLE, FROZENSET):
                return
            raise TypeError(
                f"Type `{tp!r}` is not supported: dict keys must be str, int, float, enum, Literal, UUID, "
                "datetime, date, time or Decimal"
            )

    # -- enums and literals ----------------------------------------------------

    def enum(self, cls) -> int:
        key = ("enum", cls)
        if key in self.classes:
            return self.classes[key]
        strs, ints = {}, {}
        for member in cls.__members__.values():
            value = member.value
            if isinstance(value, bool) or not isinstance(value, (int, str)):
                raise TypeError(
                    f"Enum `{cls.__qualname__}` is not supported: its values must be str or int (got {value!r})"
                )
            (strs if isinstance(value, str) else ints)[value] = member
        if strs and ints:
            raise TypeError(f"Enum `{cls.__qualname__}` is not supported: its values must be all str or all int")
        flag = cls if issubclass(cls, enum.Flag) else None
        name = "str" if strs else "int"
        index = self.add((CHOICE, name, strs, ints, {}, flag))
        self.classes[key] = index
        return index

    def literal(self, tp, args) -> int:
        strs, ints, bools = {}, {}, {}
        has_none = False
        for arg in _flatten_literal(args):
            if arg is None:
                has_none = True
            elif isinstance(arg, bool):
                bools[arg] = arg
            elif isinstance(arg, int):
                ints[arg] = arg
            elif isinstance(arg, str):
                strs[arg] = arg
            elif isinstance(arg, enum.Enum) and isinstance(arg.value, (int, str)) and not isinstance(arg.value, bool):
                (strs if isinstance(arg.value, str) else ints)[arg.value] = arg
            else:
                raise _unsupported(tp, "Literal values must be str, int, bool, None or enum members")
        if not (strs or ints or bools):
            return self.add((NONE, "null"))
        name = " | ".join(n for n, d in (("bool", bools), ("int", ints), ("str", strs)) if d)
        choice = self.add((CHOICE, name, strs, ints, bools, None))
        if has_none:
            return self.union_from(tp, [choice, self.add((NONE, "null"))])
        return choice

    # -- unions ----------------------------------------------------------------

    def union(self, tp, args, typevars) -> int:
        return self.union_from(tp, [self.node(a, typevars) for a in args])

    def union_from(self, tp, members) -> int:
        # Flatten nested unions.
        flat = []
        for m in members:
            if self.nodes[m] is not None and self.nodes[m][0] == UNION and len(self.nodes[m]) > 4:
                flat.extend(self.nodes[m][4])
            else:
                flat.append(m)
        shown = tp if tp is not None else "the Literal"
        if any(self.nodes[m] is not None and self.nodes[m][0] == ANY for m in flat):
            return self.add((ANY, "any"))
        by_kind = [-1] * 9
        by_class = []
        names = {}
        objects = []

        def put(kind, index, category, name):
            if by_kind[kind] != -1 and by_kind[kind] != index:
                raise TypeError(
                    f"Type unions may not contain more than one {category} type - type `{shown!r}` is not supported"
                )
            by_kind[kind] = index
            names[kind] = name

        for m in flat:
            node = self.nodes[m]
            if node is None:
                # A class still being compiled (a recursive reference): only
                # classes are reserved; a NamedTuple is array-like, the others
                # object-like.
                cls, kind = self.reserved[m]
                if kind == 3:
                    put(K_ARRAY, m, "array-like (list, set, tuple)", "array")
                    by_class.append((cls, m))
                else:
                    objects.append(m)
                continue
            kind = node[0]
            if kind == NONE:
                put(K_NULL, m, "null", "null")
            elif kind == BOOL:
                put(K_BOOL, m, "bool", "bool")
            elif kind == INT:
                put(K_INT, m, "int-like (`int`, `Enum`, `Literal[int values]`)", "int")
            elif kind == FLOAT:
                put(K_FLOAT, m, "float", "float")
            elif kind == CHOICE:
                strs, ints, bools, flag = node[2], node[3], node[4], node[5]
                if strs:
                    put(K_STR, m, _STR_LIKE, "str")
                if ints:
                    put(K_INT, m, "int-like (`int`, `Enum`, `Literal[int values]`)", "int")
                if bools:
                    put(K_BOOL, m, "bool", "bool")
                member = next(iter({**strs, **ints}.values()), None)
                if isinstance(member, enum.Enum):
                    by_class.append((type(member), m))
                elif flag is not None:
                    by_class.append((flag, m))
            elif kind == STR:
                put(K_STR, m, _STR_LIKE, "str")
            elif kind in (DATETIME, DATE, TIME, TIMEDELTA, UUID, DECIMAL):
                put(K_STR, m, _STR_LIKE, node[1])
                cls = {
                    DATETIME: datetime.datetime,
                    DATE: datetime.date,
                    TIME: datetime.time,
                    TIMEDELTA: datetime.timedelta,
                    UUID: uuid.UUID,
                    DECIMAL: decimal.Decimal,
                }[kind]
                by_class.append((cls, m))
                if kind == DATETIME:
                    by_kind[K_EXT] = m
                if kind == UUID and by_kind[K_BYTES] == -1:
                    by_kind[K_BYTES] = m
                if kind == DECIMAL:
                    if by_kind[K_FLOAT] == -1:
                        by_kind[K_FLOAT] = m
            elif kind in (BYTES, BYTEARRAY):
                put(K_STR, m, _STR_LIKE, "bytes")
                by_kind[K_BYTES] = m
            elif kind in (LIST, VARTUPLE, TUPLE, SET, FROZENSET):
                put(K_ARRAY, m, "array-like (list, set, tuple)", "array")
            elif kind == NDARRAY:
                put(K_ARRAY, m, "array-like (list, set, tuple)", "array")
                by_class.append((sys.modules["numpy"].ndarray, m))
                if by_kind[K_EXT] == -1:  # arrays in binary form (OPT_NUMPY_EXT)
                    by_kind[K_EXT] = m
            elif kind == CLASS and node[5] == 3:
                put(K_ARRAY, m, "array-like (list, set, tuple)", "array")
                by_class.append((node[2], m))
            elif kind == DICT:
                put(K_OBJECT, m, "dict-like (`dict`, `TypedDict`, `dataclass`)", "object")
            elif kind == CLASS:
                objects.append(m)
            elif kind == TAGGED:
                objects.extend(node[4])
            elif kind == CUSTOM:
                raise TypeError(f"Type `{shown!r}` is not supported: custom types cannot be part of a union")
            elif kind == UNION:  # pragma: no cover - flattened above
                raise _unsupported(tp)
            else:  # pragma: no cover
                raise _unsupported(tp)
        if objects:
            if by_kind[K_OBJECT] != -1:
                raise TypeError(
                    "Type unions may not contain more than one dict-like (`dict`, `TypedDict`, `dataclass`) "
                    f"type - type `{shown!r}` is not supported"
                )
            if len(objects) == 1:
                target = objects[0]
            elif any(self.nodes[m] is None for m in objects):
                # A member is still being compiled (a recursive type): the tag
                # is found once every class is done.
                target = self.reserve()
                self.pending_tagged.append((target, shown, objects))
            else:
                target = self.tagged(shown, objects)
            by_kind[K_OBJECT] = target
            names[K_OBJECT] = "object"
            for m in objects:
                cls, kind = self.reserved[m] if self.nodes[m] is None else (self.nodes[m][2], self.nodes[m][5])
                if kind != 2:
                    by_class.append((cls, m))
        # The int node takes floats too when there is no float member (and
        # the float member takes ints when there is no int member).
        order = [K_BOOL, K_INT, K_FLOAT, K_STR, K_OBJECT, K_ARRAY, K_NULL]
        expected = " | ".join(names[k] for k in order if k in names)
        return self.add((UNION, expected, tuple(by_kind), tuple(by_class), tuple(flat)))

    def tagged(self, shown, objects, index=None) -> int:
        """A union of classes told apart by a Literal field they all have (at
        ``index`` when it was reserved)."""
        candidates = None
        for m in objects:
            node = self.nodes[m]
            names = set()
            for name, field_node, _, _ in node[3]:
                fn = self.nodes[field_node]
                if fn is not None and fn[0] == CHOICE and fn[5] is None and not fn[4]:
                    names.add(name)
            candidates = names if candidates is None else candidates & names
        chosen = None
        for name in sorted(candidates or ()):
            seen = {}
            ok = True
            for m in objects:
                node = self.nodes[m]
                field_node = next(f[1] for f in node[3] if f[0] == name)
                choice = self.nodes[field_node]
                for value in [*choice[2], *choice[3]]:
                    if value in seen:
                        ok = False
                    seen[value] = m
            if ok:
                chosen = (name, seen)
                break
        if chosen is None:
            raise TypeError(
                "Type unions may not contain more than one dataclass, attrs or TypedDict type unless they all "
                f"have a Literal field with distinct values (a tag) - type `{shown!r}` is not supported"
            )
        name, by_tag = chosen
        node = (TAGGED, "object", name, by_tag, tuple(objects))
        if index is None:
            return self.add(node)
        self.nodes[index] = node
        return index

    def finish(self) -> None:
        for index, shown, objects in self.pending_tagged:
            self.tagged(shown, objects, index)

    # -- classes ---------------------------------------------------------------

    def cls_node(self, cls, tp, typevars, kind) -> int:
        bound = tuple(sorted((id(k), _key(v)) for k, v in typevars.items())) if typevars else ()
        key = ("cls", cls, bound)
        if key in self.classes:
            return self.classes[key]
        # A recursive generic whose arguments grow at each level
        # (`Grow[T]` holding a `Grow[list[T]]`) would never close.
        seen = self.parametrized.get(cls, 0) + 1
        self.parametrized[cls] = seen
        if seen > _MAX_PARAMETRIZED:
            raise TypeError(
                f"Type `{tp!r}` is not supported: the class is used with more than {_MAX_PARAMETRIZED} "
                "different type arguments (its arguments grow at each level of recursion)"
            )
        index = self.reserve()
        self.classes[key] = index
        self.reserved[index] = (cls, kind)
        post_init = None
        init_vars = 0
        if kind == 0:
            fields, init_vars = self.dataclass_fields(cls, typevars)
            post_init = getattr(cls, "__post_init__", None) is not None
        elif kind == 1:
            fields = self.attrs_fields(cls, typevars)
            post_init = getattr(cls, "__attrs_post_init__", None) is not None
        elif kind == 2:
            fields = self.typeddict_fields(cls, typevars)
        else:
            fields = self.namedtuple_fields(cls, typevars)
        attr_names, forbid = None, False
        if kind != 3:  # a NamedTuple is an array: no names on the wire
            fields, attr_names, forbid = self.wire(cls, kind, fields)
        self.nodes[index] = (
            CLASS,
            "object" if kind != 3 else "array",
            cls,
            tuple(fields),
            bool(post_init),
            kind,
            init_vars,
            attr_names,
            forbid,
        )
        return index

    def wire(self, cls, kind, fields):
        """``fields`` under their wire names, the Python names where they
        differ (else None), and whether unknown fields are refused."""
        opts = _wire.class_options(cls)
        if kind == 1:
            import attrs

            annotations = {a.name: a.type for a in attrs.fields(cls)}
        else:
            annotations = self.hints(cls, None)
        pairs = [(f[0], _required_stripped(annotations.get(f[0]))) for f in fields]
        if not opts and all(_wire.name_in(a) is None for _, a in pairs):
            return fields, None, False
        wire = _wire.wire_names(cls, pairs, opts.get("rename"))
        renamed = [(w, *f[1:]) for w, f in zip(wire, fields)]
        attr_names = tuple(f[0] for f in fields) if wire != [f[0] for f in fields] else None
        return renamed, attr_names, bool(opts.get("forbid_unknown_fields"))

    def hints(self, cls, typevars):
        try:
            hints = typing.get_type_hints(cls, include_extras=True)
        except NameError as exc:
            raise TypeError(
                f"Type `{cls!r}` is not supported: {exc} (a forward reference that cannot be resolved)"
            ) from None
        return hints

    def dataclass_fields(self, cls, typevars):
        hints = self.hints(cls, typevars)
        # Type variables of generic base classes: Page[T] subclassed as ItemPage(Page[Item]).
        mapping = dict(typevars)
        for base in getattr(cls, "__orig_bases__", ()):
            origin = _origin(base)
            if origin is not None and hasattr(origin, "__parameters__"):
                for param, arg in zip(origin.__parameters__, typing.get_args(base)):
                    mapping.setdefault(param, _bind(arg, typevars))
        out = []
        init_vars = []
        for f in cls.__dataclass_fields__.values():
            ftype = f._field_type
            if ftype is dataclasses._FIELD_CLASSVAR:
                continue
            hint = hints.get(f.name, f.type)
            if ftype is dataclasses._FIELD_INITVAR:
                if isinstance(hint, dataclasses.InitVar):
                    hint = hint.type
                init_vars.append(f)
                continue
            node = self.node(hint, mapping)
            if not f.init:
                if f.default is not dataclasses.MISSING:
                    out.append((f.name, node, 1 | 4, f.default))
                elif f.default_factory is not dataclasses.MISSING:
                    out.append((f.name, node, 2 | 4, f.default_factory))
                else:
                    out.append((f.name, node, 7, None))
                continue
            if f.default is not dataclasses.MISSING:
                out.append((f.name, node, 1, f.default))
            elif f.default_factory is not dataclasses.MISSING:
                out.append((f.name, node, 2, f.default_factory))
            else:
                out.append((f.name, node, 0, None))
        for f in init_vars:
            hint = hints.get(f.name, f.type)
            if isinstance(hint, dataclasses.InitVar):
                hint = hint.type
            node = self.node(hint, mapping)
            if f.default is not dataclasses.MISSING:
                out.append((f.name, node, 1, f.default))
            else:
                out.append((f.name, node, 0, None))
        return out, len(init_vars)

    def attrs_fields(self, cls, typevars):
        import attrs

        attrs.resolve_types(cls)
        out = []
        for a in attrs.fields(cls):
            node = self.node(a.type if a.type is not None else typing.Any, typevars)
            if a.default is attrs.NOTHING:
                kind, default = 0, None
            elif isinstance(a.default, attrs.Factory):
                if a.default.takes_self:
                    raise TypeError(f"Type `{cls!r}` is not supported: Factory(takes_self=True) for field {a.name!r}")
                kind, default = 2, a.default.factory
            else:
                kind, default = 1, a.default
            if not a.init:
                kind = kind | 4 if kind else 7
            out.append((a.name, node, kind, default))
        return out

    def typeddict_fields(self, cls, typevars):
        hints = self.hints(cls, typevars)
        required = set(getattr(cls, "__required_keys__", hints))
        out = []
        for name, hint in hints.items():
            # Required[...] / NotRequired[...] (/ ReadOnly[...]) as written: with
            # postponed annotations the class could not see them when it was made.
            origin = _origin(hint)
            while origin is not None and getattr(origin, "_name", None) in ("Required", "NotRequired", "ReadOnly"):
                if origin._name == "Required":
                    required.add(name)
                elif origin._name == "NotRequired":
                    required.discard(name)
                hint = typing.get_args(hint)[0]
                origin = _origin(hint)
            node = self.node(hint, typevars)
            out.append((name, node, 0 if name in required else 3, None))
        return out

    def namedtuple_fields(self, cls, typevars):
        hints = getattr(cls, "__annotations__", {})
        try:
            hints = typing.get_type_hints(cls, include_extras=True)
        except NameError:
            pass
        defaults = getattr(cls, "_field_defaults", {})
        out = []
        for name in cls._fields:
            node = self.node(hints.get(name, typing.Any), typevars)
            if name in defaults:
                out.append((name, node, 1, defaults[name]))
            else:
                out.append((name, node, 0, None))
        return out


def _required_stripped(hint):
    """``hint`` without the ``Required``/``NotRequired``/``ReadOnly`` of a
    TypedDict key around it (an ``Annotated`` may be inside them)."""
    origin = _origin(hint)
    while origin is not None and getattr(origin, "_name", None) in ("Required", "NotRequired", "ReadOnly"):
        hint = typing.get_args(hint)[0]
        origin = _origin(hint)
    return hint


_STR_LIKE = (
    "str-like (`str`, `Enum`, `Literal[str values]`, `datetime`, `date`, `time`, `uuid`, `decimal`, "
    "`bytes`, `bytearray`)"
)


def _literal_kind(value):
    if isinstance(value, bool):
        return bool
    if isinstance(value, enum.Enum):
        return str if isinstance(value.value, str) else int
    return type(value)


def _flatten_literal(args):
    for arg in args:
        if _origin(arg) is typing.Literal:
            yield from _flatten_literal(typing.get_args(arg))
        else:
            yield arg


# Parametrizations of one generic class a type may use.
_MAX_PARAMETRIZED = 64


def _unbound(tv):
    """What a type variable bound to nothing means: its bound, the union of
    its constraints, or ``Any`` (as msgspec reads it)."""
    if tv.__bound__ is not None:
        return tv.__bound__
    if tv.__constraints__:
        return typing.Union[tv.__constraints__]
    return typing.Any


def _bind(arg, typevars):
    """``arg`` (a type argument) with the type variables in it replaced by
    what ``typevars`` binds them to, or by their unbound meaning: no free
    variable is left to be confused with a same-named one of another class."""
    if isinstance(arg, typing.TypeVar):
        bound = typevars.get(arg, arg) if typevars else arg
        return bound if bound is not arg else _unbound(arg)
    params = getattr(arg, "__parameters__", ())
    if not params or not typing.get_args(arg):
        return arg
    try:
        return arg[tuple(_bind(p, typevars) if isinstance(p, typing.TypeVar) else p for p in params)]
    except TypeError:  # a ParamSpec or TypeVarTuple: left as it is
        return arg


def _key(value):
    """``value`` as part of a cache key: itself when hashable, else its id."""
    try:
        hash(value)
    except TypeError:
        return ("id", id(value))
    return value


def _substitute(tp, mapping):
    if isinstance(tp, typing.TypeVar):
        return mapping.get(tp, tp)
    args = typing.get_args(tp)
    if not args or not hasattr(tp, "__getitem__") and not hasattr(tp, "copy_with"):
        return tp
    params = getattr(tp, "__parameters__", ())
    if params:
        try:
            return tp[tuple(mapping.get(p, p) for p in params)]
        except TypeError:
            return tp
    return tp


def compile_type(tp):
    """The spec of ``tp``: ``(root, nodes)`` (see the module docstring)."""
    compiler = _Compiler()
    root = compiler.node(tp)
    compiler.finish()
    return root, compiler.nodes
