"""The layout model docintel builds: lean (no table-grid model, one-thread sessions) and the same
boxes as pymupdf.layout's own model. Run in a child process: whether ``import pymupdf`` already
built the stock model depends on what the test session imported first."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("pymupdf.layout") is None, reason="no pymupdf.layout"
)

_CHILD = r"""
import json
import docintel  # first: defers pymupdf's own layout import
import pymupdf
from docintel.parsing import layout

doc = pymupdf.open()
page = doc.new_page(width=612, height=792)
page.insert_text((72, 72), "Table 1: Measured values per site", fontsize=11, fontname="hebo")
for r in range(8):
    for c in range(4):
        x, y = 72 + c * 120, 90 + r * 20
        page.draw_rect(pymupdf.Rect(x, y, x + 120, y + 20), color=(0, 0, 0), width=0.5)
        page.insert_text((x + 4, y + 14), f"{'Site' if c == 0 else 'v'}{r}{c}.{r * c}", fontsize=9)
for k in range(10):
    page.insert_text((72, 280 + 13 * k), f"Sentence {k} explains the values in the table above.", fontsize=10)

layout._ensure_model()
ours = pymupdf._get_layout.model
from pymupdf.layout import DocumentLayoutAnalyzer
from pymupdf.layout.onnx import BoxRFDGNN as gnn

stock = DocumentLayoutAnalyzer.get_model()  # as pymupdf.layout.activate() builds it
groups = stock.predict(page, return_raw=True)
print(json.dumps({
    "built_here": pymupdf._get_layout is layout._MODEL_BUILT_HERE[0],
    "our_grid": ours._model.table_grid_extractor is not None,
    "stock_grid_ran": any(g["class_name"] == "table" and g.get("table_grid") is not None for g in groups),
    "threads": ours._model.session.get_session_options().intra_op_num_threads,
    "ours": ours.predict(page),
    "stock": stock.predict(page),
    "patches_undone": gnn.make_session is not layout._lean_session
    and gnn.TableGridExtractorV2.__name__ == "TableGridExtractorV2",
}))
"""


@pytest.fixture(scope="module")
def built() -> dict:
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root)}
    env.pop("DOCINTEL_EAGER_LAYOUT", None)
    out = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True, check=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_model_loads_no_table_grid_and_runs_one_thread(built):
    assert built["built_here"]
    assert not built["our_grid"]
    assert built["threads"] == 1


def test_lean_model_gives_the_boxes_of_the_stock_model(built):
    assert built["stock_grid_ran"], "the page must hold a table the stock model runs its grid on"
    assert any(b[4] == "table" for b in built["ours"])
    assert built["ours"] == built["stock"]


def test_the_build_patches_are_undone(built):
    assert built["patches_undone"]
