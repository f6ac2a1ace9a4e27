"""The Docling backend on real Docling exports (tests/data/docling, MIT, from Docling's own tests).

Covers: the mapping gives valid tables for every export; headings -> toc_df with
levels; Docling tables -> registry rows with cells; line order follows Docling's
reading order; the export is checked against the PDF; the conversion path fails
with one clear error when Docling or its weights are missing; golden snapshots;
``ask`` on a Docling-parsed document.
"""

from __future__ import annotations

import json
import os
import sys
import types
import unicodedata
from pathlib import Path

import pandas as pd
import pytest

from docintel.errors import MissingDependencyError, UsageError
from docintel.parsing import crossrefs, parse_document
from docintel.parsing.docling_backend import docling_binary_hash, load_docling_json
from docintel.parsing.docling_map import norm_text
from docintel.schema.tables import TABLES

pytest.importorskip(
    "docling_core", reason="the Docling JSON path needs docling-core: pip install '.[docling]'"
)

DATA = Path(__file__).resolve().parent / "data" / "docling"
GOLDEN = Path(__file__).resolve().parent / "golden" / "docling"
UPDATE_GOLDEN = os.environ.get("DOCINTEL_UPDATE_GOLDEN") == "1"
NAMES = sorted(p.name[: -len(".docling.json")] for p in DATA.glob("*.docling.json"))
_cache: dict[str, object] = {}
QUOTES = str.maketrans("\u2018\u2019\u201c\u201d", "''\"\"")


def parse(path, **kw):
    """Parse in memory (``out_dir=None``): no cache is read or written."""
    kw.pop("use_cache", None)
    return parse_document(path, **{**kw, "out_dir": None})


def mapped(name: str):
    """The DocTables of one export (parsed once per test session, in memory)."""
    if name not in _cache:
        _cache[name] = parse(
            DATA / f"{name}.pdf", docling_json=DATA / f"{name}.docling.json", out_dir=None, use_cache=False
        )
    return _cache[name]


def test_all_exports_are_present():
    assert len(NAMES) == 6, NAMES


@pytest.mark.parametrize("name", NAMES)
def test_mapping_gives_valid_tables(name):
    t = mapped(name)
    for tname, spec in TABLES.items():
        df = t.table(tname)
        assert list(df.columns) == spec.column_names, tname
        assert spec.conform(df).dtypes.equals(df.dtypes), tname
    lines, pages = t.line_df, t.page_df
    assert len(lines) > 0 and (lines["doc_id"] == t.doc_id).all()
    assert set(lines["parse_method"]) == {"docling"} and set(pages["parse_method"]) <= {"docling", "failed"}
    assert pages["page"].tolist() == list(range(1, len(pages) + 1))
    for page, g in lines.groupby("page"):
        assert g["line"].tolist() == list(range(1, len(g) + 1)), f"page {page}: lines not numbered 1..n"
        assert int(pages.loc[pages["page"] == page, "n_lines"].iloc[0]) == len(g)
    assert lines[["x0", "y0", "x1", "y1"]].notna().all().all()
    assert ((lines["x0"] <= lines["x1"]) & (lines["y0"] <= lines["y1"])).all()
    assert lines["text"].str.strip().str.len().gt(0).all()
    assert set(lines["role"]) <= set(TABLES["line_df"].descriptions["role"].replace(" or ", ", ").split(", "))
    reg, cells, toc = t.object_registry, t.cell_df, t.toc_df
    assert reg["object_key"].is_unique and toc["toc_id"].is_unique
    assert set(lines["object_key"].dropna()) <= set(reg["object_key"])
    assert set(cells["object_key"]) <= set(reg.loc[reg["object_type"] == "table", "object_key"])
    assert set(lines["section_id"].dropna()) <= set(toc["toc_id"])
    assert set(toc["parent_id"].dropna()) <= set(toc["toc_id"])
    assert (toc["source"] == "docling").all() and (reg["source"] == "docling").all()


