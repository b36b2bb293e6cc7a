"""orcodec in subinterpreters: isolated ones with their own GIL (CPython 3.12
and newer) and legacy ones sharing the main GIL (every version; what
mod_wsgi gives each application).

Each test runs in a child process, since a failure here can take the whole
interpreter down. The subinterpreters are driven through CPython's private
modules (`_xxsubinterpreters` on 3.11 and 3.12, `_interpreters` on 3.13),
which is what `concurrent.interpreters` builds on.

CPython 3.12 itself crashes when `datetime` or `decimal` is imported in a
second isolated subinterpreter unless the main interpreter imported it
first (its C modules start to initialize, are refused, and leave freed
memory behind); the children here import both in the main interpreter
before making any, as a program on 3.12 must.
"""

import os
import subprocess
import sys
import textwrap

import pytest

TESTS = os.path.dirname(os.path.abspath(__file__))

needs_isolated = pytest.mark.skipif(
    sys.version_info < (3, 12), reason="interpreters with their own GIL are new in CPython 3.12"
)

# What every child starts with: the interpreters module of this version and
# small helpers over it.
PRELUDE = textwrap.dedent(
    """
    import gc, os, sys, json
    sys.path.insert(0, %(tests)r)
    import datetime, decimal  # see the module docstring (CPython 3.12)
    try:
        import _interpreters as I
    except ImportError:
        import _xxsubinterpreters as I

    def create(kind):
        if sys.version_info >= (3, 13):
            return I.create(kind)
        if sys.version_info >= (3, 12):
            return I.create(isolated=(kind == "isolated"))
        assert kind == "legacy"
        return I.create()

    def run(iid, code):
        failure = I.run_string(iid, code)
        if failure is not None:  # 3.13 returns the exception's description
            raise RuntimeError(failure.formatted)

    def run_battery(iid, path):
        run(iid, "import sys; sys.path.insert(0, %%r)\\n" %% sys.path[0] +
                 "import subinterp_battery\\n"
                 "open(%%r, 'w').write(repr(subinterp_battery.battery()))" %% path)
        with open(path) as f:
            return f.read()
    """
) % {"tests": TESTS}


def child(code, timeout=240):
    """Runs `code` (after PRELUDE) in a new interpreter process; its stdout."""
    script = PRELUDE + textwrap.dedent(code)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=timeout, cwd=TESTS)
    assert proc.returncode == 0, f"child exited with {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    return proc.stdout


@needs_isolated
@pytest.mark.parametrize("main_first", [True, False], ids=["main first", "subinterpreter first"])
def test_every_function_in_an_isolated_interpreter_matches_the_main_one(tmp_path, main_first):
    out = child(
        f"""
        path = {str(tmp_path / "sub.txt")!r}
        if {main_first!r}:
            import subinterp_battery
            here = repr(subinterp_battery.battery())
        iid = create("isolated")
        there = run_battery(iid, path)
        I.destroy(iid)
        if not {main_first!r}:
            import subinterp_battery
            here = repr(subinterp_battery.battery())
        print(here == there)
        if here != there:
            a, b = eval(here), eval(there)
            for k in a:
                if a[k] != b.get(k):
                    print(k, a[k], b.get(k), sep="\\n  ")
        print(len(eval(here)))
        """
    )
    lines = out.splitlines()
    assert lines[0] == "True", out
    assert int(lines[-1]) >= 50


@pytest.mark.parametrize("kind", ["legacy", "isolated"])
def test_the_battery_in_a_legacy_or_isolated_interpreter_after_the_main_one(tmp_path, kind):
    if kind == "isolated" and sys.version_info < (3, 12):
        pytest.skip("interpreters with their own GIL are new in CPython 3.12")
    out = child(
        f"""
        import subinterp_battery
        here = repr(subinterp_battery.battery())
        for i in range(3):
            iid = create({kind!r})
            there = run_battery(iid, {str(tmp_path / "sub.txt")!r})
            I.destroy(iid)
            print(here == there)
        print(repr(subinterp_battery.battery()) == here)
        """
    )
    assert out.split() == ["True"] * 4


