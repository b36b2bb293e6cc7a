"""The command line: `python -m orcodec` and the `orcodec` console script.

    orcodec convert IN OUT      JSON, JSON Lines, MessagePack, MessagePack streams, .gz
    orcodec pretty FILE         indented JSON on stdout
    orcodec validate FILE...    exit status 0 when every file is valid, 1 otherwise
    orcodec stats FILE          counts of values by type, depth, size
    orcodec get FILE POINTER    the value a JSON Pointer leads to, as JSON

Formats come from the file name (.json, .jsonl/.ndjson, .msgpack/.mpk, .msgpacks; a
.gz after any of them is gzip) or from --from/--to; `-` is stdin or stdout. JSON Lines
and MessagePack streams are read and written one value at a time, so they may be larger
than memory; a JSON or MessagePack document is read whole.
"""

from __future__ import annotations

import argparse
import gzip
import io
import os
import re
import sys

from . import (
    OPT_INDENT_2,
    OPT_NON_STR_KEYS,
    OPT_SORT_KEYS,
    Ext,
    JSONDecodeError,
    JSONEncodeError,
    MsgpackDecodeError,
    MsgpackEncodeError,
    OutOfData,
    Unpacker,
    __version__,
    dumps,
    iter_lines,
    json_to_msgpack,
    loads,
    msgpack_to_json,
    packb,
    unpackb,
)
from ._cli_output import (
    Ended,
    UsageError,
    as_bytes,
    closed_pipe,
    json_name,
    open_output,
    say_error,
    stdout_failed,
)
from ._orcodec import _tally

FORMATS = ("json", "jsonl", "msgpack", "msgpack-stream")
SUFFIXES = {
    ".json": "json",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".msgpack": "msgpack",
    ".mpk": "msgpack",
    ".msgpacks": "msgpack-stream",
}
# Formats that hold one value a record, read and written one at a time.
RECORDS = ("jsonl", "msgpack-stream")
GZIP_MAGIC = b"\x1f\x8b"
CHUNK = 1 << 20
# Inputs from this size on show progress when stderr is a terminal.
PROGRESS_FROM = 64 << 20
AT_BYTE = re.compile(r" at byte (\d+)$")


# ---------------------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------------------


def format_of(path: str, given: str | None, role: str) -> str:
    if given:
        return given
    name = path[:-3] if path.endswith(".gz") else path
    suffix = os.path.splitext(name)[1].lower()
    if path == "-" or suffix not in SUFFIXES:
        known = ", ".join(sorted(SUFFIXES))
        what = "stdin" if role == "input" else "stdout"
        where = what if path == "-" else f"'{path}'"
        flag = "--from" if role == "input" else "--to"
        raise UsageError(f"cannot tell the format of {where} (known extensions: {known}); give {flag}")
    return SUFFIXES[suffix]


