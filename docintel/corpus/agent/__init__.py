"""The agent path: a bounded tool loop over the corpus for multi-hop questions.

:func:`answer` runs :func:`~docintel.corpus.agent.loop.run_loop` with the user's
:class:`~docintel.corpus.tools.ToolContext` and shapes the ``ask --corpus --json`` object:
``answer``, ``evidence`` (the ledger rows the answer rests on, whole, each with its document and
``ledger_item``), ``exploration`` (nodes and edges by stable id), ``turns``, ``ledger``,
``limits`` and ``trace``. :func:`~docintel.corpus.agent.html.path_html` draws the path.
"""

from __future__ import annotations

from docintel.corpus.agent.loop import Limits, run_loop
from docintel.corpus.agent.model import (
    AgentModel,
    AgentStep,
    BackendModel,
    ScriptedModel,
    Synthesis,
    tool_capable,
)


def answer(corpus, question: str, user: str | None, model: AgentModel, limits: Limits | None = None) -> dict:
    from docintel.corpus.paths.search import doc_info
    from docintel.corpus.tools import ToolContext

    ctx = ToolContext(corpus, user)
    out = run_loop(ctx, question, model, limits)
    ledger = out.pop("_ledger")
    docs = ctx.documents().set_index("doc_id", drop=False)
    evidence = []
    for ref in out["evidence_items"]:
        row = ledger.get(ref)
        if not isinstance(row, dict):
            continue
        item = {"ledger_item": ref, **row}
        d = row.get("doc_id") or row.get("citing_doc")
        if d in docs.index:
            item["document"] = doc_info(docs.loc[d])
        evidence.append(item)
    cited = [e for e in evidence if e.get("block_id")]
    return {
        "question": question,
        "route": "agent",
        "answer": out["answer"],
        "answer_completeness": "complete" if out["answer"] and evidence else "partial",
        "citations": [
            {
                "doc_id": e["doc_id"],
                "page": e.get("page"),
                "block_id": e["block_id"],
                "document": e.get("document"),
            }
            for e in cited
        ],
        "evidence": evidence,
        "exploration": out["exploration"],
        "turns": out["turns"],
        "ledger": out["ledger"],
        "limits": out["limits"],
        "stop_reason": out["stop_reason"],
        "synthesized": out["synthesized"],
        "warnings": out["warnings"],
        "trace": {
            "route": "agent",
            "model": out["model"],
            "events": [{"event": "turn", **t} for t in out["turns"]],
            "exploration": out["exploration"],
            "timings": {"total": out["seconds"]},
        },
    }


__all__ = [
    "AgentModel",
    "AgentStep",
    "BackendModel",
    "Limits",
    "ScriptedModel",
    "Synthesis",
    "answer",
    "tool_capable",
]
