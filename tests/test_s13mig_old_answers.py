"""Answers stored before session 13's source rule (``source_docs`` = every doc id in the answer)
may name, page and quote documents missing from their ``source_docs``; such a row (no
``answers_format`` in its ``versions``) shows to its asker only, and so do its edges, in both
stores, once the store is opened by this code. A new-format answer is unaffected."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from docintel.corpus import answers, provenance
from docintel.corpus.store import DOCUMENT_COLUMNS, TABLE_COLUMNS, Change
from docintel.corpus.stores import open_store
from docintel.corpus.tools_sql import query_corpus
from docintel.errors import UsageError

SECRET = "reviewers-only sentence about widget categorisation"


def _documents() -> pd.DataFrame:
    rows = [
        {"doc_id": d, "file": f, "sha256": d * 4, "pages": 1, "version": 1, "publication_base": f}
        for d, f in [("d-pub", "public.pdf"), ("d-hid", "hidden.pdf")]
    ]
    return pd.DataFrame(rows).reindex(columns=DOCUMENT_COLUMNS)


def _old_rows() -> tuple[dict, pd.DataFrame]:
    """A follow answer as the session-12 code stored it: the linked hidden document is named and
    quoted, ``source_docs`` holds the start document only, ``versions`` has no format key."""
    stamp = "2026-12-01T10:00:00Z"
    row = {
        "answer_id": "a-old",
        "conversation": "a-old",
        "turn": 1,
        "usr": "reviewer",
        "groups": json.dumps(["reviewers", "staff"]),
        "question": "Which documents depend on the rule?",
        "route": "follow",
        "answer": f"hidden.pdf p. 3 links here: '{SECRET}'",
        "backend": "offline",
        "versions": json.dumps({"docintel": "0.12", "schema": 11, "builds": {"d-pub": "p1"}}),
        "doc_id": "d-pub",
        "payload": json.dumps({"citations": [], "warnings": []}),
        "source_docs": "d-pub",
        "created_at": stamp,
    }
    edge = {
        "edge_id": "e-old-cites",
        "answer_id": "a-old",
        "usr": "reviewer",
        "kind": "CITES",
        "target": "d-pub:1:1",
        "doc_id": "d-pub",
        "page": 1,
        "line_start": 1,
        "line_end": 2,
        "quote": SECRET,
        "status": "current",
        "source_docs": "d-pub",
        "created_at": stamp,
        "updated_at": stamp,
    }
    return row, pd.DataFrame([edge]).reindex(columns=TABLE_COLUMNS["answer_edges"])


def _old_search_row(old: dict) -> dict:
    """An old search answer: its citations, winner and corpus references were all its sources."""
    return {**old, "answer_id": "a-old-search", "conversation": "a-old-search", "route": "search",
            "answer": "public.pdf p. 1 says the rule"}  # fmt: skip


@pytest.fixture(scope="module", params=["embedded", "postgres"])
def location(request, tmp_path_factory):
    if request.param == "embedded":
        loc = str(tmp_path_factory.mktemp("mig") / "store")
    else:
        loc = request.getfixturevalue("pg").create_db("mig13")
    store = open_store(loc, create=True)
    old_row, old_edges = _old_rows()
    new_row, new_edges = provenance.build_record(
        {
            "question": "What does the public rule say?",
            "route": "follow",
            "answer": "public.pdf p. 1",
            "doc_id": "d-pub",
            "citations": [{"doc_id": "d-pub", "page": 1, "line_start": 1, "line_end": 2, "quote": "rule"}],
        },
        user="reviewer",
        groups=["reviewers", "staff"],
        documents=_documents(),
        blocks=pd.DataFrame(columns=["doc_id"]),
    )
    with store.writer_lock():
        store.commit(
            Change(
                documents=_documents(),
                access=[("d-pub", "staff"), ("d-hid", "reviewers")],
                members=[("reviewer", "staff"), ("reviewer", "reviewers"), ("analyst", "staff")],
                rows={
                    "answers": pd.DataFrame([old_row, _old_search_row(old_row), new_row]),
                    "answer_edges": pd.concat([old_edges, new_edges], ignore_index=True),
                },
            )
        )
    if request.param == "postgres":  # the store as session 12 left it: its policies are the old ones
        con = store._own
        with con.transaction():
            con.execute("DROP POLICY by_group ON answers")
            con.execute("DROP POLICY by_group ON answer_edges")
            for name in ("answers", "answer_edges"):
                con.execute(
                    f"CREATE POLICY by_group ON {name} AS PERMISSIVE FOR SELECT TO docintel_reader USING"
                    f" (COALESCE({name}.source_docs, '') <> '' AND NOT EXISTS (SELECT 1 FROM"
                    f" unnest(string_to_array({name}.source_docs, '|')) AS s(d)"
                    " WHERE s.d NOT IN (SELECT docintel_readable())))"
                )
            con.execute("DELETE FROM meta WHERE key = 'ddl'")
    store.close()
    yield loc, new_row["answer_id"]


def test_an_old_format_answer_shows_to_its_asker_only(location):
    loc, _ = location
    store = open_store(loc)  # opened by this code: the old rows are narrowed to their asker
    try:
        assert "a-old" not in set(answers.list_answers(store, "analyst")["answer_id"])
        with pytest.raises(UsageError):
            answers.show(store, "a-old", "analyst")
        assert answers.edges(store, "a-old", "analyst").empty
        assert "a-old" in set(answers.list_answers(store, "reviewer")["answer_id"])  # nothing lost
        assert SECRET in json.dumps(answers.show(store, "a-old", "reviewer"), default=str)
        assert not answers.edges(store, "a-old", "reviewer").empty
        # the SQL tool: the embedded store's filtered copies, PostgreSQL's row-level security
        seen = query_corpus(store, "analyst", "SELECT answer_id, quote FROM answer_edges").frame
        assert "a-old" not in set(seen["answer_id"]) and SECRET not in " ".join(seen["quote"].fillna(""))
        assert len(seen)  # the new answer's edges are there
        seen = query_corpus(store, "analyst", "SELECT answer_id, answer FROM answers").frame
        assert "a-old" not in set(seen["answer_id"]) and len(seen) == 2
        mine = query_corpus(store, "reviewer", "SELECT answer_id FROM answer_edges").frame
        assert "a-old" in set(mine["answer_id"])
    finally:
        store.close()


def test_a_new_format_answer_still_shows_to_every_reader_of_its_sources(location):
    """So does an old search answer: narrowed are only the routes whose old sources could miss a
    named document (follow, agent, unknown)."""
    loc, aid = location
    store = open_store(loc)
    try:
        assert "a-old-search" in set(answers.list_answers(store, "analyst")["answer_id"])
        assert aid in set(answers.list_answers(store, "analyst")["answer_id"])
        assert answers.show(store, aid, "analyst")
        assert not answers.edges(store, aid, "analyst").empty
        row = answers.get(store, aid, "reviewer")
        assert json.loads(row["versions"])[provenance.ANSWERS_FORMAT_KEY] == provenance.ANSWERS_FORMAT
    finally:
        store.close()


def test_opening_twice_changes_nothing_more(location):
    loc, _ = location
    for _ in range(2):
        store = open_store(loc)
        try:
            assert "a-old" not in set(answers.list_answers(store, "analyst")["answer_id"])
            assert "a-old" in set(answers.list_answers(store, "reviewer")["answer_id"])
        finally:
            store.close()
