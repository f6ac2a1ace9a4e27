"""A table caption's escalation region ends where the ruled table below it ends (session 9, ts).

The heading after a ruled table ("Sources of Incidents" below Table C-8 of SP 800-82r2) is no
line the model would change, so it must not keep the page at stake; an open table (a shaded
header row alone) may go on below its drawings, so its region still runs to the page bottom.
"""

from __future__ import annotations

import pymupdf

from docintel.parsing import escalate, layout, lines


def _page(draw_table) -> tuple[pymupdf.Document, list[dict], dict]:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 72), "Some running text before the table, as a paragraph has it.", fontsize=10)
    page.insert_text((200, 110), "Table 1: Results of the three tests", fontsize=10)
    draw_table(page)
    for i in range(4):  # the cells, without any table role: the fast path missed the table
        page.insert_text((76, 140 + 20 * i), f"cell {i}0", fontsize=10)
        page.insert_text((330, 140 + 20 * i), f"cell {i}1", fontsize=10)
    page.insert_text((72, 300), "In addition, the text goes on after the table ends here.", fontsize=10)
    page.insert_text((72, 340), "Sources of Incidents", fontsize=11, fontname="hebo")
    page.insert_text((72, 360), "An accurate accounting of incidents is difficult to determine.", fontsize=10)
    rows, _ = lines.extract_page_lines(page, 1)
    for r in rows:
        r["role"] = "body"
    drawings = page.get_cdrawings()
    signals = {"page": 1, "n_images": 0, "n_drawings": len(drawings), "width": 612.0, "height": 792.0}
    signals["_drawings"] = drawings
    return doc, rows, signals


def _grid(page):
    for y in (120, 145, 165, 185, 205):
        page.draw_line((72, y), (540, y))
    for x in (72, 320, 540):
        page.draw_line((x, 120), (x, 205))


def _shaded_header(page):
    page.draw_rect(pymupdf.Rect(72, 120, 540, 145), color=None, fill=(0.8, 0.8, 0.8))


def _triage(doc, rows, signals, reasons):
    prow = {**signals, "_escalation_regions": signals["_escalation_regions"]}
    return escalate.triage(doc, [rows], [prow], {1: reasons}, {1: 0})


def test_the_region_below_a_caption_ends_with_its_ruled_table():
    doc, rows, signals = _page(_grid)
    reasons = layout.escalation_reasons(doc[0], rows, signals)
    assert reasons and reasons[0].startswith("caption_without_structure")
    (region,) = signals["_escalation_regions"]
    assert region[3] < 300  # the table's last rule, not the page bottom
    kept, stakes = _triage(doc, rows, signals, reasons)
    assert 1 in kept and stakes == {}  # the heading after the table is not at stake


def test_an_open_table_keeps_the_region_to_the_page_bottom():
    doc, rows, signals = _page(_shaded_header)
    reasons = layout.escalation_reasons(doc[0], rows, signals)
    (region,) = signals["_escalation_regions"]
    assert region[3] == 792.0
    kept, stakes = _triage(doc, rows, signals, reasons)
    assert kept == {} and stakes == {1: 1}  # the bold line below may be a cell the model reads


def test_no_drawings_keep_the_region_to_the_page_bottom():
    assert layout._below_caption(110.0, 612.0, 792.0, None) == (0.0, 110.0, 612.0, 792.0)
    assert layout._below_caption(110.0, 612.0, 792.0, []) == (0.0, 110.0, 612.0, 792.0)


def test_a_stack_of_labels_the_toc_stage_drops_is_not_at_stake():
    """Bold phrases stacked with nothing between them are a list (``toc._label_stacks``): the toc
    stage makes no section of them, so the model would save none there."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 72), "Some running text before the figure, as a paragraph has it.", fontsize=10)
    for k, label in enumerate(
        ("Federal Acquisition Regulation", "Government Off The Shelf", "Trusted Supplier Program")
    ):
        page.insert_text((72, 300 + 22 * k), label, fontsize=11, fontname="hebo")
    rows, _ = lines.extract_page_lines(page, 1)
    prow = {"page": 1, "n_images": 0, "n_drawings": 300, "_escalation_regions": [(0.0, 250.0, 612.0, 792.0)]}
    kept, stakes = escalate.triage(
        doc, [rows], [prow], {1: ["vector_graphics_without_structure: 300"]}, {1: 0}
    )
    assert 1 in kept and stakes == {}


def _shaded_header_and_its_rule(page):
    _shaded_header(page)
    page.draw_line((72, 148), (540, 148))


def _booktabs(page):
    for y in (120, 145, 205):  # top, mid and bottom rules
        page.draw_line((72, y), (540, y))


def test_a_shaded_header_and_the_rule_under_it_leave_the_table_open():
    doc, rows, signals = _page(_shaded_header_and_its_rule)
    layout.escalation_reasons(doc[0], rows, signals)
    (region,) = signals["_escalation_regions"]
    assert region[3] == 792.0  # three edges, but one rule: the unruled body may go on below


def test_three_rules_close_a_table():
    doc, rows, signals = _page(_booktabs)
    layout.escalation_reasons(doc[0], rows, signals)
    (region,) = signals["_escalation_regions"]
    assert region[3] < 300
