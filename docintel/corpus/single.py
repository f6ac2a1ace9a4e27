"""The one adapter between corpus mode and the single-document loop.

Corpus paths call :func:`ask_document` only, so the single-document API can change shape
without touching them (the lead re-points this function at merge).
"""

from __future__ import annotations


def ask_document(
    tables, question: str, *, backend=None, top_k: int | None = None, max_loops: int = 1, first_hop=None
):
    """Run the existing single-document reference loop over one parsed document (AskResult).

    ``first_hop``: (page, line_start, line_end) spans the corpus search already found in this
    document; pass 1 reads them (each widened to the document's passage budget around it and
    to a sentence end) instead of retrieving again, and the loop follows their references.
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
            p = _grid_order(tables, extend_to_sentence_end(tables, p))
            if p.lines and not any(_covers(have, p) for have in passages):
                passages.append(
                    p.model_copy(update={"note": f"corpus search: block at page {page}, lines {start}-{end}"})
                )

    return ask(
        tables.path or tables.doc_id,
        question,
        backend=backend,
        tables=tables,
        top_k=top_k,
        max_loops=max_loops,
        write_trace=False,
        first_hop=passages or None,
    )


def _covers(have, p) -> bool:
    keys = {(ln.page, ln.line) for ln in have.lines}
    return all((ln.page, ln.line) in keys for ln in p.lines)


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
