"""Answers a person can see: a highlighted copy of the PDF and a self-contained HTML report.

Both outputs place every citation on the page from the line boxes of
``line_df`` (PDF points, top-left origin, unrotated page space as PyMuPDF
extracts them), with one colour code: primary evidence, evidence reached by
following a reference, and pulled-in definitions. The HTML side lives in
:mod:`docintel.report.html`, the PDF side in :mod:`docintel.report.pdf`; both draw
the marks of :mod:`docintel.report.marks`. PyMuPDF does all the drawing, so no extra dependency.
"""

from __future__ import annotations

from docintel.report.geometry import line_rects, merge_rects, place_label
from docintel.report.html import write_html_report
from docintel.report.io import artifacts_root_of, load_tables, mismatched_evidence
from docintel.report.marks import VIA_COLOURS, Mark, page_marks
from docintel.report.pdf import write_highlight_pdf

__all__ = [
    "VIA_COLOURS",
    "Mark",
    "artifacts_root_of",
    "load_tables",
    "line_rects",
    "merge_rects",
    "mismatched_evidence",
    "page_marks",
    "place_label",
    "write_highlight_pdf",
    "write_html_report",
]
