"""Wire names and defaults: ``orcodec.Name``, ``@orcodec.options`` and the
per-class policy the encoders, the type compiler and the schema share.

A class's policy is worked out once where its field table is built: by the
encoder's dataclass cache (:func:`encode_plan`, called by
``encode/types/dataclass.rs``) and by the type compiler (``_typed.py``, whose
compiled form the extension caches). Neither asks again per instance.

Imported by ``import orcodec``: it imports nothing beyond ``sys`` at module
level (``typing`` only when a field's annotation is a string that may hold a
``Name``).
"""

from __future__ import annotations

import sys

# The attribute ``@options`` stores in the class's own ``__dict__``: only the
# options given there, so a subclass's decorator adds to its bases' policy.
_OWN = "__orcodec_options__"

_OPTION_NAMES = ("rename", "omit_defaults", "omit_none", "forbid_unknown_fields")


class Name:
    """The name a field has on the wire: ``Annotated[int, orcodec.Name("orderId")]``.

    It wins over the class's ``rename`` policy; encoding writes it, typed
    decoding and ``convert`` read it (and only it), ``json_schema`` lists it.
    """

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        if not isinstance(name, str):
            raise TypeError(f"orcodec.Name() takes a str, not {type(name).__name__}")
        self.name = str.__getitem__(name, slice(None))  # an exact str, also from a subclass

    def __repr__(self) -> str:
        return f"orcodec.Name({self.name!r})"

    def __eq__(self, other: object) -> bool:
        return type(other) is Name and other.name == self.name

    def __hash__(self) -> int:
        return hash((Name, self.name))


def _split(name: str):
    """The leading underscores of ``name`` and the words after them."""
    body = name.lstrip("_")
    return name[: len(name) - len(body)], [part for part in body.split("_") if part]


# As msgspec renames: the words after the first (pascal: every word)
# capitalized, the rest of each word in lower case ("HTTP_code" is
# "HTTPCode" in camel, "HttpCode" in pascal).
def _camel(name: str) -> str:
    prefix, words = _split(name)
    if not words:
        return name
    return prefix + words[0] + "".join(w.capitalize() for w in words[1:])


def _pascal(name: str) -> str:
    prefix, words = _split(name)
    if not words:
        return name
    return prefix + "".join(w.capitalize() for w in words)


def _kebab(name: str) -> str:
    return name.strip("_").replace("_", "-") or name


def _screaming_snake(name: str) -> str:
    return name.upper()


_POLICIES = {"camel": _camel, "pascal": _pascal, "kebab": _kebab, "screaming_snake": _screaming_snake}


def options(
    *,
    rename=None,
    omit_defaults: bool | None = None,
    omit_none: bool | None = None,
    forbid_unknown_fields: bool | None = None,
):
    """A class decorator setting the wire policy of a dataclass, attrs class or TypedDict.

    rename: "camel", "pascal", "kebab", "screaming_snake", or a callable from
        the Python name to the wire name (called once per field, when the
        class is first used); an ``orcodec.Name`` on a field wins over it.
    omit_defaults: dumps and packb leave out fields equal to their default.
    omit_none: dumps and packb leave out fields that are None.
    forbid_unknown_fields: typed decoding refuses fields the class does not have.

    An option left out (None) is inherited from the nearest base class that
    sets it. NamedTuples are arrays on the wire and take no options.
    """
    if rename is not None and not callable(rename) and rename not in _POLICIES:
        raise ValueError(
            f"rename must be one of {', '.join(repr(p) for p in _POLICIES)}, a callable or None, not {rename!r}"
        )
    given = {"rename": rename, "omit_defaults": omit_defaults, "omit_none": omit_none}
    given["forbid_unknown_fields"] = forbid_unknown_fields
    for key in ("omit_defaults", "omit_none", "forbid_unknown_fields"):
        if given[key] is not None and not isinstance(given[key], bool):
            raise TypeError(f"{key} must be a bool or None, not {type(given[key]).__name__}")
    own = {key: value for key, value in given.items() if value is not None}

    def decorate(cls):
        if not isinstance(cls, type):
            raise TypeError(f"orcodec.options() decorates a class, not {cls!r}")
        if issubclass(cls, tuple) and hasattr(cls, "_fields"):
            raise TypeError(
                f"orcodec.options() does not apply to the NamedTuple `{cls.__qualname__}`: "
                "a NamedTuple is an array on the wire, with no field names to rename or leave out"
            )
        type.__setattr__(cls, _OWN, own)
        return cls

    return decorate


