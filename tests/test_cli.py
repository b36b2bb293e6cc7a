"""The command line, run as a subprocess (`python -m orcodec` and the console script) on
real files: convert between every pair of formats, gzip both ways, stdin/stdout, pretty,
validate (exit status, file:line:col), stats, --help, progress on a terminal."""

from __future__ import annotations

import gzip
import json
import os
import pty
import resource
import select
import shutil
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
import zlib
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


# ---------------------------------------------------------------------------------------
# Output files: devices, FIFOs, sockets, symlinks, directories, modes; closed pipes;
# file names that are not UTF-8
# ---------------------------------------------------------------------------------------


def leftovers(*directories):
    return [p for d in directories for p in Path(d).iterdir() if p.name.startswith(".orcodec-")]


def drain(fd: int, stop: threading.Event, got: list) -> None:
    """Reads `fd` (non-blocking) into `got` until `stop` is set and nothing is left."""
    os.set_blocking(fd, False)
    while True:
        readable, _, _ = select.select([fd], [], [], 0.05)
        if readable:
            try:
                chunk = os.read(fd, 1 << 16)
            except BlockingIOError:
                continue
            if chunk:
                got.append(chunk)
                continue
        if stop.is_set():
            return


def big_jsonl(tmp_path: Path, lines: int = 100_000) -> Path:
    path = tmp_path / "big.jsonl"
    path.write_bytes(b'{"a": [1, 2, 3], "b": "text"}\n' * lines)
    return path


def test_convert_writes_through_a_fifo(tmp_path):
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    src = fixture_file("citm_catalog.json")
    # Opened read-write, the FIFO has a reader at once (so the writer's open does not
    # wait) and no test can hang: the drain stops when the command has ended.
    fd = os.open(fifo, os.O_RDWR)
    stop, got = threading.Event(), []
    reader = threading.Thread(target=drain, args=(fd, stop, got))
    reader.start()
    try:
        result = run("convert", src, fifo, "--to", "msgpack", check=False)
    finally:
        stop.set()
        reader.join(timeout=30)
        os.close(fd)
    assert result.returncode == 0 and result.stderr == b""
    assert b"".join(got) == orcodec.json_to_msgpack(src.read_bytes())
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    # A conversion that fails part-way has written what came before the error, but a
    # gzip output lacks its trailer: it does not read as complete.
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"a": 1}\n' * 1000 + b"{broken\n")
    fifo_gz = tmp_path / "out.jsonl.gz"
    os.mkfifo(fifo_gz)
    fd = os.open(fifo_gz, os.O_RDWR)
    stop, got = threading.Event(), []
    reader = threading.Thread(target=drain, args=(fd, stop, got))
    reader.start()
    try:
        result = run("convert", bad, fifo_gz, check=False)
    finally:
        stop.set()
        reader.join(timeout=30)
        os.close(fd)
    assert result.returncode == 1 and "line 1001" in result.stderr.decode()
    data = b"".join(got)
    assert data[:2] == b"\x1f\x8b"
    partial = zlib.decompressobj(31)
    text = partial.decompress(data)
    assert not partial.eof and (b'{"a":1}\n' * 1000).startswith(text)
    assert stat.S_ISFIFO(os.lstat(fifo_gz).st_mode)
    assert leftovers(tmp_path) == []


