"""The public API: what the CLI and the notebooks call.

Thin on purpose: ``ask`` loads the tables, builds the backend, calls the loop
(:func:`docintel.decide.run_loop`, the one composer), persists what the loop learned
(the references it followed, into ``cross_ref_df``) and writes the trace.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import time
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from docintel.decide import run_loop
from docintel.errors import StorageError, UsageError
from docintel.generation.protocol import LLMBackend
from docintel.generation.registry import build_backend
from docintel.generation.registry import default_backend_name as configured_backend
from docintel.questions import parse_question
from docintel.schema.document import DocTables
from docintel.schema.evidence import ParsedQuestion
from docintel.schema.result import AskResult
from docintel.schema.trace import Trace
from docintel.settings import DEFAULTS, artifacts_dir, env

log = logging.getLogger(__name__)

#: The cache entry's sidecar holding the retrieval index, and the tables it is derived from.
INDEX_SIDECAR = "retrieval_index"
INDEX_BUILT_FROM = ("line_df", "page_df", "toc_df")


def parse(
    path: str | Path,
    *,
    layout: str = DEFAULTS.layout,
    ocr: str = DEFAULTS.ocr,
    parser: str = DEFAULTS.parser,
    docling_json: str | Path | None = None,
    password: str | None = None,
    eager_refs: bool = False,
    out_dir: str | Path | None = None,
    use_cache: bool = True,
    progress: Callable[[int, int], None] | None = None,
    **limits,
) -> DocTables:
    """Parse a PDF into its relational tables (pandas DataFrames), cached as Parquet.

    ``out_dir`` defaults to ``DOCINTEL_ARTIFACTS`` or ``./artifacts``. ``ocr="auto"`` reads
    image-only pages with Tesseract when it is installed; ``"never"`` leaves them flagged and empty.

    Tables read from the cache are kept for the process (:mod:`docintel.parsing.warm`) and served
    again while the PDF and every cache file read are unchanged: each call gets its own
    ``DocTables`` (reassign its frames or edit its manifest freely), but the frames are shared
    with later calls and are read-only (never edit one in place). Not thread-safe: call ``parse``
    and ``ask`` from one thread at a time per process (see :func:`ask`).
    """
    args = dict(locals())  # first: every argument, as bound (the memo's key is made of them)
    from docintel.parsing import _ocr_token, parse_document, warm

    root = artifacts_dir(out_dir)
    key = pdf = read_at = None
    if use_cache and docling_json is None and "budget" not in limits:
        # the same PDF, options and cache files as an earlier load of this process: its tables
        # (checked then), served again after a stat of each file (docintel.parsing.warm)
        options = _memo_options(args)
        if options is not None:
            options["ocr_token"] = _ocr_token(ocr) if parser == "pymupdf" else None  # Tesseract's
            key = warm.key_of(path, root, options)
            hit = warm.lookup(key, path)
            if hit is not None:
                return hit
            read_at = time.time_ns()
            pdf = warm.pdf_stat(path)
    tables = parse_document(
        path,
        layout=layout,
        ocr=ocr,
        parser=parser,
        docling_json=docling_json,
        password=password,
        eager_refs=eager_refs,
        out_dir=root,
        use_cache=use_cache,
        progress=progress,
        **limits,
    )
    if key is not None:
        warm.remember(key, path, pdf, tables, read_at=read_at)
    return tables


#: ``parse`` arguments that do not change the tables it returns (the path and root key the memo apart).
_NOT_MEMO_KEYS = ("path", "out_dir", "progress")


def _memo_options(args: dict) -> dict | None:
    """Every argument ``parse`` was called with (its ``**limits`` one by one) but those that do not
    change its tables: the warm memo's key, so a new parse option is part of it without a second
    list to keep. None when a value cannot be a key (it is not hashable)."""
    options = {k: v for k, v in args.items() if k not in _NOT_MEMO_KEYS and k != "limits"}
    options.update(args.get("limits") or {})
    try:
        hash(tuple(options.values()))
    except TypeError:
        return None
    return options


def default_backend_name() -> str:
    """``DOCINTEL_BACKEND`` if set, else ``openai`` when an endpoint is configured, else ``offline``."""
    return env("backend") or configured_backend()


def _versions() -> dict:
    """The installed versions the trace records (a copy: read once per process, ~3 ms of
    metadata parsing each time otherwise; a process keeps running the code it imported)."""
    return dict(_installed_versions())


@functools.cache
def _installed_versions() -> tuple:
    out = []
    for pkg in ("docintel", "pymupdf", "pandas", "pyarrow", "pydantic", "rank-bm25"):
        try:
            out.append((pkg, version(pkg)))
        except PackageNotFoundError:
            out.append((pkg, None))
    return tuple(out)


def trace_file_name(question: str, when: float | None = None) -> str:
    """``<UTC time>-<first 8 hex of sha256(question)>.json``: the same question gets the same
    suffix on every run (Python's ``hash()`` is salted per process)."""
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(when))
    digest = hashlib.sha256(question.encode("utf-8")).hexdigest()[:8]
    return f"{stamp}-{digest}.json"


