"""The PDF side of the report: annotations drawn into a copy of the document.

Coordinates are ``line_df``'s, i.e. PyMuPDF's unrotated page space, which is what
the annotation methods take, so rotated pages need no conversion here.
"""

from __future__ import annotations

import logging
from pathlib import Path

from docintel.report.geometry import place_label
from docintel.report.io import load_tables, open_document, write_atomically
from docintel.report.marks import ANNOT_TITLE, Mark, page_marks
from docintel.schema.document import DocTables
from docintel.schema.result import AskResult

log = logging.getLogger(__name__)


def drop_markup(doc) -> None:
    """Leave the PDF's own text-markup annotations (someone's highlights) out of the copy."""
    import pymupdf

    kinds = [
        pymupdf.PDF_ANNOT_HIGHLIGHT,
        pymupdf.PDF_ANNOT_UNDERLINE,
        pymupdf.PDF_ANNOT_SQUIGGLY,
        pymupdf.PDF_ANNOT_STRIKE_OUT,
    ]
    dropped = 0
    for page in doc:
        for annot in list(page.annots(types=kinds)):
            page.delete_annot(annot)
            dropped += 1
    if dropped:
        log.info("left %d existing markup annotations out of the highlighted copy", dropped)


def annotate_page(page, marks: list[Mark]) -> int:
    """Add each mark to ``page``: a highlight (citations) or a frame (lines where a reference is written),
    with its note, and its number in the margin. Returns the number of marks drawn."""
    import pymupdf

    count = 0
    taken: list = []
    for m in marks:
        if not m.rects:
            continue
        rects = [pymupdf.Rect(r) for r in m.rects]
        if m.kind == "citation":
            annot = page.add_highlight_annot(quads=[r.quad for r in rects])
        else:
            # A frame rather than an underline: an underline under a highlighted line is lost.
            frame = pymupdf.Rect(rects[0])
            for r in rects[1:]:
                frame |= r
            annot = page.add_rect_annot(frame + (-1.5, -1, 1.5, 1))
            annot.set_border(width=1.2)
        annot.set_colors(stroke=m.colour)
        annot.set_info(title=ANNOT_TITLE, content=m.note, subject=m.label)
        annot.update()
        count += 1
        # The number in the margin, so the link between highlight and citation survives printing.
        size = 7.0
        width, height = pymupdf.get_text_length(m.label, fontname="helv", fontsize=size) + 4, size + 3
        if page.rotation % 180:  # the label is drawn turned with the page: its box is too
            width, height = height, width
        label = page.add_freetext_annot(
            place_label(m.rects[0], width, height, taken, page.cropbox.width),
            m.label,
            fontsize=size,
            fontname="helv",
            text_color=(0, 0, 0),
            fill_color=m.colour,
            rotate=page.rotation,  # upright on a rotated page
        )
        # A FreeText annotation shows its content, so the long note stays on the highlight.
        label.set_info(title=ANNOT_TITLE, subject=m.note[:200])
        label.update()
    return count


def write_highlight_pdf(
    result: AskResult,
    pdf_path: str | Path,
    out_path: str | Path,
    *,
    tables: DocTables | None = None,
    out_dir: str | Path | None = None,
    password: str | None = None,
    keep_annots: bool = False,
    **parse_options,
) -> Path:
    """Write a copy of ``pdf_path`` to ``out_path`` with the answer's cited lines highlighted.

    Highlights are coloured by how the evidence was reached (see :data:`VIA_COLOURS`) and
    carry a note naming the citation ("[2] via reference 'Table 3 row (E)' from page 6,
    line 28 ..."); the lines where references are written are framed. Pass
    ``tables`` to skip parsing; otherwise the PDF is parsed (or read from the cache in
    ``out_dir``; by default the folder ``ask`` used, read from the trace path). Text-markup
    annotations already in the PDF (someone's highlights) are left out of the copy unless
    ``keep_annots``, so every highlight in it is a citation. The file is written atomically;
    the original is never modified.
    """
    tables = load_tables(result, pdf_path, tables, out_dir, {"password": password, **parse_options})
    marks = page_marks(result, tables)

    def write(tmp: Path) -> None:
        doc = open_document(pdf_path, password)
        try:
            if not keep_annots:
                drop_markup(doc)
            total = 0
            for page_no in sorted(marks):
                if 1 <= page_no <= doc.page_count:
                    total += annotate_page(doc[page_no - 1], marks[page_no])
            log.info("highlighted %d marks on %d pages", total, len(marks))
            doc.save(tmp, garbage=1, deflate=True)
        finally:
            doc.close()

    return write_atomically(out_path, write, source=pdf_path)
