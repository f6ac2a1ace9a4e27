"""A security control named by its id ("AC-2", "AC-2(3)", "Related controls: AC-3, PM-9").

A control catalogue prints each control under a heading that opens with its id ("AC-3" /
"ACCESS ENFORCEMENT", "AC-3 ACCESS ENFORCEMENT"), in a heading role or bold; its enhancements
are numbered paragraphs inside it ("(3) The information system ..."). Other documents cite the
catalogue's controls in prose, tables and mappings: the same id on a table row or in a list is a
mention, not the control. So a control resolves to its heading line only (the first one: a
catalogue's supplement repeats a control's heading later), the region running to the next
control's heading; a document that prints no such heading cites the catalogue (the caller names
the reference external).
"""

from __future__ import annotations

import re
from bisect import bisect_right

import pandas as pd

from docintel.retrieval.bm25 import document_memo
from docintel.retrieval.lookup import norm_id
from docintel.retrieval.reflines import labelled_index
from docintel.retrieval.targets import evidence_after
from docintel.schema.document import DocTables
from docintel.schema.kinds import HEADING_ROLES

#: Lines read after a control's heading to find one of its enhancements.
ENHANCEMENT_SPAN = 400


def _headings(tables: DocTables) -> dict[str, list[tuple[int, int]]]:
    """Control id -> (page, line) of the lines that open with it and are headings (a heading
    role, or bold), in reading order: a value of the document alone, kept with its index."""
    return document_memo(tables, "controls", lambda: _scan_headings(tables))


def _heading_order(tables: DocTables) -> tuple[list[tuple[int, int]], list[str]]:
    """Every control heading's (page, line) in reading order, and its control id beside it: where
    a control's region ends (the next other control's heading) is a bisection, not a scan."""

    def build() -> tuple[list[tuple[int, int]], list[str]]:
        pairs = sorted((x, cid) for cid, xs in _headings(tables).items() for x in xs)
        return [x for x, _ in pairs], [cid for _, cid in pairs]

    return document_memo(tables, "control_order", build)


def _next_other(tables: DocTables, cid: str, at: tuple[int, int]) -> tuple[int, int] | None:
    """The first heading of a control other than ``cid`` after ``at``."""
    positions, ids = _heading_order(tables)
    for k in range(bisect_right(positions, at), len(positions)):
        if ids[k] != cid:
            return positions[k]
    return None


def _scan_headings(tables: DocTables) -> dict[str, list[tuple[int, int]]]:
    index = labelled_index(tables)
    keys = [(k[1], v) for k, v in index.items() if k[0] == "kind:control"]
    if not keys:
        return {}
    ldf = tables.line_df
    at = {(int(p), int(ln)): (r, b) for p, ln, r, b in zip(
        ldf["page"].tolist(), ldf["line"].tolist(), ldf["role"].tolist(),
        ldf["bold"].fillna(False).tolist() if "bold" in ldf else [False] * len(ldf), strict=True,
    )}  # fmt: skip
    out: dict[str, list[tuple[int, int]]] = {}
    for cid, found in keys:
        heads = [
            x for x in found if at.get(x, ("", False))[0] in HEADING_ROLES or bool(at.get(x, ("", False))[1])
        ]
        if heads:
            out[cid] = sorted(heads)
    return out


def control_region(
    tables: DocTables, target: str, origin: tuple[int, int]
) -> tuple[tuple[int, int], tuple[int, int] | None] | None:
    """Where control ``target``'s lines are: (its first heading other than ``origin``, the next
    other control's heading after it or None), or None when the document prints no heading of it.
    The region is the ENHANCEMENT_SPAN evidence lines from the heading on, cut before that end
    (what :func:`control_lines` draws from; ``resolve_pages.off_pages`` reads its pages)."""
    cid = norm_id(target)
    mine = [x for x in _headings(tables).get(cid, []) if x != origin]
    if not mine:
        return None
    return mine[0], _next_other(tables, cid, mine[0])


def control_lines(
    tables: DocTables,
    target: str,
    sub: str | None,
    origin: tuple[int, int],
    max_lines: int,
    question=None,
) -> tuple[pd.DataFrame | None, str]:
    """(lines, reason) of control ``target`` (its enhancement when ``sub`` names one), or
    (None, "") when the document prints no heading of it."""
    region = control_region(tables, target, origin)
    if region is None:
        return None, ""
    (page, line), end = region
    after = evidence_after(tables, page, line - 1, ENHANCEMENT_SPAN)
    if end is not None:  # the region ends at the next control's heading
        keys = list(zip(after["page"].astype(int), after["line"].astype(int), strict=True))
        after = after.iloc[: next((k for k, x in enumerate(keys) if x >= end), len(keys))]
    how = f"control heading on page {page}, line {line}"
    tag = re.search(r"\(([0-9]{1,2})\)", sub or "")
    if tag:
        rx = re.compile(rf"^\s*(?:Control\s+Enhancements?:\s*)?\({tag.group(1)}\)(?:\s|$)")
        texts = after["text"].astype(str).tolist()
        pos = next((k for k in range(1, len(texts)) if rx.match(texts[k])), None)
        if pos is not None:
            head = after.iloc[: min(2, pos)]
            row = after.iloc[pos]
            how += f"; enhancement ({tag.group(1)}) on page {int(row['page'])}, line {int(row['line'])}"
            body = after.iloc[pos : pos + max(max_lines - len(head), 4)]
            return pd.concat([head, body]), how
    if question is None:
        return after.head(max_lines), how
    # a long control: its heading and the run of its lines the question is about ("which
    # enhancements are in the moderate baseline": the allocation at its end, not its first lines)
    from docintel.retrieval.windows import best_section_window

    return best_section_window(after, question, max_lines, keep_first=min(2, len(after))), how
