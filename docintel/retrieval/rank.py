"""Rank pages for a parsed question: keyword pages + TOC pages + scope, merged (top-1 by default).

Signals, each normalised to 0..1 over the document's pages, then weighted (``WEIGHTS``):

- ``bm25``: BM25Okapi over each page's body-ish text (stemmed terms);
- ``phrase``: question bigrams (from its phrases) found as adjacent terms on the page, because
  real questions paraphrase and single tokens alone can prefer a page that only shares words;
- ``window``: idf mass of distinct question terms inside the best 12-line run of the page, so
  the paragraph that answers beats a page where the same words are scattered;
- ``toc``: sections whose title matches the question boost the pages of their range;
- ``definition``: for "What is X?" questions, pages where X is introduced ("... (X)", "X is",
  "called X", a glossary entry "X: ...");
- ``scope``: the region the question names ("Table 2", "Section 3.1", "page 8") when it exists.

Pages without text (image-only) rank last and are chosen only when no page has text.
"""

from __future__ import annotations

import re

import pandas as pd

from docintel.questions.parse import defined_term
from docintel.questions.text import is_number, normalize, terms
from docintel.retrieval.bm25 import PageIndex, bigrams, page_index, phrase_scores, window_scores
from docintel.schema.document import DocTables
from docintel.schema.evidence import Candidate, ParsedQuestion, Scope

#: Signal weights. Measured on the dev questions (see the retrieval report in docs/): BM25 and the
#: local window carry most of the ranking, phrases and TOC break ties, scope overrides when resolved.
WEIGHTS: dict[str, float] = {
    "bm25": 1.0,
    "window": 1.0,
    "phrase": 0.5,
    "toc": 0.3,
    "definition": 0.5,
    "scope": 3.0,
}
#: A TOC title must share at least this share of its idf mass with the question to count.
TOC_MIN_MATCH = 0.5


def query_terms(question: ParsedQuestion) -> list[str]:
    """The stemmed search terms of a parsed question: keywords, then numbers (deduplicated)."""
    out: dict[str, None] = {}
    for w in [*question.keywords, *question.numbers]:
        for t in terms(w) if not is_number(w) else [w]:
            out.setdefault(t, None)
    return list(out)


def phrase_bigrams(question: ParsedQuestion) -> set[tuple[str, str]]:
    out: set[tuple[str, str]] = set()
    for ph in question.phrases:
        out |= bigrams(terms(ph))
    return out


def retrieve(
    question: ParsedQuestion,
    tables: DocTables,
    *,
    top_k: int = 1,
    weights: dict[str, float] | None = None,
) -> list[Candidate]:
    """Every page of the document as a Candidate, best first; the ``top_k`` best have ``chosen=True``.

    Deterministic: ties are broken by page number. ``weights`` overrides :data:`WEIGHTS`
    (for experiments; the default is the measured setting).
    """
    w = {**WEIGHTS, **(weights or {})}
    index = page_index(tables)
    query = query_terms(question)
    qset = set(query)

    scope_pages, scope_note = resolve_scope(question.scope, tables) if question.scope else ([], "")
    if question.scope and not scope_pages:
        # The named region does not exist here ("Section 22" of a corpus, not of this document):
        # its words are still evidence, so search for them like any other term.
        query = [*query, *(t for t in terms(question.scope.text) if t not in qset)]
        qset = set(query)
    term = defined_term(question.text) if question.shape == "definition" else None
    definitions = definition_pages(tables, term) if term else {}

    bm25 = index.bm25_scores(query)
    phrases = phrase_scores(index, phrase_bigrams(question))
    windows = window_scores(index, qset)
    toc = toc_scores(tables, index, qset)

    bm25_n = _normalise({p: s for p, s in bm25.items()})
    phrase_n = _normalise({p: s for p, (s, _) in phrases.items()})
    window_n = _normalise({p: s for p, (s, _) in windows.items()})

    candidates = []
    for p in index.pages:
        scores = {
            "bm25": round(bm25_n[p], 4),
            "window": round(window_n[p], 4),
            "phrase": round(phrase_n[p], 4),
            "toc": round(toc.get(p, (0.0, ""))[0], 4),
            # Documents define a term where they first use it: the first such page counts most.
            "definition": (1.0 if p == min(definitions) else 0.5) if p in definitions else 0.0,
            "scope": 1.0 if p in scope_pages else 0.0,
        }
        total = sum(w[k] * v for k, v in scores.items())
        reasons = _reasons(
            p, index, qset, bm25[p], phrases[p][1], windows[p], toc.get(p), scope_note, scope_pages
        )
        if p in definitions:
            reasons.append(f"definition: '{term}' is introduced on line {definitions[p]}")
        if not index.has_text(p):
            reasons = ["no text on this page (image-only or empty): ranked last", *reasons]
        scores["bm25_raw"] = round(bm25[p], 4)
        candidates.append(Candidate(page=p, score=round(total, 4), scores=scores, reasons=reasons))

    candidates.sort(key=lambda c: (not index.has_text(c.page), -c.score, c.page))
    for c in candidates[: max(0, top_k)]:
        c.chosen = True
    return candidates


