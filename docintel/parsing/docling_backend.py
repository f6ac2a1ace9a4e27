"""The Docling parser: a DoclingDocument (converted here, or an existing JSON export) -> DocTables.

Two ways in, one mapping:

- ``--docling-json EXPORT.json``: needs only ``docling-core``. The export must
  be of *this* PDF: Docling's ``origin.binary_hash`` is the low 64 bits of the
  SHA-256 of the file bytes (docling hashes the file with SHA-256 and
  docling-core's ``DocumentOrigin`` keeps the hex digest masked to a uint64),
  and its page count and sizes must match the PDF's.
- ``--parser docling``: converts with Docling's own pipeline when ``docling``
  and its model weights are installed. It never downloads: missing weights are
  one clear error naming the folder where they are expected.

The mapping (``docling_map*.py``) keeps Docling's segmentation, labels and
reading order; native links and registry rows in cross_ref_df come from the same
``crossrefs.parse_time_refs`` the PyMuPDF parser calls, so downstream code
cannot tell the parsers apart except by ``parse_method``/``source``.
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
from pathlib import Path

import pandas as pd

from docintel.errors import MissingDependencyError, UsageError
from docintel.parsing import crossrefs, signals
from docintel.parsing import docling_map as dmap
from docintel.parsing import docling_map_objects as dobj
from docintel.schema.document import DocTables
from docintel.schema.tables import CELL_DF, CROSS_REF_DF, LINE_DF, OBJECT_REGISTRY, PAGE_DF, TOC_DF

log = logging.getLogger(__name__)

INSTALL_HINT = "pip install 'docintel[docling]'"
FULL_INSTALL_HINT = (
    "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu && pip install docling"
)
#: Page sizes may differ by rounding between Docling's export and PyMuPDF.
SIZE_TOLERANCE = 1.0


def docling_binary_hash(data: bytes) -> int:
    """Docling's ``origin.binary_hash`` of a file: SHA-256 of the bytes, low 64 bits."""
    return int(hashlib.sha256(data).hexdigest(), 16) & 0xFFFFFFFFFFFFFFFF


def load_docling_json(path: str | Path):
    """Load a Docling JSON export as a docling-core DoclingDocument, or raise a clear error."""
    try:
        from docling_core.types.doc import DoclingDocument
    except ImportError as exc:
        raise MissingDependencyError(f"--docling-json needs docling-core: {INSTALL_HINT}") from exc
    p = Path(path)
    if not p.is_file():
        raise UsageError(f"{p}: no such Docling JSON file")
    try:
        return DoclingDocument.load_from_json(p)
    except Exception as exc:  # pydantic ValidationError, JSONDecodeError
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise UsageError(f"{p}: not a Docling JSON export ({first})") from exc


def check_matches_pdf(ddoc, doc, data: bytes, *, name: str = "this PDF") -> list[str]:
    """Raise UsageError when the export is not of this PDF; return warnings for soft gaps."""
    warnings: list[str] = []
    origin = ddoc.origin
    if origin is None or origin.binary_hash is None:
        warnings.append("the Docling export has no origin hash; checked page sizes only")
    elif int(origin.binary_hash) != docling_binary_hash(data):
        raise UsageError(
            f"the Docling export is of another file ({origin.filename!r}, binary_hash {origin.binary_hash}), "
            f"not of {name} (binary_hash {docling_binary_hash(data)}); export this PDF with Docling again"
        )
    for page_no, item in sorted(ddoc.pages.items()):
        if not 1 <= page_no <= doc.page_count:
            raise UsageError(f"the Docling export has page {page_no} but {name} has {doc.page_count} pages")
        rect = doc[page_no - 1].rect
        w, h = float(item.size.width), float(item.size.height)
        if abs(w - rect.width) > SIZE_TOLERANCE or abs(h - rect.height) > SIZE_TOLERANCE:
            raise UsageError(
                f"page {page_no}: the Docling export is {w:.1f}x{h:.1f} pt but {name} is "
                f"{rect.width:.1f}x{rect.height:.1f} pt; the export is not of this PDF"
            )
    missing = sorted(set(range(1, doc.page_count + 1)) - set(ddoc.pages))
    if missing:
        warnings.append(f"pages not in the Docling export: {missing}")
    return warnings


