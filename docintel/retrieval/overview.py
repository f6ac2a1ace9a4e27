"""Evidence for an overview question, read off the document's structure, not searched for.

"What is this document about?" has no topic to rank pages on; the answer is the document's
shape: its title (the largest-type lines of the first page with text), its abstract or
summary (a ``toc_df`` section so titled, or a line that opens with the label, "SUMMARY: ..."),
else its first section (Introduction, Purpose, Scope ..., or section 1), and its top-level
contents. "Summarize section 3" / "What does Appendix B cover?" gets the scope's opening
lines and its sub-section titles. Each part is a Passage whose ``note`` names it; what could
not be found is returned as ``missing`` so the answer can say it is partial.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import pandas as pd

from docintel.retrieval.lookup import appendix_sections, find_sections
from docintel.retrieval.targets import evidence_lines, section_lines, to_passages
from docintel.schema.document import DocTables
from docintel.schema.evidence import ParsedQuestion, Passage
from docintel.schema.kinds import HEADING_ROLES

#: Section titles (or inline labels) that summarise the whole document, several languages.
SUMMARY_TITLES = (
    "abstract", "executive summary", "summary", "synopsis", "overview", "résumé", "resume",
    "zusammenfassung", "kurzfassung", "resumen", "riassunto", "sommario", "sumário", "resumo",
    "samenvatting", "streszczenie", "摘要", "概要", "要旨", "要約", "요약", "초록", "개요",
)  # fmt: skip
#: Titles of the section that opens the body, when there is no summary.
FIRST_SECTION_TITLES = (
    "introduction", "purpose", "scope", "background", "preface", "foreword", "einleitung", "vorwort",
    "avant propos", "préface", "prólogo", "prefazione",
    "einführung", "introducción", "introduzione", "inleiding", "wprowadzenie", "введение",
    "引言", "前言", "はじめに", "序論", "서론", "머리말",
)  # fmt: skip
_INLINE_LABEL = re.compile(
    r"^\s*(?P<label>" + "|".join(re.escape(t) for t in SUMMARY_TITLES) + r")\s*[:.\u2014\u2013\-]\s*\S",
    re.I,
)
#: A line that opens the next labelled paragraph ("DATES:", "ADDRESSES:") ends an inline summary.
_NEXT_LABEL = re.compile(r"^\s*[A-Z][A-Z .&/]{2,40}:")
_SENTENCE_END = re.compile(r"[.!?。！？]\s*$")
#: Opening text of a summary or scope, in characters: at least the first (then to a sentence
#: end), at most the second.
SUMMARY_CHARS, SUMMARY_MAX_CHARS = 400, 1200
#: Top-level contents entries quoted (one citation each; the answer holds at most 20).
CONTENTS_MAX = 12
TITLE_MAX_LINES = 4
HEADING_MAX_LINES = 3


@dataclass
class Overview:
    passages: list[Passage] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    scope_found: bool = True


def _key(title: str) -> str:
    """A title as compared: no numbering or punctuation, lower case ("1. Introduction" -> "introduction")."""
    return " ".join(re.sub(r"[\W\d_]+", " ", str(title or "")).split()).lower()


def _titled(toc: pd.DataFrame, names: tuple[str, ...]) -> pd.Series | None:
    """The first toc row (in names' order of preference) whose title is or starts with a name."""
    keys = toc["title"].map(_key)
    for name in names:
        hit = toc[(keys == name) | keys.str.startswith(name + " ")]
        if not hit.empty:
            return hit.iloc[0]
    return None


def _opening(rows: pd.DataFrame) -> pd.DataFrame:
    """The first body lines: SUMMARY_CHARS of text, continued to a sentence end (at most
    SUMMARY_MAX_CHARS; characters, not lines, so narrow columns get as much as wide ones)."""
    body = rows[~rows["role"].isin(HEADING_ROLES | {"toc_entry"})]
    n = size = 0
    for text in body["text"].astype(str).tolist():
        n, size = n + 1, size + len(text) + 1
        if (size >= SUMMARY_CHARS and _SENTENCE_END.search(text)) or size >= SUMMARY_MAX_CHARS:
            break
    return body.iloc[:n]


def title_lines(tables: DocTables) -> pd.DataFrame:
    """The title: the run of largest-type lines on the first page that has text and is not a
    contents page (lines the parser marked ``title`` when no size is known). A numbered
    section's heading is not a title: a document that opens with "1 Purpose" has none."""
    lines = evidence_lines(tables)
    lines = lines[lines["text"].astype(str).str.strip().str.len() > 1]
    contents = lines.groupby("page")["role"].apply(lambda r: (r == "toc_entry").mean() >= 0.5)
    lines = lines[~lines["page"].map(contents).fillna(False).astype(bool)]
    if lines.empty:
        return lines
    page = lines[lines["page"] == lines["page"].min()]
    sizes = pd.to_numeric(page["size"], errors="coerce") if "size" in page else pd.Series(dtype=float)
    if sizes.notna().any() and sizes.max() > sizes.median():
        big = (sizes >= sizes.max() - 0.5).tolist()
        start = big.index(True)
        n = next((i for i in range(start, len(big)) if not big[i]), len(big)) - start
        run = page.iloc[start : start + min(n, TITLE_MAX_LINES)]
    else:
        titled = page[page["role"] == "title"]
        run = titled.iloc[:TITLE_MAX_LINES] if not titled.empty else page.iloc[:1]
    first = (int(run.iloc[0]["page"]), int(run.iloc[0]["line"]))
    return run.iloc[0:0] if first in _starts(tables, numbered=True) else run


def _inline_summary(tables: DocTables, pages: int = 3) -> pd.DataFrame:
    """A paragraph that opens with a summary label ("SUMMARY: The FAA proposes ..."), early pages."""
    lines = evidence_lines(tables)
    lines = lines[lines["page"] <= lines["page"].min() + pages - 1] if not lines.empty else lines
    texts = lines["text"].astype(str).tolist()
    for i, text in enumerate(texts):
        if _INLINE_LABEL.match(text):
            end, size = i + 1, len(text)
            while end < len(texts) and not _NEXT_LABEL.match(texts[end]):
                size += len(texts[end]) + 1
                end += 1
                if (
                    size >= SUMMARY_CHARS and _SENTENCE_END.search(texts[end - 1])
                ) or size >= SUMMARY_MAX_CHARS:
                    break
            return lines.iloc[i:end]
    return lines.iloc[0:0]


def _children(toc: pd.DataFrame, sec: pd.Series) -> pd.DataFrame:
    kids = toc[toc["parent_id"].astype(str) == str(sec["toc_id"])]
    return kids.head(CONTENTS_MAX)


def _heading(rows: pd.DataFrame, starts: set[tuple[int, int]] = frozenset()) -> pd.DataFrame:
    """A section's (possibly wrapped) heading: its leading heading lines ("1." + "Introduction"),
    up to the line where another section starts (``starts``: the toc's heading lines)."""
    n = 0
    for i, (role, page, line) in enumerate(zip(rows["role"], rows["page"], rows["line"], strict=True)):
        if role not in HEADING_ROLES or i >= HEADING_MAX_LINES or (i and (int(page), int(line)) in starts):
            break
        n += 1
    return rows.iloc[: max(n, 1)]


def _starts(tables: DocTables, *, numbered: bool = False) -> set[tuple[int, int]]:
    """Where the toc's sections start (page, line); only numbered sections with ``numbered``."""
    toc = tables.toc_df
    ok = toc[toc["page_start"].notna() & toc["line_start"].notna()]
    if numbered:
        ok = ok[ok["number"].notna()]
    return set(zip(ok["page_start"].astype(int), ok["line_start"].astype(int), strict=True))


def _headings(tables: DocTables, secs: pd.DataFrame) -> pd.DataFrame:
    """The heading lines of each section, as evidence rows."""
    starts = _starts(tables)
    parts = [
        _heading(section_lines(tables, sec), starts)
        for _, sec in secs.iterrows()
        if pd.notna(sec["line_start"])
    ]
    parts = [p for p in parts if not p.empty]
    return pd.concat(parts).drop_duplicates() if parts else pd.DataFrame()


def _passages(tables: DocTables, rows: pd.DataFrame, note: str) -> list[Passage]:
    return to_passages(rows, tables.doc_id, retrieved_via="primary", note=note) if not rows.empty else []


def _summary(tables: DocTables, toc: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """The abstract or summary, else the first body section, with its label ("" when none)."""
    if not toc.empty:
        sec = _titled(toc, SUMMARY_TITLES)
        if sec is not None and not _opening(section_lines(tables, sec)).empty:
            return _opening(section_lines(tables, sec)), str(sec["title"]).strip()
    inline = _inline_summary(tables)
    if not inline.empty:
        return inline, _INLINE_LABEL.match(str(inline.iloc[0]["text"])).group("label").strip().title()
    if not toc.empty:
        sec = _titled(toc, FIRST_SECTION_TITLES)
        if sec is None:
            numbered = toc[toc["number"].astype(str).str.fullmatch(r"(?:1|I|A)\.?", na=False)]
            sec = numbered.iloc[0] if not numbered.empty else None
        if sec is not None and not _opening(section_lines(tables, sec)).empty:
            return _opening(section_lines(tables, sec)), str(sec["title"]).strip()
    return pd.DataFrame(), ""


def document_overview(tables: DocTables) -> Overview:
    """Title, abstract/summary (else first section, else opening lines), top-level contents."""
    out = Overview()
    toc = tables.toc_df if tables.toc_df is not None else pd.DataFrame()
    title = title_lines(tables)
    out.passages += _passages(tables, title, "Title")
    if title.empty:
        out.missing.append("no title found")
    summary, label = _summary(tables, toc)
    if label:
        out.passages += _passages(tables, summary, label)
    else:
        out.missing.append("no abstract, summary or first section found; the opening lines are given")
        lines = evidence_lines(tables)
        done = set(zip(title["page"], title["line"], strict=True)) if not title.empty else set()
        rest = lines[[k not in done for k in zip(lines["page"], lines["line"], strict=True)]]
        out.passages += _passages(tables, _opening(rest), "Opening lines")
    if not toc.empty:
        top = toc[toc["level"].fillna(1).astype(int) == int(toc["level"].fillna(1).min())].head(CONTENTS_MAX)
        out.passages += _passages(tables, _headings(tables, top), "Contents")
    return out


def _scope_section(tables: DocTables, q: ParsedQuestion) -> pd.Series | None:
    scope = q.scope
    if scope is None:
        return None
    secs = find_sections(tables, scope.target)
    if secs.empty and scope.kind in ("appendix", "annex"):
        apps = appendix_sections(tables)
        secs = apps[apps["title"].str.contains(rf"\b{re.escape(scope.target)}\b", case=False, na=False)]
    return secs.iloc[0] if not secs.empty else None


def scope_overview(tables: DocTables, q: ParsedQuestion) -> Overview:
    """The named section's opening lines and its sub-section titles."""
    sec = _scope_section(tables, q)
    if sec is None:
        return Overview(scope_found=False)
    out = Overview()
    lines = section_lines(tables, sec)
    name = q.scope.text[:1].upper() + q.scope.text[1:] if q.scope else str(sec["title"])
    head = _heading(lines, _starts(tables)) if not lines.empty else lines
    opening = _opening(lines)
    out.passages += _passages(tables, pd.concat([head, opening]).drop_duplicates(), name)
    if opening.empty:
        out.missing.append(f"{name} has no body lines of its own")
    kids = _children(tables.toc_df, sec)
    out.passages += _passages(tables, _headings(tables, kids), "Sub-sections")
    return out


def overview_passages(tables: DocTables, q: ParsedQuestion) -> Overview:
    """The overview evidence for ``q``: of its scope when it names one, else of the document
    (nothing for a document without text lines)."""
    if tables.line_df is None or tables.line_df.empty:
        return Overview()
    if q.scope is not None:
        return scope_overview(tables, q)
    return document_overview(tables)


#: A heading that labels one member of a series: a word, then a number or a letter, then
#: optionally its title ("Tier 1: Partial", "Step 3 - Verify", "Phase B"); not a decimal
#: provision number ("Clause 5.1").
_MEMBER = re.compile(
    r"^\s*([^\W\d_]{3,})\s+(\d{1,2}|[A-Z]|[IVX]{1,4})(?!\.?\d)\s*(?:[:.\-\u2013\u2014]\s*\S.*)?$"
)
#: Lines of each member section quoted after its heading (its definition opens it).
MEMBER_LINES = 8


def member_passages(tables: DocTables, q: ParsedQuestion) -> list[Passage]:
    """A list question whose noun labels a series of headings ("the four Tiers" when the
    document has headings "Tier 1: Partial" ... "Tier 4: Adaptive") is answered from the
    series: each member's heading and opening lines, in document order. Needs two or more
    members of one series; empty when the question names none."""
    from docintel.retrieval.rank import query_terms
    from docintel.text import terms

    toc = tables.toc_df
    if q.shape != "list" or toc is None or toc.empty:
        return []
    wanted = set(query_terms(q))
    series: dict[str, dict[str, pd.Series]] = {}
    for _, sec in toc[toc["page_start"].notna() & toc["line_start"].notna()].iterrows():
        m = _MEMBER.match(str(sec["title"]))
        if m and set(terms(m.group(1))) & wanted:
            series.setdefault(m.group(1).lower(), {}).setdefault(m.group(2).upper(), sec)
    best = list(max(series.values(), key=len, default={}).values())
    if len(best) < 2:
        return []
    out: list[Passage] = []
    for sec in best:
        rows = section_lines(tables, sec).head(MEMBER_LINES)
        out += _passages(tables, rows, f"member of the series '{sec['title']}'")
    return out
