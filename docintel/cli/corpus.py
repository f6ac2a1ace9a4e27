"""Corpus verbs: ingest, docs (list, remove), access, and ``ask`` / ``eval`` with ``--corpus``.

A verb module of :mod:`docintel.cli` (``add_parser(subparsers)`` registers them all; ``run(args)``
executes one). ``docintel.cli.corpus_argv`` turns
``ask ... --corpus STORE`` / ``eval ... --corpus STORE`` into the corpus verbs, so the
single-document ``ask PDF QUESTION`` keeps its arguments.
"""

from __future__ import annotations

import argparse
import json
import sys

from docintel.errors import UsageError


def _store_args(p, required: bool = True) -> None:
    p.add_argument("--corpus", required=required, metavar="STORE", help="store folder or postgresql:// DSN")
    p.add_argument("--docs", default=None, metavar="DIR", help="per-document cache of a Postgres store")


def _user_arg(p) -> None:
    p.add_argument("--as", dest="user", default=None, metavar="USER", help="read as USER (env DOCINTEL_USER)")


def add_parser(sub) -> None:
    p = sub.add_parser("ingest", help="ingest PDFs (files or folders) into a corpus store")
    p.add_argument("inputs", nargs="+", metavar="DIR")
    _store_args(p)
    p.add_argument("--group", action="append", default=None, help="group(s) that may read these documents")
    p.add_argument(
        "--groups", default=None, metavar="FILE", help="groups file: documents -> groups, users -> groups"
    )
    g = p.add_mutually_exclusive_group()
    g.add_argument("--workers", type=int, default=None, help="parse on a local Dask cluster of N workers")
    g.add_argument("--scheduler", default=None, help="Dask scheduler address (env DASK_SCHEDULER_ADDRESS)")
    p.add_argument("--layout", choices=["auto", "always", "never"], default=None)
    p.add_argument("--ocr", choices=["auto", "never"], default=None)
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(func=run, corpus_verb="ingest")

    p = sub.add_parser("docs", help="list the corpus documents a user may read; `docs remove DOCUMENT`")
    p.add_argument("docs_verb", nargs="?", choices=["list", "remove"], default="list")
    p.add_argument("document", nargs="?", help="remove: file name, doc_id or publication id")
    _store_args(p)
    _user_arg(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run, corpus_verb="docs")

    p = sub.add_parser("access", help="corpus access groups: grant, member, show")
    asub = p.add_subparsers(dest="access_verb", required=True)
    a = asub.add_parser("grant", help="let GROUP read DOCUMENT (file name, doc_id or publication id)")
    a.add_argument("document")
    a.add_argument("group")
    _store_args(a)
    a = asub.add_parser("member", help="add USER to GROUP")
    a.add_argument("member_user", metavar="USER")
    a.add_argument("group")
    _store_args(a)
    a = asub.add_parser("show", help="groups and documents (of one user with --as)")
    _store_args(a)
    _user_arg(a)
    p.set_defaults(func=run, corpus_verb="access")

    p = sub.add_parser("corpus-ask", help=argparse.SUPPRESS)
    p.add_argument("question")
    _store_args(p)
    _user_arg(p)
    p.add_argument("--backend", default=None, help="offline (default), openai, local, fake")
    p.add_argument("--top-k", type=int, default=None)
    p.add_argument(
        "--conversation", default=None, metavar="ID", help="chain this answer to conversation ID's last turn"
    )
    p.add_argument(
        "--router",
        default=None,
        choices=["rules", "llm"],
        help="rules (default, env DOCINTEL_ROUTER) or llm: the model proposes the path, validated in code",
    )
    p.add_argument(
        "--html",
        default=None,
        metavar="FILE",
        help="also write the answer, its evidence and (agent path) the exploration path as HTML",
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run, corpus_verb="ask")

    p = sub.add_parser("corpus-eval", help=argparse.SUPPRESS)
    p.add_argument("questions")
    _store_args(p)
    p.add_argument("--routes", default="search", help="comma-separated routes scored (default search)")
    p.add_argument(
        "--users", default="", help="also run every question as each of these users (access sweep)"
    )
    p.add_argument("--backend", default=None)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run, corpus_verb="eval")


def _open(args):
    from docintel.corpus import Corpus

    return Corpus(args.corpus, docs_dir=args.docs)


def _progress(done: int, total: int, name: str) -> None:
    end = "\n" if done == total or not sys.stderr.isatty() else ""
    print(f"\ringest: {done}/{total} {name[:50]:<50}", end=end, file=sys.stderr, flush=True)


def _ingest(args) -> int:
    from docintel.corpus.ingest import ingest
    from docintel.settings import pick

    if args.workers is not None and args.workers < 1:
        raise UsageError("--workers must be 1 or more")
    opts = {"layout": pick(args.layout, "layout", "auto"), "ocr": pick(args.ocr, "ocr", "auto")}
    s = ingest(
        args.corpus,
        args.inputs,
        group=args.group,
        groups_file=args.groups,
        workers=args.workers,
        scheduler=args.scheduler,
        parse_options=opts,
        progress=_progress,
        docs_dir=args.docs,
    )
    print(json.dumps(s.to_dict(), indent=2, default=str) if args.json else "\n".join(s.lines()))
    return 1 if s.failures and not s.parsed and not s.unchanged else 0


