"""The marks every report draws: one colour code, the notes, and where each mark goes.

Shared by the PDF and the HTML writers (docling-core's visualizer habit: one marks module,
no writer imports the API).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from docintel.report.geometry import Rect, line_rects
from docintel.schema.answer import Citation
from docintel.schema.document import DocTables
from docintel.schema.result import AskResult

log = logging.getLogger(__name__)

#: RGB (0-1) per ``retrieved_via``; anything unknown falls back to "other".
VIA_COLOURS: dict[str, tuple[float, float, float]] = {
    "primary": (1.0, 0.84, 0.0),  # yellow: the classic highlighter, first-pass evidence
    "reference": (0.35, 0.75, 1.0),  # blue: reached by following a reference
    "definition": (0.45, 0.88, 0.45),  # green: a pulled-in definition
    "other": (1.0, 0.6, 0.85),  # pink: scope / baseline evidence
}
VIA_LABELS: dict[str, str] = {
    "primary": "primary evidence (pass 1)",
    "reference": "reached through a reference",
    "definition": "definition pulled in",
    "other": "other evidence (scope / baseline)",
}
#: Colour of the line where a reference is written that the loop could not follow.
UNRESOLVED_COLOUR = (0.85, 0.2, 0.2)
ANNOT_TITLE = "docintel"


def via_key(via: str | None) -> str:
    """The colour key for a ``retrieved_via`` value."""
    return via if via in VIA_COLOURS else "other"


def lines_label(start: int, end: int) -> str:
    return f"line {start}" if start == end else f"lines {start}-{end}"


def citation_how(c: Citation) -> str:
    """How the cited lines were reached, e.g. "via reference 'Table 3 row (E)' from page 6, line 28"."""
    if c.retrieved_via == "primary":
        return "primary evidence"
    kind = "definition" if c.retrieved_via == "definition" else c.retrieved_via
    what = f"via {kind}"
    if c.reference_text:
        what += f" '{c.reference_text}'"
    if c.referenced_from:
        what += f" from page {c.referenced_from[0]}, line {c.referenced_from[1]}"
    return what


def citation_note(number: int, c: Citation) -> str:
    """The note attached to a highlight: which citation it is, how it was reached, its quote."""
    note = f"[{number}] {citation_how(c)} (page {c.page}, {lines_label(c.line_start, c.line_end)})"
    if c.quote:
        note += f'\n"{c.quote}"'
    return note


def resolution_note(res: dict, cited: list[int]) -> str:
    """The note on the line where a reference is written: where it led, or why it did not."""
    ref = res.get("reference", "?")
    status = res.get("status", "?")
    if status == "resolved":
        target = res.get("target") or "?"
        if res.get("sub_selector"):
            target += f" [{res['sub_selector']}]"
        pages = ", ".join(str(p) for p in res.get("target_pages") or [])
        text = f"reference '{ref}' -> {target} ({res.get('method', '?')})"
        if pages:
            text += f", page {pages}"
        if cited:
            text += "; cited as " + ", ".join(f"[{n}]" for n in cited)
        return text
    reason = res.get("reason") or ""
    return f"reference '{ref}': {status}" + (f" ({reason})" if reason else "")


@dataclass
class Mark:
    """One thing to draw on a page: a citation's line boxes or a reference's origin line."""

    kind: str  # "citation" | "origin"
    page: int
    rects: list[Rect]
    colour: tuple[float, float, float]
    label: str  # short, drawn next to the box: "[2]" or "->[2]"
    note: str  # long, the annotation content / tooltip
    via: str = "primary"
    number: int = 0
    extra: dict = field(default_factory=dict)


def page_marks(result: AskResult, tables: DocTables) -> dict[int, list[Mark]]:
    """Every mark to draw, by page: citations (numbered from 1, as printed) and the
    origin lines of the references the loop tried to follow."""
    marks: dict[int, list[Mark]] = {}
    cited_by_origin: dict[tuple[int, int], list[int]] = {}
    for n, c in enumerate(result.answer.citations, start=1):
        rects = line_rects(tables, c.page, c.line_start, min(c.line_end, c.line_start + 200), whole_rows=True)
        if not rects:
            log.warning(
                "citation [%d]: no line boxes for page %d, %s",
                n,
                c.page,
                lines_label(c.line_start, c.line_end),
            )
        if c.referenced_from:
            cited_by_origin.setdefault(tuple(c.referenced_from), []).append(n)
        key = via_key(c.retrieved_via)
        marks.setdefault(c.page, []).append(
            Mark("citation", c.page, rects, VIA_COLOURS[key], f"[{n}]", citation_note(n, c), key, n)
        )
    for res in result.resolutions:
        origin = res.get("origin") or []
        if len(origin) != 2 or res.get("status") in ("external", "condition"):
            continue
        page, line = int(origin[0]), int(origin[1])
        rects = line_rects(tables, page, line, line)
        if not rects:
            continue
        cited = cited_by_origin.get((page, line), [])
        resolved = res.get("status") == "resolved"
        colour = VIA_COLOURS["reference"] if resolved else UNRESOLVED_COLOUR
        label = ("->" + ",".join(f"[{n}]" for n in cited)) if cited else ("->" if resolved else "->?")
        marks.setdefault(page, []).append(
            Mark("origin", page, rects, colour, label, resolution_note(res, cited), "reference", extra=res)
        )
    return marks
