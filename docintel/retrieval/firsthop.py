"""First-hop signals for long documents: overview pages and the answer type a question asks for.

Long documents repeat a provision's words on pages that hold none of its text: a matrix or
crosswalk whose short lines point at the sections (the HIPAA eCFR print's Appendix A), an
overview that shares a question's words ("long-lived" in RFC 6749's 1.3.3 for "How long should
an authorization code live?"). :func:`overview_pages` finds the first kind (``rank`` ranks them
like back matter); :func:`answer_type_first` puts a page that states the asked-for answer type
(a duration) before close pages that state none.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import pandas as pd

from docintel.retrieval.bm25 import document_memo
from docintel.schema.document import DocTables
from docintel.schema.evidence import Candidate, ParsedQuestion
from docintel.text import STATED_DURATION

#: A line of at most this many words that names one of the document's own section numbers is a
#: pointer (a matrix row "Security Awareness and Training 164.308(a)"; prose citing a section
#: runs longer).
POINTER_WORDS = 8
#: A page with at least POINTER_LINES pointer lines, most of its lines short (SHORT_SHARE), is an
#: overview of the sections it points at. Set on the HIPAA eCFR print's Appendix A matrix (7
#: pointer lines on its first page); no page of the seven dev-eval PDFs qualifies.
POINTER_LINES = 5
SHORT_SHARE = 0.6


#: A section number a pointer line can name: dotted or dashed ("164.308", "4.1.2", "F.1.2",
#: "AC-7"), never a paragraph label ("(34)") or a plain decimal ("3.2", a value in a results table).
_SECTION_NUMBER = re.compile(r"(?:[A-Z]{1,3}-\d{1,3}|[A-Z]?\d{1,4}(?:[.\-]\d{1,4})+)[a-z]?")


def _pointer_numbers(toc: pd.DataFrame) -> tuple[re.Pattern, re.Pattern, set[tuple[int, int]]] | None:
    """Patterns for the toc's section numbers a pointer line names and for a line that opens
    with one (a heading), and the (page, line) where a section so numbered starts: a section's
    own heading names its number and points nowhere."""
    if toc is None or toc.empty:
        return None
    rows = toc[toc["number"].notna()]
    numbers = rows["number"].astype(str).str.strip().str.rstrip(".")
    ok = numbers.map(
        lambda n: bool(_SECTION_NUMBER.fullmatch(n)) and not re.fullmatch(r"\d{1,2}\.\d{1,2}", n)
    )
    if not ok.any():
        return None
    alts = "|".join(re.escape(n) for n in sorted(set(numbers[ok]), key=len, reverse=True))
    starts = {
        (int(p), int(ln))
        for p, ln in zip(rows["page_start"][ok], rows["line_start"][ok], strict=True)
        if pd.notna(p) and pd.notna(ln)
    }
    names = re.compile(rf"(?<![\w.])(?:{alts})(?![\w.]*\d)")
    # a heading opens with its number and its title, after a margin line number or "§" ("522
    # 2.2.5 Element <Issuer>", "§ 1308.41 Hearings"); a matrix cell holds the number alone
    opens = re.compile(rf"^\s*(?:\d{{1,5}}\s+)?(?:\u00a7\s*)?(?:{alts})(?![\w.]*\d)\.?\s+[^\W\d_]")
    return names, opens, starts


_OVERVIEW_CACHE: dict[tuple, frozenset[int]] = {}


def overview_pages(tables: DocTables) -> frozenset[int]:
    """Pages whose short lines point at many of the document's sections (a matrix, crosswalk or
    summary table): they repeat the provisions' names and words but hold none of their text.
    Computed once per document's tables (a scan of every line)."""
    key = (tables.doc_id, id(tables.line_df), len(tables.line_df) if tables.line_df is not None else 0)
    if key not in _OVERVIEW_CACHE:
        if len(_OVERVIEW_CACHE) > 32:
            _OVERVIEW_CACHE.clear()
        # a value of the document alone: kept (and stored) with its retrieval index when it has one
        _OVERVIEW_CACHE[key] = frozenset(
            document_memo(tables, "overview_pages", lambda: _overview_pages(tables))
        )
    return _OVERVIEW_CACHE[key]


