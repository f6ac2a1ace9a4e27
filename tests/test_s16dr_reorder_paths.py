"""Session 16 (dr): the text-table rewrite's frame building and the phrase rows, against the code they replaced.

- ``tables_text._taken`` (one frame built column by column) equals ``pl.take`` + ``_set_phrases`` + ``line``
  written as 1..n, the session 15 steps, on random page frames with numpy and Arrow-backed columns;
- ``tables_text._assemble`` equals its session 15 form (every own column through Python objects);
- ``tables_cells._rows`` equals the generator-sum form on random phrases with ties and NaN;
- ``style_lookup`` gives the pandas path's (size, bold) on numpy columns.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from docintel.parsing import tables_cells, tables_text, text_table_read


def _page(rng, n: int, start: int, text_dtype) -> pd.DataFrame:
    texts = [f"line {start + k}" if rng.random() > 0.1 else None for k in range(n)]
    return pd.DataFrame(
        {
            "text": pd.array(texts, dtype=text_dtype),
            "x0": rng.uniform(0, 300, n),
            "y0": np.sort(rng.uniform(0, 700, n)),
            "x1": rng.uniform(300, 600, n),
            "y1": rng.uniform(0, 700, n),
            "size": rng.choice([9.0, 10.0, np.nan], n),
            "bold": rng.choice([True, False], n),
            "role": pd.array(rng.choice(["body", "table", "header"], n).tolist(), dtype="str"),
            "column": rng.choice([0, 1], n),
            "line": np.arange(1, n + 1),
        }
    ).set_axis(np.arange(start, start + n), axis=0)


def _rewrite_inputs(rng, pl):
    n = len(pl)
    inside = rng.random(n) < 0.4
    inside[int(rng.integers(0, n))] = True
    pos = np.flatnonzero(inside)
    src = [int(rng.choice(pos)) for _ in range(int(rng.integers(1, 12)))]
    phrases = [
        SimpleNamespace(text=f"p{k}", x0=float(k), y0=float(k) + 0.5, x1=float(k) + 9, y1=float(k) + 1)
        for k in range(len(src))
    ]
    line = pl["line"].to_numpy()
    first = int(line[pos].min())
    before = np.flatnonzero(~inside & (line < first))
    after = np.flatnonzero(~inside & (line > first))
    return np.concatenate([before, np.asarray(src, dtype=np.intp), after]), before, after, phrases


@pytest.mark.parametrize("text_dtype", ["str", object])
@pytest.mark.parametrize("seed", range(15))
def test_taken_equals_take_then_writes(seed, text_dtype):
    rng = np.random.default_rng(seed)
    pl = _page(rng, int(rng.integers(4, 30)), int(rng.integers(0, 500)), text_dtype)
    at, before, after, phrases = _rewrite_inputs(rng, pl)
    want = pl.take(at)
    tables_text._set_phrases(want, pl, before, after, phrases)
    want["line"] = range(1, len(want) + 1)
    got = tables_text._taken(pl, at, before, after, phrases)
    pd.testing.assert_frame_equal(got, want, check_exact=True)
    assert list(got.dtypes) == list(want.dtypes)


def _old_assemble(line_df, positions, new_pages):
    """tables_text._assemble as of session 15."""
    keep = np.ones(len(line_df), dtype=bool)
    for p in new_pages:
        keep[positions[p]] = False
    rest = np.flatnonzero(keep)
    src = np.concatenate([rest, *(new.index.to_numpy(dtype=np.intp) for new in new_pages.values())])
    own = ("text", "x0", "y0", "x1", "y1", "line")
    vals = {c: [line_df[c].to_numpy()[rest], *(new[c].to_numpy() for new in new_pages.values())] for c in own}
    vals = {c: np.concatenate(v) for c, v in vals.items()}
    key = pd.DataFrame({"page": line_df["page"].to_numpy()[src], "line": vals["line"]})
    order = key.sort_values(["page", "line"], kind="stable").index.to_numpy()
    out = line_df.take(src[order]).reset_index(drop=True)
    for c in own:
        out[c] = pd.array(vals[c][order], dtype=line_df[c].dtype)
    return out


@pytest.mark.parametrize("text_dtype", ["str", object])
@pytest.mark.parametrize("seed", range(15))
def test_assemble_equals_the_session15_form(seed, text_dtype):
    rng = np.random.default_rng(100 + seed)
    pages, start = [], 0
    for p in range(1, int(rng.integers(2, 7)) + 1):
        pg = _page(rng, int(rng.integers(3, 20)), start, text_dtype).assign(page=p)
        start += len(pg)
        pages.append(pg)
    line_df = pd.concat(pages).reset_index(drop=True)
    positions = line_df.groupby("page").indices
    work = line_df[list(tables_text._WORK)].set_axis(np.arange(len(line_df)), axis=0)
    new_pages = {}
    for p in sorted(positions):
        if rng.random() < 0.5:
            continue
        at = positions[p]
        pl = work.iloc[int(at[0]) : int(at[-1]) + 1]
        take, before, after, phrases = _rewrite_inputs(rng, pl)
        new_pages[int(p)] = tables_text._taken(pl, take, before, after, phrases)
    if not new_pages:
        return
    want = _old_assemble(line_df, positions, new_pages)
    got = tables_text._assemble(line_df, positions, new_pages)
    pd.testing.assert_frame_equal(got, want, check_exact=True)


def _old_rows(phrases):
    rows = []
    for p in sorted(phrases, key=lambda p: p.yc):
        tol = 0.35 * (p.y1 - p.y0)
        if rows and abs(sum(q.yc for q in rows[-1]) / len(rows[-1]) - p.yc) <= tol:
            rows[-1].append(p)
        else:
            rows.append([p])
    return rows


def test_rows_equal_the_generator_sum():
    rng = np.random.default_rng(7)
    for _ in range(3000):
        ps = []
        for _ in range(int(rng.integers(0, 40))):
            y0 = float(rng.choice([rng.uniform(0, 100), float(rng.integers(0, 20)), np.nan]))
            h = float(rng.choice([5.0, 8.3, 10.0, np.nan]))
            ps.append(tables_cells.Phrase(0.0, y0, 1.0, y0 + h, "t"))
        want = [[id(p) for p in r] for r in _old_rows(ps)]
        assert [[id(p) for p in r] for r in tables_cells._rows(ps)] == want


def test_style_lookup_numpy_columns_equal_the_pandas_path():
    rng = np.random.default_rng(3)
    n = 200
    pl = pd.DataFrame(
        {
            "x0": rng.uniform(0, 500, n),
            "y0": rng.uniform(0, 700, n),
            "size": rng.uniform(5, 20, n).round(2) + rng.choice([0.05, 0.15, 0.0, np.nan], n),
            "bold": rng.choice([True, False], n),
        }
    )
    pl["x1"] = pl["x0"] + 40
    pl["y1"] = pl["y0"] + 10
    fast = text_table_read.style_lookup(pl)
    slow = text_table_read.style_lookup(pl.assign(bold=pl["bold"].astype(object)))  # the pandas path
    sizes = pl["size"].astype(float).round(1).tolist()
    for k in range(n):
        p = SimpleNamespace(x0=pl["x0"][k] + 1, x1=pl["x0"][k] + 2, yc=pl["y0"][k] + 5)
        got = fast(p)
        assert got == slow(p) or (got[0] != got[0] and slow(p)[0] != slow(p)[0])
        assert got is None or isinstance(got[0], float) and isinstance(got[1], bool)
    assert any(s != s for s in sizes)  # NaN sizes are exercised


def test_vectorless_pages_serve_their_empty_drawings_from_the_memo(monkeypatch):
    """A page whose text page records no path gets ``get_cdrawings()``'s [] in its page memo: the
    figure reader does not interpret it again; a drawn page is still read from pymupdf."""
    import pymupdf

    from docintel.parsing import pymupdf_backend, tables_free

    src = pymupdf.open()
    src.new_page(width=612, height=792).insert_text((72, 72), "Figure 1: prose only, nothing drawn.")
    drawn = src.new_page(width=612, height=792)
    drawn.insert_text((72, 72), "Figure 2: a box is drawn under this caption.")
    drawn.draw_rect((72, 100, 300, 200))
    pdf = pymupdf.open("pdf", src.tobytes())
    asked: list[int] = []
    real = pymupdf.Page.get_cdrawings

    def counted(self, *a, **k):
        asked.append(self.number)
        return real(self, *a, **k)

    monkeypatch.setattr(pymupdf.Page, "get_cdrawings", counted)
    pymupdf_backend.parse_with_pymupdf(pdf, "gen", layout_mode="never", ocr_mode="never")
    assert 0 not in asked and 1 in asked
    assert tables_free.page_memo(pdf[0]).get("cd") == [] == real(pdf[0])
    assert tables_free.CachedPage(pdf[1]).get_cdrawings() == real(pdf[1]) != []


@pytest.mark.parametrize("dtype", ["str", object])
def test_body_size_lengths_equal_len_of_each_text(dtype):
    from docintel.parsing import linecols, objects

    rng = np.random.default_rng(11)
    pool = ["", "a", "Table 1", "é", "\u00e9t\u00e9", "\U0001f600 x", "ﬁ", "  spaced  ", None, np.nan]
    for _ in range(50):
        n = int(rng.integers(1, 80))
        texts = [pool[int(k)] for k in rng.integers(0, len(pool), n)]
        col = pd.Series(pd.array(texts, dtype=dtype))
        at = np.flatnonzero(rng.random(n) < 0.6)
        listed = linecols.tolist(col)
        want = np.array([len(t) if isinstance(t, str) else 0 for t in map(listed.__getitem__, at.tolist())])
        got = objects._lengths(col, listed, at)
        assert got.tolist() == want.tolist()
