"""Opening a PDF safely: every kind of bad input becomes one clear error."""

from __future__ import annotations

import hashlib
from pathlib import Path

from docintel.errors import DocumentError, EncryptedDocumentError, UsageError

#: Refuse documents above these limits (override with max_pages / max_bytes).
DEFAULT_MAX_PAGES = 5000
DEFAULT_MAX_BYTES = 500 * 1024 * 1024


def doc_id_for(data: bytes) -> str:
    """sha256 of the PDF bytes, first 16 hex characters."""
    return hashlib.sha256(data).hexdigest()[:16]


def read_pdf_bytes(path: str | Path, *, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes:
    p = Path(path)
    if not p.exists():
        raise UsageError(f"{p}: no such file")
    if p.is_dir():
        raise UsageError(f"{p}: is a directory, not a PDF file")
    size = p.stat().st_size
    if size == 0:
        raise DocumentError(f"{p}: empty file (0 bytes), not a PDF")
    if size > max_bytes:
        raise DocumentError(
            f"{p}: {size / 2**20:.0f} MiB is over the {max_bytes / 2**20:.0f} MiB limit "
            "(raise it with --max-bytes)"
        )
    data = p.read_bytes()
    if b"%PDF-" not in data[:1024]:
        raise DocumentError(f"{p}: not a PDF (no %PDF- header)")
    return data


def open_pdf(
    data: bytes,
    *,
    name: str = "document",
    password: str | None = None,
    max_pages: int = DEFAULT_MAX_PAGES,
):
    """Open PDF bytes with PyMuPDF, or raise a DocumentError that says what is wrong."""
    import pymupdf

    pymupdf.TOOLS.mupdf_display_errors(False)
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception as exc:  # pymupdf raises FileDataError and friends
        raise DocumentError(f"{name}: corrupt or unreadable PDF ({exc})") from exc
    if doc.needs_pass:
        if not password:
            raise EncryptedDocumentError(f"{name}: the PDF is encrypted; give its --password")
        if not doc.authenticate(password):
            raise EncryptedDocumentError(f"{name}: wrong password for the encrypted PDF")
    if doc.page_count == 0:
        raise DocumentError(f"{name}: the PDF has no pages")
    if doc.page_count > max_pages:
        raise DocumentError(
            f"{name}: {doc.page_count} pages is over the {max_pages}-page limit (raise it with --max-pages)"
        )
    # A truncated file often opens but fails on its first page: check now.
    try:
        doc[0].get_text("text")
    except Exception as exc:
        raise DocumentError(f"{name}: corrupt PDF, its first page cannot be read ({exc})") from exc
    return doc
