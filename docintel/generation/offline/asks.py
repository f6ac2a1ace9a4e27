"""A question that asks two things gets a window for each, when one passage holds both.

"How do we submit it, and how long is the public review?" asks two things. Keyword windows rank
lines by all of the question's terms together, so the passage's best window answers the ask
with more (or rarer) words, and the other ask's line, a few lines away in the same passage,
never seeds a window of its own (the window budget is spent, or its line scores under the cut).
Here the question is split into its asks (at ", and how ...", "; what ...", "? Which ..."), and
an ask whose own words (the words no other ask has) no chosen window holds gets a window on the
line of a chosen window's passage that holds most of them: its sentence, at most
:data:`ASK_LINES` lines. Only the passages already quoted are read: an ask is not a search.
"""

from __future__ import annotations

import re

from docintel.generation.offline.scoring import ScoredLine, Window, grow_window
from docintel.generation.text import content_stems
from docintel.schema.kinds import HEADING_ROLES

#: Where a question's next ask may open: after "." / "?" / ";" before a capital; at ", and" /
#: ", or" / ", but" before a question word or an auxiliary ("..., and how long is ...", "... and
#: does ..."); at "," before a question word other than a relative pronoun ("the masked LM, which
#: predicts ..." is one ask).
_WH = r"(?:what|which|how|why|when|where|who|whom|whose)\b"
_AUX = r"(?:does|do|did|is|are|was|were|can|could|should|must|may|will|would|has|have)\b"
_ASK_BREAK = re.compile(
    rf"(?:(?<=[.?;])\s+(?=[A-Z])|,?\s+(?:and|or|but)\s+(?={_WH}|{_AUX})|,\s+(?=(?:what|how|why|when|where)\b))",
    re.I,
)
#: A part of the question that asks something: it opens with a question word, an auxiliary or an
#: imperative ("when" / "where" with an auxiliary: "When moving X, which ..." is context), or ends
#: with "?". Other parts ("The drafting notes flag it as optional", "In the paper") are context,
#: read with the ask after them.
_ASKS = re.compile(
    rf"^\s*(?:(?:what|which|how|why|who|whom|whose)\b|(?:when|where)\s+{_AUX}|{_AUX}|"
    r"(?:list|name|give|describe|explain|state|identify)\b)|\?\s*$",
    re.I,
)
#: Lines an ask's window quotes at most (its sentence; a long sentence is cut after the seed).
ASK_LINES = 6
#: Windows added for asks at most: the answer's budget grows by at most this many sentences.
MAX_ASKS = 2


def split_asks(text: str) -> list[str]:
    """The question's asks, in order; one element when it asks one thing. A part that asks
    nothing (context, or "and why?" without a content word) is read with the ask next to it."""
    parts: list[str] = []
    carry = ""
    for piece in _ASK_BREAK.split(text or ""):
        piece = piece.strip()
        if not piece:
            continue
        if not _ASKS.search(piece):
            carry = f"{carry} {piece}".strip()  # context: read with the next ask
        elif parts and not content_stems(piece):
            parts[-1] += " " + piece
        else:
            parts.append(f"{carry} {piece}".strip())
            carry = ""
    if carry:
        if parts:
            parts[-1] += " " + carry
        else:
            parts.append(carry)
    return parts


def _own_words(asks: list[str]) -> list[set[str]]:
    """Each ask's content stems that no other ask has."""
    stems = [content_stems(a) for a in asks]
    return [s - set().union(*(o for j, o in enumerate(stems) if j != i)) for i, s in enumerate(stems)]


def _holds(hits: set[str], own: set[str]) -> int:
    return len(own & hits)


def _need(own: set[str]) -> int:
    """Own words a line must hold to answer an ask: its one word, else two (a topic word the
    asks share in meaning, "mapping" in "How is a mapping submitted", is not the ask)."""
    return min(len(own), 2)


def ask_windows(
    question_text: str, grouped: list[list[ScoredLine]], windows: list[Window], weights: dict[str, float]
) -> list[Window]:
    """``windows`` and, right after the window of its passage, a window for each ask none of them
    answers (see the module docstring); unchanged for a question with one ask."""
    asks = split_asks(question_text)
    if len(asks) < 2 or not windows:
        return windows
    out = list(windows)
    taken = {(w.passage, i) for w in windows for i in range(w.start, w.end + 1)}
    added = 0
    for own in _own_words(asks):
        if not own or added >= MAX_ASKS:
            continue
        need = _need(own)
        if any(_holds(w.hits, own) >= need for w in out):
            continue
        best: tuple[float, int, int] | None = None  # (score, passage, pos)
        for pi in dict.fromkeys(w.passage for w in windows):  # the quoted passages, once each
            for r in grouped[pi]:
                if (pi, r.pos) in taken or r.ln.role in HEADING_ROLES or _holds(r.hits, own) < need:
                    continue
                if "?" in r.ln.text:  # a question the document asks (a drafting note) answers nothing
                    continue
                score = sum(weights.get(h, 0.0) for h in r.hits & own) + 0.01 * r.context
                if best is None or score > best[0]:
                    best = (score, pi, r.pos)
        if best is None:
            continue
        _, pi, pos = best
        rows = grouped[pi]
        start, end = grow_window(rows, pos)
        start = max(start, pos - ASK_LINES + 1)
        end = min(end, start + ASK_LINES - 1)
        span = [i for i in range(start, end + 1) if (pi, i) not in taken]
        # the run of untaken lines around the seed (a neighbour window may hold the rest)
        lo = hi = pos
        while lo - 1 in span:
            lo -= 1
        while hi + 1 in span:
            hi += 1
        hits = set().union(*(rows[i].hits for i in range(lo, hi + 1)))
        new = Window(pi, lo, hi, pos, rows[pos].context, hits)
        at = max(k for k, w in enumerate(out) if w.passage == pi) + 1
        out.insert(at, new)
        taken |= {(pi, i) for i in range(lo, hi + 1)}
        added += 1
    return out


__all__ = ["ASK_LINES", "MAX_ASKS", "ask_windows", "split_asks"]
