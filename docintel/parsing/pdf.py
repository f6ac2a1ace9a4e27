"""Opening a PDF safely: every kind of bad input becomes one clear error."""

from __future__ import annotations

import hashlib
from pathlib import Path

from docintel.errors import BudgetError, DocumentError, EncryptedDocumentError, UsageError

#: Refuse documents above these limits (override with max_pages / max_bytes).
DEFAULT_MAX_PAGES = 5000
DEFAULT_MAX_BYTES = 500 * 1024 * 1024


def doc_id_for(data: bytes, *, sha256: str | None = None) -> str:
    """sha256 of the PDF bytes, first 16 hex characters (``sha256``: their hex digest, when the
    caller has it already)."""
    return (sha256 or hashlib.sha256(data).hexdigest())[:16]


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
    # MuPDF finds a header after leading junk (a mail or HTTP wrapper) and repairs the file;
    # only bytes with no PDF header anywhere are refused here.
    if b"%PDF-" not in data[:1024] and b"%PDF-" not in data:
        raise DocumentError(f"{p}: not a PDF (no %PDF- header)")
    return data


def is_encrypted(data: bytes) -> bool:
    """Whether the bytes may be an encrypted PDF: ``/Encrypt`` sits in the trailer or the xref
    stream's dictionary, which are never compressed, so its absence rules encryption out."""
    return b"/Encrypt" in data


def check_password(data: bytes, *, password: str | None, name: str = "document") -> None:
    """Raise EncryptedDocumentError unless the PDF is unencrypted or ``password`` opens it.

    Called before cached tables are served: they hold the decrypted text.
    """
    if not is_encrypted(data):
        return
    import pymupdf

    pymupdf.TOOLS.mupdf_display_errors(False)
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception:  # unreadable: open_pdf says why when the file is parsed
        return
    try:
        _authenticate(doc, password, name)
    finally:
        doc.close()


def _authenticate(doc, password: str | None, name: str) -> None:
    if doc.needs_pass:
        if not password:
            raise EncryptedDocumentError(f"{name}: the PDF is encrypted; give its --password")
        if not doc.authenticate(password):
            raise EncryptedDocumentError(f"{name}: wrong password for the encrypted PDF")


def check_page_limit(pages: int, max_pages: int, name: str = "document") -> None:
    if pages > max_pages:
        raise DocumentError(
            f"{name}: {pages} pages is over the {max_pages}-page limit (raise it with --max-pages)"
        )


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
        raise DocumentError(f"{name}: corrupt or unreadable PDF ({_short(exc)})") from exc
    try:
        _authenticate(doc, password, name)
        try:
            pages = doc.page_count
        except Exception as exc:  # a broken page tree ("Invalid number of pages")
            raise DocumentError(f"{name}: corrupt PDF, its page tree cannot be read ({_short(exc)})") from exc
        if pages <= 0:
            if doc.is_repaired:  # its xref was broken: a cut download, not an empty document
                raise DocumentError(f"{name}: the PDF is damaged or truncated (repaired, no pages recovered)")
            raise DocumentError(f"{name}: the PDF has no pages")
        check_page_limit(pages, max_pages, name)
        # A truncated file often opens but fails on its first page: check now.
        try:
            doc[0].get_text("text")
        except Exception as exc:
            if _out_of_memory(exc):
                raise BudgetError(
                    f"{name}: its first page needs more memory than the budget allows "
                    "(the file looks hostile; raise it with DOCINTEL_MAX_MEMORY_MB)"
                ) from exc
            raise DocumentError(
                f"{name}: corrupt PDF, its first page cannot be read ({_short(exc)})"
            ) from exc
    except BaseException:
        doc.close()
        raise
    return doc


def _out_of_memory(exc: BaseException) -> bool:
    text = str(exc)
    return isinstance(exc, MemoryError) or any(f"{f} (" in text for f in ("malloc", "calloc", "realloc"))


def _short(exc: BaseException) -> str:
    """MuPDF's message on one line, without its ``code=N:`` prefix."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text.split(": ", 1)[1] if text.startswith("code=") and ": " in text else text
