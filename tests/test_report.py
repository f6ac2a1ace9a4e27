"""The highlighted PDF and the HTML report put the boxes on the cited lines.

A two-page PDF is built here with PyMuPDF (known lines, plus a coloured patch
per page so the browser test can tell the page images were really drawn),
parsed with the real parser, and answered by a hand-made AskResult: a primary
citation on page 1 and a citation reached through a reference on page 2.

The HTML report is checked in a real headless browser (Debian's chromium;
CI installs it with ``apt-get install -y chromium``); those tests skip when
``/usr/bin/chromium`` is missing.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import shutil
import subprocess
from pathlib import Path

import pymupdf
import pytest

from docintel import report
from docintel.api import parse
from docintel.errors import UsageError
from docintel.schema.answer import Citation, ReferenceAwareAnswer
from docintel.schema.result import AskResult

CHROMIUM = Path("/usr/bin/chromium")
PAGE_W, PAGE_H = 420, 380
MAGENTA = (1.0, 0.0, 1.0)  # patch on page 1
CYAN = (0.0, 1.0, 1.0)  # patch on page 2

PAGE1 = [
    "1 Widget limits",
    "The widget limit depends on the operating mode of the unit.",
    "In normal mode the limit is given in Table 1 row (B) below.",
    "Operators must check the limit before each production run.",
    "Values outside the limit are rejected by the controller.",
    "This closing sentence is not cited by the answer at all.",
]
PAGE2 = [
    "Table 1: Widget limits per mode",
    "Row (A) idle mode allows 10 units per hour.",
    "Row (B) normal mode allows 25 units per hour.",
    "Row (C) burst mode allows 40 units per hour.",
]


def _make_pdf(path: Path) -> Path:
    doc = pymupdf.open()
    for lines, patch in ((PAGE1, MAGENTA), (PAGE2, CYAN)):
        page = doc.new_page(width=PAGE_W, height=PAGE_H)
        for i, text in enumerate(lines):
            page.insert_text((50, 70 + 22 * i), text, fontsize=11, fontname="helv")
        page.draw_rect(pymupdf.Rect(300, 260, 370, 320), color=patch, fill=patch)
    doc.save(path)
    doc.close()
    return path


@pytest.fixture(scope="module")
def doc(tmp_path_factory):
    """The PDF, its tables, the line numbers of interest and the hand-made answer."""
    root = tmp_path_factory.mktemp("report")
    pdf = _make_pdf(root / "widgets.pdf")
    tables = parse(pdf, out_dir=root / "artifacts")
    df = tables.line_df

    def line_of(page: int, needle: str) -> int:
        rows = df[(df["page"] == page) & df["text"].str.contains(needle, regex=False)]
        assert len(rows) == 1, (
            f"expected one line with {needle!r} on page {page}: {df[['page', 'line', 'text']]}"
        )
        return int(rows["line"].iloc[0])

    lines = {
        "depends": line_of(1, "widget limit depends"),
        "origin": line_of(1, "Table 1 row (B)"),
        "uncited": line_of(1, "closing sentence"),
        "row_b": line_of(2, "Row (B) normal"),
    }
    assert lines["origin"] == lines["depends"] + 1

    def evidence(page, start, end, via="primary", ref=None):
        sel = df[(df["page"] == page) & df["line"].between(start, end)].sort_values("line")
        return {
            "page": page,
            "line_start": start,
            "line_end": end,
            "text": "\n".join(sel["text"]),
            "retrieved_via": via,
            "referenced_from": list(ref) if ref else None,
            "reference_text": "Table 1 row (B)" if ref else None,
            "note": "",
        }

    n1 = int(df[df["page"] == 1]["line"].max())
    origin = (1, lines["origin"])
    ev1 = evidence(1, 1, n1)
    ev2 = evidence(2, lines["row_b"], lines["row_b"], "reference", origin)
    answer = ReferenceAwareAnswer(
        answer="In normal mode the limit is 25 units per hour <b>(Table 1 row (B))</b>.",
        citations=[
            Citation(
                page=1,
                line_start=lines["depends"],
                line_end=lines["origin"],
                quote="In normal mode the limit is given in Table 1 row (B)",
            ),
            Citation(
                page=2,
                line_start=lines["row_b"],
                line_end=lines["row_b"],
                quote="Row (B) normal mode allows 25 units per hour.",
                retrieved_via="reference",
                referenced_from=origin,
                reference_text="Table 1 row (B)",
            ),
        ],
        answer_completeness="complete",
    )
    result = AskResult(
        question="What is the widget limit in normal mode? <script>alert(1)</script>",
        doc_id=tables.doc_id,
        answer=answer,
        loop_count=1,
        passes=[
            {"pass": 1, "evidence": [ev1], "prompt_tokens": 80, "decision": "resolve_references"},
            {"pass": 2, "evidence": [ev1, ev2], "prompt_tokens": 95, "decision": "return_to_user"},
        ],
        evidence=[ev1, ev2],
        resolutions=[
            {
                "reference": "Table 1 row (B)",
                "origin": list(origin),
                "ref_type": "table",
                "status": "resolved",
                "method": "object_registry",
                "target": "Table 1",
                "sub_selector": "row (B)",
                "target_pages": [2],
                "reason": "",
            }
        ],
    )
    return {"root": root, "pdf": pdf, "tables": tables, "lines": lines, "result": result}


def _line_rect(tables, page: int, line: int) -> pymupdf.Rect:
    df = tables.line_df
    row = df[(df["page"] == page) & (df["line"] == line)].iloc[0]
    return pymupdf.Rect(row.x0, row.y0, row.x1, row.y1)


def _quads(annot) -> list[pymupdf.Rect]:
    v = annot.vertices
    return [pymupdf.Quad(v[i : i + 4]).rect for i in range(0, len(v), 4)]


def _pixels(page, clip: pymupdf.Rect, zoom: float = 2.0) -> bytes:
    return page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), clip=clip, alpha=False).samples


def _mean_abs_diff(a: bytes, b: bytes) -> float:
    assert len(a) == len(b)
    return sum(abs(x - y) for x, y in zip(a, b, strict=True)) / len(a)


@pytest.fixture(scope="module")
def highlighted(doc):
    out = doc["root"] / "out" / "widgets.highlighted.pdf"
    before = hashlib.sha256(doc["pdf"].read_bytes()).hexdigest()
    path = report.write_highlight_pdf(doc["result"], doc["pdf"], out, tables=doc["tables"])
    assert hashlib.sha256(doc["pdf"].read_bytes()).hexdigest() == before, "the original PDF was modified"
    return path


def test_highlight_rects_lie_on_the_cited_lines(doc, highlighted):
    tables, lines = doc["tables"], doc["lines"]
    out = pymupdf.open(highlighted)
    found = {}
    pages = list(out)  # an annotation is only usable while its page object lives
    for page in pages:
        for annot in page.annots(types=[pymupdf.PDF_ANNOT_HIGHLIGHT]):
            found[annot.info["content"].split("]")[0] + "]"] = (page.number + 1, annot)
    assert set(found) == {"[1]", "[2]"}

    page_no, annot = found["[1]"]
    assert page_no == 1
    expected = [_line_rect(tables, 1, n) for n in (lines["depends"], lines["origin"])]
    got = _quads(annot)
    assert len(got) == 2
    for g, e in zip(got, expected, strict=True):
        assert max(abs(g.x0 - e.x0), abs(g.y0 - e.y0), abs(g.x1 - e.x1), abs(g.y1 - e.y1)) < 1.0
    assert annot.colors["stroke"] == pytest.approx(report.VIA_COLOURS["primary"], abs=0.01)
    assert annot.info["content"].startswith("[1] primary evidence (page 1")

    page_no, annot = found["[2]"]
    assert page_no == 2
    (g,) = _quads(annot)
    e = _line_rect(tables, 2, lines["row_b"])
    assert max(abs(g.x0 - e.x0), abs(g.y0 - e.y0), abs(g.x1 - e.x1), abs(g.y1 - e.y1)) < 1.0
    assert annot.colors["stroke"] == pytest.approx(report.VIA_COLOURS["reference"], abs=0.01)
    assert annot.info["content"].startswith(
        f"[2] via reference 'Table 1 row (B)' from page 1, line {lines['origin']}"
    )
    # The line where the followed reference is written is framed, with where it led.
    (under,) = list(pages[0].annots(types=[pymupdf.PDF_ANNOT_SQUARE]))
    assert under.rect.contains(_line_rect(tables, 1, lines["origin"]))
    assert "Table 1 [row (B)] (object_registry)" in under.info["content"]
    assert "cited as [2]" in under.info["content"]


def test_highlight_pixels_change_only_on_cited_lines(doc, highlighted):
    tables, lines = doc["tables"], doc["lines"]
    original, marked = pymupdf.open(doc["pdf"]), pymupdf.open(highlighted)
    for page, line in ((1, lines["depends"]), (2, lines["row_b"])):
        clip = _line_rect(tables, page, line)
        diff = _mean_abs_diff(_pixels(original[page - 1], clip), _pixels(marked[page - 1], clip))
        assert diff > 20, f"page {page} line {line}: highlight not visible (mean diff {diff:.1f})"
    clip = _line_rect(tables, 1, lines["uncited"])
    diff = _mean_abs_diff(_pixels(original[0], clip), _pixels(marked[0], clip))
    assert diff < 0.5, f"an uncited line changed (mean diff {diff:.1f})"


def test_highlight_write_is_atomic_and_never_overwrites_the_source(doc, highlighted, tmp_path):
    leftovers = [p.name for p in highlighted.parent.iterdir() if p != highlighted]
    assert leftovers == []
    umask = os.umask(0)
    os.umask(umask)
    assert highlighted.stat().st_mode & 0o777 == 0o666 & ~umask  # not the temp file's 0600
    copy = tmp_path / "copy.pdf"
    shutil.copy(doc["pdf"], copy)
    with pytest.raises(UsageError, match="source PDF"):
        report.write_highlight_pdf(doc["result"], copy, copy, tables=doc["tables"])
    # An answer made from another PDF: its line numbers mean nothing here.
    bad = doc["result"].model_copy(update={"doc_id": "0" * 16})
    with pytest.raises(UsageError, match="not the one the answer was made from"):
        report.write_highlight_pdf(bad, copy, tmp_path / "x.pdf", tables=doc["tables"])
    assert not (tmp_path / "x.pdf").exists()


def test_out_dir_passthrough_reuses_the_cached_tables(doc, tmp_path):
    out = report.write_highlight_pdf(
        doc["result"], doc["pdf"], tmp_path / "h.pdf", out_dir=doc["root"] / "artifacts"
    )
    assert len(list(pymupdf.open(out)[0].annots(types=[pymupdf.PDF_ANNOT_HIGHLIGHT]))) == 1
    assert report.mismatched_evidence(doc["result"], doc["tables"]) == 0


def test_artifacts_root_is_read_back_from_the_trace_path(doc):
    result = doc["result"].model_copy(
        update={"trace_path": f"/x/arts/{doc['tables'].doc_id}/traces/20260101T000000-1.json"}
    )
    assert report.artifacts_root_of(result) == Path("/x/arts")
    assert report.artifacts_root_of(doc["result"]) is None


def test_merge_rects_keeps_columns_apart():
    left = [(50, 100, 250, 110), (50, 112, 240, 122)]
    right = [(300, 100, 500, 110), (300, 112, 480, 122)]
    assert report.merge_rects(left + right) == [(50, 100, 250, 122), (300, 100, 500, 122)]


@pytest.fixture(scope="module")
def html_report(doc):
    out = doc["root"] / "out" / "report.html"
    return report.write_html_report(doc["result"], doc["pdf"], out, tables=doc["tables"])


def test_html_is_self_contained_and_escaped(doc, html_report):
    text = html_report.read_text(encoding="utf-8")
    assert "http://" not in text and "https://" not in text
    assert "<script" not in text and "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "&lt;b&gt;(Table 1 row (B))&lt;/b&gt;" in text
    assert "Content-Security-Policy" in text
    images = re.findall(
        r'<img class="page-img" data-page="(\d+)"[^>]*src="data:image/png;base64,([^"]+)"', text
    )
    assert [p for p, _ in images] == ["1", "2"]
    for _, data in images:
        pix = pymupdf.Pixmap(base64.b64decode(data))
        assert abs(pix.width - PAGE_W * 100 / 72) <= 1 and abs(pix.height - PAGE_H * 100 / 72) <= 1
    # The flow: pass 1 -> pending -> resolution -> pass 2 -> final.
    flow = text[text.index('<div id="flow">') :]
    order = [flow.index(s) for s in ("Pass 1", "Pending references", "Resolution", "Pass 2", "Final answer")]
    assert order == sorted(order)
    assert "Table 1 row (B) &rarr; Table 1 [row (B)]</span> via object_registry" in flow


def _chromium(args: list[str], tmp_path: Path) -> subprocess.CompletedProcess:
    cmd = [
        str(CHROMIUM),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        f"--user-data-dir={tmp_path / 'chromium-profile'}",
        *args,
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=True)


needs_chromium = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="needs a headless browser: apt-get install -y chromium"
)


@needs_chromium
def test_html_dom_in_a_real_browser(doc, html_report, tmp_path):
    dom = _chromium(["--dump-dom", html_report.as_uri()], tmp_path).stdout
    assert "What is the widget limit in normal mode?" in dom
    assert "<script" not in dom.replace("&lt;script", "")
    assert "In normal mode the limit is 25 units per hour" in dom
    assert dom.count('class="citation ') == 2
    assert 'id="cite-1"' in dom and 'id="cite-2"' in dom
    assert "via reference 'Table 1 row (B)' from page 1" in dom.replace("&#x27;", "'").replace("&#39;", "'")
    assert len(re.findall(r'<img class="page-img"[^>]*src="data:image/png;base64,', dom)) == 2
    assert len(re.findall(r'<rect class="mark citation via-primary"', dom)) == 2
    assert len(re.findall(r'<rect class="mark citation via-reference"', dom)) == 1


@needs_chromium
def test_html_screenshot_shows_the_pages_and_boxes(html_report, tmp_path):
    shot = tmp_path / "shot.png"
    _chromium([f"--screenshot={shot}", "--window-size=1200,2600", html_report.as_uri()], tmp_path)
    pix = pymupdf.Pixmap(str(shot))
    if pix.alpha:
        pix = pymupdf.Pixmap(pix, 0)
    colours = pix.color_count(colors=True)  # {rgb bytes: pixel count}, counted in C

    def count(pred) -> int:
        return sum(k for c, k in colours.items() if pred(*c[:3]))

    assert len(colours) > 50, "the screenshot is blank"
    # The coloured patches exist only inside the page images: both images were decoded and drawn.
    assert count(lambda r, g, b: r > 220 and g < 40 and b > 220) > 100, "page 1 image not drawn"
    assert count(lambda r, g, b: r < 40 and g > 220 and b > 220) > 100, "page 2 image not drawn"
    # The primary-evidence overlay (translucent yellow) is drawn over the page.
    assert count(lambda r, g, b: r > 230 and g > 200 and b < 190) > 100, "no yellow citation boxes"


def test_place_label_keeps_two_labels_of_one_line_apart():
    taken: list = []
    a = report.place_label((100, 50, 300, 60), 14, 10, taken, 420)
    b = report.place_label((100, 50, 300, 60), 14, 10, taken, 420)
    assert a[2] <= 100 and b[2] <= a[0], (a, b)  # both in the left margin, side by side
    c = report.place_label((5, 80, 300, 90), 14, 10, taken, 420)
    assert c[0] >= 300  # no room on the left: right of the line


def test_rotated_page_boxes_follow_the_rotation(tmp_path):
    """line_df holds unrotated coordinates; the page image is drawn rotated."""
    pdf = tmp_path / "rotated.pdf"
    d = pymupdf.open()
    page = d.new_page(width=420, height=300)
    for i, text in enumerate(
        ["The first line of the turned page.", "A second line, the cited one.", "A third."]
    ):
        page.insert_text((50, 70 + 22 * i), text, fontsize=11)
    page.set_rotation(90)
    d.save(pdf)
    tables = parse(pdf, out_dir=tmp_path / "artifacts")
    line = int(tables.line_df[tables.line_df["text"].str.startswith("A second")]["line"].iloc[0])
    result = AskResult(
        question="Which line?",
        doc_id=tables.doc_id,
        answer=ReferenceAwareAnswer(
            answer="The second.",
            citations=[Citation(page=1, line_start=line, line_end=line)],
            answer_completeness="complete",
        ),
    )
    text = report.write_html_report(result, pdf, tmp_path / "r.html", tables=tables).read_text()
    (data,) = re.findall(r'src="data:image/png;base64,([^"]+)"', text)
    x, y, w, h = map(
        float,
        re.search(
            r'class="mark citation[^"]*" data-n="1" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"',
            text,
        ).groups(),
    )
    assert h > w, "a line of a page turned by 90 degrees is drawn upright: taller than wide"
    pix = pymupdf.Pixmap(base64.b64decode(data))
    zoom = pix.width / 300
    dark = inside = 0
    for j in range(pix.height):
        for i in range(pix.width):
            if max(pix.pixel(i, j)) < 110:
                dark += 1
                inside += x * zoom <= i <= (x + w) * zoom and y * zoom <= j <= (y + h) * zoom
    # Three lines of text: the box holds about one of them.
    assert 0.2 < inside / dark < 0.55, (inside, dark)


def test_a_cited_table_cell_lights_up_its_whole_row():
    import pandas as pd

    rows = [  # line, text, x0, y0, x1, y1, role, object_key
        (4, "Table 1: limits", 50, 80, 200, 90, "caption", None),
        (5, "(E)", 50, 100, 70, 110, "table", "table:1"),
        (6, "positional embedding", 90, 100, 200, 110, "table", "table:1"),
        (7, "4.92", 220, 100, 240, 110, "table", "table:1"),
        (8, "big", 50, 115, 70, 125, "table", "table:1"),
        (9, "Body text beside the table.", 260, 100, 400, 110, "body", None),
    ]
    df = pd.DataFrame(rows, columns=["line", "text", "x0", "y0", "x1", "y1", "role", "object_key"]).assign(
        page=1
    )
    tables = type("T", (), {"line_df": df})()
    assert len(report.line_rects(tables, 1, 5, 5)) == 1
    got = report.line_rects(tables, 1, 5, 5, whole_rows=True)
    assert got == [(50, 100, 70, 110), (90, 100, 200, 110), (220, 100, 240, 110)]


def test_evidence_read_against_other_tables_is_flagged(doc):
    result = doc["result"]
    shifted = [dict(e, line_start=e["line_start"] + 1, line_end=e["line_end"] + 1) for e in result.evidence]
    assert report.mismatched_evidence(result.model_copy(update={"evidence": shifted}), doc["tables"]) >= 1
