"""Heading candidates from numbering and typography (used by toc.py).

The pieces live in three modules, all re-exported here: :mod:`heading_spans` (per line, how
much is bold / italic and whether it is rotated, from the page's spans), :mod:`heading_text`
(:class:`Candidate`, numbering schemes, a run-in lead's sentence) and :mod:`heading_candidates`
(each page's lines joined by baseline into candidates). This module holds the typography and
wording test :func:`looks_like_heading` and :func:`body_size`.
"""

from __future__ import annotations

import functools
import re

import pandas as pd

from docintel.parsing.heading_candidates import (  # noqa: F401  (re-exported)
    _FURNITURE,
    BASELINE_BOTTOM_EM,
    BASELINE_TOP_EM,
    CELL_GAP_EM,
    COLUMN_GAP_EM,
    ITALIC_MIN_FRACTION,
    LARGER_BY_PT,
    MIN_GAP_SIZE_PT,
    PARA_GAP_EM,
    PLAIN_BELOW_PT,
    REGULAR_MAX_FRACTION,
    _baseline_groups,
    _candidate,
    _candidate_from,
    _LazyStart,
    _page_records,
    _PageGeo,
    _segments,
    _single,
    _starts_paragraph,
    _take_list,
    candidates,
    para_start,
)
from docintel.parsing.heading_plain import PlainLines  # noqa: F401  (re-exported)
from docintel.parsing.heading_spans import (  # noqa: F401  (re-exported)
    _BOLD_FONT,
    _ITALIC_FONT,
    _SPAN_STYLE,
    BOLD_MIN_FRACTION,
    ROTATED_DIR_MIN,
    ROTATED_MIN_FRACTION,
    ROTATED_TALL_RATIO,
    PageSpans,
    _bold_fonts,
    _bold_name,
    _inside_pairs,
    _italic_name,
    _span_style,
    is_bold_font,
    page_spans,
    span_features,
)
from docintel.parsing.heading_text import (  # noqa: F401  (re-exported)
    _ABBREV,
    _MAY_NUMBER,
    NUMBERING,
    SENTENCE_WORDS,
    WORD,
    Candidate,
    _emphasised_subject,
    _respace,
    first_sentence,
    reads_as_prose,
    split_number,
)

# The heading detector's thresholds. The history does not record a measurement for any of
# them: unless a line says otherwise, each was set by hand on the dev PDFs; not measured.
#: Body size when a document has no lines (a common body size in points; not measured).
DEFAULT_BODY_SIZE = 10.0
#: More than this many points below the body size is "smaller" (set by hand; not measured).
SMALLER_BY_PT = 1.6
#: More than this many points below the body size is never a heading (set by hand; not measured).
TOO_SMALL_BY_PT = 2.5
#: An unnumbered heading below body size by more than this needs to be a caps label (set by hand).
SLIGHTLY_SMALLER_BY_PT = 0.5
#: Longest heading, in characters and in words (set by hand on the dev PDFs; not measured).
MAX_HEADING_CHARS = 160
MAX_HEADING_WORDS = 20
#: Share of the long words that must be capitalised for Title Case (set by hand; not measured).
TITLE_CASE_MIN_FRACTION = 0.7


def body_size(line_df: pd.DataFrame) -> float:
    """The most common font size weighted by characters (the body text size)."""
    if line_df.empty:
        return DEFAULT_BODY_SIZE
    w = line_df["text"].str.len().groupby(line_df["size"].round(0)).sum()
    return float(w.idxmax()) if len(w) else DEFAULT_BODY_SIZE


#: Author lines (footnote marks, e-mail), continued table captions: never headings.
_NOT_HEADING = re.compile(r"[\u2217\u2020\u2021*@]|\bcontinued\W*$", re.I)


_MONO = re.compile(r"courier|mono|consol|menlo|typewriter|code|cmtt|sftt", re.I)
_TWO_LETTERS = re.compile(r"[^\W\d_]{2}")
_CAPTION_START = re.compile(r"(?i:table|figure|fig\.|exhibit)\s*[0-9IVX][\w.\-]*\s*[:.\u2014\u2013]")


@functools.lru_cache(maxsize=4096)
def _mono(font: str) -> bool:
    """A monospace font name (a document has a few fonts: the test runs once per name)."""
    return bool(_MONO.search(font))


