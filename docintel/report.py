"""Answers a person can see: a highlighted copy of the PDF and a self-contained HTML report.

Both outputs place every citation on the page from the line boxes of
``line_df`` (PDF points, top-left origin, unrotated page space as PyMuPDF
extracts them), with one colour code: primary evidence, evidence reached by
following a reference, and pulled-in definitions. The HTML side lives in
:mod:`docintel.report_html`; this module holds the shared geometry and notes
and the PDF writer. PyMuPDF does all the drawing, so no extra dependency.
"""

from __future__ import annotations

import logging
import os
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from docintel.errors import UsageError
from docintel.report_geometry import Rect, line_rects, merge_rects, place_label
from docintel.schema.answer import Citation
from docintel.schema.document import DocTables
from docintel.schema.result import AskResult

__all__ = [
    "VIA_COLOURS",
    "Mark",
    "artifacts_root_of",
    "line_rects",
    "merge_rects",
    "mismatched_evidence",
    "page_marks",
    "place_label",
    "write_highlight_pdf",
    "write_html_report",
]

log = logging.getLogger(__name__)

#: RGB (0-1) per ``retrieved_via``; anything unknown falls back to "other".
VIA_COLOURS: dict[str, tuple[float, float, float]] = {
    "primary": (1.0, 0.84, 0.0),  # yellow: the classic highlighter, first-pass evidence
    "reference": (0.35, 0.75, 1.0),  # blue: reached by following a reference
    "definition": (0.45, 0.88, 0.45),  # green: a pulled-in definition
    "other": (1.0, 0.6, 0.85),  # pink: scope / baseline evidence
}
VIA_LABELS: dict[str, str] = {
    "primary": "primary evidence (pass 1)",
    "reference": "reached through a reference",
    "definition": "definition pulled in",
    "other": "other evidence (scope / baseline)",
}
#: Colour of the line where a reference is written that the loop could not follow.
UNRESOLVED_COLOUR = (0.85, 0.2, 0.2)
ANNOT_TITLE = "docintel"


def via_key(via: str | None) -> str:
    """The colour key for a ``retrieved_via`` value."""
    return via if via in VIA_COLOURS else "other"


def lines_label(start: int, end: int) -> str:
    return f"line {start}" if start == end else f"lines {start}-{end}"


def citation_how(c: Citation) -> str:
    """How the cited lines were reached, e.g. "via reference 'Table 3 row (E)' from page 6, line 28"."""
    if c.retrieved_via == "primary":
        return "primary evidence"
    kind = "definition" if c.retrieved_via == "definition" else c.retrieved_via
    what = f"via {kind}"
    if c.reference_text:
        what += f" '{c.reference_text}'"
    if c.referenced_from:
        what += f" from page {c.referenced_from[0]}, line {c.referenced_from[1]}"
    return what


def citation_note(number: int, c: Citation) -> str:
    """The note attached to a highlight: which citation it is, how it was reached, its quote."""
    note = f"[{number}] {citation_how(c)} (page {c.page}, {lines_label(c.line_start, c.line_end)})"
    if c.quote:
        note += f'\n"{c.quote}"'
    return note


def resolution_note(res: dict, cited: list[int]) -> str:
    """The note on the line where a reference is written: where it led, or why it did not."""
    ref = res.get("reference", "?")
    status = res.get("status", "?")
    if status == "resolved":
        target = res.get("target") or "?"
        if res.get("sub_selector"):
            target += f" [{res['sub_selector']}]"
        pages = ", ".join(str(p) for p in res.get("target_pages") or [])
        text = f"reference '{ref}' -> {target} ({res.get('method', '?')})"
        if pages:
            text += f", page {pages}"
        if cited:
            text += "; cited as " + ", ".join(f"[{n}]" for n in cited)
        return text
    reason = res.get("reason") or ""
    return f"reference '{ref}': {status}" + (f" ({reason})" if reason else "")


@dataclass
class Mark:
    """One thing to draw on a page: a citation's line boxes or a reference's origin line."""

    kind: str  # "citation" | "origin"
    page: int
    rects: list[Rect]
    colour: tuple[float, float, float]
    label: str  # short, drawn next to the box: "[2]" or "->[2]"
    note: str  # long, the annotation content / tooltip
    via: str = "primary"
    number: int = 0
    extra: dict = field(default_factory=dict)


def page_marks(result: AskResult, tables: DocTables) -> dict[int, list[Mark]]:
    """Every mark to draw, by page: citations (numbered from 1, as printed) and the
    origin lines of the references the loop tried to follow."""
    marks: dict[int, list[Mark]] = {}
    cited_by_origin: dict[tuple[int, int], list[int]] = {}
    for n, c in enumerate(result.answer.citations, start=1):
        rects = line_rects(tables, c.page, c.line_start, min(c.line_end, c.line_start + 200), whole_rows=True)
        if not rects:
            log.warning(
                "citation [%d]: no line boxes for page %d, %s",
                n,
                c.page,
                lines_label(c.line_start, c.line_end),
            )
        if c.referenced_from:
            cited_by_origin.setdefault(tuple(c.referenced_from), []).append(n)
        key = via_key(c.retrieved_via)
        marks.setdefault(c.page, []).append(
            Mark("citation", c.page, rects, VIA_COLOURS[key], f"[{n}]", citation_note(n, c), key, n)
        )
    for res in result.resolutions:
        origin = res.get("origin") or []
        if len(origin) != 2 or res.get("status") in ("external", "condition"):
            continue
        page, line = int(origin[0]), int(origin[1])
        rects = line_rects(tables, page, line, line)
        if not rects:
            continue
        cited = cited_by_origin.get((page, line), [])
        resolved = res.get("status") == "resolved"
        colour = VIA_COLOURS["reference"] if resolved else UNRESOLVED_COLOUR
        label = ("->" + ",".join(f"[{n}]" for n in cited)) if cited else ("->" if resolved else "->?")
        marks.setdefault(page, []).append(
            Mark("origin", page, rects, colour, label, resolution_note(res, cited), "reference", extra=res)
        )
    return marks