def test_headings_become_toc_rows_with_levels():
    toc = mapped("2305.03393v1-pg9").toc_df.set_index("toc_id")
    assert toc.loc["5.1", "title"] == "Hyper Parameter Optimization" and toc.loc["5.1", "level"] == 2
    assert toc.loc["5.2", "title"] == "Quantitative Results"

    toc = mapped("redp5110_sampled").toc_df.set_index("toc_id")
    # Docling split the chapter number '1' from its title: they are one heading again.
    assert toc.loc["1", "title"] == "Securing and protecting IBM DB2 data" and toc.loc["1", "level"] == 1
    assert toc.loc["1.1", "level"] == 2 and toc.loc["1.1", "parent_id"] == "1"
    assert toc.loc["1.3.1", "level"] == 3 and toc.loc["1.3.1", "parent_id"] == "1"

    toc = mapped("normal_4pages").toc_df
    paren = toc[toc["number"] == "(1)"]
    assert len(paren) == 3 and (paren["level"] == 2).all()
    assert paren["toc_id"].str.startswith("s").all(), "a repeated number is ambiguous: synthetic ids"
    assert set(paren["parent_id"]) == {"2", "3", "4"}, "each (1) sits under its numbered section"

    multi = mapped("multi_page")
    ddoc = load_docling_json(DATA / "multi_page.docling.json")
    headers = [t.text for t in ddoc.texts if str(t.label) == "section_header"]
    assert multi.toc_df["title"].tolist() == headers
    first = multi.toc_df.iloc[0]
    line = multi.line_df[
        (multi.line_df["page"] == first["page_start"]) & (multi.line_df["line"] == first["line_start"])
    ]
    assert line["role"].item() == "heading"


def test_docling_tables_become_registry_rows_with_cells():
    t = mapped("2305.03393v1-pg9")
    ddoc = load_docling_json(DATA / "2305.03393v1-pg9.docling.json")
    reg = t.object_registry.set_index("object_key")
    row = reg.loc["table:1"]
    assert row["label"] == "Table 1" and row["caption"].startswith("Table 1. HPO performed")
    assert (row["n_rows"], row["n_cols"]) == (ddoc.tables[0].data.num_rows, ddoc.tables[0].data.num_cols)
    cells = t.cell_df[t.cell_df["object_key"] == "table:1"]
    assert len(cells) == len(ddoc.tables[0].data.table_cells)
    first = cells[(cells["row"] == 0) & (cells["col"] == 0)].iloc[0]
    assert first["text"] == "# enc-layers" and bool(first["is_header"])
    assert cells[["x0", "y0", "x1", "y1"]].notna().all().all()
    body = cells[~cells["is_header"]]
    assert body["row_label"].notna().all()
    table_lines = t.line_df[t.line_df["role"] == "table"]
    assert (table_lines["object_key"] == "table:1").all() and len(table_lines) >= 5
    caption = t.line_df[t.line_df["role"] == "caption"]
    assert (caption["object_key"] == "table:1").all()
    assert caption["line"].max() < table_lines["line"].min(), "a caption above its table comes first"

    redp = mapped("redp5110_sampled").object_registry
    tables = redp[redp["object_type"] == "table"]
    assert {"table:2-1", "table:2-2", "table:3-1", "table:3-2"} <= set(tables["object_key"])
    figures = redp[redp["object_type"] == "figure"]
    assert {"figure:1-2", "figure:3-1", "figure:4-69"} <= set(figures["object_key"])
    assert mapped("normal_4pages").object_registry["label"].tolist() == ["표 1"]


