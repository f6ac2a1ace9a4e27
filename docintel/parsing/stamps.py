"""Stamps of the cache files a load read: what the warm memo (:mod:`.warm`) re-checks per ask.

:func:`read` reads a file of a cache entry's version folder and records its stamp, taken with
``fstat`` on the open file before the read: its (inode, size, mtime), or, for a file modified
under :data:`RACY_NS` before, its inode, size and sha256. :func:`unchanged` tells whether every
file read from a version folder still has its stamp (a stat per file; a read and a hash only for
those recently written ones).
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

#: version folder -> {file name: stamp} of the files read from it.
_SEEN: dict[str, dict[str, tuple]] = {}
#: A file modified this recently when it is read has no trustworthy stat: a write within the
#: file system's timestamp granularity (a clock tick; 1-2 s on some) could keep its mtime. Such a
#: file (one this process or another just wrote) is stamped by its sha256 instead.
RACY_NS = 2 * 10**9


def _stat_key(st: os.stat_result) -> tuple[int, int, int]:
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def forget(live: Path) -> None:
    """Start the record of ``live`` afresh (a new load of it begins)."""
    _SEEN.pop(str(live), None)


def read(live: Path, name: str) -> bytes:
    """The bytes of ``live/name``, its stamp recorded (taken on the open file before the read: a
    change during or after the read makes it differ)."""
    with open(live / name, "rb") as fh:
        st = os.fstat(fh.fileno())
        data = fh.read()
    seen = _SEEN.setdefault(str(live), {})
    if len(_SEEN) > 64:  # bounded: old versions' records go (a memo entry keeps its own dict)
        _SEEN.pop(next(iter(_SEEN)))
        seen = _SEEN.setdefault(str(live), seen)
    seen[name] = _stamp(st, data)
    return data


def _stamp(st: os.stat_result, data: bytes) -> tuple:
    """A file's stamp: its stat key, or for a file modified under RACY_NS ago its inode, size and
    sha256 (compared by content until its stat can be trusted)."""
    if time.time_ns() - st.st_mtime_ns >= RACY_NS:
        return _stat_key(st)
    return ("sha256", st.st_ino, st.st_size, hashlib.sha256(data).hexdigest())


def _same(path: Path, stamp: tuple, seen: dict, name: str) -> bool:
    st = os.stat(path)
    if stamp[0] != "sha256":
        return _stat_key(st) == stamp
    if (st.st_ino, st.st_size) != stamp[1:3]:
        return False
    with open(path, "rb") as fh:
        if hashlib.sha256(fh.read()).hexdigest() != stamp[3]:
            return False
    if time.time_ns() - st.st_mtime_ns >= RACY_NS:  # old enough now: its stat from here on
        seen[name] = _stat_key(st)
    return True


def seen(live: Path | None) -> tuple[str, dict[str, tuple]] | None:
    """(``live``, {file: stamp} of every file read from it), or None when nothing was read. The
    dict is the record itself: a later read of the same version (the index sidecar) adds to it."""
    record = _SEEN.get(str(live)) if live is not None else None
    return (str(live), record) if record else None


def unchanged(live: Path | None, stamp: tuple[str, dict[str, tuple]]) -> bool:
    """Whether ``live`` (the entry's live version now) is ``stamp``'s folder and every file read
    from it still has its stamp: a new version or a file changed in place is False."""
    if live is None or str(live) != stamp[0]:
        return False
    try:
        return all(_same(live / name, key, stamp[1], name) for name, key in list(stamp[1].items()))
    except OSError:
        return False
