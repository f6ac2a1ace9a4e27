"""The search path: the winning blocks open the reference loop; a reference to a corpus
document the user may read resolves to it (by the identifier normalizer), one they may not
read stays external and unnamed."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from docintel.corpus import Corpus
from docintel.corpus.paths.search import _held, _ident_key
from docintel.corpus.single import ask_document
from tests.corpus_fixtures import DRAFT, DRAFT_SECRETS, GROUPS, PUBLIC_A, PUBLIC_B, make_pdf

OPTS = {"layout": "never", "ocr": "never"}
RETAIN_Q = "How long are incident handling records kept after the follow-up actions are complete?"


def _corpus(tmp_path, cite: str) -> Corpus:
    """The three fixture documents, the first one citing ``cite`` in its retention section."""
    folder = tmp_path / "in"
    folder.mkdir()
    a = json.loads(json.dumps(PUBLIC_A))
    title, body = a["sections"][1]
    a["sections"][1] = (title, body.replace("SP 800-902", cite))
    make_pdf(folder / "sp800-901.pdf", a)
    make_pdf(folder / "sp800-902.pdf", PUBLIC_B)
    make_pdf(folder / "sp800-903-draft.pdf", DRAFT)
    (folder / "groups.json").write_text(json.dumps(GROUPS))
    store = tmp_path / "store"
    Corpus.ingest(store, [folder], groups_file=folder / "groups.json", parse_options=OPTS)
    return Corpus(store)


def _tables(corpus, file):
    from docintel.corpus.paths.search import _load_tables

    docs = corpus.store.readable_documents("reviewer")
    return _load_tables(corpus, docs[docs["file"] == file].iloc[0])


def test_first_hop_spans_are_pass_one_evidence(tmp_path):
    c = _corpus(tmp_path, "SP 800-902")
    tables = _tables(c, "sp800-901.pdf")
    own = ask_document(tables, RETAIN_Q)
    assert 3 in {e.page for e in own.passes[0].evidence}  # its own retrieval: the retention page
    lines = tables.line_df[(tables.line_df["page"] == 4) & (tables.line_df["role"] == "body")]
    span = (4, int(lines["line"].min()), int(lines["line"].max()))  # the destruction page
    res = ask_document(tables, RETAIN_Q, first_hop=[span])
    first = res.passes[0].evidence
    assert [e.page for e in first][:1] == [4]
    assert "corpus search" in first[0].note


def test_corpus_ask_opens_the_loop_with_the_best_block(tmp_path):
    c = _corpus(tmp_path, "SP 800-902")
    out = c.ask(RETAIN_Q, "analyst")
    events = {e.get("event"): e for e in out["trace"]["events"] if isinstance(e, dict)}
    assert events["blocks"]["hits"][0]["file"] == events["winner"]["file"] == "sp800-901.pdf"
    spans = events["first_hop"]["spans"]
    assert spans and out["passes"][0]["evidence"][0]["page"] == spans[0][0]
    first = out["passes"][0]["evidence"][0]
    assert first["line_start"] <= spans[0][1] and spans[0][2] <= first["line_end"]


@pytest.mark.parametrize("cite", ["NIST Special Publication 800-902", "SP 800-902"])
def test_reference_resolves_through_the_normalizer(tmp_path, cite):
    c = _corpus(tmp_path, cite)
    out = c.ask(RETAIN_Q, "analyst")
    assert out["document"]["file"] == "sp800-901.pdf"
    assert [r["document"]["file"] for r in out["corpus_references"]] == ["sp800-902.pdf"]
    assert "Corpus reference(s)" in out["answer"] and "sp800-902.pdf" in out["answer"]
    assert not out["external_references"]
    added = [e for e in out["evidence"] if e["document"]["file"] == "sp800-902.pdf"]
    assert added and added[0]["retrieved_via"] == "reference"


def test_reference_to_an_unreadable_document_stays_external(tmp_path):
    c = _corpus(tmp_path, "SP 800-903")
    seen = c.ask(RETAIN_Q, "analyst")
    assert seen["corpus_references"] == []
    text = json.dumps(seen).lower()
    assert "sp800-903-draft.pdf" not in text
    assert not any(s.lower() in text for s in DRAFT_SECRETS)
    reviewer = c.ask(RETAIN_Q, "reviewer")
    if reviewer["document"]["file"] == "sp800-901.pdf":  # the reviewer may read the draft
        assert [r["document"]["file"] for r in reviewer["corpus_references"]] == ["sp800-903-draft.pdf"]


def test_held_prefers_the_cited_revision_then_the_newest():
    docs = pd.DataFrame(
        {
            "doc_id": ["a", "b", "c", "d", "e"],
            "publication_id": [
                "SP 800-30",
                "SP 800-30 Rev. 1",
                "SP 800-60 Vol. 1 Rev. 1",
                "SP 800-60 Vol. 2 Rev. 1",
                "FIPS 199",
            ],
        }
    )
    assert _held(docs, _ident_key("NIST SP 800-30"), "x") == ["b"]
    assert _held(docs, _ident_key("SP 800-30 Revision 1"), "x") == ["b"]
    assert _held(docs, _ident_key("NIST SP 800-53 Rev. 4"), "x") == []
    assert _held(docs, _ident_key("SP 800-60 Volume II Revision 1"), "x") == ["d"]
    assert sorted(_held(docs, _ident_key("SP 800-60"), "x")) == ["c", "d"]
    assert _held(docs, _ident_key("FIPS PUB 199"), "e") == []  # never the citing document itself


def _fake_tables(rows, toc):
    from types import SimpleNamespace

    lines = pd.DataFrame(
        [
            {"page": 1, "line": i + 1, "role": "body", "section_id": sec, "text": text, "block": i,
             "x0": 0.0, "y0": 10.0 * i, "x1": 100.0, "y1": 10.0 * i + 8}
            for i, (sec, text) in enumerate(rows)
        ]
    )  # fmt: skip
    toc_df = pd.DataFrame(toc, columns=["toc_id", "title", "parent_id"])
    return SimpleNamespace(line_df=lines, toc_df=toc_df, doc_id="d")


def test_short_sibling_sections_share_a_block_unrelated_ones_do_not():
    from docintel.corpus.blocks import MIN_CHARS, make_blocks

    long = "word " * (MIN_CHARS // 5 + 10)
    toc = [
        ("g", "Glossary", None),
        ("g1", "Authenticator", "g"),
        ("g2", "Assurance Level", "g"),
        ("g3", "Output", "g"),
        ("h", "History", None),
    ]
    rows = [("g", "Glossary"), ("g1", "Something held."), ("g2", "A category of strength."),
            ("g3", long), ("g3", "more of it."), ("h", "Unrelated section text.")]  # fmt: skip
    blocks = make_blocks(_fake_tables(rows, toc))
    spans = [(b.line_start, b.line_end, b.section_id) for b in blocks.itertuples()]
    # the short heading takes in its entries (the block belongs to the glossary); an unrelated
    # section always starts a block
    assert spans == [(1, 5, "g"), (6, 6, "h")]
    assert "authent" in blocks["terms"].iloc[0].split()  # merged sections' titles are indexed
    rows[1] = ("g1", long)  # a first entry of full size keeps the next entry out
    spans = [(b.line_start, b.line_end) for b in make_blocks(_fake_tables(rows, toc)).itertuples()]
    assert spans[:2] == [(1, 2), (3, 5)]
