"""The server loop: one request at a time, in the main thread, as the client's own process would.

An acceptor thread answers ``status``/``stop`` at once, refuses an ``ask`` whose code
fingerprint is not this process's (``stale``) or that arrives while another runs (``busy``:
the client then answers in its own process), and queues the others. The main thread runs each
queued ask with the client's argv, working folder, environment and umask, its stdout/stderr
streamed back, while a heartbeat tells the client it is alive. It exits after ``idle`` seconds
without a request, on ``stop``, or when its own files changed under it.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import queue
import socket
import struct
import sys
import threading
import time
import traceback
import warnings
from collections.abc import Callable

from docintel.cli.server import wire

HEARTBEAT = 1.0


class _Stream(io.TextIOBase):
    """sys.stdout/sys.stderr of the server: the current request's socket, else the server log."""

    def __init__(self, key: str, fallback):
        self.key, self.fallback = key, fallback
        self.conn: socket.socket | None = None
        self.lock: threading.Lock | None = None
        self.tty = False

    def write(self, s: str) -> int:
        conn = self.conn
        if conn is None:
            return self.fallback.write(s)
        if s:
            try:
                with self.lock:
                    wire.send(conn, {self.key: s})
            except OSError:  # the client went away (`| head`, Ctrl-C): the rest is dropped
                self.conn = None
        return len(s)

    def isatty(self) -> bool:
        return self.tty if self.conn is not None else False

    def flush(self) -> None:
        if self.conn is None:
            self.fallback.flush()


def _peer_uid(conn: socket.socket) -> int:
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", creds)[1]


class Server:
    def __init__(self, path: str, handler: Callable[[list[str]], int], fp: str, idle: float):
        self.path, self.handler, self.fp, self.idle = path, handler, fp, idle
        self.jobs: queue.Queue = queue.Queue()
        self.busy = threading.Event()
        self.stopping = threading.Event()
        self.started, self.served = time.time(), 0
        self.last = time.monotonic()

    def status(self) -> dict:
        return {
            "pid": os.getpid(),
            "socket": self.path,
            "fingerprint": self.fp,
            "uptime": round(time.time() - self.started, 1),
            "requests": self.served,
            "busy": self.busy.is_set(),
            "idle_timeout": self.idle,
        }

    def bind(self) -> None:
        """Listen on the socket (mode 0600 in a 0700 folder); refuse when a server answers there."""
        wire.check_dir(os.path.dirname(self.path), create=True)
        if os.path.lexists(self.path):
            wire.check_socket(self.path)
            probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            probe.settimeout(2.0)
            try:
                probe.connect(self.path)
                raise RuntimeError(f"a docintel server already listens on {self.path}")
            except OSError:
                os.unlink(self.path)  # left by a server that was killed
            finally:
                probe.close()
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)
        try:
            self.sock.bind(self.path)
        finally:
            os.umask(old)
        self.inode = os.stat(self.path).st_ino
        self.sock.listen(16)
        self.sock.settimeout(0.5)

    def _accept_loop(self) -> None:
        while not self.stopping.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            try:
                self._triage(conn)
            except (OSError, ValueError):
                conn.close()

    def _triage(self, conn: socket.socket) -> None:
        if _peer_uid(conn) != os.getuid():  # the folder is private; this is the second lock
            conn.close()
            return
        conn.settimeout(10.0)
        req = wire.Reader(conn).next() or {}
        op = req.get("op")
        if op == "ask" and req.get("fingerprint") == self.fp and not self.busy.is_set():
            self.busy.set()
            self.jobs.put((conn, req))
            return
        if op == "ask":
            stale = req.get("fingerprint") != self.fp
            wire.send(conn, {"refused": "stale" if stale else "busy"})
            if stale and wire.fingerprint() != self.fp:  # my own files changed: I am useless
                self.stop()
        elif op in ("status", "stop"):
            wire.send(conn, self.status())
            if op == "stop":
                self.stop()
        conn.close()

    def stop(self) -> None:
        self.stopping.set()
        self.jobs.put(None)

    def serve(self, warm: Callable[[], None] | None = None) -> None:
        """Answer until idle or stopped; ``warm`` (the imports) runs once the socket answers
        ``status`` and queues asks (they wait for it, within the client's bounded first reply)."""
        out, err = _Stream("out", sys.stdout), _Stream("err", sys.stderr)
        sys.stdout, sys.stderr = out, err
        acceptor = threading.Thread(target=self._accept_loop, name="docintel-accept", daemon=True)
        acceptor.start()
        try:
            if warm is not None:
                warm()
                self.last = time.monotonic()  # idle from when it can answer
            while True:
                try:
                    job = self.jobs.get(timeout=max(0.1, self.idle - (time.monotonic() - self.last)))
                except queue.Empty:
                    if time.monotonic() - self.last >= self.idle and not self.busy.is_set():
                        break
                    continue
                if job is None:
                    break
                try:
                    self._run(*job, out, err)
                finally:
                    self.served += 1
                    self.last = time.monotonic()
                    self.busy.clear()
        finally:
            self.stopping.set()
            sys.stdout, sys.stderr = out.fallback, err.fallback
            self.sock.close()
            with contextlib.suppress(OSError):
                if os.stat(self.path).st_ino == self.inode:
                    os.unlink(self.path)

    def _run(self, conn: socket.socket, req: dict, out: _Stream, err: _Stream) -> None:
        lock, done = threading.Lock(), threading.Event()

        def beat() -> None:
            while not done.wait(HEARTBEAT):
                try:
                    with lock:
                        wire.send(conn, {"alive": 1})
                except OSError:
                    return

        try:
            wire.send(conn, {"accepted": os.getpid()})
        except OSError:
            conn.close()
            return
        beater = threading.Thread(target=beat, name="docintel-heartbeat", daemon=True)
        beater.start()
        tty = req.get("tty") or [False, False]
        out.conn, out.lock, out.tty = conn, lock, bool(tty[0])
        err.conn, err.lock, err.tty = conn, lock, bool(tty[1])
        try:
            code = self._in_client_context(req)
        finally:
            out.conn = err.conn = None
            done.set()
            beater.join()
        with contextlib.suppress(OSError):
            wire.send(conn, {"exit": code})
        conn.close()

    def _in_client_context(self, req: dict) -> int:
        """The handler's exit code, run in the client's folder, environment and umask."""
        saved_env, saved_cwd = dict(os.environ), os.getcwd()
        saved_mask = os.umask(int(req.get("umask", 0o022)))
        root = logging.getLogger()
        for h in list(root.handlers):  # the CLI configures logging per run (--debug)
            root.removeHandler(h)
        try:
            with warnings.catch_warnings():  # a warning shown once per process shows once per ask
                try:
                    os.environ.clear()
                    os.environ.update(req.get("env") or {})
                    os.chdir(req["cwd"])
                    return int(self.handler(list(req["argv"])) or 0)
                except SystemExit as exc:  # argparse errors, --help
                    if exc.code is None or isinstance(exc.code, int):
                        return exc.code or 0
                    print(exc.code, file=sys.stderr)
                    return 1
                except Exception:  # what escapes the CLI (`--debug`): as Python would show it
                    traceback.print_exc()
                    return 1
        finally:
            for h in list(root.handlers):
                root.removeHandler(h)
            os.environ.clear()
            os.environ.update(saved_env)
            with contextlib.suppress(OSError):
                os.chdir(saved_cwd)
            os.umask(saved_mask)
            sys.stdout.flush()
            sys.stderr.flush()