def _normalise(values: dict[int, float]) -> dict[int, float]:
    top = max(values.values(), default=0.0)
    return {p: (v / top if top > 0 else 0.0) for p, v in values.items()}


def _reasons(
    page, index: PageIndex, qset, bm25, phrase_hits, window, toc, scope_note, scope_pages
) -> list[str]:
    out = []
    matched = sorted(t for t in set(index.page_terms.get(page, [])) if t in qset)
    if bm25 > 0:
        out.append(f"keywords: {len(matched)}/{len(qset)} terms on the page ({', '.join(matched[:8])})")
    if window[0] > 0:
        out.append(f"densest match in the lines from {window[1]}")
    if phrase_hits:
        out.append("phrases: " + ", ".join(" ".join(b) for b in phrase_hits[:5]))
    if toc and toc[0] > 0:
        out.append(toc[1])
    if page in scope_pages:
        out.append(scope_note)
    return out


# --- TOC ---------------------------------------------------------------------------------------


def section_ranges(tables: DocTables) -> pd.DataFrame:
    """toc_df with page_end filled where the parser left it empty.

    A section ends where the next section of the same or a higher level starts
    (that page included: the heading may sit mid-page), else at the last page.
    """
    toc = tables.toc_df
    if toc is None or toc.empty:
        return pd.DataFrame(columns=["toc_id", "number", "title", "level", "page_start", "page_end"])
    toc = toc[toc["page_start"].notna()].reset_index(drop=True).copy()
    last_page = int(tables.page_df["page"].max()) if len(tables.page_df) else int(toc["page_start"].max())
    ends = []
    levels = toc["level"].fillna(1).astype(int).tolist()
    starts = toc["page_start"].astype(int).tolist()
    for i, row in toc.iterrows():
        if pd.notna(row.get("page_end")):
            ends.append(int(row["page_end"]))
            continue
        nxt = next((starts[j] for j in range(i + 1, len(toc)) if levels[j] <= levels[i]), last_page)
        ends.append(max(starts[i], nxt))
    toc["page_start"] = starts
    toc["page_end"] = ends
    return toc


def toc_scores(tables: DocTables, index: PageIndex, qset: set[str]) -> dict[int, tuple[float, str]]:
    """Per page: the best share of a matching section title's idf mass, with the reason."""
    out: dict[int, tuple[float, str]] = {}
    for row in section_ranges(tables).itertuples(index=False):
        title_terms = {
            t for t in terms(str(row.title or "")) if not is_number(t) and not re.fullmatch(r"[ivx]+", t)
        }
        if not title_terms or not (title_terms & qset):
            continue
        mass = sum(index.idf(t) for t in title_terms)
        share = sum(index.idf(t) for t in title_terms & qset) / mass
        if share < TOC_MIN_MATCH:
            continue
        note = f"toc: section '{row.title}' (pages {row.page_start}-{row.page_end}) matches the question"
        for p in range(int(row.page_start), int(row.page_end) + 1):
            if share > out.get(p, (0.0, ""))[0]:
                out[p] = (share, note)
    return out


# --- definitions ---------------------------------------------------------------------------------


def definition_pages(tables: DocTables, term: str) -> dict[int, int]:
    """Pages (-> first line) where ``term`` is introduced: "long name (TERM)", "TERM is/means ...",
    "called TERM", or a glossary line "TERM: ..." / "TERM - ...". Case-insensitive, whole words."""
    t = re.escape(" ".join(normalize(term).split())).replace(r"\ ", r"[\s\-]+")
    patterns = re.compile(
        rf"\(\s*{t}\s*\)"
        rf"|\b{t}\b\s*(?:\([^)]{{1,40}}\)\s*)?,?\s*(?:(?:is|are)\s+(?:an?|the|defined|called)|means|refers to|denotes"
        rf"|stands for)\b"
        rf"|\b(?:called|termed|known as|denoted(?: by)?|defined as)\s+(?:an?\s+|the\s+)?[\"']?{t}\b"
        rf"|^\s*{t}\s*(?::|-|–|—)",
        re.I,
    )
    lines = tables.line_df[~tables.line_df["role"].fillna("body").isin(["header", "footer", "page_number"])]
    out: dict[int, int] = {}
    for r in lines.itertuples(index=False):
        if int(r.page) not in out and patterns.search(normalize(str(r.text))):
            out[int(r.page)] = int(r.line)
    return out


