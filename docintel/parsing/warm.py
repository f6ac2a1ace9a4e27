"""The process's memo of cached documents: tables loaded from the cache, served again unread.

A ``docintel serve`` process (and a program calling :func:`docintel.api.ask` twice) reads the
same cache entry for every ask. The first load checks everything (the PDF's sha256, its
password, every table's checksum, the index sidecar's hash); the memo then keeps the loaded
:class:`DocTables` (and so the retrieval index kept in memory for its frames) keyed by the PDF
and the parse options, and serves it again while a stat of each file says nothing changed:

- the PDF: same inode, size and mtime (else it is read and hashed again: maybe another document).
  A PDF modified under :data:`.stamps.RACY_NS` before it was read (a same-size rewrite within a
  coarse timestamp tick, as on FAT, SMB/NFS or HFS+, could keep its mtime) is stamped by the
  sha256 its tables were read for (``source_sha256``) instead, and read and hashed again per ask
  until its stat is old enough to be trusted, the rule :mod:`.stamps` applies to cache files;
- the cache entry: the same live version folder (a save, an appended ``cross_ref_df`` or a new
  sidecar is a new version) and, for every file read from it, the inode, size and mtime it had
  when it was read, or its sha256 for a file written just before (:mod:`.stamps`): a file changed
  in place is loaded and checked again exactly as on a first load.

Every caller gets its own :class:`DocTables` (a copy of the container and of its manifest; the
frames themselves are shared, so the in-memory retrieval index keyed on them still serves): a
caller that reassigns a frame (``t.line_df = t.line_df[...]``), edits the manifest or appends
learned references (``store.append_cross_refs`` reassigns ``cross_ref_df``) changes its own
object, never what the next ask gets. The frames are read-only: a caller editing one *in place*
(``t.line_df.loc[...] = ...``) would still change every later ask's.

Only tables read from the cache are kept (a fresh parse's frames are not what the cache holds),
at most :data:`MAX_DOCS` documents and :data:`MAX_BYTES` of cached files (least recently used
first out).
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import os
import threading
import time
from collections import OrderedDict
from pathlib import Path

from docintel.schema.document import DocTables

#: Documents kept, and the bytes of their cache files (a proxy of their memory), at most.
MAX_DOCS = 8
MAX_BYTES = 128 * 2**20

_MEMO: OrderedDict[tuple, tuple] = OrderedDict()
_LOCK = threading.Lock()


def pdf_stat(path: str | Path) -> tuple[int, int, int] | None:
    """The PDF's (inode, size, mtime in ns), what the memo re-checks per ask; None when unreadable."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def key_of(path: str | Path, out_dir: Path, options: dict) -> tuple:
    """The memo key: the PDF's absolute path, the cache root and every parse option."""
    return (os.path.abspath(path), str(Path(out_dir).absolute()), tuple(sorted(options.items())))


def lookup(key: tuple, path: str | Path) -> DocTables | None:
    """The tables kept for ``key`` when the PDF and every cache file read are unchanged, else None."""
    from docintel.parsing import stamps, store

    with _LOCK:
        hit = _MEMO.get(key)
    if hit is None:
        return None
    pdf, directory, stamp, tables = hit
    now = _pdf_unchanged(path, pdf)
    if now is None or not stamps.unchanged(store.live_version(directory), stamp):
        with _LOCK:
            if _MEMO.get(key) is hit:
                del _MEMO[key]
                _SIZES.pop(key, None)
        return None
    with _LOCK:
        if _MEMO.get(key) is hit and now != pdf:  # a racy PDF's stat is trusted from now on
            _MEMO[key] = (now, directory, stamp, tables)
        if key in _MEMO:
            _MEMO.move_to_end(key)
    return _handout(tables, path)


def _pdf_stamp(pdf: tuple, read_at: int, tables: DocTables) -> tuple | None:
    """The PDF's stamp: its stat key ``pdf``, or for a PDF modified under RACY_NS before
    ``read_at`` its inode, size and the sha256 of the bytes the tables were read for."""
    from docintel.parsing import stamps

    if read_at - pdf[2] >= stamps.RACY_NS:
        return pdf
    digest = tables.manifest.get("source_sha256")
    return ("sha256", pdf[0], pdf[1], digest) if digest else None


def _pdf_unchanged(path: str | Path, pdf: tuple) -> tuple | None:
    """``pdf`` (or the stat key replacing a sha256 stamp old enough now) when the PDF still has
    that stamp, else None."""
    from docintel.parsing import stamps

    if pdf[0] != "sha256":
        return pdf if pdf_stat(path) == pdf else None
    try:
        with open(path, "rb") as fh:
            st = os.fstat(fh.fileno())
            if (st.st_ino, st.st_size) != pdf[1:3] or hashlib.sha256(fh.read()).hexdigest() != pdf[3]:
                return None
    except OSError:
        return None
    return (
        (st.st_ino, st.st_size, st.st_mtime_ns) if time.time_ns() - st.st_mtime_ns >= stamps.RACY_NS else pdf
    )


def remember(key: tuple, path: str | Path, pdf: tuple | None, tables: DocTables, *, read_at: int) -> None:
    """Keep ``tables`` (just loaded from the cache, the PDF stat'ed as ``pdf`` at ``read_at``,
    ``time.time_ns()``, before it was read) for ``key``; nothing kept for a fresh parse, an
    uncached parse or a PDF changed meanwhile (one modified under ``RACY_NS`` before ``read_at``
    is stamped by its sha256)."""
    from docintel.parsing import stamps, store

    directory = tables.manifest.get("cache_dir")
    if pdf is None or not directory or tables.manifest.get("cache_hit") is not True or pdf_stat(path) != pdf:
        return
    stamp = stamps.seen(store.live_version(Path(directory)))
    pdf = _pdf_stamp(pdf, read_at, tables)
    if stamp is None or pdf is None:
        return
    size = sum(_size(Path(stamp[0]) / name) for name in stamp[1])
    with _LOCK:
        _MEMO.pop(key, None)
        _MEMO[key] = (pdf, Path(directory), stamp, _handout(tables, path))
        _SIZES[key] = size
        while len(_MEMO) > MAX_DOCS or (len(_MEMO) > 1 and sum(_SIZES.get(k, 0) for k in _MEMO) > MAX_BYTES):
            _SIZES.pop(_MEMO.popitem(last=False)[0], None)


_SIZES: dict[tuple, int] = {}


def _handout(tables: DocTables, path: str | Path) -> DocTables:
    """A copy of ``tables`` sharing its frames (the memo's object is never the caller's)."""
    return dataclasses.replace(tables, manifest=copy.deepcopy(tables.manifest), path=str(path))


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def clear() -> None:
    """Forget every document (tests; a caller that wants the next ask to load and check again)."""
    with _LOCK:
        _MEMO.clear()
        _SIZES.clear()
