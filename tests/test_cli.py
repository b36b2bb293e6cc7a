"""The command line, run as a subprocess (`python -m orcodec` and the console script) on
real files: convert between every pair of formats, gzip both ways, stdin/stdout, pretty,
validate (exit status, file:line:col), stats, --help, progress on a terminal."""

from __future__ import annotations

import gzip
import json
import os
import pty
import shutil
import subprocess
import sys
from pathlib import Path

import msgpack
import orcodec
import pytest
from helpers import DOCUMENTS, fixture_file

FIXTURES = DOCUMENTS
SUFFIX = {"json": ".json", "jsonl": ".jsonl", "msgpack": ".msgpack", "msgpack-stream": ".msgpacks"}


def run(*args, stdin=None, check=True):
    result = subprocess.run(
        [sys.executable, "-m", "orcodec", *map(str, args)], input=stdin, capture_output=True, timeout=120
    )
    if check:
        assert result.returncode == 0, result.stderr.decode()
    return result


def doc(name):
    return orcodec.loads(fixture_file(f"{name}.json").read_bytes())


def records_of(value):
    return value if isinstance(value, list) else [value]


def read_as(path: Path, fmt: str):
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    if fmt == "json":
        return orcodec.loads(data)
    if fmt == "msgpack":
        return orcodec.unpackb(data)
    if fmt == "jsonl":
        return orcodec.loads_lines(data)
    unpacker = orcodec.Unpacker(max_buffer_size=0)
    unpacker.feed(data)
    return list(unpacker)


@pytest.mark.parametrize("name", FIXTURES)
def test_json_to_msgpack_and_back_are_the_library_bytes(tmp_path, name):
    src = fixture_file(f"{name}.json")
    run("convert", src, tmp_path / "x.msgpack")
    assert (tmp_path / "x.msgpack").read_bytes() == orcodec.json_to_msgpack(src.read_bytes())
    run("convert", tmp_path / "x.msgpack", tmp_path / "y.json")
    assert (tmp_path / "y.json").read_bytes() == orcodec.dumps(doc(name)) + b"\n"


@pytest.mark.parametrize("src_fmt", list(SUFFIX))
@pytest.mark.parametrize("dst_fmt", list(SUFFIX))
def test_convert_every_pair_of_formats(tmp_path, src_fmt, dst_fmt):
    value = doc("github")  # a list of 30 events
    src = tmp_path / f"in{SUFFIX[src_fmt]}"
    if src_fmt == "json":
        src.write_bytes(orcodec.dumps(value))
    elif src_fmt == "msgpack":
        src.write_bytes(orcodec.packb(value))
    elif src_fmt == "jsonl":
        src.write_bytes(orcodec.dumps_lines(value))
    else:
        src.write_bytes(b"".join(orcodec.packb(v) for v in value))
    dst = tmp_path / f"out{SUFFIX[dst_fmt]}"
    run("convert", src, dst)
    assert read_as(dst, dst_fmt) == value


def test_a_document_that_is_no_array_is_one_record(tmp_path):
    src = fixture_file("twitter.json")
    run("convert", src, tmp_path / "t.jsonl")
    assert orcodec.loads_lines((tmp_path / "t.jsonl").read_bytes()) == [doc("twitter")]


@pytest.mark.parametrize("name", ["github", "citm_catalog"])
def test_gzip_read_and_written(tmp_path, name):
    src = tmp_path / f"{name}.json.gz"
    src.write_bytes(gzip.compress(fixture_file(f"{name}.json").read_bytes()))
    run("convert", src, tmp_path / "x.msgpacks.gz")
    assert (tmp_path / "x.msgpacks.gz").read_bytes()[:2] == b"\x1f\x8b"
    assert read_as(tmp_path / "x.msgpacks.gz", "msgpack-stream") == records_of(doc(name))
    # A gzip file is recognized by its contents, whatever its name.
    shutil.copy(tmp_path / "x.msgpacks.gz", tmp_path / "plain.msgpacks")
    run("convert", tmp_path / "plain.msgpacks", tmp_path / "back.jsonl")
    assert orcodec.loads_lines((tmp_path / "back.jsonl").read_bytes()) == records_of(doc(name))


