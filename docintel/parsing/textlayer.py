"""Text-layer gaps: what a reader sees on a page that the text layer does not hold.

``page_df.text_gaps`` names them per page ("; "-joined, null when none):

- ``garbled_text (N unmappable characters)``: characters without a Unicode meaning in the
  text layer (private-use code points, U+FFFD), a font without a usable ToUnicode map.
  A private-use character alone as a word is a bullet glyph and does not count.
- ``vector_glyphs (N glyph-like paths beside text)``: small filled outlines (curves, the way
  a font draws letters) on the baseline of a text line and covered by no text, such as
  section numbers drawn as vector paths.
- ``raster_region (P% of the page)``: raster images on a page with a text layer, with no
  text over them; whatever they show (text set as a picture, a scanned insert) is not in
  the text layer. Image-only pages are ``page_df.image_only`` instead.

All three read what the page stage already has (its lines, the image boxes and the vector
drawings of :mod:`signals`), so the check adds no second pass over the page.
"""

from __future__ import annotations

import logging
import re

log = logging.getLogger(__name__)

#: Fewest unmappable characters, and their share of the page's characters, to flag a page.
GARBLED_MIN_CHARS = 10
GARBLED_SHARE = 0.05
#: Glyph-like paths a page needs beside its text lines (a 2-digit number drawn as paths is 2).
VECTOR_MIN_GLYPHS = 2
#: A glyph path's height, in points, and its largest width as a share of its height (one path can draw two digits).
GLYPH_MIN_H, GLYPH_MAX_H, GLYPH_MAX_ASPECT = 4.0, 40.0, 3.0
#: A glyph path lies within this many of the text line's heights left or right of it.
GLYPH_NEAR_LINES = 4.0
#: Pages with more drawings than this are charts or maps, not text with drawn numbers.
VECTOR_MAX_DRAWINGS = 3000
#: Share of the page in raster images with no text over them that is flagged.
RASTER_MIN_SHARE = 0.15
#: Words the page's text layer needs besides: a scan with a footer line is ``image_only``, not a gap.
RASTER_MIN_WORDS = 30


_UNMAPPABLE = re.compile("[\ue000-\uf8ff\ufffd\U000f0000-\U0010ffff]")
#: An unmappable character standing alone as a word (whitespace or the text's end on both sides).
_LONE_UNMAPPABLE = re.compile("(?<!\\S)[\ue000-\uf8ff\ufffd\U000f0000-\U0010ffff](?!\\S)")


def garbled_count(texts: list[str]) -> tuple[int, int]:
    """(unmappable characters not standing alone, all non-space characters) of the texts."""
    joined = " ".join(str(t) for t in texts)
    total = len(joined) - joined.count(" ")
    if not _UNMAPPABLE.search(joined):  # the usual page: one regex scan
        return 0, total
    # those in words of 2+ characters: all of them but the lone ones (re's \s is str.split's whitespace)
    bad = len(_UNMAPPABLE.findall(joined)) - len(_LONE_UNMAPPABLE.findall(joined))
    return bad, total


def _rect(d) -> tuple[float, float, float, float] | None:
    r = d.get("rect")
    if r is None:
        return None
    return (float(r[0]), float(r[1]), float(r[2]), float(r[3]))


def _glyph_like(d) -> tuple | None:
    """The path's box when it is a small filled outline with curves, else None."""
    if "f" not in str(d.get("type") or ""):
        return None
    r = _rect(d)
    if r is None:
        return None
    h, w = r[3] - r[1], r[2] - r[0]
    if not GLYPH_MIN_H <= h <= GLYPH_MAX_H or w > GLYPH_MAX_ASPECT * h or w <= 0.5:
        return None
    return r if any(it and it[0] == "c" for it in d.get("items") or ()) else None


def vector_glyphs(rows: list[dict], drawings: list) -> int:
    """Glyph-like paths on the baseline of a text line, beside it and under no text."""
    if not rows or not drawings or len(drawings) > VECTOR_MAX_DRAWINGS:
        return 0
    boxes = [(r["x0"], r["y0"], r["x1"], r["y1"]) for r in rows]
    n = 0
    for d in drawings:
        g = _glyph_like(d)
        if g is None:
            continue
        cy, h = (g[1] + g[3]) / 2, g[3] - g[1]
        # any text over the path (a highlight or a box drawn behind words): it is no missing glyph
        covered = any(b[0] < g[2] and g[0] < b[2] and b[1] < g[3] and g[1] < b[3] for b in boxes)
        if covered:
            continue
        beside = any(
            b[1] <= cy <= b[3]
            and 0.5 * (b[3] - b[1]) <= h <= 2.0 * (b[3] - b[1])
            and min(abs(g[2] - b[0]), abs(b[2] - g[0])) <= GLYPH_NEAR_LINES * (b[3] - b[1])
            for b in boxes
        )
        n += beside
    return n


def raster_share(rows: list[dict], image_boxes: list[tuple], area: float) -> float:
    """Share of the page in raster images that no text line lies over."""
    if not image_boxes or area <= 0:
        return 0.0
    centres = [((r["x0"] + r["x1"]) / 2, (r["y0"] + r["y1"]) / 2) for r in rows]
    bare = 0.0
    for x0, y0, x1, y1 in image_boxes:
        if not any(x0 <= cx <= x1 and y0 <= cy <= y1 for cx, cy in centres):
            bare += (x1 - x0) * (y1 - y0)
    return min(bare / area, 1.0)


def page_gaps(rows: list[dict], prow: dict, drawings: list | None = None) -> str | None:
    """The page's text-layer gaps (module doc) as one "; "-joined string, None when there are none.

    Never raises: a check that fails on an odd page is logged and the page keeps its parse.
    """
    try:
        return _gaps(rows, prow, drawings)
    except Exception as exc:  # noqa: BLE001 - a flag must not fail the page
        log.warning("page %s: text-layer gap check failed (%s)", prow.get("page"), exc)
        return None


def _gaps(rows: list[dict], prow: dict, drawings: list | None) -> str | None:
    if not rows:
        return None
    out = []
    # (the page stage's signals: an ASCII page, or one whose texts it scanned and found none in, has
    # no unmappable character; its non-space characters are its n_chars)
    if prow.get("_ascii") or prow.get("_unmappable") == 0:
        bad, total = 0, prow["n_chars"]
    else:
        bad, total = garbled_count([r.get("text", "") for r in rows])
    if bad >= GARBLED_MIN_CHARS and bad >= GARBLED_SHARE * max(total, 1):
        out.append(f"garbled_text ({bad} unmappable characters)")
    n = vector_glyphs(rows, drawings or [])
    if n >= VECTOR_MIN_GLYPHS:
        out.append(f"vector_glyphs ({n} glyph-like paths beside text)")
    area = float(prow.get("width") or 0) * float(prow.get("height") or 0)
    share = raster_share(rows, prow.get("_image_boxes") or [], area)
    if share >= RASTER_MIN_SHARE and total >= RASTER_MIN_WORDS * 5:  # ~5 characters a word
        out.append(f"raster_region ({round(100 * share)}% of the page)")
    return "; ".join(out) or None
