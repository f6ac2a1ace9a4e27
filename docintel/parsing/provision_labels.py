"""Label lines: a provision keyword and number on a line of their own, the title set under them.

Regulations, treaties and rule books print "CHAPTER IV" / "SECTION 1" / "Article 24" alone on
a line and the provision's title on the line(s) below, centred with the label or at its left
edge ("Responsibility of the controller"). The heading stage reads the two as separate rows
(the label with no title, the title as an unnumbered heading of its own). This module joins
them: the label's entry gets the title, its number and a keyword id ("Article 24"), and the
title's own heading entry is absorbed. Used by :mod:`provisions` on heading entries and on
keyword provisions before levels are assigned.
"""

from __future__ import annotations

import re

import pandas as pd

from docintel.parsing.heading_text import NAMED_AFTER_PROVISION

#: A keyword and a number, nothing else: "Article 24", "SECTION 1", "CHAPTER IV", "Part 2."
LABEL = re.compile(
    r"^(?P<kw>Article|ARTICLE|Art\.|Section|SECTION|Sec\.|SEC\.|Chapter|CHAPTER|Part|PART|Title|TITLE"
    r"|Rule|RULE|Regulation|REGULATION|Clause|CLAUSE|Line)\s+(?P<num>[0-9]{1,3}[a-z]?|[IVXLC]{1,7})\.?$"
)
#: Keywords whose label entries get a keyword id; chapters and parts keep the heading stage's id.
KW_IDS = {
    "article": "Article",
    "art.": "Article",
    "rule": "Rule",
    "regulation": "Regulation",
    "clause": "Clause",
    "line": "Line",
}
_NOT_TITLE = re.compile(
    r"^(?:\(?[0-9a-zA-Z]{1,4}[.)]\s|\(?[0-9]{1,3}\)?$|[0-9]+(?:\.[0-9]+)+\s)"
    r"|^(?:Article|ARTICLE|Art\.|Section|SECTION|Sec\.|SEC\.|Chapter|CHAPTER|Part|PART|Title|TITLE|Rule|RULE"
    r"|Clause|CLAUSE|Regulation|\u00a7)\s*[0-9IVXLC]"
)
_COLS = ["page", "line", "text", "role", "x0", "x1", "y0", "y1", "size"]
#: At most this many lines make a title under a label ("TRANSFER OF PERSONAL DATA TO THIRD
#: COUNTRIES" / "OR INTERNATIONAL ORGANISATIONS").
MAX_TITLE_LINES = 3


def _page_lines(line_df: pd.DataFrame, pages: set[int]) -> dict[int, list[dict]]:
    sub = line_df[line_df["page"].isin(pages)].sort_values(["page", "line"])
    out: dict[int, list[dict]] = {}
    for rec in sub[[c for c in _COLS if c in sub]].to_dict("records"):
        out.setdefault(int(rec["page"]), []).append(rec)
    return out


#: "Article 57 Tasks": a keyword label with its title on the same line, after a space, a colon or
#: a dash ("Line 12b\u2014Qualified Dividends": tax instructions; "SECTION 1 - PATIENT INFORMATION")
RUN_IN = re.compile(
    r"^(?P<kw>Article|ARTICLE|Art\.|Rule|RULE|Regulation|REGULATION|Clause|CLAUSE|Section|SECTION|Sec\.|SEC\.|Line)"
    r"\s+(?P<num>[0-9]{1,3}[a-z]?|[IVXLC]{1,7})\.?(?:\s*[:\u2014\u2013]\s*|\s+-\s+|\s+)(?P<title>[A-Z].{1,100})$"
)


#: "TITLE I—HAZARDOUS FUEL" (a bill's title, its words going on on the next line)
PART_DASH = re.compile(
    r"^(?P<kw>TITLE|Title|SUBTITLE|Subtitle|PART|Part|CHAPTER|Chapter|DIVISION|Division)\s+"
    r"(?P<num>[IVXLC]{1,7}|[0-9]{1,3}|[A-Z])\s*[\u2014\u2013]\s*(?P<title>\S.{1,100})$"
)
#: Part-like keywords: a heading with one of these opens a part; the keyword chains under it restart.
PARTS = ("title", "subtitle", "part", "chapter", "division")
#: "SCHEDULE 1", "Exhibit A", "ANNEX II — SERVICE LEVELS": a schedule that numbers its own
#: provisions from 1 again ("1.1" in Schedule 1 is not the agreement's clause 1.1)
SCOPE = re.compile(
    r"^(?P<kw>Schedule|SCHEDULE|Exhibit|EXHIBIT|Annex|ANNEX|Attachment|ATTACHMENT|Appendix|APPENDIX)\s+"
    # a first number followed by ".1" is a provision-named label's, never a number and a title
    r"(?P<num>" + NAMED_AFTER_PROVISION + r"|[0-9]{1,2}(?!\.?[0-9(])|[A-Z]|[IVX]{1,4})\.?"
    r"(?:\s*[:.\u2014\u2013-]\s*(?P<title>\S.{1,100}))?$"
)


