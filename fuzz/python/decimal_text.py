"""atheris: arbitrary text into Decimal by typed decoding (a JSON str, a JSON
number, a MessagePack str, convert), each checked against the Decimal that
decimal.Decimal(text) makes: the same digits, exponent and sign, or, where
Decimal() refuses the text, "Invalid decimal string"."""

import decimal
import sys

import atheris

with atheris.instrument_imports():
    import orcodec
    from oracle import feature

D = decimal.Decimal


def reference(text: str) -> tuple | None:
    try:
        return D(text).as_tuple()
    except (ArithmeticError, ValueError):
        return None


def shape(text: str) -> str:
    """The text's form: digits, signs, points, exponent marks and the rest,
    each run as one letter (`-012.50e+7` is `s9.9es9`), so that inputs of a
    new form count as new coverage (the native code is not instrumented)."""
    out = []
    for c in text[:40]:
        k = "9" if c.isascii() and c.isdigit() else "s" if c in "+-" else "." if c == "." else "e" if c in "eE" else "x"
        if not out or out[-1] != k:
            out.append(k)
    return "".join(out)


def check(decode, text: str, expected: tuple | None) -> None:
    try:
        got = decode()
    except orcodec.ValidationError as e:
        assert expected is None, (text, expected, e)
        assert str(e) == "Invalid decimal string", (text, e)
        return
    assert type(got) is D and expected is not None and got.as_tuple() == expected, (text, got, expected)
    assert got.is_nan() or hash(got) == hash(D(text)), text


def test_one_input(data: bytes) -> None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return
    expected = reference(text)
    feature(shape(text), expected is None, expected is not None and len(expected.digits) > 19)
    check(lambda: orcodec.loads(orcodec.dumps(text), type=D), text, expected)
    check(lambda: orcodec.unpackb(orcodec.packb(text), type=D), text, expected)
    check(lambda: orcodec.convert(text, D), text, expected)
    try:
        orcodec.loads(data)
    except orcodec.JSONDecodeError:
        return
    if not text.lstrip(" \t\r\n").startswith(('"', "[", "{", "t", "f", "n")):
        check(lambda: orcodec.loads(data, type=D), text, reference(text.strip(" \t\r\n")))


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
