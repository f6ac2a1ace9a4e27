"""A document's articles numbered in body type ("1. 2. 3.", "1) 2) 3)", "1.Title"), and lists that are not.

Word-processed contracts and rule books set their articles in the body font: a line opens with
the number and a title, alone ("2.Scope of the rights granted by the Licence", "1. Definitions")
or run into the article's text ("1) Grant of Copyright License. Licensor grants You ...",
"3. Protecting Users' Legal Rights From Anti-Circumvention Law. No covered work ...").
Typography finds none of them. :func:`mark_articles` takes such lines as level-1 headings when,
together with the numbered level-1 headings typography did find, they make one run 1, 2, 3, ...
(or 0, 1, 2, ...) through the document: each number once, each article a paragraph or more, the
run reaching over most of the text. A numbered list is local (it sits inside one section and
restarts at 1 in the next) or made of one-line items, so it makes no such run.

:func:`out_of_sequence` is the other side: when the outline or contents page numbers the
sections, a detected "3" between the outline's "2.1" and "2.2" is a list item set in a heading
font (a rule book's numbered guidelines), or a running footer "Chapter 1. ..." lower on a page.
"""

from __future__ import annotations

import bisect
import re

import numpy as np

from docintel.parsing.heading_text import Candidate, first_sentence

#: "1. Title", "1.Title", "1) Title": the number (at most two digits), its delimiter, a capital.
#: Or "3 Copying, modifying and Conveying Covered Source": the number, a space, the title (CERN-OHL);
#: such a member must be its whole line (a line of running text may open with "2 Members ...").
_ARTICLE = re.compile(r"\s*(\d{1,2})([.)]\s*|\s+)(?=[^\W\d_])(?=[A-Z\u00c0-\u00de\u0100-\u017f])(.*)$")
#: Numbers a run may pass over (articles set otherwise: MPL's 6 and 7 in a box of asterisks).
MAX_SKIPPED = 2
#: Marks a title cut from a line that runs on into the article's text (never in a real title).
_RUN_IN = "\x00"
#: An article line this much above the body size (or bold) is set as a heading (LARGER_BY_PT).
STYLED_BY_PT = 0.9
#: Fewest members of a run (with the headings typography found).
MIN_RUN = 3
#: A run's members share their left edge within this many points.
X_TOLERANCE_PT = 3.0
#: Median lines from one member to the next: an article is a paragraph or more (a list of
#: one-line items is not; set by hand on set 8 and the Debian Policy Manual; not measured).
MIN_MEDIAN_GAP = 3
#: The run, first member to its last member's end, spans this share of the document's lines
#: (a list inside one section spans a page or two; set by hand, not measured).
MIN_SPAN_SHARE = 0.5
#: Longest article title in words (a list item is a sentence).
MAX_TITLE_WORDS = 12
#: A member may be this many points smaller than the body text (small print numbers notes).
SMALLER_BY_PT = 1.0
#: A run whose gaps hold unnumbered headings in this many places is a list continued under
#: sections (tax instructions' steps "1. Enter the amount ..." under "Who Must File", ...):
#: articles are the document's top level, no heading sits between two of them (set by hand).
MAX_HEADED_GAPS = 1


def _title(rest: str) -> str | None:
    """The article title of the text after the number: the line, or its run-in first sentence."""
    rest = rest.strip()
    head = first_sentence(rest)
    if head != rest:  # run in: "Grant of Copyright License. Licensor grants ..."
        title = head.rstrip(". ") + _RUN_IN
    elif len(rest.split()) <= MAX_TITLE_WORDS and not rest.endswith((",", ";", ":")):
        title = rest.rstrip(". ")
    else:
        return None
    words = title.removesuffix(_RUN_IN).split()
    if not words or len(words) > MAX_TITLE_WORDS or title.removesuffix(_RUN_IN).endswith((",", ";", ":")):
        return None
    return title


def _top_number(c: Candidate) -> int | None:
    """The number of a detected level-1 decimal heading ("4", "4."), else None."""
    if c.kind != "decimal" or not c.number:
        return None
    n = c.number.rstrip(".")
    return int(n) if n.isdigit() else None


