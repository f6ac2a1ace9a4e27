"""Heading text: the :class:`Candidate` record, numbering schemes, and a run-in lead's sentence.

Split from :mod:`docintel.parsing.headings`, which re-exports every name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

#: "SCHEDULE 2.1(a)", "Exhibit 10.1:", "Schedule 2.1. Fees": a schedule or exhibit named after the provision
#: that calls for it (the heading stage, the back matter and the provision scopes read it alike)
NAMED_AFTER_PROVISION = r"[0-9]{1,2}(?:\.[0-9]{1,2}){1,3}(?:\([a-z0-9]{1,3}\)){0,2}(?=[\s.:\u2013\u2014-]|$)"

#: Numbering schemes a heading can start with: (name, regex). Group "num" is the number,
#: group "title" the rest. Order matters: the first match wins.
NUMBERING: list[tuple[str, re.Pattern]] = [
    (
        "appendix",
        re.compile(
            r"^(?P<kw>appendix|annex|exhibit|schedule|attachment)\s*(?P<num>"
            # "SCHEDULE 2.1(a)", "Exhibit 10.1": named after the provision that calls for it
            + NAMED_AFTER_PROVISION
            + r"|(?:[A-Z]|[0-9]{1,2}|[IVX]{1,4})\b)?"
            r"\s*[:.\-\u2013\u2014]?\s*(?P<title>.*)$",
            re.I,
        ),
    ),
    (
        "part",
        re.compile(
            r"^(?P<kw>part|chapter)\s+(?P<num>[0-9]{1,3}|[IVX]{1,5})\b\s*[:.\-\u2013\u2014]?\s*(?P<title>.*)$",
            re.I,
        ),
    ),
    ("section_sign", re.compile(r"^\u00a7\s*(?P<num>[0-9]+(?:\.[0-9]+)*[a-z]?)\s*(?P<title>.*)$")),
    (
        "decimal",
        re.compile(r"^(?P<num>[0-9]{1,2}(?:\.[0-9]{1,2}){0,4})(?:\.|\s)\s*(?P<title>(?![a-z])[^\W\d_].*)$"),
    ),
    ("letter_decimal", re.compile(r"^(?P<num>[A-Z](?:\.[0-9]{1,2}){1,4})\.?\s+(?P<title>[A-Z].*)$")),
    # IEEE style: "IV. EXPERIMENTS", "B. Training Details"
    ("roman", re.compile(r"^(?P<num>[IVX]{1,5})\.\s+(?P<title>[A-Z].*)$")),
    ("letter", re.compile(r"^(?P<num>[A-H])\.\s+(?P<title>[A-Z][a-z]+.*)$")),
    (
        "paragraph",
        re.compile(
            r"^(?P<num>\((?:[a-z]{1,2}|[0-9]{1,2}|[ivx]{1,4})\))\s+(?P<title>(?![a-z])[^\W\d_].*|[\u300c\u201c\u0022].*)$"
        ),
    ),
]


@dataclass(slots=True)
class Candidate:
    """A possible heading: one or more joined lines (slots: one is built per text line)."""

    page: int
    line: int  # first line of the heading
    lines: list[int]  # every line_df line that belongs to it (incl. dropped artefacts)
    text: str
    size: float
    bold: bool
    x0: float
    y0: float
    x1: float
    y1: float
    font: str
    run_in: bool = False  # a bold lead-in followed by body text on the same baseline
    kind: str | None = None  # numbering scheme
    number: str | None = None
    title: str = ""
    extra: dict = field(default_factory=dict)


#: A word of a title (any script; digits and codes such as "800-53" are not words).
WORD = re.compile(r"[^\W\d_][\w'\u2019\-]*")
#: Words from which a title that reads as prose is a paragraph, not a heading: the longest kept
#: outline title that reads as prose in the outlines of the robust, eval, NIST and docling corpora
#: has 9 words ("3.1.1 organization (tier 1) and mission/business processes ...").
SENTENCE_WORDS = 12
#: Share of a title's words (after the first) in lower case from which it reads as prose:
#: title case and capitals stay well under it, sentences are well over it (set on those corpora).
PROSE_SHARE = 0.6


def reads_as_prose(title: str) -> bool:
    """Most words after the first in lower case: a sentence, not Title Case or capitals."""
    words = WORD.findall(title)[1:]
    return len(words) >= 3 and sum(w[0].islower() for w in words) >= PROSE_SHARE * len(words)


#: What some NUMBERING pattern needs at the start of a text (tested first: one match, not eight).
_MAY_NUMBER = re.compile(
    r"[0-9(\u00a7]|[A-Z][IVX]{0,4}\.|(?i:appendix|annex|exhibit|schedule|attachment|part|chapter)"
)


def split_number(text: str) -> tuple[str | None, str | None, str]:
    """Return (scheme, number, title) of a heading text; (None, None, text) when unnumbered."""
    # whitespace runs as one space, ends stripped (str.split() and regex \s share one whitespace set)
    # a printable text has no whitespace but ASCII spaces (every other one is not printable), so
    # without a double space its stripped self is the joined split
    t = text.strip(" ") if text.isprintable() and "  " not in text else " ".join(text.split())
    if not _MAY_NUMBER.match(t):
        return None, None, t  # no scheme can match: most lines start with a plain word
    for kind, rx in NUMBERING:
        m = rx.match(t)
        if not m:
            continue
        num = m.groupdict().get("num")
        title = (m.group("title") or "").strip(" :.-\u2013\u2014")
        if kind == "appendix":
            return kind, (num or None), (title or t)
        if kind == "part":
            return kind, num, title or t
        if kind == "decimal" and int(num.split(".")[0]) == 0:
            continue
        return kind, num, title
    return None, None, t


def _respace(lead: str, text: str) -> str:
    """The line's own spelling of a bold lead joined from spans without spaces ("NoNSP" -> "No NSP")."""
    want = lead.replace(" ", "")
    j = 0
    for i, ch in enumerate(text):
        if j == len(want):
            return text[:i].strip()
        if ch == " ":
            continue
        if ch != want[j]:
            return lead
        j += 1
    return text.strip() if j == len(want) else lead


