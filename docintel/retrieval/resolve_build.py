"""A located target -> its :class:`Resolution`: the passages pass 2 adds and what the budget cut.

:mod:`.resolve` finds where a reference leads (a toc section, a registry object, a line); this
brick builds what the loop gives generation from there: a section's best lines and the tables and
figures it cites on its own pages, a ``cut`` note when the budget left lines out.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import pandas as pd

from docintel import refscan
from docintel.retrieval.lookup import find_objects
from docintel.retrieval.targets import evidence_pages_after, object_passages, section_lines, section_passages
from docintel.schema.document import DocTables
from docintel.schema.loop import Resolution


def found(ref, method, ref_type, target, sub, passages, reason) -> Resolution:
    """A resolved reference: its target, how it was found, and the pass-2 passages."""
    return Resolution(
        ref,
        "resolved",
        method,
        ref_type,
        target=target,
        sub_selector=sub,
        target_pages=sorted({p.page for p in passages}),
        reason=reason,
        passages=passages,
    )


def cut_note(label: str, region: int, given: int) -> list[str]:
    """What the budget left out of one target, as the answer and the trace name it."""
    return [f"{label}: {given} of its {region} lines given"] if region > given else []


#: An appendix-like label printed alone on its line ("APPENDIX F", "Annex 2"): its toc row is the
#: label only, the title and sections after it are rows of the same level (:func:`section_at`).
#: "APPENDIX F", "Annex 2", "Schedule 2.1(a)" alone: only the keyword is case-free, so a titled
#: "Appendix Glossary" is no label printed alone
_LABEL_ALONE = re.compile(
    r"\s*(?i:appendix|annex|attachment|exhibit|schedule)\s+"
    r"(?:[A-Z]|[0-9]{1,2}|[IVX]{1,4})(?:[.\-][0-9A-Z]{1,3})*(?:\([a-z0-9]{1,3}\))*\.?\s*"
)


def section_at(tables: DocTables, obj) -> pd.DataFrame:
    """The toc section whose heading is the object's first line (an appendix's heading)."""
    toc = tables.toc_df
    if toc.empty or pd.isna(obj["line_start"]):
        return toc.iloc[0:0]
    at = ((toc["page_start"] == obj["page"]) & (toc["line_start"] == obj["line_start"])).to_numpy()
    hit = toc[at].head(1)
    if hit.empty or not _LABEL_ALONE.fullmatch(str(hit.iloc[0]["title"])):
        return hit
    # "APPENDIX F" printed alone above its title: the toc gives the label a row of its own and the
    # title and sections after it rows at the same level, so the appendix runs to the next label
    after = toc.iloc[int(at.argmax()) + 1 :]
    # plain lists, not Series: an appendix that is the toc's last row leaves ``after`` empty, and
    # an empty string Series maps to a string dtype that cannot be or-ed with booleans
    lowest = hit.iloc[0]["level"]
    stops = [
        bool(_LABEL_ALONE.fullmatch(str(t))) or lv < lowest
        for t, lv in zip(after["title"].tolist(), after["level"].tolist(), strict=True)
    ]
    ends = stops.index(True) if True in stops else len(stops)
    inside = after.iloc[:ends]
    if inside.empty:
        return hit
    row, last = hit.copy(), inside.iloc[-1]
    row.loc[row.index[0], ["page_end", "line_end"]] = [last["page_end"], last["line_end"]]
    return row


#: The pages the first hop's same-page check asks about (:func:`near`); None outside it.
_NEAR: ContextVar[frozenset[int] | None] = ContextVar("docintel_near_pages", default=None)


class OffPages(Exception):  # noqa: N818 (a verdict, not an error)
    """Raised under :func:`near` in place of building a section target whose lines lie wholly
    off the pages asked about (:func:`check_near`): the resolution would have had passages, all
    of them elsewhere, so the pointer is not a same-page target."""


@contextmanager
def near(pages: set[int]) -> Iterator[None]:
    """Within it, a resolution that reaches a section target off ``pages`` stops with
    :class:`OffPages` instead of building the target's passages (the first hop only needs to
    know its pages; the loop resolves it in full if it ever follows it)."""
    token = _NEAR.set(frozenset(pages))
    try:
        yield
    finally:
        _NEAR.reset(token)


def section_pages(tables: DocTables, sec) -> set[int]:
    """The pages of :func:`.targets.section_lines` of one toc row (the same bounds), from the
    evidence lines' keys, without building the rows."""
    ps, ls = int(sec["page_start"]), int(sec["line_start"]) if pd.notna(sec["line_start"]) else 1
    pe = int(sec["page_end"]) if pd.notna(sec["page_end"]) else ps
    le = int(sec["line_end"]) if pd.notna(sec["line_end"]) else 10**6
    # keys from (ps, ls) to (pe, le), both included: after (ps, ls - 1), before (pe, le + 1)
    return evidence_pages_after(tables, ps, ls - 1, 1 << 62, (pe, le + 1))


