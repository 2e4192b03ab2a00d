"""The python side of the test kernel (extension.js starts one of these per notebook).

Protocol: requests arrive as JSON lines on fd 3 ({"id", "code", "count"}); every message goes out as a
JSON line on fd 4 (ready, stream, display, result, error, done), in the order the cell produced it.
sys.stdout/sys.stderr write to fd 4 (ordered with displays); what reaches the raw fds 1/2 (os.write,
subprocesses, C code) is read by extension.js from the pipes, up to a sync marker written before "done".
fd 0 is /dev/null: input() gets EOF, never the protocol.

Only for tests (README.md); no dependencies beyond the standard library.
"""
import ast
import base64
import builtins
import io
import json
import linecache
import os
import signal
import struct
import sys
import threading
import time
import traceback
import zlib

PROTO_IN = os.fdopen(3, "rb", buffering=0)
PROTO_OUT_FD = 4
for _fd in (3, 4):
    os.set_inheritable(_fd, False)  # user subprocesses must not hold the protocol pipes open
# One lock for taking buffered stream text and sending it, so no display/result overtakes earlier prints.
_out_lock = threading.RLock()
DRIVER_FILE = os.path.abspath(__file__)
SYNC_MARK = "\x00nc-test-kernel-sync:%s\x00"


def send(msg):
    data = (json.dumps(msg) + "\n").encode("utf-8")
    main = threading.current_thread() is threading.main_thread()
    with _out_lock:
        # A KeyboardInterrupt in the middle of a line would break the protocol: it waits for the line's end.
        if main:
            State.sending += 1
        try:
            view = memoryview(data)
            while view:
                n = os.write(PROTO_OUT_FD, view)
                view = view[n:]
        finally:
            if main:
                State.sending -= 1
    if main and State.sending == 0 and State.pending_interrupt:
        State.pending_interrupt = False
        if State.interruptible:
            raise KeyboardInterrupt()


class State:
    current = None  # id of the running request
    interruptible = False  # user code is running: SIGINT raises KeyboardInterrupt
    sending = 0  # the main thread is writing a protocol line
    pending_interrupt = False


# ---------------------------------------------------------------------------------------------
# Streams: buffered, flushed at most every 50 ms by a thread (so a long cell streams while it runs)


class StreamWriter(io.TextIOBase):
    def __init__(self, name):
        self.name = name
        self._buf = []
        self._lock = threading.Lock()

    def writable(self):
        return True

    def write(self, s):
        if not isinstance(s, str):
            raise TypeError("write() argument must be str, not %s" % type(s).__name__)
        if s:
            with self._lock:
                self._buf.append(s)
        return len(s)

    def flush(self):
        with _out_lock:
            with self._lock:
                text = "".join(self._buf)
                self._buf = []
            if text and State.current is not None:
                send({"type": "stream", "id": State.current, "name": self.name, "text": text})

    def isatty(self):
        return False


STDOUT = StreamWriter("stdout")
STDERR = StreamWriter("stderr")


def flush_streams():
    STDOUT.flush()
    STDERR.flush()


def flusher():
    parent = os.getppid()
    while True:
        time.sleep(0.05)
        if os.getppid() != parent:  # the extension host is gone: nobody reads us any more
            os._exit(0)
        try:
            flush_streams()
        except Exception:
            pass


# ---------------------------------------------------------------------------------------------
# Rich output: display(), display_png(), png_bytes() (no matplotlib here)


def _png_chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def png_bytes(width=64, height=48, color=(200, 60, 40)):
    """A PNG of width x height; color is an (r, g, b) tuple or a function (x, y) -> (r, g, b)."""
    pixel = color if callable(color) else (lambda x, y: color)
    rows = bytearray()
    for y in range(height):
        rows.append(0)
        for x in range(width):
            rows.extend(bytes(int(c) & 0xFF for c in pixel(x, y)))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", header) + _png_chunk(b"IDAT", zlib.compress(bytes(rows))) + _png_chunk(b"IEND", b"")


def mime_bundle(obj):
    """Jupyter-style rich representations of obj (its _repr_*_ methods), text/plain always."""
    data = {}
    bundle = getattr(obj, "_repr_mimebundle_", None)
    if callable(bundle):
        got = bundle()
        if isinstance(got, tuple):
            got = got[0]
        data.update(got or {})
    for mime, attr in (("image/png", "_repr_png_"), ("text/html", "_repr_html_"), ("application/json", "_repr_json_")):
        fn = getattr(obj, attr, None)
        if mime not in data and callable(fn):
            value = fn()
            if value is not None:
                data[mime] = value
    if isinstance(data.get("image/png"), (bytes, bytearray)):
        data["image/png"] = base64.b64encode(bytes(data["image/png"])).decode("ascii")
    data.setdefault("text/plain", repr(obj))
    return data


def emit(msg):
    """Sends msg after the text printed before it."""
    with _out_lock:
        flush_streams()
        send(msg)


def _display_data(data):
    if State.current is not None:
        emit({"type": "display", "id": State.current, "data": data})


def display(*objs):
    for obj in objs:
        _display_data(mime_bundle(obj))