def test_stdin_and_stdout():
    data = fixture_file("github.json").read_bytes()
    out = run("convert", "--from", "json", "--to", "msgpack", "-", "-", stdin=data).stdout
    assert out == orcodec.json_to_msgpack(data)
    back = run("convert", "--from", "msgpack", "--to", "jsonl", "-", "-", stdin=out).stdout
    assert back == orcodec.dumps_lines(doc("github"))


def test_convert_options(tmp_path):
    src = tmp_path / "a.json"
    src.write_bytes(b'{"b": [1, 2], "a": {"d": 1, "c": 2}}')
    out = run("convert", "--indent", "--sort-keys", src, "-", "--to", "json").stdout
    assert (
        out
        == orcodec.dumps(orcodec.loads(src.read_bytes()), option=orcodec.OPT_INDENT_2 | orcodec.OPT_SORT_KEYS) + b"\n"
    )


def test_non_str_keys_and_bin_survive_msgpack_to_msgpack_stream(tmp_path):
    src = tmp_path / "a.msgpack"
    src.write_bytes(msgpack.packb([{1: b"raw"}, {None: [1.5]}]))
    run("convert", src, tmp_path / "b.msgpacks")
    unpacker = msgpack.Unpacker(strict_map_key=False)
    unpacker.feed((tmp_path / "b.msgpacks").read_bytes())
    assert list(unpacker) == [{1: b"raw"}, {None: [1.5]}]


