"""Session 13 (gh): the cells of a grid of shared baselines are no headings."""

from __future__ import annotations

import pandas as pd

from docintel.parsing import headings


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
