"""Writes that are all or nothing: a reader sees the old file or the new one, never half of one.

The data goes to a unique temporary sibling, is flushed to disk, and replaces the target with one
``os.replace``; on any failure (a full disk, a kill signal turned into an exception) the temporary
file is removed and the target is untouched. A process killed outright (SIGKILL) can leave a
``.<name>.tmp-<pid>-*`` sibling behind: :func:`clean_stale_temps` removes the ones whose owner
is gone.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
import time
from pathlib import Path

#: A temporary file or folder left by a killed writer is removed after this long even if its pid
#: has been reused by another process.
STALE_SECONDS = 3600

_TMP = re.compile(r"^\.(?P<name>.+)\.(?:tmp|link)-(?P<pid>\d+)-")


def fsync_dir(path: str | Path) -> None:
    """Flush a folder's entries (a rename inside it) to disk; a no-op where unsupported."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def temp_name(target: Path, kind: str = "tmp") -> str:
    """The prefix of a temporary sibling of ``target`` owned by this process."""
    return f".{target.name}.{kind}-{os.getpid()}-"


def atomic_write_bytes(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (unique temp sibling, fsync, ``os.replace``)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=temp_name(path), dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_dir(path.parent)
    return path


def atomic_write_text(path: str | Path, text: str, encoding: str = "utf-8") -> Path:
    """:func:`atomic_write_bytes` for text."""
    return atomic_write_bytes(path, text.encode(encoding))


def pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's live process
        return True
    return True


def is_stale(entry: Path, *, now: float | None = None) -> bool:
    """A temp file/folder of ours whose writer is gone (dead pid) or that is older than STALE_SECONDS."""
    m = _TMP.match(entry.name)
    if not m:
        return False
    try:
        age = (now or time.time()) - entry.lstat().st_mtime
    except OSError:
        return False
    return not pid_alive(int(m["pid"])) or age > STALE_SECONDS


def clean_stale_temps(folder: str | Path) -> list[Path]:
    """Remove the stale temporary siblings in ``folder``; returns what was removed."""
    removed = []
    folder = Path(folder)
    try:
        entries = list(folder.iterdir())
    except OSError:
        return removed
    for entry in entries:
        if not is_stale(entry):
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                entry.unlink()
        removed.append(entry)
    return removed
