"""A stored answer shows only to users who may read every document whose text, name or page it
carries: a reviewer's follow answer quoting a reviewers-only document is neither listed, shown,
traced nor selectable in SQL for an analyst (session 13 review, high finding)."""

from __future__ import annotations

import json

import pytest

from docintel.corpus import answers, provenance
from docintel.corpus.paths import agent, follow
from docintel.corpus.tools_sql import query_corpus
from docintel.errors import UsageError
from tests.test_follow import QUESTION, SECRET, corpus  # noqa: F401  (the module's store fixture)

HIDDEN_FILE = "sp800-183-draft.pdf"


def _hidden_id(c) -> str:
    docs = c.store.table("documents")
    return str(docs.loc[docs["file"] == HIDDEN_FILE, "doc_id"].iloc[0])


def _assert_reviewer_only(c, out: dict) -> None:
    text = json.dumps(out, default=str)
    assert SECRET in text and HIDDEN_FILE in text  # the reviewer's answer quotes the hidden document
    row = answers.save(c.store, {**out, "question": QUESTION}, "reviewer")
    aid = row["answer_id"]
    assert _hidden_id(c) in row["source_docs"].split("|")
    assert aid in set(answers.list_answers(c.store, "reviewer")["answer_id"])
    assert aid not in set(answers.list_answers(c.store, "analyst")["answer_id"])
    with pytest.raises(UsageError):
        answers.show(c.store, aid, "analyst")
    assert answers.edges(c.store, aid, "analyst").empty
    assert SECRET in json.dumps(answers.show(c.store, aid, "reviewer"), default=str)
    if c.store.kind == "embedded":  # the SQL tool reads the answers table through its access rule
        seen = query_corpus(c, "analyst", "SELECT answer_id, answer FROM answers").frame
        assert aid not in set(seen["answer_id"]) and SECRET not in " ".join(seen["answer"])
        mine = query_corpus(c, "reviewer", "SELECT answer_id FROM answers").frame
        assert aid in set(mine["answer_id"])


def test_reviewers_follow_answer_is_not_readable_by_an_analyst(corpus):  # noqa: F811
    _assert_reviewer_only(corpus, follow.run(corpus, QUESTION, "reviewer"))


def test_agent_fallback_answer_is_not_readable_by_an_analyst(corpus):  # noqa: F811
    out = agent.run(corpus, QUESTION, "reviewer")  # no tool-capable model: answered by follow
    assert out["agent_fallback"]["path"] == "follow"
    _assert_reviewer_only(corpus, out)


def test_ask_stores_the_linked_documents_among_the_sources(corpus):  # noqa: F811
    out = corpus.ask(QUESTION, "reviewer")
    assert out["route"] == "follow"
    row = answers.get(corpus.store, out["answer_id"], "reviewer")
    assert _hidden_id(corpus) in str(row["source_docs"]).split("|")
    with pytest.raises(UsageError):
        answers.show(corpus.store, out["answer_id"], "analyst")


def test_any_document_id_anywhere_in_the_answer_is_a_source():
    out = {
        "doc_id": "d-win",
        "citations": [{"page": 1, "line_start": 1, "line_end": 2}],
        "evidence": [{"doc_id": "d-ev", "document": {"doc_id": "d-ev"}}],
        "links": [{"doc_id": "d-link", "document": "x.pdf"}],
        "editions": [{"doc_ids": ["d-ed"]}],
        "some_later_path": {"steps": [{"result": {"doc_id": "d-deep"}}]},
        "trace": {"candidates": [{"doc_id": "d-considered"}]},  # working notes: not stored
    }
    assert provenance.source_doc_ids(out) == ["d-deep", "d-ed", "d-ev", "d-link", "d-win"]
