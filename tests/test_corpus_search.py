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
    best = events["blocks"]["hits"][0]
    assert events["first_hop"]["spans"][0][0] == best["page"]
    assert out["passes"][0]["evidence"][0]["page"] == best["page"]


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
