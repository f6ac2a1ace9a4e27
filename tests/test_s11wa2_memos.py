"""The warm ask's per-reference lookups, answered from per-document memos, give what the whole-
frame scans gave: the toc rows an id names, the region a labelled line opens, the toc scores of
a question, the toc's parent map."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from docintel.api import parse
from docintel.retrieval import bm25, lookup, narrow, reflines, refnames
from docintel.retrieval.targets import evidence_lines
from docintel.text import terms

from .conftest import PDFS

NAMES = sorted(p.name for p in PDFS.glob("*.pdf"))


@pytest.fixture(scope="module")
def parsed(tmp_path_factory):
    """Each repo PDF parsed once for this module (the tests only read the tables)."""
    out = tmp_path_factory.mktemp("artifacts")
    return {name: parse(PDFS / name, out_dir=out, layout="never") for name in NAMES}


def _old_id_rows(tables, key):
    """find_sections' first two steps as they were: two comparisons over the whole toc, the
    contents entries dropped from the first."""
    toc = tables.toc_df
    ids, nums = refnames._toc_norm(tables, "ids"), refnames._toc_norm(tables, "nums")
    hit = toc[(ids == key) | (nums == key)]
    if len(hit):
        hit = hit[[not refnames.contents_row(tables, r) for r in hit.itertuples(index=False)]]
    if hit.empty and not key.startswith("("):
        hit = toc[(ids == f"({key})") | (nums == f"({key})")]
    return hit


def _old_region(tables, page, line, max_lines):
    lines = evidence_lines(tables)
    after = lines[(lines["page"] == page) & (lines["line"] >= line)].head(max_lines)
    roles = after["role"].tolist()
    stop = next((k for k in range(1, len(roles)) if roles[k] in reflines._STOP_ROLES), len(roles))
    return after.iloc[:stop]


def _old_toc_scores(tables, index, qset):
    out = {}
    for title, title_list, page_start, page_end in lookup.toc_titles(tables, index):
        title_terms = set(title_list)
        if not title_terms or not (title_terms & qset):
            continue
        if len(title_terms) == 1 and all(
            index.df.get(t, 0) > lookup.SUBJECT_SHARE * index.n_pages for t in title_terms
        ):
            continue
        share = math.fsum(index.idf(t) for t in title_terms & qset) / math.fsum(
            index.idf(t) for t in title_terms
        )
        if share < lookup.TOC_MIN_MATCH:
            continue
        note = f"toc: section '{title}' (pages {page_start}-{page_end}) matches the question"
        for p in range(int(page_start), int(page_end) + 1):
            if share**2 > out.get(p, (0.0, ""))[0]:
                out[p] = (share**2, note)
    return out


@pytest.mark.parametrize("name", NAMES)
def test_id_lookup_equals_the_toc_scan(name, parsed):
    tables = parsed[name]
    toc = tables.toc_df
    assert len(toc)
    ids, nums = refnames._toc_norm(tables, "ids"), refnames._toc_norm(tables, "nums")
    keys = sorted(set(ids) | set(nums) | {"", "nan", "zz", "(zz)"})
    keys += [k.strip("()") for k in keys if k.startswith("(")]
    found = 0
    for key in keys:
        want = list(np.flatnonzero(((ids == key) | (nums == key)).to_numpy()))
        assert refnames._id_positions(tables, key) == want, key
        old = _old_id_rows(tables, key)
        if len(old):  # these rows end find_sections: the later steps read titles
            pd.testing.assert_frame_equal(refnames.find_sections(tables, key), old)
            found += 1
    assert found
    flags = [refnames.contents_row(tables, r) for r in toc.itertuples(index=False)]
    assert [refnames._contents_at(tables, i) for i in range(len(toc))] == flags


def test_contents_rows_are_left_out_and_the_paren_form_found(parsed):
    tables = parsed[NAMES[0]]
    toc = tables.toc_df.head(3).copy()
    toc["toc_id"] = ["s-a", "s-b", "s-c"]
    toc["number"] = ["2.1", "2.1", "(q)"]
    toc["title"] = ["Scope ........ 4", "Scope", "Rule"]  # the first is a contents entry
    other = type(tables)(**{**tables.__dict__, "toc_df": toc})
    assert refnames.find_sections(other, "2.1.")["toc_id"].tolist() == ["s-b"]
    assert refnames.find_sections(other, "q")["toc_id"].tolist() == ["s-c"]
    assert refnames.find_sections(other, "q", paren=False).empty


@pytest.mark.parametrize("name", NAMES)
def test_region_from_equals_the_line_scan(name, parsed):
    tables = parsed[name]
    lines = evidence_lines(tables)
    starts = list(zip(lines["page"].astype(int), lines["line"].astype(int), strict=True))[::7]
    starts += [(int(lines["page"].max()) + 1, 0), (1, 10**5)]
    for page, line in starts:
        for n in (1, 12, 40):
            pd.testing.assert_frame_equal(
                reflines.region_from(tables, page, line, n), _old_region(tables, page, line, n)
            )
    # a frame out of reading order (rows shuffled): the same rows, in reading order
    ldf = tables.line_df.sample(frac=1.0, random_state=3)
    other = type(tables)(**{**tables.__dict__, "line_df": ldf})
    for page, line in starts[:40]:
        pd.testing.assert_frame_equal(
            reflines.region_from(other, page, line, 12), _old_region(other, page, line, 12)
        )


@pytest.mark.parametrize("name", NAMES)
def test_toc_scores_equal_the_title_loop(name, parsed):
    tables = parsed[name]
    index = bm25.page_index(tables)
    titles = lookup.toc_titles(tables, index)
    qsets = [set(t[1]) for t in titles] + [set(t[1][:1]) for t in titles]
    qsets += [set(terms(" ".join(t[0] or "" for t in titles[:3]))), set(), {"zzzz"}]
    hits = 0
    for q in qsets:
        got = lookup.toc_scores(tables, index, q)
        assert got == _old_toc_scores(tables, index, q)
        assert list(got) == list(_old_toc_scores(tables, index, q))  # same page order
        hits += bool(got)
    assert hits


def test_parent_map_is_built_once_per_toc(parsed):
    tables = parsed[NAMES[0]]
    toc = tables.toc_df
    first = narrow.toc_parents(toc)
    assert first == dict(zip(toc["toc_id"], toc["parent_id"], strict=True))
    assert narrow.toc_parents(toc) is first
    changed = toc.copy()
    changed["parent_id"] = None
    assert set(narrow.toc_parents(changed).values()) == {None}
