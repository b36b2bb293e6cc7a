"""Where the command line writes, and how it tells of it.

* OUT, when it is a regular file or does not exist: a temporary file beside it, put in
  its place once the whole output is written, with the existing file's mode and owner
  (or the mode `open()` gives a new file); every failure removes the temporary file.
* OUT that is anything else (a character or block device, a FIFO, a stream socket):
  written through, as `cat > OUT` would; it stays what it is.
* A symbolic link: the file it points to is written (as above), the link stays.
* An error while writing is "cannot write NAME: reason" (status 2); a closed pipe ends
  the command quietly with status 141, as a shell reports a program ended by SIGPIPE.
* File names are written as the file system gives them: their bytes in text output, and
  `\\udcXX` escapes (what `os.fsdecode` makes of bytes that are not UTF-8) in JSON.
"""

from __future__ import annotations

import errno
import gzip
import os
import re
import signal
import socket
import stat
import sys
import tempfile

from . import Fragment, dumps

# A shell's status for a program ended by SIGPIPE (128 + 13).
CLOSED_PIPE = 128 + 13
# Signals that end a conversion through a temporary file as an error would (the
# temporary file is removed), with the status of a program they ended.
ENDING_SIGNALS = ("SIGTERM", "SIGHUP")
SURROGATE = re.compile("([\ud800-\udfff])")


class UsageError(Exception):
    """A mistake in the command line or a file that cannot be opened or written: exit
    status 2."""


class Ended(BaseException):
    """A signal from ENDING_SIGNALS arrived; `status` is the exit status to give."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.status = 128 + signum


def reason(error: OSError) -> str:
    return error.strerror or str(error)


# ---------------------------------------------------------------------------------------
# Names
# ---------------------------------------------------------------------------------------


def as_bytes(text: str) -> bytes:
    """`text` (which may hold a file name) as the bytes to print: a name is given back
    as the file system gave it, bytes that are not UTF-8 included."""
    try:
        return os.fsencode(text)
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace")


def json_name(name: str):
    """A file name for `dumps`: the name itself when it is valid Unicode, else a JSON
    string where each byte the file system's encoding could not decode (a lone
    surrogate from `os.fsdecode`) is a `\\udcXX` escape, which `json.loads` and
    `os.fsencode` turn back into the same bytes."""
    if not SURROGATE.search(name):
        return name
    parts = []
    for piece in SURROGATE.split(name):
        if len(piece) == 1 and SURROGATE.match(piece):
            parts.append(b"\\u%04x" % ord(piece))
        elif piece:
            parts.append(dumps(piece)[1:-1])
    return Fragment(b'"' + b"".join(parts) + b'"')


def say_error(message: str) -> None:
    """`orcodec: message` on stderr, a file name in it as the file system gave it."""
    line = b"orcodec: " + as_bytes(message) + b"\n"
    err = sys.stderr
    if err is None:
        return
    try:
        # What the command printed before the error comes before it on a terminal.
        sys.stdout.flush()
    except (OSError, ValueError, AttributeError):
        pass
    try:
        err.flush()
        buffer = getattr(err, "buffer", None)
        if buffer is not None:
            buffer.write(line)
            buffer.flush()
        else:
            err.write(line.decode("utf-8", "backslashreplace"))
            err.flush()
    except OSError:
        pass


def silence_stdout() -> None:
    """Points stdout at the null device, so that the output still buffered for it goes
    nowhere at exit (instead of failing again there, which would print an error and
    make the exit status 120)."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, sys.stdout.fileno())
        finally:
            os.close(null)
    except (OSError, ValueError, AttributeError):
        pass


def stdout_failed(error: OSError) -> int:
    """Says that stdout cannot be written; the status for it."""
    silence_stdout()
    say_error(f"cannot write stdout: {reason(error)}")
    return 2


def closed_pipe() -> int:
    """The status for a closed pipe, stdout silenced."""
    silence_stdout()
    return CLOSED_PIPE


# ---------------------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------------------


class Gate:
    """What a GzipFile writes into: the file, until the output is abandoned (then
    nothing, so a failed output does not get gzip's trailer and look complete)."""

    def __init__(self, raw):
        self.raw = raw
        self.open = True

    def write(self, data):
        if self.open:
            return self.raw.write(data)
        return len(data)

    def flush(self):
        if self.open:
            self.raw.flush()


