"""atheris: arbitrary bytes into orcodec.loads, checked against orjson."""

import sys

import atheris

with atheris.instrument_imports():
    import oracle


def test_one_input(data: bytes) -> None:
    oracle.check_loads(data)


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