def mark_articles(cands: list[Candidate], body: float, skip_pages: set, plain=None) -> list[Candidate]:
    """Mark body-type article lines as level-1 decimal headings; return the ones marked.

    ``cands`` are every candidate in (page, line) order, ``extra["heading_like"]`` set. A line is an
    article when it belongs to the document's one run of numbers (see the module docstring);
    the headings typography found with a level-1 number join the run (the GPL's bold "1." to
    "16." around its run-in "3.", "9.", "10.", "13." and its "0."). ``plain``: the lines kept out
    of ``cands`` (:class:`headings.PlainLines`: none opens with a digit, so none is a member);
    they count in the positions as if they were in the list.
    """
    items: list[tuple[int, str, Candidate, str | None]] = []  # (number, delimiter, cand, title)
    order, n_cands = _positions(cands, plain)
    for c in cands:
        if c.extra.get("heading_like"):
            n = _top_number(c)
            if n is not None:
                items.append((n, ".", c, None))
            continue
        if c.kind not in (None, "decimal") or c.page in skip_pages or c.extra.get("table_row"):
            continue
        t = c.text
        if not t[:1].isdigit():
            continue
        m = _ARTICLE.match(t)
        if m is None or c.size < body - SMALLER_BY_PT or c.run_in:
            continue
        title, delim = _title(m.group(3)), m.group(2).strip() or " "
        if title is not None and not (delim == " " and title.endswith(_RUN_IN)):
            items.append((int(m.group(1)), delim, c, title))
    if len(items) < MIN_RUN or not any(t is not None for *_, t in items):
        return []
    heads = [order[id(c)] for c in cands if c.extra.get("heading_like") and not c.number]
    best: list[tuple] = []
    for delim in (".", ")", " "):
        group = [it for it in items if it[1] == delim or it[3] is None]
        for run in _runs(group):
            if len(run) > len(best) and _fits(run, order, n_cands) and not _headed(run, order, heads):
                best = run
    out = []
    for n, _, c, title in best:
        if title is None:
            continue
        title = _caps_wrap(title, c, _following(c, cands, order, plain))
        c.kind, c.number, c.title = "decimal", str(n), title.removesuffix(_RUN_IN)
        c.extra["heading_like"] = True
        styled = c.bold or c.size >= body + STYLED_BY_PT
        c.extra["article"] = "line" if styled and not title.endswith(_RUN_IN) else "body"
        out.append(c)
    return out


def _positions(cands: list[Candidate], plain) -> tuple[dict[int, int], int]:
    """Each candidate's position in the document's candidates (``cands`` with ``plain``'s lines
    merged in by (page, line)), by id, and their number."""
    if plain is None or not plain.pages:
        return {id(c): i for i, c in enumerate(cands)}, len(cands)
    keys = plain.keys()
    own = np.array([c.page * 1_000_000 + c.line for c in cands], dtype=np.int64)
    before = np.searchsorted(keys, own).tolist()  # plain lines ahead of each candidate
    return {id(c): i + k for i, (c, k) in enumerate(zip(cands, before, strict=True))}, len(cands) + len(keys)


def _following(c: Candidate, cands: list[Candidate], order: dict[int, int], plain) -> Candidate | None:
    """The candidate after ``c`` in the positions of :func:`_positions` (None at the end)."""
    if plain is None or not plain.pages:
        i = order[id(c)] + 1
        return cands[i] if i < len(cands) else None
    keys = plain.keys()
    key = c.page * 1_000_000 + c.line
    k = int(np.searchsorted(keys, key, side="right"))
    i = order[id(c)] - k + 1  # the next one in ``cands``
    nxt = cands[i] if i < len(cands) else None
    if k < len(keys) and (nxt is None or int(keys[k]) < nxt.page * 1_000_000 + nxt.line):
        return plain.at_key(int(keys[k]))
    return nxt


def _caps_wrap(title: str, c: Candidate, nxt: Candidate | None) -> str:
    """A title in capitals wrapped onto the next line ("... WAIVER AND" / "INDEMNIFICATION")."""
    if title.endswith(_RUN_IN) or not title.isupper() or nxt is None:
        return title
    t = nxt.text.strip()
    if (
        nxt.page == c.page
        and -X_TOLERANCE_PT <= nxt.x0 - c.x0 <= 3 * c.size  # flush, or under the title past the number
        and abs(nxt.size - c.size) < 0.5
        and t.isupper()
        and len(t.split()) <= MAX_TITLE_WORDS // 2
        and not t[:1].isdigit()
    ):
        return f"{title} {t.rstrip('. ')}"
    return title


def _runs(group: list[tuple]) -> list[list[tuple]]:
    """Runs n, n+1 (or up to MAX_SKIPPED more) ... from 0 or 1 at one left edge, in reading order (a restart ends them)."""
    out: list[list[tuple]] = []
    open_runs: list[list[tuple]] = []
    for it in group:
        n, c = it[0], it[2]
        for run in open_runs:
            last = run[-1]
            if last[0] < n <= last[0] + 1 + MAX_SKIPPED and abs(last[2].x0 - c.x0) <= X_TOLERANCE_PT:
                run.append(it)
                break
        else:
            if n in (0, 1):
                # a restart at the same edge: the list numbered afresh, no run goes on past it
                open_runs = [r for r in open_runs if abs(r[-1][2].x0 - c.x0) > X_TOLERANCE_PT]
                open_runs.append([it])
                out.append(open_runs[-1])
    return [r for r in out if len(r) >= MIN_RUN]


