"""graphics.cluster_drawings gives exactly PyMuPDF's Page.cluster_drawings rectangles."""

from __future__ import annotations

import random
from pathlib import Path

import pymupdf
import pytest

from docintel.parsing import graphics

REPO = Path(__file__).resolve().parents[1]


def _reference(rects: list[tuple], area: tuple) -> list[tuple]:
    page = pymupdf.open().new_page(width=area[2], height=area[3])
    drawings = [{"rect": pymupdf.Rect(r)} for r in rects]
    return [tuple(r) for r in page.cluster_drawings(drawings=drawings)]


@pytest.mark.parametrize("seed", range(5))
def test_same_clusters_as_pymupdf_on_random_rects(seed: int) -> None:
    rng = random.Random(seed)
    rects = []
    for _ in range(120):
        # quarter points are exact in MuPDF's float32 rectangles, as real drawing coordinates are
        x0, y0 = rng.randrange(0, 2000) / 4, rng.randrange(0, 3000) / 4
        w, h = rng.randrange(0, 80) / 4, rng.randrange(0, 80) / 4
        rects.append((x0, y0, x0 + w, y0 + h) if rng.random() > 0.1 else (x0 + w, y0, x0, y0 + h))
    rects += rects[:5]  # duplicates are joined once
    area = (0.0, 0.0, 595.0, 842.0)
    assert graphics.cluster_rects(rects, area) == _reference(rects, area)


def test_same_clusters_as_pymupdf_on_real_pages() -> None:
    pdfs = sorted((REPO / "pdfs").glob("*.pdf"))
    if not pdfs:
        pytest.skip("no bundled PDFs")
    checked = 0
    for path in pdfs:
        with pymupdf.open(path) as doc:
            for page in doc:
                expected = [tuple(r) for r in page.cluster_drawings()]
                assert graphics.cluster_drawings(page) == expected, (path.name, page.number)
                checked += bool(expected)
    assert checked > 0