@pytest.mark.parametrize("name", NAMES)
def test_reading_order_follows_docling(name):
    """Every Docling text item is found in line_df, in Docling's body order.

    Items are probed by their last and first characters: Docling writes bullet
    glyphs by name ('SM590000 First...') where the PDF line has the glyph, and
    straight quotes where the PDF has curly ones.
    """
    from docling_core.types.doc import ContentLayer

    ddoc = load_docling_json(DATA / f"{name}.docling.json")

    def key(text: str) -> str:
        return norm_text(unicodedata.normalize("NFKC", text)).translate(QUOTES)

    stream = "".join(key(x) for x in mapped(name).line_df["text"])
    pos, found, total = 0, 0, 0
    for item, _ in ddoc.iterate_items(included_content_layers={ContentLayer.BODY}):
        if str(item.label) not in ("text", "section_header", "list_item", "footnote") or len(item.prov) != 1:
            continue
        probes = [p for p in (key(item.text)[-12:], key(item.text)[:12]) if len(p) >= 6]
        if not probes:
            continue
        total += 1
        hits = [(at, len(p)) for p in probes if (at := stream.find(p, pos)) >= 0]
        if hits:
            found += 1
            at, n = min(hits)
            pos = at + n
    assert total and found / total >= 0.95, f"{found}/{total} items found in order"


def test_native_links_and_refs_come_from_the_shared_crossrefs():
    """Docling has no links: the PDF's own (4 on this page) are kept exactly as the PyMuPDF parser keeps them."""
    name = "2305.03393v1-pg9"
    dl = mapped(name)
    ours = parse(DATA / f"{name}.pdf", out_dir=None, use_cache=False, layout="never")
    key = ["origin_page", "ref_type", "ref_target", "target_page"]

    def links(t):
        x = t.cross_ref_df
        return sorted(map(tuple, x.loc[x["source"] == "native_link", key].astype(str).values.tolist()))

    assert links(dl) == links(ours)
    eager = parse(
        DATA / f"{name}.pdf",
        docling_json=DATA / f"{name}.docling.json",
        out_dir=None,
        use_cache=False,
        eager_refs=True,
    )
    regex = crossrefs.extract_references(eager.line_df, eager.doc_id)
    assert len(eager.cross_ref_df) == len(dl.cross_ref_df) + len(regex)


def test_docling_json_of_another_pdf_is_a_clear_error():
    with pytest.raises(UsageError, match="another file"):
        parse(DATA / "multi_page.pdf", docling_json=DATA / "amt_handbook_sample.docling.json", out_dir=None)


def test_page_size_mismatch_is_a_clear_error(tmp_path):
    d = json.loads((DATA / "2305.03393v1-pg9.docling.json").read_text())
    assert d["origin"]["binary_hash"] == docling_binary_hash((DATA / "2305.03393v1-pg9.pdf").read_bytes())
    d["pages"]["1"]["size"]["width"] += 50
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(d))
    with pytest.raises(UsageError, match="not of this PDF"):
        parse(DATA / "2305.03393v1-pg9.pdf", docling_json=bad, out_dir=None)


def test_not_a_docling_json_is_a_clear_error(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text('{"hello": 1}')
    with pytest.raises(UsageError, match="not a Docling JSON export"):
        parse(DATA / "multi_page.pdf", docling_json=bad, out_dir=None)


def test_parser_docling_without_docling_names_the_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "docling", None)  # import docling.* raises ImportError
    with pytest.raises(MissingDependencyError, match=r"pip install 'docintel\[docling\]'"):
        parse(DATA / "multi_page.pdf", parser="docling", out_dir=None)


def _fake_docling(monkeypatch, converter_cls) -> None:
    """Install a stand-in ``docling`` package exposing what the backend imports."""
    mods = {
        n: types.ModuleType(n)
        for n in (
            "docling",
            "docling.datamodel",
            "docling.datamodel.base_models",
            "docling.datamodel.pipeline_options",
            "docling.datamodel.settings",
            "docling.document_converter",
        )
    }
    mods["docling.datamodel.base_models"].InputFormat = types.SimpleNamespace(PDF="pdf")
    mods["docling.datamodel.base_models"].DocumentStream = lambda name, stream: (name, stream)
    mods["docling.datamodel.pipeline_options"].PdfPipelineOptions = lambda **kw: kw
    mods["docling.datamodel.settings"].settings = types.SimpleNamespace(cache_dir="/nonexistent/docling")
    mods["docling.document_converter"].DocumentConverter = converter_cls
    mods["docling.document_converter"].PdfFormatOption = lambda pipeline_options: pipeline_options
    for n, m in mods.items():
        monkeypatch.setitem(sys.modules, n, m)


