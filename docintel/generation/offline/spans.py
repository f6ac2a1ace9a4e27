"""How a scored line's window grows (see :mod:`docintel.generation.offline.scoring`): to whole
sentences, through the answer of an FAQ question, to the end of an inline enumeration, and over
the enumerated list it touches or announces. Split from ``scoring``, which re-exports every name.
``rows`` are the scorer's ``ScoredLine`` list of one passage."""

from __future__ import annotations

import re

from docintel.generation.text import ends_sentence
from docintel.schema.kinds import HEADING_ROLES, UNSCANNED_ROLES

_FURNITURE = UNSCANNED_ROLES
BACK, FORWARD = 8, 6  # narrow columns (Federal Register, two-column papers) carry long sentences


#: A glossary term printed alone on its line, its definition in another column: "Restricted Data –".
_BARE_TERM = re.compile(r"^\s*[^\W\d_][^.;:]{0,60}?\s[\u2013\u2014-]\s*$")


def bare_term(rows: list, i: int) -> bool:
    """Line ``i`` is a glossary term printed alone on its line ("Restricted Data –"): the entry
    it opens ends at the next such line, and a window never runs back past it (the previous
    entry's definition and "SOURCE:" line are another term's)."""
    return bool(_BARE_TERM.match(rows[i].ln.text))


def term_column(rows: list, i: int) -> bool:
    """Line ``i`` is a term of a glossary read column by column: a bare term ("Restricted Data –")
    next to another bare term. Its definition is not the lines after it (they are the next terms,
    then the first term's definition), so a window on it is the term alone."""
    if not _BARE_TERM.match(rows[i].ln.text):
        return False
    return any(0 <= k < len(rows) and _BARE_TERM.match(rows[k].ln.text) for k in (i - 1, i + 1))


def grow_window(rows: list, seed: int) -> tuple[int, int]:
    """Extend a seed line to whole sentences: back to the line after a sentence end, forward to
    a line that ends one (bounded, and never across furniture lines); a glossary term read apart
    from its definition (:func:`term_column`) stays alone, and a window stops at a bare term
    line (:func:`bare_term`): it opens its entry, backward, and the next entry, forward."""
    if term_column(rows, seed):
        return seed, seed
    start = seed
    while (
        start > 0
        and seed - start < BACK
        and rows[start].ln.role not in ("heading", "title", "list_item")  # an item starts a sentence
        and not bare_term(rows, start)
        and rows[start - 1].ln.role not in _FURNITURE
        and not ends_sentence(rows[start - 1].ln.text)
    ):
        start -= 1
    return start, _through_series(rows, _answered(rows, _forward(rows, seed, seed)))


#: A member of an enumeration written inline: "(xv) systems and services acquisition; (xvi) ...".
#: The marker opens the line or a sentence, or follows a list separator ("; and (xvii)", ": (i)");
#: a cross-reference inside a sentence ("paragraph (b) of this section", "164.502(e) and") is none.
_INLINE_ITEM = re.compile(
    r"(?:^\s*|[;:,]\s*(?:(?:and|or)\s+)?|[.!?]\s+)\((?:[ivx]{1,5}|[a-z]|\d{1,2})\)(?=\s|$)"
)
#: Lines a window may run on to finish an inline enumeration it stopped inside.
SERIES_LINES = 8


def _through_series(rows: list, end: int) -> int:
    """A window that stops inside an inline enumeration (its last line carries an item marker
    "(xv) ..." and does not end the sentence) runs on, line by line while each carries a marker,
    up to :data:`SERIES_LINES` lines: the members of a list written as one sentence are one answer.
    Only a window whose tail is a series (:func:`_in_series`) runs on."""
    if not _in_series(rows, end):
        return end
    last = end
    while (
        end + 1 < len(rows)
        and end - last < SERIES_LINES
        and not rows[end].ln.text.rstrip().endswith(".")
        and _INLINE_ITEM.search(rows[end].ln.text)
        and rows[end + 1].ln.role not in _FURNITURE
        and rows[end + 1].ln.role not in HEADING_ROLES
    ):
        end += 1
    return end


def _in_series(rows: list, end: int) -> bool:
    """The window's last two lines carry two or more inline item markers: one marker is as
    often a line that opens on a wrapped reference ("(b) of this section") as a list."""
    return sum(len(_INLINE_ITEM.findall(rows[k].ln.text)) for k in range(max(0, end - 1), end + 1)) >= 2