def ask(
    path: str | Path,
    question: str | ParsedQuestion,
    *,
    backend: str | LLMBackend | None = None,
    max_loops: int = DEFAULTS.max_loops,
    top_k: int | None = None,
    trace_path: str | Path | None = None,
    write_trace: bool = True,
    backend_options: dict | None = None,
    fallback: str = DEFAULTS.fallback,
    tables: DocTables | None = None,
    first_hop: list | None = None,
    **parse_options,
) -> AskResult:
    """Answer ``question`` about the PDF at ``path``, following its cross-references.

    ``top_k`` pages go to pass 1 (default: 1, or one per relevant page for a
    listing question), or ``first_hop`` (passages already retrieved: a corpus search's
    winning blocks). ``backend`` is a name (``offline``, ``openai``, ``local``, ``fake``) or an
    LLMBackend instance; ``fallback="offline"`` answers offline (labelled) when a model's output
    never validates. Returns an :class:`~docintel.schema.result.AskResult`; a JSON trace is
    written to ``trace_path`` (default ``<artifacts>/<doc_id>/traces/<time>-<hash>.json``).
    The references the loop followed are appended to the cached ``cross_ref_df``.

    Not thread-safe: one ``ask`` at a time per process (a lock around it, or processes, as
    ``docintel serve`` and the corpus's Dask workers do). The retrieval path keeps process-level
    memos keyed on the document's frames (the index and its per-question memo, line lookups) that
    it reads and extends without locks, and asks of one PDF share them through the warm memo.
    """
    if max_loops < 0:
        raise UsageError("--max-loops must be 0 or more")
    if top_k is not None and top_k < 1:
        raise UsageError("--top-k must be 1 or more")
    t0 = time.perf_counter()
    pq = question if isinstance(question, ParsedQuestion) else parse_question(question)
    if tables is None:
        tables = parse(path, **parse_options)
    t_parse = time.perf_counter() - t0
    if isinstance(backend, str) or backend is None:
        backend = build_backend(backend, fallback=fallback, **(backend_options or {}))
    trace = _new_trace(pq.text, path, tables, backend, max_loops, top_k)
    trace.data["timings"]["parse"] = round(t_parse, 6)
    trace.record("parsed_question", pq.model_dump())
    with trace.stage("index"):
        index = ensure_index(tables)
    if write_trace and trace_path is None:
        trace_path = (
            artifacts_dir(parse_options.get("out_dir")) / tables.doc_id / "traces" / trace_file_name(pq.text)
        )
    try:
        result = run_loop(
            tables, pq, backend=backend, trace=trace, max_loops=max_loops, top_k=top_k, first_hop=first_hop
        )
    except Exception as exc:
        # A failed ask still leaves its trace (the model's raw outputs are in it) for the audit.
        trace.record("error", {"type": type(exc).__name__, "message": str(exc)})
        if write_trace:
            trace.write(trace_path)
        raise
    with trace.stage("persist"):
        if getattr(index, "dirty", False):  # the ask derived a document-only value: keep it
            _store_index(tables, index)
        persist_learned_references(tables, result)
        _store_arrow_copies(tables)
    with trace.stage("report"):
        trace.record("final", result.to_json_dict())
    trace.data["timings"]["total"] = round(time.perf_counter() - t0, 6)
    if write_trace:
        result.trace_path = str(trace.write(trace_path))
    return result


