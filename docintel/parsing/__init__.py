"""PDF -> relational tables, cached as Parquet.

Parsers plug in through :data:`PARSERS` (name -> callable). The PyMuPDF
parser is the default; ``docling`` maps a DoclingDocument to the same tables.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from docintel import __version__
from docintel.errors import DocumentError, UsageError
from docintel.parsing import pdf as pdfmod
from docintel.parsing.budget import Budget, run_budgeted, run_in_process
from docintel.schema.document import DocTables
from docintel.settings import DEFAULTS, Settings

LayoutMode = Literal["auto", "always", "never"]
LAYOUT_MODES = ("auto", "always", "never")
OcrMode = Literal["auto", "never"]
OCR_MODES = ("auto", "never")

log = logging.getLogger(__name__)


def _code_fingerprint() -> str:
    """Hash of the parsing package's source: a changed parser never serves stale cached tables,
    even between releases (the cache key holds the package version *and* this)."""
    import hashlib

    h = hashlib.sha256()
    for f in sorted(Path(__file__).parent.glob("*.py")):
        h.update(f.name.encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:10]


PARSER_VERSION = f"{__version__}+{_code_fingerprint()}"


def _parse_pymupdf(
    doc, doc_id: str, *, layout: str, ocr: str = "auto", eager_refs: bool, progress, **_
) -> DocTables:
    from docintel.parsing.pymupdf_backend import parse_with_pymupdf

    return parse_with_pymupdf(
        doc, doc_id, layout_mode=layout, ocr_mode=ocr, eager_refs=eager_refs, progress=progress
    )


def _parse_docling(doc, doc_id: str, *, docling_json=None, eager_refs: bool, progress, data: bytes, **_):
    from docintel.parsing.docling_backend import parse_with_docling

    return parse_with_docling(doc, doc_id, data=data, docling_json=docling_json, eager_refs=eager_refs)


def _ocr_token(mode: str) -> str:
    from docintel.parsing.ocr import cache_token

    return cache_token(mode)


PARSERS: dict[str, Callable[..., DocTables]] = {"pymupdf": _parse_pymupdf, "docling": _parse_docling}


def _check_limits(max_pages, max_bytes) -> None:
    for flag, value in (("--max-pages", max_pages), ("--max-bytes", max_bytes)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise UsageError(f"{flag} must be a whole number, 1 or more (not {value!r})")


def parse_document(
    path: str | Path,
    *,
    layout: LayoutMode = DEFAULTS.layout,
    ocr: OcrMode = DEFAULTS.ocr,
    parser: str = DEFAULTS.parser,
    docling_json: str | Path | None = None,
    password: str | None = None,
    eager_refs: bool = DEFAULTS.eager_refs,
    out_dir: str | Path | None = "artifacts",
    use_cache: bool = True,
    max_pages: int = pdfmod.DEFAULT_MAX_PAGES,
    max_bytes: int = pdfmod.DEFAULT_MAX_BYTES,
    progress: Callable[[int, int], None] | None = None,
    budget: Budget | None = None,
) -> DocTables:
    """Parse ``path`` into DocTables, served from the Parquet cache when nothing changed.

    The cache key covers the PDF bytes, the parser and its version, and every
    option that changes the tables, so a changed option never gets stale tables.
    A cached entry is served only after its checksums, the source bytes, the password (of an
    encrypted PDF) and ``max_pages`` check out; a damaged entry is parsed again, with a warning.
    ``out_dir=None`` parses in memory only. ``ocr``: ``auto`` recognises image-only pages
    with Tesseract when it is installed (PyMuPDF parser), ``never`` leaves them empty.
    ``budget`` bounds the parse's time and memory (default :meth:`Budget.from_env`).
    """
    if layout not in LAYOUT_MODES:
        raise UsageError(f"--layout must be one of {', '.join(LAYOUT_MODES)}, not {layout!r}")
    if ocr not in OCR_MODES:
        raise UsageError(f"--ocr must be one of {', '.join(OCR_MODES)}, not {ocr!r}")
    if docling_json is not None:
        parser = "docling"
    if parser not in PARSERS:
        raise UsageError(f"unknown parser {parser!r}; known parsers: {', '.join(PARSERS)}")
    _check_limits(max_pages, max_bytes)
    data = pdfmod.read_pdf_bytes(path, max_bytes=max_bytes)
    sha256 = hashlib.sha256(data).hexdigest()  # once: the doc id and the cache's source check
    doc_id = pdfmod.doc_id_for(data, sha256=sha256)
    name = Path(path).name
    # Before anything is served, cached or not: an encrypted source needs its password.
    pdfmod.check_password(data, password=password, name=name)
    # The key comes from the settings that change the tables; whether Tesseract is installed is
    # part of it (installing it re-parses image-only pages), as is the parser's code fingerprint.
    options = Settings(layout=layout, ocr=ocr, parser=parser, eager_refs=eager_refs).cache_options(
        parser_version=PARSER_VERSION,
        ocr_token=_ocr_token(ocr) if parser == "pymupdf" else None,
        docling_json_sha=pdfmod.doc_id_for(Path(docling_json).read_bytes()) if docling_json else None,
    )
    job = _Job(
        path,
        name,
        data,
        doc_id,
        password,
        max_pages,
        parser,
        options,
        layout,
        ocr,
        eager_refs,
        docling_json,
        sha256=sha256,
    )
    budget = budget or Budget.from_env()
    if out_dir is None:
        return job.parse(budget, progress)
    from docintel.parsing import store  # pyarrow and pandas: not paid by `import docintel.refscan`

    directory = store.cache_dir(Path(out_dir), doc_id, options)
    made = [d for d in (Path(out_dir), directory.parent) if not d.exists()]
    try:
        with store.locked(directory):  # a second parse of this file waits, then gets a cache hit
            for action in store.recover(directory):
                log.info("cache %s: %s", directory, action)
            if use_cache:
                cached, problem = store.load_checked(directory, source_sha256=job.sha256)
                if cached is not None:
                    pdfmod.check_page_limit(int(cached.manifest.get("pages") or 0), max_pages, name)
                    cached.manifest["cache_hit"] = True
                    cached.manifest["cache_dir"] = str(directory)
                    cached.path = str(path)
                    return cached
                if problem:
                    log.warning("cached tables in %s not used: %s; parsing again", directory, problem)
            tables = job.parse(budget, progress)
            tables.manifest["cache_dir"] = str(directory)
            store.save(tables, directory)
            return tables
    except BaseException:
        for d in reversed(made):  # a failed first parse (bad file, full disk) leaves no empty folders
            with contextlib.suppress(OSError):
                d.rmdir()
        raise


class _Job:
    """One fresh parse: what it needs, run in a budgeted worker, and the manifest it produces."""

    def __init__(self, path, name, data, doc_id, password, max_pages, parser, options, *rest, sha256=None):
        self.path, self.name, self.data, self.doc_id = path, name, data, doc_id
        self.password, self.max_pages, self.parser, self.options = password, max_pages, parser, options
        self.layout, self.ocr, self.eager_refs, self.docling_json = rest
        self.sha256 = sha256 or hashlib.sha256(data).hexdigest()

    def parse(self, budget: Budget, progress) -> DocTables:
        t0 = time.perf_counter()
        if self.parser == "pymupdf":
            import docintel.parsing.pymupdf_backend  # noqa: F401  (loaded before the fork, once)

            tables = run_budgeted(self._work, name=self.name, budget=budget, progress=progress)
        else:
            # Docling runs its own pipeline (and torch, which does not survive a fork): only the
            # risky open and first-page check of the file run in the budgeted worker.
            run_budgeted(self._probe, name=self.name, budget=budget)
            tables = run_in_process(self._work, progress)
        self._manifest(tables, time.perf_counter() - t0)
        return tables

    def _probe(self, progress) -> None:
        pdfmod.open_pdf(self.data, name=self.name, password=self.password, max_pages=self.max_pages).close()

    def _work(self, progress) -> DocTables:
        try:
            return self._parse_open(progress)
        except RecursionError:  # deeper than the raised limit of the budget module
            raise DocumentError(f"{self.name}: its structure is nested too deeply to read") from None

    def _parse_open(self, progress) -> DocTables:
        doc = pdfmod.open_pdf(self.data, name=self.name, password=self.password, max_pages=self.max_pages)
        try:
            if progress:
                progress(0, doc.page_count)  # the worker's budget now knows the page count
            return PARSERS[self.parser](
                doc,
                self.doc_id,
                layout=self.layout,
                ocr=self.ocr,
                eager_refs=self.eager_refs,
                progress=progress,
                docling_json=self.docling_json,
                data=self.data,
            )
        finally:
            doc.close()

    def _manifest(self, tables: DocTables, elapsed: float) -> None:
        pdf_ = tables.page_df
        escalated = pdf_[pdf_["parse_method"] == "layout"]
        failed = pdf_[pdf_["parse_method"] == "failed"]
        damaged = pdf_[(pdf_["parse_method"] != "failed") & pdf_["error"].notna()]
        tables.manifest.update(
            {
                "doc_id": self.doc_id,
                "source_path": str(Path(self.path).resolve()),
                "source_name": self.name,
                "source_sha256": self.sha256,
                "source_bytes": len(self.data),
                "encrypted": pdfmod.is_encrypted(self.data),
                "parser": self.parser,
                "parser_version": PARSER_VERSION,
                "options": self.options,
                "pages": int(len(pdf_)),
                "escalated_pages": {int(r.page): r.escalation_signals for r in escalated.itertuples()},
                "failed_pages": {int(r.page): r.error for r in failed.itertuples()},
                "damaged_pages": {int(r.page): r.error for r in damaged.itertuples()},
                "image_only_pages": [int(p) for p in pdf_.loc[pdf_["image_only"].fillna(False), "page"]],
                "ocr_pages": [int(p) for p in pdf_.loc[pdf_["parse_method"] == "ocr", "page"]],
                "partial": bool(len(failed)),
                "parse_seconds": round(elapsed, 3),
                "cache_hit": False,
            }
        )
        tables.path = str(self.path)
        if len(failed) or len(damaged):
            import pandas as pd

            bad = pd.concat([failed, damaged]).sort_values("page")
            what = [
                f"{len(x)} page(s) {w}" for x, w in ((failed, "unreadable"), (damaged, "damaged")) if len(x)
            ]
            pages = ", ".join(str(int(p)) for p in bad["page"].head(20))
            log.warning(
                "%s: %s, read as far as MuPDF could (pages %s: %s)",
                self.name,
                " and ".join(what),
                pages,
                bad["error"].iloc[0],
            )
