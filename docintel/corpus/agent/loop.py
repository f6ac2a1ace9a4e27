"""The bounded tool loop: thought / action / result turns, then an answer.

Limits (each reported per turn): ``max_turns`` (default 6), ``max_tool_calls`` and
``max_seconds`` of wall time. When the model answers, the loop ends; when a limit is reached
first, the answer is synthesized from the WHOLE ledger (every distinct tool result, untrimmed),
not from the last messages. A tool's error, a refused query or a target the user may not read
is a result the model reads on the next turn. A repeated call (same tool, same arguments) is
answered from the ledger without running the tool again.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from docintel.corpus import tools as T
from docintel.corpus.agent.ledger import Ledger
from docintel.corpus.agent.model import AgentModel, AgentStep

DEFAULT_TURNS = 6
DEFAULT_TOOL_CALLS = 8
DEFAULT_SECONDS = 120.0

SYSTEM = (
    "You answer questions over a document corpus by calling tools, one per turn. Each turn reply "
    "with a thought (what is missing), then a tool and its arguments, or tool 'answer' with the "
    "answer and the ledger item ids ([L1#2]) it rests on. Use only what the tools returned.\n"
    "Tools:\n{catalog}"
)
SYNTHESIS = (
    "The turn limit is reached. Write the answer to the question from this evidence only, and "
    "list the item ids you used.\nQuestion: {question}\nEvidence (every tool result, whole):\n{evidence}"
)


@dataclass
class Limits:
    max_turns: int = DEFAULT_TURNS
    max_tool_calls: int = DEFAULT_TOOL_CALLS
    max_seconds: float = DEFAULT_SECONDS


class Exploration:
    """Visited nodes and edges, each with a stable id, in the order first visited."""

    def __init__(self) -> None:
        self.nodes: dict[str, dict] = {}
        self.edges: dict[tuple[str, str, str], dict] = {}

    def add(self, res: T.ToolResult, turn: int, item_id: str) -> None:
        for n in res.nodes:
            node = self.nodes.setdefault(n["id"], {**n, "first_turn": turn, "items": []})
            if node["label"] in ("", n["id"].partition(":")[2]) and n.get("label"):
                node["label"] = n["label"]
            if item_id not in node["items"]:
                node["items"].append(item_id)
        for src, rel, dst in res.edges:
            self.edges.setdefault(
                (src, rel, dst), {"source": src, "relation": rel, "target": dst, "turn": turn}
            )

    def to_json(self) -> dict:
        return {"nodes": list(self.nodes.values()), "edges": list(self.edges.values())}


def run_loop(ctx: T.ToolContext, question: str, model: AgentModel, limits: Limits | None = None) -> dict:
    """Run the loop for ``question`` as ``ctx.user``; the agent's part of the answer object."""
    limits = limits or Limits()
    t0 = time.perf_counter()
    ledger, path = Ledger(), Exploration()
    messages = [
        {"role": "system", "content": SYSTEM.format(catalog=T.tool_catalog(ctx.store))},
        {"role": "user", "content": question},
    ]
    turns: list[dict] = []
    calls = 0
    final: AgentStep | None = None
    stop = "turn_limit"
    for turn in range(1, limits.max_turns + 1):
        if calls >= limits.max_tool_calls:
            stop = "tool_call_limit"
            break
        if time.perf_counter() - t0 >= limits.max_seconds:
            stop = "time_limit"
            break
        t_turn = time.perf_counter()
        record: dict = {"turn": turn}
        try:
            step = model.step(messages)
        except Exception as exc:  # noqa: BLE001 - a model failure ends the loop, said in the answer
            record.update(action="model_error", error=f"{type(exc).__name__}: {exc}")
            turns.append(_close(record, t_turn, t0, calls))
            stop = "model_error"
            break
        record.update(thought=step.thought, action=step.tool, arguments=step.arguments)
        if step.tool == "answer":
            final = step
            turns.append(_close(record, t_turn, t0, calls))
            stop = "answered"
            break
        shown = _act(ctx, ledger, path, turn, step, record)
        calls += int(record.get("ran", False))
        messages += [
            {"role": "assistant", "content": step.model_dump_json(include={"thought", "tool", "arguments"})},
            {"role": "user", "content": shown},
        ]
        turns.append(_close(record, t_turn, t0, calls))
    synthesized = final is None
    answer, used, warnings = _answer(model, question, ledger, final, stop)
    return {
        "answer": answer,
        "stop_reason": stop,
        "synthesized": synthesized,
        "evidence_items": used,
        "turns": turns,
        "ledger": ledger.to_json(),
        "exploration": path.to_json(),
        "limits": {**limits.__dict__, "turns_used": len(turns), "tool_calls": calls},
        "seconds": round(time.perf_counter() - t0, 3),
        "warnings": warnings,
        "model": model.name,
        "_ledger": ledger,
    }


