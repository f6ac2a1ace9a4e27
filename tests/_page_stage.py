"""Test helper: run the PyMuPDF page stage (lines, signals, furniture, escalation) alone."""

from __future__ import annotations

from pathlib import Path

from docintel.parsing import pdf as pdfmod
from docintel.parsing import pymupdf_backend as backend
from docintel.schema.document import DocTables


def parse_pages(source: Path | bytes, layout_mode: str = "never") -> DocTables:
    data = source if isinstance(source, bytes) else pdfmod.read_pdf_bytes(source)
    doc = pdfmod.open_pdf(data)
    try:
        return backend.parse_with_pymupdf(
            doc, pdfmod.doc_id_for(data), layout_mode=layout_mode, pages_only=True
        )
    finally:
        doc.close()
