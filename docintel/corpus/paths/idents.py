"""Which identifiers the follow path follows: the ids its best evidence names, each with its
surroundings (its own row where the text marks rows), ranked by the question's terms in those
surroundings and by how rare the id is among the documents the user may read."""

from __future__ import annotations

import math
from collections import defaultdict

from docintel.corpus.paths.quotes import row_span

#: Identifiers followed: the best ones by relevance of their surroundings and rarity, at most
#: MAX_IDENTS, each at least FOLLOW_SHARE of the best one's score.
MAX_IDENTS = 3
FOLLOW_SHARE = 0.7
#: Characters either side of a mention read as its surroundings.
WINDOW = 200
#: Kinds not followed: the Framework named in words and bare families/categories link to nearly
#: everything, so they say nothing about which document completes the answer.
NOT_FOLLOWED = frozenset({"framework", "csf_category", "control_family"})


def evidence_mentions(items: list[dict], home: list[str]) -> list[tuple[object, str]]:
    """(mention, its surroundings) of every identifier the evidence names, in order.

    The surroundings run from the previous mention of the same kind to the next one (at most
    WINDOW characters either side); where the text marks rows (an id labelling what follows it,
    "ID.BE-5: ...", or closing its row, "... [Framework: ID.SC-4]") they are the id's own row
    (:func:`quotes.row_span`, the rule its quote is cut by), and no other id reaches into a row
    a label opens: in a table read column by column the subcategories' rows are theirs alone.
    """
    from docintel.identifiers import clean, find_identifiers

    out = []
    for item in items:
        text = clean(item.get("text", ""))
        found = find_identifiers(text, home=home, series_named=True)
        rows = [row_span(text, found, m) for m in found]
        labels = [m.start for m, r in zip(found, rows, strict=True) if r and r[2]]
        for m, row in zip(found, rows, strict=True):
            if m.ident.kind in NOT_FOLLOWED or m.ident.canonical in home:
                continue
            same = [x for x in found if x.ident.kind == m.ident.kind and x is not m]
            before = max([x.end for x in same if x.end <= m.start], default=0)
            after = min([x.start for x in same if x.start >= m.end], default=len(text))
            if row:  # a row the text marks is read on its own side: the row before a label is another's
                before, after = row[0], row[1]
            elif not text[text.rfind("\n", 0, m.start) + 1 : m.start].strip(" \t([•-"):
                before = (
                    m.start
                )  # an id opening a block (its section) opens its row: the text before is another's
            else:  # nor does an id reach into a row another id labels ("ID.GV-1: ..." before "AC-4")
                before = max([before, *(x for x in labels if x <= m.start)])
                after = min([after, *(x for x in labels if x >= m.end)])
            lo, hi = max(before, m.start - WINDOW), min(after, m.end + WINDOW)
            out.append((m, text[lo:hi]))
    return out


def terms(text: str) -> set[str]:
    """The index's query terms of ``text``."""
    from docintel.corpus.index import query_terms

    return set(query_terms(text))


def rank_idents(question: str, mentions: list[tuple[object, str]], docs_citing: dict[str, int], n_docs: int):
    """The identifiers worth following, best first: [(canonical, full, surface, score)].

    Score: the question's terms in the mention's surroundings (the outcome text next to a
    subcategory id, not the list of references after it) times the id's rarity among the
    documents the user may read (SP 800-53, cited everywhere, says little about which document
    completes this answer). Only ids mentioned elsewhere can lead anywhere.
    """
    qt = terms(question)
    bags = [(m, (terms(w) - terms(m.surface)) & qt) for m, w in mentions]
    n_windows = max(1, len(bags))
    seen: dict[str, int] = defaultdict(int)  # a question term next to every id tells them apart from nothing
    for _, bag in bags:
        for t in bag:
            seen[t] += 1
    best: dict[str, tuple[str, str, str, float]] = {}
    for m, bag in bags:
        c = m.ident.canonical
        k = docs_citing.get(c, 0)
        if k == 0:
            continue
        rel = sum(math.log(1 + n_windows / seen[t]) for t in bag)
        score = rel * math.log(1 + n_docs / k)
        if c not in best or score > best[c][3]:
            best[c] = (c, m.ident.full, m.surface, score)
    ranked = sorted(best.values(), key=lambda x: -x[3])
    if not ranked or ranked[0][3] <= 0:
        return []
    return [r for r in ranked[:MAX_IDENTS] if r[3] >= FOLLOW_SHARE * ranked[0][3]]
