"""Session 13 (ps): whole-document numpy versions of per-line / per-page loops give the loops' answers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from docintel.parsing import (
    captions,
    crossrefs,
    figures,
    frame_rows,
    heading_spans,
    objects,
    provision_scan,
    provision_starts,
)
from tests.test_structure_fast_paths_2 import _page

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
    got = provision_starts._para_starts(cols)
    assert got == provision_starts._para_starts_loop(cols)
    assert any(got) and not all(got)  # both answers occur


def test_shorts_equal_short():
    rng = np.random.default_rng(5)
    cols = _columns(rng, 300)
    arrs = [np.asarray(cols[k], dtype=float) for k in ("x0", "x1", "size")]
    got = provision_starts._shorts(np.asarray(cols["page"]), *arrs)
    want = [provision_starts._short(cols, j) for j in range(300)]
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


def _figure_page(rng: np.random.Generator, n: int) -> pd.DataFrame:
    """Lines of two pages around a graphic at (100, 100, 400, 400): labels, prose, headings, captions."""
    x0 = rng.choice([60.0, 95.0, 120.0, 150.0, 300.0, 402.0], n) + np.round(rng.normal(0, 0.5, n), 1)
    y0 = np.round(rng.uniform(80, 450, n), 1)
    h = rng.choice([6.0, 10.0, 12.0], n)
    words = rng.choice([1, 2, 3, 5, 9, 12], n)
    return pd.DataFrame(
        {
            "page": rng.choice([3, 3, 3, 4], n),
            "line": np.arange(n),
            "text": [None if k == 0 else " ".join(["w"] * int(k)) for k in words * (rng.random(n) > 0.05)],
            "x0": x0,
            "y0": y0,
            "x1": x0 + rng.choice([10.0, 40.0, 120.0, 250.0], n),
            "y1": y0 + h,
            "role": pd.array(
                rng.choice(["body", "body", "heading", "caption", "figure_text", "list_item", "formula"], n),
                dtype="str",
            ),
            "object_key": [None] * n,
        },
        index=pd.RangeIndex(n),
    )


def _marked_both_ways(seed: int) -> int:
    rng = np.random.default_rng(seed)
    df = _figure_page(rng, 60)
    if seed % 5 == 4:
        df.loc[df.index[df["role"] == "body"][:3], "role"] = np.nan
    rows = np.flatnonzero(df["page"] == 3)
    art = (100.0, 100.0, 400.0, float(rng.choice([200.0, 400.0])))
    exclude = df.index[rows[:2]]
    vouched = {(3, int(df.at[i, "line"])) for i in df.index[rows[2:6]]}
    got, want = df.copy(), df.copy()
    figures._mark_on_page(got, rows, 3, art, "figure:1", exclude, vouched)
    figures._mark_on_frame(want, rows, 3, art, "figure:1", exclude, vouched)
    pd.testing.assert_frame_equal(got, want)
    return int((got["object_key"] == "figure:1").sum())


@pytest.mark.parametrize("seed", range(16))
def test_figure_marks_on_numpy_columns_equal_the_pandas_masks(seed):
    _marked_both_ways(seed)


def test_figure_marks_mark_something():
    """The random pages above reach both outcomes (labels marked, frame around text left alone)."""
    counts = [_marked_both_ways(s) for s in range(16)]
    assert any(counts) and not all(counts), counts


@pytest.mark.parametrize(
    ("n_words", "marked"), [((9, 9, 1), 0), ((9, 1, 1), 2), ((9, 9, 1, 1), 0), ((1, 1, 2), 3)]
)
def test_figure_marks_leave_a_graphic_of_mostly_prose_alone(n_words, marked):
    n = len(n_words)
    df = pd.DataFrame(
        {
            "page": [1] * n,
            "line": range(n),
            "text": [" ".join(["w"] * k) for k in n_words],
            "x0": [110.0 + 60 * k for k in range(n)],
            "y0": [120.0 + 40 * k for k in range(n)],
            "x1": [150.0 + 60 * k for k in range(n)],
            "y1": [130.0 + 40 * k for k in range(n)],
            "role": pd.array(["body"] * n, dtype="str"),
            "object_key": [None] * n,
        }
    )
    got, want = df.copy(), df.copy()
    figures._mark_on_page(got, np.arange(n), 1, (100.0, 100.0, 400.0, 400.0), "figure:2", (), set())
    figures._mark_on_frame(want, np.arange(n), 1, (100.0, 100.0, 400.0, 400.0), "figure:2", (), set())
    pd.testing.assert_frame_equal(got, want)
    assert int((got["role"] == "figure_text").sum()) == marked


def _old_caption_object(line_df, pl, r, key):
    """caption_object's marks and extent as session 12 computed them (pandas min / max, .loc writes)."""
    block = captions._caption_block(pl, r)
    cap = (block.x0.min(), block.y0.min(), block.x1.max(), block.y1.max())
    line_df.loc[block.index, "role"] = "caption"
    line_df.loc[block.index, "object_key"] = key
    return block, cap, int(block.line.min()), int(block.line.max())


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("unique", [True, False])
def test_caption_object_equals_the_pandas_reading(seed, unique):
    pl = _page(seed, n=40)
    pl["object_key"] = pd.Series([None] * len(pl), index=pl.index, dtype=object)
    line_df = pl.copy() if unique else pd.concat([pl, pl.iloc[:3]])  # a repeated label: the .loc route
    seen = 0
    for r in frame_rows.rows(pl):
        m = captions.CAPTION.match(str(r.text).strip())
        if not m:
            continue
        got_df, want_df = line_df.copy(), line_df.copy()
        block, cap, row = captions.caption_object(got_df, pl, r, m, "table", "table:1", 1)
        want_block, want_cap, lo, hi = _old_caption_object(want_df, pl, r, "table:1")
        pd.testing.assert_frame_equal(got_df, want_df)
        pd.testing.assert_frame_equal(block, want_block)
        assert cap == want_cap and all(type(a) is type(b) for a, b in zip(cap, want_cap, strict=True))
        assert (row["line_start"], row["line_end"]) == (lo, hi)
        seen += 1
    assert seen


