"""Leaks in orcodec.json: each path of its encoder and decoder (the Rust ones and the
hand-over to the standard library's decoder) called CALLS times, on success and on
every error. Afterwards the objects it touched have their reference counts back, and
CPython's allocated-block count and the resident set have not grown (see
test_leaks.py for the method)."""

import orcodec.json as oj
import pytest
from helpers import assert_no_leak

CALLS = 20_000
WARMUP = 1_000
MAX_BLOCK_GROWTH = 100
MAX_RSS_GROWTH = 1 << 20


class HookError(Exception):
    pass


def raising(o):
    raise HookError("from the hook")


class Opaque:
    pass


OPAQUE = Opaque()
DOC = {
    "s": "text \u00e9\u3042\U0001f600 \ud800",
    "n": [1, -2, 2**70, 2.5, float("nan"), True, None],
    "d": {1: "int key", 2.5: "float key", None: "none key", "t": (1, 2)},
}
SELF = []
SELF.append(SELF)
TEXT = oj.dumps(DOC, ensure_ascii=False)
PLAIN_TEXT = '{"a": [1, 2.5, "x", {"b": null}], "c": "\\u00e9"}'
BAD_TEXTS = ['{"a": [1, 2', "[1,]", '"\\x"', "\ufeff[]"]


def every_bad_text():
    for text in BAD_TEXTS:
        try:
            oj.loads(text)
        except oj.JSONDecodeError:
            continue
        raise AssertionError(f"{text!r} decoded")


CASES = {
    "dumps-default": (lambda: oj.dumps(DOC), None),
    "dumps-options": (lambda: oj.dumps(DOC, ensure_ascii=False, indent="\t", separators=(";", "=")), None),
    "dumps-default-hook": (lambda: oj.dumps([OPAQUE, DOC], default=repr), None),
    "dumps-encoder-class": (lambda: oj.JSONEncoder(indent=2).encode([DOC]), None),
    "dumps-unsupported": (lambda: oj.dumps([OPAQUE]), TypeError),
    "dumps-bad-key": (lambda: oj.dumps({(1,): OPAQUE}), TypeError),
    "dumps-sort-mixed": (lambda: oj.dumps({1: 1, "a": 2}, sort_keys=True), TypeError),
    "dumps-circular": (lambda: oj.dumps(SELF), ValueError),
    "dumps-nan-refused": (lambda: oj.dumps(DOC, allow_nan=False, indent=1), ValueError),
    "dumps-hook-raises": (lambda: oj.dumps({"k": [OPAQUE]}, default=raising), HookError),
    "loads-core": (lambda: oj.loads(PLAIN_TEXT), None),
    "loads-handed-over": (lambda: oj.loads(TEXT), None),
    "loads-hooks": (lambda: oj.loads(PLAIN_TEXT, object_pairs_hook=list, parse_float=str), None),
    "loads-errors": (every_bad_text, None),
}


def tracked():
    return [DOC, *DOC.values(), OPAQUE, SELF, TEXT, PLAIN_TEXT, *BAD_TEXTS, raising, repr, HookError]


@pytest.mark.parametrize("name", sorted(CASES))
def test_no_leak(name):
    call, expected = CASES[name]

    assert_no_leak(
        name, call, expected, tracked, calls=CALLS, warmup=WARMUP, max_blocks=MAX_BLOCK_GROWTH, max_rss=MAX_RSS_GROWTH
    )
