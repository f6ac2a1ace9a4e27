"""The ask client: hand a CLI ``ask`` to a running server of the same code, or say it did not.

Imports the standard library only (socket, json, os, hashlib; ``subprocess`` when it starts a
server; which asks may start one: :func:`mode`, :func:`interactive`). Every wait is bounded:
connect 2 s, the server's first reply 10 s, then a heartbeat every second or two (a silent
server for :data:`SILENCE` s is taken for dead).
"""

from __future__ import annotations

import os
import socket
import sys
import time

from docintel.cli.server import wire

CONNECT_TIMEOUT = 2.0
FIRST_REPLY = 10.0
SILENCE = 60.0
START_WAIT = 60.0


def _connect(path: str, timeout: float = CONNECT_TIMEOUT) -> socket.socket | None:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(path)
    except OSError:
        sock.close()
        return None
    return sock


def request(op: str, path: str | None = None) -> dict | None:
    """One ``status`` or ``stop`` exchange; ``None`` when no server answers."""
    path = path or wire.socket_path()
    if not wire.check_socket(path):
        return None
    sock = _connect(path)
    if sock is None:
        return None
    try:
        sock.settimeout(FIRST_REPLY)
        wire.send(sock, {"op": op})
        return wire.Reader(sock).next()
    except (OSError, ValueError):
        return None
    finally:
        sock.close()


def _env() -> dict:
    env = dict(os.environ)
    if "COLUMNS" not in env:  # argparse's help width, as this terminal would give it
        try:
            size = os.get_terminal_size(sys.__stdout__.fileno())
            env["COLUMNS"], env["LINES"] = str(size.columns), str(size.lines)
        except (AttributeError, OSError, ValueError):
            pass
    return env


def _umask() -> int:
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


def _ask(path: str, argv: list[str], fp: str) -> int | str | None:
    """The exit code of the forwarded ask; ``"stale"``/``"busy"``/``None`` when not used."""
    sock = _connect(path)
    if sock is None:
        return None
    wrote, pid = False, None
    try:
        sock.settimeout(FIRST_REPLY)
        wire.send(
            sock,
            {
                "op": "ask",
                "fingerprint": fp,
                "argv": argv,
                "cwd": os.getcwd(),
                "env": _env(),
                "umask": _umask(),
                "tty": [sys.stdout.isatty(), sys.stderr.isatty()],
            },
        )
        reader = wire.Reader(sock)
        first = reader.next()
        if not first or "accepted" not in first:
            return (first or {}).get("refused")
        pid = first["accepted"]
        sock.settimeout(SILENCE)
        while True:
            msg = reader.next()
            if msg is None:
                break
            if "out" in msg:
                sys.stdout.write(msg["out"])
                wrote = True
            elif "err" in msg:
                sys.stdout.flush()
                sys.stderr.write(msg["err"])
                sys.stderr.flush()
                wrote = True
            elif "exit" in msg:
                sys.stdout.flush()
                return int(msg["exit"])
    except BrokenPipeError:  # `docintel ask ... | head`: as the in-process run, exit 0
        return 0
    except KeyboardInterrupt:  # as the in-process run; the server finishes and drops the output
        print("Error: interrupted", file=sys.stderr)
        return 1
    except (OSError, ValueError):
        pass
    finally:
        sock.close()
    sys.stdout.flush()
    if wrote:  # part of the answer is out: running it again here would print it twice
        print(
            f"Error: the docintel server (pid {pid}) ended mid-request; its output above is"
            " incomplete (run again, or set DOCINTEL_SERVER=off)",
            file=sys.stderr,
        )
        return 1
    what = "did not answer" if pid is None else f"(pid {pid}) ended mid-request"
    print(f"warning: the docintel server {what}; answering in this process", file=sys.stderr)
    return None


#: ``DOCINTEL_SERVER`` values: never use a server; start one whenever none answers (and wait for
#: it); use a running one only. Unset (or any other value): use a running one, and after an
#: interactive ask that none answered start one in the background for the next ask.
OFF = ("off", "0", "no", "never", "false")
ALWAYS = ("auto", "on", "1", "yes", "always")
MANUAL = ("manual",)
#: A background start is not tried again within this many seconds of the last one (a server
#: that cannot start, or one still importing, is not started twice).
START_GUARD = 60.0
#: Set by :func:`forward` when no server answered an ask that may start one afterwards.
_START_AFTER: list[str] = []