_SENTENCE_END = re.compile(r"[.;,]$")
#: A numbered list item's opening: its number, then the sentence in lower case (no heading reads so).
_LIST_ITEM = re.compile(r"\d{1,2}[.)]\s+[a-z]")
_STOP_START = re.compile(r"^[a-z\u2022\u2013\u2014\-\*\u25cf\u00b7]")


def _italic_heading(c: Candidate, words: list[str], body: float) -> bool:
    """A standalone italic Title Case line at body size that starts a paragraph (manual style)."""
    long_words = [w for w in words if len(w) > 3]
    title_case = bool(long_words) and sum(
        w[0].isupper() for w in long_words
    ) >= TITLE_CASE_MIN_FRACTION * len(long_words)
    return (
        c.extra.get("italic", False)
        and not c.run_in
        and 2 <= len(words) <= 8
        and title_case
        and abs(c.size - body) < 1
        and para_start(c)
        and not re.search(r"[.,;:)]$", c.text.strip())
        and not c.extra.get("table_row")
    )


def _long_sentence(text: str) -> bool:
    """A line of :data:`SENTENCE_WORDS` words or more that reads as prose."""
    return len(WORD.findall(text)) >= SENTENCE_WORDS and reads_as_prose(text)


def looks_like_heading(c: Candidate, body: float, *, strict_numbered: bool = True) -> bool:
    """Typography and wording test for a candidate (before continuation joining)."""
    if c.kind is None and not c.bold and not c.extra.get("italic", False) and c.size < body + LARGER_BY_PT:
        return False  # plain body type, unnumbered: every branch below says no (most candidates)
    t = c.text.strip()
    words = t.split()
    if not words or len(t) > MAX_HEADING_CHARS or len(words) > MAX_HEADING_WORDS:
        return False
    # a heading has words (any script) and does not start like running text or a bullet
    if _STOP_START.match(t) or not _TWO_LETTERS.search(c.title or t):
        return False
    if _CAPTION_START.match(t):
        return False  # a caption, not a heading
    if _mono(c.font or ""):
        return False  # code listings are set in monospace, headings never are
    larger = c.size >= body + LARGER_BY_PT
    smaller = c.size < body - SMALLER_BY_PT
    if c.kind in ("roman", "letter"):
        # small caps / italic headings of two-column papers are not bold: ask for a paragraph start
        styled = (
            c.bold or larger or c.extra.get("italic") or (c.kind == "roman" and (c.title or "").isupper())
        )
        return bool(styled) and para_start(c) and len(words) <= 12 and not _SENTENCE_END.search(t)
    if c.kind in ("decimal", "letter_decimal", "appendix", "section_sign", "part"):
        strong = c.bold or larger
        if c.kind == "appendix" and c.number is None and not strong:
            return False
        if strict_numbered and not strong:
            return False
        if c.kind == "decimal" and not re.match(r"(?![a-z])[^\W\d_]", c.title or ""):
            return False
        return not (_SENTENCE_END.search(t) and len(words) > 8)
    if c.kind == "paragraph":
        return c.bold and not _SENTENCE_END.search(t) and len(words) <= 16
    if not (c.bold or larger) and _italic_heading(c, words, body):
        return True
    if not (c.bold or larger) or (smaller and not c.bold):
        return False
    if not c.bold and not c.extra.get("italic") and len(c.lines) == 1 and _long_sentence(c.title or t):
        # only its size sets it apart: a paragraph's first line in a body type larger than the
        # tables' that set the body size (NISTIR 8011 vol. 2: "Automated keyword searches were
        # employed to identify SP 800-53 controls that might support" under an appendix title).
        # Pieces on one baseline (``c.lines`` > 1) are a term and its definition set in two
        # columns, a glossary row (SP 800-53r3: "Hybrid Security Control" | "A security control
        # that is implemented in an information system"), not one paragraph's line: spared
        return False
    if c.size < body - TOO_SMALL_BY_PT:
        return False
    if _SENTENCE_END.search(t) and not t.endswith(":"):
        return False
    if len(words) > 14 or t[0].islower() or not (t[0].isalnum() or t[0] in "\u00a7("):
        return False
    if _LIST_ITEM.match(t):
        return False  # "1. the distribution license for those files requires": a list item in bold
    caps_label = t.upper() == t and len(words) >= 2 and c.bold and not c.run_in and not re.search(r"\d", t)
    if c.extra.get("table_row"):
        return False
    if (c.size < body - SLIGHTLY_SMALLER_BY_PT and not caps_label) or _NOT_HEADING.search(t):
        return False
    return not re.fullmatch(r"[\d\s.,:%()\-\u2013]+", t)