def test_missing_weights_is_a_clear_error_without_download(monkeypatch, tmp_path):
    class NeverConstruct:
        def __init__(self, *a, **k):
            raise AssertionError("the converter must not start without weights (it would download)")

    _fake_docling(monkeypatch, NeverConstruct)
    empty = tmp_path / "models"
    empty.mkdir()
    monkeypatch.setenv("DOCLING_ARTIFACTS_PATH", str(empty))
    with pytest.raises(UsageError, match="model weights are not installed: expected in .*models"):
        parse(DATA / "multi_page.pdf", parser="docling", out_dir=None)


def test_conversion_path_maps_like_the_json_path(monkeypatch, tmp_path):
    ddoc = load_docling_json(DATA / "multi_page.docling.json")
    seen = {}

    class Converter:
        def __init__(self, format_options):
            seen["options"] = format_options

        def convert(self, source):
            seen["offline"] = os.environ.get("HF_HUB_OFFLINE")
            return types.SimpleNamespace(document=ddoc)

    _fake_docling(monkeypatch, Converter)
    models = tmp_path / "models"
    (models / "layout").mkdir(parents=True)
    monkeypatch.setenv("DOCLING_ARTIFACTS_PATH", str(models))
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    t = parse(DATA / "multi_page.pdf", parser="docling", out_dir=None, use_cache=False)
    assert seen["offline"] == "1" and seen["options"]["pdf"]["artifacts_path"] == str(models)
    assert t.manifest["docling"]["input"] == "converted"
    pd.testing.assert_frame_equal(t.line_df, mapped("multi_page").line_df)
    pd.testing.assert_frame_equal(t.toc_df, mapped("multi_page").toc_df)


def test_cli_parse_with_docling_json(tmp_path, capsys):
    from docintel.cli import main

    code = main(
        [
            "parse",
            str(DATA / "amt_handbook_sample.pdf"),
            "--docling-json",
            str(DATA / "amt_handbook_sample.docling.json"),
            "--artifacts",
            str(tmp_path),
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "object_registry 2" in out and "toc_df 3" in out


GOLDEN_COLUMNS = {
    "line_df": [c for c in TABLES["line_df"].column_names if c != "doc_id"],
    "page_df": [
        "page",
        "width",
        "height",
        "n_lines",
        "n_chars",
        "n_words",
        "n_columns",
        "printed_label",
        "label_source",
        "parse_method",
        "error",
    ],
    "toc_df": [c for c in TABLES["toc_df"].column_names if c != "doc_id"],
    "object_registry": [c for c in TABLES["object_registry"].column_names if c != "doc_id"],
    "cell_df": [c for c in TABLES["cell_df"].column_names if c != "doc_id"],
}


@pytest.mark.parametrize("table", sorted(GOLDEN_COLUMNS))
@pytest.mark.parametrize("name", NAMES)
def test_golden_snapshot(name, table):
    """The mapped tables, pinned (floats rounded to 0.1 pt). Regenerate: DOCINTEL_UPDATE_GOLDEN=1."""
    df = mapped(name).table(table)[GOLDEN_COLUMNS[table]]
    text = df.round(1).to_csv(index=False, lineterminator="\n")
    path = GOLDEN / name / f"{table}.csv"
    if UPDATE_GOLDEN:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"{path} missing: run with DOCINTEL_UPDATE_GOLDEN=1 once"
    assert text == path.read_text(encoding="utf-8")


def test_ask_works_on_a_docling_parsed_document(tmp_path):
    from docintel import api

    if not hasattr(api, "ask"):
        pytest.skip("docintel.api.ask is not there yet")
    res = api.ask(
        DATA / "redp5110_sampled.pdf",
        "Which function usage IDs are compared in Table 2-2?",
        docling_json=DATA / "redp5110_sampled.docling.json",
        out_dir=tmp_path,
        backend="offline",
    )
    answer = res.answer if hasattr(res, "answer") else res
    assert answer.citations, "the answer cites the Docling-parsed lines"
    assert all(c.page >= 1 for c in answer.citations)