def mode() -> str:
    """``off``, ``auto``, ``manual`` or ``default`` (unset or unknown) from ``DOCINTEL_SERVER``."""
    raw = os.environ.get(wire.MODE_ENV, "").strip().lower()
    return "off" if raw in OFF else "auto" if raw in ALWAYS else "manual" if raw in MANUAL else "default"


def interactive() -> bool:
    """Whether a person is at this ask: stdin and stdout are terminals and ``CI`` is not set
    (scripts, pipes, redirections, test runners and CI jobs are not)."""
    if os.environ.get("CI", "").strip():
        return False
    try:
        return os.isatty(0) and os.isatty(1)
    except OSError:
        return False


def forward(argv: list[str]) -> int | None:
    """The exit code of ``argv`` answered by a server, or ``None``: run it in this process.

    ``DOCINTEL_SERVER=off`` never forwards; ``auto`` also starts one (and waits for it) when
    none answers; otherwise a running server of the same code is used, and when none answered
    an interactive ask (:func:`interactive`, not with ``manual``), :func:`start_after_ask` starts
    one in the background once this process has answered."""
    how = mode()
    _START_AFTER.clear()
    if how == "off":
        return None
    path = wire.socket_path()
    try:
        present = wire.check_socket(path)
    except wire.Insecure as exc:
        print(f"warning: docintel server not used: {exc}", file=sys.stderr)
        return None
    fp = wire.fingerprint()
    got = _ask(path, argv, fp) if present else None
    if isinstance(got, int):
        return got
    if how != "auto" or got == "busy":
        # "stale": a server of other code answers; it exits by itself once its own files changed
        if how == "default" and got is None and interactive():
            _START_AFTER.append(path)
        return None
    if got == "stale":  # this tree's code changed since that server started: replace it
        stop(path)
    if start(path=path) is None:
        return None
    got = _ask(path, argv, fp)
    return got if isinstance(got, int) else None


def start_after_ask() -> int | None:
    """Start a server in the background when :func:`forward` found none for an interactive ask
    (its pid), after this process answered, so the first ask waits for nothing; never twice
    within :data:`START_GUARD` seconds. Never raises: the answer is already out."""
    if not _START_AFTER:
        return None
    path = _START_AFTER.pop()
    try:
        sys.stdout.flush()  # the answer is out before the server's start
        marker = path + ".started"
        try:
            if time.time() - os.stat(marker).st_mtime < START_GUARD:
                return None
        except FileNotFoundError:
            pass
        wire.check_dir(os.path.dirname(path), create=True)
        os.close(os.open(marker, os.O_WRONLY | os.O_CREAT, 0o600))
        os.utime(marker)
        return _spawn(path, None).pid
    except (OSError, ValueError, wire.Insecure):  # a closed stdout, a full disk: no server
        return None


def stop(path: str | None = None, wait: float = 15.0) -> dict | None:
    """Ask the server to stop and wait (bounded) until its socket is gone; its last status."""
    path = path or wire.socket_path()
    status = request("stop", path)
    deadline = time.monotonic() + wait
    while status and os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.05)
    return status


def _spawn(path: str, idle: float | None):
    """``docintel serve --foreground`` of this very docintel, detached: its own session (no
    terminal, no hang-up when this one closes), stdin from /dev/null, output to ``server.log``
    beside the socket, working folder ``/`` (it holds no folder; each ask runs in its client's)."""
    import subprocess

    folder = os.path.dirname(path)
    env = dict(os.environ)
    parent = os.path.dirname(wire.package_dir())  # the server imports this very docintel
    env["PYTHONPATH"] = parent + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env[wire.MODE_ENV] = "off"
    cmd = [sys.executable, "-m", "docintel", "serve", "--foreground"]
    if idle is not None:
        cmd += ["--idle-timeout", str(idle)]
    fd = os.open(os.path.join(folder, "server.log"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        return subprocess.Popen(
            cmd, stdin=subprocess.DEVNULL, stdout=fd, stderr=fd, env=env, cwd="/", start_new_session=True
        )
    finally:
        os.close(fd)


def start(idle: float | None = None, path: str | None = None) -> dict | None:
    """Start a server in the background (see :func:`_spawn`) and wait, bounded, until it
    answers; its status, or ``None`` when it did not come up."""
    path = path or wire.socket_path()
    wire.check_dir(os.path.dirname(path), create=True)
    proc = _spawn(path, idle)
    deadline = time.monotonic() + START_WAIT
    while time.monotonic() < deadline and proc.poll() is None:
        status = request("status", path) if os.path.exists(path) else None
        if status and status.get("pid") == proc.pid:
            return status
        time.sleep(0.05)
    if proc.poll() is None:
        proc.kill()
    return None