def mark_scopes(entries: list[dict]) -> list[tuple[int, int]]:
    """Flag schedule / exhibit / annex / attachment / appendix label headings (in place) and return
    their (page, line): each opens a scope whose provision numbers restart. Schedules, exhibits,
    annexes and attachments get a keyword id ("Schedule 1", "Exhibit A") and, alone on their
    line, the title set under them (:func:`join_titles`); appendices keep the heading stage's id."""
    out = []
    for e in entries:
        if e.get("source") == "provision" or e.get("line_start") is None:
            continue
        m = SCOPE.match(" ".join(str(e.get("title") or "").split()))
        if not m:
            continue
        kw = m.group("kw").capitalize()
        e["part"] = e["scope"] = True
        out.append((e["page_start"], e["line_start"]))
        if kw == "Appendix":
            continue
        e["toc_id"], e["kw"], e["schedule"] = f"{kw} {m.group('num')}", kw.lower(), True
        e["number"] = e.get("number") or m.group("num")
        if m.group("title"):
            e["title"] = m.group("title").strip()
        else:
            e["label"] = True
    return sorted(out)


def nest_scopes(entries: list[dict]) -> None:
    """The headings of a schedule ("1. FEES" after "SCHEDULE 1", both level 1) go one level under
    it, up to the next schedule or appendix or a heading above it (in place; after :func:`join_titles`)."""
    held: list[dict] = []
    top = None
    for e in [*entries, None]:
        if e is None or e.get("scope") or (top is not None and e["level"] < top):
            if held and top is not None:
                shift = top + 1 - min(h["level"] for h in held)
                for h in held:
                    h["level"] += max(shift, 0)
            held, top = [], (e["level"] if e is not None and e.get("schedule") else None)
        elif top is not None:
            held.append(e)


def number_labels(entries: list[dict]) -> None:
    """Numbers and keyword ids for heading entries printed as keyword labels (in place).

    "Article 24" (alone) and "Article 57 Tasks" get number 24 / 57 and id "Article 24"; "TITLE
    I—HAZARDOUS FUEL" gets number I, id "Title I" and title "HAZARDOUS FUEL". Label entries
    are flagged ``label`` (their title may go on below them, :func:`join_titles`), part-like
    ones ``part``.
    """
    for e in entries:
        if e.get("source") == "provision":
            continue
        title = " ".join(str(e.get("title") or "").split())
        cand = e.get("cand")
        full = " ".join(str(getattr(cand, "text", "") or "").split())
        if full != title and LABEL.match(title) and RUN_IN.match(full):
            title = full  # "Rule 11. Signing Pleadings" cut at its stop to "Rule 11."
        m = LABEL.match(title)
        if m:
            kw = m.group("kw").lower()
            e["label"] = e.get("line_start") is not None
            e["part"] = kw in PARTS
            if kw in KW_IDS and not e.get("number"):
                e["number"], e["kw"] = m.group("num"), kw.rstrip(".")
                e["toc_id"] = f"{KW_IDS[kw]} {m.group('num')}"
            continue
        m = RUN_IN.match(title)
        if m and not e.get("number"):
            kw = m.group("kw").lower()
            e["number"], e["kw"] = (
                m.group("num"),
                {"sec.": "section", "art.": "article"}.get(kw, kw.rstrip(".")),
            )
            name = KW_IDS.get(kw, "Section")  # "Section 7 Miscellaneous": its paragraphs are "Section 7(a)"
            e["toc_id"], e["title"] = f"{name} {m.group('num')}", m.group("title").strip()
            continue
        m = PART_DASH.match(title)
        if m and not e.get("number"):
            e["number"], e["part"], e["label"] = m.group("num"), True, e.get("line_start") is not None
            e["toc_id"] = f"{m.group('kw').capitalize()} {m.group('num')}"
            e["title"] = m.group("title").strip()


