"""The agent path next to the search path on the corpus questions routed ``agent``.

    python scripts/agent_eval.py --corpus /work/stores/h15 \
        --questions ../shared/corpus/nist/dev_questions.jsonl --backend offline|local [--turns 6]

Per question: evidence complete (every expected (file, page) among the answer's evidence or
citations), turns, tool calls and seconds; for the agent path with a backend that is not
tool-capable, the fallback it took. The search path stands in for follow when follow is not
registered on this branch (said in the output). ``--record DIR`` keeps the model's replies.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path


def _pages(out: dict, files: dict) -> set[tuple[str, int]]:
    got = set()
    for item in (out.get("evidence") or []) + (out.get("citations") or []):
        doc = (item.get("document") or {}).get("file") or files.get(
            item.get("doc_id") or item.get("citing_doc")
        )
        if doc and item.get("page") is not None:
            got.add((doc, int(item["page"])))
    return got


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--questions", required=True)
    ap.add_argument("--backend", default="offline", choices=["offline", "local"])
    ap.add_argument("--turns", type=int, default=6)
    ap.add_argument("--record", default=None, help="folder for the model's recorded replies")
    args = ap.parse_args(argv)

    from docintel.corpus import Corpus
    from docintel.corpus.agent import BackendModel, Limits, answer
    from docintel.corpus.agent.model import RecordingModel
    from docintel.corpus.paths import PATHS

    corpus = Corpus(args.corpus)
    files = dict(
        zip(corpus.store.table("documents")["doc_id"], corpus.store.table("documents")["file"], strict=True)
    )
    qs = [json.loads(line) for line in Path(args.questions).read_text().splitlines() if line.strip()]
    qs = [q for q in qs if q.get("route") == "agent"]
    base = "follow" if "follow" in PATHS else "search"
    print(f"{len(qs)} agent questions; comparison path: {base}; backend: {args.backend}")
    rows = []
    for q in qs:
        want = {(e["doc"], int(e["page"])) for e in q.get("evidence") or []}
        t0 = time.perf_counter()
        ref = PATHS[base](corpus, q["question"], q.get("user"))
        ref_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        if args.backend == "local":
            from docintel.generation.backends.local_backend import LocalBackend

            model = RecordingModel(BackendModel(LocalBackend(timeout=120, max_retries=1)))
            out = answer(corpus, q["question"], q.get("user"), model, Limits(max_turns=args.turns))
            if args.record:
                model.save(Path(args.record) / f"agent_{q['id']}.json", question=q["question"],
                           limits={"max_turns": args.turns})  # fmt: skip
        else:
            out = PATHS["agent"](corpus, q["question"], q.get("user"), backend=None)
        secs = time.perf_counter() - t0
        row = {
            "id": q["id"],
            "agent_complete": want <= _pages(out, files),
            "agent_turns": (out.get("limits") or {}).get("turns_used"),
            "agent_tool_calls": (out.get("limits") or {}).get("tool_calls"),
            "agent_seconds": round(secs, 2),
            "agent_stop": out.get("stop_reason") or (out.get("agent_fallback") or {}).get("path"),
            "fallback": (out.get("agent_fallback") or {}).get("reason"),
            f"{base}_complete": want <= _pages(ref, files),
            f"{base}_seconds": round(ref_s, 2),
        }
        rows.append(row)
        print(json.dumps(row), flush=True)
    n = len(rows) or 1
    print(
        f"evidence complete: agent {sum(r['agent_complete'] for r in rows)}/{len(rows)}, "
        f"{base} {sum(r[f'{base}_complete'] for r in rows)}/{len(rows)}; "
        f"mean seconds agent {sum(r['agent_seconds'] for r in rows) / n:.2f}, "
        f"{base} {sum(r[f'{base}_seconds'] for r in rows) / n:.2f}"
    )
    corpus.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
