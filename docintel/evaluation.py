"""`docintel eval`: run a question set and score it as ../shared/eval/README.md defines.

Scores per question: evidence complete (every must-contain string in the final
evidence), answer complete (every string in the answer), loop precision (for
`direct` questions the second pass did not run), tokens of the final context,
and the same context size for a top-3-pages baseline, computed in the same run.
"""

from __future__ import annotations

import json
import re
import time
import unicodedata
from collections import defaultdict
from pathlib import Path

from docintel.errors import UsageError
from docintel.questions import parse_question
from docintel.schema.evidence import ParsedQuestion


def normalize(text: str) -> str:
    """NFKC (ligatures) and collapsed whitespace, as the eval rules say."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text or "")).strip()


def load_questions(path: str | Path) -> list[dict]:
    p = Path(path)
    if not p.is_file():
        raise UsageError(
            f"{p}: no such questions file; eval needs an evaluation set (questions JSONL and its PDFs,"
            " format in docs/evaluation.md), which the repository does not ship"
        )
    out = []
    for i, line in enumerate(p.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            q = json.loads(line)
        except ValueError as exc:
            raise UsageError(f"{p}:{i}: not a JSON line ({exc})") from exc
        for key in ("id", "pdf", "question"):
            if key not in q:
                raise UsageError(f"{p}:{i}: missing field {key!r}")
        out.append(q)
    return out


def check_pdfs(questions: list[dict], pdf_dir: Path) -> None:
    """Every PDF the questions name is in ``pdf_dir``, checked before the first (slow) parse."""
    if not pdf_dir.is_dir():
        raise UsageError(f"--pdf-dir {pdf_dir}: no such folder (the evaluation set's PDFs)")
    missing = sorted({q["pdf"] for q in questions if not (pdf_dir / q["pdf"]).is_file()})
    if missing:
        raise UsageError(
            f"--pdf-dir {pdf_dir} lacks {len(missing)} PDF(s) the questions name: {', '.join(missing[:3])}"
            + (" ..." if len(missing) > 3 else "")
        )


def contains_all(haystack: str, needles: list[str]) -> bool:
    h = normalize(haystack)
    return all(normalize(n) in h for n in needles)


def baseline_context(tables, question: str | ParsedQuestion, k: int = 3) -> str:
    """The context a top-k-pages RAG baseline would send: the k best pages, whole."""
    from docintel.retrieval import top_pages_baseline

    if not isinstance(question, ParsedQuestion):
        question = parse_question(question)
    return "\n".join(p.text for p in top_pages_baseline(tables, question, k=k))


def run_eval(
    questions_path: str | Path,
    pdf_dir: str | Path,
    *,
    backend: str | None = None,
    max_loops: int = 1,
    out: str | Path | None = None,
    baseline_k: int = 3,
    parse_options: dict | None = None,
    progress=None,
) -> dict:
    """Answer every question and return the scores (per kind and overall)."""
    from docintel.api import ask, parse
    from docintel.retrieval import count_tokens

    questions = load_questions(questions_path)
    pdf_dir = Path(pdf_dir)
    check_pdfs(questions, pdf_dir)
    rows = []
    out_f = open(out, "w") if out else None  # noqa: SIM115 - closed below
    tables_cache: dict[str, object] = {}
    try:
        for i, q in enumerate(questions, start=1):
            pdf = pdf_dir / q["pdf"]
            if q["pdf"] not in tables_cache:
                tables_cache[q["pdf"]] = parse(pdf, **(parse_options or {}))
            tables = tables_cache[q["pdf"]]
            t0 = time.perf_counter()
            question = parse_question(q["question"])  # parsed once: the ask and the baseline share it
            res = ask(
                pdf,
                question,
                backend=backend,
                max_loops=max_loops,
                tables=tables,
                write_trace=False,
                **(parse_options or {}),
            )
            secs = time.perf_counter() - t0
            obj = res.to_json_dict()
            evidence_text = "\n".join(e["text"] for e in obj["evidence"])
            must = q.get("answer_must_contain") or []
            base_text = baseline_context(tables, question, k=baseline_k)
            row = {
                "id": q["id"],
                "kind": q.get("kind", "unknown"),
                "evidence_complete": contains_all(evidence_text, must),
                "answer_complete": contains_all(obj["answer"], must),
                "loop_fired": obj["loop_count"] > 0,
                "tokens": count_tokens(evidence_text),
                "baseline_tokens": count_tokens(base_text),
                "baseline_evidence_complete": contains_all(base_text, must),
                "first_page": obj["passes"][0]["evidence"][0]["page"]
                if obj["passes"] and obj["passes"][0]["evidence"]
                else None,
                "first_hop_page": q.get("first_hop_page"),
                "seconds": round(secs, 3),
            }
            rows.append(row)
            if out_f:
                out_f.write(
                    json.dumps({"id": q["id"], **obj, "score": row}, ensure_ascii=False, default=str) + "\n"
                )
            if progress:
                progress(i, len(questions), row)
    finally:
        if out_f:
            out_f.close()
    return summarize(rows)


def summarize(rows: list[dict]) -> dict:
    by_kind: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by_kind[r["kind"]].append(r)
    groups = {k: _agg(v) for k, v in sorted(by_kind.items())}
    groups["overall"] = _agg(rows)
    return {"groups": groups, "rows": rows}


def _agg(rows: list[dict]) -> dict:
    n = len(rows)
    direct = [r for r in rows if r["kind"] == "direct"]
    tok = sum(r["tokens"] for r in rows)
    base = sum(r["baseline_tokens"] for r in rows)
    return {
        "n": n,
        "evidence_complete": sum(r["evidence_complete"] for r in rows) / n if n else 0.0,
        "answer_complete": sum(r["answer_complete"] for r in rows) / n if n else 0.0,
        "loop_fired": sum(r["loop_fired"] for r in rows) / n if n else 0.0,
        "loop_precision_direct": (sum(not r["loop_fired"] for r in direct) / len(direct)) if direct else None,
        "mean_tokens": tok / n if n else 0.0,
        "mean_baseline_tokens": base / n if n else 0.0,
        "token_ratio_vs_baseline": (tok / base) if base else None,
        "baseline_evidence_complete": sum(r["baseline_evidence_complete"] for r in rows) / n if n else 0.0,
    }


def format_summary(summary: dict) -> str:
    head = (
        f"{'group':<12}{'n':>4}{'evid':>7}{'answ':>7}{'loop':>7}{'direct-no-loop':>16}"
        f"{'tokens':>8}{'top3':>8}{'ratio':>7}{'top3-evid':>10}"
    )
    lines = [head, "-" * len(head)]
    for name, g in summary["groups"].items():
        lp = "-" if g["loop_precision_direct"] is None else f"{g['loop_precision_direct']:.0%}"
        ratio = "-" if g["token_ratio_vs_baseline"] is None else f"{g['token_ratio_vs_baseline']:.2f}"
        lines.append(
            f"{name:<12}{g['n']:>4}{g['evidence_complete']:>7.0%}{g['answer_complete']:>7.0%}"
            f"{g['loop_fired']:>7.0%}{lp:>16}{g['mean_tokens']:>8.0f}{g['mean_baseline_tokens']:>8.0f}"
            f"{ratio:>7}{g['baseline_evidence_complete']:>10.0%}"
        )
    lines.append(
        "evid/answ: evidence/answer complete; loop: second pass ran; tokens: mean final context;"
        " top3: mean top-3-pages baseline context; ratio = tokens/top3"
    )
    return "\n".join(lines)