def _bases(cls):
    """``cls`` and the classes it inherits its policy from, the nearest first.
    A TypedDict's bases are not in its ``__mro__`` (it is a dict): they are
    read from ``__orig_bases__``."""
    mro = getattr(cls, "__mro__", (cls,))
    if len(mro) > 1 and mro[1] is dict and hasattr(cls, "__required_keys__"):
        out, todo = [], [cls]
        while todo:
            klass = todo.pop(0)
            if klass not in out:
                out.append(klass)
                todo.extend(b for b in getattr(klass, "__orig_bases__", ()) if hasattr(b, "__required_keys__"))
        return out
    return mro


def class_options(cls) -> dict:
    """The options of ``cls``: each one from the nearest class that sets it."""
    merged: dict = {}
    for klass in _bases(cls):
        own = getattr(klass, "__dict__", {}).get(_OWN)
        if own:
            for key, value in own.items():
                merged.setdefault(key, value)
    return merged


def name_in(annotation):
    """The ``Name`` in ``annotation``'s top-level ``Annotated`` metadata, or None."""
    for meta in getattr(annotation, "__metadata__", ()):
        if type(meta) is Name:
            return meta.name
    return None


def _may_name(annotation) -> bool:
    if isinstance(annotation, str):
        return "Name(" in annotation
    return name_in(annotation) is not None


def wire_names(cls, fields, policy=None) -> list:
    """The wire names of ``fields`` (pairs of Python name and annotation) of
    ``cls``: a field's ``Name``, else the ``rename`` policy's name, else the
    Python name. A name two fields share, or a policy that raises or gives
    no str, is a TypeError."""
    if policy is None:
        policy = class_options(cls).get("rename")
    rename = _POLICIES.get(policy, policy) if isinstance(policy, str) else policy
    out = []
    by_wire: dict = {}
    for py_name, annotation in fields:
        wire = name_in(annotation)
        if wire is None and rename is not None:
            try:
                wire = rename(py_name)
            except Exception as exc:
                raise TypeError(
                    f"Type `{cls.__qualname__}` is not supported: its rename policy raised "
                    f"{type(exc).__name__} for field `{py_name}`: {exc}"
                ) from exc
            if not isinstance(wire, str):
                raise TypeError(
                    f"Type `{cls.__qualname__}` is not supported: its rename policy gave "
                    f"`{type(wire).__name__}` for field `{py_name}`, not a str"
                )
        if wire is None:
            wire = py_name
        elif type(wire) is not str:  # a str subclass: its text, as an exact str
            wire = str.__getitem__(wire, slice(None))
        other = by_wire.get(wire)
        if other is not None:
            raise TypeError(
                f"Type `{cls.__qualname__}` is not supported: fields `{other}` and `{py_name}` "
                f"both have the wire name `{wire}`"
            )
        by_wire[wire] = py_name
        out.append(wire)
    return out


def _dataclass_annotations(cls, names):
    """The annotations of dataclass fields ``names``; string annotations that
    may hold a ``Name`` are evaluated (with ``typing.get_type_hints``)."""
    fields = cls.__dataclass_fields__
    annotations = [fields[name].type for name in names]
    if any(isinstance(a, str) and _may_name(a) for a in annotations):
        import typing

        try:
            hints = typing.get_type_hints(cls, include_extras=True)
        except Exception as exc:
            raise TypeError(
                f"Type `{cls.__qualname__}` is not supported: its annotations, which may name fields with "
                f"orcodec.Name, cannot be evaluated ({type(exc).__name__}: {exc})"
            ) from None
        annotations = [hints.get(name, a) for name, a in zip(names, annotations)]
    return annotations


def encode_plan(cls, names):
    """How the encoders write dataclass ``cls``, whose serialized fields are
    ``names`` (a tuple of str): None when it has no wire metadata (it is
    written as before), else ``(wire_names, omit_defaults, omit_none)``."""
    opts = class_options(cls)
    fields = cls.__dataclass_fields__
    if not opts and not any(_may_name(fields[name].type) for name in names):
        return None
    annotations = _dataclass_annotations(cls, names)
    wire = wire_names(cls, list(zip(names, annotations)), opts.get("rename"))
    return tuple(wire), bool(opts.get("omit_defaults")), bool(opts.get("omit_none"))


# What field_defaults gives for a field: no default, a value, a factory.
NO_DEFAULT, VALUE, FACTORY = 0, 1, 2


def field_defaults(cls, names):
    """The defaults of dataclass ``cls``'s fields ``names``, for leaving them
    out: ``(kind, value)`` each, ``kind`` one of NO_DEFAULT, VALUE, FACTORY."""
    missing = sys.modules["dataclasses"].MISSING
    out = []
    for name in names:
        f = cls.__dataclass_fields__[name]
        if f.default is not missing:
            out.append((VALUE, f.default))
        elif f.default_factory is not missing:
            out.append((FACTORY, f.default_factory))
        else:
            out.append((NO_DEFAULT, None))
    return tuple(out)
