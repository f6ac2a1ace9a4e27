"""Test helper: run the PyMuPDF page stage (lines, signals, furniture, escalation) alone.

The section/object/reference stages belong to other modules and are stubbed out so
these tests exercise, and wait for, only the page-level parser.
"""

from __future__ import annotations

from pathlib import Path
from unittest import mock

from docintel.parsing import pdf as pdfmod
from docintel.parsing import pymupdf_backend as backend
from docintel.schema.document import DocTables
from docintel.schema.tables import CELL_DF, CROSS_REF_DF, OBJECT_REGISTRY, TOC_DF


def parse_pages(source: Path | bytes, layout_mode: str = "never") -> DocTables:
    data = source if isinstance(source, bytes) else pdfmod.read_pdf_bytes(source)
    doc = pdfmod.open_pdf(data)
    with (
        mock.patch.object(
            backend.toc, "build_toc", lambda doc, line_df, page_df, doc_id: (TOC_DF.empty(), line_df)
        ),
        mock.patch.object(
            backend.objects,
            "build_objects",
            lambda doc, line_df, *a: (OBJECT_REGISTRY.empty(), CELL_DF.empty(), line_df),
        ),
        mock.patch.object(backend.toc, "assign_sections", lambda line_df, toc_df: line_df),
        mock.patch.object(backend.crossrefs, "parse_time_refs", lambda *a, **k: CROSS_REF_DF.empty()),
    ):
        try:
            return backend.parse_with_pymupdf(doc, pdfmod.doc_id_for(data), layout_mode=layout_mode)
        finally:
            doc.close()
