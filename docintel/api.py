"""The public API: what the CLI and the notebooks call."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from docintel.schema.document import DocTables


def parse(
    path: str | Path,
    *,
    layout: str = "auto",
    ocr: str = "auto",
    parser: str = "pymupdf",
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
    """
    from docintel.parsing import parse_document
    from docintel.settings import artifacts_dir

    return parse_document(
        path,
        layout=layout,
        ocr=ocr,
        parser=parser,
        docling_json=docling_json,
        password=password,
        eager_refs=eager_refs,
        out_dir=artifacts_dir(out_dir),
        use_cache=use_cache,
        progress=progress,
        **limits,
    )


def default_backend_name() -> str:
    """``DOCINTEL_BACKEND`` if set, else ``openai`` when an endpoint is configured, else ``offline``."""
    from docintel.generation.registry import default_backend_name as configured
    from docintel.settings import env

    return env("backend") or configured()


def _versions() -> dict:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for pkg in ("docintel", "pymupdf", "pandas", "pyarrow", "pydantic", "rank-bm25"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = None
    return out


def ask(
    path: str | Path,
    question: str,
    *,
    backend: str | object | None = None,
    max_loops: int = 1,
    top_k: int | None = None,
    trace_path: str | Path | None = None,
    write_trace: bool = True,
    backend_options: dict | None = None,
    tables: DocTables | None = None,
    **parse_options,
):
    """Answer ``question`` about the PDF at ``path``, following its cross-references.

    ``top_k`` pages go to pass 1 (default: 1, or one per relevant page for a
    listing question). ``backend`` is a name (``offline``, ``openai``, ``local``, ``fake``) or an
    LLMBackend instance. Returns an :class:`~docintel.schema.answer.AskResult`;
    a JSON trace is written to ``trace_path`` (default
    ``<artifacts>/<doc_id>/traces/<time>.json``).
    """
    import time as _time

    from docintel.decide import run_loop
    from docintel.errors import UsageError
    from docintel.generation.base import get_backend
    from docintel.questions import parse_question
    from docintel.schema.trace import Trace
    from docintel.settings import artifacts_dir

    if max_loops < 0:
        raise UsageError("--max-loops must be 0 or more")
    if top_k is not None and top_k < 1:
        raise UsageError("--top-k must be 1 or more")
    t0 = _time.perf_counter()
    pq = parse_question(question)
    if tables is None:
        tables = parse(path, **parse_options)
    t_parse = _time.perf_counter() - t0
    if isinstance(backend, str) or backend is None:
        backend = get_backend(backend or default_backend_name(), **(backend_options or {}))
    trace = Trace(
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
    trace.data["timings"]["parse"] = round(t_parse, 6)
    trace.record("parsed_question", pq.model_dump())
    if write_trace and trace_path is None:
        stamp = _time.strftime("%Y%m%dT%H%M%S")
        root = artifacts_dir(parse_options.get("out_dir"))
        trace_path = root / tables.doc_id / "traces" / f"{stamp}-{abs(hash(question)) % 10**8:08d}.json"
    try:
        result = run_loop(tables, pq, backend=backend, trace=trace, max_loops=max_loops, top_k=top_k)
    except Exception as exc:
        # A failed ask still leaves its trace (the model's raw outputs are in it) for the audit.
        trace.record("error", {"type": type(exc).__name__, "message": str(exc)})
        if write_trace:
            trace.write(trace_path)
        raise
    pdf_ = tables.page_df
    unread = pdf_[pdf_["image_only"].fillna(False).astype(bool) & (pdf_["n_lines"] == 0)]
    if len(unread):  # say so: an empty page is not the same as a page without the answer
        pages = ", ".join(str(int(p)) for p in unread["page"].head(20))
        result.warnings.append(
            f"{len(unread)} page(s) have no text layer and no text could be read on them (pages {pages});"
            " image-only pages are OCR'd only where Tesseract is installed"
            " (apt-get install tesseract-ocr tesseract-ocr-eng)"
        )
    trace.data["timings"]["total"] = round(_time.perf_counter() - t0, 6)
    trace.record("final", result.to_json_dict())
    if write_trace:
        result.trace_path = str(trace.write(trace_path))
    return result
