"""What a linked block says about the identifier that led to it: a short verbatim quote.

The follow path's answer names each link ("ID.SC-4 also appears in sp800-37r2-draft.pdf p91");
the question usually asks what that document says there ("which tasks", "for what"). The quote
is the text around the identifier's mention inside the linked block: in a table of controls or
subcategories, the row the id belongs to (bounded by the neighbouring ids of the same kind, as
:func:`docintel.corpus.paths.idents.evidence_mentions` reads the start), in running text the
words either side of it. A list of ids of one kind ("164.308(a)(3)(ii)(A), 164.310(a)(2)(iv)")
counts as one mention, so its neighbours in the list do not cut the quote to nothing.
"""

from __future__ import annotations

import re

#: What may stand between two ids of one list.
_LIST_GAP = re.compile(r"^[\s,;&/§]*(?:(?:and|or)\b[\s,;&/§]*)?$", re.I)


def _runs(text: str, found: list, kind: str) -> list[tuple[int, int, list]]:
    """(start, end, mentions) of the runs of the (one family's) mentions ``found``: the ids of
    ``kind`` that form one list make one run, any other id of the family a run of its own."""
    runs: list[tuple[int, int, list]] = []
    for m in found:
        same = runs and all(x.ident.kind == kind for x in [*runs[-1][2], m])
        if same and _LIST_GAP.match(text[runs[-1][1] : m.start]):
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


def _family(kind: str) -> str:
    """Kinds of one family bound each other's rows (csf_category / csf_subcategory, control /
    control_family): the part of the kind's name before its first underscore."""
    return kind.split("_", 1)[0]


#: A sentence ends at . ! ? followed by space and something not lower-case (not "e.g. the").
_SENTENCE_END = re.compile(r"[.!?](?=\s+[^\sa-z])")
#: What may stand before an id that opens its row: bullets, numbering, brackets.
_ROW_OPEN = re.compile(r"^[\W\d_]*$")
#: What may stand after an id that labels the text following it ("PR.IP-9: Response plans").
_LABEL = re.compile(r"^\s*[:\u2013\u2014]")
#: What may stand after an id that closes its row (a bracketed "[Framework: ID.SC-4]").
#: Not a parenthesis inside a sentence ("(see AC-2) which applies"): a lower-case word after it.
_ROW_CLOSE = re.compile(r"^\s*[\])](?!\s*[a-z])")


def _sentence(text: str, found: list, lo: int, hi: int) -> tuple[int, int]:
    """(start, end) of the sentence(s) holding ``text[lo:hi]``; a full stop inside an
    identifier ("Rev. 5", "C.F.R.") ends nothing."""
    inside = [(m.start, m.end) for m in found]
    ends = [e.end() for e in _SENTENCE_END.finditer(text) if not any(a <= e.start() < b for a, b in inside)]
    start = max((e for e in ends if e <= lo), default=0)
    end = min((e for e in ends if e >= hi), default=len(text))
    return start, end


def _trim(text: str, lo: int, hi: int, *, cut_lo: bool, cut_hi: bool) -> str:
    """``text[lo:hi]`` with whitespace collapsed, a word cut in two at either end dropped (a cut
    is inside a word only when both characters beside it are letters or digits), stray brackets
    and separators at the ends dropped, and an ellipsis where ``cut_*`` says the text goes on."""
    part = text[lo:hi]
    if 0 < lo < len(text) and text[lo - 1].isalnum() and text[lo].isalnum():
        part = part.split(None, 1)[1] if len(part.split(None, 1)) > 1 else ""
    if 0 < hi < len(text) and text[hi - 1].isalnum() and text[hi].isalnum():
        part = part.rsplit(None, 1)[0] if len(part.rsplit(None, 1)) > 1 else ""
    part = " ".join(part.split()).lstrip("]);,: ").rstrip("[(;,: ")
    if not part:
        return ""
    return ("..." if cut_lo else "") + part + ("..." if cut_hi else "")


def _window(text: str, found: list, runs: list, i: int, reach: int) -> tuple[int, int, bool, bool]:
    """(lo, hi, cut at lo, cut at hi) of run ``i``'s quote: its row when the ids of its family
    mark rows (from the id to the next one when text follows it, from the previous one to the
    id when the id closes its row), else the sentence holding it; never past a neighbouring id
    of its family, nor more than ``reach`` characters either side. An id followed by a colon
    labels what follows it: its row starts at the id."""
    s, e, _ = runs[i]
    prev = runs[i - 1][1] if i > 0 else 0
    nxt = runs[i + 1][0] if i + 1 < len(runs) else len(text)
    sent_lo, sent_hi = _sentence(text, found, s, e)
    if _ROW_CLOSE.match(text[e:nxt]):  # "... assessments are conducted. [Framework: ID.SC-4]"
        close = e + _ROW_CLOSE.match(text[e:nxt]).end()
        lo, hi = prev, close
    elif _LABEL.match(text[e:nxt]) or _ROW_OPEN.match(text[max(prev, sent_lo) : s]):
        # "AC-2 Account management is ...", "... shared PR.IP-9: Response plans are ..."
        lo, hi = (s if _LABEL.match(text[e:nxt]) else max(prev, sent_lo)), nxt
    else:
        lo, hi = max(prev, sent_lo), min(nxt, sent_hi)
    cut_lo, cut_hi = lo < s - reach, hi > e + reach
    return max(lo, s - reach), min(hi, e + reach), cut_lo, cut_hi


