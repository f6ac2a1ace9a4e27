"""Fast path: PyMuPDF text lines with typography (first version; see TODO)."""

from __future__ import annotations

from collections import Counter


def _dominant(spans: list[dict]) -> dict:
    weights: Counter = Counter()
    for s in spans:
        weights[(s["font"], round(s["size"], 1), s["flags"])] += len(s["text"].strip())
    (font, size, flags), _ = weights.most_common(1)[0]
    return {"font": font, "size": float(size), "flags": flags}


def extract_page_lines(page, page_no: int) -> tuple[list[dict], dict]:
    """Lines of one page in reading order, plus the page's raw signals.

    Returns (lines, signals). Each line dict has the line_df columns except
    doc_id, role, section_id, object_key (filled later).
    """
    d = page.get_text("dict", sort=True)
    rows: list[dict] = []
    for bno, block in enumerate(b for b in d["blocks"] if b.get("type") == 0):
        for ln in block["lines"]:
            spans = [s for s in ln["spans"] if s["text"].strip()]
            if not spans:
                continue
            text = "".join(s["text"] for s in ln["spans"]).strip()
            dom = _dominant(spans)
            x0, y0, x1, y1 = ln["bbox"]
            rows.append(
                {
                    "page": page_no,
                    "text": text,
                    "x0": x0,
                    "y0": y0,
                    "x1": x1,
                    "y1": y1,
                    "block": bno,
                    "column": 0,
                    "font": dom["font"],
                    "size": dom["size"],
                    "bold": bool(dom["flags"] & 16) or "bold" in dom["font"].lower(),
                    "italic": bool(dom["flags"] & 2) or "italic" in dom["font"].lower(),
                    "role": "body",
                    "parse_method": "fast",
                }
            )
    for i, r in enumerate(rows, start=1):
        r["line"] = i
    signals = {
        "n_lines": len(rows),
        "n_chars": sum(len(r["text"].replace(" ", "")) for r in rows),
        "n_words": sum(len(r["text"].split()) for r in rows),
    }
    return rows, signals
