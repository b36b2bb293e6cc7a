"""atheris: arbitrary bytes into orcodec.unpackb, checked against msgpack."""

import sys

import atheris

with atheris.instrument_imports():
    import oracle


def test_one_input(data: bytes) -> None:
    oracle.check_unpackb(data)


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