def _answered(rows: list, end: int) -> int:
    """A window that ends on a question the document asks (an FAQ, "Question: ... Answer: ...")
    runs on through the next sentence, its answer."""
    if not rows[end].ln.text.rstrip().endswith("?") or end + 1 >= len(rows):
        return end
    nxt = rows[end + 1].ln
    if nxt.role in _FURNITURE or nxt.role in HEADING_ROLES or _item_number(nxt.text):
        return end
    return _forward(rows, end + 1, end + 1)


def _forward(rows: list, seed: int, end: int) -> int:
    while (
        end + 1 < len(rows)
        and end - seed < FORWARD
        and not ends_sentence(rows[end].ln.text)
        and rows[end + 1].ln.role not in _FURNITURE
        and rows[end + 1].ln.role not in HEADING_ROLES
        and not bare_term(rows, end + 1)
    ):
        end += 1
    return end


#: An enumerated item opening a line: "1.", "2)", "(a)", "(iv)", "Step 3:", a bullet; not a
#: decimal provision number ("8.7 Subject to ..."), which is a provision of its own.
_ITEM = re.compile(
    r"^\s*(?:\(?(\d{1,2}|[a-z]|[ivx]{1,5})[.)](?!\d)|\((\d{1,2}|[a-z]|[ivx]{1,5})\)|step\s+(\d{1,2})\b|[•●▪◦\-–])\s*",
    re.I,
)
#: Continuation lines an item may wrap over before the next item (narrow columns).
ITEM_GAP = 4
#: Longest list a window is widened to (lines); a longer list keeps the window as grown.
LIST_MAX_LINES = 32


def _item_number(text: str) -> str | None:
    m = _ITEM.match(text)
    if not m:
        return None
    return next((g for g in m.groups() if g), "•").lower()


#: Lines an item may run over when the next item's number is its successor ("3." ... "4."):
#: the numbering vouches for the list across an item's comments and sub-steps.
SEQUENCE_GAP = 12


def _successor(a: str | None, b: str | None) -> bool:
    if not a or not b:
        return False
    if a.isdigit() and b.isdigit():
        return int(b) in (int(a), int(a) + 1)  # "4." then its sub-steps "4.1", "4.2" or "5."
    return len(a) == 1 and len(b) == 1 and a.isalpha() and ord(b) == ord(a) + 1


def _gap(rows: list, i: int, j: int) -> int:
    """The gap allowed between items at ``i`` and ``j``."""
    if _successor(_item_number(rows[i].ln.text), _item_number(rows[j].ln.text)):
        return SEQUENCE_GAP
    return ITEM_GAP


def list_span(rows: list, start: int, end: int) -> tuple[int, int]:
    """Widen a window that touches an enumerated list (a procedure's steps, a clause's items)
    to the whole list: from its lead-in line ("Signature Generation:") to the end of its last
    item. A list ends at a heading, at a gap of more than :data:`ITEM_GAP` lines between items
    or where the numbering restarts at 1. Lists over :data:`LIST_MAX_LINES` are left as is."""
    items = [i for i, r in enumerate(rows) if r.ln.role not in HEADING_ROLES and _item_number(r.ln.text)]
    inside = [i for i in items if start <= i <= end]
    if not inside:
        # a list just above is the window's only when no heading opens another unit between them
        # ("• Authorization decisions ..." / "Quick link ..." / "AUTHORIZATION PACKAGE" / "TASK R-1 ...")
        prev = [
            i
            for i in items
            if i < start
            and start - i <= ITEM_GAP
            and not any(rows[k].ln.role in HEADING_ROLES for k in range(i + 1, start + 1))
        ]
        if not prev:
            return start, end
        inside = prev[-1:]
    first = last = inside[0]
    pos = items.index(first)
    while (
        pos > 0
        and first - items[pos - 1] <= _gap(rows, items[pos - 1], first)
        and _item_number(rows[first].ln.text) not in ("1", "a", "i")
    ):
        if any(rows[k].ln.role in HEADING_ROLES for k in range(items[pos - 1], first)):
            break
        pos -= 1
        first = items[pos]
    pos = items.index(last)
    while pos + 1 < len(items) and items[pos + 1] - last <= _gap(rows, last, items[pos + 1]):
        nxt = items[pos + 1]
        if _item_number(rows[nxt].ln.text) in ("1", "a", "i") or any(
            rows[k].ln.role in HEADING_ROLES for k in range(last + 1, nxt + 1)
        ):
            break
        pos += 1
        last = nxt
    tail = last
    while tail + 1 < len(rows) and tail - last < ITEM_GAP and not ends_sentence(rows[tail].ln.text):
        if rows[tail + 1].ln.role in HEADING_ROLES or _item_number(rows[tail + 1].ln.text):
            break
        tail += 1
    tail = _answered(rows, tail)
    lead = first - 1 if first > 0 and rows[first - 1].ln.text.rstrip().endswith(":") else first
    new_start, new_end = min(start, lead), max(end, tail)
    if new_end - new_start + 1 > LIST_MAX_LINES:
        return start, end
    return new_start, new_end


