"""Time and memory budgets for one parse: a hostile PDF ends with one clear error, in bounded time.

MuPDF has no time limit and no abort hook that PyMuPDF exposes, and a page whose content stream
is a bomb stalls inside C code where no Python signal handler runs. So the parse runs in a worker
process forked from this one (it inherits the imported modules, so the overhead is a fork and
the pickled tables, not a fresh interpreter): the worker's address space is capped with
``RLIMIT_AS`` (MuPDF then fails its allocations and says so), and the parent kills it when one
page, or the whole document, runs past its time budget.

Budgets (``DOCINTEL_*`` environment variables, or a :class:`Budget` passed to ``parse_document``):

- ``PAGE_TIMEOUT`` seconds for any one page, opening the file counted as a page (default 120);
- ``PARSE_TIMEOUT`` seconds for the whole document (default 300 + 10 per page);
- ``MAX_MEMORY_MB`` of address space the worker may add to its parent's (default 4096);
- ``PARSE_WORKER=0`` parses in this process instead (no budgets; for debugging).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from docintel.errors import BudgetError, DocintelError, DocumentError


def _env_float(name: str, default: float | None) -> float | None:
    raw = os.environ.get(f"DOCINTEL_{name}")
    if raw in (None, ""):
        return default
    try:
        value = float(raw)
    except ValueError:
        from docintel.errors import UsageError

        raise UsageError(f"DOCINTEL_{name} must be a number, not {raw!r}") from None
    return value if value > 0 else None


@dataclass
class Budget:
    """What one parse may spend; ``None`` means unlimited."""

    page_seconds: float | None = 120.0
    doc_seconds: float | None = None  # None: doc_base_seconds + doc_page_seconds * pages
    doc_base_seconds: float = 300.0
    doc_page_seconds: float = 10.0
    memory_mb: float | None = 4096.0
    worker: bool = True

    @classmethod
    def from_env(cls) -> Budget:
        b = cls()
        b.page_seconds = _env_float("PAGE_TIMEOUT", b.page_seconds)
        b.doc_seconds = _env_float("PARSE_TIMEOUT", None)
        b.memory_mb = _env_float("MAX_MEMORY_MB", b.memory_mb)
        b.worker = os.environ.get("DOCINTEL_PARSE_WORKER", "1") not in ("0", "false", "no", "off")
        return b

    def document_seconds(self, pages: int | None) -> float | None:
        if self.doc_seconds is not None:
            return self.doc_seconds
        return self.doc_base_seconds + self.doc_page_seconds * (pages or 0)


def _vm_bytes() -> int | None:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def _deep_recursion():
    """Outlines and trees 1000+ levels deep are legal PDF: PyMuPDF walks some recursively."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 20000))
    return old


def run_in_process(work: Callable[..., Any], progress, *args: Any) -> Any:
    """``work(progress, *args)`` here, without budgets (``progress(0, n)`` is not passed on)."""
    old = _deep_recursion()
    try:
        return work((lambda d, n: d and progress(d, n)) if progress else None, *args)
    finally:
        sys.setrecursionlimit(old)


class _PipeQueue:
    def __init__(self, conn):
        self.conn = conn

    def put_nowait(self, record) -> None:
        self.conn.send(("log", record))


def _forward_logs(conn) -> None:  # pragma: no cover - runs in the worker
    """The worker's log records go to the parent, which hands them to its own handlers (the
    CLI's stderr line, pytest's caplog) as if the parse had run there."""
    import logging
    import logging.handlers

    root = logging.getLogger()
    root.handlers = [logging.handlers.QueueHandler(_PipeQueue(conn))]


def _child(conn, work, args, memory_bytes) -> None:  # pragma: no cover - runs in the worker
    import resource

    if memory_bytes:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    _deep_recursion()
    _forward_logs(conn)

    def progress(done: int, total: int) -> None:
        conn.send(("progress", done, total))

    try:
        conn.send(("ok", work(progress, *args)))
    except MemoryError:
        conn.send(("err", BudgetError("over the memory budget (raise it with DOCINTEL_MAX_MEMORY_MB)")))
    except DocintelError as exc:  # ours: the message is the whole story, sent as a fresh copy
        try:
            conn.send(("err", type(exc)(*exc.args)))
        except Exception:
            conn.send(("err", DocumentError(str(exc))))
    except BaseException as exc:
        with contextlib.suppress(Exception):
            exc.add_note("in the parse worker:\n" + "".join(traceback.format_exception(exc)))
        try:
            conn.send(("err", exc))
        except Exception:  # an exception that does not pickle still reaches the parent
            conn.send(("err", RuntimeError(f"{type(exc).__name__}: {exc}")))
    finally:
        conn.close()


