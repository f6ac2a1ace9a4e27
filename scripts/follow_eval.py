"""Follow path vs search path on the follow questions of a corpus question set, plus an access sweep.

    python scripts/follow_eval.py --corpus /work/stores/h14 \
        --questions ../shared/corpus/nist/dev_questions.jsonl [--users analyst,reviewer] [--json]

For every question whose ``route`` is ``follow``, asked as its own user: evidence complete (every
``answer_must_contain`` string in the evidence text), none supplied (no ``must_not_contain``
string and no unreadable document anywhere in the response), the expected evidence pages found,
the blocks supplied, the ``answer_must_contain`` strings in the answer text and its length, for the follow path and for the search path in the same run. Then every
follow question is asked as each of ``--users``: a reviewer-only string is the text of a linked
block from a document the analyst may not read; none may reach the analyst's response.
Also reports the router's choice for every question of the set (follow chosen / not chosen).
"""

from __future__ import annotations

import argparse
import json
import sys
import time


def _pages(out: dict) -> set[tuple[str, int]]:
    return {((e.get("document") or {}).get("file"), int(e.get("page", -1))) for e in out.get("evidence", [])}


def _row(name: str, out: dict, q: dict, forbidden: list[str]) -> dict:
    from docintel.corpus.evaluate import norm, score

    s = score(out, q, forbidden)
    want = {(e["doc"], int(e["page"])) for e in q.get("evidence", [])}
    answer = norm(out.get("answer", ""))
    must = [norm(x) for x in q.get("answer_must_contain", [])]
    got = _pages(out)
    return {
        "path": name,
        "id": q["id"],
        "evidence_complete": s["evidence_complete"],
        "none_supplied": not s["leaks"],
        "missing": s["missing"],
        "leaks": s["leaks"],
        "pages_found": len(want & got),
        "pages_expected": len(want),
        "blocks": len(out.get("evidence", [])),
        "blocks_outside_expected": len(got - want),
        "links": [x["text"] for x in out.get("links", [])],
        # the answer text itself: what the links' quotes and the start's windows put in it
        "answer_strings": sum(x in answer for x in must),
        "strings_expected": len(must),
        "answer_chars": len(out.get("answer", "")),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--questions", required=True)
    ap.add_argument("--users", default="analyst,reviewer")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    from docintel.corpus import Corpus
    from docintel.corpus.evaluate import load_questions, norm, unreadable
    from docintel.corpus.paths import follow, search
    from docintel.corpus.router import rule_route

    qs = load_questions(args.questions)
    corpus = Corpus(args.corpus)
    routes = [(q["id"], q.get("route"), rule_route(q["question"]).path) for q in qs]
    rows, t_follow = [], []
    forbid: dict = {}
    fq = [q for q in qs if q.get("route") == "follow"]
    for q in fq:
        user = q.get("user")
        forbid.setdefault(user, unreadable(corpus, user))
        t0 = time.perf_counter()
        out_f = follow.run(corpus, q["question"], user)
        t_follow.append(time.perf_counter() - t0)
        out_s = search.run(corpus, q["question"], user)
        rows.append(_row("follow", out_f, q, forbid[user]))
        rows.append(_row("search", out_s, q, forbid[user]))
    users = [u for u in args.users.split(",") if u]
    sweep = []
    seen: set[str] = set()
    for q in fq:
        if q["question"] in seen:
            continue  # an access pair asks one question as two users
        seen.add(q["question"])
        outs = {u: follow.run(corpus, q["question"], u) for u in users}
        for u in users:
            forbid.setdefault(u, unreadable(corpus, u))
        for u in users:
            everything = norm(json.dumps(outs[u], ensure_ascii=False, default=str))
            hidden = set(forbid[u])
            secret = [  # linked text another user got from a document this user may not read
                e["text"][:80]
                for v, o in outs.items()
                if v != u
                for e in o.get("evidence", [])
                if e.get("retrieved_via") == "link" and (e.get("document") or {}).get("file") in hidden
            ]
            leaks = [s for s in [*forbid[u], *secret] if s and norm(s) in everything]
            sweep.append({"id": q["id"], "as": u, "checked": len(secret), "leaks": leaks})
    summary = {}
    for path in ("follow", "search"):
        r = [x for x in rows if x["path"] == path]
        summary[path] = {
            "questions": len(r),
            "evidence_complete": sum(x["evidence_complete"] for x in r),
            "none_supplied": sum(x["none_supplied"] for x in r),
            "pages_found": sum(x["pages_found"] for x in r),
            "pages_expected": sum(x["pages_expected"] for x in r),
            "blocks": sum(x["blocks"] for x in r),
            "blocks_outside_expected": sum(x["blocks_outside_expected"] for x in r),
            "answer_strings": sum(x["answer_strings"] for x in r),
            "strings_expected": sum(x["strings_expected"] for x in r),
            "answer_chars_median": sorted(x["answer_chars"] for x in r)[len(r) // 2] if r else None,
            "answer_chars_sum": sum(x["answer_chars"] for x in r),
        }
    summary["follow"]["ask_seconds_median"] = (
        round(sorted(t_follow)[len(t_follow) // 2], 3) if t_follow else None
    )
    summary["routing"] = {
        "follow_questions_routed_follow": sum(
            1 for _, want, got in routes if want == "follow" and got == "follow"
        ),
        "follow_questions": sum(1 for _, want, _ in routes if want == "follow"),
        "other_questions_routed_follow": [
            i for i, want, got in routes if want != "follow" and got == "follow"
        ],
        "other_questions": sum(1 for _, want, _ in routes if want != "follow"),
    }
    summary["access"] = {
        "runs": len(sweep),
        "reviewer_only_strings_checked": sum(s["checked"] for s in sweep),
        "leaks": sum(len(s["leaks"]) for s in sweep),
    }
    corpus.close()
    if args.json:
        print(json.dumps({"summary": summary, "rows": rows, "sweep": sweep}, indent=1, default=str))
        return 0
    for x in rows:
        print(
            f"{x['path']:<6} {x['id']:<7} complete={x['evidence_complete']!s:<5} none_supplied={x['none_supplied']!s:<5}"
            f" pages {x['pages_found']}/{x['pages_expected']} blocks {x['blocks']} (outside {x['blocks_outside_expected']})"
            f" missing={x['missing']} answer strings {x['answer_strings']}/{x['strings_expected']}"
            f" chars {x['answer_chars']}"
        )
        for link in x["links"]:
            print(f"         {link}")
    for s in sweep:
        print(f"access {s['id']:<7} as {s['as']:<9} checked {s['checked']} leaks {s['leaks']}")
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
