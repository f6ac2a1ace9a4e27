"""One builder for the small generated PDFs the provision and structure tests parse."""

from __future__ import annotations

from collections.abc import Callable

import pymupdf

#: (text, font, size[, where[, gap]]): where is "c" (centred) or a left x (default 72); gap is the
#: baseline step from the line above (default ``step(size, x)``)
Line = tuple


def build_pdf(
    pages: list[list[Line]], step: Callable[[float, float], float] = lambda size, x: size * 2.0
) -> pymupdf.Document:
    """A PDF of A4 pages, each line's baseline ``gap`` (or ``step``) below the one above it."""
    doc = pymupdf.open()
    for lines in pages:
        page = doc.new_page(width=595, height=842)
        y = 72.0
        for item in lines:
            text, font, size = item[:3]
            where = item[3] if len(item) > 3 else 72
            gap = item[4] if len(item) > 4 else None
            if where == "c":
                x = (595 - pymupdf.get_text_length(text, fontname=font, fontsize=size)) / 2
            else:
                x = float(where)
            y += gap if gap is not None else step(size, x)
            page.insert_text((x, y), text, fontname=font, fontsize=size)
    return pymupdf.open("pdf", doc.tobytes())
