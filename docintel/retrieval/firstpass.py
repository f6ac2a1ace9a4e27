"""Pass-1 evidence: what the first hop reads before any pointer is followed.

Split from ``decide.py`` (same behaviour): the best window of each chosen page (or the
registry's captions for a listing question, or a list's members), and the targets of
pointers in those windows that sit on a page already retrieved.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from docintel.refscan import references_in
from docintel.retrieval.covered import evidence_keys
from docintel.retrieval.overview import member_passages
from docintel.retrieval.ownname import without_own_name_words
from docintel.retrieval.pagebreak import across_page_break
from docintel.retrieval.passage import best_passage
from docintel.retrieval.pointedfrom import pointing_passages
from docintel.retrieval.rank import retrieve, suggested_top_k
from docintel.retrieval.targets import (
    definition_passages,
    evidence_after,
    extend_to_sentence_end,
    listed_object_passages,
)
from docintel.retrieval.windows import cited_line
from docintel.schema.answer import PendingReference
from docintel.schema.document import DocTables
from docintel.schema.evidence import EvidenceLine, ParsedQuestion, Passage
from docintel.schema.kinds import OFF_PAGE_REF_TYPES
from docintel.schema.loop import Resolution
from docintel.schema.trace import Trace


def first_passages(
    tables: DocTables, q: ParsedQuestion, trace: Trace, top_k: int | None, *, sources: bool = False
) -> list[Passage]:
    """Pass-1 evidence (``sources``: the question asks which source says it): the registry's captions for a listing question about an object type,
    else the best window of each of the top-k pages (top-1 by default), to a sentence end."""
    with trace.stage("retrieval"):
        if top_k is None:  # top-1 by default; listing questions get one page per listed object page
            top_k = suggested_top_k(q, tables)
        candidates = retrieve(q, tables, top_k=top_k)
    trace.record("top_k", top_k)
    trace.record("candidates", [c.model_dump() for c in candidates[:10]])
    listed = listed_objects(tables, q, trace)
    if listed:
        return listed
    members = member_passages(tables, q)
    if members:  # "the four Tiers": the headings "Tier 1: ..." to "Tier 4: ..." are the list
        trace.event("list_path", series=[p.note for p in members])
        return members
    # the chosen are the first top_k (rank.retrieve), and with none chosen (top_k <= 0) the old
    # fallback was this same slice: only the pages read are built (a Ranking builds on access)
    chosen = candidates[:top_k]
    passages = []
    named = without_own_name_words(q, tables)  # the window, like the rank, skips the document's name
    windows = []
    for c in chosen:  # a question asking which source says it keeps the page's citing line
        cited = cited_line(tables, q, c.page) if sources else None
        windows.append((cited, best_passage(tables, named, c.page, include_lines=[cited] if cited else None)))
    # a window bridged over its page break stops where another chosen page's window starts
    held = frozenset((ln.page, ln.line) for _, w in windows for ln in w.lines)
    for cited, window in windows:
        if not cited:
            window = across_page_break(tables, named, window, held)
        passages.append(through_list(tables, extend_to_sentence_end(tables, window)))
    passages = [p for p in passages if p.lines]
    passages += pointing_passages(tables, q, passages, candidates, trace=trace)
    return passages + definition_passages(tables, q, passages)


#: Lines a window that ends by announcing a list ("... to the extent that processing is
#: necessary:") is continued by, at most, to hold the list it announces.
LIST_LINES = 12
_NEXT_PARAGRAPH = re.compile(r"^\s*(?:\d+|[A-Z])\.\s*$")  # "3." alone: the next numbered paragraph
_LIST_ENDS = re.compile(r"\.[\"'\u201d)\]]*\s*$")


#: An item that leaves its list open: "...;", "...; and", "..., or" (the next item follows).
_ITEM_OPEN = re.compile(r"(?:;|[;,]\s*(?:and|or))\s*$")
#: A list member's opening: "(c) ...", "c) ...", "iv. ...", "• ..." (or the parser's list_item role).
_ITEM_START = re.compile(
    r"^\s*(?:\((?:\d+|[A-Za-z]|[ivxlc]+)\)|(?:\d+|[a-z]|[ivxlc]+)[.)]\s|[\u2022\u25aa\u25cf\u2013-]\s)"
)


def through_list(tables: DocTables, passage: Passage) -> Passage:
    """A window whose last line announces a list (ends with ":"), or stops inside one (a member
    left open with ";" / "; and" and the next line opens the next member), continues through
    the list's items, up to the item that closes with a full stop, the next heading or numbered
    paragraph, or :data:`LIST_LINES` lines: the items are the answer the announcing line promises."""
    if not passage.lines:
        return passage
    last = passage.lines[-1]
    tail = last.text.rstrip()
    announces = tail.endswith(":")
    if not announces and not _ITEM_OPEN.search(tail):  # most windows: no line lookup
        return passage
    after = evidence_after(tables, last.page, last.line, LIST_LINES)
    if not announces and not _opens_item(after):
        return passage
    extra: list[EvidenceLine] = []
    for r in after.itertuples(index=False):
        text = str(r.text)
        if r.role in ("heading", "title", "caption") or _NEXT_PARAGRAPH.match(text):
            break
        extra.append(EvidenceLine(page=int(r.page), line=int(r.line), text=text, role=str(r.role or "body")))
        if _LIST_ENDS.search(text):
            break
    if not extra:
        return passage
    same = [e.line for e in extra if e.page == passage.page]
    return passage.model_copy(
        update={"lines": passage.lines + extra, "line_end": max([passage.line_end, *same])}
    )


def _opens_item(after) -> bool:
    """The first line of ``after`` opens a list member."""
    if after.empty:
        return False
    first = after.iloc[0]
    return str(first["role"]) == "list_item" or bool(_ITEM_START.match(str(first["text"])))


def listed_objects(tables: DocTables, q: ParsedQuestion, trace: Trace) -> list[Passage]:
    """A listing question about a registered object type is answered from the registry."""
    otype, keys, passages = listed_object_passages(tables, q)
    if passages:
        trace.event("list_path", object_type=otype, objects=keys)
    return passages


def _unheld_runs(p: Passage, have: set[tuple[int, int]]) -> list[list]:
    """The runs of ``p``'s lines (in its own order) that ``have`` does not hold: a target that
    overlaps the window adds only what the evidence lacks, never a line twice. A run stops at a
    page change (each becomes a one-page Passage)."""
    runs: list[list] = [[]]
    for ln in p.lines:
        if (ln.page, ln.line) in have:
            if runs[-1]:
                runs.append([])
        else:
            if runs[-1] and runs[-1][-1].page != ln.page:
                runs.append([])  # a Passage is one page: a run over a page break is two
            runs[-1].append(ln)
    return [r for r in runs if r]


def same_page_targets(
    passages: list[Passage], resolve: Callable[[PendingReference], Resolution], trace: Trace
) -> list[Passage]:
    """Pointers in the pass-1 window (``resolve``: the loop's deterministic resolver) whose target sits on a page already retrieved ("as shown
    in Table 1" with Table 1 on the same page) are part of that page: add their lines now
    (only those the evidence does not hold yet), so a second pass is spent only on targets elsewhere."""
    pages = {p.page for p in passages}
    lines = [ln for p in passages for ln in p.lines]
    if not lines:
        return passages
    have = evidence_keys(passages)
    added: list[Passage] = []
    for r in references_in(lines):
        if r.ref_type in OFF_PAGE_REF_TYPES:
            continue
        ref = PendingReference(
            raw_text=r.raw_text[:200], ref_type="unknown", origin_page=r.page, origin_line=r.line
        )
        res = resolve(ref)
        if res.status != "resolved" or not res.passages or {p.page for p in res.passages} - pages:
            continue
        if (ref.origin_page, ref.origin_line) in evidence_keys(res.passages):
            continue  # a caption naming its own table is not a pointer elsewhere
        for p in res.passages:
            for run in _unheld_runs(p, have):
                added.append(
                    p.model_copy(
                        update={
                            "lines": run,
                            "page": run[0].page,
                            "line_start": min(ln.line for ln in run),
                            "line_end": max(ln.line for ln in run),
                            "retrieved_via": "primary",
                            "referenced_from": None,
                            "reference_text": None,
                            "note": f"on the retrieved page, pointed to by '{ref.raw_text}' (line {ref.origin_line})",
                        }
                    )
                )
            have |= evidence_keys([p])
        trace.event(
            "same_page_target",
            reference=ref.raw_text,
            target=res.target,
            pages=sorted({p.page for p in res.passages}),
        )
    return passages + added


__all__ = ["first_passages", "listed_objects", "same_page_targets"]