def display_png(data, alt="<image/png>"):
    _display_data({"image/png": base64.b64encode(bytes(data)).decode("ascii"), "text/plain": alt})


def display_html(html):
    _display_data({"text/html": str(html), "text/plain": "<HTML>"})


def display_json(obj):
    _display_data({"application/json": obj, "text/plain": json.dumps(obj)})


def _no_input(prompt=""):
    raise RuntimeError("input() is not supported by the test kernel (no stdin)")


# ---------------------------------------------------------------------------------------------
# Tracebacks: coloured like IPython's (Jupyter's error outputs carry ANSI escapes)

RED, GREEN, CYAN, RESET = "\x1b[0;31m", "\x1b[0;32m", "\x1b[0;36m", "\x1b[0m"


def _cell_name(filename):
    if filename.startswith("<cell-") and filename.endswith(">"):
        return "In[%s]" % filename[6:-1]
    return None


def format_error(exc):
    ename, evalue = type(exc).__name__, str(exc)
    lines = [RED + "-" * 75 + RESET, "%s%s%s%s Traceback (most recent call last)" % (RED, ename, RESET, " " * max(1, 33 - len(ename)))]
    # From the first frame in a cell on (not this driver's, nor ast.parse's for a SyntaxError), without the
    # SIGINT handler's frame at the end.
    frames = list(traceback.extract_tb(exc.__traceback__))
    while frames and _cell_name(frames[0].filename) is None:
        frames.pop(0)
    while frames and os.path.abspath(frames[-1].filename) == DRIVER_FILE:  # the SIGINT handler's raise
        frames.pop()
    for f in frames:
        cell = _cell_name(f.filename)
        where = "Cell %s%s, line %d%s" % (GREEN, cell, f.lineno, RESET) if cell else "File %s%s:%d%s, in %s%s%s" % (GREEN, f.filename, f.lineno, RESET, CYAN, f.name, RESET)
        src = (f.line or "").strip()
        lines.append("%s\n%s----> %d%s %s" % (where, GREEN, f.lineno, RESET, src))
    if isinstance(exc, SyntaxError) and exc.lineno is not None:
        cell = _cell_name(exc.filename or "")
        lines.append("  Cell %s%s, line %d%s\n    %s\n    %s%s^%s" % (GREEN, cell or exc.filename, exc.lineno, RESET, (exc.text or "").rstrip("\n"), " " * max(0, (exc.offset or 1) - 1), RED, RESET))
        evalue = exc.msg
    lines.append("%s%s%s: %s" % (RED, ename, RESET, evalue))
    return {"ename": ename, "evalue": evalue, "traceback": lines}


# ---------------------------------------------------------------------------------------------
# Execution

USER_NS = {
    "__name__": "__main__",
    "__builtins__": builtins,
    "display": display,
    "display_png": display_png,
    "display_html": display_html,
    "display_json": display_json,
    "png_bytes": png_bytes,
}


def interrupt_handler(signum, frame):
    # SIGINT only interrupts user code; between cells (or while this driver writes a message) it is dropped.
    if State.interruptible and State.sending:
        State.pending_interrupt = True
    elif State.interruptible:
        raise KeyboardInterrupt()


def run_cell(req):
    rid, code, count = req["id"], req["code"], req.get("count", 0)
    filename = "<cell-%s>" % count
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
    ok = True
    State.current = rid
    State.pending_interrupt = False
    try:
        State.interruptible = True
        tree = ast.parse(code, filename, "exec")
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr) and not code.rstrip().endswith(";"):
            last = ast.Expression(tree.body.pop().value)
        exec(compile(tree, filename, "exec"), USER_NS)
        value = eval(compile(last, filename, "eval"), USER_NS) if last is not None else None
        State.interruptible = False
        if value is not None:
            USER_NS["_"] = value
            emit({"type": "result", "id": rid, "data": mime_bundle(value)})
    except BaseException as exc:  # KeyboardInterrupt and SystemExit too: the kernel keeps running
        State.interruptible = False
        ok = False
        emit(dict(type="error", id=rid, **format_error(exc)))
    finally:
        State.interruptible = False
    flush_streams()
    sys.__stdout__.flush()
    sys.__stderr__.flush()
    mark = (SYNC_MARK % rid).encode("ascii")
    os.write(1, mark)
    os.write(2, mark)
    State.current = None
    send({"type": "done", "id": rid, "ok": ok})


def main():
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    sys.stdin = io.TextIOWrapper(io.BytesIO(b""))
    builtins.input = _no_input
    sys.stdout, sys.stderr = STDOUT, STDERR
    signal.signal(signal.SIGINT, interrupt_handler)
    threading.Thread(target=flusher, daemon=True).start()
    send({"type": "ready", "pid": os.getpid(), "python": sys.version.split()[0]})
    reader = io.BufferedReader(PROTO_IN)
    while True:
        try:
            line = reader.readline()
            if not line:
                os._exit(0)  # the extension host closed the pipe
            run_cell(json.loads(line))
        except KeyboardInterrupt:
            continue


if __name__ == "__main__":
    main()
