"""The walker under a `default` hook that changes what is being walked, and
OPT_PASSTHROUGH_SUBCLASS, in both formats."""

import dataclasses
import datetime as dt
import gc

import orcodec
import pytest
from helpers import MyDict, MyFloat, MyInt, MyList, MyStr, Unsupported


def test_list_shrunk_by_default_is_an_error(fmt):
    encode, error = fmt.encode, fmt.encode_error
    items = [Unsupported(), 1, 2, 3]

    def default(obj):
        items.clear()
        return None

    with pytest.raises(error, match="list changed size during serialization"):
        encode(items, default=default)


def test_list_grown_by_default_is_an_error(fmt):
    encode, error = fmt.encode, fmt.encode_error
    items = [Unsupported(), 1]

    def default(obj):
        items.extend(range(100))
        return None

    with pytest.raises(error, match="list changed size during serialization"):
        encode(items, default=default)


def test_dict_changed_by_default_is_an_error(fmt):
    encode, error = fmt.encode, fmt.encode_error
    mapping = {"a": Unsupported(), "b": 1}

    def default(obj):
        mapping["c"] = 2
        mapping["d"] = 3
        return None

    with pytest.raises(error, match="dict changed size during serialization"):
        encode(mapping, default=default)


def test_default_dropping_the_container_being_walked(fmt):
    encode, error = fmt.encode, fmt.encode_error
    # The inner list's only reference is the outer list; default clears the
    # outer list while the inner one is still being walked. The walker holds
    # its own reference, so this is a size error and not a use-after-free.
    outer = [[Unsupported(), "x" * 100, {"k": [1, 2, 3]}], 5]

    def default(obj):
        outer.clear()
        return "replaced"

    with pytest.raises(error, match="list changed size during serialization"):
        encode(outer, default=default)


def test_default_mutating_an_unrelated_list_is_fine(fmt):
    encode = fmt.encode
    log = []

    def default(obj):
        log.append(obj)
        return len(log)

    out = encode([Unsupported(), Unsupported()], default=default)
    assert out == encode([1, 2])


def test_subclasses_serialize_as_their_base(fmt):
    encode = fmt.encode
    doc = [MyStr("é"), MyInt(5), MyFloat(1.5), MyDict(a=MyList([1])), MyList([MyStr("x")])]
    assert encode(doc) == encode(["é", 5, 1.5, {"a": [1]}, ["x"]])


@pytest.mark.parametrize(
    "value, name",
    [(MyStr("a"), "MyStr"), (MyInt(1), "MyInt"), (MyFloat(1.0), "MyFloat"), (MyDict(), "MyDict"), (MyList(), "MyList")],
)
def test_passthrough_subclass_sends_them_to_default(fmt, value, name):
    encode, error = fmt.encode, fmt.encode_error
    option = orcodec.OPT_PASSTHROUGH_SUBCLASS
    with pytest.raises(error, match=f"serializable: {name}$"):
        encode(value, option=option)
    seen = []

    def default(obj):
        seen.append(type(obj))
        return "d"

    assert encode([value, "plain", 1], default=default, option=option) == encode(["d", "plain", 1])
    assert seen == [type(value)]


def test_passthrough_subclass_leaves_exact_types_alone():
    doc = {"a": [1, 2.5, "x", None, True]}
    option = orcodec.OPT_PASSTHROUGH_SUBCLASS
    assert orcodec.dumps(doc, option=option) == orcodec.dumps(doc)
    assert orcodec.packb(doc, option=option) == orcodec.packb(doc)


# Python code that runs during a walk without any `default`: a tzinfo's
# utcoffset(), a dataclass field's property. It may drop the last reference to
# the containers being walked; the walker holds what it walks, so the result is
# a clean error (or output), never a use-after-free. Run under `python -X dev`
# the freed memory is poisoned, so a regression crashes these tests.


def _tz_that_runs(action):
    class Meddling(dt.tzinfo):
        def utcoffset(self, d):
            action()
            gc.collect()
            return dt.timedelta(hours=1)

    return Meddling()


def test_utcoffset_emptying_the_outer_list(fmt):
    encode, error = fmt.encode, fmt.encode_error
    outer = []
    tz = _tz_that_runs(outer.clear)
    outer.extend([{"at": dt.datetime(2020, 1, 1, tzinfo=tz), "items": [str(i) * 20 for i in range(200)]}] * 2)
    with pytest.raises(error, match="list changed size during serialization"):
        encode(outer)


def test_utcoffset_of_a_key_emptying_the_dict(fmt):
    encode, error = fmt.encode, fmt.encode_error
    doc = {}
    tz = _tz_that_runs(doc.clear)
    doc[dt.datetime(2020, 1, 1, tzinfo=tz)] = [str(i) * 20 for i in range(200)]
    doc["other"] = [1, 2, 3]
    with pytest.raises(error, match="dict changed size during serialization"):
        encode(doc, option=orcodec.OPT_NON_STR_KEYS)


def test_dataclass_property_dropping_the_instance(fmt):
    encode, error = fmt.encode, fmt.encode_error
    holder = []

    @dataclasses.dataclass
    class Record:
        a: list
        b: list

    class Meddling(Record):
        @property
        def b(self):
            holder.clear()
            gc.collect()
            return [str(i) * 20 for i in range(50)]

        @b.setter
        def b(self, value):
            pass

    holder.append(Meddling([1], None))
    # The instance lives on while its fields are read; the list it sat in shrank.
    with pytest.raises(error, match="list changed size during serialization"):
        encode(holder)


def test_the_meddling_cases_under_python_dev_mode():
    # In-process, freed memory may still look valid; `-X dev` poisons it, so
    # a walker that lost its hold would crash this child process.
    import subprocess
    import sys
    from pathlib import Path

    here = Path(__file__).resolve()
    result = subprocess.run(
        [
            sys.executable,
            "-X",
            "dev",
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            str(here),
            "-k",
            "utcoffset or property",
        ],
        capture_output=True,
        text=True,
        cwd=here.parent,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert "6 passed" in result.stdout
