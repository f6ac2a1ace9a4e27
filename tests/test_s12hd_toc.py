"""Session 12 (hd): outline entries and the heading lines they are matched to."""

from __future__ import annotations

import pymupdf

from docintel.parsing import toc_sources
from docintel.parsing.heading_text import Candidate
from docintel.parsing.pymupdf_backend import parse_with_pymupdf

BODY = "Body text of the section that runs on for a while and ends with a full stop."


def _cand(line: int, text: str, number: str | None, title: str, bold: bool) -> Candidate:
    c = Candidate(1, line, [line], text, 12.0 if bold else 10.0, bold, 72, 100, 300, 112, "helv")
    c.number, c.title, c.extra = number, title, {"heading_like": bold}
    return c


def test_a_line_printing_another_number_is_not_the_entry_heading():
    # NISTIR 8011 vol. 1 p72 prints "7. Root Cause Analysis" (a bold heading) and, lower on the
    # page, "7.2 Root Cause Analysis" in body type: the outline entry "7.2 ..." took the bold line
    # by its title alone, so "Section 7.2" gave Section 7's opening
    sec7 = _cand(4, "7. Root Cause Analysis", "7.", "Root Cause Analysis", True)
    assert toc_sources.match("Root Cause Analysis", "7.2", [sec7], [1]) is None
    assert toc_sources.match("Root Cause Analysis", "7", [sec7], [1]) is sec7
    # an entry with no number, or a line with none, still matches by title
    assert toc_sources.match("Root Cause Analysis", None, [sec7], [1]) is sec7
    plain = _cand(4, "Root Cause Analysis", None, "Root Cause Analysis", True)
    assert toc_sources.match("Root Cause Analysis", "7.2", [plain], [1]) is plain


def test_outline_entry_goes_to_the_line_with_its_own_number():
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    y = 90
    for text, font, size in [
        ("7. Root Cause Analysis", "hebo", 14),
        (BODY, "helv", 10),
        ("7.1 Scope", "hebo", 12),
        (BODY, "helv", 10),
        ("7.2 Root Cause Analysis", "helv", 10),
        (BODY, "helv", 10),
    ]:
        page.insert_text((72, y), text, fontname=font, fontsize=size)
        y += 30
    doc.set_toc([[1, "7. Root Cause Analysis", 1], [2, "7.1 Scope", 1], [2, "7.2 Root Cause Analysis", 1]])
    tables = parse_with_pymupdf(pymupdf.open("pdf", doc.tobytes()), "gen", layout_mode="never")
    toc = tables.toc_df.set_index("toc_id")
    ld = tables.line_df
    start = ld[(ld.page == 1) & (ld.line == toc.loc["7.2"].line_start)].iloc[0]
    assert start.text.startswith("7.2 Root Cause Analysis")
    assert toc.loc["7"].line_start != toc.loc["7.2"].line_start
