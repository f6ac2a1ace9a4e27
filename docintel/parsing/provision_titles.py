"""Run-in titles of numbered provisions: the words after the number that name it.

"Payment. The Buyer ..." -> "Payment"; a bold section-sign title that wraps; a title in
capitals that wraps over up to three lines. Used by :mod:`provision_scan` on each candidate.
"""

from __future__ import annotations

import re

from docintel.parsing.headings import TITLE_CASE_MIN_FRACTION

#: A definition: a quoted term, then "means" (:mod:`provision_scan` keys a definitions list by it) ("‘personal data’ means any information ...")
DEFINED = re.compile(
    r"^[\"“‘'](?P<term>[^\"”’']{1,60})[\"”’'],?\s+(?:\([^)]{1,40}\)\s+)?"
    r"(?:means|shall mean|has the meaning|includes|shall include|refers to)\b"
)


#: :func:`title_of`'s patterns, compiled once (``re.match(str, ...)`` looks each up in re's cache per call)
_LEAD_STOP = re.compile(r"\.\u2014")
_RUN_IN = re.compile(r"^(?P<t>[A-Z][^.:;!?]{1,80}?)(?:[.:\u2014]\s+|\.\u2014)(?=\S)")
_STOPPED = re.compile(r"[^.;,]{2,100}\.")
_STOPPED_CAPS = re.compile(r"[^.a-z]{2,100}\.")
_DANGLING = re.compile(r"[.;,]$|\b(?:and|or|the|of|to|in|for|a|an|with|by|on)$")
_A_WORD = re.compile(r"[^\W\d_]{3,}")


def title_of(rest: str, lead: str | None, alone: bool = False) -> str:
    """The run-in title after a provision number, or '' for an untitled provision.

    ``alone``: the line is a paragraph by itself, so a short Title Case rest with no stop
    is a title on its own line ("1.3.1.  Authorization Code" in a monospace RFC).
    """
    rest = rest.strip()
    if isinstance(lead, str) and lead.strip() and rest.startswith(lead.strip()[:10]):
        t = _LEAD_STOP.split(lead.strip())[0].rstrip(".:\u2014\u2013- ")  # "PLAN.\u2014The term"
        if 0 < len(t) <= 100:
            return t
    # "Payment. The Buyer ...", "AT-RISK COMMUNITY.\u2014The term ..." (a statute's run-in title)
    m = _RUN_IN.match(rest)
    stopped = alone and (_STOPPED.fullmatch(rest) or _STOPPED_CAPS.fullmatch(rest))
    if stopped:
        rest = rest[:-1]  # "SEC. 101. DEFINITIONS." / "SHORT TITLE; TABLE OF CONTENTS." on a line of its own
    dangling = _DANGLING.search(rest)
    cand = m.group("t") if m else (rest if alone and not dangling else "")
    words = cand.split()
    long_words = [w for w in words if len(w) > 3]
    if not long_words and alone and len(words) == 1 and words[0].isalpha():
        long_words = words  # "Line 16. Tax" on a line of its own
    # a line ending in a stop is a title only in full Title Case: "This Agreement starts on the
    # Effective Date." is a one-line sentence
    need = 1.0 if stopped and not m else TITLE_CASE_MIN_FRACTION
    if (
        cand
        and _A_WORD.search(cand)  # a word, not a formula ("F(x, y) = y2 \u2212x3")
        and 1 <= len(words) <= 10
        and long_words
        and sum(w[0].isupper() for w in long_words) >= need * len(long_words)
    ):
        return cand.strip(" .:\u2014\u2013")
    return ""


def bold_title(rest: str, i: int, cols: dict[str, list], bolds: list[bool]) -> str:
    """A bold section title that wraps ("\u00a7 1307.22 Disposal of controlled sub-" / "stances by
    the Administration."): the bold lines up to the stop, '' when no stop ends them."""
    t, j, pages, texts = rest.strip(), i + 1, cols["page"], cols["text"]
    while not t.endswith(".") and j < len(texts) and j <= i + 2 and pages[j] == pages[i] and bolds[j]:
        nxt = " ".join(str(texts[j]).split())
        t = t[:-1] + nxt if t.endswith("-") and nxt[:1].islower() else f"{t} {nxt}"
        j += 1
    if not t.endswith(".") or len(t) > 160 or not t[:1].isupper():
        return ""
    return t.rstrip(".").strip()


def caps_title(rest: str, i: int, cols: dict[str, list]) -> str:
    """A title in capitals that wraps ("4. DISCLAIMER OF WARRANTIES AND LIABILITIES; WAIVER AND" /
    "INDEMNIFICATION"): the line and up to two more lines of capitals directly under it, up to
    the one that ends with a stop (or the last); '' when the first line is not capitals."""
    t = rest.strip()
    if not t.isupper() or t.endswith(".") or not re.search(r"[A-Z]{2}", t):
        return ""
    parts, j = [t], i + 1
    while j < len(cols["text"]) and j <= i + 2 and cols["page"][j] == cols["page"][i]:
        nxt = " ".join(str(cols["text"][j]).split())
        if (
            not nxt.isupper()
            or len(nxt.split()) > 8
            or not -0.5 * cols["size"][i] <= cols["y0"][j] - cols["y1"][j - 1] <= cols["size"][i]
        ):
            break
        parts.append(nxt)
        j += 1
        if nxt.endswith("."):
            break
    words = " ".join(parts).rstrip(".:").split()
    return " ".join(words) if len(parts) > 1 and len(words) <= 20 else ""
