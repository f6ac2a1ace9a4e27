"""The target regions read from the per-document evidence index (binary-search slices, an
object's cells by key, rows built from plain lists) equal the pandas filters they replace."""

from __future__ import annotations

import pandas as pd
import pytest

from docintel.api import parse
from docintel.questions import parse_question
from docintel.retrieval import evidence_slices, targets
from docintel.schema.kinds import NON_EVIDENCE_ROLES

from .conftest import PDFS, REPO

#: The bundled PDFs, and a development paper whose tables have cells (when ../shared is there).
SOURCES = [*sorted(p.name for p in PDFS.glob("*.pdf")), "eval/pdfs/attention_1706.03762v7.pdf"]


@pytest.fixture(scope="module", params=SOURCES)
def tables(request, tmp_path_factory):
    path = PDFS / request.param if "/" not in request.param else REPO.parent / "shared" / request.param
    if not path.exists():
        pytest.skip(f"{path} not here")
    return parse(path, out_dir=tmp_path_factory.mktemp("a"), layout="never", ocr="never")


def _masked(tables) -> pd.DataFrame:
    ldf = tables.line_df
    return ldf[~ldf["role"].isin(NON_EVIDENCE_ROLES)].sort_values(["page", "line"])


def test_slices_equal_the_masks(tables):
    lines = _masked(tables)
    pd.testing.assert_frame_equal(targets.evidence_lines(tables), lines)
    key = lines["page"] * 10**6 + lines["line"]
    pages = sorted(set(lines["page"].tolist()))
    for page in [*pages, max(pages) + 1]:
        pd.testing.assert_frame_equal(targets.evidence_page(tables, page), lines[lines["page"] == page])
        for a, b in ((1, 5), (3, 10**6), (7, 2), (0, 0)):
            want = lines[(key >= page * 10**6 + a) & (key <= page * 10**6 + b)]
            pd.testing.assert_frame_equal(targets.evidence_between(tables, (page, a), (page, b)), want)
        want = lines[key > page * 10**6 + 4].head(6)
        pd.testing.assert_frame_equal(targets.evidence_after(tables, page, 4, 6), want)
    cdf = tables.cell_df
    for k in [*set(cdf["object_key"].tolist()), "no-such-object"]:
        got, want = targets.object_cells(tables, k), cdf[cdf["object_key"] == k]
        assert got.index.tolist() == want.index.tolist()
        if len(want):
            pd.testing.assert_frame_equal(got, want)


@pytest.mark.parametrize("order", ["as parsed", "reversed"])
def test_slices_before_the_whole_frame_equal_the_masks(tables, order):
    """Slices taken from line_df itself (the whole evidence frame not built yet), and a line_df
    out of reading order (the sorted frame is built at once), give the masks' rows."""
    ldf = tables.line_df if order == "as parsed" else tables.line_df.iloc[::-1]
    fresh = type(tables)(**{**tables.__dict__, "line_df": ldf.copy()})
    lines = _masked(fresh)
    key = lines["page"] * 10**6 + lines["line"]
    pages = sorted(set(lines["page"].tolist()))
    for page in [*pages, max(pages) + 1]:
        pd.testing.assert_frame_equal(targets.evidence_page(fresh, page), lines[lines["page"] == page])
        want = lines[(key >= page * 10**6 + 3) & (key <= (page + 1) * 10**6 + 2)]
        pd.testing.assert_frame_equal(targets.evidence_between(fresh, (page, 3), (page + 1, 2)), want)
        for n in (0, 6, 10**6):
            want = lines[key > page * 10**6 + 4].head(n)
            pd.testing.assert_frame_equal(targets.evidence_after(fresh, page, 4, n), want)
    for name in ("y0", "line"):
        assert evidence_slices._evidence_column(fresh, name).tolist() == lines[name].to_numpy().tolist()
    assert (evidence_slices._EVIDENCE[id(fresh.line_df)][1] is None) == (order == "as parsed")
    pd.testing.assert_frame_equal(targets.evidence_lines(fresh), lines)


def test_an_index_of_other_frames_is_rebuilt(tables):
    first = targets.evidence_lines(tables)
    other = type(tables)(**{**tables.__dict__, "line_df": tables.line_df.iloc[: len(tables.line_df) // 2]})
    assert len(targets.evidence_lines(other)) < len(first)
    assert targets.evidence_lines(tables) is first


@pytest.mark.parametrize("sub", [None, "row (A)", "bottom line"])
def test_object_passages_equal_the_pandas_rows(tables, sub, monkeypatch):
    q = parse_question("What does the table show about the values?")
    reg = tables.object_registry
    if reg.empty:
        pytest.skip("no registered objects")
    fast = [targets.object_passages(tables, o, q, sub_selector=sub) for _, o in reg.iterrows()]
    monkeypatch.setattr(targets, "_cell_rows", lambda *a: None)  # the pandas group-by path
    slow = [targets.object_passages(tables, o, q, sub_selector=sub) for _, o in reg.iterrows()]
    assert [[p.model_dump() for p in ps] for ps in fast] == [[p.model_dump() for p in ps] for ps in slow]
    assert any(ln.role == "table" for ps in fast for p in ps for ln in p.lines) or tables.cell_df.empty


def test_indexed_line_terms_equal_the_tokenised_text(tables):
    from docintel.api import ensure_index
    from docintel.retrieval import windows

    ensure_index(tables)
    line_terms = targets.indexed_line_terms(tables)
    assert line_terms is not None
    q = parse_question("What does this section say about the security requirements and the values?")
    for _, sec in tables.toc_df.iterrows():
        part = targets.section_lines(tables, sec)
        assert windows._rarity_hits(part, q, line_terms) == windows._rarity_hits(part, q)
    held = [
        line_terms(int(p), int(n))
        for p, n in zip(tables.line_df["page"], tables.line_df["line"], strict=True)
    ]
    assert any(t is not None for t in held)


def test_body_lines_of_a_page_equal_the_mask(tables):
    from docintel.retrieval import bm25

    ldf = tables.line_df
    for page in [*sorted(set(ldf["page"].tolist())), 10**6]:
        want = ldf[ldf["page"] == page]
        want = want[~want["role"].fillna("body").isin(bm25.EXCLUDED_ROLES)].sort_values(
            ["page", "line"], kind="stable"
        )
        pd.testing.assert_frame_equal(bm25.body_lines(tables, page), want)
    shuffled = type(tables)(**{**tables.__dict__, "line_df": ldf.iloc[::-1]})  # not in page order
    page = int(ldf["page"].iloc[0])
    pd.testing.assert_frame_equal(bm25.body_lines(shuffled, page), bm25.body_lines(tables, page))
