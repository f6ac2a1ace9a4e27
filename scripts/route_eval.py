"""Route accuracy over the NIST dev questions' labelled routes; every misroute listed.

    python scripts/route_eval.py [--questions ../shared/corpus/nist/dev_questions.jsonl] [--no-agent]

The router's rules are general (docintel/corpus/router.py); this script only measures them.
``--no-agent`` measures the default configuration without a tool-capable model, where an agent
proposal becomes follow (the expected route stays the label, so those count as misroutes).
"""

from __future__ import annotations

import argparse
import collections
import json
from pathlib import Path

from docintel.corpus.router import route

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "nist" / "dev_questions.jsonl"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--questions", default=str(DEFAULT))
    ap.add_argument("--no-agent", action="store_true", help="no tool-capable model configured")
    args = ap.parse_args()
    qs = [json.loads(line) for line in Path(args.questions).read_text().splitlines() if line.strip()]
    confusion: collections.Counter[tuple[str, str]] = collections.Counter()
    misroutes = []
    for q in qs:
        got, _span = route(q["question"], agent_available=not args.no_agent)
        confusion[(q["route"], got.path)] += 1
        if got.path != q["route"]:
            misroutes.append(f"  {q['id']}: expected {q['route']}, got {got.path} ({got.reason})")
    ok = sum(n for (want, got), n in confusion.items() if want == got)
    print(f"route accuracy: {ok}/{len(qs)} = {ok / len(qs):.1%} (agent available: {not args.no_agent})")
    for want in ("search", "list", "follow", "agent"):
        row = {g: confusion[(want, g)] for g in ("search", "list", "follow", "agent") if confusion[(want, g)]}
        print(f"  {want:>6}: {row}")
    print(f"misroutes: {len(misroutes)}")
    print("\n".join(misroutes))


if __name__ == "__main__":
    main()
