"""The one adapter between corpus mode and the single-document loop.

Corpus paths call :func:`ask_document` only, so the single-document API can change shape
without touching them (the lead re-points this function at merge).
"""

from __future__ import annotations

import functools


def ask_document(
    tables,
    question: str,
    *,
    backend=None,
    top_k: int | None = None,
    max_loops: int = 1,
    first_hop=None,
    grown: bool = True,
):
    """Run the existing single-document reference loop over one parsed document (AskResult).

    ``first_hop``: (page, line_start, line_end) spans the corpus search already found in this
    document; pass 1 reads them (each widened to the document's passage budget around it and
    to a sentence end) instead of retrieving again, and the loop follows their references.
    ``grown``: the extractive backend's answer budget grows with the first-hop passages
    (:func:`_budgeted`); off, the single-document budget answers (for a caller whose answer has
    other parts to give room to: the follow path's links).
    """
    from docintel.api import ask
    from docintel.questions.parse import parse_question
    from docintel.retrieval import best_passage
    from docintel.retrieval.targets import extend_to_sentence_end

    passages = []
    if first_hop:
        from docintel.api import ensure_index

        # the document's stored retrieval index first: best_passage would otherwise rebuild it
        # from every line of the document (seconds on a long one) whenever it is not in memory
        ensure_index(tables)
        q = parse_question(question)
        for page, start, end in first_hop:
            p = best_passage(tables, q, int(page), include_lines=list(range(int(start), int(end) + 1)))
            p = extend_to_sentence_end(tables, p)
            if p.lines:
                passages.append(
                    p.model_copy(update={"note": f"corpus search: block at page {page}, lines {start}-{end}"})
                )
        passages = [_grid_order(tables, p) for p in merge_overlapping(passages)]

    return ask(
        tables.path or tables.doc_id,
        question,
        backend=_budgeted(backend, _earning(question, passages) if grown and _offline(backend) else 1),
        tables=tables,
        top_k=top_k,
        max_loops=max_loops,
        write_trace=False,
        first_hop=passages or None,
    )


def _earning(question: str, passages: list) -> int:
    """How many first-hop passages earn the answer budget a passage: those (counted after
    merging, as the backend reads them: two ranked blocks widened into one region are one
    passage to answer from, and counting them apart bought a window and its lines for lines
    read once) whose best line scores at least the extractive backend's own ``MIN_RATIO`` share
    of the best line of them all (:func:`pick_windows`: the cut under which a single-document
    answer reads no window either). A ranked passage that barely touches the question buys no
    window for a loosely related one."""
    if len(passages) <= 1:
        return 1
    from docintel.generation.offline.scoring import MIN_RATIO, question_terms, score_lines
    from docintel.questions.parse import parse_question

    grouped, _ = score_lines(passages, question_terms(parse_question(question)))
    best = [max((r.context for r in g if r.score > 0), default=0.0) for g in grouped]
    return max(1, sum(b > 0 and b >= MIN_RATIO * max(best) for b in best))


def _offline(backend) -> bool:
    """Whether the extractive (offline) backend answers: named so, or left to the setting and the
    default (an instance the caller built is used as it is)."""
    if not (backend is None or backend == "offline"):
        return False
    from docintel.generation.registry import backend_name

    return backend_name(backend) == "offline"


def _budgeted(backend, passages: int):
    """The backend that answers: the extractive (offline) one given a window and line budget for
    ``passages`` first-hop passages (the merged passages that earn one, :func:`_earning`, counted
    only when that backend answers), the rest as named.

    Its default budget (a few windows, ~14 lines) is for the single-document ask, whose pass 1 is
    one passage. The corpus gives the loop its best blocks of the winning document, several
    passages: under the one-passage budget the first window read (often a long paragraph) took
    every line and a ranked block holding the answering sentence gave none. Each earning passage
    after the first adds one window and its share of lines, within the limits ``FirstHopBudget``
    sets; a model backend reads all passages whatever this budget. Either way the extractive
    backend reads each first-hop line once (:func:`read_once`)."""
    if not _offline(backend):
        return backend
    read_once_backend, first_hop_budget = _backends()
    one = read_once_backend()
    if passages <= 1:
        return one
    return first_hop_budget(
        one,
        max_windows=one.max_windows + passages - 1,
        max_lines=one.max_lines * passages,
        ref_windows=one.ref_windows,
        ref_lines=one.ref_lines,
        ref_whole=one.ref_whole,
    )


def read_once(passages: list) -> list:
    """``passages`` with each primary passage's lines that an earlier primary passage holds left
    out (a passage left with none is dropped), each passage's own line order kept.

    The loop adds a same-page target ("as shown in Table 1" with the table on a first-hop page)
    whole when it adds any line, so on a corpus ask, whose pass 1 is several widened blocks, a
    target often repeats most of a first-hop passage: the answer quoted the same paragraph twice
    and spent a window on it."""
    seen: set[tuple[int, int]] = set()
    out = []
    for p in passages:
        if p.retrieved_via != "primary":
            out.append(p)
            continue
        lines = [ln for ln in p.lines if (ln.page, ln.line) not in seen]
        seen |= _keys(p)
        if len(lines) == len(p.lines):
            out.append(p)
        elif lines:
            own = [ln.line for ln in lines if ln.page == lines[0].page]
            out.append(
                p.model_copy(
                    update={
                        "lines": lines,
                        "page": lines[0].page,
                        "line_start": min(own),
                        "line_end": max(own),
                    }
                )
            )
    return out