_ABBREV = {
    "vs",
    "e.g",
    "i.e",
    "etc",
    "fig",
    "no",
    "eq",
    "cf",
    "al",
    "sec",
    "ch",
    "mr",
    "dr",
    "st",
    "ltd",
    "inc",
    "co",
}
_ABBREV |= {"corp", "jr", "sr", "u.s", "dept", "vol"}


def first_sentence(t: str) -> str:
    """A heading is at most a sentence: cut a run-in lead at its first full stop."""
    for m in re.finditer(r"[.!?](?=\s+[A-Z])", t):
        word = re.findall(r"[\w.]+$", t[: m.start()])
        rest = t[m.end() :].split()
        if word and len(word[0]) > 1 and word[0].lower().rstrip(".") not in _ABBREV and len(rest) >= 2:
            return t[: m.end()]
    return t


def _emphasised_subject(lead: str, text: str) -> bool:
    """True when a bold lead-in is the subject of its sentence, not a run-in heading.

    "Jim Bainbridge is a senior consultant", "Row permission is a rule": the regular text
    goes on in lower case with no stop after the bold words. A run-in heading ends with a
    stop ("Training.", "Note:") or the sentence after it starts anew ("Acknowledgements We").
    """
    lead = lead.strip()
    if not lead or lead[-1] in ".:;!?\u2014\u2013-)":
        return False
    i = text.find(lead)
    rest = text[i + len(lead) :] if i >= 0 else ""
    if re.match(r"\s*[(=,]", rest):
        return True  # "BERTBASE (L=12, ...)": a term being defined, not a heading
    m = re.match(r"\s*([^\W\d_])", rest)
    return bool(m) and m.group(1).islower()


#: A margin line number opening a line: "186 1.3.1 Initial Reference Development", or alone ("187").
_MARGIN_NUMBER = re.compile(r"\s*(\d{1,5})(?:\s+(?=\S)|\s*$)")
#: A page is line-numbered when at least this many of its numbers follow one another ...
MIN_MARGIN_NUMBERS = 5
#: ... and this share of its rows (lines within half a line height of each other) opens with one.
MIN_NUMBERED_ROWS = 0.6


def strip_margin_numbers(recs: list[dict]) -> None:
    """Drop the margin line number from the ``text`` of a line-numbered page's lines, in place.

    Drafts, specifications, bills and court filings number every line in the margin; the text
    layer often joins the number to its line ("186 1.3.1 Initial Reference Development",
    "222 1 Introduction"), so the heading's own number is not the line's first word. A number
    counts as a margin number when the numbered line just above it (by height) carries the
    number before it, or the one just below the number after it, and the page is numbered on
    most rows: a stack of headings "1 Scope", "2 Terms" between paragraphs is not.
    """
    nums = []
    for r in recs:
        m = _MARGIN_NUMBER.match(r["text"])
        if m and r["y0"] == r["y0"]:  # no NaN top
            nums.append((r["y0"], int(m.group(1)), r, m.end()))
    if len(nums) < MIN_MARGIN_NUMBERS:
        return
    nums.sort(key=lambda t: t[0])
    seq = [
        (i > 0 and nums[i - 1][1] == v - 1) or (i + 1 < len(nums) and nums[i + 1][1] == v + 1)
        for i, (_, v, _, _) in enumerate(nums)
    ]
    if sum(seq) < MIN_MARGIN_NUMBERS:
        return
    rows, numbered, last = 0, 0, None
    marked = {id(t[2]) for t, s in zip(nums, seq, strict=True) if s}
    for r in sorted((r for r in recs if r["y0"] == r["y0"]), key=lambda r: r["y0"]):
        if last is None or r["y0"] - last > 0.5 * max(r["y1"] - r["y0"], 1.0):
            rows += 1
            last = r["y0"]
            counted = False
        if id(r) in marked and not counted:
            numbered += 1
            counted = True
    if numbered < MIN_NUMBERED_ROWS * rows:
        return
    for (_, _, r, end), s in zip(nums, seq, strict=True):
        if s and end < len(r["text"]):
            r["text"] = r["text"][end:]
