"""Stored answers and their provenance (issue 16), on the embedded store and on PostgreSQL."""

from __future__ import annotations

import copy
import json

import pandas as pd
import pytest

from docintel.cli import main
from docintel.corpus import Corpus, answers, provenance
from docintel.corpus.store import Change
from docintel.errors import UsageError
from tests.corpus_fixtures import DRAFT_SECRETS, PUBLIC_A, make_corpus, make_pdf

OPTS = {"layout": "never", "ocr": "never"}
#: One question per body page of sp800-901 (pages 2, 3, 4).
TURNS = [
    "How do organizations keep incident handling records?",
    "How long are incident handling records kept after the follow-up actions are complete?",
    "How are records destroyed once retention ends?",
]
SUBMIT_Q = "How do we submit informative mappings, and how long is the review period?"


def changed_a() -> dict:
    """sp800-901, next version: page 2 unchanged, a new section pushes the retention text to
    page 4, and the destruction text is rewritten."""
    v2 = copy.deepcopy(PUBLIC_A)
    intro, retention, _ = PUBLIC_A["sections"]
    v2["sections"] = [
        intro,
        ("2 Terms", "A record is any information created or received in the course of business."),
        retention,
        ("4 Destruction", "Records are burned in an approved incinerator at the end of the period."),
    ]
    return v2


@pytest.fixture(params=["embedded", "postgres"])
def corpus_at(request, tmp_path):
    """A function (re)opening a corpus ingested from the generated fixtures, each store kind."""
    folder = make_corpus(tmp_path / "in")
    if request.param == "embedded":
        loc, docs = str(tmp_path / "store"), None
    else:
        name = "a_" + request.node.name.split("[")[0].removeprefix("test_")[:40].lower()
        loc, docs = request.getfixturevalue("pg").create_db(name), tmp_path / "docs"

    def ingest():
        Corpus.ingest(loc, [folder], groups_file=folder / "groups.json", parse_options=OPTS, docs_dir=docs)
        return Corpus(loc, docs_dir=docs)

    ingest.folder = folder
    return ingest


def _cites(c, answer_id, user="analyst", status=None) -> pd.DataFrame:
    e = answers.edges(c.store, answer_id, user)
    e = e[e["kind"] == "CITES"]
    return e if status is None else e[e["status"] == status]


def test_check_reports_each_citations_fate_after_a_new_version(corpus_at):
    c = corpus_at()
    ids = [c.ask(q, "analyst")["answer_id"] for q in TURNS]
    before = [_cites(c, a).iloc[0] for a in ids]
    assert [int(b["page"]) for b in before] == [2, 3, 4]
    assert all(b["quote_sha"] == provenance.quote_sha(b["quote"]) for b in before)
    n_edges = len(c.store.table("answer_edges"))
    c.close()
    make_pdf(corpus_at.folder / "sp800-901.pdf", changed_a())
    c = corpus_at()  # re-ingest: a new version supersedes the cited one
    res = answers.check(c.store)
    fate = {r["answer_id"]: r for r in res["citations"]}
    assert [fate[a]["fate"] for a in ids] == ["found", "moved", "gone"]
    assert fate[ids[1]]["was"][0] == 3 and fate[ids[1]]["now"][0] == 4
    assert fate[ids[2]]["now"] is None
    edges = c.store.table("answer_edges")
    assert len(edges) > n_edges  # nothing deleted: old edges superseded, new ones added
    old = edges[edges["edge_id"].isin([b["edge_id"] for b in before])]
    assert set(old["status"]) == {"superseded"} and len(old) == 3
    new = _cites(c, ids[1], status="current").iloc[0]
    assert new["replaces"] == before[1]["edge_id"] and new["doc_id"] != before[1]["doc_id"]
    assert int(new["page"]) == 4
    assert _cites(c, ids[2], status="current").empty  # gone: no current citation left
    shown = answers.show(c.store, ids[1], "analyst")
    assert all("three years" in x["passage"] for x in shown["citations"])  # old and new passage
    assert answers.check(c.store)["checked"] == 0  # idempotent