@pytest.mark.parametrize("kind", ["legacy", "isolated"])
def test_standard_types_in_a_subinterpreter_after_the_main_one_imported_orcodec(tmp_path, kind):
    # Types looked up once were the main interpreter's: a UUID of the
    # subinterpreter was "not JSON serializable" there.
    if kind == "isolated" and sys.version_info < (3, 12):
        pytest.skip("interpreters with their own GIL are new in CPython 3.12")
    out = child(
        f"""
        import orcodec, uuid
        orcodec.dumps({{"id": uuid.UUID(int=1)}})
        orcodec.loads(b'"00000000-0000-0000-0000-000000000001"', type=uuid.UUID)
        iid = create({kind!r})
        run(iid, '''if 1:
            import dataclasses, decimal, enum, typing, uuid, orcodec
            class E(enum.Enum):
                A = "a"
            class TD(typing.TypedDict):
                id: uuid.UUID
                price: decimal.Decimal
            @dataclasses.dataclass
            class D:
                id: uuid.UUID
                e: E
            doc = {{"id": uuid.UUID(int=1), "e": E.A, "d": D(uuid.UUID(int=2), E.A)}}
            out = [orcodec.dumps(doc), orcodec.packb(doc)]
            out.append(repr(orcodec.loads(orcodec.dumps(doc["d"]), type=D)))
            out.append(repr(orcodec.unpackb(orcodec.packb(doc["d"]), type=D)))
            td = orcodec.loads(b'{{"id": "00000000-0000-0000-0000-000000000003", "price": "9.90"}}', type=TD)
            out.append(repr(td))
            open({str(tmp_path / "out.txt")!r}, "w").write(repr(out))
        ''')
        I.destroy(iid)
        print(open({str(tmp_path / "out.txt")!r}).read())
        """
    )
    got = eval(out)
    assert got[0] == (
        b'{"id":"00000000-0000-0000-0000-000000000001","e":"a",'
        b'"d":{"id":"00000000-0000-0000-0000-000000000002","e":"a"}}'
    )
    assert got[2] == "D(id=UUID('00000000-0000-0000-0000-000000000002'), e=<E.A: 'a'>)"
    assert got[3] == got[2]
    assert got[4] == "{'id': UUID('00000000-0000-0000-0000-000000000003'), 'price': Decimal('9.90')}"


@pytest.mark.parametrize("kind", ["legacy", "isolated"])
def test_datetimes_with_zoneinfo_in_a_subinterpreter(tmp_path, kind):
    # On CPython 3.12 an isolated interpreter runs the pure-Python datetime
    # (and has no zoneinfo: its C part needs the C datetime), whose objects
    # orcodec reads and makes through their attributes and classes.
    if kind == "isolated" and sys.version_info < (3, 12):
        pytest.skip("interpreters with their own GIL are new in CPython 3.12")
    out = child(
        f"""
        import orcodec, zoneinfo
        orcodec.dumps(datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc))
        iid = create({kind!r})
        run(iid, '''if 1:
            import datetime, orcodec
            try:
                import zoneinfo
            except (ImportError, AttributeError):
                zoneinfo = None
            if zoneinfo and zoneinfo.available_timezones():
                tz = zoneinfo.ZoneInfo("Europe/Paris")
            else:
                tz = datetime.timezone(datetime.timedelta(hours=1))
            dt = datetime.datetime(2024, 1, 2, 3, 4, 5, 678901, tzinfo=tz)
            out = [orcodec.dumps(dt), orcodec.dumps(datetime.date(2024, 1, 2)), orcodec.dumps(datetime.time(1, 2))]
            out.append(repr(orcodec.loads(b'"2024-01-02T03:04:05+01:00"', type=datetime.datetime)))
            out.append(repr(orcodec.unpackb(orcodec.packb(dt, option=orcodec.OPT_DATETIME_AS_TIMESTAMP_EXT),
                                            option=orcodec.OPT_DATETIME_AS_TIMESTAMP_EXT)))
            open({str(tmp_path / "out.txt")!r}, "w").write(repr(out))
        ''')
        I.destroy(iid)
        print(open({str(tmp_path / "out.txt")!r}).read())
        """
    )
    got = eval(out)
    assert got[0] == b'"2024-01-02T03:04:05.678901+01:00"'
    assert got[1:3] == [b'"2024-01-02"', b'"01:02:00"']
    assert got[3] == (
        "datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone(datetime.timedelta(seconds=3600)))"
    )
    assert got[4] == "datetime.datetime(2024, 1, 2, 2, 4, 5, 678901, tzinfo=datetime.timezone.utc)"