class Progress:
    """A binary file whose reads show the share of it read so far on stderr."""

    def __init__(self, raw, total: int):
        self.raw = raw
        self.total = total
        self.done = 0
        self.shown = -1

    def read(self, n=-1):
        data = self.raw.read(n)
        self.done += len(data)
        percent = min(100, self.done * 100 // self.total)
        if percent != self.shown:
            self.shown = percent
            sys.stderr.write(f"\r{percent:3d}%" + ("\n" if percent == 100 else ""))
            sys.stderr.flush()
        return data

    def close(self):
        self.raw.close()


def open_input(path: str):
    """A binary file-like for `path` ('-': stdin), gunzipped when it starts with
    gzip's magic bytes. A large file shows progress when stderr is a terminal (of its
    compressed bytes for gzip)."""
    if path == "-":
        raw = sys.stdin.buffer
    else:
        try:
            raw = open(path, "rb")
        except OSError as e:
            raise UsageError(f"cannot read {path}: {e.strerror}") from None
    gzipped = isinstance(raw, io.BufferedReader) and raw.peek(2)[:2] == GZIP_MAGIC
    source = raw
    if path != "-" and sys.stderr.isatty():
        size = os.fstat(raw.fileno()).st_size
        if size >= PROGRESS_FROM:
            source = Progress(raw, size)
    return gzip.GzipFile(fileobj=source, mode="rb") if gzipped else source


def close_input(stream, path: str) -> None:
    if path == "-":
        return
    # GzipFile leaves a file object it was given open.
    inner = stream.fileobj if isinstance(stream, gzip.GzipFile) else None
    stream.close()
    if inner is not None:
        inner.close()


# ---------------------------------------------------------------------------------------
# Reading and writing values
# ---------------------------------------------------------------------------------------


def read_records(stream, fmt: str):
    """The values of a JSON Lines file or MessagePack stream, one by one."""
    if fmt == "jsonl":
        return iter_lines(stream, read_size=CHUNK)
    return Unpacker(stream, read_size=CHUNK, max_buffer_size=0, ext_hook=Ext, option=OPT_NON_STR_KEYS)


def read_document(data: bytes, fmt: str):
    if fmt == "json":
        return loads(data)
    return unpackb(data, ext_hook=Ext, option=OPT_NON_STR_KEYS)


def items_of(stream, fmt: str):
    """The values to write as records: a record format's values, or the items of a
    document that is an array (any other document is one record)."""
    if fmt in RECORDS:
        yield from read_records(stream, fmt)
        return
    doc = read_document(stream.read(), fmt)
    if isinstance(doc, list):
        yield from doc
    else:
        yield doc


def json_options(args) -> int:
    opt = OPT_NON_STR_KEYS
    if getattr(args, "indent", False):
        opt |= OPT_INDENT_2
    if getattr(args, "sort_keys", False):
        opt |= OPT_SORT_KEYS
    return opt


def convert(stream, out, src: str, dst: str, args) -> None:
    opt = json_options(args)
    if dst in RECORDS:
        for value in items_of(stream, src):
            if dst == "jsonl":
                out.write(dumps(value, option=opt & ~OPT_INDENT_2) + b"\n")
            else:
                out.write(packb(value, option=OPT_NON_STR_KEYS))
        return
    if src in RECORDS:
        value = list(read_records(stream, src))
    else:
        data = stream.read()
        # No objects in between where the transcoders apply.
        if src == "json" and dst == "msgpack":
            out.write(json_to_msgpack(data))
            return
        if src == "msgpack" and dst == "json":
            out.write(msgpack_to_json(data, option=opt) + b"\n")
            return
        value = read_document(data, src)
    if dst == "json":
        out.write(dumps(value, option=opt) + b"\n")
    else:
        out.write(packb(value, option=OPT_NON_STR_KEYS))


# ---------------------------------------------------------------------------------------
# Commands
# ---------------------------------------------------------------------------------------


def cmd_convert(args) -> int:
    src = format_of(args.input, args.src, "input")
    dst = format_of(args.output, args.dst, "output")
    stream = open_input(args.input)
    try:
        out = open_output(args.output)
        complete = False
        try:
            convert(stream, out, src, dst, args)
            complete = True
        finally:
            out.close(complete)
    finally:
        close_input(stream, args.input)
    return 0


def cmd_pretty(args) -> int:
    src = format_of(args.file, args.src, "input")
    stream = open_input(args.file)
    out = open_output("-")
    opt = json_options(args) | OPT_INDENT_2
    try:
        if args.partial and src != "json":
            raise UsageError("--partial reads JSON documents (.json)")
        if src in RECORDS:
            for value in read_records(stream, src):
                out.write(dumps(value, option=opt) + b"\n")
        elif args.partial:
            out.write(dumps(loads(stream.read(), partial=args.partial), option=opt) + b"\n")
        elif src == "msgpack":
            out.write(msgpack_to_json(stream.read(), option=opt) + b"\n")
        else:
            out.write(dumps(loads(stream.read()), option=opt) + b"\n")
    finally:
        out.flush()
        close_input(stream, args.file)
    return 0


def get_value(stream, fmt: str, pointer: str):
    """The value `pointer` leads to. Records (JSON Lines, MessagePack streams) are an
    array of them: the first token picks one, read without the others being kept."""
    if fmt == "json":
        return loads(stream.read(), pointer=pointer)
    if fmt == "msgpack":
        return unpackb(stream.read(), pointer=pointer, ext_hook=Ext, option=OPT_NON_STR_KEYS)
    if not pointer:
        return list(read_records(stream, fmt))
    first, _, rest = pointer[1:].partition("/")
    rest = "/" + rest if _ else ""
    if not first.isdigit() or (len(first) > 1 and first.startswith("0")):
        raise UsageError(f"pointer {pointer!r}: the records of {fmt} are an array; {first!r} is not an index")
    want = int(first)
    count = 0
    for count, record in enumerate(read_records(stream, fmt), 1):
        if count - 1 == want:
            return unpackb(packb(record, option=OPT_NON_STR_KEYS), pointer=rest, ext_hook=Ext, option=OPT_NON_STR_KEYS)
    raise UsageError(f"pointer {pointer!r}: index {want} is past the end of the records ({count} records)")


def cmd_get(args) -> int:
    src = format_of(args.file, args.src, "input")
    stream = open_input(args.file)
    out = sys.stdout.buffer
    try:
        try:
            value = get_value(stream, src, args.pointer)
        except ValueError as e:
            if isinstance(e, (JSONDecodeError, MsgpackDecodeError)):
                raise
            raise UsageError(str(e)) from None
        out.write(dumps(value, option=json_options(args)) + b"\n")
    finally:
        out.flush()
        close_input(stream, args.file)
    return 0


class Counted:
    def __init__(self, raw):
        self.raw = raw
        self.count = 0

    def read(self, n=-1):
        data = self.raw.read(n)
        self.count += len(data)
        return data


def problem(path: str, fmt: str, error: Exception, start: int = 0, number: int = 1) -> str:
    """`file:line:col: message`. JSON: the line and column of the text (of the file,
    for JSON Lines). MessagePack: line is the value's number in the stream (1 for a
    document) and col the byte in that value, from 1."""
    if isinstance(error, JSONDecodeError):
        return f"{path}:{error.lineno}:{error.colno}: {error.msg}"
    message = str(error)
    pos = getattr(error, "pos", None)
    if pos is not None:
        # The message is ormsgpack's; orcodec's own account, when there is one, is
        # the note after the one giving the offset.
        notes = [note for note in getattr(error, "__notes__", []) if not note.startswith("at byte ")]
        return f"{path}:{number}:{pos - start + 1}: {notes[0] if notes else message}"
    match = AT_BYTE.search(message)
    if match:
        offset = int(match.group(1))
        return f"{path}:{number}:{offset - start + 1}: {message[: match.start()]}"
    return f"{path}:{number}:1: {message}"


def check(path: str, fmt: str) -> str | None:
    """None when the file is valid, else the problem found first."""
    stream = open_input(path)
    try:
        if fmt == "jsonl":
            for _ in iter_lines(stream, read_size=CHUNK):
                pass
        elif fmt == "msgpack-stream":
            counted = Counted(stream)
            unpacker = read_records(counted, fmt)
            number = 0
            while True:
                start = unpacker.tell()
                number += 1
                try:
                    unpacker.skip()
                except MsgpackDecodeError as e:
                    return problem(path, fmt, e, start, number)
                except OutOfData:
                    if counted.count > start:
                        return f"{path}:{number}:{counted.count - start + 1}: the stream ends inside a value"
                    break
        else:
            count_document(stream.read(), fmt)
    except (JSONDecodeError, MsgpackDecodeError) as e:
        return problem(path, fmt, e)
    except (OSError, EOFError) as e:
        # A damaged gzip file.
        return f"{path}:1:1: {e}"
    finally:
        close_input(stream, path)
    return None


def cmd_validate(args) -> int:
    out = open_output("-")
    failed = False
    for path in args.files:
        fmt = format_of(path, args.src, "input")
        found = check(path, fmt)
        if found:
            failed = True
            out.write(as_bytes(found) + b"\n")
        elif not args.quiet:
            out.write(as_bytes(path) + b": ok\n")
    out.close(True)
    return 1 if failed else 0


TYPE_NAMES = {
    type(None): "null",
    bool: "bool",
    int: "int",
    float: "float",
    str: "str",
    bytes: "bin",
    list: "array",
    tuple: "array",
    dict: "map",
    Ext: "ext",
}


# The kinds `_tally` counts, in its order.
KINDS = ("null", "bool", "int", "float", "str", "bin", "array", "map", "ext")


def count_document(data: bytes, fmt: str) -> tuple[dict, dict]:
    """The counts of a document as `tally` gives them, read as read_document reads
    it (raising what it raises). The decoder counts without building anything, and
    without the GIL for large documents, except where the counts depend on the
    objects (map keys that are not strs): then the objects are built and counted."""
    found = _tally(data) if fmt == "json" else _tally(data, option=OPT_NON_STR_KEYS)
    if found is None:
        counts: dict = {}
        seen = {"depth": 0, "keys": 0}
        tally(read_document(data, fmt), counts, seen)
        return counts, seen
    *kinds, keys, depth = found
    return {name: n for name, n in zip(KINDS, kinds) if n}, {"depth": depth, "keys": keys}


def tally(value, counts: dict, seen: dict) -> None:
    """Counts `value` and the values in it by type (map keys apart, in seen["keys"]);
    seen["depth"] is the deepest level reached (a scalar document is level 1)."""
    stack = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        name = TYPE_NAMES.get(type(v), type(v).__name__)
        counts[name] = counts.get(name, 0) + 1
        if depth > seen["depth"]:
            seen["depth"] = depth
        if isinstance(v, (list, tuple)):
            stack.extend((item, depth + 1) for item in v)
        elif isinstance(v, dict):
            seen["keys"] += len(v)
            stack.extend((item, depth + 1) for item in v.values())


def cmd_stats(args) -> int:
    fmt = format_of(args.file, args.src, "input")
    stream = open_input(args.file)
    counted = Counted(stream)
    try:
        if fmt in RECORDS:
            counts: dict = {}
            seen = {"depth": 0, "keys": 0}
            records = 0
            for value in read_records(counted, fmt):
                records += 1
                tally(value, counts, seen)
        else:
            records = 1
            counts, seen = count_document(counted.read(), fmt)
    finally:
        close_input(stream, args.file)
    stats = {
        "file": json_name(args.file),
        "format": fmt,
        "bytes": counted.count,
        "records": records,
        "values": sum(counts.values()),
        "keys": seen["keys"],
        "max_depth": seen["depth"],
        "types": dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))),
    }
    out = open_output("-")
    if args.json:
        out.write(dumps(stats, option=OPT_INDENT_2) + b"\n")
        out.close(True)
        return 0
    lines = [
        f"file       {args.file}",
        f"format     {fmt}",
        f"bytes      {stats['bytes']}",
        f"records    {records}",
        f"values     {stats['values']}",
        f"keys       {stats['keys']}",
        f"max depth  {stats['max_depth']}",
    ]
    lines.extend(f"  {name:<8} {count}" for name, count in stats["types"].items())
    out.write(as_bytes("\n".join(lines) + "\n"))
    out.close(True)
    return 0