def row_span(text: str, found: list, m) -> tuple[int, int, bool] | None:
    """(lo, hi, labels) of the row mention ``m`` marks in ``text`` (``found``: every identifier
    mention of ``text``), when the text marks it: from an id that labels what follows it
    ("ID.BE-5: Resilience requirements ...", ``labels`` true) to the next id of its family,
    from the previous one to an id that closes its row ("... conducted. [Framework: ID.SC-4]");
    None otherwise. Unclamped: the caller bounds its reach."""
    family = _family(m.ident.kind)
    runs = _runs(text, [x for x in found if _family(x.ident.kind) == family], None)
    i = next(k for k, (_, _, ms) in enumerate(runs) if m in ms)
    s, e, _ = runs[i]
    prev = runs[i - 1][1] if i > 0 else 0
    nxt = runs[i + 1][0] if i + 1 < len(runs) else len(text)
    close = _ROW_CLOSE.match(text[e:nxt])
    if close:
        return prev, e + close.end(), False
    return (s, nxt, True) if _LABEL.match(text[e:nxt]) else None


def link_quote(
    text: str | list[str], canonical: str, question_terms: set[str] | None = None, *, reach: int
) -> str:
    """The words around ``canonical``'s mention in ``text`` (its row, or its sentence: at most
    ``reach`` characters either side, the reach the start's mentions are read with); of several
    mentions, the one whose surroundings share most of ``question_terms`` (the first on
    a tie). ``text`` may be several blocks (in line order): each is quoted on its own, a
    quote never joins two blocks. Empty when ``text`` does not name it."""
    best, best_fit = "", -1
    for part in [text] if isinstance(text, str) else text:
        quote, fit = _best_quote(part, canonical, question_terms, reach)
        if quote and fit > best_fit:
            best, best_fit = quote, fit
    return best


def _best_quote(text: str, canonical: str, question_terms: set[str] | None, reach: int) -> tuple[str, int]:
    from docintel.corpus.index import query_terms
    from docintel.identifiers import clean, find_identifiers

    text = clean(text)
    # the mentions table already says the block names it: context-bound forms count here
    found = find_identifiers(text, series_named=True, permissive=True)
    mine = [m for m in found if m.ident.canonical == canonical]
    best, best_fit = "", -1
    for m in mine:
        family = _family(m.ident.kind)
        runs = _runs(text, [x for x in found if _family(x.ident.kind) == family], m.ident.kind)
        i = next(k for k, (s, e, ms) in enumerate(runs) if m in ms)
        lo, hi, cut_lo, cut_hi = _window(text, found, runs, i, reach)
        quote = _trim(text, lo, hi, cut_lo=cut_lo, cut_hi=cut_hi)
        words = _WORD.findall(_without_ids(text, found, lo, hi))
        if len(words) < MIN_WORDS:  # a run of ids ("PR.IP-8 PR.IP-9 PR.IP-10 ..."): says nothing
            continue
        fit = len(set(query_terms(quote)) & (question_terms or set()))
        if fit > best_fit:
            best, best_fit = quote, fit
    return best, best_fit


#: Where a quote divides into parts: bullets, semicolons, sentence ends (after a lower-case
#: word or a parenthesis, before a capital: not inside "Rev. 4", "C.F.R. §§", "e.g. the").
_PART = re.compile(r"\s+(?=[\u2022\u25aa\u25cf]\s)|(?<=;)\s+|(?:(?<=[a-z]{2}[.!?])|(?<=\)[.!?]))\s+(?=[A-Z])")


def fitted(quote: str, each: int, question_terms: set[str] | None = None) -> str:
    """``quote`` cut to at most ``each`` characters: its first part (the id and what it labels)
    kept, then its other parts (bullets, clauses, sentences) that share the most of
    ``question_terms`` (earlier first on a tie), in the quote's order, "..." where parts are
    left out. A row of references names the document the question asks about ("the HIPAA
    mapping") in its last item: cut at the end, the quote dropped it. Without question
    terms in the later parts the quote is cut at a word, as before."""
    if len(quote) <= each:
        return quote
    from docintel.corpus.index import query_terms

    parts = [p for p in _PART.split(quote) if p.strip()]
    fit = [len(set(query_terms(p)) & (question_terms or set())) for p in parts]
    if len(parts) < 2 or len(parts[0]) > each or not any(fit[1:]):
        return quote[:each].rsplit(None, 1)[0].rstrip(",;:") + "..."
    keep, size = {0}, len(parts[0])
    for i in sorted(range(1, len(parts)), key=lambda i: (-fit[i], i)):
        if fit[i] and size + len(parts[i]) + 4 <= each:
            keep.add(i)
            size += len(parts[i]) + 4
    out = ""
    for i, p in enumerate(parts):
        if i in keep:
            out += (" " if i - 1 in keep or not out else " ... ") + p
    return out.strip() + ("..." if len(parts) - 1 not in keep else "")


def capped(quotes: list[str], *, each: int, total: int, question_terms: set[str] | None = None) -> list[str]:
    """``quotes`` (in the answer's order) cut to at most ``each`` characters (:func:`fitted`) and
    to ``total`` characters together: the links past the budget keep their name and citation,
    not a quote."""
    out, left = [], total
    for q in quotes:
        if len(q) > each:
            q = fitted(q, each, question_terms)
        if len(q) > left:
            q = ""
        left -= len(q)
        out.append(q)
    return out
