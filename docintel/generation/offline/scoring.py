"""Explainable line scoring for the offline backend.

How a line scores (every number is reported in the call record, ``CallInfo.details``, for the trace):

* The question gives *terms*: content-word stems of ``ParsedQuestion.keywords`` (or of the
  question text when the parser gave none), its ``phrases`` and its ``numbers``.
* Each term has a weight: base (word 1, number 2, phrase 3) x (1 + ln((N+1)/(df+1))), where N
  is the number of evidence lines and df the number of lines holding the term, so a term
  found on every line counts less than one found on two.
* A word term matches a line word with the same stem, or one sharing a long prefix
  ('regularizers' / 'regularization'); numbers match exactly; phrases match after
  normalization, also across a line break.
* line score = sum of the weights of the distinct terms on the line; context score =
  line score + 0.5 x (scores of the previous and next line of the same passage), so a
  line inside a relevant paragraph beats an isolated hit.
* A long pulled-in target is scored again on its own with the content words of the sentence
  that pointed at it added as word terms (``read_as_pointed``): "the bitwise exclusive-or,
  defined in Section 1.5" reads Section 1.5 for "exclusive-or", not only for the question's words.
* A window grows from a seed line to sentence boundaries (``spans.py``; at most 8 lines back, 6 forward,
  never forward into a heading nor back past one); a sentence that is a question the document
  asks (an FAQ) is followed by the next one, its answer; an inline enumeration ("(i) access
  control; ... (xvii) ...") is read to its last member.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from docintel.generation.offline.spans import (  # noqa: F401 - re-exported: defining, answertype and tests import them from here
    _BARE_ITEM,
    _FURNITURE,
    _INLINE_ITEM,
    _ITEM,
    BACK,
    FORWARD,
    ITEM_GAP,
    LIST_MAX_LINES,
    SEQUENCE_GAP,
    SERIES_LINES,
    _answered,
    _forward,
    _gap,
    _in_series,
    _item_number,
    _successor,
    _through_series,
    announced_below,
    announced_list,
    grow_window,
    list_span,
)
from docintel.generation.offline.tablerows import rows_above_caption, rows_below_caption
from docintel.generation.text import content_stems, ends_sentence, join_lines, normalize, stem, tokens
from docintel.schema.evidence import EvidenceLine, ParsedQuestion, Passage
from docintel.schema.kinds import HEADING_ROLES
from docintel.text import ANSWER_TYPE_PATTERNS


@dataclass
class Term:
    key: str
    kind: str  # word | number | phrase
    weight: float = 1.0


@dataclass
class ScoredLine:
    passage: int
    pos: int  # index inside the passage
    ln: EvidenceLine
    score: float = 0.0
    context: float = 0.0
    hits: set[str] = field(default_factory=set)


@dataclass
class Window:
    passage: int
    start: int  # first index inside the passage
    end: int  # last index inside the passage (inclusive)
    seed: int
    score: float
    hits: set[str]
    #: a held appendix-like unit's quote (``heldtargets``): what the answer's clip leaves goes to
    #: the pulled-in targets before it (``compose``)
    held: bool = False


def question_terms(q: ParsedQuestion) -> list[Term]:
    """The terms a line can match, de-duplicated (phrases, numbers, then word stems)."""
    terms: dict[str, Term] = {}
    phrases = list(q.phrases) + [k for k in q.keywords if len(k.split()) > 1]
    compounds = {ph for ph in phrases if "-" in ph and not ph.split()[1:]}
    spelled = {c.replace("-", " ") for c in compounds}
    for ph in phrases:
        key = normalize(ph)
        if len(key) <= 2 or (ph in spelled and ph not in compounds):
            continue  # "pre trained" beside "pre-trained": one word spelled two ways
        # a hyphenated compound is one word of the question, not a phrase of several
        terms.setdefault(key, Term(key, "phrase", 1.0 if ph in compounds else 3.0))
    for num in q.numbers:
        key = normalize(num)
        if key:
            terms.setdefault(key, Term(key, "number", 2.0))
    words = set()
    for kw in q.keywords or []:
        words |= content_stems(kw)
    if not words:
        words = content_stems(q.text)
    for w in sorted(words):
        kind = "number" if w[0].isdigit() else "word"
        terms.setdefault(w, Term(w, kind, 2.0 if kind == "number" else 1.0))
    if q.answer_type in ANSWER_TYPE_PATTERNS:  # "How soon ...?": a line stating a time span is
        # marked (weight 0: it seeds no window of its own; see answertype.typed_first)
        terms.setdefault(ANSWER_TYPE + q.answer_type, Term(ANSWER_TYPE + q.answer_type, "answer_type", 0.0))
    return list(terms.values())


#: Key prefix of the term that stands for the question's answer type (a line stating a duration).
ANSWER_TYPE = "answer type: "


def _stem_match(a: str, b: str) -> bool:
    if a == b:
        return True
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    short = min(len(a), len(b))
    # 'activ' / 'activat': a whole stem of 5+ letters opening the other one; else a long shared
    # prefix ('regularizer' / 'regulariz'), which 'transl' / 'transformer' is not.
    return (n == short and short >= 5) or n >= max(6, short - 2)


def _line_hits(text: str, next_text: str, terms: list[Term]) -> set[str]:
    norm = normalize(text)
    pair = normalize(join_lines([text, next_text])) if next_text else norm
    next_norm = normalize(next_text) if next_text else ""
    stems = {stem(t) if not t[0].isdigit() else t for t in tokens(text) if t}
    hits = set()
    for t in terms:
        if t.kind == "phrase":
            if t.key in norm or (t.key in pair and t.key not in next_norm):
                hits.add(t.key)
        elif t.kind == "number":
            if t.key in stems:
                hits.add(t.key)
        elif t.kind == "answer_type":  # "60" / "calendar days" may wrap: a value opening on this line
            if any(
                m.start() < len(norm)
                for m in ANSWER_TYPE_PATTERNS[t.key.removeprefix(ANSWER_TYPE)].finditer(pair)
            ):
                hits.add(t.key)
        elif any(_stem_match(t.key, s) for s in stems if s and not s[0].isdigit()):
            hits.add(t.key)
    return hits


def score_lines(
    passages: list[Passage], terms: list[Term]
) -> tuple[list[list[ScoredLine]], dict[str, float]]:
    """Score every evidence line; returns lines grouped by passage and the term weights used."""
    grouped: list[list[ScoredLine]] = []
    for pi, p in enumerate(passages):
        rows = []
        for i, ln in enumerate(p.lines):
            nxt = p.lines[i + 1].text if i + 1 < len(p.lines) else ""
            hits = set() if ln.role in _FURNITURE else _line_hits(ln.text, nxt, terms)
            rows.append(ScoredLine(pi, i, ln, hits=hits))
        grouped.append(rows)
    n = sum(len(g) for g in grouped)
    df = {t.key: sum(1 for g in grouped for r in g if t.key in r.hits) for t in terms}
    weights = {t.key: round(t.weight * (1.0 + math.log((n + 1) / (df[t.key] + 1))), 3) for t in terms}
    for g in grouped:
        for r in g:
            r.score = math.fsum(weights[h] for h in r.hits)  # fsum: exact, so set order never shows
        for i, r in enumerate(g):
            prev = g[i - 1].score if i > 0 else 0.0
            nxt = g[i + 1].score if i + 1 < len(g) else 0.0
            r.context = r.score + 0.5 * (prev + nxt)
    return grouped, weights


#: Lines a window may run past the line budget to finish the sentence the budget cut ("... is
#: governed by" | "the terms of this License."): the end of a sentence is where its point is made.
FINISH = 2
#: A window's seed must score at least this share of the best line: below it a line is too loosely
#: related to the question to be quoted (the corpus path's first-hop budget reads the same cut)
MIN_RATIO = 0.4


def pick_windows(
    grouped: list[list[ScoredLine]],
    passage_ids: list[int],
    *,
    max_windows: int,
    max_lines: int,
    min_ratio: float = MIN_RATIO,
    read_lists: bool = False,
    finish: int = FINISH,
    read_rows: bool = True,
) -> list[Window]:
    """Best windows over the given passages: seeds by context score (ties: page order), each
    grown to sentences, overlapping seeds skipped, until the window or line budget is spent.
    ``read_lists``: a window cut at a list's lead-in reads the list (:func:`announced_list`): the
    first hop's windows of a question that asks for no value (a number or length is answered by
    a sentence; a pulled-in target is read as pointed). ``finish``: lines a window may run past
    the budget to end its sentence (0 for a pulled target, whose quote a character clip cuts).
    ``read_rows``: a window ending on a caption reads on to the table rows the question hits
    (:func:`rows_below_caption`; off for a pulled target, whose clipped quote the rows would crowd)."""
    cands = [r for pi in passage_ids for r in grouped[pi] if r.score > 0]
    if not cands:
        return []
    best = max(r.context for r in cands)
    cands.sort(key=lambda r: (-r.context, r.ln.page, r.ln.line))
    out: list[Window] = []
    used = 0
    for r in cands:
        if used >= max_lines or r.context < min_ratio * best:
            break
        rows = grouped[r.passage]
        if any(w.passage == r.passage and w.start <= r.pos <= w.end for w in out):
            continue
        if len(out) >= max_windows:  # no window left: a seed whose sentence follows one extends it
            used += _extend_next(out, rows, r, max_lines - used, read_rows)
            continue
        start, end = grow_window(rows, r.pos)
        reach = r.pos + FORWARD  # past it only to finish an inline enumeration
        if end > reach and _in_series(rows, reach):
            reach += SERIES_LINES
        end = min(end, reach)
        budget_end = start + max(0, max_lines - used) - 1
        if budget_end < end:  # a sentence ending a few lines past the budget is finished (FINISH),
            # when the budget left room for the seed line: no window is opened on the overrun alone
            fin = min(end, budget_end + finish) if budget_end >= r.pos else budget_end
            end = _sentence_close(rows, budget_end, fin)
        if end < r.pos:
            break
        start, end = list_span(rows, start, end)
        if read_lists:
            end = announced_list(rows, start, end)
            end = announced_below(rows, start, end)
        start = rows_above_caption(rows, r.pos, start, end, max_lines - used)
        if read_rows:
            end = rows_below_caption(rows, start, end, max_lines - used)
        hits = set().union(*(rows[i].hits for i in range(start, end + 1)))
        out.append(Window(r.passage, start, end, r.pos, round(r.context, 3), hits))
        # whole lines, the table rows a reach-back added too: ``line_cost`` only lets one window
        # reach a table's short rows; later windows get what is left of the lines actually read
        used += end - start + 1
    return merge_windows(out, grouped)


#: Seed lines that extend no window of a pick that reads no table rows (:func:`_extend_next`).
_NO_EXTEND = HEADING_ROLES | {"table", "caption"}


def _extend_next(out: list[Window], rows: list[ScoredLine], r: ScoredLine, left: int, read_rows: bool) -> int:
    """Extend the window of ``out`` that ends right before the sentence of seed ``r`` through that
    sentence, when ``left`` lines allow; returns the lines added (0: none). The window budget is
    spent, but a strong line opening the very next sentence ("15 lines of code ... need papers."
    then "A change of just a few lines (less than 15 or so) is not legally significant.") costs
    no window: without this the window stops one line short of it. A heading opens another
    unit: no extension; nor a grid row or caption where the pick reads no table rows
    (``read_rows`` off: a pulled target, whose clipped quote rows would crowd). A form's line
    ("35a Amount of line 34 you want refunded to you.") is a table row the first hop reads on to."""
    if rows[r.pos].ln.role in (HEADING_ROLES if read_rows else _NO_EXTEND):
        return 0
    start, end = grow_window(rows, r.pos)
    end = min(end, r.pos + FORWARD)
    for w in out:
        if w.passage == r.passage and w.end + 1 == start and end - w.end <= left:
            added = end - w.end
            w.hits = w.hits | set().union(*(rows[i].hits for i in range(w.end + 1, end + 1)))
            w.end = end
            return added
    return 0


#: A sentence ending inside a line: ". You may not ..." (the line is quoted whole, the next
#: sentence's opening with it).
_MID_END = re.compile(r"[.!?][\"”’)]?\s+[A-Z(“\"]")


def _sentence_close(rows: list[ScoredLine], cut: int, limit: int) -> int:
    """The first line after ``cut``, up to ``limit``, that ends the sentence running over the cut
    (at its end or inside it); ``cut`` when none does within ``limit``."""
    if cut >= 0 and ends_sentence(rows[cut].ln.text):
        return cut
    for k in range(cut + 1, limit + 1):
        text = rows[k].ln.text
        if ends_sentence(text) or _MID_END.search(text):
            return k
    return cut


def merge_windows(windows: list[Window], grouped: list[list[ScoredLine]]) -> list[Window]:
    """Merge overlapping or touching windows of one passage; return them in page/line order."""
    windows = sorted(windows, key=lambda w: (w.passage, w.start))
    merged: list[Window] = []
    for w in windows:
        last = merged[-1] if merged else None
        if last and last.passage == w.passage and w.start <= last.end + 1:
            seed = last.seed if last.score >= w.score else w.seed
            merged[-1] = Window(
                w.passage,
                last.start,
                max(last.end, w.end),
                seed,
                max(last.score, w.score),
                last.hits | w.hits,
            )
        else:
            merged.append(w)
    return sorted(
        merged, key=lambda w: (grouped[w.passage][w.start].ln.page, grouped[w.passage][w.start].ln.line)
    )


#: Words of a pointing sentence that name the pointer, not what it points at.
_POINTER_WORDS = {"see", "section", "chapter", "part", "table", "figure", "appendix", "annex", "describ",
                  "defin", "list", "shown", "refer", "abov", "below", "follow", "accord", "specifi"}  # fmt: skip


def _origin_text(passages: list[Passage], origin: tuple[int, int]) -> str:
    """The line a pointer was written on and its neighbours (its sentence, roughly)."""
    for p in passages:
        for i, ln in enumerate(p.lines):
            if (ln.page, ln.line) == tuple(origin):
                return join_lines(x.text for x in p.lines[max(0, i - 1) : i + 2])
    return ""


def read_as_pointed(
    passages: list[Passage], grouped: list[list[ScoredLine]], pi: int, terms: list[Term] | None
) -> list[list[ScoredLine]]:
    """``grouped`` with passage ``pi`` (a pulled-in target) scored on its own, the question's
    terms plus the content words of the sentence that pointed at it (see the module docstring).
    Unchanged when the pointing line is not in the evidence or adds no word."""
    p = passages[pi]
    origin = _origin_text(passages, p.referenced_from) if p.referenced_from else ""
    terms = list(terms or [])
    have = {t.key for t in terms}
    ref_words = content_stems(p.reference_text or "")
    extra = sorted(content_stems(origin) - ref_words - have)
    extra = [w for w in extra if not w[0].isdigit() and not any(w.startswith(x) for x in _POINTER_WORDS)]
    if not extra:
        return grouped
    rows = score_lines([p], terms + [Term(w, "word", 1.0) for w in extra])[0][0]
    for r in rows:
        r.passage = pi
    return [rows if i == pi else g for i, g in enumerate(grouped)]
