"""Which pages a reference's target can be on, without building its passages.

The first hop checks every pointer on the retrieved page(s) for a target on those same pages
(:func:`docintel.retrieval.firstpass.same_page_targets`); on a control catalogue's page that is a
dozen controls, each resolved into its region's best lines only to learn that it sits elsewhere.
:func:`off_pages` answers the page question from the document's memos (the control headings,
the evidence lines' keys): True only when :func:`.resolve.resolve_in_tables` would certainly
return no passage, or one on a page outside ``pages``. Anything it cannot tell as cheaply is
False (the caller resolves the reference as before), so the first hop's outcome is unchanged.
"""

from __future__ import annotations

from docintel.parsing.refrules import lone_control
from docintel.retrieval import refcontrols, targets
from docintel.retrieval.resolve import MAX_TARGETS, classify, grammar_kind
from docintel.schema.answer import PendingReference
from docintel.schema.document import DocTables

#: The reading kinds whose numbered target a control id resolves as (resolve._from_tables).
_SECTION_KINDS = ("section", "clause", "definition")


def off_pages(tables: DocTables, ref: PendingReference, pages: set[int]) -> bool:
    """Whether the tables' resolution of ``ref`` (no model) surely has no passage on ``pages``
    and at least one elsewhere, or none at all: the pointer is not a same-page target. Told for
    control ids ("AC-3", "Related controls: AC-3, PM-9"), whose region is the lines from the
    control's heading to the next control's (:func:`refcontrols.control_lines`); False otherwise."""
    if ref.ref_type == "condition":
        return False
    readings = classify(ref.raw_text, ref.ref_type)
    if readings[0][1] is None and (alone := lone_control(ref.raw_text)):
        readings = [("section", alone, None)]
    kind = readings[0][0]
    if kind not in _SECTION_KINDS or grammar_kind(ref.raw_text) != "control":
        return False
    group = [r for r in readings if r[0] == kind and r[1]]
    origin = (ref.origin_page, ref.origin_line)
    if len(group) > 1:
        # a list: resolved when one target has lines, its passages among them; one target whose
        # region is non-empty and wholly off ``pages`` puts a passage elsewhere
        for _, target, _ in group[:MAX_TARGETS]:
            region = _control_pages(tables, str(target), origin)
            if region and not region & pages:
                return True
        return False
    if readings[0][1] is None:
        return False
    region = _control_pages(tables, str(readings[0][1]), origin)
    # no heading: resolve goes on to other readers; a heading: its passages lie in the region
    return region is not None and not region & pages


def _control_pages(tables: DocTables, target: str, origin: tuple[int, int]) -> set[int] | None:
    """The pages of the evidence lines ``control_lines`` draws every passage of control
    ``target`` from (:func:`refcontrols.control_region`); None when the document prints no
    heading of it (control_lines gives None)."""
    region = refcontrols.control_region(tables, target, origin)
    if region is None:
        return None
    (page, line), end = region
    return targets.evidence_pages_after(tables, page, line - 1, refcontrols.ENHANCEMENT_SPAN, end)
