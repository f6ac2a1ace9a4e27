"""Prompts for model backends: a fixed base prompt, per-pass rules, per-instruction rules, and the
evidence rendered with line tags ('[p6 l28] text') so citations can point at lines.

Evidence that does not fit the context window is cut at line boundaries; pulled-in passages
(the reason a second pass exists) are kept first, and every cut line is reported.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

from docintel.schema.answer import ReferenceAwareAnswer
from docintel.schema.evidence import ParsedQuestion, Passage
from docintel.schema.kinds import PULLED_VIA

BASE_PROMPT = """You answer questions about one PDF document using ONLY the evidence lines given.
Each evidence line starts with a tag [pP lL]: page P, line L.
Rules:
- Use only the evidence. Never add outside knowledge. Copy numbers, names and phrases exactly.
- Cite every claim: page, line_start, line_end of the lines you used, and a short quote copied
  character for character from those lines.
- If an evidence line points elsewhere in the document ('see Table 3 row (E)', 'as described in
  Section 3.2', 'defined in Section 1.5', '[18]') and that target is NOT in the evidence and would
  change or complete the answer, list it in pending_references exactly as written, with the page
  and line where it is written, and set answer_completeness to 'references_unresolved'.
- Documents outside this PDF (e.g. 'SP 800-90', 'ISO 27001', '14 CFR 25.1707') go in
  external_references: name them, do not pretend to know their content.
- Conditions the answer depends on ('applies only if', 'provided that', 'unless') go in
  conditions and are stated in the answer.
- If the evidence does not answer the question, say so plainly and set answer_completeness to
  'not_found'. Do not guess."""

PASS_RULES: dict[int, str] = {
    1: "This is the first pass: the evidence is the best-matching region only. Flag pointers to "
    "regions that are not in the evidence rather than guessing what they say.",
    2: "This is a follow-up pass: passages marked 'pulled in because of ...' are the targets of "
    "references from the first pass. Use them to complete the answer, cite them, and do NOT list "
    "those references as pending again.",
}

INSTRUCTION_RULES: dict[str, str] = {
    "state_conditions": "State every condition the answer depends on explicitly in the answer "
    "text ('This applies only if ...') and list it in conditions.",
    "name_external": "Name every external document the answer relies on, in the answer text and "
    "in external_references, and say it was not consulted.",
}

CHARS_PER_TOKEN = 3.5  # conservative for English prose with numbers; no tokenizer dependency


def estimate_tokens(text: str) -> int:
    """Rough token count (characters / 3.5, rounded up)."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def passage_label(i: int, p: Passage) -> str:
    """'Passage 2: page 9, lines 1-38 (reference; pulled in because of 'Table 3 row (E)' on page 6, line 28)'."""
    why = p.note
    if not why and p.reference_text and p.referenced_from:
        why = (
            f"pulled in because of '{p.reference_text}' on page {p.referenced_from[0]}, "
            f"line {p.referenced_from[1]}"
        )
    tail = f"{p.retrieved_via}; {why}" if why else p.retrieved_via
    return f"=== Passage {i}: page {p.page}, lines {p.line_start}-{p.line_end} ({tail})"


@dataclass
class RenderedEvidence:
    text: str
    tokens: int
    cut_lines: list[tuple[int, int]] = field(default_factory=list)


def render_evidence(passages: list[Passage], budget_tokens: int | None = None) -> RenderedEvidence:
    """Evidence text with line tags, cut at line boundaries to ``budget_tokens``.

    Pulled-in passages get the budget first, then the others in their given order; within a
    passage lines are kept from the top. The kept text keeps the original passage order."""
    order = sorted(range(len(passages)), key=lambda i: passages[i].retrieved_via not in PULLED_VIA)
    keep: dict[int, int] = {}
    used = 0
    cut: list[tuple[int, int]] = []
    for i in order:
        p = passages[i]
        cost = estimate_tokens(passage_label(i + 1, p)) + 1
        n = 0
        for ln in p.lines:
            c = estimate_tokens(f"[p{ln.page} l{ln.line}] {ln.text}") + 1
            if budget_tokens is not None and used + cost + c > budget_tokens:
                break
            cost += c
            n += 1
        if n:
            keep[i] = n
            used += cost
        cut += [(ln.page, ln.line) for ln in p.lines[n:]]
    blocks = []
    for i, p in enumerate(passages):
        if i not in keep:
            continue
        rows = [passage_label(i + 1, p)] + [f"[p{ln.page} l{ln.line}] {ln.text}" for ln in p.lines[: keep[i]]]
        if keep[i] < len(p.lines):
            rows.append(f"[... {len(p.lines) - keep[i]} more lines cut to fit the context window]")
        blocks.append("\n".join(rows))
    text = "\n\n".join(blocks)
    return RenderedEvidence(text, estimate_tokens(text), cut)


def system_prompt(pass_no: int, instructions: list[str]) -> tuple[str, list[str]]:
    """The base prompt plus this pass's rules; also returns instructions it has no rule for."""
    rules = [PASS_RULES.get(pass_no, PASS_RULES[2])]
    unknown = []
    for name in instructions:
        rule = INSTRUCTION_RULES.get(name)
        if rule:
            rules.append(rule)
        else:
            unknown.append(name)
    return BASE_PROMPT + "\n\nFor this pass:\n" + "\n".join(f"- {r}" for r in rules), unknown


def schema_tokens() -> int:
    """Tokens the response model's JSON schema costs (instructor sends it with the request)."""
    return estimate_tokens(json.dumps(ReferenceAwareAnswer.model_json_schema()))


def build_messages(
    question: ParsedQuestion,
    passages: list[Passage],
    *,
    pass_no: int,
    instructions: list[str],
    context_window: int,
    max_tokens: int,
) -> tuple[list[dict], dict]:
    """Chat messages for one generation call and a report for the trace (token estimate, cut
    lines, unknown instructions)."""
    system, unknown = system_prompt(pass_no, instructions)
    head = f"Question: {question.text}\n\nEvidence:\n"
    fixed = estimate_tokens(system) + estimate_tokens(head) + schema_tokens() + 64  # 64: message framing
    budget = max(0, context_window - max_tokens - fixed)
    ev = render_evidence(passages, budget)
    messages = [
        {"role": "system", "content": system},
        {"role": "user", "content": head + ev.text},
    ]
    info = {
        "prompt_tokens_estimate": fixed + ev.tokens,
        "evidence_tokens_estimate": ev.tokens,
        "context_window": context_window,
        "max_tokens": max_tokens,
        "cut_lines": [list(x) for x in ev.cut_lines],
        "unknown_instructions": unknown,
    }
    return messages, info
