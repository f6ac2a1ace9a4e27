"""The line that states what a question asks for, read first by the offline answer.

A question whose wording names the kind of value it wants (``ParsedQuestion.answer_type``:
"How soon must ...?" a duration, "How often ...?" a recurrence) is answered by a line that
states one ("in no case later than 60 calendar days after discovery", "each 5 years
thereafter"). Keyword windows rank the lines that repeat the question's words most, which is
often the provision's general rule above the one that gives the time. When no chosen window
holds such a value but a first-hop line on the question's topic does, that line's sentence
opens the answer and the keyword windows keep the rest of the budget.
"""

from __future__ import annotations

from docintel.generation.offline.defining import lead_with
from docintel.generation.offline.scoring import ANSWER_TYPE, ScoredLine, Window, grow_window
from docintel.schema.evidence import ParsedQuestion
from docintel.schema.kinds import HEADING_ROLES


def typed_first(
    q: ParsedQuestion,
    grouped: list[list[ScoredLine]],
    order: list[int],
    windows: list[Window],
    *,
    max_windows: int,
    max_lines: int,
    need: int = 1,
) -> list[Window]:
    """``windows`` with a sentence (in the passages ``order`` names) stating the question's answer
    type and ``need`` of its topic terms (as many as the answer needs to be found at all) first,
    when no window holds such a value: the one closest to the best keyword window within its
    provision (no heading between), else the best scoring."""
    if q.answer_type is None:
        return windows
    key = ANSWER_TYPE + q.answer_type
    if any(key in w.hits for w in windows):
        return windows
    typed: list[Window] = []
    for pi in order:
        rows = grouped[pi]
        for r in rows:
            if key not in r.hits or r.ln.role in HEADING_ROLES:
                continue
            start, end = grow_window(rows, r.pos)
            end = max(r.pos, min(end, start + max_lines - 1))
            hits = set().union(*(rows[i].hits for i in range(start, end + 1)))
            if len(hits - {key}) >= need:  # the sentence that states the value is on the question's topic
                typed.append(Window(pi, start, end, r.pos, r.context, hits))
    if not typed:
        return windows
    best = max(windows, key=lambda w: w.score) if windows else None
    near = [w for w in typed if best is not None and _same_region(grouped, best, w)]
    if near:  # the value stated closest to what the keywords found (ties: the earlier one)
        lead = min(near, key=lambda w: (min(abs(w.seed - best.start), abs(w.seed - best.end)), w.seed))
    else:
        lead = max(enumerate(typed), key=lambda kw: (kw[1].score, -kw[0]))[1]  # ties: reading order
    return lead_with(lead, windows, grouped, max_windows=max_windows, max_lines=max_lines)


def _same_region(grouped: list[list[ScoredLine]], w: Window, t: Window) -> bool:
    """``t``'s value is in the part of the passage the best keyword window ``w`` opens: no
    heading between the window's first line and it (the provision the keywords found states
    its own time)."""
    if t.passage != w.passage:
        return False
    lo, hi = sorted((w.start, t.seed))
    return not any(x.ln.role in HEADING_ROLES for x in grouped[w.passage][lo + 1 : hi + 1])


__all__ = ["typed_first"]