class Output:
    """A binary output of a command: `write`, `flush`, then `close(complete)` once.
    An OSError while writing raises UsageError("cannot write NAME: reason"), except
    BrokenPipeError (a closed pipe), which is left to `main`."""

    def __init__(self, raw, name: str, gzipped: bool = False, temporary: str | None = None, target: str = ""):
        self.raw = raw
        self.name = name
        self.gate = Gate(raw) if gzipped else None
        self.stream = gzip.GzipFile(fileobj=self.gate, mode="wb") if gzipped else raw
        self.temporary = temporary
        self.target = target
        self.keep: os.stat_result | None = None  # the existing file's mode and owner
        self.socket: socket.socket | None = None
        self.signals: dict = {}
        # Lines show as they are written on a terminal, as print() shows them.
        self.by_line = temporary is None and isatty(raw)

    def failed(self, error: OSError) -> UsageError:
        if self.raw is sys.stdout.buffer:
            silence_stdout()
        return UsageError(f"cannot write {self.name}: {reason(error)}")

    def write(self, data) -> None:
        try:
            self.stream.write(data)
            if self.by_line and b"\n" in data:
                self.stream.flush()
        except BrokenPipeError:
            raise
        except OSError as e:
            raise self.failed(e) from None

    def flush(self) -> None:
        try:
            self.stream.flush()
            if self.stream is not self.raw:
                self.raw.flush()
        except BrokenPipeError:
            raise
        except OSError as e:
            raise self.failed(e) from None

    def close(self, complete: bool) -> None:
        """Finish the output: when `complete`, write what is buffered and put a
        temporary file in place; otherwise abandon it (the temporary file removed)."""
        if self.raw is sys.stdout.buffer:
            if complete:
                self.flush()
            return
        try:
            if complete:
                self.finish()
            else:
                self.abandon()
        finally:
            if self.temporary is not None:
                try:
                    os.unlink(self.temporary)
                except OSError:
                    pass
                self.temporary = None
            self.restore_signals()

    def finish(self) -> None:
        try:
            if self.stream is not self.raw:
                self.stream.close()
            self.raw.flush()
            if self.temporary is not None:
                self.set_mode()
            self.raw.close()
            if self.socket is not None:
                self.socket.shutdown(socket.SHUT_WR)
                self.socket.close()
        except OSError as e:
            self.abandon()
            if isinstance(e, BrokenPipeError):
                raise
            raise self.failed(e) from None
        if self.temporary is not None:
            try:
                os.replace(self.temporary, self.target)
            except OSError as e:
                raise self.failed(e) from None
            self.temporary = None

    def abandon(self) -> None:
        """Close everything after a failure: a file written through gets what was
        made before it (as a pipe would), but no gzip trailer that would make it look
        complete."""
        if self.gate is not None:
            self.gate.open = False
        for closing in (self.stream, self.raw, self.socket):
            if closing is None:
                continue
            try:
                closing.close()
            except (OSError, ValueError):
                pass  # the failure being reported, or one that follows from it

    def set_mode(self) -> None:
        """The temporary file's mode and owner: the existing file's, or those open()
        gives a new file (mkstemp's are 0600)."""
        fd = self.raw.fileno()
        if self.keep is None:
            umask = os.umask(0)
            os.umask(umask)
            os.fchmod(fd, 0o666 & ~umask)
            return
        st = self.keep
        if (st.st_uid, st.st_gid) != (os.geteuid(), os.getegid()):
            # The owner where permitted (root), else at least the group where the
            # user is in it; chown clears set-user-ID bits, so the mode comes after.
            for uid, gid in ((st.st_uid, st.st_gid), (-1, st.st_gid)):
                try:
                    os.fchown(fd, uid, gid)
                    break
                except PermissionError:
                    continue
        os.fchmod(fd, stat.S_IMODE(st.st_mode))

    def end_on_signals(self) -> None:
        """SIGTERM and SIGHUP raise Ended while a temporary file exists, so that it is
        removed (the default action would end the process at once)."""

        def ended(signum, frame):
            raise Ended(signum)

        for name in ENDING_SIGNALS:
            signum = getattr(signal, name, None)
            if signum is None:
                continue
            try:
                previous = signal.getsignal(signum)
                if previous is signal.SIG_DFL:
                    signal.signal(signum, ended)
                    self.signals[signum] = previous
            except (ValueError, OSError):
                pass  # not the main thread

    def restore_signals(self) -> None:
        for signum, previous in self.signals.items():
            try:
                signal.signal(signum, previous)
            except (ValueError, OSError):
                pass
        self.signals = {}


def isatty(raw) -> bool:
    try:
        return raw.isatty()
    except (OSError, ValueError, AttributeError):
        return False


def open_output(path: str) -> Output:
    """The Output for `path` ('-': stdout). A regular file (or a new one) is written
    through a temporary file beside it; anything else is written through. A symbolic
    link's target is what is written; a directory is refused."""
    if path == "-":
        return Output(sys.stdout.buffer, "stdout")
    gzipped = path.endswith(".gz")
    target = os.path.realpath(path)
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise UsageError(f"cannot write {path}: {reason(e)}") from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise UsageError(f"cannot write {path}: {os.strerror(errno.EISDIR)}")
    if st is not None and not stat.S_ISREG(st.st_mode):
        out = open_through(path, target, st, gzipped)
        if out is not None:
            return out
        st = os.stat(target)  # it became a regular file meanwhile
    # The ending signals are held back from before the temporary file exists
    # until their handlers are in place: one arriving in between would end
    # the process with the file left behind.
    held = [getattr(signal, name) for name in ENDING_SIGNALS if hasattr(signal, name)]
    blocked = hasattr(signal, "pthread_sigmask")
    if blocked:
        previous_mask = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        try:
            fd, temporary = tempfile.mkstemp(prefix=".orcodec-", dir=os.path.dirname(target))
        except OSError as e:
            raise UsageError(f"cannot write {path}: {reason(e)}") from None
        out = Output(os.fdopen(fd, "wb"), path, gzipped, temporary, target)
        out.keep = st
        out.end_on_signals()
    finally:
        if blocked:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous_mask)
    return out


def open_through(path: str, target: str, st: os.stat_result, gzipped: bool) -> Output | None:
    """An Output writing straight into the device, FIFO or socket `target` (None if it
    is a regular file by the time it is opened). A FIFO's open waits for a reader."""
    if stat.S_ISSOCK(st.st_mode):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(target)
        except OSError as e:
            sock.close()
            raise UsageError(f"cannot write {path}: {reason(e)}") from None
        out = Output(sock.makefile("wb"), path, gzipped)
        out.socket = sock
        return out
    try:
        fd = os.open(target, os.O_WRONLY | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise UsageError(f"cannot write {path}: {reason(e)}") from None
    if stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    return Output(os.fdopen(fd, "wb"), path, gzipped)
