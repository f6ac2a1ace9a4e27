"""Scoring corpus answers against a question set (format of ``corpus/nist/dev_questions.jsonl``).

Strings are compared after NFKC, whitespace collapsing and lower-casing. Evidence complete:
every ``answer_must_contain`` string is in the final evidence text. Access: no
``must_not_contain`` string, and no file name or doc_id of a document the user may not read,
anywhere in the response (answer, evidence, citations, trace).
"""

from __future__ import annotations

import json
import time
import unicodedata
from pathlib import Path

from docintel.errors import UsageError


def norm(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).split()).lower()


def load_questions(path: str | Path) -> list[dict]:
    try:
        lines = Path(path).read_text().splitlines()
    except FileNotFoundError:
        raise UsageError(f"{path}: question file not found") from None
    out = []
    for i, line in enumerate(lines, 1):
        if line.strip():
            try:
                out.append(json.loads(line))
            except ValueError as exc:
                raise UsageError(f"{path}:{i}: not valid JSON ({exc})") from None
    return out


def unreadable(corpus, user: str | None) -> list[str]:
    """File names and doc_ids of the current documents ``user`` may not read (writer-side view)."""
    docs = corpus.store.table("documents")
    readable = set(corpus.store.readable_documents(user)["doc_id"])
    other = docs[~docs["doc_id"].isin(readable)]
    return [*other["file"].tolist(), *other["doc_id"].tolist()]


def score(out: dict, q: dict, forbidden: list[str]) -> dict:
    evidence = norm(" ".join(e.get("text", "") for e in out.get("evidence", [])))
    answer = norm(out.get("answer", ""))
    everything = norm(json.dumps(out, ensure_ascii=False, default=str))
    must = [norm(s) for s in q.get("answer_must_contain", [])]
    leaks = [s for s in q.get("must_not_contain", []) if norm(s) in everything]
    leaks += [s for s in forbidden if norm(s) in everything]
    return {
        "id": q["id"],
        "user": q.get("user"),
        "route": out.get("route"),
        "route_ok": out.get("route") == q.get("route"),
        "evidence_complete": all(s in evidence for s in must),
        "answer_complete": all(s in answer for s in must),
        "missing": [s for s in q.get("answer_must_contain", []) if norm(s) not in evidence],
        # found in the evidence, yet not in the answer text: the answer step's loss, not retrieval's
        "answer_missing": [
            s for s in q.get("answer_must_contain", []) if norm(s) in evidence and norm(s) not in answer
        ],
        "leaks": leaks,
        "document": (out.get("document") or {}).get("file"),
        "pages": sorted({e.get("page") for e in out.get("evidence", [])}),
    }


def run_eval(
    corpus, questions: list[dict], *, routes=("search",), users: list[str] | None = None, backend=None
):
    """Score the ``routes`` questions as their own user, then sweep every question as each user."""
    rows = []
    t_ask = []
    forbid = {}
    for q in questions:
        if q.get("route") not in routes:
            continue
        user = q.get("user")
        forbid.setdefault(user, unreadable(corpus, user))
        t0 = time.perf_counter()
        out = corpus.ask(q["question"], user, backend=backend, store_answer=False)
        t_ask.append(time.perf_counter() - t0)
        rows.append(score(out, q, forbid[user]))
    sweep = []
    for user in users or []:
        forbid.setdefault(user, unreadable(corpus, user))
        for q in questions:
            out = corpus.ask(q["question"], user, backend=backend, store_answer=False)
            # must-not strings apply to whoever cannot read every document
            checked = q if forbid[user] else {**q, "must_not_contain": []}
            s = score(out, checked, forbid[user])
            sweep.append({"id": q["id"], "as": user, "leaks": s["leaks"]})
    n = len(rows)
    return {
        "questions": n,
        "evidence_complete": sum(r["evidence_complete"] for r in rows),
        "answer_complete": sum(r["answer_complete"] for r in rows),
        "route_ok": sum(r["route_ok"] for r in rows),
        "leaks": sum(len(r["leaks"]) for r in rows),
        "ask_seconds_median": round(sorted(t_ask)[len(t_ask) // 2], 3) if t_ask else None,
        "sweep_runs": len(sweep),
        "sweep_leaks": sum(len(s["leaks"]) for s in sweep),
        "rows": rows,
        "sweep": [s for s in sweep if s["leaks"]],
    }