def _old_line_at(box: np.ndarray, rect) -> int | None:
    ox = (np.minimum(box[:, 2], rect[2]) - np.maximum(box[:, 0], rect[0])).clip(min=0)
    oy = (np.minimum(box[:, 3], rect[3]) - np.maximum(box[:, 1], rect[1])).clip(min=0)
    area = ox * oy
    return None if area.max() <= 0 else int(area.argmax())


def _old_target_line(lines, y: float) -> int:
    below = np.flatnonzero(lines.box[:, 3] >= y - 2)
    if len(below):
        return int(lines.line[below[crossrefs._argsort_like_pandas(lines.y0[below])[0]]])
    return int(lines.line[crossrefs._argsort_like_pandas(lines.y0)[-1]])


@pytest.mark.parametrize("seed", range(6))
def test_link_lines_equal_the_per_link_reading(seed):
    rng = np.random.default_rng(seed)
    n = 40
    y0 = rng.choice(np.arange(50.0, 700.0, 12.0), n)  # many lines share a top edge (columns)
    if seed % 3 == 2:
        y0[5] = np.nan
    x0 = rng.choice([50.0, 300.0], n)
    frame = pd.DataFrame(
        {"x0": x0, "y0": y0, "x1": x0 + 200, "y1": y0 + 10, "line": np.arange(1, n + 1), "text": ["t"] * n}
    )
    lines = crossrefs._PageLines(crossrefs._FrameLines(frame), np.arange(n))
    rects = [tuple(v) for v in rng.uniform(0, 700, (30, 4)).cumsum(axis=1) / 2]
    rects += [(60.0, y, 90.0, y + 8) for y in y0[:5]]
    assert crossrefs._lines_at(lines, rects) == [_old_line_at(lines.box, r) for r in rects]
    for y in [*np.arange(0.0, 720.0, 7.0), *y0[:8]]:
        if not np.isnan(y):
            assert crossrefs._target_line(lines, float(y)) == _old_target_line(lines, float(y))


@pytest.mark.parametrize(
    "pos", [[3, 4, 5, 6], [3, 5, 6], [6, 5, 4], [0], [], [9, 10, 11], [2, 3, 3, 4], [7, 8, 9, 20]]
)
def test_objects_take_equals_iloc_and_loc(pos):
    df = _page(1, n=12)
    df["object_key"] = None
    pos = np.array(pos, dtype=np.intp)
    pos = pos[pos < len(df)]
    pd.testing.assert_frame_equal(objects._take(df, pos), df.iloc[pos])
    labels = df.index[pos]
    pd.testing.assert_frame_equal(objects._rows_of(df, labels), df.loc[labels])
    twice = pd.concat([df, df.iloc[:2]])  # a repeated label: loc's answer
    pd.testing.assert_frame_equal(objects._rows_of(twice, labels), twice.loc[labels])


def test_caption_first_characters_cover_every_caption_start():
    """A line CAPTION matches starts with a character of CAPTION_FIRST (the objects stage's pre-test)."""
    rests = ["able 1", "ABLE 2: x", "ab. 3", "igure 4.", "IGURE 5", "ig. 6", "IG 7", "xhibit A", "XHIBIT 8"]
    rests += [
        "hart 9",
        "late 10",
        "o. 12. Retail Trade",
        "Table 1]",
        " Figure 2> x",
        "\ub9bc 3",
        "\ud45c 4",
        " 5",
    ]
    rests += ["1", "\u8868 6", "Table 7\u3011"]
    starts = {chr(c)[:1] for c in range(0x20, 0x10000) if not 0xD800 <= c < 0xE000}
    matched = {c for c in starts for r in rests if captions.CAPTION.match(c + r)}
    assert matched <= captions.CAPTION_FIRST
    assert {"T", "F", "[", "\u8868", "N"} <= matched  # the rests reach the keywords and the brackets


def test_provision_pre_test_passes_every_line_the_scan_reads():
    """_may_open(raw) is False only when the normalised text is no bare label, no quoted definition
    and no _MAY_PROVISION match (the scan's three tests)."""
    rng = np.random.default_rng(3)
    parts = [
        "A.",
        "H.",
        "(a)",
        "ii.",
        "iv)",
        "1.2.3",
        "12.",
        "Section",
        "SEC.",
        "Art.",
        "Line",
        "\u00a7",
        "[4]",
    ]
    parts += ["the", "Term", "\u201cAgreement\u201d", "'x'", "abc", "ABCD.", "x)", "", "(iii)", "Rules"]
    seps = [" ", "  ", "\t", "\u00a0", "\u2003", "\n", ""]
    checked = 0
    for _ in range(20000):
        k = int(rng.integers(1, 4))
        raw = "".join(str(rng.choice(parts)) + str(rng.choice(seps)) for _ in range(k)).strip()
        text = " ".join(raw.split())
        reads = bool(
            provision_scan._BARE.match(text)
            or text[:1] in "\"\u201c\u2018'"
            or provision_scan._MAY_PROVISION.match(text)
        )
        if reads:
            assert provision_scan._may_open(raw), raw
            checked += 1
    assert checked > 1000