def test_three_turn_conversation_chains_and_keeps_each_turns_provenance(corpus_at):
    c = corpus_at()
    outs = [c.ask(q, "analyst", conversation="conv-1") for q in TURNS]
    assert [o["turn"] for o in outs] == [1, 2, 3] and {o["conversation"] for o in outs} == {"conv-1"}
    ids = [o["answer_id"] for o in outs]
    for i, a in enumerate(ids):
        e = answers.edges(c.store, a, "analyst")
        nxt = e[e["kind"] == "NEXT_TURN"]
        assert list(nxt["target"]) == ([ids[i - 1]] if i else [])
        assert list(_cites(c, a)["page"].astype(int)) == [i + 2]  # its own passage, not the others'
    t = answers.trace(c.store, ids[1], "analyst")
    assert [x["answer_id"] for x in t["turns"]] == ids
    assert {d["target"] for d in t["documents"]} >= {"SP 800-901 Rev. 1"}
    assert any(p["page"] == 3 for d in t["documents"] for p in d["passages"])
    with pytest.raises(UsageError, match="another user"):
        c.ask(TURNS[0], "reviewer", conversation="conv-1")


def test_removing_a_document_marks_its_edges_removed(corpus_at):
    c = corpus_at()
    a = c.ask(TURNS[1], "analyst")["answer_id"]
    res = c.remove("sp800-901.pdf")
    assert res["removed"] == ["sp800-901.pdf"]
    assert "sp800-901.pdf" not in set(c.documents("analyst")["file"])
    assert c.store.doc_blocks(res["doc_ids"]).empty  # its derived rows left the store
    e = answers.edges(c.store, a, "analyst")  # the answer and its edges stay
    gone = e[e["doc_id"].isin(res["doc_ids"])]
    assert set(gone["kind"]) >= {"CITES", "SOURCED_FROM"} and set(gone["status"]) == {"removed"}
    assert set(e.loc[e["kind"] == "ABOUT", "status"]) <= {"current"}
    assert answers.get(c.store, a, "analyst")["question"] == TURNS[1]
    assert answers.check(c.store)["checked"] == 0
    with pytest.raises(UsageError, match="no document"):
        c.remove("sp800-901.pdf")


def test_a_user_without_a_sources_group_sees_neither_the_answer_nor_its_edges(corpus_at):
    c = corpus_at()
    out = c.ask(SUBMIT_Q, "reviewer")
    assert out["document"]["file"] == "sp800-903-draft.pdf"
    a = out["answer_id"]
    assert answers.get(c.store, a, "reviewer")["usr"] == "reviewer"
    with pytest.raises(UsageError, match="no stored answer"):
        answers.get(c.store, a, "analyst")
    assert answers.edges(c.store, a, "analyst").empty
    assert answers.list_answers(c.store, "analyst").empty
    assert c.store.rows("answer_edges", "analyst").empty
    # an answer drawn from a public and a restricted document: readable only with both groups
    docs = c.store.table("documents").set_index("file")
    mixed = {
        "question": "q",
        "answer": "a",
        "doc_id": docs.loc["sp800-901.pdf", "doc_id"],
        "citations": [
            {"doc_id": docs.loc[f, "doc_id"], "page": 2, "line_start": 1, "line_end": 1, "quote": "x"}
            for f in ("sp800-901.pdf", "sp800-903-draft.pdf")
        ],
    }
    row, edges = provenance.build_record(
        mixed, user="reviewer", groups=[], documents=c.store.table("documents"), blocks=c.store.doc_blocks([])
    )
    with c.store.writer_lock():
        c.store.commit(Change(rows={"answers": pd.DataFrame([row]), "answer_edges": edges}))
    assert set(answers.list_answers(c.store, "reviewer")["answer_id"]) == {a, row["answer_id"]}
    assert answers.list_answers(c.store, "analyst").empty
    assert c.store.rows("answer_edges", "analyst").empty
    assert c.store.rows("answer_edges", "nobody").empty
    if c.store.kind == "embedded":  # the guarded SQL connection applies the same predicate
        from docintel.sql import corpus_connection

        con = corpus_connection(c, "analyst")
        assert con.execute("SELECT count(*) FROM answers").fetchone()[0] == 0
        assert con.execute("SELECT count(*) FROM answer_edges").fetchone()[0] == 0
        con = corpus_connection(c, "reviewer")
        assert con.execute("SELECT count(*) FROM answers").fetchone()[0] == 2