def load_tables(
    result: AskResult,
    pdf_path: str | Path,
    tables: DocTables | None,
    out_dir: str | Path | None,
    parse_options: dict,
) -> DocTables:
    """The document's tables (parsed, or served from the cache), checked against the result."""
    if tables is None:
        from docintel.api import parse

        if out_dir is None:
            out_dir = artifacts_root_of(result)
        tables = parse(pdf_path, out_dir=out_dir, **parse_options)
    if result.doc_id and tables.doc_id and result.doc_id != tables.doc_id:
        raise UsageError(
            f"{pdf_path}: this PDF (doc_id {tables.doc_id}) is not the one the answer was made from "
            f"(doc_id {result.doc_id}); give the same PDF"
        )
    mismatched = mismatched_evidence(result, tables)
    if mismatched:
        log.warning(
            "%d of %d evidence passages differ from these tables (parsed with other options or another "
            "parser version?); the boxes may sit on the wrong lines: pass the tables the answer was made from",
            mismatched,
            len(result.evidence),
        )
    return tables


def artifacts_root_of(result: AskResult) -> Path | None:
    """The artifacts folder ``ask`` used, read back from its trace path
    (``<root>/<doc_id>/traces/<file>.json``), so the report reuses the very tables the
    answer was made from instead of parsing again somewhere else."""
    if not result.trace_path:
        return None
    p = Path(result.trace_path)
    if p.parent.name == "traces" and p.parent.parent.name == result.doc_id:
        return p.parent.parent.parent
    return None


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


def _same_line(a: str, b: str) -> bool:
    wa, wb = _words(a), _words(b)
    if not wa and not wb:
        return True
    # Containment, not equality: a table passage line is a whole row, line_df holds one cell.
    return len(wa & wb) >= 0.6 * max(min(len(wa), len(wb)), 1)


def mismatched_evidence(result: AskResult, tables: DocTables) -> int:
    """How many evidence passages of ``result`` do not start and end on the same text in
    ``tables``: line numbers only mean something against the tables they came from.

    Words are compared, not characters, because a table passage is shown to the model as
    cells ("(E) | | positional ...") while ``line_df`` holds the printed line."""
    df = tables.line_df
    bad = 0
    for e in result.evidence:
        try:
            page, start, end = int(e["page"]), int(e["line_start"]), int(e["line_end"])
        except (KeyError, TypeError, ValueError):
            continue
        sel = df[(df["page"] == page) & (df["line"] >= start) & (df["line"] <= end)].sort_values("line")
        shown = [ln for ln in str(e.get("text", "")).splitlines() if ln.strip()]
        lines = [str(t) for t in sel["text"] if str(t).strip()]
        if not shown:
            continue
        if not lines or not (_same_line(shown[0], lines[0]) and _same_line(shown[-1], lines[-1])):
            bad += 1
    return bad


def open_document(pdf_path: str | Path, password: str | None = None):
    """Open the PDF (read-only use: the original file is never written)."""
    from docintel.parsing.pdf import open_pdf, read_pdf_bytes

    return open_pdf(read_pdf_bytes(pdf_path), name=Path(pdf_path).name, password=password)


def write_atomically(out_path: str | Path, write: Callable[[Path], None], *, source: str | Path) -> Path:
    """Call ``write(tmp)`` on a temporary file beside ``out_path``, then rename it into place,
    so a reader never sees half a file and a failure leaves no debris."""
    out = Path(out_path)
    if out.exists() and out.resolve() == Path(source).resolve():
        raise UsageError(f"{out}: refusing to overwrite the source PDF; give another output path")
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        write(tmp)
        # mkstemp makes the file 0600; give it the mode a plain open() would have.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, out)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return out


def write_highlight_pdf(
    result: AskResult,
    pdf_path: str | Path,
    out_path: str | Path,
    *,
    tables: DocTables | None = None,
    out_dir: str | Path | None = None,
    password: str | None = None,
    keep_annots: bool = False,
    **parse_options,
) -> Path:
    """Write a copy of ``pdf_path`` to ``out_path`` with the answer's cited lines highlighted.

    Highlights are coloured by how the evidence was reached (see :data:`VIA_COLOURS`) and
    carry a note naming the citation ("[2] via reference 'Table 3 row (E)' from page 6,
    line 28 ..."); the lines where references are written are framed. Pass
    ``tables`` to skip parsing; otherwise the PDF is parsed (or read from the cache in
    ``out_dir``; by default the folder ``ask`` used, read from the trace path). Text-markup
    annotations already in the PDF (someone's highlights) are left out of the copy unless
    ``keep_annots``, so every highlight in it is a citation. The file is written atomically;
    the original is never modified.
    """
    from docintel.report_pdf import annotate_page, drop_markup

    tables = load_tables(result, pdf_path, tables, out_dir, {"password": password, **parse_options})
    marks = page_marks(result, tables)

    def write(tmp: Path) -> None:
        doc = open_document(pdf_path, password)
        try:
            if not keep_annots:
                drop_markup(doc)
            total = 0
            for page_no in sorted(marks):
                if 1 <= page_no <= doc.page_count:
                    total += annotate_page(doc[page_no - 1], marks[page_no])
            log.info("highlighted %d marks on %d pages", total, len(marks))
            doc.save(tmp, garbage=1, deflate=True)
        finally:
            doc.close()

    return write_atomically(out_path, write, source=pdf_path)


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
    from docintel.report_html import render_report

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
