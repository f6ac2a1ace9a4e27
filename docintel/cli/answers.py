"""``docintel answers``: stored corpus answers and their provenance (list, show, trace, check, report).

A verb module of :mod:`docintel.cli`; the work is in :mod:`docintel.corpus.answers`.
"""

from __future__ import annotations

import json

from docintel.cli.corpus import _store_args, _user_arg
from docintel.errors import UsageError


def add_parser(sub) -> None:
    p = sub.add_parser("answers", help="stored corpus answers: list, show, trace, check, report")
    asub = p.add_subparsers(dest="answers_verb", required=True)
    a = asub.add_parser("list", help="the stored answers you may read (newest first)")
    _store_args(a)
    _user_arg(a)
    a.add_argument("--about", default=None, metavar="ID", help="only answers about this identifier or record")
    a.add_argument("--json", action="store_true")
    for verb, text in (
        ("show", "the answer with each citation's passage text"),
        ("trace", "answer -> documents -> passages, and the chain of turns"),
    ):
        a = asub.add_parser(verb, help=text)
        a.add_argument("answer_id", metavar="ID")
        _store_args(a)
        _user_arg(a)
        a.add_argument("--json", action="store_true")
    a = asub.add_parser("check", help="re-anchor stored citations after re-ingestion (found/moved/gone)")
    _store_args(a)
    a.add_argument("--json", action="store_true")
    a = asub.add_parser("report", help="the HTML report of a stored answer, regenerated from the store")
    a.add_argument("answer_id", metavar="ID")
    _store_args(a)
    _user_arg(a)
    a.add_argument("--out", required=True, metavar="FILE.html")
    p.set_defaults(func=run)


def _open(args):
    from docintel.corpus import Corpus

    return Corpus(args.corpus, docs_dir=args.docs)


def _user(args):
    from docintel.corpus.access import current_user

    return current_user(args.user)


def _where(c: dict) -> str:
    return f"p.{c.get('page')} l.{c.get('line_start')}-{c.get('line_end')}"


def _list(args) -> int:
    from docintel.corpus.answers import list_answers

    rows = list_answers(_open(args).store, _user(args), about=args.about)
    cols = ["answer_id", "conversation", "turn", "usr", "question", "route", "completeness", "created_at"]
    if args.json:
        print(rows[cols].to_json(orient="records", force_ascii=False))
    elif rows.empty:
        print("no stored answer you can read")
    else:
        for r in rows.itertuples(index=False):
            print(f"{r.answer_id}  {r.created_at}  turn {r.turn} of {r.conversation}  {r.question[:70]}")
    return 0


def _show(args) -> int:
    from docintel.corpus.answers import show

    d = show(_open(args).store, args.answer_id, _user(args))
    if args.json:
        print(json.dumps(d, indent=2, ensure_ascii=False, default=str))
        return 0
    print(f"{d['answer_id']} (turn {d['turn']} of {d['conversation']}, {d['usr']}, {d['created_at']})")
    print(f"Q: {d['question']}\nA: {d['answer']}")
    for c in d["citations"]:
        fate = f", {c['fate']}" if c.get("fate") else ""
        print(f"  [{c['status']}{fate}] {c.get('doc_id')} {_where(c)}: {c.get('quote', '')[:100]}")
        print(f"      passage: {c['passage'][:300]}")
    return 0


def _trace(args) -> int:
    from docintel.corpus.answers import trace

    d = trace(_open(args).store, args.answer_id, _user(args))
    if args.json:
        print(json.dumps(d, indent=2, ensure_ascii=False, default=str))
        return 0
    print(f"{d['answer_id']}: {d['question']}")
    if d["about"]:
        print(f"  about: {', '.join(d['about'])}")
    for doc in d["documents"]:
        print(
            f"  -> {doc['target']} ({doc['doc_id']}, sha256 {str(doc.get('sha256'))[:12]}, {doc['status']})"
        )
        for p in doc["passages"]:
            print(f"     -> {p.get('block_id')} {_where(p)} [{p['status']}]: {p['passage'][:120]}")
    for v in d["via"]:
        print(f"  via {v['target']} ({v.get('via')})")
    for t in d["turns"]:
        mark = "*" if t["answer_id"] == d["answer_id"] else " "
        print(f" {mark}turn {t['turn']}: {t['answer_id']}  {t['question'][:70]}")
    return 0


def _check(args) -> int:
    from docintel.corpus.answers import check

    res = check(_open(args).store)
    if args.json:
        print(json.dumps(res, indent=2, ensure_ascii=False, default=str))
        return 0
    for r in res["citations"]:
        now = f" -> p.{r['now'][0]} l.{r['now'][1]}-{r['now'][2]} of {r['now_doc']}" if r["now"] else ""
        print(
            f"{r['fate']:<8} {r['answer_id']} p.{r['was'][0]} l.{r['was'][1]}-{r['was'][2]}{now}: {r['quote'][:70]}"
        )
    print(
        f"checked {res['checked']} citation(s): found {res['found']}, moved {res['moved']},"
        f" gone {res['gone']}, removed {res['removed']}"
    )
    return 0


def _report(args) -> int:
    """The single-document HTML report of the stored answer, from the stored citations (current
    edges of the answer's document) and that document's cached tables."""
    from docintel.corpus.answers import show
    from docintel.parsing import store as cache
    from docintel.report import write_html_report
    from docintel.schema.answer import Citation, ReferenceAwareAnswer
    from docintel.schema.result import AskResult

    c = _open(args)
    user = _user(args)
    d = show(c.store, args.answer_id, user)
    cites = [x for x in d["citations"] if x["status"] == "current"]
    doc_id = (cites[0]["doc_id"] if cites else None) or d.get("doc_id")
    docs = c.store.rows("documents", user, "t.doc_id = :d", {"d": doc_id}) if doc_id else None
    if docs is None or docs.empty or not isinstance(docs.iloc[0]["cache_dir"], str):
        raise UsageError(f"{args.answer_id}: its document is no longer in the store, so no report")
    tables = cache.load(docs.iloc[0]["cache_dir"])
    if tables is None:
        raise UsageError(f"{args.answer_id}: the document's parsed tables are missing; ingest it again")
    answer = ReferenceAwareAnswer(
        answer=d["answer"],
        citations=[
            Citation(
                doc_id=doc_id,
                page=x["page"],
                line_start=x["line_start"],
                line_end=x["line_end"],
                quote=x.get("quote", ""),
                retrieved_via=x.get("via")
                if x.get("via") in ("primary", "reference", "definition")
                else "primary",
            )
            for x in cites
            if x["doc_id"] == doc_id
        ],
        answer_completeness=d.get("completeness") or "partial",
    )
    result = AskResult(question=d["question"], doc_id=doc_id, answer=answer)
    out = write_html_report(result, docs.iloc[0]["path"], args.out, tables=tables)
    print(out)
    return 0


def run(args) -> int:
    return {"list": _list, "show": _show, "trace": _trace, "check": _check, "report": _report}[
        args.answers_verb
    ](args)
