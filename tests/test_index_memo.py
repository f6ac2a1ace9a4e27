"""Document-only values an ask used to derive per ask (listing, overview, back-matter, commentary
and preamble pages, the lines that name a target) are computed with the retrieval index, stored
with it and read back equal."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from docintel.api import INDEX_SIDECAR, _store_index, ensure_index, parse
from docintel.parsing import store
from docintel.retrieval import bm25, firsthop, lookup, rankpages, reflines, refnames
from docintel.retrieval.bm25 import PageIndex

from ._cross_refs import learned_frame
from .conftest import PDFS


def _fresh_process() -> None:
    bm25._CACHE.clear()
    reflines._LABELLED.clear()
    firsthop._OVERVIEW_CACHE.clear()


#: the page sets kept in the index memo -> (module, the computation it replaces, the public reader)
_PAGE_SETS = {
    "listing_pages": (rankpages, "_listing_pages", "listing_pages"),
    "overview_pages": (firsthop, "_overview_pages", "overview_pages"),
    "back_matter_pages": (rankpages, "_back_matter_pages", "back_matter_pages"),
    "commentary_pages": (rankpages, "_commentary_pages", "commentary_pages"),
    "preamble_pages": (firsthop, "_preamble_pages", "preamble_pages"),
}


def _stored(tables) -> PageIndex:
    data = store.load_sidecar(tables, INDEX_SIDECAR, bm25.fingerprint())
    assert data is not None
    return PageIndex.from_bytes(data)


@pytest.mark.parametrize("name", sorted(p.name for p in PDFS.glob("*.pdf")))
def test_the_stored_values_equal_the_computed_ones(name, artifacts):
    tables = parse(PDFS / name, out_dir=artifacts, layout="never")
    ensure_index(tables)
    stored = _stored(tables)
    labelled = reflines._scan_labelled(tables)
    assert labelled  # both documents print captions or headings the grammar reads
    assert stored.memo["labelled"] == labelled
    assert all(isinstance(k, tuple) and all(isinstance(at, tuple) for at in v) for k, v in labelled.items())
    for key, (module, compute, _) in _PAGE_SETS.items():
        assert stored.memo[key] == getattr(module, compute)(tables), key
    assert stored.memo["leader_lines"] == refnames._scan_leader_lines(tables.line_df)
    assert all(isinstance(at, tuple) for at in stored.memo["leader_lines"])
    toc = tables.toc_df
    assert stored.memo["toc_norm"] == refnames.toc_norm_values(toc)
    computed = {
        "ids": toc["toc_id"].map(lookup.norm_id),
        "nums": toc["number"].map(lookup.norm_id),
        "titles": toc["title"].fillna("").map(lambda t: re.sub(r"\W+", " ", t).strip().lower()),
    }

    # a later process reads them from the stored index: neither the grammar nor a scan runs again
    _fresh_process()
    again = parse(PDFS / name, out_dir=artifacts, layout="never")
    ensure_index(again)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(reflines, "_scan_labelled", lambda t: pytest.fail("_scan_labelled ran on a stored index"))
        for key, (module, compute, _) in _PAGE_SETS.items():
            m.setattr(module, compute, lambda t, k=key: pytest.fail(f"{k} computed on a stored index"))
        m.setattr(
            refnames, "_scan_leader_lines", lambda t: pytest.fail("the leader scan ran on a stored index")
        )
        assert reflines.labelled_index(again) == labelled
        assert refnames._leader_lines(again) == stored.memo["leader_lines"]
        m.setattr(refnames, "toc_norm_values", lambda t: pytest.fail("the toc was mapped on a stored index"))
        for what, series in computed.items():
            pd.testing.assert_series_equal(lookup._toc_norm(again, what), series)
        for key, (module, _, public) in _PAGE_SETS.items():
            assert set(getattr(module, public)(again)) == stored.memo[key], key


def test_a_value_missing_from_the_stored_index_is_computed_once_and_stored(artifacts, nist_pdf):
    tables = parse(nist_pdf, out_dir=artifacts, layout="never")
    index = ensure_index(tables)
    del index.memo["labelled"]
    _store_index(tables, index)  # an index stored without it
    _fresh_process()
    tables = parse(nist_pdf, out_dir=artifacts, layout="never")
    index = ensure_index(tables)
    assert "labelled" not in index.memo and not index.dirty
    value = reflines.labelled_index(tables)
    assert index.dirty and index.memo["labelled"] == value
    _store_index(tables, index)
    assert not index.dirty
    assert _stored(tables).memo["labelled"] == value


def test_an_index_built_by_other_grammar_code_is_not_served(artifacts, nist_pdf, monkeypatch, tmp_path):
    files = {p.name for p in bm25.fingerprint_files()}
    # (rankpages.py computes the listing, back-matter and commentary pages stored with the index)
    for needed in (
        "reflines.py", "rank.py", "rankpages.py", "firsthop.py", "lookup.py", "passage.py", "refscan.py",
        "refpatterns.py", "refrules.py",
    ):  # fmt: skip
        assert needed in files
    tables = parse(nist_pdf, out_dir=artifacts, layout="never")
    ensure_index(tables)
    key = bm25.fingerprint()

    # the same code with one grammar file edited: another fingerprint, so the stored index is a miss
    real = bm25.fingerprint_files()
    grammar = next(p for p in real if p.name == "refpatterns.py")
    edited = tmp_path / grammar.name
    edited.write_bytes(grammar.read_bytes() + b"\n# edited\n")
    monkeypatch.setattr(bm25, "fingerprint_files", lambda: [edited if p == grammar else p for p in real])
    other = bm25.fingerprint()
    assert other != key
    assert store.load_sidecar(tables, INDEX_SIDECAR, other) is None

    _fresh_process()
    built = []
    monkeypatch.setattr(
        bm25, "build_index", lambda t, real_build=bm25.build_index: built.append(1) or real_build(t)
    )
    ensure_index(parse(nist_pdf, out_dir=artifacts, layout="never"))
    assert built  # rebuilt, and stored under the new key
    assert store.load_sidecar(tables, INDEX_SIDECAR, other) is not None


def test_appending_known_cross_refs_rewrites_nothing(artifacts, nist_pdf, monkeypatch):
    tables = parse(nist_pdf, out_dir=artifacts, layout="never")
    store.append_cross_refs(tables, learned_frame(tables))
    n = len(tables.cross_ref_df)
    assert (tables.cross_ref_df["anchor_text"] == "Section 9.9").sum() == 1
    monkeypatch.setattr(store, "_republish", lambda *a, **k: pytest.fail("republished with nothing new"))
    store.append_cross_refs(tables, learned_frame(tables))
    assert len(tables.cross_ref_df) == n
    with pytest.raises(pytest.fail.Exception):  # a new row still goes through
        store.append_cross_refs(tables, learned_frame(tables, origin_line=2))

    # known rows of plain values are known before the frame is conformed; a missing value is not
    from docintel.schema.tables import CROSS_REF_DF

    with monkeypatch.context() as m:
        m.setattr(type(CROSS_REF_DF), "conform", lambda *a: pytest.fail("conformed a known row"))
        store.append_cross_refs(tables, learned_frame(tables))
        with pytest.raises(pytest.fail.Exception):
            store.append_cross_refs(tables, learned_frame(tables, anchor_text=None))


def test_page_sets_survive_the_stored_form_when_not_empty(artifacts, nist_pdf):
    """A preamble (an enacting formula on page 3) and a commentary section (titled by a label the
    registry holds on an earlier page): computed, stored in the index's bytes and read back equal."""
    import dataclasses

    from docintel.retrieval import passage

    tables = parse(nist_pdf, out_dir=artifacts, layout="never")
    lines = tables.line_df.copy()
    at = lines.index[(lines["page"] == 3) & (lines["role"].fillna("body") == "body")][0]
    lines.loc[at, "text"] = "HAVE ADOPTED THIS REGULATION:"
    toc = tables.toc_df.copy()
    reg = tables.object_registry
    label, first = str(reg["label"].iloc[0]), int(reg["page"].iloc[0])
    later = toc.index[toc["page_start"].notna() & (toc["page_start"] > first)][0]
    toc.loc[later, "title"] = label
    edited = dataclasses.replace(tables, line_df=lines, toc_df=toc, manifest={})
    _fresh_process()
    index = passage.prepare_index(edited)
    read = PageIndex.from_bytes(index.to_bytes()).memo
    assert read["preamble_pages"] == {1, 2} == firsthop._preamble_pages(edited)
    assert read["commentary_pages"] == rankpages._commentary_pages(edited) and read["commentary_pages"]
    for key, (module, compute, _) in _PAGE_SETS.items():
        assert read[key] == getattr(module, compute)(edited), key
    _fresh_process()


