"""Exports: Markdown, DoclingDocument JSON and JSON Lines, from the tables `parse` returns."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

from docintel.cli import main
from docintel.errors import UsageError
from docintel.export import FORMATS, export, get_writer, to_jsonl, to_markdown
from docintel.export.base import FURNITURE_ROLES, document_blocks
from docintel.export.markdown import markdown_table
from docintel.parsing import parse_document
from docintel.schema.document import DocTables
from docintel.schema.tables import TABLES

from .analyst_fixture import make_report


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = tmp_path_factory.mktemp("export")
    pdf = make_report(root / "report.pdf")
    return pdf, parse_document(pdf, out_dir=root / "artifacts")


def _tables(lines: list[dict], toc: list[dict] | None = None, cells: list[dict] | None = None) -> DocTables:
    """DocTables from hand-written rows (one page of 612x792 pt unless the lines say more)."""
    pages = sorted({r["page"] for r in lines}) or [1]
    frames = {n: TABLES[n].empty() for n in TABLES}
    frames["line_df"] = TABLES["line_df"].conform(
        pd.DataFrame(
            [
                {
                    "doc_id": "d",
                    "x0": 72.0,
                    "y0": 10.0 * r["line"],
                    "x1": 300.0,
                    "y1": 10.0 * r["line"] + 8,
                    **r,
                }
                for r in lines
            ]
        )
    )
    frames["page_df"] = TABLES["page_df"].conform(
        pd.DataFrame([{"doc_id": "d", "page": p, "width": 612.0, "height": 792.0} for p in pages])
    )
    if toc:
        frames["toc_df"] = TABLES["toc_df"].conform(pd.DataFrame([{"doc_id": "d", **t} for t in toc]))
    if cells:
        frames["cell_df"] = TABLES["cell_df"].conform(pd.DataFrame([{"doc_id": "d", **c} for c in cells]))
    return DocTables(doc_id="d", **frames)


def test_markdown_has_headings_by_level_page_anchors_and_the_table(report):
    pdf, tables = report
    md = to_markdown(tables)
    assert re.findall(r"^#+ .*$", md, re.M) == ["# 1 Introduction", "# 2 Costs", "# Appendix A: Method"]
    assert [int(n) for n in re.findall(r'<a id="page-(\d+)"></a>', md)] == [1, 2, 3]
    assert "*Table 1: Costs per site*" in md
    assert "| Site | Cost (k) | Staff |\n|---|---|---|\n| North | 120 | 14 |" in md
    assert "Regional Costs Review" not in md  # the running head is furniture
    # reading order: the caption, then the table, then the next page
    assert md.index("Table 1: Costs") < md.index("| North |") < md.index('<a id="page-3">')


def test_markdown_heading_levels_follow_toc_and_run_in_headings_keep_their_text():
    t = _tables(
        [
            {"page": 1, "line": 1, "text": "Running head", "role": "header", "block": 0},
            {"page": 1, "line": 2, "text": "3.2", "role": "heading", "block": 1, "section_id": "3.2"},
            {"page": 1, "line": 3, "text": "Attention", "role": "heading", "block": 1, "section_id": "3.2"},
            {
                "page": 1,
                "line": 4,
                "text": "Dropout We apply dropout to the out-",
                "role": "body",
                "block": 2,
                "section_id": "s1",
            },
            {
                "page": 1,
                "line": 5,
                "text": "put of each layer.",
                "role": "body",
                "block": 2,
                "section_id": "s1",
            },
            {"page": 1, "line": 6, "text": "# not a heading", "role": "body", "block": 3, "section_id": "s1"},
        ],
        toc=[
            {
                "toc_id": "3.2",
                "number": "3.2",
                "title": "Attention",
                "level": 2,
                "page_start": 1,
                "line_start": 2,
            },
            {"toc_id": "s1", "title": "Dropout", "level": 3, "page_start": 1, "line_start": 4},
        ],
    )
    md = to_markdown(t)
    assert "## 3.2 Attention" in md
    assert "### Dropout\n\nWe apply dropout to the out-put of each layer." in md
    assert "\\# not a heading" in md
    assert "Running head" not in md


def test_blocks_leave_furniture_out_unless_asked(report):
    _, tables = report
    assert not {b.kind for b in document_blocks(tables)} & set(FURNITURE_ROLES)
    assert {"header", "page_number"} <= {b.kind for b in document_blocks(tables, furniture=True)}


def test_markdown_table_merges_header_rows_and_escapes_pipes():
    md = markdown_table([["Year", "Cost"], ["", "(k)"], ["2020", "a|b"]], header_rows=2)
    assert md.splitlines() == ["| Year | Cost (k) |", "|---|---|", "| 2020 | a\\|b |"]
    assert markdown_table([["x", "y"], ["1", "2"]]).splitlines()[0] == "| x | y |"  # no header: first row


def test_jsonl_one_record_per_block_with_its_place(report):
    _, tables = report
    recs = [json.loads(line) for line in to_jsonl(tables).splitlines()]
    assert [r["block"] for r in recs] == list(range(1, len(recs) + 1))
    heads = [r for r in recs if r["kind"] == "heading"]
    assert [(r["page"], r["text"], r["level"]) for r in heads] == [
        (1, "1 Introduction", 1),
        (2, "2 Costs", 1),
        (3, "Appendix A: Method", 1),
    ]
    table = next(r for r in recs if r["kind"] == "table")
    assert table["object_key"] == "table:1" and table["text"].splitlines()[1] == "North | 120 | 14"
    ref = next(r for r in recs if "described in Appendix A" in r["text"])
    assert ref["section_id"] == "1" and ref["section_title"] == "1 Introduction"
    lines = tables.line_df.set_index(["page", "line"])["text"]
    assert lines[(ref["page"], ref["line_start"])] in ref["text"]
    assert all(len(r["bbox"]) == 4 for r in recs if r["kind"] != "heading" or r["bbox"])
    assert not any("Regional Costs Review" in r["text"] for r in recs)


def test_docling_json_loads_in_docling_core_with_provenance(report):
    docling = pytest.importorskip("docling_core.types.doc")
    _, tables = report
    doc = docling.DoclingDocument.model_validate_json(export(tables, format="docling-json"))
    heads = [t for t in doc.texts if t.label == "section_header"]
    assert [(h.text, h.level, h.prov[0].page_no) for h in heads] == [
        ("1 Introduction", 1, 1),
        ("2 Costs", 1, 2),
        ("Appendix A: Method", 1, 3),
    ]
    assert len(doc.tables) == 1 and doc.tables[0].data.num_rows == 4
    assert doc.tables[0].caption_text(doc) == "Table 1: Costs per site"
    assert sorted(doc.pages) == [1, 2, 3]
    box = heads[0].prov[0].bbox
    assert box.coord_origin.value == "BOTTOMLEFT" and box.t > box.b  # Docling's own convention
    furniture = [t for t in doc.texts if t.content_layer.value == "furniture"]
    assert any("Regional Costs Review" in t.text for t in furniture)


def test_docling_export_maps_back_to_the_same_headings_and_table(report, tmp_path, nist_pdf):
    pytest.importorskip("docling_core")
    for pdf in (report[0], nist_pdf):
        tables = parse_document(pdf, out_dir=None)
        out = tmp_path / f"{pdf.stem}.docling.json"
        get_writer("docling-json").write(tables, out)
        back = parse_document(pdf, docling_json=out, out_dir=None)  # the repo's own Docling mapping
        cols = ["number", "title", "level", "page_start"]
        assert (
            back.toc_df[cols].astype(str).values.tolist() == tables.toc_df[cols].astype(str).values.tolist()
        )
        assert back.cell_df["text"].tolist() == tables.cell_df["text"].tolist()


def test_unknown_format_lists_the_known_ones():
    with pytest.raises(UsageError, match="known formats: markdown, docling-json, jsonl"):
        get_writer("html")
    assert list(FORMATS) == ["markdown", "docling-json", "jsonl"]


def test_cli_export_writes_a_file_or_stdout(report, tmp_path, capsys):
    pdf, _ = report
    out = tmp_path / "report.md"
    art = str(tmp_path / "art")
    assert main(["export", str(pdf), "-o", str(out), "--artifacts", art]) == 0
    assert out.read_text().startswith('<a id="page-1"></a>')
    capsys.readouterr()
    assert main(["export", str(pdf), "--format", "jsonl", "--artifacts", art]) == 0
    first = json.loads(capsys.readouterr().out.splitlines()[0])
    assert first["page"] == 1 and first["kind"] == "heading"
    assert main(["export", str(pdf), "-o", str(tmp_path), "--artifacts", art]) == 1
    assert "is a folder" in capsys.readouterr().err


def test_the_new_verbs_keep_cli_start_up_free_of_pandas_and_duckdb():
    import subprocess
    import sys

    code = (
        "import sys; from docintel.cli import build_parser; build_parser(); "
        "print(sorted(m for m in ('pandas', 'pyarrow', 'duckdb', 'docling_core') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_table_block_spans_the_tables_own_lines(report):
    _, tables = report
    block = next(b for b in document_blocks(tables) if b.kind == "table")
    own = tables.line_df[(tables.line_df["object_key"] == "table:1") & (tables.line_df["role"] == "table")]
    assert (block.page, block.line_start, block.line_end) == (
        2,
        int(own["line"].min()),
        int(own["line"].max()),
    )
    assert block.header_rows == 1 and block.rows[0] == ["Site", "Cost (k)", "Staff"]
