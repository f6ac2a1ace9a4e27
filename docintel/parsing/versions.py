"""The versioned folders of the Parquet cache (split from ``parsing/store.py``, which re-exports
what callers use): ``<root>/<doc_id>/<options_key>`` is a symlink to a complete, never-modified
version folder; a new version is written in a temporary folder, renamed and swapped in with one
``os.replace`` (:func:`new_version`), under an exclusive ``flock`` on the document's folder
(:func:`locked`); :func:`recover` repairs what an interrupted save left.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from docintel.atomic import clean_stale_temps, fsync_dir, temp_name
from docintel.errors import StorageError

MANIFEST = "manifest.json"


def fault_point(name: str) -> None:
    """Test hook: ``DOCINTEL_FAULT=<name>`` kills this process right here (kill -9 mid-save)."""
    if os.environ.get("DOCINTEL_FAULT") == name:
        os.kill(os.getpid(), signal.SIGKILL)


@contextlib.contextmanager
def locked(directory: Path) -> Iterator[None]:
    """Exclusive lock on the document's folder (``<root>/<doc_id>``) for a load-parse-save."""
    folder = Path(directory).parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(folder, os.O_RDONLY)
    except OSError as exc:  # a read-only or full artifacts folder
        raise storage_error(folder, exc) from exc
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock (the atomic swap still keeps every entry whole)
        os.close(fd)
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def live_version(directory: Path) -> Path | None:
    """The version folder the link names (a legacy plain folder is its own version)."""
    if directory.is_symlink():
        target = directory.parent / os.readlink(directory)
        return target if target.is_dir() else None
    return directory if directory.is_dir() else None


def write_file(path: Path, data: bytes) -> None:
    """Write and flush one file (a full disk raises OSError ENOSPC from here)."""
    with open(path, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def publish(tmp: Path, directory: Path) -> Path:
    """Make the complete folder ``tmp`` the live version of ``directory`` (one atomic swap)."""
    parent = directory.parent
    fsync_dir(tmp)
    version = parent / f".{directory.name}.v-{time.time_ns()}-{os.getpid()}"
    os.rename(tmp, version)
    fault_point("after-version")
    previous = live_version(directory)
    if directory.exists() and not directory.is_symlink():
        # tables written by docintel before versioned folders: move them aside first (recover()
        # restores them if we are killed before the link exists)
        previous = parent / f".{directory.name}.v-0-legacy-{os.getpid()}"
        os.rename(directory, previous)
    link = parent / f"{temp_name(directory, 'link')}{time.time_ns()}"
    os.symlink(version.name, link)
    os.replace(link, directory)
    fsync_dir(parent)
    fault_point("after-swap")
    if previous is not None and previous != version:
        shutil.rmtree(previous, ignore_errors=True)
    return version


def new_temp(directory: Path) -> Path:
    directory.parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=temp_name(directory), dir=directory.parent))


def storage_error(directory: Path, exc: OSError) -> StorageError:
    what = "the disk is full" if exc.errno == errno.ENOSPC else (exc.strerror or str(exc))
    return StorageError(
        f"could not save the tables to {directory}: {what}; the earlier tables there (if any) are untouched"
    )


@contextlib.contextmanager
def new_version(directory: Path) -> Iterator[Path]:
    """A temporary folder that becomes the live version of ``directory`` when the block ends.

    On any failure it is removed and the previous version stays live; an OSError (a full disk)
    becomes a :class:`StorageError`.
    """
    tmp = new_temp(directory)
    try:
        yield tmp
        publish(tmp, directory)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise storage_error(directory, exc) from exc
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def recover(directory: Path) -> list[str]:
    """Repair what an interrupted save left (call inside :func:`locked`); returns what was done.

    Stale temp folders/links of dead writers go; a missing or dangling link is pointed at the
    newest complete version (or at the ``.old-<pid>`` folder older docintel versions left); the
    versions nothing points to are removed.
    """
    directory = Path(directory)
    parent = directory.parent
    done = [
        f"removed {p.name}" for p in clean_stale_temps(parent) if p.name.startswith(f".{directory.name}.")
    ]
    prefix_v, prefix_old = f".{directory.name}.v-", f".{directory.name}.old-"
    candidates = sorted(
        (p for p in parent.iterdir() if p.name.startswith((prefix_v, prefix_old)) and p.is_dir()),
        key=lambda p: (p.name.startswith(prefix_v), p.name),
    )
    live = live_version(directory)
    if live is None:
        complete = [p for p in candidates if (p / MANIFEST).exists()]
        if complete:
            best = complete[-1]
            if directory.is_symlink():
                directory.unlink()
            if best.name.startswith(prefix_old):  # adopt it as a version
                renamed = parent / f"{prefix_v}0-adopted-{os.getpid()}"
                os.rename(best, renamed)
                best = renamed
            link = parent / f"{temp_name(directory, 'link')}{time.time_ns()}"
            os.symlink(best.name, link)
            os.replace(link, directory)
            fsync_dir(parent)
            live = best
            done.append(f"restored {directory.name} from an interrupted save")
    for p in candidates:
        if p.exists() and (live is None or p.resolve() != live.resolve()):
            shutil.rmtree(p, ignore_errors=True)
            done.append(f"removed {p.name}")
    return done


def link_or_copy(src: Path, dst: Path) -> None:
    """Versions are never modified in place, so a hard link shares an unchanged table safely."""
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)


__all__ = [
    "MANIFEST",
    "fault_point",
    "locked",
    "live_version",
    "write_file",
    "publish",
    "new_temp",
    "storage_error",
    "new_version",
    "recover",
    "link_or_copy",
]