_BARE_ITEM = re.compile(r"^\s*\(?(?:\d{1,2}|[a-z]|[ivx]{1,5})[.)]\s*$", re.I)


def announced_list(rows: list, start: int, end: int) -> int:
    """A window cut off at the lead-in of a list ("3. The notification referred to in paragraph 1
    shall at least:", its last line or the next, past a bare "3.") reads on through that list
    when a member holds a question word: the budget spent on the paragraphs before it must not
    cut the list the question asks for (GDPR Article 33(3)). Lists over :data:`LIST_MAX_LINES`
    from the window's start are left as is. Returns the window's new last index."""
    lead = end
    for _ in range(2):
        if lead + 1 >= len(rows) or rows[lead].ln.text.rstrip().endswith(":"):
            break
        if lead > end and not _BARE_ITEM.match(rows[lead].ln.text):
            break
        lead += 1
    if not rows[lead].ln.text.rstrip().endswith(":") or lead + 1 >= len(rows):
        return end
    if not _item_number(rows[lead + 1].ln.text) or rows[lead + 1].ln.role in HEADING_ROLES:
        return end
    _, last = list_span(rows, lead + 1, lead + 1)
    if (
        last <= lead
        or last - start + 1 > LIST_MAX_LINES
        or not any(rows[k].hits for k in range(lead + 1, last + 1))
    ):
        return end
    return last


#: A sentence that ends by announcing what follows it on the page: "... are in the table below",
#: "listed below:", "as follows", "include the following." (its content is the rows after it);
#: not a discourse pointer ("as we discuss below.", "see below."), which names a later passage.
_ANNOUNCES_BELOW = re.compile(
    r"(?:\b(?:table|tables|list|chart|schedule|worksheet|steps|items|listed|shown|given|set\s+out|set\s+forth"
    r"|provided|specified|presented|outlined|included|as\s+follows)\s+below|\bas\s+follows|\bthe\s+following)"
    r"\s*[.:]?\s*$",
    re.I,
)
#: "the following notice," inside a sentence: an announcement the sentence goes on after.
_FOLLOWING_NOUN = re.compile(r"\bthe\s+following\s+\w+(?:\s+\w+)?\s*,", re.I)
#: Lines a window that ends announcing what is below reads on, at most.
BELOW_LINES = 12
#: Column heads (heading-role lines of at most HEAD_CELL_WORDS words) the rows below may open with.
HEAD_CELLS = 3
HEAD_CELL_WORDS = 4


def announced_below(rows: list, start: int, end: int) -> int:
    """A window whose last line ends a sentence announcing what follows ("... as specified
    below.", or "... are in the table below" over the table's column heads) reads on through the lines after it, up to a
    heading, the passage's end or :data:`BELOW_LINES` lines, when one of them holds a question
    word: the sentence promises those rows (a table not registered as a list), and an answer
    that stops at the promise says nothing. An announcement inside the window's last sentence
    ("attach the following boilerplate notice, with the fields ... replaced (...)!") counts when
    that sentence ends the window. Lists are read by :func:`announced_list`. Returns the window's
    new last index."""
    text = rows[end].ln.text.rstrip()
    if end + 1 >= len(rows):
        return end
    if not _ANNOUNCES_BELOW.search(text):
        # "attach the following boilerplate notice, with the fields ... replaced (...)": the
        # announcement inside the window's last sentence, which ends on the window's last line
        sentence = " ".join(r.ln.text for r in rows[max(start, end - 2) : end + 1])
        if not (_FOLLOWING_NOUN.search(sentence) and text.endswith((".", "!", "!)", ".)"))):
            return end
    elif not text.endswith((".", ":")) and rows[end + 1].ln.role not in HEADING_ROLES:
        return end  # "... specified below" / "assumes only ...": the sentence runs on
    last, body = end, False
    while last + 1 < len(rows) and last - end < BELOW_LINES:
        nxt = rows[last + 1].ln
        if nxt.role in _FURNITURE:
            break
        if nxt.role in HEADING_ROLES:  # a table's column heads open it ("Keyword Rule", "Rationale")
            if body or last - end >= HEAD_CELLS or len(nxt.text.split()) > HEAD_CELL_WORDS:
                break
        else:
            body = True
        last += 1
    if not body:
        return end
    if last - start + 1 > LIST_MAX_LINES or not any(rows[k].hits for k in range(end + 1, last + 1)):
        return end
    return last
