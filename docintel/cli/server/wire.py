"""What the ask client and the server share: the private socket folder, the code fingerprint,
newline-delimited JSON messages. Standard library only (the client path imports this)."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import sys

#: ``DOCINTEL_SERVER``: unset = forward to a running server and start one in the background after
#: an interactive ask none answered, ``auto`` = start one whenever none answers, ``manual`` = only
#: a running one, ``off`` = never forward (``client.mode``).
MODE_ENV = "DOCINTEL_SERVER"
#: The socket folder, for tests and unusual setups (default: $XDG_RUNTIME_DIR/docintel or
#: ~/.cache/docintel/run).
DIR_ENV = "DOCINTEL_SERVER_DIR"
DEFAULT_IDLE = 900.0


class Insecure(Exception):
    """The socket folder or socket is not this user's alone: never used."""


def package_dir() -> str:
    import docintel

    return os.path.dirname(os.path.abspath(docintel.__file__))


def socket_dir() -> str:
    env = os.environ.get(DIR_ENV)
    if env:
        return os.path.abspath(env)
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isdir(runtime):
        return os.path.join(runtime, "docintel")
    return os.path.join(os.path.expanduser("~"), ".cache", "docintel", "run")


def socket_path() -> str:
    """One socket per (python executable, docintel package folder): two trees never share one."""
    key = hashlib.sha256(f"{sys.executable}\0{package_dir()}".encode()).hexdigest()[:16]
    return os.path.join(socket_dir(), f"ask-{key}.sock")


def _own(path: str, is_kind, what: str) -> os.stat_result | None:
    """``lstat`` of ``path`` when it is ``what`` and this user's; None when absent; :class:`Insecure` else."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if not is_kind(st.st_mode):
        raise Insecure(f"{path} is not {what}")
    if st.st_uid != os.getuid():
        raise Insecure(f"{path} belongs to another user (uid {st.st_uid})")
    return st


def check_dir(path: str, *, create: bool = False) -> bool:
    """True when ``path`` is a real folder of this user with no group/other access; False when
    it does not exist (created 0700 with ``create``); :class:`Insecure` otherwise."""
    if create:
        os.makedirs(path, mode=0o700, exist_ok=True)  # the leaf 0700; an existing one is checked
    st = _own(path, stat.S_ISDIR, "a folder")
    if st is None:
        return False
    if st.st_mode & 0o077:
        raise Insecure(f"{path} is open to other users (mode {stat.S_IMODE(st.st_mode):o}; chmod 700 it)")
    return True


def check_socket(path: str) -> bool:
    """True when ``path`` is a socket of this user in a private folder; False when absent."""
    if not check_dir(os.path.dirname(path)):
        return False
    return _own(path, stat.S_ISSOCK, "a socket") is not None


def fingerprint() -> str:
    """The code a process would run: docintel's version and files (path, size, mtime), the
    interpreter, the import-time switch of the layout import, and the install folders' mtimes
    (a pip install or upgrade changes them)."""
    import docintel

    h = hashlib.sha256()
    pkg = package_dir()
    h.update(f"{docintel.__version__}\0{sys.executable}\0{sys.version}\0{pkg}\0".encode())
    h.update(f"{os.environ.get('DOCINTEL_EAGER_LAYOUT', '')}\0{sys.flags.optimize}\0".encode())
    for root, dirs, files in os.walk(pkg):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                st = os.stat(os.path.join(root, name))
                h.update(f"{os.path.relpath(root, pkg)}/{name}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    for entry in sys.path:
        if entry.endswith(("site-packages", "dist-packages")) and os.path.isdir(entry):
            h.update(f"{entry}\0{os.stat(entry).st_mtime_ns}\0".encode())
    return h.hexdigest()


def send(sock, msg: dict) -> None:
    sock.sendall(json.dumps(msg, ensure_ascii=False).encode() + b"\n")


class Reader:
    """Messages from a socket, one JSON object a line; ``None`` at the end of the stream."""

    def __init__(self, sock):
        self.sock, self.buf = sock, b""

    def next(self) -> dict | None:
        while b"\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                return None
            self.buf += chunk
        line, _, self.buf = self.buf.partition(b"\n")
        return json.loads(line)
