"""Session 13 (gh): a margin line number does not hide a heading's number; a grid's cells are no headings."""

from __future__ import annotations

import pandas as pd

from docintel.parsing import headings
from docintel.parsing.heading_text import strip_margin_numbers


def _page(rows: list[tuple], *, size: float = 11.0, bold: float = 0.0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """line_df and span features for one page: (text, x0, y0, x1) per line, one type."""
    line_df = pd.DataFrame(
        {
            "page": 1,
            "line": list(range(1, len(rows) + 1)),
            "text": [r[0] for r in rows],
            "x0": [r[1] for r in rows],
            "y0": [r[2] for r in rows],
            "x1": [r[3] for r in rows],
            "y1": [r[2] + size for r in rows],
            "size": size,
            "font": "Times",
            "column": 0,
            "role": "body",
        }
    )
    feats = pd.DataFrame(
        {"boldfrac": bold, "italfrac": 0.0, "rotated": False, "lead": None},
        index=line_df.index,
    )
    return line_df, feats


# NISTIR 8204 draft p8: every line opens with its margin number, the heading's too
NUMBERED = [
    ("184 creating, posting, and submitting References. Sections 1.1.1 through 1.1.3", 36.0, 312.0, 530.0),
    ("185 steps in greater detail.", 36.0, 326.0, 180.0),
    ("186 1.3.1 Initial Reference Development", 36.0, 351.0, 268.0),
    ("187 During initial Reference development, a developer becomes familiar with the", 36.0, 376.0, 540.0),
    ("188 Reference program and all procedures involved during the Reference life cycle", 36.0, 390.0, 520.0),
    ("189 throughout this section). At this point, a developer would presumably", 36.0, 404.0, 540.0),
]


def test_a_margin_line_number_does_not_hide_the_heading_number():
    line_df, feats = _page(NUMBERED)
    heading = [c for c in headings.candidates(line_df, feats) if c.line == 3][0]
    assert (heading.kind, heading.number, heading.title) == (
        "decimal",
        "1.3.1",
        "Initial Reference Development",
    )


def test_margin_numbers_alone_beside_their_lines_count_too():
    # OASIS SAML: the numbers are lines of their own, except where the text layer joins one to a heading
    recs = []
    for k, y in enumerate(range(100, 190, 12)):
        recs.append({"text": str(271 + k), "x0": 44.5, "y0": float(y), "y1": y + 8.0})
        recs.append({"text": f"body text line {k}", "x0": 72.0, "y0": float(y) - 1, "y1": y + 9.0})
    recs[8]["text"] = "275 1.3.1 String Values"
    strip_margin_numbers(recs)
    assert recs[8]["text"] == "1.3.1 String Values"
    assert recs[0]["text"] == "271"  # a number alone is left alone


def test_a_stack_of_numbered_headings_between_paragraphs_keeps_its_numbers():
    # "1 Scope", "2 Terms" ... follow one another, but most rows of the page carry no number
    recs = []
    y = 100.0
    for k in range(1, 7):
        recs.append({"text": f"{k} Heading number {k}", "x0": 72.0, "y0": y, "y1": y + 11})
        for j in range(3):
            y += 14
            recs.append(
                {"text": f"Paragraph text of the clause, line {j}.", "x0": 72.0, "y0": y, "y1": y + 11}
            )
        y += 20
    strip_margin_numbers(recs)
    assert recs[0]["text"] == "1 Heading number 1"


# SP 800-161 Table 2-2, not detected as a table: its cells share baselines at three column edges
GRID = [
    ("Services", 72.0, 85.8, 112.2),
    ("Appendix D Scenario or modifying existing functionality) to be used when the", 158.7, 85.8, 518.7),
    ("system is operational to gather information or subvert", 267.9, 98.1, 511.1),
    ("Terrorists", 72.0, 124.2, 117.6),
    ("Unauthorized access", 158.7, 124.2, 252.3),
    ("Terrorists seek to penetrate or disrupt the ICT supply chain", 267.9, 124.2, 530.7),
    ("and may implant unwanted functionality to obtain", 267.9, 136.9, 490.7),
    ("Industrial", 72.0, 175.3, 117.0),
    ("Industrial", 158.7, 175.3, 203.6),
    ("Industrial spies/cyber criminals seek ways to penetrate ICT", 267.9, 175.3, 531.3),
    ("Property Loss (see", 158.7, 200.7, 243.4),
    ("mission operations (e.g., exploitation of an HVAC contractor", 267.9, 200.7, 540.1),
]


def test_cells_of_a_grid_of_shared_baselines_are_no_headings():
    line_df, feats = _page(GRID)
    by_line = {c.line: c for c in headings.candidates(line_df, feats)}
    # 11 pt against a 10 pt body: "Terrorists" and "Property Loss (see" were level-1 headings by size
    for line in (4, 5, 11):
        assert by_line[line].extra["table_row"]
        assert not headings.looks_like_heading(by_line[line], 10.0)


def test_a_two_column_glossary_is_no_grid():
    # SP 800-53r3: term | definition on one baseline, two column edges: the rows stay heading rows
    rows = []
    for k, term in enumerate(["Hybrid Security Control", "Industrial Control System", "Information Owner"]):
        y = 100.0 + 40 * k
        rows.append((term, 95.0, y, 204.0))
        rows.append(("A security control that is implemented in an information system", 226.0, y, 510.0))
        rows.append(
            ("in part as a common control and in part as a system-specific control.", 226.0, y + 13, 505.0)
        )
    line_df, feats = _page(rows)
    cands = headings.candidates(line_df, feats)
    assert not any(c.extra["table_row"] for c in cands)
    assert headings.looks_like_heading([c for c in cands if c.line == 1][0], 10.0)


def test_a_table_in_one_column_makes_no_grid_of_the_page():
    # a two-column datasheet read as one column: its table (right column, three cells a row) has
    # edges of its own; the title pair and the two column headings on shared baselines are no cells
    rows = [
        ("The Potato Project", 56.7, 56.7, 214.3),
        ("Processor Datasheet", 375.7, 56.7, 540.8),
        ("Architecture", 56.7, 110.7, 124.4),
        ("Example Application", 307.3, 110.7, 419.4),
    ]
    for k, y in enumerate((415.0, 427.0, 439.0)):
        rows += [(f"sig{k}", 313.7, y, 329.3), ("1", 375.4, y, 380.4), (f"Signal {k} clock", 415.8, y, 480.1)]
    line_df, feats = _page(rows, size=20.7)
    by_line = {c.line: c for c in headings.candidates(line_df, feats)}
    assert not any(by_line[k].extra["table_row"] for k in (1, 2, 3, 4))
    assert by_line[5].extra["table_row"]  # the table's own cells are