def check_near(tables: DocTables, secs: pd.DataFrame) -> None:
    """Under :func:`near`: raise :class:`OffPages` when the lines of ``secs`` are not empty and
    none is on the pages asked about. ``section_passages`` draws every passage from those lines
    (a non-empty section always gives its heading line), and :func:`objects_it_shows` only adds
    to them, so the full resolution has passages and every section passage is off the pages."""
    pages = _NEAR.get()
    if pages is None or secs.empty:
        return
    span: set[int] = set()
    for _, sec in secs.iterrows():
        span |= section_pages(tables, sec)
    if span and not span & pages:
        raise OffPages


def n_lines(passages) -> int:
    return sum(len(p.lines) for p in passages)


def sections_found(tables, secs, ref_type, target, sub, ctx, common) -> Resolution:
    """Sections as the target: their best lines (heading, sub-paragraphs, captions of what
    they hold), and what the budget cut named."""
    check_near(tables, secs)
    q, max_lines = ctx["question"], ctx["max_lines"]
    select = ctx.get("select", sub)  # what is left to select once a chain led into the toc's provision
    passages = section_passages(tables, secs, q, sub_selector=select, max_lines=max_lines, **common)
    passages += objects_it_shows(tables, passages, q, max_lines, common)
    why = f"toc_df: {len(secs)} section(s)" + (
        f" ({', '.join(map(str, secs['toc_id'].head(4)))})" if "select" in ctx else ""
    )
    res = found(ctx["ref"], "toc_df", ref_type, target, sub, passages, why)
    region = sum(len(section_lines(tables, s)) for _, s in secs.iterrows())
    label = "section " + ", ".join(str(t) for t in secs["toc_id"].head(4))
    res.cut = cut_note(label, region, n_lines(passages))
    return res


def objects_it_shows(tables: DocTables, passages, q, max_lines: int, common: dict) -> list:
    """Tables and figures a section target cites ("In Table 5, we show ...") and prints on its
    own pages: part of the section as the reader sees it, given with it (caption, header and
    rows), not left for another pass."""
    pages = {p.page for p in passages}
    have = {(ln.page, ln.line) for p in passages for ln in p.lines}
    out: list = []
    seen: set[str] = set()
    found_for: dict[tuple[str, str], pd.DataFrame] = {}  # a section cites its tables many times
    for r in refscan.references_in([ln for p in passages for ln in p.lines]):
        if r.ref_type not in ("table", "figure") or not r.target:
            continue
        key = (r.ref_type, r.target)
        if key not in found_for:
            found_for[key] = find_objects(tables, r.ref_type, r.target)
        objs = found_for[key]
        if objs.empty or str(objs.iloc[0]["object_key"]) in seen or int(objs.iloc[0]["page"]) not in pages:
            continue
        obj = objs.iloc[0]
        seen.add(str(obj["object_key"]))
        for p in object_passages(
            tables, obj, q, sub_selector=r.sub_selector, max_lines=max_lines // 2, **common
        ):
            if not {(ln.page, ln.line) for ln in p.lines} <= have:
                out.append(p)
    return out