def test_convert_errors(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_bytes(b'{"a": [1, }')
    result = run("convert", bad, tmp_path / "x.msgpack", check=False)
    assert result.returncode == 1
    expected = "orcodec: unexpected character, expected a JSON value: line 1 column 11 (char 10)\n"
    assert result.stderr.decode() == expected
    result = run("convert", tmp_path / "missing.json", tmp_path / "x.msgpack", check=False)
    assert result.returncode == 2
    assert result.stderr.decode() == f"orcodec: cannot read {tmp_path / 'missing.json'}: No such file or directory\n"
    result = run("convert", bad, tmp_path / "x.txt", check=False)
    assert result.returncode == 2
    assert "cannot tell the format of" in result.stderr.decode() and "give --to" in result.stderr.decode()
    result = run("convert", "-", "-", check=False, stdin=b"1")
    assert result.returncode == 2 and "cannot tell the format of stdin" in result.stderr.decode()
    result = run("convert", "--from", "yaml", "-", "-", check=False, stdin=b"1")
    assert result.returncode == 2 and "invalid choice: 'yaml'" in result.stderr.decode()


def test_pretty(tmp_path):
    src = fixture_file("citm_catalog.json")
    out = run("pretty", src).stdout
    assert out == orcodec.dumps(doc("citm_catalog"), option=orcodec.OPT_INDENT_2 | orcodec.OPT_NON_STR_KEYS) + b"\n"
    packed = tmp_path / "c.msgpack"
    packed.write_bytes(orcodec.packb({"b": 1, "a": [True]}))
    assert run("pretty", "--sort-keys", packed).stdout == b'{\n  "a": [\n    true\n  ],\n  "b": 1\n}\n'
    assert run("pretty", "--from", "jsonl", "-", stdin=b"1\n[2]\n").stdout == b"1\n[\n  2\n]\n"


def test_validate_exit_status_and_positions(tmp_path):
    good = [fixture_file(f"{n}.json") for n in FIXTURES]
    result = run("validate", *good)
    assert result.stdout.decode() == "".join(f"{p}: ok\n" for p in good)
    (tmp_path / "bad.jsonl").write_bytes(b'{"a": 1}\n\n{"a": \n')
    (tmp_path / "bad.json").write_bytes(b'{\n  "a": tru\n}')
    (tmp_path / "bad.msgpack").write_bytes(orcodec.packb({"k": "v" * 10})[:-3])
    stream = orcodec.packb([1, 2]) + orcodec.packb({"a": 1}) + b"\x81\xa1k\xc1"
    (tmp_path / "bad.msgpacks").write_bytes(stream)
    (tmp_path / "cut.msgpacks").write_bytes(orcodec.packb(1) + orcodec.packb("abcdef")[:-2])
    (tmp_path / "bad.jsonl.gz").write_bytes(gzip.compress(b"[1]\n[2,\n"))
    names = ["bad.jsonl", "bad.json", "bad.msgpack", "bad.msgpacks", "cut.msgpacks", "bad.jsonl.gz"]
    result = run("validate", "-q", *(tmp_path / n for n in names), *good, check=False)
    assert result.returncode == 1
    assert result.stdout.decode().splitlines() == [
        f"{tmp_path}/bad.jsonl:3:7: unexpected end of data",
        f"{tmp_path}/bad.json:2:8: invalid literal, expected 'true'",
        f"{tmp_path}/bad.msgpack:1:4: str declares 10 bytes but only 7 bytes of input remain",
        f"{tmp_path}/bad.msgpacks:3:4: reserved type byte 0xc1 (never used by MessagePack)",
        f"{tmp_path}/cut.msgpacks:2:6: the stream ends inside a value",
        f"{tmp_path}/bad.jsonl.gz:2:4: unexpected end of data",
    ]


def test_validate_messages_are_the_decoders(tmp_path):
    path = tmp_path / "x.json"
    for data in [b"[1,]", b'{"a" 1}', b"\xff", b"[" * 2000]:
        path.write_bytes(data)
        with pytest.raises(orcodec.JSONDecodeError) as info:
            orcodec.loads(data)
        e = info.value
        out = run("validate", path, check=False)
        assert out.returncode == 1
        assert out.stdout.decode() == f"{path}:{e.lineno}:{e.colno}: {e.msg}\n"


def test_validate_damaged_gzip(tmp_path):
    path = tmp_path / "x.json.gz"
    path.write_bytes(gzip.compress(b'{"a": 1}')[:-6])
    result = run("validate", path, check=False)
    assert result.returncode == 1
    assert result.stdout.decode().startswith(f"{path}:1:1: ")


def _counted(doc) -> dict:
    """What ``stats`` reports of one JSON document, counted here by a walk of its own."""
    types: dict[str, int] = {}
    names = {dict: "map", list: "array", str: "str", int: "int", float: "float", bool: "bool", type(None): "null"}
    keys = max_depth = 0
    stack = [(doc, 1)]
    while stack:
        value, depth = stack.pop()
        kind = names[type(value)]
        types[kind] = types.get(kind, 0) + 1
        max_depth = max(max_depth, depth)
        if kind in ("map", "array"):
            keys += len(value) if kind == "map" else 0
            stack += [(v, depth + 1) for v in (value.values() if kind == "map" else value)]
    return {"values": sum(types.values()), "keys": keys, "max_depth": max_depth, "types": types}


def test_counted_counts():
    assert _counted({"a": [1, 2.5, {"b": None}], "c": True, "d": "x"}) == {
        "values": 8,
        "keys": 4,
        "max_depth": 4,
        "types": {"map": 2, "array": 1, "int": 1, "float": 1, "null": 1, "bool": 1, "str": 1},
    }


@pytest.mark.parametrize("name", [n for n in FIXTURES if n.endswith("github")])
def test_stats(tmp_path, name):
    src = fixture_file(f"{name}.json")
    out = run("stats", "--json", src).stdout
    stats = orcodec.loads(out)
    counted = _counted(json.loads(src.read_bytes()))
    # Most frequent type first, as the text form lists them.
    assert list(stats["types"].values()) == sorted(stats["types"].values(), reverse=True)
    assert {**stats, "types": dict(stats["types"])} == {
        "file": str(src),
        "format": "json",
        "bytes": src.stat().st_size,
        "records": 1,
        **counted,
        "types": dict(sorted(counted["types"].items(), key=lambda kv: (-kv[1], kv[0]))),
    }
    if name == "shared/github":
        # The real document's counts, as a person checked them once.
        assert (stats["values"], stats["keys"], stats["max_depth"]) == (1188, 1139, 7)
    path = tmp_path / "x.msgpacks"
    path.write_bytes(orcodec.packb([1, "a", b"b"]) + orcodec.packb({"k": 1.5}) + orcodec.packb(orcodec.Ext(1, b"")))
    text = run("stats", path).stdout.decode()
    assert text.splitlines() == [
        f"file       {path}",
        "format     msgpack-stream",
        f"bytes      {path.stat().st_size}",
        "records    3",
        "values     7",
        "keys       1",
        "max depth  2",
        "  array    1",
        "  bin      1",
        "  ext      1",
        "  float    1",
        "  int      1",
        "  map      1",
        "  str      1",
    ]


def test_help_for_each_command():
    top = run("--help").stdout.decode()
    for command in ["convert", "pretty", "validate", "stats"]:
        assert command in top
        text = run(command, "--help").stdout.decode()
        assert text.startswith(f"usage: orcodec {command}")
    assert "0 when every file is valid, 1 otherwise" in " ".join(run("validate", "--help").stdout.decode().split())
    result = run(check=False)
    assert result.returncode == 2 and "required: COMMAND" in result.stderr.decode()


def test_version():
    # The version the installed package reports, as the metadata gives it.
    import importlib.metadata

    expected = importlib.metadata.version("orcodec")
    assert orcodec.__version__ == expected
    result = run("--version")
    assert result.stdout.decode() == f"orcodec {expected}\n"


def test_console_script(tmp_path):
    script = Path(sys.executable).with_name("orcodec")
    assert script.is_file(), "the console script is installed with the package"
    result = subprocess.run([script, "validate", fixture_file("github.json")], capture_output=True, timeout=60)
    assert result.returncode == 0 and result.stdout.endswith(b": ok\n")


def test_no_progress_when_stderr_is_no_terminal(tmp_path):
    path = tmp_path / "big.jsonl"
    path.write_bytes(b'{"a": [1, 2, 3]}\n' * (70 << 20 >> 4))
    result = run("validate", path)
    assert result.stderr == b""


def test_progress_on_a_terminal_for_a_large_file(tmp_path):
    path = tmp_path / "big.jsonl"
    path.write_bytes(b'{"a": [1, 2, 3]}\n' * (70 << 20 >> 4))
    primary, secondary = pty.openpty()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "orcodec", "validate", str(path)], stdout=subprocess.PIPE, stderr=secondary
        )
        os.close(secondary)
        out, _ = proc.communicate(timeout=120)
        shown = b""
        while True:
            try:
                chunk = os.read(primary, 1 << 16)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(primary)
    assert proc.returncode == 0 and out == f"{path}: ok\n".encode()
    assert shown.startswith(b"\r  0%") or shown.startswith(b"\r  1%")
    assert shown.endswith(b"\r100%\r\n")  # the terminal turns \n into \r\n


