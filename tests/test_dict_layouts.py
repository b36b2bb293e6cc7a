"""Dicts of every internal layout encode like orjson/msgpack: the walker reads
CPython 3.11's combined tables in place, and falls back to PyDict_Next for
the rest (split instance dicts, other versions)."""

import json

import msgpack
import orcodec
import orjson
import pytest


def both(d):
    assert orcodec.dumps(d) == orjson.dumps(d)
    assert orcodec.packb(d) == msgpack.packb(d)


def test_deleted_entries_are_skipped():
    d = {f"k{i}": i for i in range(100)}
    for i in range(0, 100, 3):
        del d[f"k{i}"]
    both(d)
    for key in list(d):
        del d[key]
    both(d)


def test_deleted_at_the_start_and_end():
    d = {"a": 1, "b": 2, "c": 3}
    del d["a"], d["c"]
    both(d)


def test_general_table_with_only_str_keys_left():
    # A non-str key made the table general (entries carry hashes); it stays
    # general after that key is removed.
    d = {1: 0, "a": 1, "b": [1.5, None]}
    del d[1]
    both(d)


def test_split_instance_dicts():
    class Point:
        def __init__(self, i):
            self.x = i
            self.y = str(i)
            self.label = "p"

    points = [Point(i) for i in range(5)]
    for p in points:
        both(vars(p))
    del points[0].y
    both(vars(points[0]))


def test_subclass_and_resized_while_built():
    class D(dict):
        pass

    d = D()
    for i in range(1000):
        d[str(i)] = i
    both(d)
    assert json.loads(orcodec.dumps(d)) == d


def test_dict_grown_by_default_is_an_error_not_a_crash(fmt):
    fn, error = fmt.encode, fmt.encode_error
    d = {"a": object(), "b": 1}

    def default(obj):
        for i in range(100):  # forces a resize: the walker must re-read the table
            d[f"new{i}"] = i
        return None

    with pytest.raises(error, match="dict changed size during serialization"):
        fn(d, default=default)


def test_dict_emptied_by_default_is_an_error_not_a_crash(fmt):
    fn, error = fmt.encode, fmt.encode_error
    d = {"a": object(), "b": "x" * 100, "c": 1}

    def default(obj):
        d.clear()
        return None

    with pytest.raises(error, match="dict changed size during serialization"):
        fn(d, default=default)