def ensure_index(tables: DocTables):
    """The retrieval index of ``tables`` (terms, postings, passage token counts, window budget):
    kept in memory, else read from the cache entry's ``retrieval_index`` sidecar, else built once
    and stored there (a read-only or full cache only costs the rebuild next time)."""
    from docintel.parsing import store
    from docintel.retrieval import bm25, passage, pointerfacts, reflines

    index = bm25.cached_index(tables)
    if index is not None and "budget" in index.memo:
        return index
    key = bm25.fingerprint()
    data = store.load_sidecar(tables, INDEX_SIDECAR, key) if tables.manifest.get("cache_dir") else None
    if data is not None:
        try:
            index = bm25.register(tables, bm25.PageIndex.from_bytes(data))
        except (ValueError, KeyError, TypeError) as exc:  # an index of another layout: rebuild it
            log.info("stored retrieval index not used (%s); rebuilding it", exc)
        else:
            if "budget" in index.memo:
                return index
    index = passage.prepare_index(tables)
    # the lines that name a target (the reference grammar over every line): document-only, so
    # computed once with the index and stored with it, never per ask
    reflines.labelled_index(tables)
    pointerfacts.own_ids(tables)  # the ids the document is (a scan of every line), likewise
    _store_index(tables, index, key)
    return index


def _store_index(tables: DocTables, index, key: str | None = None) -> None:
    """Write ``index`` (with its memo) as the cache entry's retrieval-index sidecar."""
    from docintel.parsing import store
    from docintel.retrieval import bm25

    index.dirty = False
    if not tables.manifest.get("cache_dir"):
        return
    try:
        store.save_sidecar(
            tables, INDEX_SIDECAR, index.to_bytes(), key or bm25.fingerprint(), built_from=INDEX_BUILT_FROM
        )
    except (OSError, StorageError) as exc:  # a read-only or full cache must not fail the answer
        log.warning("could not store the retrieval index: %s", exc)


def _store_arrow_copies(tables: DocTables) -> None:
    """Give the cache entry the Arrow copies of its tables it lacks (a later load reads them
    without decoding Parquet); nothing to do, and no IO, once they are there."""
    from docintel.parsing import store

    if not store.missing_arrow_copies(tables):
        return
    try:
        store.save_arrow_copies(tables)
    except (OSError, StorageError) as exc:  # a read-only or full cache must not fail the answer
        log.warning("could not store the Arrow copies of the tables: %s", exc)


def _new_trace(question: str, path, tables: DocTables, backend: LLMBackend, max_loops, top_k) -> Trace:
    return Trace(
        question=question,
        doc={
            "doc_id": tables.doc_id,
            "path": str(path),
            "parser": tables.manifest.get("parser"),
            "cache_hit": tables.manifest.get("cache_hit"),
            "pages": tables.manifest.get("pages"),
        },
        settings={"max_loops": max_loops, "top_k": top_k},
        backend=backend.describe(),
        versions=_versions(),
    )


def learned_cross_refs(tables: DocTables, result: AskResult) -> list[dict]:
    """The ``cross_ref_df`` rows the loop learned: one per reference it followed
    (source ``llm`` when a model picked the target, else ``regex``)."""
    return [
        {
            "doc_id": tables.doc_id,
            "origin_page": r.origin[0],
            "origin_line": r.origin[1],
            "anchor_text": r.reference,
            "ref_type": r.ref_type,
            "ref_target": r.target,
            "sub_selector": r.sub_selector,
            "target_page": r.target_pages[0] if r.target_pages else None,
            "source": "llm" if r.method == "llm" else "regex",
        }
        for r in result.resolutions
    ]


def persist_learned_references(tables: DocTables, result: AskResult) -> None:
    """Append what the loop learned to cross_ref_df, in memory and in the cache (so it grows)."""
    rows = learned_cross_refs(tables, result)
    if not rows:
        return
    import pandas as pd

    from docintel.parsing import store

    try:
        store.append_cross_refs(tables, pd.DataFrame(rows))
    except OSError as exc:  # a read-only cache must not fail the answer
        log.warning("could not append to cross_ref_df cache: %s", exc)