def console_blocks(page: Path) -> list[str]:
    import re

    return re.findall(r"^```console\n(.*?)^```", page.read_text(encoding="utf-8"), re.S | re.M)


def test_cli_page_examples_run_as_shown(tmp_path):
    # doc/cli.md's console blocks, in order, in one empty directory: each `$ command`
    # prints exactly the lines below it (stdout and stderr).
    page = Path(__file__).resolve().parent.parent / "doc" / "cli.md"
    blocks = console_blocks(page)
    assert blocks
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    steps = 0
    for block in blocks:
        commands: list[tuple[str, list[str]]] = []
        for line in block.splitlines():
            if line.startswith("$ "):
                commands.append((line[2:], []))
            else:
                commands[-1][1].append(line)
        for command, expected in commands:
            result = subprocess.run(
                ["bash", "-o", "pipefail", "-c", command], cwd=tmp_path, env=env, capture_output=True, timeout=60
            )
            shown = (result.stdout + result.stderr).decode().splitlines()
            assert shown == expected, f"$ {command}"
            steps += 1
    assert steps >= 10


def test_a_failed_conversion_leaves_no_output_file(tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_bytes(b'{"a": 1}\n' * 1000 + b"{broken\n")
    for name in ["out.msgpacks", "out.json.gz"]:
        result = run("convert", src, tmp_path / name, check=False)
        assert result.returncode == 1
        assert "line 1001" in result.stderr.decode()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl"]
    # An existing file stays as it was.
    (tmp_path / "out.msgpacks").write_bytes(b"old")
    run("convert", src, tmp_path / "out.msgpacks", check=False)
    assert (tmp_path / "out.msgpacks").read_bytes() == b"old"
    # A successful one replaces it.
    src.write_bytes(b"[1]\n")
    run("convert", src, tmp_path / "out.msgpacks")
    assert (tmp_path / "out.msgpacks").read_bytes() == b"\x91\x01"
    # With the permissions of a file made by open().
    umask = os.umask(0)
    os.umask(umask)
    assert (tmp_path / "out.msgpacks").stat().st_mode & 0o777 == 0o666 & ~umask
