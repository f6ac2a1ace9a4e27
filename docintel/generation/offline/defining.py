"""The line that defines a definition question's term, read first by the offline answer.

A definition question ("What is MCAS ...?", "What does 'sentence' refer to?") is answered by
the sentence that says what the term is (:func:`docintel.text.defining_pattern`): "MCAS is a
function of the Speed Trim System", "a "sentence" can be an arbitrary span of contiguous text",
"Business Day means ...", a glossary line "PII: ...". Keyword windows rank the lines that use the term most, which are rarely the
one that defines it (a footnote, a parenthesis in a long paragraph). The defining sentence and
the one after it (a definition is often qualified next: "MCAS is activated only during manual
flight") open the answer.
"""

from __future__ import annotations

from docintel.generation.offline.scoring import FORWARD, ScoredLine, Window, grow_window
from docintel.generation.offline.spans import bare_term, term_column
from docintel.generation.text import ends_sentence, normalize
from docintel.schema.evidence import ParsedQuestion
from docintel.schema.kinds import HEADING_ROLES
from docintel.text import defining_pattern


def defining_window(grouped: list[list[ScoredLine]], passage_ids: list[int], term: str) -> Window | None:
    """A window on the first line (in the order of ``passage_ids``) that defines ``term``: its
    sentence and the next, each within :data:`FORWARD` lines (narrow columns)."""
    pat = defining_pattern(term)
    for pi in passage_ids:
        rows = grouped[pi]
        for i, r in enumerate(rows):
            # a definition may wrap: the term at a line's end, the verb on the next line
            text = normalize(r.ln.text) + (" " + normalize(rows[i + 1].ln.text) if i + 1 < len(rows) else "")
            m = pat.search(text)
            if r.ln.role in HEADING_ROLES or not m or m.start() >= len(normalize(r.ln.text)):
                continue
            if term_column(rows, i):
                continue  # "Restricted Data –" in a column of terms: its definition is elsewhere
            start, end = grow_window(rows, i)
            limit = min(len(rows) - 1, end + FORWARD)
            nxt = end + 1  # one more sentence: the definition's qualification
            while nxt <= limit and rows[nxt].ln.role not in HEADING_ROLES and not bare_term(rows, nxt):
                if ends_sentence(rows[nxt].ln.text):
                    end = nxt
                    break
                end = nxt
                nxt += 1
            hits = set().union(*(rows[k].hits for k in range(start, end + 1)))
            return Window(pi, start, end, i, max(x.context for x in rows[start : end + 1]), hits)
    return None


def definition_first(
    q: ParsedQuestion,
    grouped: list[list[ScoredLine]],
    order: list[int],
    windows: list[Window],
    *,
    max_windows: int,
    max_lines: int,
) -> list[Window]:
    """A definition question's defining sentence (in the passages ``order`` names, first match
    first) opens the answer; the keyword windows it overlaps are dropped and the others kept,
    best first, within ``max_windows`` windows and ``max_lines`` lines in all (a window that
    does not fit is cut short when it still holds its seed line, else dropped)."""
    if q.shape != "definition" or not q.defined_term:
        return windows
    d = defining_window(grouped, order, q.defined_term)
    if d is None:
        return windows
    return lead_with(d, windows, grouped, max_windows=max_windows, max_lines=max_lines)


def lead_with(
    d: Window, windows: list[Window], grouped: list[list[ScoredLine]], *, max_windows: int, max_lines: int
) -> list[Window]:
    """``d`` first, then the windows it does not overlap, best first, within ``max_windows``
    windows and ``max_lines`` lines in all (a window that does not fit is cut short when it
    still holds its seed line, else dropped), in the order they came."""
    rest = [w for w in windows if w.passage != d.passage or w.end < d.start or w.start > d.end]
    used, kept = d.end - d.start + 1, {}
    for k, w in sorted(enumerate(rest), key=lambda kw: -kw[1].score):
        room = max_lines - used
        if 1 + len(kept) >= max_windows or w.start + room - 1 < w.seed:
            continue  # no window left, or no room for the window's seed line
        end = min(w.end, w.start + room - 1)
        hits = set().union(*(grouped[w.passage][i].hits for i in range(w.start, end + 1)))
        kept[k] = Window(w.passage, w.start, end, w.seed, w.score, hits)
        used += end - w.start + 1
    return [d, *(kept[k] for k in sorted(kept))]  # the rest in page order, as they came
