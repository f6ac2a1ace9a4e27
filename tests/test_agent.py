"""The agent path: every branch of the loop driven by a scripted model over a real (small) store."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from docintel.corpus import Corpus
from docintel.corpus import tools as T
from docintel.corpus.agent import Limits, ScriptedModel, answer
from docintel.corpus.agent.html import path_html
from docintel.corpus.agent.ledger import SHOW_CHARS, Ledger
from docintel.corpus.agent.model import RecordingModel, ReplayModel
from docintel.corpus.paths import PATHS
from docintel.corpus.store import Change
from tests.corpus_fixtures import DRAFT_SECRETS, make_corpus

RECORDINGS = Path(__file__).parent / "recordings"
Q = "How long are incident records kept, and which document does that rest on?"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("agent")
    folder = make_corpus(root / "in")
    loc = str(root / "store")
    from docintel.corpus import derive

    with pytest.MonkeyPatch.context() as mp:  # the identifier rows are injected below, alone
        mp.setattr(derive, "DERIVERS", ())
        Corpus.ingest(
            loc,
            [folder],
            parse_options={"layout": "never", "ocr": "never"},
            groups_file=folder / "groups.json",
        )
    return loc


@pytest.fixture(scope="module")
def corpus(built):
    """The store with identifier rows: 901 mentions SP 800-902 (and the draft 903, which
    'analyst' may not read); each document is its own identifier."""
    c = Corpus(built)
    docs = c.store.table("documents").set_index("file")["doc_id"]
    a, b, d = docs["sp800-901.pdf"], docs["sp800-902.pdf"], docs["sp800-903-draft.pdf"]
    blocks = c.store.table("blocks")
    first = {doc: blocks[blocks["doc_id"] == doc]["block_id"].iloc[-1] for doc in (a, b, d)}
    mentions = pd.DataFrame(
        [
            {"mention_id": "m1", "doc_id": a, "page": 3, "line": 1, "ident_id": "SP 800-902",
             "ident_full": "SP 800-902", "surface": "SP 800-902", "kind": "sp", "source": "text",
             "revision": None, "block_id": first[a]},
            {"mention_id": "m2", "doc_id": d, "page": 2, "line": 1, "ident_id": "SP 800-901",
             "ident_full": "SP 800-901", "surface": "SP 800-901", "kind": "sp", "source": "text",
             "revision": None, "block_id": first[d]},
        ]
    )  # fmt: skip
    identities = pd.DataFrame(
        [
            {"doc_id": x, "ident_id": i, "ident_full": i, "kind": "sp", "revision": None, "volume": None,
             "status": "final", "evidence": "cover"}
            for x, i in ((a, "SP 800-901"), (b, "SP 800-902"), (d, "SP 800-903"))
        ]
    )  # fmt: skip
    records = pd.DataFrame(
        [{"record_id": "r1", "record_type": "phase", "key": "1", "fields": "{}", "text": "Retention phase",
          "doc_id": a, "page": 3, "line_start": 1, "page_end": 3, "line_end": 2, "source": "extracted",
          "note": "", "block_id": first[a]},
         {"record_id": "r2", "record_type": "phase", "key": "1", "fields": "{}", "text": "Draft phase",
          "doc_id": d, "page": 2, "line_start": 1, "page_end": 2, "line_end": 2, "source": "extracted",
          "note": "", "block_id": first[d]}]
    )  # fmt: skip
    c.store.commit(Change(rows={"mentions": mentions, "identities": identities, "records": records}))
    c.ids = {"a": a, "b": b, "d": d}
    yield c
    c.close()


def _ctx(corpus, user="analyst"):
    return T.ToolContext(corpus, user)


def test_tools_on_empty_tables_return_nothing(tmp_path, monkeypatch):
    from docintel.corpus import derive

    monkeypatch.setattr(derive, "DERIVERS", ())  # a store whose records/mentions/identities are empty
    folder = make_corpus(tmp_path / "in")
    loc = str(tmp_path / "store")
    Corpus.ingest(
        loc, [folder], parse_options={"layout": "never", "ocr": "never"}, groups_file=folder / "groups.json"
    )
    c = Corpus(loc)
    ctx = _ctx(c)
    doc = c.store.readable_documents("analyst")["file"].iloc[0]
    assert T.TOOLS["lookup_identifier"].call(ctx, {"identifier": "SP 800-53"}).rows == []
    assert T.TOOLS["cites"].call(ctx, {"document": doc}).rows == []
    assert T.TOOLS["cited_by"].call(ctx, {"document": doc}).rows == []
    assert T.TOOLS["list_records"].call(ctx, {}).rows == []
    assert T.TOOLS["sql"].call(ctx, {"query": "SELECT count(*) AS n FROM mentions"}).rows == [{"n": 0}]
    c.close()


def test_traversal_forward_and_reverse_read_as_the_user(corpus):
    ids, ctx = corpus.ids, _ctx(corpus)
    fwd = T.TOOLS["cites"].call(ctx, {"document": "sp800-901.pdf"})
    assert fwd.rows[0]["ident_id"] == "SP 800-902" and fwd.rows[0]["cited_docs"] == [ids["b"]]
    assert ("ident:SP 800-902", "is", f"doc:{ids['b']}") in fwd.edges
    rev = T.TOOLS["cited_by"].call(ctx, {"document": "sp800-902.pdf"})
    assert [r["citing_doc"] for r in rev.rows] == [ids["a"]]
    # the draft cites 901, but analyst may not read the draft: it is not among the citers
    assert T.TOOLS["cited_by"].call(ctx, {"document": "sp800-901.pdf"}).rows == []
    reviewer = T.TOOLS["cited_by"].call(_ctx(corpus, "reviewer"), {"document": "sp800-901.pdf"})
    assert [r["citing_doc"] for r in reviewer.rows] == [ids["d"]]
    who = T.TOOLS["lookup_identifier"].call(ctx, {"identifier": "SP 800-902"})
    assert {r["relation"] for r in who.rows} == {"is", "mentioned_by"}
    recs = T.TOOLS["list_records"].call(ctx, {"record_type": "phase"})
    assert [r["record_id"] for r in recs.rows] == ["r1"]  # r2 is the draft's


def test_denied_target_reads_like_a_missing_one(corpus):
    ctx = _ctx(corpus)
    draft_block = corpus.store.table("blocks").query(f"doc_id == '{corpus.ids['d']}'")["block_id"].iloc[0]
    with pytest.raises(T.ToolError) as denied:
        T.TOOLS["get_block"].call(ctx, {"block_id": draft_block})
    with pytest.raises(T.ToolError) as missing:
        T.TOOLS["get_block"].call(ctx, {"block_id": "0000:1:1"})
    assert str(denied.value).split(":")[0] == str(missing.value).split(":")[0] == T.NOT_READABLE
    with pytest.raises(T.ToolError, match=T.NOT_READABLE):
        T.TOOLS["cites"].call(ctx, {"document": "sp800-903-draft.pdf"})
    hits = T.TOOLS["search_blocks"].call(ctx, {"query": "zebra review period mappings"})
    assert not any(s in r["text"] for r in hits.rows for s in DRAFT_SECRETS)


def _step(tool, **arguments):
    return {"thought": f"try {tool}", "tool": tool, "arguments": arguments}


def test_answered_with_path_and_evidence(corpus):
    model = ScriptedModel(
        [
            _step("search_blocks", query="incident handling records retention years"),
            _step("cites", document="sp800-901.pdf"),
            lambda msgs: {
                "thought": "enough",
                "tool": "answer",
                "answer": "Three years (SP 800-902).",
                "evidence": ["L1#1", "L2#1"],
            },  # fmt: skip
        ]
    )
    out = answer(corpus, Q, "analyst", model)
    assert out["route"] == "agent" and out["stop_reason"] == "answered" and not out["synthesized"]
    assert [t["action"] for t in out["turns"]] == ["search_blocks", "cites", "answer"]
    assert out["limits"]["tool_calls"] == 2 and out["limits"]["turns_used"] == 3
    assert all("seconds" in t and "tool_calls_so_far" in t for t in out["turns"])
    kinds = {n["id"].split(":")[0] for n in out["exploration"]["nodes"]}
    assert {"doc", "block", "ident"} <= kinds
    assert out["evidence"][0]["ledger_item"] == "L1#1" and out["evidence"][0]["block_id"]
    assert out["trace"]["exploration"] == out["exploration"]
    json.dumps(out)  # the whole answer is JSON
    # what the model was shown in turn 2 is the trimmed ledger entry, with its item id
    assert model.calls[1][-1]["content"].startswith("L1 search_blocks")
    assert "blocks(block_id" in model.calls[0][0]["content"]  # the SQL schema comes before any query
    html = path_html(out)
    assert 'data-node-id="doc:' in html and "turn 2" in html and "<svg" in html


def test_standalone_page(corpus, tmp_path):
    from docintel.corpus.agent.html import write_path_page

    model = ScriptedModel([_step("search_blocks", query="shredder", k="2")], synthesis={"answer": "<b>x</b>"})
    out = answer(corpus, Q, "analyst", model, Limits(max_turns=1))
    assert (
        out["ledger"][0]["arguments"] == {"query": "shredder", "k": "2"}
        and len(out["ledger"][0]["rows"]) <= 2
    )
    write_path_page(out, tmp_path / "p.html")
    page = (tmp_path / "p.html").read_text()
    assert "&lt;b&gt;x&lt;/b&gt;" in page and 'data-node-id="block:' in page


def test_turn_limit_forces_synthesis_from_the_whole_ledger(corpus):
    long_sql = "SELECT block_id, doc_id, repeat('tail ', 200) || 'TABLE-TAIL-END' AS text FROM blocks LIMIT 1"
    model = ScriptedModel(
        [
            _step("sql", query=long_sql),
            _step("search_blocks", query="destroyed shredder"),
            _step("search_blocks", query="destroyed shredder retention"),
        ],  # fmt: skip
        synthesis={"answer": "synthesized", "evidence": ["L1#1"]},
    )
    out = answer(corpus, Q, "analyst", model, Limits(max_turns=3))
    assert out["stop_reason"] == "turn_limit" and out["synthesized"] and out["answer"] == "synthesized"
    shown = model.calls[1][-1]["content"]
    assert "TABLE-TAIL-END" not in shown and "[full: L1#1]" in shown and len(shown) < SHOW_CHARS + 200
    synth = model.synth_calls[0][0]["content"]
    assert "TABLE-TAIL-END" in synth  # the ledger kept the row whole
    assert "turn limit" in out["warnings"][0]
    # the third turn's blocks overlap the second's: repeats are collapsed, not re-listed
    third = out["ledger"][2]
    assert third["repeats"] and synth.count(out["ledger"][1]["rows"][0]["block_id"]) == 1


def test_tool_error_sql_refused_and_repeat_are_results(corpus):
    model = ScriptedModel(
        [
            _step("search_blocks"),  # missing argument: a tool error
            _step("no_such_tool"),
            _step("sql", query="COPY blocks TO '/tmp/x.csv'"),
            _step("sql", query="WITH x AS (DELETE FROM blocks RETURNING *) SELECT * FROM x"),
            _step("sql", query="SELECT * FROM read_text('/etc/passwd')"),
            _step("sql", query="SELECT * FROM read_text('/etc/passwd')"),
        ],
        synthesis={"answer": "none found", "evidence": []},
    )
    out = answer(corpus, Q, "analyst", model, Limits(max_turns=6, max_tool_calls=10))
    results = [t.get("result") for t in out["turns"]]
    assert results == ["error", "error", "error", "error", "error", "repeat"]
    errors = [t.get("error", "") for t in out["turns"]]
    assert "bad arguments for search_blocks: query" in errors[0] and "no tool" in errors[1]
    assert all(e.startswith("SQL refused") for e in errors[2:5])
    assert out["turns"][-1]["item"] == "L5"  # the repeat is answered from the ledger item
    assert out["limits"]["tool_calls"] == 4  # the unknown tool and the repeat ran nothing
    assert len(corpus.store.table("blocks"))  # nothing was deleted
    assert out["answer"] == "none found"


def test_call_and_time_limits_and_model_failures(corpus):
    model = ScriptedModel([_step("search_blocks", query=f"records {i}") for i in range(5)], synthesis=None)
    out = answer(corpus, Q, "analyst", model, Limits(max_turns=6, max_tool_calls=2))
    assert out["stop_reason"] == "tool_call_limit" and out["limits"]["tool_calls"] == 2
    assert any("synthesis failed" in w for w in out["warnings"]) and out["evidence"]  # extractive fallback
    out = answer(corpus, Q, "analyst", ScriptedModel([]), Limits(max_seconds=0))
    assert out["stop_reason"] == "time_limit" and out["turns"] == []
    out = answer(corpus, Q, "analyst", ScriptedModel([RuntimeError("model down")], synthesis={"answer": "a"}))
    assert out["stop_reason"] == "model_error" and "model down" in out["turns"][0]["error"]


def test_ledger_pointers_and_collapse():
    led = Ledger()
    e1 = led.add(1, "t", {"a": 1}, [{"block_id": "b1", "text": "x" * 2000}])
    e2 = led.add(2, "t", {"a": 2}, [{"block_id": "b1", "text": "x" * 2000}, {"block_id": "b2", "text": "y"}])
    assert led.get("L1#1")["text"] == "x" * 2000 and led.get("L2") is e2 and led.get("L9#1") is None
    assert "[full: L1#1]" in led.shown(e1) and "(already in L1#1)" in led.shown(e2)
    assert [r for r, _ in led.new_rows()] == ["L1#1", "L2#2"] and led.tried("t", {"a": 1}) == "L1"


def test_without_a_tool_capable_model_the_path_says_so_and_falls_back(corpus):
    out = PATHS["agent"](corpus, Q, "analyst", backend=None)
    assert out["route"] in ("follow", "search") and out["agent_fallback"]["path"] == out["route"]
    assert any("tool-capable model" in w for w in out["warnings"])


def test_recorded_responses_replay(corpus, tmp_path):
    """A recording replays to the same turns; the stored recordings (tests/recordings/agent_*.json)
    replay over this store without error."""
    script = ScriptedModel(
        [
            _step("search_blocks", query="incident records three years"),
            _step("cited_by", document="sp800-902.pdf"),
        ],
        synthesis={"answer": "three years", "evidence": ["L1#1"]},
    )
    rec = RecordingModel(script)
    first = answer(corpus, Q, "analyst", rec, Limits(max_turns=2))
    rec.save(tmp_path / "r.json", question=Q)
    again = answer(corpus, Q, "analyst", ReplayModel(tmp_path / "r.json"), Limits(max_turns=2))
    assert [t["action"] for t in again["turns"]] == [t["action"] for t in first["turns"]]
    assert again["answer"] == first["answer"] and again["exploration"] == first["exploration"]
    for path in sorted(RECORDINGS.glob("agent_*.json")):
        data = json.loads(path.read_text())
        out = answer(corpus, data["question"], "analyst", ReplayModel(path), Limits(**data.get("limits", {})))
        assert out["turns"] and out["stop_reason"] in ("answered", "turn_limit", "tool_call_limit"), path.name
        assert out["limits"]["turns_used"] == len(data["replies"]) - (out["synthesized"] and 1), path.name


def test_backend_model_constrains_the_tool_name():
    """The adapter asks the backend for a step whose tool is one of the tools or 'answer'."""
    from pydantic import ValidationError

    from docintel.corpus.agent.model import BackendModel

    seen = []

    class Backend:
        name, kind, model = "stub", "model", "m"

        def _call(self, response_model, messages, max_tokens):
            seen.append(response_model)
            return response_model(thought="t", tool="sql", arguments={"query": "SELECT 1 AS x"}), None

    step = BackendModel(Backend()).step([{"role": "user", "content": "q"}])
    assert step.tool == "sql" and step.arguments == {"query": "SELECT 1 AS x"}
    with pytest.raises(ValidationError):
        seen[0](thought="t", tool="no_such_tool")


def test_ask_corpus_html_writes_the_answer_and_its_path(built, tmp_path):
    from docintel.cli import main

    page = tmp_path / "answer.html"
    rc = main(["ask", "--corpus", built, "--as", "analyst", Q, "--html", str(page)])
    assert rc == 0
    html = page.read_text()
    assert "Exploration path" in html and "<h3>Evidence</h3>" in html and "incident" in html.lower()
    assert not any(s in html for s in DRAFT_SECRETS)
