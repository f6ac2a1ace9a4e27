"""``docintel links --corpus STORE ID --as USER``: where else an identifier is mentioned.

A verb module of :mod:`docintel.cli`. Any spelling of the id is accepted ("NIST.SP.800-53r4",
"AC-2 (1)"); the mentions are grouped by document, readable documents only.
"""

from __future__ import annotations

import json

from docintel.cli.corpus import _open, _store_args, _user_arg


def add_parser(sub) -> None:
    p = sub.add_parser("links", help="where else an identifier is mentioned in a corpus, by document")
    p.add_argument("ident", metavar="ID", help='an identifier in any spelling, e.g. "SP 800-53 Rev. 4"')
    _store_args(p)
    _user_arg(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run)


def run(args) -> int:
    from docintel.corpus.access import current_user
    from docintel.corpus.links import where_mentioned

    c = _open(args)
    try:
        found = where_mentioned(c.store, args.ident, current_user(args.user))
    finally:
        c.close()
    if args.json:
        print(json.dumps(found, ensure_ascii=False, default=str))
        return 0
    held = ", ".join(f"{h['file']} ({h['full']})" for h in found["held_by"]) or "no document you can read"
    print(f"{found['ident']} ({found['kind']}); the corpus document that is it: {held}")
    if not found["documents"]:
        print("mentioned in no document you can read")
    for d in found["documents"]:
        pages = ", ".join(str(p) for p in d["pages"][:12]) + (" ..." if len(d["pages"]) > 12 else "")
        revs = f"  cites Rev. {', '.join(d['revisions'])}" if d["revisions"] else ""
        print(f"{d['file']}  {d['mentions']} mention(s)  pages {pages}{revs}")
        print(f"    spelled: {'; '.join(d['spellings'][:6])}")
    return 0
