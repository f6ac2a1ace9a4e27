"""The HTML report: one self-contained file, readable from disk with no server and no network.

Page images are PNGs rendered by PyMuPDF and embedded as base64 ``data:`` URIs;
the boxes are an SVG overlay in PDF points (so they stay sharp when zoomed);
the loop is drawn with CSS boxes. No script at all, and a Content-Security-Policy
that forbids anything but inline styles and ``data:`` images, so opening the file
can never fetch anything. Every piece of text goes through :func:`html.escape`.
"""

from __future__ import annotations

import base64
from html import escape
from pathlib import Path

from docintel.report.geometry import line_rects, merge_rects, place_label
from docintel.report.io import load_tables, open_document, write_atomically
from docintel.report.marks import (
    UNRESOLVED_COLOUR,
    VIA_COLOURS,
    VIA_LABELS,
    Mark,
    citation_how,
    lines_label,
    page_marks,
    via_key,
)
from docintel.schema.document import DocTables
from docintel.schema.result import AskResult

CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"

CSS = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:0;
 color:#1d1d1f;background:#f4f4f6}
main{max-width:1100px;margin:0 auto;padding:20px 24px 60px}
h1{font-size:20px;margin:0 0 4px}h2{font-size:17px;margin:26px 0 8px}
.meta{color:#666;font-size:13px}
.question{font-size:18px;font-weight:600;margin:10px 0}
.answer{background:#fff;border:1px solid #ddd;border-radius:8px;padding:12px 16px;white-space:pre-wrap}
.badge{display:inline-block;border-radius:10px;padding:1px 9px;font-size:12px;font-weight:600;
 background:#e4e4e8;margin-left:6px}
.badge.complete{background:#cdeccd}.badge.partial,.badge.references_unresolved{background:#fde3b5}
.badge.not_found{background:#f6c7c7}
.legend span{display:inline-block;margin-right:16px;font-size:13px}
.sw{display:inline-block;width:14px;height:14px;border-radius:3px;vertical-align:-2px;margin-right:5px;
 border:1px solid rgba(0,0,0,.25)}
ol.cites{padding-left:0;list-style:none}
ol.cites li{background:#fff;border:1px solid #ddd;border-left:6px solid #ccc;border-radius:6px;
 padding:7px 12px;margin:6px 0}
ol.cites .n{font-weight:700;margin-right:6px}ol.cites .where{color:#444;font-size:13px}
ol.cites q{display:block;margin-top:3px;font-style:italic;color:#333}
.notes li{font-size:14px}
.flow{display:flex;flex-wrap:wrap;align-items:stretch;gap:6px}
.step{background:#fff;border:1px solid #bbb;border-radius:8px;padding:7px 10px;min-width:130px;
 max-width:300px;font-size:13px}
.step b{display:block;font-size:13px;margin-bottom:3px}
.step ul{margin:0;padding-left:16px}
.step.pending{border-color:#e0a030}.step.resolution{border-color:#4aa3e0}.step.final{border-color:#444}
.arrow{align-self:center;font-size:22px;color:#777;padding:0 2px}
.ok{color:#17751d}.bad{color:#b32020}
.page{background:#fff;border:1px solid #ccc;border-radius:8px;padding:10px;margin:14px 0}
.page h3{margin:0 0 8px;font-size:15px}
.sheet{position:relative;display:inline-block;max-width:100%;line-height:0;box-shadow:0 1px 4px #0003}
.sheet img{display:block;max-width:100%;height:auto}
.sheet svg{position:absolute;left:0;top:0;width:100%;height:100%}
a{color:#0b57b0}
"""


def _css_rgb(colour: tuple[float, float, float], alpha: float = 1.0) -> str:
    r, g, b = (round(255 * c) for c in colour)
    return f"rgba({r},{g},{b},{alpha})"


def _num(x: float) -> str:
    return f"{x:.1f}"


def _legend() -> str:
    items = [
        f'<span><i class="sw" style="background:{_css_rgb(VIA_COLOURS[k], 0.6)}"></i>{escape(VIA_LABELS[k])}</span>'
        for k in ("primary", "reference", "definition", "other")
    ]
    items.append(
        f'<span><i class="sw" style="background:#fff;border:2px solid {_css_rgb(VIA_COLOURS["reference"])}">'
        "</i>line where a followed reference is written</span>"
    )
    items.append(
        f'<span><i class="sw" style="background:#fff;border:2px solid {_css_rgb(UNRESOLVED_COLOUR)}">'
        "</i>reference not followed</span>"
    )
    items.append(
        '<span><i class="sw" style="background:#fff;border:1px dashed #777"></i>evidence shown to the model</span>'
    )
    return '<p class="legend">' + "".join(items) + "</p>"


def _citations(result: AskResult) -> str:
    cites = result.answer.citations
    if not cites:
        return "<p>No citations.</p>"
    rows = []
    for n, c in enumerate(cites, start=1):
        colour = _css_rgb(VIA_COLOURS[via_key(c.retrieved_via)])
        quote = f"<q>{escape(c.quote)}</q>" if c.quote else ""
        rows.append(
            f'<li class="citation via-{escape(via_key(c.retrieved_via))}" id="cite-{n}" '
            f'style="border-left-color:{colour}"><span class="n">[{n}]</span>'
            f'<a href="#page-{c.page}">page {c.page}</a>, {escape(lines_label(c.line_start, c.line_end))} '
            f'<span class="where">({escape(citation_how(c))})</span>{quote}</li>'
        )
    return '<ol class="cites">' + "".join(rows) + "</ol>"


def _notes(result: AskResult) -> str:
    a = result.answer
    items = [
        f"External, not fetched: {escape(e.name)} (page {e.origin_page}, line {e.origin_line})"
        for e in a.external_references
    ]
    items += [f"Condition: {escape(c)}" for c in a.conditions]
    items += [
        f"Unresolved: {escape(u.raw_text)} (page {u.origin_page}, line {u.origin_line}): {escape(u.reason)}"
        for u in result.unresolved
    ]
    items += [f"Warning: {escape(w)}" for w in result.warnings]
    if not items:
        return ""
    return '<ul class="notes">' + "".join(f"<li>{i}</li>" for i in items) + "</ul>"


def _in_evidence(evidence: list[dict], page: int, line: int) -> bool:
    return any(
        e.get("page") == page and e.get("line_start", 0) <= line <= e.get("line_end", 0) for e in evidence
    )


def _resolutions_by_pass(result: AskResult) -> dict[int, list[dict]]:
    """A reference written in pass k's evidence was pending after pass k: group by that k."""
    out: dict[int, list[dict]] = {}
    for res in result.resolutions:
        origin = res.get("origin") or [0, 0]
        k = next(
            (
                p.get("pass", i + 1)
                for i, p in enumerate(result.passes)
                if _in_evidence(p.get("evidence", []), *origin)
            ),
            1,
        )
        out.setdefault(int(k), []).append(res)
    return out


def _step(cls: str, title: str, items: list[str]) -> str:
    body = "<ul>" + "".join(f"<li>{i}</li>" for i in items) + "</ul>" if items else ""
    return f'<div class="step {cls}"><b>{escape(title)}</b>{body}</div>'


def _flow(result: AskResult) -> str:
    """pass 1 (evidence pages) -> pending references -> resolution -> pass 2 -> ... -> final."""
    arrow = '<div class="arrow">&rarr;</div>'
    parts: list[str] = []
    by_pass = _resolutions_by_pass(result)
    for i, p in enumerate(result.passes):
        k = int(p.get("pass", i + 1))
        ev = [
            f"p.{e['page']} {escape(lines_label(e['line_start'], e['line_end']))} ({escape(str(e.get('retrieved_via', '')))})"
            for e in p.get("evidence", [])
        ]
        extra = []
        if p.get("prompt_tokens") is not None:
            extra.append(f"{int(p['prompt_tokens'])} prompt tokens")
        if p.get("decision"):
            extra.append("decision: " + escape(str(p["decision"])))
        parts.append(_step("pass", f"Pass {k}: evidence", ev + extra))
        resolutions = by_pass.get(k, [])
        if resolutions:
            pending = [
                f"{escape(str(r.get('reference')))} (p.{r['origin'][0]}, line {r['origin'][1]})"
                for r in resolutions
            ]
            followed = p.get("decision") == "resolve_references"
            title = (
                "Pending references" if followed else f"Not followed ({p.get('decision') or 'no pass left'})"
            )
            parts += [arrow, _step("pending", title, pending), arrow]
            done = []
            for r in resolutions:
                ref = escape(str(r.get("reference")))
                if r.get("status") == "resolved":
                    target = escape(str(r.get("target") or "?"))
                    if r.get("sub_selector"):
                        target += f" [{escape(str(r['sub_selector']))}]"
                    pages = ", ".join(str(x) for x in r.get("target_pages") or [])
                    done.append(
                        f'<span class="ok">{ref} &rarr; {target}</span> via {escape(str(r.get("method")))}'
                        + (f", page {pages}" if pages else "")
                    )
                else:
                    why = escape(str(r.get("reason") or ""))
                    done.append(f'<span class="bad">{ref}: {escape(str(r.get("status")))}</span> {why}')
            parts.append(_step("resolution", "Resolution", done))
        parts.append(arrow)
    a = result.answer
    final = [
        escape(a.answer_completeness),
        f"{len(a.citations)} citation(s)",
        f"loop ran {result.loop_count} time(s)",
    ]
    parts.append(_step("final", "Final answer", final))
    return '<div class="flow">' + "".join(parts) + "</div>"


def _pages_to_show(
    result: AskResult, marks: dict[int, list[Mark]], page_count: int, max_pages: int
) -> list[int]:
    """Cited pages first, then pages with reference origins, then other evidence pages."""
    order: list[int] = []
    for p in [c.page for c in result.answer.citations] + sorted(marks) + [e["page"] for e in result.evidence]:
        if 1 <= p <= page_count and p not in order:
            order.append(p)
    cited = sorted({p for p in order[:max_pages] if any(c.page == p for c in result.answer.citations)})
    rest = sorted(p for p in order[:max_pages] if p not in cited)
    return cited + rest


def _svg_overlay(page, marks: list[Mark], evidence_boxes: list[tuple[list, str, str]]) -> str:
    import pymupdf

    w, h = page.rect.width, page.rect.height
    rot = page.rotation_matrix
    out = [f'<svg viewBox="0 0 {_num(w)} {_num(h)}" preserveAspectRatio="none">']

    def shown(r):
        return pymupdf.Rect(r) * rot

    for boxes, colour, note in evidence_boxes:
        for r in boxes:
            b = shown(r)
            out.append(
                f'<rect class="evidence" x="{_num(b.x0 - 3)}" y="{_num(b.y0 - 2)}" width="{_num(b.width + 6)}" '
                f'height="{_num(b.height + 4)}" fill="none" stroke="{colour}" stroke-width="1" '
                f'stroke-dasharray="4 3"><title>{escape(note)}</title></rect>'
            )
    taken: list = []
    for m in marks:
        if not m.rects:
            continue
        cls = f"mark {m.kind} via-{escape(m.via)}"
        for r in m.rects:
            b = shown(r)
            if m.kind == "citation":
                style = f'fill="{_css_rgb(m.colour, 0.38)}" stroke="{_css_rgb(m.colour)}" stroke-width="0.8"'
            else:
                style = f'fill="none" stroke="{_css_rgb(m.colour)}" stroke-width="1.6"'
            out.append(
                f'<rect class="{cls}" data-n="{m.number}" x="{_num(b.x0 - 1)}" y="{_num(b.y0 - 1)}" '
                f'width="{_num(b.width + 2)}" height="{_num(b.height + 2)}" {style}>'
                f"<title>{escape(m.note)}</title></rect>"
            )
        size = 8.0
        width = 5.2 * len(m.label) + 4
        x, y, _, _ = place_label(tuple(shown(m.rects[0])), width, size + 3, taken, w)
        out.append(
            f'<g class="label"><rect x="{_num(x)}" y="{_num(y)}" width="{_num(width)}" height="{_num(size + 3)}" '
            f'rx="2" fill="{_css_rgb(m.colour)}"/><text x="{_num(x + 2)}" y="{_num(y + size)}" '
            f'font-size="{_num(size)}" font-family="Helvetica,Arial,sans-serif" font-weight="bold">'
            f"{escape(m.label)}</text></g>"
        )
    out.append("</svg>")
    return "".join(out)


def _page_section(
    doc, tables: DocTables, result: AskResult, page_no: int, marks: list[Mark], dpi: int
) -> str:
    import pymupdf

    page = doc[page_no - 1]
    zoom = dpi / 72.0
    # Without the PDF's own annotations: the overlay is the only markup, as in the highlighted copy.
    pix = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), alpha=False, annots=False)
    data = base64.b64encode(pix.tobytes("png")).decode("ascii")
    evidence_boxes = []
    for e in result.evidence:
        if e.get("page") != page_no:
            continue
        boxes = merge_rects(line_rects(tables, page_no, int(e["line_start"]), int(e["line_end"])))
        # Darker than the fill colour: a dashed yellow line on white would not show.
        colour = _css_rgb(tuple(0.7 * c for c in VIA_COLOURS[via_key(e.get("retrieved_via"))]), 1.0)
        note = f"evidence ({e.get('retrieved_via')}): {lines_label(e['line_start'], e['line_end'])}"
        if e.get("note"):
            note += f" - {e['note']}"
        evidence_boxes.append((boxes, colour, note))
    numbers = [m.label for m in marks if m.kind == "citation"]
    title = f"Page {page_no}" + (f" - {', '.join(numbers)}" if numbers else " - evidence, not cited")
    return (
        f'<section class="page" id="page-{page_no}"><h3>{escape(title)}</h3><div class="sheet">'
        f'<img class="page-img" data-page="{page_no}" width="{pix.width}" height="{pix.height}" '
        f'alt="page {page_no}" src="data:image/png;base64,{data}">'
        f"{_svg_overlay(page, marks, evidence_boxes)}</div></section>"
    )


def render_report(
    result: AskResult,
    tables: DocTables,
    doc,
    marks: dict[int, list[Mark]],
    *,
    dpi: int = 100,
    max_pages: int = 24,
) -> str:
    """The whole HTML document as a string (``doc`` is an open PyMuPDF document)."""
    a = result.answer
    pages = _pages_to_show(result, marks, doc.page_count, max_pages)
    name = tables.manifest.get("source_name") or (tables.path or "")
    sections = "".join(_page_section(doc, tables, result, p, marks.get(p, []), dpi) for p in pages)
    omitted = ""
    wanted = {c.page for c in a.citations} | set(marks) | {e["page"] for e in result.evidence}
    if len(wanted) > len(pages):
        omitted = (
            f"<p class='meta'>{len(wanted) - len(pages)} more page(s) not shown (max_pages={max_pages}).</p>"
        )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>docintel: {escape(result.question[:80])}</title><style>{CSS}</style></head><body><main>"
        f'<h1>docintel answer</h1><p class="meta">{escape(str(name))} &middot; doc_id {escape(result.doc_id)}</p>'
        f'<p class="question" id="question">{escape(result.question)}</p>'
        f'<div class="answer" id="answer">{escape(a.answer)}</div>'
        f'<p class="meta">completeness<span class="badge {escape(a.answer_completeness)}">'
        f"{escape(a.answer_completeness)}</span> &middot; loop ran {result.loop_count} time(s)</p>"
        f"{_notes(result)}<h2>Citations</h2>{_legend()}{_citations(result)}"
        f'<h2>The loop</h2><div id="flow">{_flow(result)}</div>'
        f"<h2>Pages</h2>{omitted}{sections}"
        "</main></body></html>\n"
    )


def write_html_report(
    result: AskResult,
    pdf_path: str | Path,
    out_path: str | Path,
    *,
    tables: DocTables | None = None,
    out_dir: str | Path | None = None,
    password: str | None = None,
    dpi: int = 100,
    max_shown_pages: int = 24,
    **parse_options,
) -> Path:
    """Write a self-contained HTML report (inline CSS, page images as base64 PNG, no script,
    no network) with the question, the answer, the numbered citations, every cited page with
    its boxes drawn in the colour code, and the loop drawn as a flow. See
    :func:`write_highlight_pdf` for ``tables`` / ``out_dir``."""
    tables = load_tables(result, pdf_path, tables, out_dir, {"password": password, **parse_options})
    marks = page_marks(result, tables)

    def write(tmp: Path) -> None:
        doc = open_document(pdf_path, password)
        try:
            text = render_report(result, tables, doc, marks, dpi=dpi, max_pages=max_shown_pages)
        finally:
            doc.close()
        tmp.write_text(text, encoding="utf-8")

    return write_atomically(out_path, write, source=pdf_path)
