"""`docintel serve`: the per-user resident process that answers CLI asks with its imports paid.

``docintel serve`` starts it in the background (``--foreground`` runs it here), ``--status``
and ``--stop`` talk to it. It listens on a Unix socket in a private folder (0700:
``$XDG_RUNTIME_DIR/docintel``, else ``~/.cache/docintel/run``; env ``DOCINTEL_SERVER_DIR``) and
exits after ``--idle-timeout`` seconds without a request (env ``DOCINTEL_SERVER_IDLE``).
"""

from __future__ import annotations

import contextlib
import os
import sys

from docintel.cli.server import client, wire
from docintel.errors import UsageError

VERBS = ("serve",)
#: What a cached ask imports, loaded once at start (pymupdf too: an ask that parses needs it).
WARM = (
    "pandas",
    "pyarrow.parquet",
    "pymupdf",
    "docintel.api",
    "docintel.cli.ask",
    "docintel.parsing.store",
    "docintel.generation.registry",
    "docintel.generation.offline",
    "docintel.schema.trace",
)


def add_parser(sub) -> None:
    p = sub.add_parser(
        "serve", help="keep a process that answers `docintel ask` without paying the imports each time"
    )
    what = p.add_mutually_exclusive_group()
    what.add_argument("--foreground", action="store_true", help="run the server in this process")
    what.add_argument("--stop", action="store_true", help="stop the running server")
    what.add_argument("--status", action="store_true", help="say whether a server runs (exit 1 if not)")
    p.add_argument(
        "--idle-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help=f"exit after this long without a request (default {wire.DEFAULT_IDLE:.0f}; env DOCINTEL_SERVER_IDLE)",
    )
    p.set_defaults(func=run)


def _idle(args) -> float:
    raw = args.idle_timeout if args.idle_timeout is not None else os.environ.get("DOCINTEL_SERVER_IDLE")
    if raw is None:
        return wire.DEFAULT_IDLE
    try:
        value = float(raw)
    except ValueError:
        raise UsageError(f"idle timeout {raw!r} is not a number of seconds") from None
    if value <= 0:
        raise UsageError(f"idle timeout must be positive seconds, not {raw}")
    return value


def _describe(st: dict) -> str:
    return (
        f"pid {st['pid']}, socket {st['socket']}, up {st['uptime']:.0f} s, {st['requests']} request(s),"
        f" idle timeout {st['idle_timeout']:.0f} s"
    )


def run(args) -> int:
    path = wire.socket_path()
    try:
        if args.foreground:
            return _foreground(path, _idle(args))
        if args.status or args.stop:
            st = client.request("status", path)
            if st is None:
                print(f"docintel server: not running ({path})")
                return 1 if args.status else 0
            if args.stop:
                client.stop(path)
                print(f"docintel server: stopped (pid {st['pid']})")
                return 0
            state = "current" if st["fingerprint"] == wire.fingerprint() else "stale (code changed; not used)"
            print(f"docintel server: running, {state}: {_describe(st)}")
            return 0
        idle = _idle(args)
        st = client.request("status", path)
        if st is not None and st["fingerprint"] == wire.fingerprint():
            print(f"docintel server: already running: {_describe(st)}")
            return 0
        if st is not None:
            client.stop(path)
        st = client.start(idle, path)
    except wire.Insecure as exc:
        raise UsageError(f"server folder refused: {exc} (or set DOCINTEL_SERVER_DIR)") from None
    if st is None:
        log = os.path.join(os.path.dirname(path), "server.log")
        raise UsageError(f"the server did not start; see {log}")
    print(f"docintel server: started: {_describe(st)}")
    return 0


def _foreground(path: str, idle: float) -> int:
    from docintel import cli
    from docintel.cli.server.daemon import Server

    fp = wire.fingerprint()  # before the imports: a file changed while they load makes it stale
    server = Server(path, cli.run, fp, idle)
    try:
        # the socket first, the imports after: a second server started meanwhile exits at once
        # (it finds this one listening), and an ask arriving meanwhile waits for them
        server.bind()
    except RuntimeError as exc:
        raise UsageError(str(exc)) from None
    print(
        f"docintel server: pid {os.getpid()} listening on {path} (idle timeout {idle:.0f} s)", file=sys.stderr
    )
    server.serve(warm=_warm)
    print(f"docintel server: pid {os.getpid()} exits after {server.served} request(s)", file=sys.stderr)
    return 0


def _warm() -> None:
    from importlib import import_module

    for name in WARM:
        with contextlib.suppress(ImportError):  # the ask will say what is missing
            import_module(name)
