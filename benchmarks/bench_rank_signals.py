"""CPU cost of the first-hop signals for long documents (``retrieval/firsthop.py``) in ``retrieve``.

Usage:
    python benchmarks/bench_rank_signals.py [--artifacts DIR] [--repeat N]

For three long robust-corpus documents (``$DOCINTEL_SHARED``, default ``../shared``) and one
duration question each, times ``retrieve`` (process CPU, median of N) in one process, side by
side: with the overview-page and answer-type signals switched off, on (overview pages cached),
and on with the overview cache cleared before each call (a document's first question). Prints
the ratios to the run without them.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("DOCINTEL_SHARED", ROOT.parent / "shared"))
DOCS = {
    "eu_gdpr_council_position_first_reading_5419-16.pdf": "Within what time must the controller notify "
    "a personal data breach to the supervisory authority?",
    "cfr_title45_part164_hipaa_ecfr_print.pdf": "How soon must a covered entity notify affected "
    "individuals after discovering a breach?",
    "ietf_rfc6749_oauth2_plaintext_style.pdf": "How long should an authorization code live?",
}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--artifacts", default="artifacts")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()

    import docintel.retrieval.firsthop as firsthop
    import docintel.retrieval.rank as rank
    from docintel.api import parse
    from docintel.questions import parse_question
    from docintel.retrieval import retrieve
    from docintel.retrieval.bm25 import page_index

    on = (firsthop.overview_pages, firsthop.answer_type_first)
    off = (lambda tables: frozenset(), lambda *a: None)
    for name, question in DOCS.items():
        path = SHARED / "corpus" / "robust" / name
        if not path.exists():
            print(f"skip {name}: not found")
            continue
        tables = parse(path, layout="never", ocr="never", out_dir=args.artifacts)
        pq = parse_question(question)
        page_index(tables)
        retrieve(pq, tables)
        times: dict[str, list[float]] = {"off": [], "on": [], "first": []}
        for _ in range(args.repeat):
            for mode in times:
                rank.overview_pages, rank.answer_type_first = off if mode == "off" else on
                if mode == "first":
                    firsthop._OVERVIEW_CACHE.clear()
                t0 = time.process_time()
                retrieve(pq, tables)
                times[mode].append(time.process_time() - t0)
        rank.overview_pages, rank.answer_type_first = on
        med = {k: sorted(v)[len(v) // 2] for k, v in times.items()}
        print(
            f"{name[:44]:44s} {len(tables.page_df):4d} pages  retrieve CPU s: without {med['off']:.4f}  "
            f"with {med['on']:.4f} ({med['on'] / med['off']:.2f}x)  "
            f"first question {med['first']:.4f} ({med['first'] / med['off']:.2f}x)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
