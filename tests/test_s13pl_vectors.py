"""One interpretation of a page for its text and its line art (issue 18, session 13).

The page stage's text page records the page's vector paths (``signals.vector_flags``):
``n_drawings`` counts them as MuPDF's text device records them (touching same-colour rectangles
merged), a path ends MuPDF's text block, and the lines themselves are those of a text page
without paths. ``get_cdrawings()`` is read only where paths are read.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from docintel.parsing import layout, lines, signals
from docintel.parsing.heading_spans import _fast_flags

try:  # tests/ is a package when tests/__init__.py exists, a plain rootdir entry otherwise
    from tests._page_stage import parse_pages
except ImportError:
    from _page_stage import parse_pages

REPO = Path(__file__).resolve().parents[1]
BUNDLED = sorted((REPO / "pdfs").glob("*.pdf")) + sorted((REPO / "tests" / "data" / "robust").glob("*.pdf"))


def _boxed_page() -> bytes:
    """Prose, then a ruled box drawn as one path of four filled rectangles, a shaded cell inside."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), "A paragraph of prose above the box.", fontsize=11)
    page.insert_text((72, 114), "Its second line, in the same block.", fontsize=11)
    shape = page.new_shape()
    for r in ((72, 130, 300, 131), (72, 179, 300, 180), (72, 130, 73, 180), (299, 130, 300, 180)):
        shape.draw_rect(r)
    shape.finish(color=None, fill=(0, 0, 0))
    shape.commit()
    page.draw_rect((80, 140, 290, 160), color=None, fill=(0.85, 0.85, 0.85))
    page.insert_text((84, 154), "a shaded cell", fontsize=11)
    page.insert_text((72, 200), "Prose below the box.", fontsize=11)
    return doc.tobytes()


def test_n_drawings_counts_the_text_pages_vector_blocks_not_get_cdrawings():
    data = _boxed_page()
    page = pymupdf.open("pdf", data)[0]
    flags = _fast_flags() | signals.vector_flags()
    vectors = signals.vector_blocks(page.get_text("dict", flags=flags))
    assert len(page.get_cdrawings()) == 2  # the box (one path of four rectangles), the shading
    assert len(vectors) == 5  # a vector block per rectangle
    pages = parse_pages(data).page_df
    assert int(pages.at[0, "n_drawings"]) == len(vectors)


def test_a_path_ends_the_text_block_and_leaves_the_lines_as_they_were():
    tables = parse_pages(_boxed_page())
    blocks = dict(zip(tables.line_df["text"], tables.line_df["block"], strict=True))
    assert blocks["A paragraph of prose above the box."] == blocks["Its second line, in the same block."]
    assert (
        len(
            {
                blocks["a shaded cell"],
                blocks["Prose below the box."],
                blocks["Its second line, in the same block."],
            }
        )
        == 3
    )


@pytest.mark.parametrize("pdf", BUNDLED, ids=lambda p: p.stem)
def test_vector_flags_change_no_line_and_only_add_block_boundaries(pdf):
    plain, vec = _fast_flags(), _fast_flags() | signals.vector_flags()
    doc = pymupdf.open(pdf)
    for page in doc:
        got = {}
        for name, flags in (("plain", plain), ("vec", vec)):
            tp = page.get_textpage(flags=flags)
            d = page.get_text("dict", flags=flags, textpage=tp)
            rows, _ = lines.extract_page_lines(page, page.number + 1, textpage=tp, page_dict=d)
            got[name] = rows
            if name == "vec":  # a page without a recorded path draws none (the get_cdrawings shortcut)
                assert bool(signals.vector_blocks(d)) == bool(page.get_cdrawings()), page.number
        key = ("text", "x0", "y0", "x1", "y1", "role", "column")
        assert [tuple(r[k] for k in key) for r in got["plain"]] == [
            tuple(r[k] for k in key) for r in got["vec"]
        ]
        same_before = [a["block"] == b["block"] for a, b in zip(got["plain"], got["plain"][1:], strict=False)]
        same_after = [a["block"] == b["block"] for a, b in zip(got["vec"], got["vec"][1:], strict=False)]
        assert not any(s and not t for s, t in zip(same_after, same_before, strict=True)), page.number


def test_escalation_counts_the_paths_it_reads_when_it_has_them():
    # MANY_DRAWINGS was set on get_cdrawings() counts: the auto page stage hands those paths to
    # escalation_reasons, which counts them rather than the text page's merged vector blocks
    rows = [{"text": "Some prose on the page.", "role": "body", "x0": 72, "y0": 100, "x1": 500, "y1": 110}]
    paths = [{"rect": (50 + i, 50, 560, 700)} for i in range(layout.MANY_DRAWINGS)]
    sig = {
        "n_images": 0,
        "n_drawings": layout.MANY_DRAWINGS - 4,
        "_drawings": paths,
        "width": 612,
        "height": 792,
    }
    reasons = layout.escalation_reasons(None, rows, sig)
    assert any(r.startswith("vector_graphics_without_structure") for r in reasons)
    sig["_drawings"] = paths[:-5]
    assert not any(r.startswith("vector_graphics") for r in layout.escalation_reasons(None, rows, sig))
