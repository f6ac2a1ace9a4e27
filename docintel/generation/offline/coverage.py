"""A window for the question's words no chosen window holds (the offline answer's last pick).

Windows are picked by context score, which a phrase the passage repeats ("recovery metrics" on
every other line) dominates: the 14-line budget goes to the paragraphs about the topic, and the
one sentence holding the question's other words ("sharing of metrics ... should occur only with
the approval of appropriate organizational stakeholders, including ...") is left out, though it
is the answer to "Who has to approve the sharing of recovery metrics?". When two or more of the
question's word terms are held by no chosen window, the line of a quoted passage holding most of
them (by weight, at least :data:`MIN_SHARE` of the best line's score) gets a sentence window of
at most :data:`COVER_LINES` lines, placed after its passage's windows. One such window at most.
"""

from __future__ import annotations

from docintel.generation.offline.scoring import ScoredLine, Window, grow_window
from docintel.schema.kinds import HEADING_ROLES

#: Lines the covering window holds, at most (its sentence, cut around the seed line).
COVER_LINES = 6
#: The uncovered words' weight on the seed line, against the best line score of the passages.
MIN_SHARE = 0.4
#: Uncovered word terms a line must hold.
NEED = 2
#: Lines that seed no covering window: a heading names a topic, and a grid line's words are cells
#: of rows and columns a sentence window cannot read (the window quotes neighbouring cells).
_NO_SEED = HEADING_ROLES | {"table"}


def cover_window(
    grouped: list[list[ScoredLine]], windows: list[Window], weights: dict[str, float], kinds: dict[str, str]
) -> list[Window]:
    """``windows`` and, after the windows of its passage, a window on the line holding the most
    weight of the question's word terms no window holds (see the module docstring)."""
    if not windows:
        return windows
    held = set().union(*(w.hits for w in windows))
    missing = {k for k, kind in kinds.items() if kind in ("word", "number") and k not in held}
    if len(missing) < NEED:
        return windows
    passages = list(dict.fromkeys(w.passage for w in windows))
    taken = {(w.passage, i) for w in windows for i in range(w.start, w.end + 1)}
    top = max((r.score for pi in passages for r in grouped[pi]), default=0.0)
    best: tuple[float, int, int] | None = None
    for pi in passages:
        for r in grouped[pi]:
            new = r.hits & missing
            if len(new) < NEED or (pi, r.pos) in taken or r.ln.role in _NO_SEED or "?" in r.ln.text:
                continue  # a question the document asks (a drafting note, an FAQ's ask) answers nothing
            score = sum(weights.get(h, 0.0) for h in new)
            if score >= MIN_SHARE * top and (best is None or score > best[0]):
                best = (score, pi, r.pos)
    if best is None:
        return windows
    _, pi, pos = best
    rows = grouped[pi]
    start, end = grow_window(rows, pos)
    start = max(start, pos - COVER_LINES // 2)
    end = min(end, start + COVER_LINES - 1)
    lo = hi = pos  # the run of untaken lines around the seed (a neighbour window may hold the rest)
    while lo - 1 >= start and (pi, lo - 1) not in taken:
        lo -= 1
    while hi + 1 <= end and (pi, hi + 1) not in taken:
        hi += 1
    hits = set().union(*(rows[i].hits for i in range(lo, hi + 1)))
    out = list(windows)
    at = max(k for k, w in enumerate(out) if w.passage == pi) + 1
    out.insert(at, Window(pi, lo, hi, pos, round(rows[pos].context, 3), hits))
    return out


__all__ = ["COVER_LINES", "cover_window"]
