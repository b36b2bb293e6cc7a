"""atheris: arbitrary bytes into orcodec.unpackb with the numpy options,
checked against an independent reader (numpy_oracle.py): orcodec returns
what it reads or raises MsgpackDecodeError, refuses nothing the format
allows, and its zero-copy arrays are read-only views of the input."""

import sys

import atheris

with atheris.instrument_imports():
    import numpy_oracle


def test_one_input(data: bytes) -> None:
    numpy_oracle.check(data)


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