def test_a_fifo_whose_reader_goes_away_is_a_closed_pipe(tmp_path):
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    proc = subprocess.Popen(
        [sys.executable, "-m", "orcodec", "convert", str(big_jsonl(tmp_path)), str(fifo), "--to", "jsonl"],
        stderr=subprocess.PIPE,
    )
    try:
        readable, _, _ = select.select([fd], [], [], 60)
        first = os.read(fd, 10) if readable else b""
    finally:
        os.close(fd)
    _, err = proc.communicate(timeout=60)
    assert first == b'{"a":[1,2,'
    assert (proc.returncode, err) == (141, b"")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_convert_writes_through_device_nodes(tmp_path):
    null = tmp_path / "null"
    full = tmp_path / "full"
    os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    os.mknod(full, stat.S_IFCHR | 0o666, os.makedev(1, 7))
    small = tmp_path / "small.json"
    small.write_bytes(b'{"a": [1, 2]}')
    big = big_jsonl(tmp_path, 20_000)  # errors in the middle of the output
    for src in [small, big]:
        result = run("convert", src, null, "--to", "msgpack-stream")
        assert result.stderr == b""
        # Whether the error comes at a write or when the last bytes are flushed.
        for fmt in ["json", "msgpack-stream"]:
            result = run("convert", src, full, "--to", fmt, check=False)
            assert result.returncode == 2
            assert result.stderr.decode() == f"orcodec: cannot write {full}: No space left on device\n"
    # Nor does gzip's trailer make it look complete.
    full_gz = tmp_path / "full.gz"
    os.mknod(full_gz, stat.S_IFCHR | 0o666, os.makedev(1, 7))
    result = run("convert", small, full_gz, "--to", "jsonl", check=False)
    assert (result.returncode, result.stderr.decode()) == (
        2,
        f"orcodec: cannot write {full_gz}: No space left on device\n",
    )
    # stdout on a full device: the same status and message.
    for args in [["pretty", small], ["stats", "--json", big], ["validate", small], ["--help"]]:
        for buffered in [True, False]:
            with open(full, "wb") as sink:
                result = subprocess.run(
                    [sys.executable, "-m", "orcodec", *map(str, args)],
                    stdout=sink,
                    stderr=subprocess.PIPE,
                    env=stdout_env(buffered),
                    timeout=60,
                )
            assert (result.returncode, result.stderr) == (
                2,
                b"orcodec: cannot write stdout: No space left on device\n",
            ), (args, buffered)
    for node, minor in [(null, 3), (full, 7), (full_gz, 7)]:
        st = os.lstat(node)
        assert stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, minor)
    assert leftovers(tmp_path) == []


def test_convert_writes_through_a_unix_socket(tmp_path):
    path = tmp_path / "out.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(1)
    server.settimeout(60)
    got = []

    def serve():
        try:
            conn, _ = server.accept()
        except OSError:
            return
        with conn:
            conn.settimeout(60)
            while chunk := conn.recv(1 << 16):
                got.append(chunk)

    thread = threading.Thread(target=serve)
    thread.start()
    try:
        src = fixture_file("github.json")
        result = run("convert", src, path, "--to", "jsonl", check=False)
    finally:
        thread.join(timeout=60)
        server.close()
    assert result.returncode == 0 and result.stderr == b""
    assert b"".join(got) == orcodec.dumps_lines(doc("github"))
    assert stat.S_ISSOCK(os.lstat(path).st_mode)
    # A socket nobody listens on any more: a file that cannot be opened.
    result = run("convert", src, path, "--to", "jsonl", check=False)
    assert (result.returncode, result.stderr.decode()) == (2, f"orcodec: cannot write {path}: Connection refused\n")


