"""Session 9 (wq): per-ask and per-document memos of the heavy warm questions give what the
uncached code gives: the model is asked once per unresolved reference in an ask, and
``numbered_heading``'s index by opening word finds the heading the full scan finds."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from docintel import decide
from docintel.retrieval import reflines
from docintel.schema.answer import PendingReference
from docintel.schema.document import DocTables
from docintel.schema.evidence import ParsedQuestion
from docintel.schema.tables import TABLES
from docintel.schema.trace import Trace

DOC = "wqdoc"


def _tables(rows: list[tuple[int, str, str]]) -> DocTables:
    lines = [
        {"doc_id": DOC, "page": page, "line": i, "text": text, "role": role, "x0": 72.0,
         "y0": 100.0 + 14 * i, "x1": 500.0, "y1": 110.0 + 14 * i, "section_id": "1"}
        for i, (page, role, text) in enumerate(rows, start=1)
    ]  # fmt: skip
    pages = [{"doc_id": DOC, "page": p, "printed_label": str(p), "image_only": False, "n_lines": 5}
             for p in sorted({r[0] for r in rows})]  # fmt: skip
    toc = [{"doc_id": DOC, "toc_id": "1", "number": "1", "title": "Overview", "level": 1,
            "page_start": 1, "line_start": 1, "page_end": 1, "line_end": 3, "source": "heading_detection"}]  # fmt: skip
    frame = {"line_df": lines, "page_df": pages, "toc_df": toc}
    built = {
        n: TABLES[n].conform(pd.DataFrame(frame[n])) if n in frame else TABLES[n].empty() for n in TABLES
    }
    return DocTables(doc_id=DOC, **built)


class _Counting:
    name, kind = "counting", "rules"

    def __init__(self) -> None:
        self.calls = 0

    def resolve_reference(self, raw_text, context, sections):
        self.calls += 1
        return None


def test_an_unresolved_reference_is_put_to_the_model_once_per_ask():
    tables = _tables(
        [(1, "heading", "1 Overview"), (1, "body", "As set out in the annex on keys."), (1, "body", "x")]
    )
    backend = _Counting()
    loop = decide._Loop(tables, ParsedQuestion(text="What keys?"), backend, Trace(question="q"), 40)
    ref = PendingReference(raw_text="the annex on keys", ref_type="section", origin_page=1, origin_line=2)
    first = loop.resolve(ref, allow_llm=False)
    assert first.status == "unresolved" and backend.calls == 0
    again = [loop.resolve(ref, allow_llm=True) for _ in range(3)]  # triage, then each pass
    assert backend.calls == 1
    assert all(r is again[0] and r.status == "unresolved" for r in again)


def _scan(tables, target, origin):
    """numbered_heading as it was: every heading line tried in order."""
    margin = r"(?:[0-9]{1,5}[ \t]+)?" if "." in str(target) or reflines.line_numbered(tables) else ""
    rx = re.compile(rf"^\s*{margin}{re.escape(str(target))}[.)]?\s+[A-Z\u00c0-\u00de]")
    for page, line, text in reflines._heading_memo(tables)[0]:
        if (page, line) != origin and rx.match(text) and not reflines._LEADERS.search(text):
            return page, line
    return None


HEADS = [
    (1, "heading", "1 Overview"),
    (1, "heading", "4.2 Scope of the rule"),
    (2, "heading", "257 4.2 Scope again after a margin number"),
    (2, "heading", "4.2. Dotted heading"),
    (2, "heading", "  21) CONTINGENT LIABILITIES"),
    (3, "heading", "4.02\tPayment"),
    (3, "heading", "4.2 Contents entry . . . . . . 12"),
    (3, "body", "4.2 Body text, not a heading"),
    (3, "title", "A.1 Annex title"),
    (4, "heading", "12 21. Notes after a count"),
    (4, "heading", "Section 3 Title"),
]


@pytest.mark.parametrize("target", ["1", "4.2", "4.02", "21", "A.1", "3", "Section 3", "12", "9", "", "4"])
def test_numbered_heading_finds_what_the_full_scan_finds(target):
    tables = _tables(HEADS)
    for origin in [(0, 0), (1, 2), (2, 3), (2, 5), (3, 6), (4, 10)]:
        assert reflines.numbered_heading(tables, target, origin) == _scan(tables, target, origin)
