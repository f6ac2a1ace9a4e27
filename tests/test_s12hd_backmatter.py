"""Session 12 (hd): appendix objects keep their labels' order."""

from __future__ import annotations

import numpy as np
import pandas as pd

from docintel.parsing.backmatter import appendices


def _toc(rows: list[tuple[str, int]]) -> pd.DataFrame:
    base = {"level": 1, "number": np.nan, "page_end": 300, "line_end": 99, "line_start": 5}
    return pd.DataFrame(
        [
            {**base, "toc_id": f"s{i}", "title": t, "page_start": p, "source": "heading_detection"}
            for i, (t, p) in enumerate(rows)
        ]
    )


def _lines(pages: list[int]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "page": p,
                "line": 5,
                "text": "x",
                "role": "body",
                "x0": 72.0,
                "y0": 90.0,
                "x1": 500.0,
                "y1": 100.0,
            }
            for p in pages
        ]
    )


def _pages(rows: list[dict]) -> dict[str, int]:
    return {r["object_key"]: r["page"] for r in rows}


def test_a_label_before_the_appendices_it_follows_is_a_mention():
    # SP 800-161: wrapped table cells "(see Appendix D Scenario 3)" (p36) and sentences opening
    # with "Appendix C) and ..." (p44), "Appendix B where ..." (p62) were read as headings and
    # took the labels from the real appendices (B p135, C p235, D p241)
    rows = [
        ("Appendix D Scenario or modifying existing functionality", 36),
        ("Appendix C) and potential threat actors", 44),
        ("Appendix B where the full control text is provided", 62),
        ("APPENDIX A", 126),
        ("APPENDIX B", 135),
        ("APPENDIX C", 235),
        ("APPENDIX D", 241),
        ("APPENDIX E", 259),
    ]
    got = _pages(appendices(_toc(rows), _lines([p for _, p in rows]), set()))
    assert got == {
        "appendix:A": 126,
        "appendix:B": 135,
        "appendix:C": 235,
        "appendix:D": 241,
        "appendix:E": 259,
    }


def test_one_sequence_per_volume_keeps_the_first_volume():
    rows = [
        ("Appendix A Terms", 10),
        ("Appendix B Forms", 20),
        ("Appendix A Terms", 110),
        ("Appendix B Forms", 120),
    ]
    got = _pages(appendices(_toc(rows), _lines([p for _, p in rows]), set()))
    assert got == {"appendix:A": 10, "appendix:B": 20}


def test_an_excerpt_starting_at_a_later_appendix_keeps_it():
    rows = [("Appendix C Glossary", 3), ("Appendix D Acronyms", 9), ("Annex 2 Fees", 12)]
    got = _pages(appendices(_toc(rows), _lines([p for _, p in rows]), set()))
    assert got == {"appendix:C": 3, "appendix:D": 9, "annex:2": 12}