def test_convert_through_a_symlink_writes_its_target(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    target = elsewhere / "data.msgpack"
    target.write_bytes(b"old")
    os.chmod(target, 0o600)
    link = tmp_path / "link.msgpack"
    link.symlink_to(os.path.relpath(target, tmp_path))
    src = tmp_path / "in.json"
    src.write_bytes(b'{"a": [1, 2]}')
    run("convert", src, link)
    assert os.readlink(link) == os.path.join("elsewhere", "data.msgpack")
    assert target.read_bytes() == orcodec.packb({"a": [1, 2]})
    assert target.stat().st_mode & 0o777 == 0o600
    # A chain of links, and one pointing at a file yet to be made.
    second = tmp_path / "second.msgpack"
    second.symlink_to(link)
    dangling = tmp_path / "dangling.msgpack"
    dangling.symlink_to(elsewhere / "new.msgpack")
    src.write_bytes(b"[3]")
    run("convert", src, second)
    run("convert", src, dangling)
    assert target.read_bytes() == (elsewhere / "new.msgpack").read_bytes() == b"\x91\x03"
    assert all(p.is_symlink() for p in [link, second, dangling])
    # A link to a directory and a loop of links: files that cannot be written.
    (tmp_path / "dir.msgpack").symlink_to(elsewhere)
    (tmp_path / "loop.msgpack").symlink_to(tmp_path / "loop.msgpack")
    result = run("convert", src, tmp_path / "dir.msgpack", check=False)
    assert (result.returncode, result.stderr.decode()) == (
        2,
        f"orcodec: cannot write {tmp_path / 'dir.msgpack'}: Is a directory\n",
    )
    result = run("convert", src, tmp_path / "loop.msgpack", check=False)
    assert (result.returncode, result.stderr.decode()) == (
        2,
        f"orcodec: cannot write {tmp_path / 'loop.msgpack'}: Too many levels of symbolic links\n",
    )
    assert leftovers(tmp_path, elsewhere) == []


def test_convert_to_a_directory_is_refused_and_leaves_nothing(tmp_path):
    out = tmp_path / "out.json"
    out.mkdir()
    src = big_jsonl(tmp_path, 1000)
    for dst in [out, tmp_path / "missing" / "x.json"]:
        result = run("convert", src, dst, check=False)
        reason = "Is a directory" if dst == out else "No such file or directory"
        assert (result.returncode, result.stderr.decode()) == (2, f"orcodec: cannot write {dst}: {reason}\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.jsonl", "out.json"]
    assert list(out.iterdir()) == []


def test_convert_keeps_an_existing_files_mode_and_owner(tmp_path):
    src = tmp_path / "in.json"
    src.write_bytes(b"[1]")
    private = tmp_path / "private.msgpack"
    private.write_bytes(b"old")
    os.chmod(private, 0o600)
    run("convert", src, private)
    assert private.read_bytes() == b"\x91\x01"
    assert private.stat().st_mode & 0o7777 == 0o600
    shared = tmp_path / "shared.msgpack.gz"
    shared.write_bytes(b"old")
    os.chmod(shared, 0o2640)
    if os.geteuid() == 0:
        os.chown(shared, 1234, 5678)
    run("convert", src, shared)
    st = shared.stat()
    assert gzip.decompress(shared.read_bytes()) == b"\x91\x01"
    assert st.st_mode & 0o7777 == 0o2640
    if os.geteuid() == 0:
        assert (st.st_uid, st.st_gid) == (1234, 5678)
    # A new file gets the mode open() gives it under the umask.
    result = subprocess.run(
        [sys.executable, "-m", "orcodec", "convert", str(src), str(tmp_path / "new.msgpack")],
        capture_output=True,
        timeout=60,
        umask=0o027,
    )
    assert result.returncode == 0
    assert (tmp_path / "new.msgpack").stat().st_mode & 0o7777 == 0o640
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_conversion_ended_by_a_signal_leaves_nothing(tmp_path, signum):
    out = tmp_path / "out.msgpacks"
    proc = subprocess.Popen(
        [sys.executable, "-m", "orcodec", "convert", "--from", "jsonl", "-", str(out)],
        stdin=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        proc.stdin.write(b'{"a": 1}\n' * 1000)
        proc.stdin.flush()
        deadline = time.monotonic() + 60
        while not leftovers(tmp_path) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert leftovers(tmp_path), "the temporary file is made before the input ends"
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert (proc.returncode, err) == (128 + signum, b"")
    assert list(tmp_path.iterdir()) == []


def stdout_env(buffered: bool) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    return env if buffered else dict(env, PYTHONUNBUFFERED="1")


def closed_stdout(*args, read: int = 10, buffered: bool = True) -> tuple[bytes, int, bytes]:
    """Runs the command with a stdout pipe closed after `read` bytes (at once for 0)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "orcodec", *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=stdout_env(buffered),
    )
    first = proc.stdout.read(read) if read else b""
    proc.stdout.close()
    err = proc.stderr.read()
    proc.stderr.close()
    return first, proc.wait(timeout=60), err


@pytest.mark.parametrize("buffered", [True, False])
def test_a_closed_pipe_ends_quietly(tmp_path, buffered):
    big = big_jsonl(tmp_path)
    first, status, err = closed_stdout("pretty", big, buffered=buffered)
    assert (first, status, err) == (b'{\n  "a": [', 141, b"")
    first, status, err = closed_stdout("convert", big, "-", "--to", "jsonl", buffered=buffered)
    assert (first, status, err) == (b'{"a":[1,2,', 141, b"")
    small = tmp_path / "a.json"
    small.write_bytes(b"[1]")
    first, status, err = closed_stdout("validate", *[small] * 3000, buffered=buffered)
    assert (first, status, err) == (f"{small}: ok\n".encode()[:10], 141, b"")
    for args in [["--help"], ["stats", small], ["stats", "--json", small], ["validate", small]]:
        assert closed_stdout(*args, read=0, buffered=buffered) == (b"", 141, b""), args


def test_file_names_that_are_not_utf8(tmp_path):
    name = b"n\xff\xfe.json"
    (tmp_path / os.fsdecode(name)).write_bytes(b'{"a": [1, 2]}')
    env = dict(os.environ, PYTHONIOENCODING="utf-8")  # stdout would refuse surrogates

    def orcodec_in(*args):
        return subprocess.run(
            [sys.executable, "-m", "orcodec", *args], cwd=tmp_path, env=env, capture_output=True, timeout=60
        )

    result = orcodec_in("stats", "--json", name)
    assert result.returncode == 0 and result.stderr == b""
    assert result.stdout.startswith(b'{\n  "file": "n\\udcff\\udcfe.json",\n  "format": "json",\n')
    stats = json.loads(result.stdout)
    assert os.fsencode(stats["file"]) == name
    assert stats == {
        "file": os.fsdecode(name),
        "format": "json",
        "bytes": 13,
        "records": 1,
        "values": 4,
        "keys": 1,
        "max_depth": 3,
        "types": {"int": 2, "array": 1, "map": 1},
    }
    # Text output has the name's own bytes.
    result = orcodec_in("stats", name)
    assert result.returncode == 0 and result.stdout.startswith(b"file       n\xff\xfe.json\nformat     json\n")
    result = orcodec_in("validate", name, b"bad\xff.json")
    assert result.returncode == 2
    assert result.stdout == b"n\xff\xfe.json: ok\n"
    assert result.stderr == b"orcodec: cannot read bad\xff.json: No such file or directory\n"
    result = orcodec_in("stats", b"n\xff.txt")
    assert result.returncode == 2
    assert result.stderr.startswith(b"orcodec: cannot tell the format of 'n\xff.txt' (known extensions: .json, ")
    result = orcodec_in("convert", name, b"out\xff.msgpack")
    assert result.returncode == 0
    assert (tmp_path / os.fsdecode(b"out\xff.msgpack")).read_bytes() == orcodec.packb({"a": [1, 2]})


def test_a_write_error_on_a_regular_file_leaves_nothing(tmp_path):
    src = big_jsonl(tmp_path)
    out = tmp_path / "out.jsonl"
    out.write_bytes(b"old")

    def small_files():
        # Writes past 64 KiB fail with EFBIG (Python ignores SIGXFSZ).
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 10, 64 << 10))

    for dst in [out, tmp_path / "new.msgpacks"]:
        result = subprocess.run(
            [sys.executable, "-m", "orcodec", "convert", str(src), str(dst)],
            capture_output=True,
            timeout=60,
            preexec_fn=small_files,
        )
        assert (result.returncode, result.stderr.decode()) == (2, f"orcodec: cannot write {dst}: File too large\n")
    assert out.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.jsonl", "out.jsonl"]


def test_validate_prints_each_line_at_once_on_a_terminal(tmp_path):
    good = tmp_path / "a.json"
    good.write_bytes(b"[1]")
    primary, secondary = pty.openpty()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "orcodec", "validate", str(good), "-", "--from", "json"],
            stdin=subprocess.PIPE,
            stdout=secondary,
            stderr=subprocess.PIPE,
            env={k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"},  # stdout buffered
        )
        os.close(secondary)
        # The first file's line shows while the command still waits for stdin.
        shown = b""
        deadline = time.monotonic() + 30
        while b"\n" not in shown and time.monotonic() < deadline:
            readable, _, _ = select.select([primary], [], [], 1)
            if readable:
                shown += os.read(primary, 1024)
        assert shown == f"{good}: ok\r\n".encode() and proc.poll() is None
        _, err = proc.communicate(b"{}", timeout=60)
        while True:
            try:
                chunk = os.read(primary, 1024)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(primary)
    assert (proc.returncode, err) == (0, b"")
    assert shown == f"{good}: ok\r\n-: ok\r\n".encode()
