"""MuPDF's message store turned into page-level signals.

MuPDF repairs what it can and swallows the rest: a page whose content stream is cut short or
has a wrong filter comes back empty with no exception, only messages in its warning store
(``premature end of data in flate filter``, ``syntax error in content stream``...). The page
loop calls :func:`reset` before a page and :func:`page_problem` after it, so such a page is
recorded with the reason instead of looking like a blank page.
"""

from __future__ import annotations

#: Messages that say content was lost; font substitutions and similar notes are not damage.
_DAMAGE = (
    "error",
    "premature",
    "cannot",
    "failed",
    "unknown",
    "invalid",
    "corrupt",
    "broken",
    "truncated",
    "treating as end of file",
    "not a",
    "can't",
    "unable",
)
_NOISE = ("repeated", "ignoring", "font", "cmap", "glyph", "encoding")


def reset() -> None:
    import pymupdf

    pymupdf.TOOLS.reset_mupdf_warnings()


def messages(*, reset_after: bool = True, every: bool = False) -> list[str]:
    """The distinct damage messages MuPDF stored since the last reset (in order); ``every``
    keeps the notes too (font substitutions...)."""
    import pymupdf

    raw = pymupdf.TOOLS.mupdf_warnings(reset=reset_after) or ""
    # MuPDF quotes the damaged bytes ("unknown keyword: '\\xb0'"), which arrive as lone surrogates
    raw = raw.encode("utf-8", "backslashreplace").decode("utf-8", "replace")
    out: list[str] = []
    for line in raw.splitlines():
        low = line.strip().lower()
        if not low or low.startswith("... repeated"):
            continue
        if not every and (any(n in low for n in _NOISE) or not any(d in low for d in _DAMAGE)):
            continue
        if line.strip() not in out:
            out.append(line.strip())
    return out


def page_problem(page, n_lines: int, n_images: int) -> tuple[str | None, bool]:
    """``(reason, failed)`` for the page just parsed: why it is damaged (None when it is not),
    and whether nothing of it could be read (the page is then recorded as failed)."""
    # a page that came back empty: any message at all says why (a note on a page with text does not)
    found = messages(every=n_lines == 0)
    if found:
        reason = "MuPDF: " + "; ".join(found[:3])
        return reason[:300], n_lines == 0
    if n_lines == 0 and not n_images:
        try:
            has_contents = bool(page.get_contents())
        except Exception:
            has_contents = True
        if not has_contents:
            return "no content stream (/Contents missing): the page is blank", False
    return None, False