@needs_isolated
def test_two_interpreters_alive_at_once_keep_their_own_classes(tmp_path):
    # Same-named dataclasses, enums, TypedDicts and typed-decoding targets
    # with different fields in two interpreters alive at the same time.
    define = """if 1:
        import dataclasses, enum, typing, orcodec
        @dataclasses.dataclass
        class Item:
            {fields}
        class Kind(enum.Enum):
            X = {kind!r}
        class Row(typing.TypedDict):
            {row}: int
        def go(path):
            out = [orcodec.dumps(Item({args})), orcodec.packb(Item({args})), orcodec.dumps([Kind.X, Row({row}=1)])]
            out.append(repr(orcodec.loads(orcodec.dumps(Item({args})), type=Item)))
            out.append(repr(orcodec.loads(b'{{"{row}": 7}}', type=Row)))
            open(path, "w").write(repr(out))
    """
    out = child(
        f"""
        a, b = create("isolated"), create("isolated")
        run(a, {define.format(fields="x: int", kind="ka", row="left", args="1")!r})
        run(b, {define.format(fields="y: str; z: float = 0.5", kind="kb", row="right", args="'s'")!r})
        for _ in range(2):
            run(a, "go(%r)" % {str(tmp_path / "a.txt")!r})
            run(b, "go(%r)" % {str(tmp_path / "b.txt")!r})
        I.destroy(a)
        run(b, "go(%r)" % {str(tmp_path / "b2.txt")!r})
        I.destroy(b)
        print(open({str(tmp_path / "a.txt")!r}).read())
        print(open({str(tmp_path / "b.txt")!r}).read())
        print(open({str(tmp_path / "b2.txt")!r}).read())
        """
    )
    a, b, b2 = (eval(line) for line in out.splitlines())
    assert a[0] == b'{"x":1}' and b[0] == b'{"y":"s","z":0.5}'
    assert a[1] == b"\x81\xa1x\x01" and b[1] == b"\x82\xa1y\xa1s\xa1z\xcb?\xe0\x00\x00\x00\x00\x00\x00"
    assert a[2] == b'["ka",{"left":1}]' and b[2] == b'["kb",{"right":1}]'
    assert a[3] == "Item(x=1)" and b[3] == "Item(y='s', z=0.5)"
    assert a[4] == "{'left': 7}" and b[4] == "{'right': 7}"
    assert b2 == b


@pytest.mark.parametrize("kind", ["legacy", "isolated"])
def test_typed_decoding_in_a_destroyed_subinterpreter_leaves_the_main_one_working(kind):
    # The type compiler found once was the first interpreter's: after it was
    # destroyed, the main interpreter called a dead function.
    if kind == "isolated" and sys.version_info < (3, 12):
        pytest.skip("interpreters with their own GIL are new in CPython 3.12")
    out = child(
        f"""
        iid = create({kind!r})
        run(iid, "import orcodec, typing; orcodec.loads(b'[1]', type=typing.List[int])")
        I.destroy(iid)
        gc.collect()
        import orcodec, typing, uuid
        print(orcodec.loads(b'[1, 2]', type=typing.List[int]))
        print(orcodec.loads(b'"00000000-0000-0000-0000-000000000001"', type=uuid.UUID))
        print(orcodec.dumps({{"u": uuid.UUID(int=1)}}))
        """
    )
    assert out.splitlines() == [
        "[1, 2]",
        "00000000-0000-0000-0000-000000000001",
        'b\'{"u":"00000000-0000-0000-0000-000000000001"}\'',
    ]


@pytest.mark.parametrize("kind", ["legacy", "isolated"])
@pytest.mark.parametrize("order", ["sub first", "main first"])
def test_a_failed_import_in_a_subinterpreter_leaves_nothing_behind(kind, order):
    # An initialization that fails half way (here: `json`, which the module
    # needs, cannot be imported) raises in that interpreter and leaves no
    # state another interpreter could reach.
    if kind == "isolated" and sys.version_info < (3, 12):
        pytest.skip("interpreters with their own GIL are new in CPython 3.12")
    out = child(
        f"""
        if {order!r} == "main first":
            import orcodec
            print(orcodec.dumps([1]))
        for _ in range(3):
            iid = create({kind!r})
            run(iid, '''if 1:
                import sys
                sys.modules["json"] = None
                try:
                    import orcodec
                except ImportError as e:
                    print("ImportError", e)
                del sys.modules["json"]
                import orcodec
                print(orcodec.dumps({{"ok": True}}))
            ''')
            I.destroy(iid)
            gc.collect()
        import orcodec
        print(orcodec.dumps([2]), orcodec.loads(b"[3]"))
        """
    )
    lines = out.splitlines()
    if order == "main first":
        assert lines.pop(0) == "b'[1]'"
    for _ in range(3):
        assert lines.pop(0).startswith("ImportError")
        assert lines.pop(0) == "b'{\"ok\":true}'"
    assert lines == ["b'[2]' [3]"]


