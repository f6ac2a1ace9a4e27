"""Where the whole parse's CPU goes, stage by stage, as multiples of the image-free raw floor.

Usage:
    python benchmarks/bench_parse_stages.py [--layout never] [--tree DIR] [PDF ...]

``--tree DIR``: time that checkout's parser instead of this tree's (``git archive <commit> |
tar -x -C DIR``), so a before / after pair reads the same stages; compare the multiples of the
floor, which each run measures itself.

Default PDFs: the three long NIST SPs (sp800-53r3, sp800-82r2, sp800-60v2r1). The floor is
``get_text("dict")`` of every page with ``TEXT_PRESERVE_IMAGES`` off; then the PyMuPDF backend
parses each document in this process (``ocr=never``) with the named stage functions wrapped
to sum their CPU seconds. Stages nest (the page stage holds the per-page calls; ``build_toc``
holds the heading candidates, contents / outline entries and provisions; ``build_objects`` the
caption, table, clause and back-matter readers), so the rows do not add up. Only stages that
run are listed: a row that never appears was not called through its module (a stage that the
code calls by a name imported elsewhere must be wrapped where it is looked up). Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
NIST = Path(os.environ.get("DOCINTEL_SHARED", REPO.parent / "shared")) / "corpus" / "nist" / "pdfs"
DEFAULT = [NIST / "sp800-53r3.pdf", NIST / "sp800-82r2.pdf", NIST / "sp800-60v2r1.pdf"]


def _wrap(spent: Counter, mod, name: str) -> str:
    f = getattr(mod, name)
    key = f"{mod.__name__.rsplit('.', 1)[-1]}.{name}"

    def timed(*a, **k):
        t = time.process_time()
        try:
            return f(*a, **k)
        finally:
            spent[key] += time.process_time() - t

    setattr(mod, name, timed)
    return key


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pdfs", nargs="*", type=Path)
    ap.add_argument("--layout", default="never")
    ap.add_argument("--tree", type=Path, help="a checkout whose docintel package is timed")
    args = ap.parse_args(argv)
    if args.tree is not None:
        sys.path.insert(0, str(args.tree.resolve()))
    import pymupdf

    from docintel.parsing import (
        clauses,
        columns,
        contents_page,
        crossrefs,
        furniture,
        lines,
        objects,
        provisions,
        signals,
        tables_captioned,
        tables_cells,
        tables_free,
        tables_text,
        textlayer,
        toc,
        toc_sources,
    )
    from docintel.parsing import pdf as pdfmod
    from docintel.parsing import pymupdf_backend as b

    spent: Counter = Counter()
    wrapped: list[str] = []
    for mod, name in [
        (b, "_page_stage"),
        (signals, "text_and_images"),
        (signals, "page_signals"),
        (signals, "_drawings"),
        (lines, "extract_page_lines"),
        (lines, "_raw_lines"),  # the dict's walk: line dicts and heading spans (heading_spans.line_span_rows)
        (columns, "find_gutters"),
        (crossrefs, "page_links"),
        (tables_text, "held_page"),
        (textlayer, "page_gaps"),
        (furniture, "mark_furniture"),
        (tables_text, "reorder_lines"),
        (toc, "build_toc"),
        (toc, "span_features"),
        (toc, "candidates"),
        (toc, "_join_continuations"),
        (toc, "_mark_heading_like"),
        (contents_page, "find_entries"),
        (toc_sources, "outline_entries"),
        (provisions, "find_provisions"),
        (objects, "build_objects"),
        (objects, "caption_object"),
        (objects, "appendices"),
        (objects, "bibliography"),
        (tables_captioned, "table_box"),
        (tables_free, "uncaptioned_tables"),
        (tables_cells, "read_table"),
        (clauses, "clause_objects"),
        (toc, "drop_demoted"),
        (toc, "assign_sections"),
        (crossrefs, "parse_time_refs"),
    ]:
        if hasattr(mod, name):
            wrapped.append(_wrap(spent, mod, name))
    floor = total = 0.0
    pages = 0
    flags = pymupdf.TEXTFLAGS_DICT & ~pymupdf.TEXT_PRESERVE_IMAGES
    for p in args.pdfs or DEFAULT:
        data = pdfmod.read_pdf_bytes(p)
        doc = pdfmod.open_pdf(data, name=p.name)
        t = time.process_time()
        for page in doc:
            page.get_text("dict", flags=flags)
        floor += time.process_time() - t
        pages += doc.page_count
        doc = pdfmod.open_pdf(data, name=p.name)
        t = time.process_time()
        b.parse_with_pymupdf(doc, pdfmod.doc_id_for(data), layout_mode=args.layout, ocr_mode="never")
        total += time.process_time() - t
    import docintel

    print(f"tree: {Path(docintel.__file__).parents[1]}")
    print(
        f"{pages} pages; floor {floor:.2f} s; parse --layout {args.layout} {total:.2f} s = {total / floor:.2f}x\n"
    )
    print(f"| {'stage':34s} | CPU s | x floor |")
    print(f"|{'-' * 36}|------:|--------:|")
    for k, v in spent.most_common():
        print(f"| {k:34s} | {v:5.2f} | {v / floor:6.2f}x |")
    idle = [k for k in wrapped if k not in spent]
    if idle:  # a stage the parse no longer calls (or calls by a name imported elsewhere): fix the list
        print(f"\nnever called: {', '.join(idle)}")


if __name__ == "__main__":
    main()
