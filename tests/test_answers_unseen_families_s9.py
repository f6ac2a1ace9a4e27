"""Session 9 rules for answers on unseen families (held-out set 4, see BENCHMARKS.md)."""

from __future__ import annotations

import pandas as pd

from docintel.retrieval.firstpass import through_list
from docintel.schema.document import DocTables
from docintel.schema.evidence import EvidenceLine, Passage
from docintel.schema.tables import TABLES


def _build(rows: list[tuple]) -> DocTables:
    lines = [{"page": p, "line": ln, "text": t, "role": r} for p, ln, t, r in rows]
    pages = [{"page": p, "printed_label": str(p)} for p in sorted({ln["page"] for ln in lines})]
    frame = {"line_df": lines, "page_df": pages}
    built = {
        n: TABLES[n].conform(pd.DataFrame(frame[n])) if frame.get(n) else TABLES[n].empty() for n in TABLES
    }
    return DocTables(doc_id="d", **built)


def _passage(page: int, lines: list[tuple[int, str]], role: str = "body") -> Passage:
    ev = [EvidenceLine(page=page, line=n, text=t, role=role) for n, t in lines]
    return Passage(doc_id="d", page=page, line_start=ev[0].line, line_end=ev[-1].line, lines=ev)


# -- a window that stops inside a list reads on to the list's end ------------------------------


_ARTICLE = [
    (1, 1, "3.", "body"),
    (1, 2, "The notification referred to in paragraph 1 shall at least:", "body"),
    (1, 3, "(a) describe the nature of the personal data breach including where possible, the", "list_item"),
    (1, 4, "categories and approximate number of data subjects concerned;", "body"),
    (1, 5, "(b) communicate the name and contact details of the data protection officer;", "list_item"),
    (1, 6, "(c) describe the likely consequences of the personal data breach;", "list_item"),
    (1, 7, "(d) describe the measures taken or proposed to be taken by the controller.", "list_item"),
    (1, 8, "4.", "body"),
    (1, 9, "Where it is not possible to provide the information at the same time, it may follow.", "body"),
]


def test_a_window_ending_on_an_open_list_member_reads_through_the_list():
    tables = _build(_ARTICLE)
    window = _passage(1, [(n, t) for _, n, t, _ in _ARTICLE[:4]])  # ends on "...concerned;"
    got = through_list(tables, window)
    assert [ln.line for ln in got.lines] == list(range(1, 8)) and got.line_end == 7
    # the member's own ";" with no member after it (the next line is prose) stays as it is
    prose = [
        (1, 1, "The controller shall keep records;", "body"),
        (1, 2, "These are kept five years.", "body"),
    ]
    assert through_list(_build(prose), _passage(1, [(1, prose[0][2])])).line_end == 1
    # a window that ends its sentence before the list is left alone
    assert through_list(tables, _passage(1, [(1, "3.")])).line_end == 1


def test_an_open_member_followed_by_a_lettered_line_without_a_list_role_reads_on():
    rows = [(p, n, t, "body") for p, n, t, _ in _ARTICLE]
    got = through_list(_build(rows), _passage(1, [(n, t) for _, n, t, _ in rows[:4]]))
    assert got.line_end == 7