@needs_isolated
def test_numpy_absent_in_an_isolated_interpreter(tmp_path):
    # numpy refuses to load in isolated interpreters: orcodec works there
    # without it, and what needs numpy says so.
    pytest.importorskip("numpy")
    out = child(
        f"""
        import numpy, orcodec
        payload = orcodec.packb(numpy.arange(3), option=orcodec.OPT_NUMPY_EXT)
        iid = create("isolated")
        run(iid, '''if 1:
            import orcodec, sys
            out = []
            try:
                import numpy
                out.append("numpy loaded")
            except ImportError:
                out.append("no numpy")
            out.append(orcodec.dumps([1, 2.5], option=orcodec.OPT_SERIALIZE_NUMPY))
            out.append(orcodec.packb([1], option=orcodec.OPT_SERIALIZE_NUMPY | orcodec.OPT_NUMPY_EXT))
            try:
                out.append(repr(orcodec.unpackb(%r, option=orcodec.OPT_NUMPY_EXT)))
            except Exception as e:
                out.append(type(e).__name__ + ": " + str(e) + " / " + type(e.__cause__).__name__)
            open({str(tmp_path / "out.txt")!r}, "w").write(repr(out))
        ''' % payload)
        I.destroy(iid)
        print(open({str(tmp_path / "out.txt")!r}).read())
        """
    )
    got = eval(out)
    assert got == [
        "no numpy",
        b"[1,2.5]",
        b"\x91\x01",
        "MsgpackDecodeError: the input holds numpy arrays, but numpy could not be imported / ImportError",
    ]


@needs_isolated
def test_fifty_interpreters_made_used_and_destroyed_leave_nothing_behind(tmp_path):
    # CPython 3.12 and 3.13 keep some memory of every interpreter they
    # destroy, whatever it ran: what orcodec adds is measured against the
    # same work without it, in the same process, after the same imports.
    work = textwrap.dedent(
        """
        import json, typing, uuid, dataclasses
        @dataclasses.dataclass
        class D:
            x: int
            u: uuid.UUID
        doc = [{"k%d" % i: [i, str(i) * 10, str(uuid.UUID(int=i))]} for i in range(300)]
        for _ in range(5):
            json.loads(json.dumps(doc))
            USE
        """
    )
    use = (
        "orcodec.loads(orcodec.dumps(doc)); orcodec.unpackb(orcodec.packb(doc)); "
        'orcodec.loads(b\'[{"x": 1, "u": "00000000-0000-0000-0000-000000000001"}]\', type=typing.List[D]); '
        "orcodec.msgpack_to_json(orcodec.json_to_msgpack(orcodec.dumps(doc)))"
    )
    with_orcodec = "import orcodec, orcodec._typed\n" + work.replace("USE", use)
    out = child(
        f"""
        def rss_kib():
            with open("/proc/self/statm") as f:
                return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024
        with_orcodec = {with_orcodec!r}
        # The other run imports what orcodec (and its type compiler) import.
        mods = {str(tmp_path / "mods.txt")!r}
        iid = create("isolated")
        run(iid, "import sys\\nbefore = set(sys.modules)\\n" + with_orcodec + "\\nopen(%r, 'w').write(','.join("
            "sorted(m for m in set(sys.modules) - before if not m.startswith(('orcodec', '_')))))" % mods)
        I.destroy(iid)
        without = "import " + open(mods).read() + "\\n" + {work!r}.replace("USE", "pass")
        def measure(code, n):
            def cycle():
                iid = create("isolated")
                run(iid, code)
                I.destroy(iid)
            for _ in range(5):
                cycle()
            gc.collect()
            rss, blocks = rss_kib(), sys.getallocatedblocks()
            for _ in range(n):
                cycle()
            gc.collect()
            return rss_kib() - rss, sys.getallocatedblocks() - blocks
        base = measure(without, 25)
        ours = measure(with_orcodec, 25)
        print(base[0], base[1], ours[0], ours[1])
        """,
        timeout=900,
    )
    base_rss, base_blocks, rss, blocks = map(int, out.split())
    cycles = 25
    # Blocks of the main interpreter's allocator count what the process
    # keeps: a leaked module state, cache or compiled type would hold
    # thousands of them per interpreter.
    assert (blocks - base_blocks) / cycles < 500, out
    assert (rss - base_rss) / cycles < 1024, out