def weights_dir() -> Path:
    """Where Docling's model weights are expected: DOCLING_ARTIFACTS_PATH, else Docling's cache."""
    env = os.environ.get("DOCLING_ARTIFACTS_PATH")
    if env:
        return Path(env)
    try:
        from docling.datamodel.settings import settings

        return Path(settings.cache_dir) / "models"
    except Exception:  # older/newer docling layouts: fall back to its documented default
        return Path.home() / ".cache" / "docling" / "models"


def convert_with_docling(data: bytes, name: str):
    """Run Docling's PDF pipeline offline on the bytes; return its DoclingDocument."""
    stream_name = name if name.lower().endswith(".pdf") else "document.pdf"
    try:
        from docling.datamodel.base_models import DocumentStream, InputFormat
        from docling.datamodel.pipeline_options import PdfPipelineOptions
        from docling.document_converter import DocumentConverter, PdfFormatOption
    except ImportError as exc:
        raise MissingDependencyError(
            "--parser docling needs Docling with its models; for the JSON path only: "
            f"{INSTALL_HINT}; for conversion (CPU torch): {FULL_INSTALL_HINT}; "
            "or map an existing export with --docling-json EXPORT.json"
        ) from exc
    models = weights_dir()
    if not models.is_dir() or not any(models.iterdir()):
        raise UsageError(
            f"Docling's model weights are not installed: expected in {models} "
            "(set DOCLING_ARTIFACTS_PATH, or run `docling-tools models download` where the network "
            "allows, then copy the folder here); or map an existing export with --docling-json"
        )
    # Never let a missing file turn into a hub download (or a retry loop) mid-parse.
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    import io

    # EasyOCR fetches its own weights unless they sit in the artifacts folder ('EasyOcr', as
    # `docling-tools models download` lays them out): without them, convert the text layer only.
    do_ocr = (models / "EasyOcr").is_dir()
    if not do_ocr:
        log.warning("no EasyOCR weights in %s: Docling runs without OCR (scanned pages stay empty)", models)
    options = PdfPipelineOptions(artifacts_path=str(models), do_ocr=do_ocr)
    converter = DocumentConverter(format_options={InputFormat.PDF: PdfFormatOption(pipeline_options=options)})
    try:
        result = converter.convert(DocumentStream(name=stream_name, stream=io.BytesIO(data)))
    except (FileNotFoundError, OSError) as exc:
        raise UsageError(f"Docling could not load its model weights from {models}: {exc}") from exc
    return result.document


def parse_with_docling(
    doc,
    doc_id: str,
    *,
    data: bytes,
    docling_json: str | Path | None = None,
    eager_refs: bool = False,
) -> DocTables:
    """Map a DoclingDocument of the open PDF ``doc`` to DocTables (same schema as PyMuPDF's)."""
    # parse_document opens the PDF from bytes, so the Document has no file name to quote.
    name = Path(getattr(doc, "name", "") or "").name or "this PDF"
    t0 = time.perf_counter()
    if docling_json is not None:
        ddoc = load_docling_json(docling_json)
        warnings = check_matches_pdf(ddoc, doc, data, name=name)
        how = "json"
    else:
        ddoc = convert_with_docling(data, name)
        warnings = []
        how = "converted"
    convert_seconds = time.perf_counter() - t0
    tables = map_docling_document(ddoc, doc, doc_id, eager_refs=eager_refs, convert_seconds=convert_seconds)
    for w in warnings:
        log.warning("%s", w)
    tables.manifest["warnings"] = tables.manifest.get("warnings", []) + warnings
    tables.manifest["docling"] = {
        "input": how,
        "json": str(docling_json) if docling_json else None,
        "schema_version": str(getattr(ddoc, "version", "")),
        "origin_filename": getattr(ddoc.origin, "filename", None) if ddoc.origin else None,
        "convert_seconds": round(convert_seconds, 3),
    }
    return tables


