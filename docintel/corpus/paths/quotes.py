"""What a linked block says about the identifier that led to it: a short verbatim quote.

The follow path's answer names each link ("ID.SC-4 also appears in sp800-37r2-draft.pdf p91");
the question usually asks what that document says there ("which tasks", "for what"). The quote
is the text around the identifier's mention inside the linked block: in a table of controls or
subcategories, the row the id belongs to (bounded by the neighbouring ids of the same kind, as
:func:`docintel.corpus.paths.follow.evidence_mentions` reads the start), in running text the
words either side of it. A list of ids of one kind ("164.308(a)(3)(ii)(A), 164.310(a)(2)(iv)")
counts as one mention, so its neighbours in the list do not cut the quote to nothing.
"""

from __future__ import annotations

import re

#: What may stand between two ids of one list.
_LIST_GAP = re.compile(r"^[\s,;&/§]*(?:(?:and|or)\b[\s,;&/§]*)?$", re.I)


def _runs(text: str, found: list, kind: str) -> list[tuple[int, int, list]]:
    """(start, end, mentions) of the runs of ``kind`` mentions in ``text`` that form one list."""
    runs: list[tuple[int, int, list]] = []
    for m in (x for x in found if x.ident.kind == kind):
        if runs and _LIST_GAP.match(text[runs[-1][1] : m.start]):
            s, _, ms = runs[-1]
            runs[-1] = (s, m.end, [*ms, m])
            continue
        runs.append((m.start, m.end, [m]))
    return runs


#: Words (of 3+ letters, outside identifiers) a quote needs to say something about the id.
MIN_WORDS = 4
_WORD = re.compile(r"[^\W\d_]{3,}")


def _without_ids(text: str, found: list, lo: int, hi: int) -> str:
    """``text[lo:hi]`` with every identifier mention blanked out."""
    chars = list(text[lo:hi])
    for m in found:
        for i in range(max(m.start, lo), min(m.end, hi)):
            chars[i - lo] = " "
    return "".join(chars)


def _trim(text: str, lo: int, hi: int) -> str:
    """``text[lo:hi]`` cut at whole words, with an ellipsis where it was cut."""
    part = text[lo:hi]
    if lo > 0 and not text[lo - 1].isspace():
        part = part.split(None, 1)[1] if len(part.split(None, 1)) > 1 else part
    if hi < len(text) and not text[hi].isspace():
        part = part.rsplit(None, 1)[0] if len(part.rsplit(None, 1)) > 1 else part
    part = " ".join(part.split())
    return ("..." if lo > 0 else "") + part + ("..." if hi < len(text) else "")


def link_quote(text: str, canonical: str, question_terms: set[str] | None = None, *, reach: int) -> str:
    """The words around ``canonical``'s mention in ``text`` (its row, or its sentence: at most
    ``reach`` characters either side, the reach the start's mentions are read with); of several
    mentions, the one whose surroundings share most of ``question_terms`` (the first on
    a tie). Empty when ``text`` does not name it."""
    from docintel.corpus.index import query_terms
    from docintel.identifiers import clean, find_identifiers

    text = clean(text)
    # the mentions table already says the block names it: context-bound forms count here
    found = find_identifiers(text, series_named=True, permissive=True)
    mine = [m for m in found if m.ident.canonical == canonical]
    if not mine:
        return ""
    best, best_fit = "", -1
    for m in mine:
        runs = _runs(text, found, m.ident.kind)
        i = next(k for k, (s, e, ms) in enumerate(runs) if m in ms)
        before = runs[i - 1][1] if i > 0 else 0
        after = runs[i + 1][0] if i + 1 < len(runs) else len(text)
        lo, hi = max(before, runs[i][0] - reach), min(after, runs[i][1] + reach)
        quote = _trim(text, lo, hi)
        words = _WORD.findall(_without_ids(text, found, lo, hi))
        if len(words) < MIN_WORDS:  # a run of ids ("PR.IP-8 PR.IP-9 PR.IP-10 ..."): says nothing
            continue
        fit = len(set(query_terms(quote)) & (question_terms or set()))
        if fit > best_fit:
            best, best_fit = quote, fit
    return best
