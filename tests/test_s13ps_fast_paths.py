"""Session 13 (ps): whole-document numpy versions of per-line / per-page loops give the loops' answers."""

from __future__ import annotations

import numpy as np
import pytest

from docintel.parsing import heading_spans, provision_scan

_TEXTS = [
    "The term ends.",
    "as set out in Section",
    "5.3 of this Agreement",
    "the Licensee; and",
    "costs, or",
    "shall pay the fee",
    "(a) the first item",
    "Heading",
    "under",
    "Rules",
    "a short one",
    "continues here without a stop and goes on to the margin",
    "",
]


def _columns(rng: np.random.Generator, n: int, nan: bool = False) -> dict[str, list]:
    pages = np.sort(rng.integers(1, 4, n))
    y0 = np.round(rng.uniform(0, 700, n), 1)
    y0.sort()  # mostly top to bottom, with jumps back (columns) between pages
    y0[rng.random(n) < 0.1] -= 300
    size = rng.choice([0.0, 3.0, 9.0, 10.0, 12.0], n)
    x0 = rng.choice([50.0, 52.0, 60.0, 300.0, 310.0], n) + np.round(rng.normal(0, 1, n), 1)
    x1 = x0 + rng.choice([20.0, 150.0, 200.0, 230.0], n)
    y1 = y0 + np.maximum(size, 4.0) + rng.choice([0.0, -6.0, 2.0], n)
    cols = {
        "page": pages.tolist(),
        "text": [_TEXTS[k] for k in rng.integers(0, len(_TEXTS), n)],
        "role": rng.choice(["body", "body", "list_item", "heading", "title", "body"], n).tolist(),
        "x0": x0.tolist(),
        "y0": y0.tolist(),
        "x1": x1.tolist(),
        "y1": y1.tolist(),
        "size": size.tolist(),
    }
    if nan:
        cols["size"][n // 2] = float("nan")
        cols["x1"][n // 3] = float("nan")
    return cols


@pytest.mark.parametrize("seed", range(12))
def test_para_starts_equal_the_line_by_line_tests(seed):
    rng = np.random.default_rng(seed)
    cols = _columns(rng, 400, nan=seed % 4 == 3)
    got = provision_scan._para_starts(cols)
    assert got == provision_scan._para_starts_loop(cols)
    assert any(got) and not all(got)  # both answers occur


def test_shorts_equal_short():
    rng = np.random.default_rng(5)
    cols = _columns(rng, 300)
    arrs = [np.asarray(cols[k], dtype=float) for k in ("x0", "x1", "size")]
    got = provision_scan._shorts(np.asarray(cols["page"]), *arrs)
    want = [provision_scan._short(cols, j) for j in range(300)]
    assert got == want and any(want)


@pytest.mark.parametrize("seed", range(8))
def test_inside_pairs_of_concatenated_pages_equal_each_page_alone(seed):
    rng = np.random.default_rng(seed)
    arrs, boxes = [], []
    for _ in range(rng.integers(2, 6)):
        n_sp, n_ln = int(rng.integers(1, 40)), int(rng.integers(1, 15))
        arr = np.column_stack([rng.uniform(0, 600, n_sp), rng.uniform(0, 800, n_sp), rng.random((n_sp, 4))])
        arr[rng.random(n_sp) < 0.2, 1] = arr[0, 1]  # tied heights keep their order
        x0, y0 = rng.uniform(0, 500, n_ln), rng.uniform(0, 780, n_ln)
        box = np.column_stack([x0, y0, x0 + rng.uniform(5, 300, n_ln), y0 + rng.uniform(2, 30, n_ln)])
        for i in range(min(n_sp, n_ln) // 2 + 1):  # some spans inside some lines
            arr[-1 - i, :2] = (box[i, :2] + box[i, 2:]) / 2
        if seed % 3 == 0:
            arr[0, 1] = np.nan
        boxes.append(box)
        arrs.append(arr)
    span_at = np.cumsum([0] + [len(a) for a in arrs])
    line_at = np.cumsum([0] + [len(b) for b in boxes])
    line, span, starts = heading_spans._inside_pairs(
        np.concatenate(arrs), np.concatenate(boxes), span_at, line_at
    )
    want_line, want_span = [], []
    for k, (arr, box) in enumerate(zip(arrs, boxes, strict=True)):
        pl, ps, _ = heading_spans._inside_pairs(arr, box)
        want_line += (pl + line_at[k]).tolist()
        want_span += (ps + span_at[k]).tolist()
    assert line.tolist() == want_line and span.tolist() == want_span and len(want_line) > 0
    assert starts.tolist() == np.searchsorted(line, np.arange(line_at[-1] + 1)).tolist()
