"""Windows of a target region: the lines of a section, object or page that pass 2 gives.

``best_window`` (a fixed number of lines around the question's words) and
``best_section_window`` (a budget in full-line equivalents, so a table's short cells count
their share; a long target as its opening plus windows covering the question's words).
"""

from __future__ import annotations

import functools
import math
import re

import pandas as pd

from docintel.retrieval.rank import query_terms
from docintel.schema.evidence import ParsedQuestion
from docintel.text import terms

_TOKEN = re.compile(r"[A-Za-z0-9]+")


def _score_lines(df: pd.DataFrame, q: ParsedQuestion | None) -> list[float]:
    if q is None or df.empty:
        return [0.0] * len(df)
    keys = {k.lower() for k in q.keywords}
    keys |= {w.lower() for p in q.phrases for w in _TOKEN.findall(p)}
    out = []
    for text in df["text"].tolist():
        toks = {t.lower() for t in _TOKEN.findall(text)}
        hits = sum(1 for k in keys if k in toks or any(t.startswith(k[:5]) for t in toks if len(k) > 5))
        out.append(float(hits) + sum(1.0 for n in q.numbers if n in text))
    return out


def best_window(
    df: pd.DataFrame, q: ParsedQuestion | None, max_lines: int, *, keep_first: int = 1
) -> pd.DataFrame:
    """The ``max_lines`` lines of ``df`` that best match ``q``: its first ``keep_first``
    line(s) (the heading) plus the contiguous window with the highest keyword score."""
    if len(df) <= max_lines:
        return df
    head = df.iloc[:keep_first]
    rest = df.iloc[keep_first:]
    width = max(max_lines - keep_first, 1)
    scores = _score_lines(rest, q)
    best, best_i, run = -1.0, 0, sum(scores[:width])
    for i in range(0, len(rest) - width + 1):
        if i:
            run += scores[i + width - 1] - scores[i - 1]
        if run > best:
            best, best_i = run, i
    return pd.concat([head, rest.iloc[best_i : best_i + width]])


#: Tokens of a full body line, the unit a section's line budget counts in: a short line (a
#: table cell "84.2", a list label) costs its share, so a table inside a section fits whole.
LINE_TOKENS = 10


def _line_costs(df: pd.DataFrame) -> list[float]:
    from docintel.retrieval.passage import count_tokens

    return [min(1.0, max(count_tokens(str(t)), 1) / LINE_TOKENS) for t in df["text"].tolist()]


#: A section target over this many times its budget (an appendix that is a 15-page table) is
#: given as its heading plus :data:`LONG_WINDOWS` separate windows where the question's rarer
#: words are, instead of one contiguous run that its introduction would win.
LONG_TARGET = 3
LONG_WINDOWS = 3
#: A word a chosen window holds counts this share for the next windows (coverage first).
COVERED_WEIGHT = 0.25


def _rarity_hits(
    df: pd.DataFrame, q: ParsedQuestion | None, line_terms=None
) -> tuple[list[set[str]], dict[str, float]]:
    """Per line, the question words it holds, and each word's rarity inside ``df`` (ln N/df).
    ``line_terms(page, line)`` gives a line's terms as the retrieval index holds them (None when
    it does not hold the line): the same ``terms`` of the same text, tokenised once per document."""
    if q is None or df.empty:
        return [set() for _ in range(len(df))], {}
    keys = {k for k in query_terms(q) if len(k) > 2 and not k.isdigit()}
    if line_terms is None:
        hits = [set(terms(str(text))) & keys for text in df["text"].tolist()]
    else:
        hits = []
        for text, page, line in zip(
            df["text"].tolist(), df["page"].tolist(), df["line"].tolist(), strict=True
        ):
            got = line_terms(page, line)
            hits.append(set(terms(str(text)) if got is None else got) & keys)
    freq = {k: sum(k in h for h in hits) for k in keys}
    return hits, {k: math.log((len(hits) + 1) / (freq[k] + 1)) for k in keys}


