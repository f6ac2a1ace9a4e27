"""The PyMuPDF parser: fast text path, per-page escalation to pymupdf.layout."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import pandas as pd

from docintel.parsing import crossrefs, furniture, layout, lines, objects, signals, toc
from docintel.schema.document import DocTables
from docintel.schema.tables import CELL_DF, CROSS_REF_DF, LINE_DF, OBJECT_REGISTRY, PAGE_DF, TOC_DF

log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]


def parse_with_pymupdf(
    doc,
    doc_id: str,
    *,
    layout_mode: str = "auto",
    eager_refs: bool = False,
    progress: Progress | None = None,
) -> DocTables:
    """Parse an open pymupdf.Document into DocTables.

    ``layout_mode``: ``never`` (fast path only), ``auto`` (escalate the pages
    whose signals say the fast path did not understand them), ``always``.
    A page that raises is recorded in page_df.error and the rest still parses.
    """
    all_lines: list[dict] = []
    pages: list[dict] = []
    n = doc.page_count
    for i in range(n):
        page_no = i + 1
        t0 = time.perf_counter()
        prow: dict = {"page": page_no, "parse_method": "fast", "escalation_signals": None}
        try:
            page = doc[i]
            prow.update(signals.page_signals(page, page_no))
            rows, sig = lines.extract_page_lines(page, page_no)
            reasons = layout.escalation_reasons(page, rows, prow) if layout_mode == "auto" else []
            if layout_mode == "always":
                reasons = ["layout=always"]
            if reasons:
                try:
                    rows, sig = layout.extract_page_lines_layout(page, page_no, rows)
                    prow["parse_method"] = "layout"
                except Exception as exc:  # the fast lines are still good
                    log.warning("page %d: layout model failed (%s); kept the fast parse", page_no, exc)
                    reasons.append(f"layout_failed: {exc}")
                prow["escalation_signals"] = "; ".join(reasons)
            prow.update(sig)
            prow["has_text_layer"] = sig["n_chars"] > 0
            prow["image_only"] = sig["n_chars"] == 0 and prow.get("n_images", 0) > 0
        except Exception as exc:
            log.warning("page %d failed to parse: %s", page_no, exc)
            prow.update(parse_method="failed", error=str(exc), n_lines=0, n_chars=0, n_words=0)
            prow.setdefault("has_text_layer", False)
            rows = []
        prow["parse_seconds"] = time.perf_counter() - t0
        all_lines.extend(rows)
        pages.append(prow)
        if progress:
            progress(page_no, n)

    line_df = pd.DataFrame(all_lines) if all_lines else LINE_DF.empty()
    line_df["doc_id"] = doc_id
    page_df = pd.DataFrame(pages)
    page_df["doc_id"] = doc_id
    page_df["n_columns"] = [
        int(line_df.loc[line_df["page"] == p, "column"].max() + 1) if (line_df["page"] == p).any() else 0
        for p in page_df["page"]
    ]

    line_df, page_df = furniture.mark_furniture(line_df, page_df)
    toc_df, line_df = toc.build_toc(doc, line_df, page_df, doc_id)
    registry, cells, line_df = objects.build_objects(doc, line_df, page_df, toc_df, doc_id)
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
