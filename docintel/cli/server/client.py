"""The ask client: hand a CLI ``ask`` to a running server of the same code, or say it did not.

Imports the standard library only (socket, json, os, hashlib; ``subprocess`` when it starts a
server). Every wait is bounded: connect 2 s, the server's first reply 10 s, then a heartbeat
every second or two (a silent server for :data:`SILENCE` s is taken for dead).
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


def forward(argv: list[str]) -> int | None:
    """The exit code of ``argv`` answered by a server, or ``None``: run it in this process.

    ``DOCINTEL_SERVER=off`` never forwards; unset, a running server of the same code is used;
    ``auto`` also starts one (in the background, left running) when none answers."""
    mode = os.environ.get(wire.MODE_ENV, "").strip().lower()
    if mode in ("off", "0", "no", "never", "false"):
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
    if mode != "auto" or got == "busy":
        return None
    if got == "stale":  # this tree's code changed since that server started: replace it
        stop(path)
    if start(path=path) is None:
        return None
    got = _ask(path, argv, fp)
    return got if isinstance(got, int) else None


def stop(path: str | None = None, wait: float = 15.0) -> dict | None:
    """Ask the server to stop and wait (bounded) until its socket is gone; its last status."""
    path = path or wire.socket_path()
    status = request("stop", path)
    deadline = time.monotonic() + wait
    while status and os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.05)
    return status


def start(idle: float | None = None, path: str | None = None) -> dict | None:
    """Start a server in the background (its own session, output to ``server.log`` beside the
    socket) and wait, bounded, until it answers; its status, or ``None`` when it did not come up."""
    import subprocess

    path = path or wire.socket_path()
    folder = os.path.dirname(path)
    wire.check_dir(folder, create=True)
    env = dict(os.environ)
    parent = os.path.dirname(wire.package_dir())  # the server imports this very docintel
    env["PYTHONPATH"] = parent + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env[wire.MODE_ENV] = "off"
    cmd = [sys.executable, "-m", "docintel", "serve", "--foreground"]
    if idle is not None:
        cmd += ["--idle-timeout", str(idle)]
    fd = os.open(os.path.join(folder, "server.log"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        proc = subprocess.Popen(
            cmd, stdin=subprocess.DEVNULL, stdout=fd, stderr=fd, env=env, start_new_session=True
        )
    finally:
        os.close(fd)
    deadline = time.monotonic() + START_WAIT
    while time.monotonic() < deadline and proc.poll() is None:
        status = request("status", path) if os.path.exists(path) else None
        if status and status.get("pid") == proc.pid:
            return status
        time.sleep(0.05)
    if proc.poll() is None:
        proc.kill()
    return None