def _close(record: dict, t_turn: float, t0: float, calls: int) -> dict:
    record["seconds"] = round(time.perf_counter() - t_turn, 4)
    record["elapsed"] = round(time.perf_counter() - t0, 4)
    record["tool_calls_so_far"] = calls
    return record


def _act(ctx, ledger: Ledger, path: Exploration, turn: int, step: AgentStep, record: dict) -> str:
    """Run the step's tool (or answer a repeat from the ledger); the text the model is shown."""
    before = ledger.tried(step.tool, step.arguments)
    if before is not None:
        record.update(result="repeat", item=before)
        return f"You already called {step.tool} with these arguments: the result is {before}. Try something else."
    tool = T.TOOLS.get(step.tool)
    if tool is None:
        entry = ledger.add(
            turn, step.tool, step.arguments, [], error=f"no tool {step.tool!r}; tools: {', '.join(T.TOOLS)}"
        )
        record.update(result="error", item=entry.item_id, error=entry.error)
        return ledger.shown(entry)
    record["ran"] = True
    try:
        res = tool.call(ctx, step.arguments)
    except T.ToolError as exc:
        entry = ledger.add(turn, step.tool, step.arguments, [], error=str(exc))
        record.update(result="error", item=entry.item_id, error=entry.error)
        return ledger.shown(entry)
    except Exception as exc:  # noqa: BLE001 - an unexpected tool failure is reported, the loop goes on
        entry = ledger.add(turn, step.tool, step.arguments, [], error=f"{type(exc).__name__}: {exc}")
        record.update(result="error", item=entry.item_id, error=entry.error)
        return ledger.shown(entry)
    entry = ledger.add(turn, step.tool, step.arguments, res.rows, note=res.note)
    path.add(res, turn, entry.item_id)
    record.update(result="ok", item=entry.item_id, rows=len(res.rows), repeated=len(entry.repeats),
                  nodes=list(dict.fromkeys(n["id"] for n in res.nodes)))  # fmt: skip
    return ledger.shown(entry)


def _answer(model, question: str, ledger: Ledger, final: AgentStep | None, stop: str):
    """(answer text, ledger ids used, warnings): the model's answer, or one synthesized from the ledger."""
    warnings: list[str] = []
    if final is not None:
        used = [r for r in final.evidence if ledger.get(r) is not None]
        return final.answer, used or [ref for ref, _ in ledger.new_rows()], warnings
    warnings.append(f"stopped by {stop.replace('_', ' ')}: the answer is synthesized from the whole ledger")
    evidence = ledger.full_text()
    msgs = [{"role": "user", "content": SYNTHESIS.format(question=question, evidence=evidence or "(none)")}]
    try:
        out = model.synthesize(msgs)
        used = [r for r in out.evidence if ledger.get(r) is not None]
        return out.answer, used or [ref for ref, _ in ledger.new_rows()], warnings
    except Exception as exc:  # noqa: BLE001 - no synthesis: the evidence itself is the answer
        warnings.append(f"synthesis failed ({type(exc).__name__}): the answer lists the evidence found")
        rows = ledger.new_rows()
        texts = [str(r.get("text") or "") for _, r in rows if r.get("text")]
        return (
            (" ".join(t[:300] for t in texts[:3]) or "No evidence was found."),
            [ref for ref, _ in rows],
            warnings,
        )