# ---------------------------------------------------------------------------------------
# Arguments
# ---------------------------------------------------------------------------------------


class Parser(argparse.ArgumentParser):
    """argparse's parser, except that an error while printing help or usage on stdout
    is raised (argparse ignores every error while printing): a closed pipe ends the
    command as it does anywhere else, a full device is reported."""

    def _print_message(self, message, file=None):
        if not message:
            return
        file = file or sys.stderr
        try:
            file.write(message)
        except (AttributeError, OSError):
            if file is sys.stdout:
                raise


def parser() -> argparse.ArgumentParser:
    formats = ", ".join(FORMATS)
    p = Parser(
        prog="orcodec",
        description="Convert, pretty-print, validate and count JSON, JSON Lines and MessagePack files.",
        epilog=(
            "Formats come from the file name: .json, .jsonl or .ndjson, .msgpack or .mpk (one value), "
            ".msgpacks (values one after the other); .gz after any of them is gzip. "
            "Use --from/--to for other names and for '-' (stdin/stdout)."
        ),
    )
    p.add_argument("--version", action="version", version=f"orcodec {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)

    c = sub.add_parser(
        "convert",
        help="convert IN to the format of OUT",
        description=(
            "Convert IN to OUT. A JSON or MessagePack document that is an array becomes one record per item "
            "in JSON Lines or a MessagePack stream; records become an array in a document. JSON to MessagePack "
            "and back run without Python objects in between. Map keys that are not strings are kept."
        ),
    )
    c.add_argument("input", metavar="IN", help="input file, or - for stdin")
    c.add_argument("output", metavar="OUT", help="output file, or - for stdout")
    c.add_argument("--from", dest="src", choices=FORMATS, help=f"format of IN ({formats})")
    c.add_argument("--to", dest="dst", choices=FORMATS, help=f"format of OUT ({formats})")
    c.add_argument("--indent", action="store_true", help="indent JSON output by 2 spaces (not JSON Lines)")
    c.add_argument("--sort-keys", action="store_true", help="sort the keys of JSON output")
    c.set_defaults(run=cmd_convert)

    pr = sub.add_parser(
        "pretty",
        help="print FILE as indented JSON",
        description="Print FILE as JSON indented by 2 spaces on stdout (records one after the other).",
    )
    pr.add_argument("file", metavar="FILE", help="input file, or - for stdin")
    pr.add_argument("--from", dest="src", choices=FORMATS, help=f"format of FILE ({formats})")
    pr.add_argument("--sort-keys", action="store_true", help="sort the keys of objects")
    pr.add_argument(
        "--partial",
        nargs="?",
        const="trailing-strings",
        choices=("on", "trailing-strings"),
        help="read a JSON document cut off anywhere as far as it is complete (default: keep a cut string; "
        "'on' drops it)",
    )
    pr.set_defaults(run=cmd_pretty)

    g = sub.add_parser(
        "get",
        help="print the value POINTER leads to in FILE",
        description=(
            "Print the value the JSON Pointer POINTER (RFC 6901, e.g. /items/0/name; '' for the whole "
            "document) leads to in FILE, as JSON. Only that value is built. The records of JSON Lines and "
            "MessagePack streams are an array: /3/name is the name of the fourth record."
        ),
    )
    g.add_argument("file", metavar="FILE", help="input file, or - for stdin")
    g.add_argument("pointer", metavar="POINTER", help="a JSON Pointer, such as /items/0/name")
    g.add_argument("--from", dest="src", choices=FORMATS, help=f"format of FILE ({formats})")
    g.add_argument("--indent", action="store_true", help="indent the JSON by 2 spaces")
    g.add_argument("--sort-keys", action="store_true", help="sort the keys of objects")
    g.set_defaults(run=cmd_get)

    v = sub.add_parser(
        "validate",
        help="check that files are valid",
        description=(
            "Check each FILE and print FILE: ok, or FILE:LINE:COL: MESSAGE for its first error. For JSON and "
            "JSON Lines, LINE and COL are the line and column in the file; for MessagePack, LINE is the "
            "value's number in the stream (1 for a document) and COL the byte in that value. "
            "Exit status: 0 when every file is valid, 1 otherwise, 2 for a usage error."
        ),
    )
    v.add_argument("files", metavar="FILE", nargs="+", help="files to check, or - for stdin")
    v.add_argument("--from", dest="src", choices=FORMATS, help=f"format of every FILE ({formats})")
    v.add_argument("-q", "--quiet", action="store_true", help="print only the errors")
    v.set_defaults(run=cmd_validate)

    s = sub.add_parser(
        "stats",
        help="count the values in FILE",
        description="Print the size of FILE, its records, its values counted by type and its deepest nesting.",
    )
    s.add_argument("file", metavar="FILE", help="input file, or - for stdin")
    s.add_argument("--from", dest="src", choices=FORMATS, help=f"format of FILE ({formats})")
    s.add_argument("--json", action="store_true", help="print the figures as JSON")
    s.set_defaults(run=cmd_stats)
    return p


def parse(argv):
    """The arguments. What argparse prints (help, usage errors) is written at once, so
    that an error writing it is seen here rather than at exit."""
    try:
        return parser().parse_args(argv)
    except SystemExit:
        sys.stdout.flush()
        raise


def main(argv=None) -> int:
    try:
        args = parse(argv)
    except BrokenPipeError:
        return closed_pipe()
    except OSError as e:
        return stdout_failed(e)
    try:
        return args.run(args)
    except BrokenPipeError:
        # The reader of stdout (or of a FIFO or socket OUT) is gone: stop quietly.
        return closed_pipe()
    except UsageError as e:
        say_error(str(e))
        return 2
    except (JSONDecodeError, MsgpackDecodeError, JSONEncodeError, MsgpackEncodeError, OSError, EOFError) as e:
        say_error(str(e))
        return 1
    except KeyboardInterrupt:
        return 130
    except Ended as e:
        return e.status


def console_main() -> None:
    status = main()
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        status = closed_pipe()
    except OSError as e:
        status = stdout_failed(e)
    sys.exit(status)