@functools.cache
def _backends():
    """The corpus ask's two extractive backends (built once, on first use: the generation
    package is imported only when the offline backend answers)."""
    from docintel.generation.offline import OfflineBackend
    from docintel.schema.kinds import PULLED_VIA

    class ReadOnce(OfflineBackend):
        """The extractive backend reading each first-hop line once (:func:`read_once`)."""

        def generate(self, question, passages, *, pass_no, instructions):
            return super().generate(question, read_once(passages), pass_no=pass_no, instructions=instructions)

    class FirstHopBudget(ReadOnce):
        """The grown budget only where it adds quoted text and nothing else:
        - once the loop pulled in reference targets, the single-document budget answers: the
          first hop's pieces are kept whole before the targets share what is left of the
          answer's characters (``compose.fair_shares``), so a grown first hop would squeeze
          the text a pointer asked for;
        - an answer whose extra windows name pointers the single-document answer does not
          (an unfollowed "see Section 6" in a loosely related window) gives way to that answer:
          the extra windows are there to quote a ranked block, not to leave a complete answer
          partial."""

        def __init__(self, one, **budget):
            super().__init__(**budget)
            self.one = one

        def generate(self, question, passages, *, pass_no, instructions):
            one = self.one
            if any(p.retrieved_via in PULLED_VIA for p in passages):
                return _noted(
                    one.generate(question, passages, pass_no=pass_no, instructions=instructions), "single"
                )
            grown = super().generate(question, passages, pass_no=pass_no, instructions=instructions)
            if not grown.answer.pending_references:
                return _noted(grown, "grown")
            plain = one.generate(question, passages, pass_no=pass_no, instructions=instructions)
            have = {r.raw_text for r in plain.answer.pending_references}
            new = sorted({r.raw_text for r in grown.answer.pending_references} - have)
            if not new:
                return _noted(grown, "grown")
            return _noted(plain, "single", new_pointers=new)

    return ReadOnce, FirstHopBudget


def _noted(generation, used: str, **why):
    """The generation with the first-hop budget it was answered under in its call record (the
    trace says whether the grown budget or the single-document one answered, and why)."""
    generation.info.details["first_hop_budget"] = {"used": used, **why}
    return generation


def _keys(p) -> set[tuple[int, int]]:
    return {(ln.page, ln.line) for ln in p.lines}


def _meet(a: set, b: set) -> bool:
    """Whether two line sets share a line or touch (consecutive lines of one page)."""
    return bool(a & b) or any((pg, ln + 1) in b or (pg, ln - 1) in b for pg, ln in a)


def merge_overlapping(passages: list) -> list:
    """The first-hop passages with every group that shares or touches lines made one passage (the
    union of their lines in page and line order), at the place of the best-ranked of them.

    Two blocks of one page are each widened to the passage budget around them, so their passages
    overlap: given apart, the answer reads the same lines twice (and their terms count twice in
    its line scoring) and a third, different passage loses its place."""
    out: list = []
    for p in passages:
        keys = _keys(p)
        hit = [i for i, have in enumerate(out) if _meet(keys, _keys(have))]
        if not hit:
            out.append(p)
            continue
        group = [out[i] for i in hit] + [p]
        out[hit[0]] = _union(group)
        for i in reversed(hit[1:]):
            del out[i]
    return out


def _union(group: list):
    """One passage holding every line of ``group`` once, in page and line order."""
    lines = {(ln.page, ln.line): ln for p in group for ln in p.lines}
    order = [lines[k] for k in sorted(lines)]
    notes = "; ".join(dict.fromkeys(n for p in group for n in p.note.split("; ") if n))
    return group[0].model_copy(
        update={
            "page": order[0].page,
            "line_start": order[0].line,
            # the span names the first page's lines only, as extend_to_sentence_end keeps it: a
            # line carried over the page break is in ``lines`` but not in the span
            "line_end": max(ln.line for ln in order if ln.page == order[0].page),
            "lines": order,
            "note": notes,
        }
    )


def _grid_order(tables, p):
    """``p`` with the lines of a text grid on its page read cell by cell (:func:`reading_order`);
    the span, and so the citation and its highlight, stay the same."""
    from docintel.corpus.blocks import reading_order

    ln = tables.line_df
    wanted = {x.line for x in p.lines}
    if len(wanted) < 4 or any(x.page != p.page for x in p.lines):
        return p
    sel = ln[(ln["page"] == p.page) & ln["line"].isin(wanted)]
    geo = {
        int(n): (float(a), float(b), float(c), float(d))
        for n, a, b, c, d in zip(sel["line"], sel["x0"], sel["y0"], sel["x1"], sel["y1"], strict=True)
    }
    if not wanted <= geo.keys():
        return p
    rows = [_Row(x, geo[x.line]) for x in p.lines]
    order = [r.line for r in reading_order(rows)]
    return p if order == p.lines else p.model_copy(update={"lines": order})


class _Row:
    __slots__ = ("line", "x0", "y0", "x1", "y1")

    def __init__(self, line, box):
        self.line = line
        self.x0, self.y0, self.x1, self.y1 = box

    @property
    def text(self) -> str:
        # reading_order tells a check-mark cell by its text
        return str(self.line.text)
