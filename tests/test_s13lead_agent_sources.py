"""An agent answer that rests on a tool row naming no document (an ``sql`` row of block text) is
stored for its asker alone: its text may come from a document another user may not read, so no
list of sources is complete (session 13 last read, high finding). A re-anchored citation of an
asker-only answer stays asker-only."""

from __future__ import annotations

import json

import pytest

from docintel.corpus import answers, provenance
from docintel.corpus.agent import ScriptedModel
from docintel.corpus.agent import answer as agent_answer
from docintel.corpus.agent.model import AgentStep
from docintel.errors import UsageError
from tests.test_follow import SECRET, corpus  # noqa: F401  (the module's store fixture)

QUESTION = "Where are AC-2 accounts stored?"


def _sql_then_public(c) -> dict:
    model = ScriptedModel(
        [
            AgentStep(
                thought="text",
                tool="sql",
                arguments={"query": "SELECT text FROM blocks WHERE text LIKE '%AC-2%'"},
            ),
            AgentStep(thought="public", tool="cited_by", arguments={"document": "fips201.pdf"}),
            AgentStep(thought="done", tool="answer", answer="x", evidence=["L1#1", "L1#2", "L1#3", "L2#1"]),
        ]
    )
    out = agent_answer(c, QUESTION, "reviewer", model)
    sql_rows = next(e["rows"] for e in out["ledger"] if e["tool"] == "sql")
    assert SECRET in json.dumps(sql_rows)  # the reviewer's sql reads the reviewers-only document
    out["answer"] = " | ".join(r.get("text", "") for r in sql_rows)  # what a model would write
    return out


def test_an_agent_answer_on_an_sql_row_is_the_askers_alone(corpus):  # noqa: F811
    out = _sql_then_public(corpus)
    assert provenance.unattributed(out)
    row = answers.save(corpus.store, {**out, "question": QUESTION}, "reviewer")
    assert row["source_docs"] == ""
    with pytest.raises(UsageError):
        answers.show(corpus.store, row["answer_id"], "analyst")
    assert row["answer_id"] not in set(answers.list_answers(corpus.store, "analyst")["answer_id"])
    assert SECRET in json.dumps(answers.show(corpus.store, row["answer_id"], "reviewer"), default=str)


def test_tool_rows_name_their_documents():
    out = {
        "ledger": [
            {"tool": "cited_by", "rows": [{"citing_doc": "d1", "ident_id": "x"}]},
            {"tool": "cites", "rows": [{"ident_id": "x", "cited_docs": ["d2", "d3"]}]},
            {"tool": "search_blocks", "rows": [{"doc_id": "d4", "text": "t"}]},
        ],
        "exploration": {"nodes": [{"id": "doc:d5"}, {"id": "ident:x"}]},
    }
    assert not provenance.unattributed(out)
    assert set(provenance.source_doc_ids(out)) == {"d1", "d2", "d3", "d4", "d5"}
    out["ledger"].append({"tool": "sql", "rows": [{"n": 3}]})
    assert provenance.unattributed(out)


def test_a_reanchored_asker_only_row_stays_asker_only():
    assert provenance._with_source("", "new") == ""
    assert provenance._with_source("a|b", "new") == "a|b|new"


def test_an_agent_answer_citing_blocks_is_stored_with_their_line_spans(corpus):  # noqa: F811
    model = ScriptedModel(
        [
            AgentStep(thought="find", tool="search_blocks", arguments={"query": "AC-2 accounts"}),
            AgentStep(
                thought="done", tool="answer", answer="They are stored in the vault.", evidence=["L1#1"]
            ),
        ]
    )
    out = agent_answer(corpus, QUESTION, "reviewer", model)
    cited = out["citations"]
    assert cited and "line_start" not in cited[0]  # an agent cites a block by id only
    row = answers.save(corpus.store, {**out, "question": QUESTION}, "reviewer")  # raised KeyError
    edges = answers.edges(corpus.store, row["answer_id"], "reviewer")
    cites = edges[edges["kind"] == "CITES"]
    assert len(cites) == len(cited)
    assert set(cites["block_id"].astype(str)) == {str(c["block_id"]) for c in cited}
    assert (cites["line_start"].astype(int) <= cites["line_end"].astype(int)).all()