def _overview_pages(tables: DocTables) -> set[int]:
    ldf = tables.line_df
    numbers = _pointer_numbers(tables.toc_df)
    if ldf is None or ldf.empty or numbers is None:
        return set()
    rx, opens, starts = numbers
    body = ldf[~ldf["role"].isin(("header", "footer", "page_number", "toc_entry"))]
    text = body["text"].astype(str)
    short = text.str.split().str.len() <= POINTER_WORDS
    own_heading = pd.Series(
        [(int(p), int(ln)) in starts for p, ln in zip(body["page"], body["line"], strict=True)],
        index=body.index,
    )
    pointer = short & ~own_heading & text.str.contains(rx) & ~text.str.contains(opens)
    n = pointer.groupby(body["page"]).sum()
    share = short.groupby(body["page"]).mean()
    return {int(p) for p in n.index if n[p] >= POINTER_LINES and share[p] >= SHORT_SHARE}


#: A page that states the asked-for answer type outranks a better-scoring page that does not
#: when it scores at least this share of that page (RFC 6749: 4.1.2 with "10 minutes" at 0.55
#: of the overview 1.3.3 that only shares "long-lived"; set there, no dev-eval question asks
#: for a duration).
ANSWER_TYPE_SHARE = 0.5
#: How many of the best pages are looked at for the answer type.
ANSWER_TYPE_POOL = 10


def answer_type_first(
    question: ParsedQuestion, tables: DocTables, candidates: Sequence[Candidate], rank_score: dict[int, float]
) -> None:
    """A question that asks for a duration is answered by a page that states one: each page
    without a duration that outranks the best close page with one ranks just after it
    (``rank_score`` lowered to that page's, in place; the reason is added). ``candidates``: any
    records with ``page`` and ``reasons`` (rank passes its rows before it builds Candidates); pages
    are unique, so ``in`` and ``is`` agree."""
    if question.answer_type != "duration":  # read once from the question's opening (questions.parse)
        return
    if tables.line_df is None or tables.line_df.empty:
        return
    pool = sorted(candidates, key=lambda c: (-rank_score[c.page], c.page))[:ANSWER_TYPE_POOL]
    ldf = tables.line_df
    pages = ldf[ldf["page"].isin({c.page for c in pool})]
    text = pages.groupby("page")["text"].apply(lambda t: " ".join(t.astype(str)))
    typed = [c for c in pool if STATED_DURATION.search(str(text.get(c.page, "")))]
    if not typed:
        return
    best = typed[0]
    for c in pool:
        if c is best:
            break
        if c not in typed and rank_score[best.page] >= ANSWER_TYPE_SHARE * rank_score[c.page]:
            rank_score[c.page] = rank_score[best.page]
            c.reasons.append(f"answer type: the question asks for a duration; page {best.page} states one")


#: The enacting formula that ends a law's preamble and opens its operative text: the EU's "HAVE
#: ADOPTED THIS REGULATION:" after the recitals, a bill's "Be it enacted", a contract's "NOW,
#: THEREFORE" after its "WHEREAS" recitals. Recitals paraphrase the provisions that follow
#: (GDPR recital 85 restates Article 33's "72 hours"), so they rank like back matter.
_ENACTING = re.compile(
    r"\bha(?:ve|s) adopted th(?:is|e present) (?:regulation|directive|decision)\b"
    r"|\bbe it enacted\b|^\W*now,? therefore\b",
    re.I,
)


def preamble_pages(tables: DocTables) -> frozenset[int]:
    """The pages before the page whose body states the enacting formula (none when no body line
    states one, or it is on the first page). A scan of every line: kept (and stored) with the
    document's retrieval index."""
    return frozenset(document_memo(tables, "preamble_pages", lambda: _preamble_pages(tables)))


def _preamble_pages(tables: DocTables) -> set[int]:
    ldf = tables.line_df
    if ldf is None or ldf.empty:
        return set()
    body = ldf[~ldf["role"].isin(("header", "footer", "page_number", "toc_entry"))]
    hit = body["text"].astype(str).str.contains(_ENACTING)
    if not hit.any():
        return set()
    first = int(body["page"][hit].min())
    return {int(p) for p in ldf["page"].unique() if int(p) < first}


__all__ = ["answer_type_first", "overview_pages", "preamble_pages"]
