"""JSON Schema generation for a 50-class model, side by side with the peers.

A model of 50 dataclasses (each with ten to twelve fields: scalars, a
datetime, a timedelta, a UUID, an enum, a Literal, a union of scalars,
constrained ints and strs, a list of and an Optional of an earlier class, a
dict; one class refers back to the first), made anew for each run so
nothing is cached between calls:

  orcodec    orcodec.json_schema_components(all 50, ref_template=...)
  msgspec    msgspec.json.schema_components(the same dataclasses)
  pydantic   pydantic.TypeAdapter(...).json_schema() over a tuple of them

Each is timed on fresh classes (the first call: what an application pays
once at start-up, what FastAPI pays for /openapi.json) and on the same
classes again.

    .venv/bin/python bench/schema.py [--quick] [--json FILE]
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import enum
import json
import statistics
import time
import uuid
from typing import Annotated, Literal, Optional, Union

import annotated_types as at
import msgspec
import orcodec
import pydantic


class Status(enum.Enum):
    NEW = "new"
    DONE = "done"


def make_model(n: int = 50) -> list[type]:
    classes: list[type] = []
    for i in range(n):
        prev = classes[i - 1] if i else None
        first = classes[0] if classes else None
        fields = [
            ("id", uuid.UUID),
            ("name", Annotated[str, at.MinLen(1), at.MaxLen(64)]),
            ("count", Annotated[int, at.Ge(0)]),
            ("ratio", float),
            ("at", datetime.datetime),
            ("status", Status),
            ("tags", dict[str, int]),
            ("mode", Literal["fast", "slow"]),
            ("timeout", datetime.timedelta),
        ]
        if prev is not None:
            fields.append(("children", list[prev]))
            fields.append(("parent", Optional[first], dataclasses.field(default=None)))
        fields.append(("key", Union[int, str, None], dataclasses.field(default=None)))
        cls = dataclasses.make_dataclass(f"Model{i}", fields)
        classes.append(cls)
    return classes


def run_orcodec(classes):
    return orcodec.json_schema_components(classes, ref_template="#/components/schemas/{name}")


def run_msgspec(classes):
    return msgspec.json.schema_components(classes, ref_template="#/components/schemas/{name}")


def run_pydantic(classes):
    return pydantic.TypeAdapter(tuple[tuple(classes)]).json_schema()


LIBRARIES = {"orcodec": run_orcodec, "msgspec": run_msgspec, "pydantic": run_pydantic}


def measure(fn, fresh: bool, repeat: int) -> float:
    times = []
    classes = make_model()
    for _ in range(repeat):
        if fresh:
            classes = make_model()
        start = time.perf_counter()
        fn(classes)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--json", help="write the results to this file")
    args = parser.parse_args()
    repeat = 3 if args.quick else 15
    results = {}
    for row, fresh in (("fresh classes", True), ("same classes", False)):
        for name, fn in LIBRARIES.items():
            results[f"{row}/{name}"] = measure(fn, fresh, repeat)
    print(f"{'row':<16} {'library':<10} {'ms':>8} {'vs orcodec':>11}")
    for key, seconds in results.items():
        row, name = key.split("/")
        base = results[f"{row}/orcodec"]
        print(f"{row:<16} {name:<10} {seconds * 1e3:8.2f} {seconds / base:11.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({k: v * 1e3 for k, v in results.items()}, f, indent=2)


if __name__ == "__main__":
    main()