def _docs(args) -> int:
    from docintel.corpus.access import current_user

    c = _open(args)
    if args.docs_verb == "remove":
        if not args.document:
            raise UsageError("docs remove needs the DOCUMENT (file name, doc_id or publication id)")
        res = c.remove(args.document)
        print(
            json.dumps(res)
            if args.json
            else f"removed {', '.join(res['removed'])}; generation {res['generation']}"
        )
        return 0
    docs = c.documents(current_user(args.user))
    cols = ["file", "doc_id", "publication_id", "status", "pages", "version", "title"]
    if args.json:
        print(docs[cols].to_json(orient="records", force_ascii=False))
    elif docs.empty:
        print("no document you can access")
    else:
        for r in docs.itertuples(index=False):
            pub = r.publication_id if isinstance(r.publication_id, str) else "-"
            print(f"{r.file}  {pub}  {r.status}  {r.pages}p  v{r.version}  {str(r.title)[:60]}")
    return 0


def _access(args) -> int:
    from docintel.corpus.access import current_user

    c = _open(args)
    if args.access_verb == "grant":
        print(f"generation {c.grant(args.document, args.group)}")
    elif args.access_verb == "member":
        print(f"generation {c.member(args.member_user, args.group)}")
    else:
        user = current_user(args.user)
        if user:
            groups = c.groups(user)
            print(
                f"{user}: groups {', '.join(groups) or '(none)'}; reads {len(c.documents(user))} document(s)"
            )
        else:
            mem = c.store.table("members").groupby("grp")["usr"].apply(sorted).to_dict()
            acc = c.store.table("access").groupby("grp")["doc_id"].count().to_dict()
            for g in sorted(set(mem) | set(acc)):
                print(f"{g}: {acc.get(g, 0)} document(s); members {', '.join(mem.get(g, [])) or '(none)'}")
    return 0


def _ask(args) -> int:
    from docintel.corpus.access import current_user

    c = _open(args)
    out = c.ask(
        args.question,
        current_user(args.user),
        backend=args.backend,
        top_k=args.top_k,
        conversation=args.conversation,
        router=args.router,
    )
    if args.html:
        from docintel.corpus.agent.html import write_path_page

        write_path_page({"question": args.question, **out}, args.html)
    if args.json:
        print(json.dumps(out, indent=2, ensure_ascii=False, default=str))
        return 0
    print(out["answer"])
    for cit in out["citations"]:
        d = cit.get("document") or {}
        print(
            f"  [{d.get('file')} p.{cit['page']} l.{cit['line_start']}-{cit['line_end']}] {cit.get('quote', '')[:100]}"
        )
    for ref in out.get("corpus_references", []):
        print(f"  corpus reference: {ref['name']} -> {ref['document']['file']}")
    print(f"route: {out['route']}; completeness: {out['answer_completeness']}")
    if out.get("answer_id"):
        print(f"answer {out['answer_id']} (turn {out['turn']} of conversation {out['conversation']})")
    for w in out.get("warnings", []):
        if w.startswith("answer not stored"):
            print(f"warning: {w}", file=sys.stderr)
    return 0


def _eval(args) -> int:
    from docintel.corpus.evaluate import load_questions, run_eval

    c = _open(args)
    users = [u for u in args.users.split(",") if u]
    res = run_eval(
        c,
        load_questions(args.questions),
        routes=tuple(args.routes.split(",")),
        users=users,
        backend=args.backend,
    )
    if args.json:
        print(json.dumps(res, indent=2, ensure_ascii=False, default=str))
        return 0
    for r in res["rows"]:
        mark = "ok " if r["evidence_complete"] and not r["leaks"] else "MISS"
        print(
            f"{mark} {r['id']:<7} {r['user']:<9} {r['document']}  pages {r['pages']}  missing {r['missing']}"
            + (f"  LEAK {r['leaks']}" if r["leaks"] else "")
        )
    n = res["questions"] or 1
    print(
        f"evidence complete {res['evidence_complete']}/{res['questions']} ({100 * res['evidence_complete'] / n:.0f}%),"
        f" answer complete {res['answer_complete']}/{res['questions']}, route {res['route_ok']}/{res['questions']},"
        f" leaks {res['leaks']}; median ask {res['ask_seconds_median']}s"
    )
    if users:
        print(f"access sweep: {res['sweep_runs']} runs as {', '.join(users)}, leaks {res['sweep_leaks']}")
    return 0


def run(args) -> int:
    return {"ingest": _ingest, "docs": _docs, "access": _access, "ask": _ask, "eval": _eval}[
        args.corpus_verb
    ](args)
