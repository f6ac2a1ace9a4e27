"""Golden snapshots of the parsed tables (PyMuPDF parser, default options).

Parsed with ocr="never" so that they hold on machines without Tesseract. Fixtures come from
scripts/make_fixtures.py (outline, contents page, two columns, a ruled table,
references, a link); the real PDFs are the bundled NIST SP 800-106 and FAA NPRM. Regenerate with
DOCINTEL_UPDATE_GOLDEN=1 after an intended parser change and review the diff.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from docintel.api import parse

from .conftest import PDFS, REPO, UPDATE_GOLDEN

GOLDEN = Path(__file__).parent / "golden" / "tables"
DOCS = sorted((REPO / "tests" / "data" / "fixtures").glob("*.pdf")) + sorted(PDFS.glob("*.pdf"))
BBOX = ["x0", "y0", "x1", "y1"]
DROP = {"doc_id", "parse_seconds", "font"}  # volatile or machine-dependent


def snapshot(df: pd.DataFrame) -> str:
    df = df.drop(columns=[c for c in df.columns if c in DROP]).copy()
    for c in df.columns:
        if c in BBOX or df[c].dtype.kind == "f":
            df[c] = df[c].round(1)
    return df.to_csv(index=False, lineterminator="\n")


@pytest.fixture(scope="module")
def parsed(tmp_path_factory):
    out = tmp_path_factory.mktemp("tables-golden")
    # ocr="never": snapshots must not depend on whether (or which) Tesseract is installed
    return {pdf.stem: parse(pdf, out_dir=out, ocr="never") for pdf in DOCS}


@pytest.mark.parametrize("pdf", DOCS, ids=[p.stem for p in DOCS])
def test_tables_match_golden(pdf, parsed):
    tables = parsed[pdf.stem]
    folder = GOLDEN / pdf.stem
    for name, df in tables.tables().items():
        got = snapshot(df)
        golden = folder / f"{name}.csv"
        if UPDATE_GOLDEN:
            folder.mkdir(parents=True, exist_ok=True)
            golden.write_text(got)
        assert golden.exists(), f"missing {golden}: run with DOCINTEL_UPDATE_GOLDEN=1"
        assert got == golden.read_text(), f"{pdf.name}: {name} differs from {golden}"


def test_fixture_script_is_reproducible(tmp_path, monkeypatch):
    """The committed fixtures are exactly what scripts/make_fixtures.py writes."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_fixtures", REPO / "scripts" / "make_fixtures.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    monkeypatch.setattr(mod, "OUT", tmp_path)
    mod.main()
    for pdf in (REPO / "tests" / "data" / "fixtures").glob("*.pdf"):
        assert (tmp_path / pdf.name).read_bytes() == pdf.read_bytes(), pdf.name


def test_fixtures_cover_each_toc_road(parsed):
    """Each fixture takes the toc road it was built for, and the table's rows are selectable."""
    assert set(parsed["outline_report"].toc_df["source"]) == {"outline"}
    assert set(parsed["contents_page"].toc_df["source"]) == {"contents_page"}
    assert set(parsed["two_columns"].toc_df["source"]) == {"heading_detection"}
    cells = parsed["outline_report"].cell_df
    row_b = cells[cells["row_label"] == "(B)"].sort_values("col")["text"].tolist()
    assert row_b == ["(B)", "35", "4"]
    links = parsed["outline_report"].cross_ref_df
    link = links[links["source"] == "native_link"].iloc[0]
    assert (link["ref_type"], link["ref_target"], int(link["target_page"])) == ("table", "1", 3)