def test_the_documents_own_ids_are_scanned_once_and_stored(artifacts, nist_pdf):
    from docintel.retrieval import pointerfacts

    tables = parse(nist_pdf, out_dir=artifacts, layout="never")
    ensure_index(tables)  # computed with the index, stored with it
    value = pointerfacts.own_ids(tables)
    assert value == pointerfacts.scan_own_ids(tables) and isinstance(value, set)
    assert _stored(tables).memo["own_ids"] == value
    _fresh_process()
    again = parse(nist_pdf, out_dir=artifacts, layout="never")
    ensure_index(again)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(
            pointerfacts, "scan_own_ids", lambda t: pytest.fail("the lines were scanned on a stored index")
        )
        assert pointerfacts.own_ids(again) == value


def test_the_documents_own_parts_are_scanned_once_and_stored(artifacts, nist_pdf):
    from docintel.retrieval import refparts

    tables = parse(nist_pdf, out_dir=artifacts, layout="never")
    index = ensure_index(tables)
    value = refparts.own_parts(tables)  # asked when a reference found nothing: computed then
    assert value == refparts.scan_parts(tables) and isinstance(value, frozenset) and value
    assert index.dirty
    _store_index(tables, index)
    assert _stored(tables).memo["own_parts"] == value
    _fresh_process()
    again = parse(nist_pdf, out_dir=artifacts, layout="never")
    ensure_index(again)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(refparts, "scan_parts", lambda t: pytest.fail("the lines were scanned on a stored index"))
        assert refparts.own_parts(again) == value
