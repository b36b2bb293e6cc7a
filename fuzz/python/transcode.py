"""atheris: arbitrary bytes into json_to_msgpack and msgpack_to_json, which
must return the two-step's bytes (packb(loads(x)), dumps(unpackb(x))) or
raise what it raises: the same exception class and message (and for JSON
the same position)."""

import sys

import atheris

with atheris.instrument_imports():
    import oracle
    import orcodec

OPTIONS = [
    0,
    orcodec.OPT_NON_STR_KEYS,
    orcodec.OPT_SORT_KEYS | orcodec.OPT_INDENT_2,
    orcodec.OPT_DATETIME_AS_TIMESTAMP_EXT | orcodec.OPT_UTC_Z,
    orcodec.OPT_STRICT_INTEGER | orcodec.OPT_NON_STR_KEYS | orcodec.OPT_SORT_KEYS,
]


def outcome(call, *args, **kwargs):
    try:
        return ("ok", call(*args, **kwargs))
    except (TypeError, ValueError) as e:
        where = (e.pos, e.lineno, e.colno) if isinstance(e, orcodec.JSONDecodeError) else None
        return ("raise", type(e), str(e), where)


def json_two_step(data):
    return orcodec.packb(orcodec.loads(data))


# The flags of an option that unpackb takes (it refuses the others, as ormsgpack's does).
UNPACKB_FLAGS = orcodec.OPT_NON_STR_KEYS | orcodec.OPT_DATETIME_AS_TIMESTAMP_EXT


def msgpack_two_step(data, option):
    read_option = option & UNPACKB_FLAGS
    return orcodec.dumps(orcodec.unpackb(data, ext_hook=orcodec.Ext, option=read_option), option=option)


def test_one_input(data: bytes) -> None:
    if not data:
        return
    option = OPTIONS[data[0] % len(OPTIONS)]
    data = data[1:]
    got, want = outcome(orcodec.json_to_msgpack, data), outcome(json_two_step, data)
    oracle.feature("json", got[0], got[1:3] if got[0] == "raise" else len(got[1]).bit_length())
    assert got == want, f"json_to_msgpack {got!r:.300} two-step {want!r:.300} for {data!r:.300}"
    got, want = outcome(orcodec.msgpack_to_json, data, option=option), outcome(msgpack_two_step, data, option)
    oracle.feature("msgpack", option, got[0], got[1:3] if got[0] == "raise" else len(got[1]).bit_length())
    assert got == want, f"msgpack_to_json {got!r:.300} two-step {want!r:.300} for {data!r:.300} option {option}"


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