class _Forked:
    """The worker as a bare ``os.fork``: ``multiprocessing.Process`` refuses to start a child of a
    daemonic process, and a Dask worker process is one (``distributed.worker.daemon``), so the
    corpus ingest ran every document without its budget. Same surface as the Process used before."""

    def __init__(self, target: Callable[..., None], args: tuple, close_in_child: Any = None):
        self.exitcode: int | None = None
        self.pid = os.fork()
        if self.pid == 0:  # pragma: no cover - the worker
            code = 1
            try:
                if close_in_child is not None:
                    close_in_child.close()
                target(*args)
                code = 0
            finally:
                os._exit(code)

    def _reap(self) -> None:
        if self.exitcode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.exitcode = os.waitstatus_to_exitcode(status)

    def join(self, timeout: float | None = None) -> None:
        deadline = time.monotonic() + (timeout or 0.0)
        self._reap()
        while self.exitcode is None and time.monotonic() < deadline:
            time.sleep(0.01)
            self._reap()

    def is_alive(self) -> bool:
        self._reap()
        return self.exitcode is None

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)


def run_budgeted(
    work: Callable[..., Any],
    *args: Any,
    name: str,
    budget: Budget,
    progress: Callable[[int, int], None] | None = None,
) -> Any:
    """``work(progress, *args)`` in a budgeted worker; its result, or its exception re-raised.

    ``work`` reports each finished page through ``progress(done, total)``; the page clock restarts
    then. Overrunning a budget kills the worker and raises :class:`BudgetError`.
    """
    import multiprocessing as mp

    if not budget.worker or "fork" not in mp.get_all_start_methods():
        return run_in_process(work, progress, *args)
    ctx = mp.get_context("fork")  # inherits the loaded modules: no second pymupdf import
    recv, send = ctx.Pipe(duplex=False)
    vm = _vm_bytes()
    memory = int(vm + budget.memory_mb * 2**20) if (vm and budget.memory_mb) else None
    proc = _Forked(_child, (send, work, args, memory), close_in_child=recv)
    send.close()
    start = page_start = time.monotonic()
    pages = done = 0
    try:
        while True:
            now = time.monotonic()
            limits = []
            if budget.page_seconds and done < max(pages, 1):
                limits.append((page_start + budget.page_seconds, "page"))
            doc_limit = budget.document_seconds(pages)
            if doc_limit:
                limits.append((start + doc_limit, "document"))
            deadline, what = min(limits) if limits else (None, "")
            wait = None if deadline is None else max(0.0, deadline - now)
            if not recv.poll(wait):
                where = f"page {done + 1}" if what == "page" else "the document"
                secs = budget.page_seconds if what == "page" else doc_limit
                env = "DOCINTEL_PAGE_TIMEOUT" if what == "page" else "DOCINTEL_PARSE_TIMEOUT"
                raise BudgetError(
                    f"{name}: parsing {where} took over {secs:g} s, its time budget; "
                    f"the file looks hostile or pathological (raise the budget with {env})"
                )
            try:
                msg = recv.recv()
            except EOFError:
                proc.join(5)
                code = proc.exitcode
                if code is not None and code < 0:
                    hint = " (out of memory?)" if code == -9 else ""
                    raise DocumentError(f"{name}: the parser was killed by signal {-code}{hint}") from None
                raise DocumentError(f"{name}: the parser stopped without a result (exit {code})") from None
            if msg[0] == "log":
                import logging

                record = msg[1]
                logging.getLogger(record.name).handle(record)
            elif msg[0] == "progress":
                done, pages = msg[1], msg[2]
                page_start = time.monotonic()
                if progress and done:  # (0, n) only tells the budget the page count
                    progress(done, pages)
            elif msg[0] == "ok":
                return msg[1]
            else:
                exc = msg[1]
                if isinstance(exc, BudgetError) and not str(exc).startswith(name):
                    exc = BudgetError(f"{name}: {exc}")
                raise exc
    finally:
        recv.close()
        if proc.is_alive():
            proc.kill()
        proc.join(5)