def _fits(run: list[tuple], order: dict[int, int], n_cands: int) -> bool:
    """A run of articles: each a paragraph or more, the whole reaching over most of the text."""
    pos = [order[id(it[2])] for it in run]
    gaps = sorted(b - a for a, b in zip(pos, pos[1:], strict=False))
    if gaps[len(gaps) // 2] < MIN_MEDIAN_GAP:
        return False
    # the last article runs on to the end of the text, or at least as far as the median article
    span = pos[-1] + gaps[len(gaps) // 2] - pos[0]
    return span >= MIN_SPAN_SHARE * n_cands


def _headed(run: list[tuple], order: dict[int, int], heads: list[int]) -> bool:
    """True when unnumbered headings sit between members in more than MAX_HEADED_GAPS places."""
    pos = [order[id(it[2])] for it in run]
    gaps = {bisect.bisect_left(pos, h) for h in heads if pos[0] < h < pos[-1]}
    return len(gaps) > MAX_HEADED_GAPS


def _key(number: str) -> tuple[int, ...] | None:
    n = number.strip().rstrip(".")
    if not re.fullmatch(r"\d{1,3}(?:\.\d{1,3}){0,5}", n):
        return None
    return tuple(int(x) for x in n.split("."))


def out_of_sequence(entries: list[dict], detected: list[Candidate]) -> set[int]:
    """:func:`_unfit` against the outline's or contents page's numbered entries; without any, the
    detected level-1 numbers against the detected "N.M" headings (the same manual printed without
    an outline: "1. Russ Allbery" in bold between its 1.3.2 and 1.3.3)."""
    if any(isinstance(e.get("number"), str) and _key(e["number"]) for e in entries):
        return _unfit(entries, detected)
    deep = [
        {"number": c.number, "page_start": c.page, "line_start": c.line}
        for c in detected
        if c.kind == "decimal" and c.number and "." in c.number.strip().rstrip(".")
    ]
    return _unfit(
        deep,
        [
            c
            for c in detected
            if c.kind == "decimal" and c.number and _key(c.number) and len(_key(c.number)) == 1
        ],
    )


def _unfit(entries: list[dict], detected: list[Candidate]) -> set[int]:
    """ids of detected numbered headings whose number does not fit between the outline's neighbours.

    ``entries`` are the outline's or contents page's entries (before detected headings join);
    a detected heading numbered "N" or "N.M" must not sort before the primary entry before it,
    nor after the one after it when it is shallower than both, where those two are in order
    themselves (a numbering that restarts, part by part, says nothing).
    """
    prim = sorted(
        (e["page_start"], e["line_start"] if e["line_start"] is not None else 10**6, k)
        for e in entries
        if isinstance(e.get("number"), str) and (k := _key(e["number"])) is not None
    )
    if len(prim) < MIN_RUN:
        return set()
    pos = [(p, ln) for p, ln, _ in prim]
    out = set()
    for c in detected:
        if c.kind not in ("decimal", "part") or not c.number:
            continue
        k = _key(c.number)
        if k is None:
            continue
        i = bisect.bisect_left(pos, (c.page, c.line))
        if i == 0 or i == len(prim):
            continue
        before, after = prim[i - 1][2], prim[i][2]
        # going back ("Chapter 1." below 1.3.2), or jumping ahead at a shallower depth than both
        # neighbours ("3" between 2.1 and 2.2); "3.2" before an outline's misplaced "3.1.1" stays
        if before < after and (k < before or (k > after and len(k) < min(len(before), len(after)))):
            out.add(id(c))
    return out


def body_articles_as_provisions(entries: list[dict]) -> None:
    """An article in body type, or whose line runs on into its text, stays body text: a titled
    provision row at level 1 (a numbered clause in body type, as :mod:`provisions` keeps them).

    A run-in line is the article's first sentence: marked ``heading`` it would leave the answer
    windows (which stop at headings). A body-type article line keeps its ``clause`` registry row
    (:func:`docintel.parsing.clauses.clause_objects` takes decimal provisions: the NASA agreement's
    "1. DEFINITIONS" ... "5. GENERAL TERMS", "Section 2(B)").
    """
    for e in entries:
        c = e.get("cand")
        if c is not None and c.extra.get("article") == "body" and e["source"] == "heading_detection":
            e["source"] = "provision"