def _title_like(rec: dict, label: dict, prev: dict, first: bool, edges: dict[int, int]) -> bool:
    t = " ".join(str(rec["text"]).split())
    if not t or len(t) > 120 or rec.get("role") in ("header", "footer", "page_number", "table"):
        return False
    wrapped = not first and re.match(r"[a-z]", t)  # a wrapped title may go on in lower case
    opens = re.match(r"[\"\u201c\u2018('A-Z\u00c0-\u024f]", t)
    if (_NOT_TITLE.match(t) or t.endswith((",", ";")) or not opens) and not wrapped:
        return False
    size = max(float(label["size"]), 4.0)
    # line boxes of tightly set lines overlap (a box is ~1.4 font sizes tall, the leading 1.2)
    if not -0.5 * size <= rec["y0"] - prev["y1"] <= 3.0 * size:
        return False
    if abs(float(rec["size"]) - float(label["size"])) > 0.25 * size + 2:
        return False
    centre = abs((rec["x0"] + rec["x1"]) / 2 - (label["x0"] + label["x1"]) / 2) <= max(12.0, 1.5 * size)
    # a justified paragraph line is centred too: a centred title does not start at a text
    # margin (a left edge that two or more other lines of the page share)
    x = round(rec["x0"])
    centre = centre and edges.get(x - 1, 0) + edges.get(x, 0) + edges.get(x + 1, 0) < 3
    # left aligned with the label: only a short line (a title, not a paragraph's first line)
    long_words = [w for w in t.split() if len(w) > 3]
    titled = (
        t.isupper()
        or rec.get("role") == "heading"
        or (long_words and sum(w[0].isupper() for w in long_words) >= 0.6 * len(long_words))
    )
    left = abs(rec["x0"] - label["x0"]) <= 2 and len(t.split()) <= 10 and not t.endswith(".") and titled
    return (centre and rec["x0"] > label["x0"] - 400) or left


def title_below(lines: list[dict], line: int) -> list[dict]:
    """The title lines set directly under the label on ``line`` (page lines in order), or []."""
    pos = next((i for i, r in enumerate(lines) if int(r["line"]) == line), None)
    if pos is None:
        return []
    label, out = lines[pos], []
    edges: dict[int, int] = {}
    for r in lines:
        edges[round(r["x0"])] = edges.get(round(r["x0"]), 0) + 1
    for rec in lines[pos + 1 : pos + 1 + MAX_TITLE_LINES]:
        prev = out[-1] if out else label
        if not _title_like(rec, label, prev, not out, edges):
            break
        if out and str(out[-1]["text"]).rstrip().endswith("."):
            break
        out.append(rec)
    return out


def _text_of(e: dict, by_page: dict[int, list[dict]]) -> str:
    lines = e.get("lines") or [e["line_start"]]
    rec = next((r for r in by_page.get(int(e["page_start"]), []) if int(r["line"]) == int(lines[-1])), None)
    return " ".join(str(rec["text"]).split()) if rec else ""


def join_titles(entries: list[dict], cands: list[dict], line_df: pd.DataFrame) -> set[tuple[int, int]]:
    """Give label entries and label-only keyword provisions the title set under them (in place).

    Returns the (page, line) of the absorbed title lines; heading entries starting there are
    removed from ``entries`` (in place), they are the label's title, not sections.
    """
    labels = [e for e in entries if e.get("label")]
    kws = [c for c in cands if c["scheme"] == "kw" and not c["rest"].strip()]
    if not labels and not kws:
        return set()
    pages = {int(e["page_start"]) for e in labels} | {int(c["page"]) for c in kws}
    by_page = _page_lines(line_df, pages)
    absorbed: set[tuple[int, int]] = set()
    for e in labels:
        page = int(e["page_start"])
        lines = e.get("lines") or [e["line_start"]]
        title = title_below(by_page.get(page, []), int(lines[-1]))
        if title:
            words = " ".join(" ".join(str(r["text"]).split()) for r in title)
            e["title"] = f"{e['title']} {words}" if PART_DASH.match(_text_of(e, by_page)) else words
            e["lines"] = list(lines) + [int(r["line"]) for r in title]
            absorbed |= {(page, int(r["line"])) for r in title}
    for c in kws:
        title = title_below(by_page.get(int(c["page"]), []), int(c["line"]))
        if title:
            c["title"] = " ".join(" ".join(str(r["text"]).split()) for r in title)
            absorbed |= {(int(c["page"]), int(r["line"])) for r in title}
    if absorbed:
        keep = {id(e) for e in labels}
        entries[:] = [
            e
            for e in entries
            if e.get("number") or (e["page_start"], e.get("line_start")) not in absorbed or id(e) in keep
        ]
    return absorbed
