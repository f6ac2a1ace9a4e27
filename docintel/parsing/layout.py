"""Escalation to the layout model shipped in pymupdf >= 2.0 (first version)."""

from __future__ import annotations


def escalation_reasons(page, rows: list[dict], page_signals: dict) -> list[str]:
    """Signals that the fast path did not understand this page ([] = keep fast)."""
    reasons = []
    if not rows and page_signals.get("n_images", 0):
        reasons.append("no_text_layer")
    return reasons


def extract_page_lines_layout(page, page_no: int, fast_rows: list[dict]) -> tuple[list[dict], dict]:
    """Re-parse one page with pymupdf.layout. First version: keeps the fast rows."""
    from docintel.parsing.lines import extract_page_lines

    rows, sig = extract_page_lines(page, page_no)
    for r in rows:
        r["parse_method"] = "layout"
    return rows, sig
