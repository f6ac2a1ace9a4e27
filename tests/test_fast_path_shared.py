"""The fast path reads each page once: the shared text page must give what the separate reads gave."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pymupdf

from docintel.parsing import crossrefs, furniture, signals
from docintel.parsing.lines import _fast_flags, extract_page_lines


def _doc(with_image: bool) -> pymupdf.Document:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), "1 Introduction", fontsize=14)
    page.insert_text((72, 130), "See Section 2 for the scope of this text.", fontsize=10)
    if with_image:
        pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 8, 8), False)
        pix.clear_with(200)
        page.insert_image(pymupdf.Rect(300, 300, 400, 400), pixmap=pix)
    page.insert_link({"kind": pymupdf.LINK_GOTO, "from": pymupdf.Rect(90, 120, 136, 133), "page": 0})
    return doc


def test_text_page_without_images_serves_the_fast_dict():
    doc = _doc(with_image=False)
    page = doc[0]
    tp, info, d = signals.text_and_images(page)
    assert info == [] and page.get_image_info() == []
    # get_text's dict but its width / height (the cropbox's, read only for a sideways page)
    want = page.get_text("dict", flags=_fast_flags())
    assert want == page.get_text("dict", textpage=tp)
    assert d == {k: v for k, v in want.items() if k not in ("width", "height")}
    assert page.get_text("words", textpage=tp) == page.get_text("words")


def test_page_with_an_image_keeps_get_image_info():
    doc = _doc(with_image=True)
    page = doc[0]
    tp, info, d = signals.text_and_images(page)
    assert len(info) == 1 and info == page.get_image_info() and d is None
    assert page.get_text("dict", textpage=tp) == page.get_text("dict", flags=_fast_flags())
    sig = signals.page_signals(page, 1, image_info=info)
    assert sig == signals.page_signals(page, 1)
    assert sig["n_images"] == 1 and sig["n_links"] == 1


def test_lines_from_the_shared_text_page_equal_the_own_read():
    page = _doc(with_image=False)[0]
    tp, _, _ = signals.text_and_images(page)
    shared, s1 = extract_page_lines(page, 1, textpage=tp)
    own, s2 = extract_page_lines(page, 1)
    assert shared == own and s1 == s2
    assert [r["text"] for r in own][:1] == ["1 Introduction"]


def test_link_anchors_from_the_page_stage_match_the_crossref_read():
    page = _doc(with_image=False)[0]
    tp, _, _ = signals.text_and_images(page)
    got = crossrefs.page_links(page, page.get_links(), textpage=tp)
    assert [a for _lk, a in got] == ["Section 2"]
    assert [a for _lk, a in crossrefs.page_links(page)] == ["Section 2"]


def test_sort_helpers_order_exactly_as_pandas():
    rng = np.random.default_rng(3)
    for _ in range(50):
        v = rng.integers(0, 5, size=rng.integers(1, 40)).astype(float)
        v[rng.random(len(v)) < 0.1] = np.nan
        want_desc = pd.Series(v).sort_values(ascending=False).index.to_numpy()
        assert list(furniture._argsort_desc_like_pandas(v)) == list(want_desc)
        want_asc = pd.DataFrame({"x0": v}).sort_values("x0").index.to_numpy()
        assert list(furniture._argsort_like_pandas(v)) == list(want_asc)


def test_content_chars_per_page_equal_the_groupby_sum():
    df = pd.DataFrame({"page": [3, 1, 3, 2, 1], "text": ["a b", "  c ", "dd", "", "e f g"]})
    want = df.groupby("page")["text"].apply(lambda s: sum(len(t.replace(" ", "")) for t in s))
    got = furniture._chars_per_page(df)
    assert dict(got) == dict(want) == {1: 4, 2: 0, 3: 4}
    assert got.dtype == want.dtype


def _gutter_runs_by_loop(low, cover, lo, min_gutter):
    """The per-point scan find_gutters used before its runs came from numpy (the reference)."""
    runs, i, size = [], 0, len(low)
    while i < size:
        if low[i]:
            j = i
            while j < size and low[j]:
                j += 1
            if j - i >= min_gutter:
                seg = cover[i:j]
                core = np.flatnonzero(seg == seg.min())
                runs.append((lo + i + core[0], lo + i + core[-1] + 1))
            i = j
        else:
            i += 1
    return runs


def test_two_column_gutter_found_as_the_point_scan_finds_it():
    from docintel.parsing import columns

    boxes = [(72, 100 + 14 * k, 290, 110 + 14 * k) for k in range(20)]
    boxes += [(320, 100 + 14 * k, 540, 110 + 14 * k) for k in range(20)]
    gutters = columns.find_gutters(boxes)
    assert len(gutters) == 1 and 290 <= gutters[0][0] < gutters[0][1] <= 320
    rng = np.random.default_rng(5)
    for _ in range(200):
        low = rng.random(rng.integers(1, 80)) < 0.6
        cover = rng.integers(0, 4, size=len(low)).astype(float)
        assert columns._low_runs(low, cover, 10.0) == _gutter_runs_by_loop(
            low, cover, 10.0, columns.MIN_GUTTER
        )
