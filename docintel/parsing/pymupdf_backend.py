"""The PyMuPDF parser: fast text path, per-page escalation to pymupdf.layout."""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable

import pandas as pd

from docintel.parsing import (
    crossrefs,
    furniture,
    headings,
    layout,
    lines,
    mupdf_log,  # issue 11
    objects,
    ocr,
    signals,
    toc,
)
from docintel.schema.document import DocTables
from docintel.schema.tables import CELL_DF, CROSS_REF_DF, LINE_DF, OBJECT_REGISTRY, PAGE_DF, TOC_DF

log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]


def parse_with_pymupdf(
    doc,
    doc_id: str,
    *,
    layout_mode: str = "auto",
    ocr_mode: str = "auto",
    eager_refs: bool = False,
    progress: Progress | None = None,
    pages_only: bool = False,
) -> DocTables:
    """Parse an open pymupdf.Document into DocTables.

    ``layout_mode``: ``never`` (fast path only), ``auto`` (escalate the pages
    whose signals say the fast path did not understand them), ``always``.
    ``ocr_mode``: ``auto`` reads pages found ``image_only`` with Tesseract when it is
    installed (:mod:`ocr`), ``never`` leaves them flagged and empty.
    A page that raises is recorded in page_df.error and the rest still parses.
    ``pages_only`` stops after the page stage (lines, signals, furniture, labels, escalation, OCR)
    with empty section/object/reference tables: for the page-level tests and benchmark.
    """
    all_lines: list[dict] = []
    pages: list[dict] = []
    n = doc.page_count
    seen_gutters: Counter = Counter()  # the document's column layout, for sparse pages
    spans: dict[int, headings.PageSpans | None] = {}  # what heading detection needs of each page's dict
    for i in range(n):
        page_no = i + 1
        t0 = time.perf_counter()
        prow: dict = {"page": page_no, "parse_method": "fast", "escalation_signals": None}
        mupdf_log.reset()  # issue 11: MuPDF's messages for this page only
        try:
            page = doc[i]
            prow.update(signals.page_signals(page, page_no))
            hint = [g for g in seen_gutters.most_common(1)[0][0]] if seen_gutters else None
            rows, sig = lines.extract_page_lines(
                page, page_no, hint_gutters=hint, image_boxes=prow.get("_image_boxes")
            )
            spans[page_no] = headings.page_spans(sig.pop("_page_dict"))
            if sig["_gutters"]:
                seen_gutters[tuple((round(a), round(b)) for a, b in sig["_gutters"])] += 1
            prow.update(sig)
            reasons = layout.escalation_reasons(page, rows, prow) if layout_mode == "auto" else []
            if layout_mode == "always" and rows:
                reasons = ["layout=always"]
            if reasons:
                try:
                    rows, lsig = layout.extract_page_lines_layout(
                        page, page_no, rows, gutters=sig["_gutters"], cuts=prow.get("_image_boxes")
                    )
                    prow.update(lsig)
                    prow["parse_method"] = "layout"
                except Exception as exc:  # the fast lines are still good
                    log.warning("page %d: layout model failed (%s); kept the fast parse", page_no, exc)
                    reasons.append(f"layout_failed: {exc}")
                prow["escalation_signals"] = "; ".join(reasons)
            prow["has_text_layer"] = prow["n_chars"] > 0
        except Exception as exc:
            log.warning("page %d failed to parse: %s", page_no, exc)
            prow.update(parse_method="failed", error=str(exc), n_lines=0, n_chars=0, n_words=0)
            prow.setdefault("has_text_layer", False)
            rows = []
        # -- issue 11: damage MuPDF swallowed (cut streams, bad filters) is recorded, not silent
        if prow["parse_method"] != "failed":
            problem, lost = mupdf_log.page_problem(page, len(rows), int(prow.get("n_images") or 0))
            if problem:
                prow["error"] = problem
                prow["parse_method"] = "failed" if lost else prow["parse_method"]
        # -- end issue 11
        prow["parse_seconds"] = time.perf_counter() - t0
        all_lines.extend(rows)
        pages.append({k: v for k, v in prow.items() if not k.startswith("_")})
        if progress:
            progress(page_no, n)

    line_df = pd.DataFrame(all_lines) if all_lines else LINE_DF.empty()
    line_df["doc_id"] = doc_id
    page_df = pd.DataFrame(pages)
    page_df["doc_id"] = doc_id
    labels = _pdf_labels(doc)
    raw_lines, raw_pages = line_df, page_df
    line_df, page_df = furniture.mark_furniture(raw_lines, raw_pages, pdf_labels=labels)
    # Image-only pages are known once furniture is: OCR them, then mark furniture again over
    # the whole document (the recognised running head repeats like the others).
    raw_lines, done = ocr.ocr_image_only_pages(doc, raw_lines, line_df, page_df, mode=ocr_mode)
    if done:
        line_df, page_df = furniture.mark_furniture(raw_lines, raw_pages, pdf_labels=labels)
        base = dict(zip(raw_pages["page"].astype(int), raw_pages["escalation_signals"], strict=False))
        ocr.mark_ocr_pages(page_df, done, base)
        for p, info in done.items():
            spans[p] = headings.page_spans(info["page_dict"])
    # Private hints ("_rot", "_marker", ...) served lines/furniture/layout; the contract has none.
    line_df = line_df.drop(columns=[c for c in line_df.columns if c.startswith("_")])
    if pages_only:
        return DocTables(
            doc_id=doc_id,
            line_df=LINE_DF.conform(line_df),
            page_df=PAGE_DF.conform(page_df),
            toc_df=TOC_DF.empty(),
            object_registry=OBJECT_REGISTRY.empty(),
            cell_df=CELL_DF.empty(),
            cross_ref_df=CROSS_REF_DF.empty(),
        )
    # build_toc reads the spans from a private page_df column (its signature stays the stubbable one)
    page_df["_spans"] = pd.Series(
        [spans.get(int(p)) for p in page_df["page"]], index=page_df.index, dtype=object
    )
    toc_df, line_df = toc.build_toc(doc, line_df, page_df, doc_id)
    page_df = page_df.drop(columns="_spans")
    registry, cells, line_df = objects.build_objects(doc, line_df, page_df, toc_df, doc_id)
    toc_df = toc.drop_demoted(toc_df, line_df)  # labels inside figures / tables are not sections
    line_df = toc.assign_sections(line_df, toc_df)
    xref = crossrefs.parse_time_refs(doc, line_df, toc_df, registry, doc_id)
    if eager_refs:
        xref = pd.concat([xref, crossrefs.extract_references(line_df, doc_id)], ignore_index=True)

    return DocTables(
        doc_id=doc_id,
        line_df=LINE_DF.conform(line_df),
        page_df=PAGE_DF.conform(page_df),
        toc_df=TOC_DF.conform(toc_df),
        object_registry=OBJECT_REGISTRY.conform(registry),
        cell_df=CELL_DF.conform(cells),
        cross_ref_df=CROSS_REF_DF.conform(xref),
    )


def _pdf_labels(doc) -> list[str] | None:
    """The PDF's /PageLabels per physical page, or None when it has none."""
    try:
        if not doc.get_page_labels():
            return None
        return [doc[i].get_label() for i in range(doc.page_count)]
    except Exception:  # a broken label tree is not worth failing the parse
        return None
