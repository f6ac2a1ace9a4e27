"""pymupdf's layout model is loaded when a page escalates, not by `import docintel` / `import pymupdf`."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("pymupdf.layout")


def _run(code: str, **env) -> str:
    import os

    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **env},
    )
    return out.stdout.strip()


def test_import_does_not_load_the_layout_model():
    code = "import sys, docintel, pymupdf; print('pymupdf.layout' in sys.modules)"
    assert _run(code) == "False"


def test_layout_imports_and_activates_afterwards():
    code = (
        "import docintel, pymupdf, pymupdf.layout; pymupdf.layout.activate(); "
        "print(callable(pymupdf._get_layout))"
    )
    assert _run(code) == "True"


def test_escalated_page_loads_the_model(tmp_path):
    # layout='always' escalates every page with text: the model must load on demand
    code = (
        "import sys, docintel, pymupdf\n"
        "from docintel.parsing import parse_document\n"
        "doc = pymupdf.open(); page = doc.new_page()\n"
        "page.insert_text((72, 72), '1 Introduction', fontsize=14)\n"
        "page.insert_text((72, 100), 'Body text of the only page.', fontsize=10)\n"
        f"doc.save({str(tmp_path / 'one.pdf')!r})\n"
        f"t = parse_document({str(tmp_path / 'one.pdf')!r}, layout='always', ocr='never', out_dir=None)\n"
        "print('pymupdf.layout' in sys.modules, (t.page_df.parse_method == 'layout').any())"
    )
    # in-process parse: the forked parse worker would load the model in the child only
    assert _run(code, DOCINTEL_PARSE_WORKER="0") == "True True"


def test_eager_switch_keeps_pymupdf_default():
    code = "import sys, docintel, pymupdf; print('pymupdf.layout' in sys.modules)"
    assert _run(code, DOCINTEL_EAGER_LAYOUT="1") == "True"
