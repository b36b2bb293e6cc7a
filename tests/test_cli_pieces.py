"""The command line's `get` (a JSON Pointer into any format it reads, gzip, stdin) and
`pretty --partial`, run as a subprocess."""

from __future__ import annotations

import gzip
import subprocess
import sys

import orcodec

DOC = {"items": [{"name": "a", "tags": ["x"]}, {"name": "b/c", "tags": []}], "n": 2}


def run(*args, stdin=None):
    return subprocess.run(
        [sys.executable, "-m", "orcodec", *map(str, args)], input=stdin, capture_output=True, timeout=120
    )


def test_get_in_every_format(tmp_path):
    (tmp_path / "d.json").write_bytes(orcodec.dumps(DOC))
    (tmp_path / "d.msgpack").write_bytes(orcodec.packb(DOC))
    (tmp_path / "d.json.gz").write_bytes(gzip.compress(orcodec.dumps(DOC)))
    (tmp_path / "r.jsonl").write_bytes(orcodec.dumps_lines(DOC["items"]))
    (tmp_path / "r.msgpacks").write_bytes(b"".join(orcodec.packb(i) for i in DOC["items"]))
    for name in ("d.json", "d.msgpack", "d.json.gz"):
        result = run("get", tmp_path / name, "/items/1/name")
        assert (result.returncode, result.stdout) == (0, b'"b/c"\n'), result.stderr
        assert run("get", tmp_path / name, "").stdout == orcodec.dumps(DOC) + b"\n"
    for name in ("r.jsonl", "r.msgpacks"):
        assert run("get", tmp_path / name, "/0/tags").stdout == b'["x"]\n'
        assert run("get", tmp_path / name, "/1").stdout == b'{"name":"b/c","tags":[]}\n'
        assert run("get", tmp_path / name, "").stdout == orcodec.dumps(DOC["items"]) + b"\n"
    result = run("get", "-", "/items/0", "--from", "json", "--indent", stdin=orcodec.dumps(DOC))
    assert result.stdout == orcodec.dumps(DOC["items"][0], option=orcodec.OPT_INDENT_2) + b"\n"


def test_get_errors(tmp_path):
    (tmp_path / "d.json").write_bytes(orcodec.dumps(DOC))
    (tmp_path / "r.jsonl").write_bytes(orcodec.dumps_lines(DOC["items"]))
    result = run("get", tmp_path / "d.json", "/items/7")
    assert result.returncode == 1
    assert result.stderr.decode().startswith('orcodec: pointer "/items/7": index 7 is past the end')
    result = run("get", tmp_path / "d.json", "items")
    assert result.returncode == 2 and "starts with '/'" in result.stderr.decode()
    result = run("get", tmp_path / "r.jsonl", "/9")
    assert result.returncode == 2 and "past the end of the records (2 records)" in result.stderr.decode()
    result = run("get", tmp_path / "r.jsonl", "/x")
    assert result.returncode == 2 and "is not an index" in result.stderr.decode()


def test_pretty_partial(tmp_path):
    data = orcodec.dumps(DOC)
    cut = data[:40]
    (tmp_path / "cut.json").write_bytes(cut)
    for flag, mode in (("--partial", "trailing-strings"), ("--partial=on", "on")):
        result = run("pretty", tmp_path / "cut.json", flag)
        want = orcodec.dumps(orcodec.loads(cut, partial=mode), option=orcodec.OPT_INDENT_2) + b"\n"
        assert (result.returncode, result.stdout) == (0, want), result.stderr
    assert run("pretty", tmp_path / "cut.json").returncode == 1
    (tmp_path / "d.msgpack").write_bytes(orcodec.packb(DOC))
    result = run("pretty", tmp_path / "d.msgpack", "--partial")
    assert result.returncode == 2 and "--partial reads JSON documents" in result.stderr.decode()