def _long_section_windows(
    df, q, budget: int, keep_first: int, costs: list[float], line_terms=None
) -> pd.DataFrame:
    """Heading plus up to :data:`LONG_WINDOWS` windows, each holding the most (rarity-weighted)
    distinct question words: a row naming "data-at-rest" beats prose repeating "subcategory"."""
    head, rest = df.iloc[:keep_first], df.iloc[keep_first:]
    costs = costs[keep_first:]
    hits, weight = _rarity_hits(rest, q, line_terms)
    room = max((budget - keep_first) // 2, 3)  # three windows: 1.5x the budget in all
    # the section's opening (what it is, how it is laid out) first, then where the words are
    start_end, spent = 0, 0.0
    while start_end < len(rest) and spent + costs[start_end] <= room:
        spent += costs[start_end]
        start_end += 1
    taken: list[tuple[int, int]] = [(0, max(start_end, 1))]
    for k in set().union(*hits[: max(start_end, 1)]):
        weight[k] *= COVERED_WEIGHT
    for _ in range(LONG_WINDOWS - 1):
        best, span, lo, spent = 0.0, None, 0, 0.0
        count: dict[str, int] = {}
        for hi in range(len(rest)):
            spent += costs[hi]
            for k in hits[hi]:
                count[k] = count.get(k, 0) + 1
            while spent > room and lo < hi:
                spent -= costs[lo]
                for k in hits[lo]:
                    count[k] -= 1
                lo += 1
            score = math.fsum(weight[k] for k, c in count.items() if c > 0)
            if score > best and not any(a < hi + 1 and lo < b for a, b in taken):
                best, span = score, (lo, hi + 1)
        if span is None:
            break
        span = _centred(span, hits, weight, costs, room, taken)
        taken.append(span)
        for k in set().union(*hits[span[0] : span[1]]):  # the next window seeks words not yet covered
            weight[k] *= COVERED_WEIGHT
    members = _code_members(rest, hits, weight, room)
    parts = [rest.iloc[a:b] for a, b in sorted(taken)]
    if members:
        parts.append(rest.iloc[members])
    out = pd.concat([head, *parts])
    return out[~out.index.duplicated()].sort_values(["page", "line"], kind="stable") if members else out


def _centred(span, hits, weight, costs, room, taken) -> tuple[int, int]:
    """The window rebuilt around its matching lines: the sliding scan keeps the earliest span of
    the best score, which ends on its last match, so the row that answers would be cut just
    after it. From the first to the last line with a scoring word, grown one line after, one
    before, alternately, within ``room`` and clear of the windows already taken."""
    lo, hi = span
    found = [k for k in range(lo, hi) if any(weight.get(w, 0.0) > 0 for w in hits[k])]
    if not found:
        return span
    a, b = found[0], found[-1] + 1
    spent = math.fsum(costs[a:b])
    free = lambda k: not any(x <= k < y for x, y in taken)  # noqa: E731
    grew = True
    while grew:
        grew = False
        if b < len(costs) and free(b) and spent + costs[b] <= room:
            spent, b, grew = spent + costs[b], b + 1, True
        if a > 0 and free(a - 1) and spent + costs[a - 1] <= room:
            spent, a, grew = spent + costs[a - 1], a - 1, True
    return a, b


#: "Governance (ID.GV)": a name the question uses, then the code the long target files its
#: members under ("ID.GV-1: ...", "ID.GV-2: ..."); a code is capitals, digits and dots.
_NAMED_CODE = re.compile(
    r"\b((?:[^\W\d_][\w-]*\s+){0,3}[^\W\d_][\w-]*)\s+\(([A-Z][A-Z0-9]{0,5}(?:\.[A-Z0-9]{1,6})*)\)"
)
#: Lines quoted from each member: the line opening with its code and the next one.
MEMBER_SPAN = 2


@functools.lru_cache(maxsize=1 << 16)
def _named_codes(text: str) -> tuple[tuple[frozenset[str], str], ...]:
    """(terms of the name, code) of each "Name (CODE)" in a line, kept per line text: a long
    target of a 600-page document is thousands of lines, searched again by every ask."""
    return tuple((frozenset(terms(m.group(1))), m.group(2)) for m in _NAMED_CODE.finditer(text))


def _code_members(rest: pd.DataFrame, hits: list[set[str]], weight: dict[str, float], room: int) -> list[int]:
    """Positions of the lines of a long target filed under the code of the rarest name the
    question uses ("Governance (ID.GV)" -> the lines opening "ID.GV-1", "ID.GV-2" ...): the
    members of a category spread over a long table, whatever window its words fell in. Each
    member gives :data:`MEMBER_SPAN` lines, all of them at most ``room`` lines."""
    texts = rest["text"].astype(str).tolist()
    best: tuple[float, int, str] | None = None
    for i, text in enumerate(texts):
        for name, code in _named_codes(text):
            named = name & hits[i]
            score = max((weight.get(k, 0.0) for k in named), default=0.0)
            if named and (best is None or score > best[0]):
                best = (score, i, code)
    if best is None:
        return []
    opens = re.compile(rf"^\s*{re.escape(best[2])}[-.]?\w*\s*[:.)]")
    out = [best[1]]
    for i, text in enumerate(texts):
        if opens.match(text):
            out += [k for k in range(i, min(i + MEMBER_SPAN, len(texts))) if k not in out]
        if len(out) >= room:
            break
    return sorted(out) if len(out) > 1 else []


def best_section_window(
    df: pd.DataFrame, q: ParsedQuestion | None, budget: int, *, keep_first: int = 1, line_terms=None
):
    """As :func:`best_window`, but the budget counts full-line equivalents (tokens /
    :data:`LINE_TOKENS`): the contiguous run of the best score whose cost fits ``budget``
    (``line_terms``: see :func:`_rarity_hits`)."""
    costs = _line_costs(df)
    if sum(costs) <= budget:
        return df
    if sum(costs) > LONG_TARGET * budget:
        return _long_section_windows(df, q, budget, keep_first, costs, line_terms)
    head, rest = df.iloc[:keep_first], df.iloc[keep_first:]
    costs, scores = costs[keep_first:], _score_lines(rest, q)
    room = max(budget - keep_first, 1)
    best, best_span, lo, run_cost, run_score = -1.0, (0, 0), 0, 0.0, 0.0
    for hi in range(len(rest)):
        run_cost += costs[hi]
        run_score += scores[hi]
        while run_cost > room and lo < hi:
            run_cost -= costs[lo]
            run_score -= scores[lo]
            lo += 1
        if run_score > best:
            best, best_span = run_score, (lo, hi + 1)
    a, b = best_span
    spent = sum(costs[a:b])
    while b < len(rest) and spent + costs[b] <= room:  # fill the budget: the lines after first
        spent += costs[b]
        b += 1
    while a > 0 and spent + costs[a - 1] <= room:
        a -= 1
        spent += costs[a]
    return pd.concat([head, rest.iloc[a:b]])


#: Question words a line must hold to be the one a source question's citation is read from.
CITED_LINE_HITS = 2


def cited_line(tables, q: ParsedQuestion, page: int) -> int | None:
    """The line of ``page`` that carries a citation (a bibliography key "[13]", a bracketed
    report id "[SP 800-90]", an outside document) and holds the most question words (at least
    :data:`CITED_LINE_HITS`; the earliest on a tie), for a question that asks which source says
    something: the first-hop window must hold it. None when no such line."""
    from docintel.refscan import references_in
    from docintel.retrieval.bm25 import body_lines
    from docintel.schema.evidence import EvidenceLine

    df = body_lines(tables, page)
    if df.empty:
        return None
    scores = dict(zip(df["line"].astype(int), _score_lines(df, q), strict=True))
    lines = [EvidenceLine(page=page, line=int(r.line), text=str(r.text), role=str(r.role or "body"))
             for r in df.itertuples(index=False)]  # fmt: skip
    cited = {r.line for r in references_in(lines) if r.ref_type in ("bib", "external")}
    best = max(sorted(cited), key=lambda n: scores.get(n, 0.0), default=None)
    return best if best is not None and scores.get(best, 0.0) >= CITED_LINE_HITS else None


#: Lines a reference-list entry runs over at most.
ENTRY_LINES = 4


def citation_entry(tables, surname: str, year: str) -> pd.DataFrame:
    """The reference-list lines of the entry an author-year citation names: after the document's
    References / Bibliography heading, the first line holding ``surname`` with ``year`` on it
    or the next line, to the line that closes the entry (a period), at most
    :data:`ENTRY_LINES`. Empty when the document has no such list or entry."""
    from docintel.retrieval.lookup import section_ranges
    from docintel.schema.kinds import NON_EVIDENCE_ROLES

    ranges = section_ranges(tables)
    refs = ranges[ranges["title"].astype(str).str.fullmatch(r"\s*(?:references|bibliography)\s*", case=False)]
    if refs.empty:
        return pd.DataFrame()
    start = int(refs["page_start"].min())
    lines = tables.line_df[~tables.line_df["role"].isin(NON_EVIDENCE_ROLES)].sort_values(["page", "line"])
    lines = lines[lines["page"] >= start].reset_index(drop=True)
    texts = lines["text"].astype(str).tolist()
    name = re.compile(rf"\b{re.escape(surname)}\b")
    for i, text in enumerate(texts):
        if not name.search(text) or year not in text + " " + (texts[i + 1] if i + 1 < len(texts) else ""):
            continue
        end = i
        while end + 1 < len(texts) and end - i + 1 < ENTRY_LINES and not texts[end].rstrip().endswith("."):
            end += 1
        if end == i and end + 1 < len(texts):  # "Name. 2016." alone: its title is on the next line
            end += 1
        return lines.iloc[i : end + 1]
    return pd.DataFrame()