def map_docling_document(
    ddoc, doc, doc_id: str, *, eager_refs: bool = False, convert_seconds: float = 0.0
) -> DocTables:
    """The mapping itself: DoclingDocument + the open PDF -> DocTables."""
    t0 = time.perf_counter()
    entries = dmap.ordered_entries(ddoc)
    rows, page_text = dmap.build_lines(ddoc, doc, entries)
    widths = {p: doc[p - 1].rect.width for p in range(1, doc.page_count + 1)}
    dmap.assign_columns(rows, widths)
    registry, cells = dobj.build_objects(ddoc, entries, doc_id)
    toc = dobj.build_toc(entries, rows, doc_id)
    dobj.assign_sections(rows, toc)
    by_page: dict[int, list[dict]] = {}
    for r in rows:
        r.pop("_ref", None)
        r["doc_id"] = doc_id
        by_page.setdefault(r["page"], []).append(r)
    labels = {p: dmap.page_label(rs) for p, rs in by_page.items()}  # also marks page_number lines
    for t in toc:
        t.pop("_pos", None)

    line_df = LINE_DF.conform(pd.DataFrame(rows)) if rows else LINE_DF.empty()
    per_page = (time.perf_counter() - t0 + convert_seconds) / max(doc.page_count, 1)
    page_df = PAGE_DF.conform(
        pd.DataFrame(_page_rows(doc, doc_id, ddoc, by_page, labels, page_text, per_page))
    )
    toc_df = TOC_DF.conform(pd.DataFrame(toc)) if toc else TOC_DF.empty()
    reg_df = OBJECT_REGISTRY.conform(pd.DataFrame(registry)) if registry else OBJECT_REGISTRY.empty()
    cell_df = CELL_DF.conform(pd.DataFrame(cells)) if cells else CELL_DF.empty()
    xref = crossrefs.parse_time_refs(doc, line_df, toc_df, reg_df, doc_id)
    if eager_refs:
        xref = pd.concat([xref, crossrefs.extract_references(line_df, doc_id)], ignore_index=True)
    return DocTables(
        doc_id=doc_id,
        line_df=line_df,
        page_df=page_df,
        toc_df=toc_df,
        object_registry=reg_df,
        cell_df=cell_df,
        cross_ref_df=CROSS_REF_DF.conform(xref),
    )


def _page_rows(doc, doc_id: str, ddoc, by_page, labels, page_text, per_page: float) -> list[dict]:
    out = []
    for i in range(doc.page_count):
        p = i + 1
        page = doc[i]
        # keep page_df's columns only: page_signals may carry private helpers (e.g. '_image_boxes')
        prow = {k: v for k, v in signals.page_signals(page, p).items() if k in PAGE_DF.column_names}
        prow["doc_id"] = doc_id
        rs = by_page.get(p, [])
        pdf_chars = page_text[p].n_chars if p in page_text else len("".join(page.get_text("text").split()))
        label = labels.get(p)
        prow.update(
            n_lines=len(rs),
            n_chars=sum(len(r["text"].replace(" ", "")) for r in rs),
            n_words=sum(len(r["text"].split()) for r in rs),
            has_text_layer=pdf_chars > 0,
            image_only=pdf_chars == 0 and prow.get("n_images", 0) > 0,
            n_columns=max((r["column"] for r in rs), default=-1) + 1 if rs else 0,
            printed_label=label,
            label_source="printed" if label else None,
            parse_method="docling",
            parse_seconds=per_page,
        )
        if p not in ddoc.pages:
            prow.update(parse_method="failed", error="page not in the Docling export")
        out.append(prow)
    return out