# --- scope ---------------------------------------------------------------------------------------


def resolve_scope(scope: Scope, tables: DocTables) -> tuple[list[int], str]:
    """Physical pages of the region a question names, and a reason; ([], "") when not found.

    page -> page_df.printed_label, falling back to the physical page; table/figure/equation/
    appendix/annex -> object_registry (then a caption line "Table 2 ..."); section/clause ->
    toc_df by id, number or title prefix ("(q)(1)" falls back to "(q)").
    """
    kind, target = scope.kind, scope.target.strip()
    if kind == "page":
        return _page_scope(target, tables)
    if kind in ("table", "figure", "equation", "appendix", "annex"):
        pages = _object_scope(kind, target, tables)
        if not pages and kind in ("appendix", "annex"):
            pages = _section_scope(f"{kind} {target}", tables) or _section_scope(target, tables)
    else:
        pages = _section_scope(target, tables)
        while not pages and kind == "clause" and target.count("(") > 1:
            target = target[: target.rfind("(")]
            pages = _section_scope(target, tables)
    if not pages:
        return [], ""
    return pages, f"scope: {scope.text} is on page{'s' if len(pages) > 1 else ''} {_span(pages)}"


def _span(pages: list[int]) -> str:
    return str(pages[0]) if len(pages) == 1 else f"{pages[0]}-{pages[-1]}"


def _page_scope(target: str, tables: DocTables) -> tuple[list[int], str]:
    pdf = tables.page_df
    labels = pdf["printed_label"].astype("string").str.strip().str.lower() if len(pdf) else pd.Series([])
    hit = pdf.loc[labels == target.lower(), "page"] if len(pdf) else []
    if len(hit):
        p = int(hit.iloc[0])
        return [p], f"scope: printed page {target} is physical page {p}"
    if target.isdigit() and int(target) in set(pdf["page"].astype(int)):
        return [int(target)], f"scope: page {target} (no printed label {target}; physical page used)"
    return [], ""


def _object_scope(kind: str, target: str, tables: DocTables) -> list[int]:
    reg = tables.object_registry
    if reg is not None and len(reg):
        rows = reg[
            (reg["object_type"] == kind) & (reg["object_id"].astype("string").str.upper() == target.upper())
        ]
        if len(rows):
            r = rows.iloc[0]
            start = int(r["page"])
            end = int(r["page_end"]) if pd.notna(r["page_end"]) else start
            return list(range(start, max(start, end) + 1))
    # No registry entry: a caption-like line starting with the label ("Table 2: ...").
    caption = re.compile(rf"^\s*{re.escape(kind)}\s+{re.escape(target)}\b\s*[:.\-–—]?", re.I)
    lines = tables.line_df
    hits = lines[lines["text"].astype(str).str.match(caption)]
    return sorted(set(hits["page"].astype(int)))[:1]


def _section_scope(target: str, tables: DocTables) -> list[int]:
    toc = section_ranges(tables)
    if toc.empty:
        return []
    t = target.lower()
    ids = toc["toc_id"].astype("string").str.lower()
    numbers = toc["number"].astype("string").str.lower().str.rstrip(".") if "number" in toc else ids
    titles = toc["title"].astype("string").str.lower().str.strip()
    hit = toc[(ids == t) | (numbers == t) | titles.str.match(rf"^{re.escape(t)}\.?(?:\s|$)")]
    if hit.empty:
        return []
    r = hit.iloc[0]
    return list(range(int(r["page_start"]), int(r["page_end"]) + 1))


def explain(candidates: list[Candidate], n: int = 5) -> str:
    """A short human summary of the top ``n`` candidates (for logs and notebooks)."""
    rows = [
        f"p{c.page} {c.score:.3f}{' *' if c.chosen else ''}: {'; '.join(c.reasons)}" for c in candidates[:n]
    ]
    return "\n".join(rows)


__all__ = ["WEIGHTS", "explain", "query_terms", "resolve_scope", "retrieve", "section_ranges"]
