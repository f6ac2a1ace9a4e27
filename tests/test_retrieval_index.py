"""The stored retrieval index: same scores as the full scans it replaces, kept with the tables."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from docintel.api import INDEX_SIDECAR, ask, ensure_index, parse
from docintel.parsing import store
from docintel.retrieval import bm25, passage
from docintel.retrieval.bm25 import PageIndex, bigrams, build_index
from docintel.retrieval.pagescores import phrase_hits, window_hits
from docintel.text import terms

from .conftest import PDFS

QUESTION = "How is the rv_length_indicator computed?"


@pytest.fixture(scope="module")
def parsed(tmp_path_factory):
    out = tmp_path_factory.mktemp("index")
    return [
        parse(PDFS / name, out_dir=out, layout="never") for name in sorted(p.name for p in PDFS.glob("*.pdf"))
    ]


def _queries(index: PageIndex) -> list[list[str]]:
    """Real query term lists: words of a few lines, a rare and a frequent term, a missing one."""
    lines = [ts for p in index.pages for _, ts in index.line_terms[p] if len(ts) >= 3]
    picks = [lines[i][:6] for i in range(0, len(lines), max(1, len(lines) // 12))]
    common = max(index.vocab, key=index.df_of)
    return [*picks, [common], [common, "zzznotaword"], []]


def _reference_window(index: PageIndex, query: set[str], size: int = 12) -> dict:
    """The full scan the window score was before the index (every page, every window); pages
    without a query term score (0.0, their first line)."""
    out = {}
    for p in index.pages:
        lines = index.line_terms.get(p, [])
        best, best_line = 0.0, lines[0][0] if lines else 0
        for i in range(max(1, len(lines) - size + 1)):
            seen = set()
            for _, ts in lines[i : i + size]:
                seen.update(t for t in ts if t in query)
            score = math.fsum(index.idf(t) for t in seen)
            if score > best:
                best, best_line = score, lines[i][0]
        out[p] = (best, best_line)
    return out


def _window_scores(index: PageIndex, query: set[str]) -> dict:
    """:func:`window_hits` over every page: the others score (0.0, their first line)."""
    hits = window_hits(index, query)
    assert list(hits) == sorted(hits) and all(s > 0 for s, _ in hits.values())  # page order, > 0 only
    first = {p: (index.line_terms[p] or [(0, [])])[0][0] for p in index.pages}
    return {p: hits.get(p, (0.0, first[p])) for p in index.pages}


def test_bm25_scores_equal_rank_bm25(parsed):
    from rank_bm25 import BM25Okapi

    for tables in parsed:
        index = build_index(tables)
        model = BM25Okapi([index.page_terms[p] for p in index.pages])
        for q in _queries(index):
            expect = {p: max(0.0, float(s)) for p, s in zip(index.pages, model.get_scores(q), strict=True)}
            assert index.bm25_array(q).tolist() == [expect[p] for p in index.pages]  # exactly


def test_phrase_and_window_scores_equal_the_full_scans(parsed):
    for tables in parsed:
        index = build_index(tables)
        slow_df: dict = {}
        for p in index.pages:
            for b in bigrams(index.page_terms[p]):
                slow_df[b] = slow_df.get(b, 0) + 1
        assert index.bigram_df == slow_df
        for q in _queries(index):
            qb = bigrams(q)
            expect = {}
            for p in index.pages:
                have = bigrams(index.page_terms[p]) & qb
                n = index.n_pages + 1
                expect[p] = (
                    math.fsum(math.log(1.0 + n / (slow_df.get(b, 0) + 0.5)) for b in have),
                    sorted(have),
                )
            assert phrase_hits(index, qb) == {p: v for p, v in expect.items() if v[1]}
            assert _window_scores(index, set(q)) == _reference_window(index, set(q))


def test_window_scores_of_a_long_query_equal_the_full_scan(parsed):
    """More question terms than one 64-bit word of term bits holds (terms past the 62nd)."""
    for tables in parsed:
        index = build_index(tables)
        by_df = sorted(index.vocab, key=lambda t: (-index.df_of(t), t))
        for q in (by_df[:70], by_df[40:140:2] + ["zzznotaword"], by_df[-80:]):
            assert _window_scores(index, set(q)) == _reference_window(index, set(q))


def test_budget_equals_the_per_page_passages(parsed):
    for tables in parsed:
        index = passage.prepare_index(tables)
        skip = set(tables.page_df.loc[tables.page_df["image_only"].fillna(False).astype(bool), "page"])
        sizes = sorted(
            passage.passages_tokens([passage.page_passage(tables, p)])
            for p in index.pages
            if index.has_text(p) and p not in skip
        )
        median = sizes[len(sizes) // 2]
        expect = max(passage.MIN_TOKENS, min(passage.DEFAULT_MAX_TOKENS, int(passage.PAGE_SHARE * median)))
        assert passage.default_budget(tables) == expect
        for p in index.pages:
            assert index.memo["page_tokens"].get(p, 0) == passage.passages_tokens(
                [passage.page_passage(tables, p)]
            )


def test_index_round_trips_through_json(parsed):
    for tables in parsed:
        index = passage.prepare_index(tables)
        back = PageIndex.from_bytes(index.to_bytes())
        assert back.pages == index.pages and back.memo == index.memo
        assert {p: list(map(list, v)) for p, v in index.line_terms.items()} == {
            p: list(map(list, v)) for p, v in back.line_terms.items()
        }
        for q in _queries(index):
            assert back.bm25_array(q).tolist() == index.bm25_array(q).tolist()
            assert window_hits(back, set(q)) == window_hits(index, set(q))
        with pytest.raises(ValueError, match="not a docintel"):
            PageIndex.from_bytes(json.dumps({"format": -1}).encode())
        with pytest.raises(ValueError, match="bytes"):
            PageIndex.from_bytes(index.to_bytes()[:-4])


def _live(tables) -> Path:
    return Path(tables.manifest["cache_dir"]).resolve()


def test_ask_stores_the_index_and_a_later_process_reads_it(artifacts, monkeypatch, nist_pdf):
    first = ask(nist_pdf, QUESTION, backend="offline", out_dir=artifacts, layout="never", write_trace=False)
    tables = parse(nist_pdf, out_dir=artifacts, layout="never")
    manifest = json.loads((_live(tables) / "manifest.json").read_text())
    entry = manifest["sidecars"][INDEX_SIDECAR]
    assert (_live(tables) / entry["file"]).exists()  # kept through the cross_ref_df append
    assert entry["built_from"] == {t: manifest["checksums"][t] for t in ("line_df", "page_df", "toc_df")}

    bm25._CACHE.clear()  # a new process: nothing in memory
    monkeypatch.setattr(bm25, "build_index", lambda t: pytest.fail("the stored index was not used"))
    again = ask(nist_pdf, QUESTION, backend="offline", out_dir=artifacts, layout="never", write_trace=False)
    assert again.to_json_dict() == first.to_json_dict()


def test_a_damaged_or_foreign_index_is_rebuilt_not_served(artifacts, nist_pdf):
    tables = parse(nist_pdf, out_dir=artifacts, layout="never")
    ensure_index(tables)
    key = bm25.fingerprint()
    assert store.load_sidecar(tables, INDEX_SIDECAR, key) is not None
    assert store.load_sidecar(tables, INDEX_SIDECAR, "other-code") is None
    other = dict(tables.manifest, checksums={**tables.manifest["checksums"], "line_df": "0" * 64})
    assert (
        store.load_sidecar(type(tables)(**{**tables.__dict__, "manifest": other}), INDEX_SIDECAR, key) is None
    )

    path = _live(tables) / f"{INDEX_SIDECAR}.bin"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 1
    path.write_bytes(bytes(data))
    assert store.load_sidecar(tables, INDEX_SIDECAR, key) is None
    bm25._CACHE.clear()
    index = ensure_index(tables)  # rebuilt and stored again
    assert store.load_sidecar(tables, INDEX_SIDECAR, key) == index.to_bytes()


def test_the_index_follows_the_frames_not_the_doc_id(parsed):
    tables = parsed[0]
    index = bm25.page_index(tables)
    assert bm25.page_index(tables) is index
    tables.line_df = tables.line_df.copy()
    assert bm25.page_index(tables) is not index


def test_fingerprint_covers_the_tokeniser():
    assert len(bm25.fingerprint()) == 16
    assert terms("Computing computed") == ["comput", "comput"]  # what the index stores
