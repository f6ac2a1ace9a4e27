"""Session 12 (cs): the corpus answer's pass 1. Overlapping first-hop passages are read as one
passage (no line twice), and the extractive backend gets a window and line budget for every
first-hop passage, so a ranked block holding the answer is quoted."""

from __future__ import annotations

import json

from docintel.corpus import Corpus
from docintel.corpus.single import _budgeted, ask_document, merge_overlapping
from docintel.generation.offline import OfflineBackend
from docintel.schema.evidence import EvidenceLine, Passage
from tests.corpus_fixtures import DRAFT, DRAFT_SECRETS, GROUPS, PUBLIC_A, PUBLIC_B, make_pdf

OPTS = {"layout": "never", "ocr": "never"}
RETAIN_Q = "How long are incident handling records kept after the follow-up actions are complete?"
SUBMIT_Q = "How do we submit informative mappings, and how long is the review period?"


def _passage(page: int, lines: list[int], note: str) -> Passage:
    ev = [EvidenceLine(page=page, line=n, text=f"line {n}", role="body") for n in lines]
    return Passage(doc_id="d", page=page, line_start=lines[0], line_end=lines[-1], lines=ev, note=note)


def test_overlapping_and_touching_passages_become_one_in_rank_order():
    a = _passage(5, [10, 11, 12, 13], "a")
    b = _passage(9, [1, 2, 3], "b")
    c = _passage(5, [12, 13, 14, 15], "c")  # overlaps a
    d = _passage(5, [16, 17], "d")  # touches c (line 15 -> 16)
    e = _passage(9, [20, 21], "e")  # same page as b, apart from it
    out = merge_overlapping([a, b, c, d, e])
    assert [p.note for p in out] == ["a; c; d", "b", "e"]
    first = out[0]
    assert [ln.line for ln in first.lines] == list(range(10, 18))
    assert (first.page, first.line_start, first.line_end) == (5, 10, 17)


def test_a_later_passage_joining_two_earlier_ones_merges_all_three():
    a = _passage(3, [1, 2], "a")
    b = _passage(3, [6, 7], "b")
    c = _passage(3, [3, 4, 5], "c")  # touches both
    out = merge_overlapping([a, b, c])
    assert len(out) == 1 and [ln.line for ln in out[0].lines] == [1, 2, 3, 4, 5, 6, 7]


def test_budget_grows_with_first_hop_passages_only_for_the_extractive_backend(monkeypatch):
    monkeypatch.delenv("DOCINTEL_BACKEND", raising=False)
    monkeypatch.delenv("DOCINTEL_BASE_URL", raising=False)
    monkeypatch.delenv("DOCINTEL_MODEL", raising=False)
    one = OfflineBackend()
    four = _budgeted(None, 4)
    assert isinstance(four, OfflineBackend)
    assert four.max_windows == one.max_windows + 3 and four.max_lines == 4 * one.max_lines
    assert _budgeted("offline", 2).max_lines == 2 * one.max_lines
    single = _budgeted(None, 1)  # one passage: the single-document budget (read once, s13)
    assert (single.max_windows, single.max_lines) == (one.max_windows, one.max_lines)
    assert _budgeted("fake", 4) == "fake"  # another backend is left as named
    given = OfflineBackend(max_lines=3)
    assert _budgeted(given, 4) is given  # an instance the caller built is used as it is
    monkeypatch.setenv("DOCINTEL_BACKEND", "fake")
    assert _budgeted(None, 4) is None


def _store(tmp_path) -> Corpus:
    folder = tmp_path / "in"
    folder.mkdir()
    make_pdf(folder / "sp800-901.pdf", PUBLIC_A)
    make_pdf(folder / "sp800-902.pdf", PUBLIC_B)
    make_pdf(folder / "sp800-903-draft.pdf", DRAFT)
    (folder / "groups.json").write_text(json.dumps(GROUPS))
    Corpus.ingest(tmp_path / "store", [folder], groups_file=folder / "groups.json", parse_options=OPTS)
    return Corpus(tmp_path / "store")


#: One page of 30 distinct lines: two blocks far apart on it widen to passages that overlap.
LONG = {
    "cover": ["NIST Special Publication 800-909", "Long Records Guide"],
    "sections": [
        (
            "1 Records",
            "\n".join(f"Rule {i}: records of kind {i} are kept by office {i}." for i in range(1, 31)),
        )
    ],
}


def test_two_blocks_of_one_page_give_each_line_once(tmp_path):
    from docintel.corpus.paths.search import _load_tables

    folder = tmp_path / "in"
    folder.mkdir()
    make_pdf(folder / "long.pdf", LONG)
    (folder / "g.json").write_text(
        json.dumps({"documents": {"long.pdf": ["public"]}, "users": {"analyst": ["public"]}})
    )
    Corpus.ingest(tmp_path / "store", [folder], groups_file=folder / "g.json", parse_options=OPTS)
    c = Corpus(tmp_path / "store")
    tables = _load_tables(c, c.store.readable_documents("analyst").iloc[0])
    ln = tables.line_df[tables.line_df["text"].str.startswith("Rule ")]
    page = int(ln["page"].iloc[0])
    nums = sorted(int(x) for x in ln["line"])
    spans = [(page, nums[1], nums[1]), (page, nums[-2], nums[-1])]
    res = ask_document(tables, "How long are records kept?", first_hop=spans)
    first = [e for e in res.passes[0].evidence if "corpus search" in e.note]
    text = "\n".join(e.text for e in first)
    assert len(first) == 1 and all(text.count(str(t)) == 1 for t in ln["text"]), text


def test_the_answer_path_shows_no_unreadable_document(tmp_path):
    c = _store(tmp_path)
    draft = c.store.readable_documents("reviewer")
    draft = draft[draft["file"] == "sp800-903-draft.pdf"].iloc[0]
    for q in (SUBMIT_Q, RETAIN_Q):
        out = json.dumps(c.ask(q, "analyst", store_answer=False))
        for secret in [*DRAFT_SECRETS, "sp800-903-draft.pdf", draft["doc_id"]]:
            assert secret not in out, (q, secret)
    seen = c.ask(SUBMIT_Q, "reviewer", store_answer=False)
    assert seen["document"]["file"] == "sp800-903-draft.pdf"
    assert "mappings-alias@example.gov" in seen["answer"]
