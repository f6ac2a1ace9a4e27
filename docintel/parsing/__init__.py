"""PDF -> relational tables, cached as Parquet.

Parsers plug in through :data:`PARSERS` (name -> callable). The PyMuPDF
parser is the default; ``docling`` maps a DoclingDocument to the same tables.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from docintel import __version__
from docintel.errors import UsageError
from docintel.parsing import pdf as pdfmod
from docintel.parsing import store
from docintel.schema.document import DocTables

LayoutMode = Literal["auto", "always", "never"]
LAYOUT_MODES = ("auto", "always", "never")
OcrMode = Literal["auto", "never"]
OCR_MODES = ("auto", "never")


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


def parse_document(
    path: str | Path,
    *,
    layout: LayoutMode = "auto",
    ocr: OcrMode = "auto",
    parser: str = "pymupdf",
    docling_json: str | Path | None = None,
    password: str | None = None,
    eager_refs: bool = False,
    out_dir: str | Path | None = "artifacts",
    use_cache: bool = True,
    max_pages: int = pdfmod.DEFAULT_MAX_PAGES,
    max_bytes: int = pdfmod.DEFAULT_MAX_BYTES,
    progress: Callable[[int, int], None] | None = None,
) -> DocTables:
    """Parse ``path`` into DocTables, served from the Parquet cache when nothing changed.

    The cache key covers the PDF bytes, the parser and its version, and every
    option that changes the tables, so a changed option never gets stale tables.
    ``out_dir=None`` parses in memory only. ``ocr``: ``auto`` recognises image-only pages
    with Tesseract when it is installed (PyMuPDF parser), ``never`` leaves them empty.
    """
    if layout not in LAYOUT_MODES:
        raise UsageError(f"--layout must be one of {', '.join(LAYOUT_MODES)}, not {layout!r}")
    if ocr not in OCR_MODES:
        raise UsageError(f"--ocr must be one of {', '.join(OCR_MODES)}, not {ocr!r}")
    if docling_json is not None:
        parser = "docling"
    if parser not in PARSERS:
        raise UsageError(f"unknown parser {parser!r}; known parsers: {', '.join(PARSERS)}")
    data = pdfmod.read_pdf_bytes(path, max_bytes=max_bytes)
    doc_id = pdfmod.doc_id_for(data)
    options = {
        "parser": parser,
        "parser_version": PARSER_VERSION,
        "layout": layout if parser == "pymupdf" else None,
        # whether Tesseract is installed is part of the key: installing it re-parses image-only pages
        "ocr": _ocr_token(ocr) if parser == "pymupdf" else None,
        "eager_refs": eager_refs,
        "docling_json_sha": pdfmod.doc_id_for(Path(docling_json).read_bytes()) if docling_json else None,
    }
    directory = store.cache_dir(Path(out_dir), doc_id, options) if out_dir is not None else None
    if directory is not None and use_cache:
        cached = store.load(directory)
        if cached is not None:
            cached.manifest["cache_hit"] = True
            cached.manifest["cache_dir"] = str(directory)
            cached.path = str(path)
            return cached

    name = Path(path).name
    doc = pdfmod.open_pdf(data, name=name, password=password, max_pages=max_pages)
    t0 = time.perf_counter()
    try:
        tables = PARSERS[parser](
            doc,
            doc_id,
            layout=layout,
            ocr=ocr,
            eager_refs=eager_refs,
            progress=progress,
            docling_json=docling_json,
            data=data,
        )
    finally:
        doc.close()
    elapsed = time.perf_counter() - t0
    pdf_ = tables.page_df
    escalated = pdf_[pdf_["parse_method"] == "layout"]
    failed = pdf_[pdf_["parse_method"] == "failed"]
    tables.manifest.update(
        {
            "doc_id": doc_id,
            "source_path": str(Path(path).resolve()),
            "source_name": name,
            "source_sha256": __import__("hashlib").sha256(data).hexdigest(),
            "source_bytes": len(data),
            "parser": parser,
            "parser_version": PARSER_VERSION,
            "options": options,
            "pages": int(len(pdf_)),
            "escalated_pages": {int(r.page): r.escalation_signals for r in escalated.itertuples()},
            "failed_pages": {int(r.page): r.error for r in failed.itertuples()},
            "image_only_pages": [int(p) for p in pdf_.loc[pdf_["image_only"].fillna(False), "page"]],
            "ocr_pages": [int(p) for p in pdf_.loc[pdf_["parse_method"] == "ocr", "page"]],
            "partial": bool(len(failed)),
            "parse_seconds": round(elapsed, 3),
            "cache_hit": False,
        }
    )
    tables.path = str(path)
    if directory is not None:
        tables.manifest["cache_dir"] = str(directory)
        store.save(tables, directory)
    return tables