def test_about_keys_survive_reparsing_and_list_by_identifier(corpus_at):
    c = corpus_at()
    a = c.ask("What does SP 800-901 say about how long incident handling records are kept?", "analyst")
    keys = set(answers.edges(c.store, a["answer_id"], "analyst").query("kind == 'ABOUT'")["target"])
    assert "ident:SP 800-901" in keys
    assert list(answers.list_answers(c.store, "analyst", about="NIST SP 800-901")["answer_id"]) == [
        a["answer_id"]
    ]
    assert answers.list_answers(c.store, "analyst", about="SP 800-999").empty


def test_answers_cli(tmp_path, capsys):
    folder = make_corpus(tmp_path / "in")
    store = str(tmp_path / "store")
    ingest = ["ingest", str(folder), "--corpus", store, "--groups", str(folder / "groups.json")]
    assert main([*ingest, "--layout", "never", "--ocr", "never"]) == 0
    capsys.readouterr()
    ids = []
    for q in TURNS[:2]:
        assert main(["ask", q, "--corpus", store, "--as", "analyst", "--json", "--conversation", "c1"]) == 0
        ids.append(json.loads(capsys.readouterr().out)["answer_id"])
    assert main(["answers", "list", "--corpus", store, "--as", "analyst"]) == 0
    listed = capsys.readouterr().out
    assert all(i in listed for i in ids)
    assert main(["answers", "show", ids[1], "--corpus", store, "--as", "analyst"]) == 0
    assert "passage: 2 Record Retention" in capsys.readouterr().out
    assert main(["answers", "trace", ids[1], "--corpus", store, "--as", "analyst", "--json"]) == 0
    t = json.loads(capsys.readouterr().out)
    assert [x["answer_id"] for x in t["turns"]] == ids
    assert main(["answers", "show", ids[1], "--corpus", store, "--as", "nobody"]) == 1
    assert "no stored answer" in capsys.readouterr().err
    html = tmp_path / "a.html"
    assert main(["answers", "report", ids[1], "--corpus", store, "--as", "analyst", "--out", str(html)]) == 0
    text = html.read_text()
    assert TURNS[1] in text and "three years" in text
    assert main(["ask", SUBMIT_Q, "--corpus", store, "--as", "reviewer", "--json"]) == 0
    capsys.readouterr()
    assert main(["answers", "list", "--corpus", store, "--as", "analyst", "--json"]) == 0
    listed = capsys.readouterr().out
    assert not any(s in listed for s in DRAFT_SECRETS) and "mappings" not in listed
    make_pdf(folder / "sp800-901.pdf", changed_a())
    assert main([*ingest, "--layout", "never", "--ocr", "never"]) == 0
    capsys.readouterr()
    assert main(["answers", "check", "--corpus", store]) == 0
    out = capsys.readouterr().out
    assert "found 1, moved 1, gone 0" in out
    assert main(["docs", "remove", "sp800-901.pdf", "--corpus", store]) == 0
    assert "removed sp800-901.pdf" in capsys.readouterr().out
    assert main(["answers", "show", ids[0], "--corpus", store, "--as", "analyst", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert {x["status"] for x in shown["citations"]} == {"superseded", "removed"}


def test_two_open_corpora_both_store_their_answers(tmp_path):
    """Regression: a second Corpus on the same embedded store committed over a stale generation
    (the first one's new generation number was taken: 'Directory not empty')."""
    folder = make_corpus(tmp_path / "in")
    loc = str(tmp_path / "store")
    Corpus.ingest(loc, [folder], groups_file=folder / "groups.json", parse_options=OPTS)
    one, two = Corpus(loc), Corpus(loc)
    a = one.ask(TURNS[0], "analyst")["answer_id"]
    b = two.ask(TURNS[1], "analyst")["answer_id"]
    c = one.ask(TURNS[2], "analyst", conversation=None)["answer_id"]
    assert set(Corpus(loc).store.table("answers")["answer_id"]) == {a, b, c}
