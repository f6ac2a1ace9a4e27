"""The PyMuPDF parser: fast text path, per-page escalation to pymupdf.layout."""

from __future__ import annotations

import contextlib
import logging
import time
from collections import Counter
from collections.abc import Callable

import pandas as pd

from docintel.parsing import (
    captions,
    crossrefs,
    escalate,
    furniture,
    gcpause,
    headings,
    heldpages,
    layout,
    linecols,
    lines,
    mupdf_log,  # issue 11
    objects,
    ocr,
    signals,
    tables_free,
    tables_text,  # issue 19
    textlayer,  # issue 19
    toc,
)
from docintel.schema.document import DocTables
from docintel.schema.tables import CELL_DF, CROSS_REF_DF, LINE_DF, OBJECT_REGISTRY, PAGE_DF, TOC_DF

log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]


def parse_with_pymupdf(
    doc,
    doc_id: str,
    *,
    layout_mode: str = "auto",
    ocr_mode: str = "auto",
    eager_refs: bool = False,
    progress: Progress | None = None,
    pages_only: bool = False,
) -> DocTables:
    """Parse an open pymupdf.Document into DocTables.

    ``layout_mode``: ``never`` (fast path only), ``auto`` (escalate the pages
    whose signals say the fast path did not understand them), ``always``.
    ``ocr_mode``: ``auto`` reads pages found ``image_only`` with Tesseract when it is
    installed (:mod:`ocr`), ``never`` leaves them flagged and empty.
    A page that raises is recorded in page_df.error and the rest still parses.
    ``pages_only`` stops after the page stage (lines, signals, furniture, labels, escalation, OCR)
    with empty section/object/reference tables: for the page-level tests and benchmark.

    Python's cyclic collector is paused for the whole parse (:mod:`gcpause`): the page stage
    allocates dicts and lists per line and span while every earlier page's stay alive, so its
    passes walk a growing heap (~0.14x the image-free floor on three long NIST SPs) for a few
    hundred to two thousand cyclic objects a parse (counted on the same SPs), left to the
    collector's next passes once it is enabled again.
    """
    with gcpause.paused(), linecols.shared():
        return _parse(doc, doc_id, layout_mode, ocr_mode, eager_refs, progress, pages_only)


def _parse(doc, doc_id, layout_mode, ocr_mode, eager_refs, progress, pages_only) -> DocTables:
    spans: dict[int, headings.PageSpans | None] = {}  # what heading detection needs of each page's dict
    links: dict[int, list] = {}  # each page's native links with their anchor text
    held: dict[int, dict] = {}  # the words and drawings of the pages a table reader looks at (heldpages)
    line_df, page_df = _page_stage(doc, doc_id, layout_mode, spans, progress, links, held)
    errors: dict[str, str] = {}
    stage = _Stages(errors)
    line_df, page_df = _furniture_and_ocr(doc, line_df, page_df, stage, ocr_mode, spans)
    # issue 19: a wrapped text table's lines read cell by cell (before anything cites line numbers)
    line_df = stage.run("text_tables", lambda: tables_text.reorder_lines(doc, line_df, held), line_df)
    if pages_only:
        held.clear()
        tables = DocTables(
            doc_id=doc_id,
            line_df=LINE_DF.conform(line_df),
            page_df=PAGE_DF.conform(page_df),
            toc_df=TOC_DF.empty(),
            object_registry=OBJECT_REGISTRY.empty(),
            cell_df=CELL_DF.empty(),
            cross_ref_df=CROSS_REF_DF.empty(),
        )
        tables.manifest["stage_errors"] = errors
        return tables
    tables = _structure_stages(doc, doc_id, line_df, page_df, stage, spans, eager_refs, links, held)
    held.clear()
    tables.manifest["stage_errors"] = errors
    return tables


def _page_stage(
    doc,
    doc_id: str,
    layout_mode: str,
    spans: dict,
    progress: Progress | None,
    links: dict | None = None,
    held: dict | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every page's lines and signals (raw line_df, page_df); fills ``spans`` (``links``, ``held``) per page."""
    links = {} if links is None else links
    held = {} if held is None else held
    all_lines: list[dict] = []
    pages: list[dict] = []
    n = doc.page_count
    seen_gutters: Counter = Counter()  # the document's column layout, for sparse pages
    page_rows: list[list[dict]] = []
    prows: list[dict] = []
    for i in range(n):
        rows, prow = _parse_page(doc, i, layout_mode, seen_gutters, spans, links, held)
        page_rows.append(rows)
        prows.append(prow)
        if progress and i + 1 < n:  # the last page is done once its escalations are
            progress(i + 1, n)
    # issue 18B: the layout model runs once every page's candidacy is known (budget by gain, pool)
    tick = (lambda: progress(n - 1, n)) if progress else None  # restarts the budget's page clock
    escalate.escalate(doc, page_rows, prows, mode=layout_mode, tick=tick, spans=spans)
    if progress and n:
        progress(n, n)
    for rows, prow in zip(page_rows, prows, strict=True):
        all_lines.extend(rows)
        pages.append({k: v for k, v in prow.items() if not k.startswith("_")})
    line_df = pd.DataFrame(all_lines) if all_lines else LINE_DF.empty()
    line_df["doc_id"] = doc_id
    page_df = pd.DataFrame(pages)
    page_df["doc_id"] = doc_id
    return line_df, page_df


def _parse_page(
    doc, i: int, layout_mode: str, seen_gutters: Counter, spans: dict, links: dict, held: dict | None = None
) -> tuple[list[dict], dict]:
    """One page: its line rows and its page row (private ``_`` keys included); never raises.

    Fills ``spans`` and ``links`` (:func:`crossrefs.page_links`) for the page, and ``held``
    (:func:`tables_text.held_page`) when one of its lines reads as a table caption or the
    fast lines hold rows of role ``table`` (what the text-table and table readers look at)."""
    page_no = i + 1
    t0 = time.perf_counter()
    prow: dict = {"page": page_no, "parse_method": "fast", "escalation_signals": None}
    mupdf_log.reset()  # issue 11: MuPDF's messages for this page only
    try:
        page = doc[i]
        # one text page serves the lines, the heading spans and the link anchors
        tp, image_info, page_dict = signals.text_and_images(page)
        prow.update(signals.page_signals(page, page_no, image_info=image_info, drawings=False))
        if page_dict is None:  # get_image_info()'s own result: the figure reader's CachedPage reads it
            tables_free.page_memo(page).setdefault("img", image_info)
        hint = [g for g in seen_gutters.most_common(1)[0][0]] if seen_gutters else None
        rows, sig = lines.extract_page_lines(
            page,
            page_no,
            hint_gutters=hint,
            image_boxes=prow.get("_image_boxes"),
            textpage=tp,
            page_dict=page_dict,
            want_spans=True,
        )
        tables = sig.pop("_tables")  # lines of role table (lines._mark_tables alone gives that role)
        # (a caption opens with a character of CAPTION_FIRST: only those lines go to the regexes)
        first = captions.CAPTION_FIRST
        hold = held is not None and (
            tables > 0 or tables_text.has_table_caption([t for r in rows if (t := r["text"])[:1] in first])
        )
        # the page's paths as its text page recorded them (one interpretation of the page): their
        # count, and get_cdrawings() only for the readers of the paths themselves: the held page's
        # table readers, the layout triage (boxes), the text-layer check (curves)
        vectors = signals.vector_blocks(sig["_page_dict"])
        prow["n_drawings"] = len(vectors)
        # no path recorded: none drawn inside the page (2,310 corpus pages: no exception); paths wholly
        # outside the cropbox are not recorded and read as none, as every reader here takes them
        if not vectors:
            prow["_drawings"] = prow["_cdrawings"] = []
            # the figure / rule readers' CachedPage reads the same [] instead of interpreting the page
            # again (13 figure-caption pages of the SPs; session 16: 1,353 vectorless pages of the
            # snapshot and NIST PDFs, get_cdrawings() [] on every one)
            tables_free.page_memo(page).setdefault("cd", [])
        elif hold or layout_mode != "never" or signals.may_draw_glyphs(vectors):
            drawn = signals._drawings(page)
            prow["_drawings"] = drawn[0]
            prow["_cdrawings"] = drawn[0] if drawn[1] else None
        words = None  # one get_text("words") serves the link anchors and the held page
        if hold or prow["_links"]:
            with contextlib.suppress(Exception):  # (each reads it again itself on failure)
                words = page.get_text("words", textpage=tp)
        # on failure the cross-reference stage reads this page again (and records what fails)
        with contextlib.suppress(Exception):
            links[page_no] = crossrefs.page_links(page, prow["_links"], textpage=tp, words=words)
        cdrawings = prow.pop("_cdrawings", None)
        if hold:
            # on failure the text-table reader reads the page itself
            with contextlib.suppress(Exception):
                held[page_no] = tables_text.held_page(page, tp, cdrawings, words=words)
        del tp, page_dict, words
        del sig["_page_dict"]
        spans[page_no] = sig.pop("_spans")  # headings.page_spans of the dict, taken in the lines' walk
        if sig["_gutters"]:
            seen_gutters[tuple((round(a), round(b)) for a, b in sig["_gutters"])] += 1
        prow.update(sig)
        reasons = layout.escalation_reasons(page, rows, prow) if layout_mode == "auto" else []
        if layout_mode == "always" and rows:
            reasons = ["layout=always"]
        if reasons:  # a candidate: escalate.escalate decides and runs the model after the loop
            prow["_escalate"] = {
                "reasons": reasons,
                "gutters": sig["_gutters"],
                "cuts": prow.get("_image_boxes"),
            }
            prow["escalation_signals"] = "; ".join(reasons)
        prow["has_text_layer"] = prow["n_chars"] > 0
        prow["text_gaps"] = textlayer.page_gaps(rows, prow, prow.pop("_drawings", None))  # issue 19
    except Exception as exc:
        log.warning("page %d failed to parse: %s", page_no, exc)
        prow.update(parse_method="failed", error=str(exc), n_lines=0, n_chars=0, n_words=0)
        prow.setdefault("has_text_layer", False)
        rows = []
    # -- issue 11: damage MuPDF swallowed (cut streams, bad filters) is recorded, not silent
    if prow["parse_method"] != "failed":
        problem, lost = mupdf_log.page_problem(page, len(rows), int(prow.get("n_images") or 0))
        if problem:
            prow["error"] = problem
            prow["parse_method"] = "failed" if lost else prow["parse_method"]
    # -- end issue 11
    prow["parse_seconds"] = time.perf_counter() - t0
    return rows, prow


def _furniture_and_ocr(
    doc, raw_lines: pd.DataFrame, raw_pages: pd.DataFrame, stage: _Stages, ocr_mode: str, spans: dict
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Mark page furniture, OCR the image-only pages, and mark furniture again when any was read."""
    labels = _pdf_labels(doc)
    no_furniture = (raw_lines.assign(role="body"), raw_pages)
    line_df, page_df = stage.run(
        "furniture", lambda: furniture.mark_furniture(raw_lines, raw_pages, pdf_labels=labels), no_furniture
    )
    # Image-only pages are known once furniture is: OCR them, then mark furniture again over
    # the whole document (the recognised running head repeats like the others).
    raw_lines, done = stage.run(
        "ocr",
        lambda: ocr.ocr_image_only_pages(doc, raw_lines, line_df, page_df, mode=ocr_mode),
        (raw_lines, {}),
    )
    if done:
        line_df, page_df = stage.run(
            "furniture",
            lambda: furniture.mark_furniture(raw_lines, raw_pages, pdf_labels=labels),
            (raw_lines.assign(role="body"), raw_pages),
        )
        base = dict(zip(raw_pages["page"].astype(int), raw_pages["escalation_signals"], strict=False))
        ocr.mark_ocr_pages(page_df, done, base)
        for p, info in done.items():
            spans[p] = headings.page_spans(info["page_dict"])
    # Private hints ("_rot", "_marker", ...) served lines/furniture/layout; the contract has none.
    line_df = line_df.drop(columns=[c for c in line_df.columns if c.startswith("_")])
    return line_df, page_df


def _structure_stages(
    doc,
    doc_id: str,
    line_df: pd.DataFrame,
    page_df: pd.DataFrame,
    stage: _Stages,
    spans: dict,
    eager_refs: bool,
    links: dict | None = None,
    held_pages: dict | None = None,
) -> DocTables:
    """Sections, objects and references over the marked lines, each stage isolated by ``stage``.

    ``held_pages``: the page stage's words and drawings of the pages the table readers look at
    (:mod:`heldpages`); the objects stage reads them instead of asking pymupdf again.
    """
    # build_toc reads the spans from a private page_df column (its signature stays the stubbable one)
    page_df["_spans"] = pd.Series(
        [spans.get(int(p)) for p in page_df["page"]], index=page_df.index, dtype=object
    )
    toc_df, line_df = stage.run(
        "toc", lambda: toc.build_toc(doc, line_df, page_df, doc_id), (_empty_toc(line_df), line_df)
    )
    page_df = page_df.drop(columns="_spans")
    registry, cells, line_df = stage.run(
        "objects",
        lambda: objects.build_objects(
            heldpages.HeldDoc(doc, held_pages or {}), line_df, page_df, toc_df, doc_id
        ),
        (OBJECT_REGISTRY.empty(), CELL_DF.empty(), line_df),
    )
    # labels inside figures / tables are not sections
    toc_df = stage.run("toc_demote", lambda: toc.drop_demoted(toc_df, line_df), toc_df)
    line_df = stage.run("sections", lambda: toc.assign_sections(line_df, toc_df), line_df)
    xref = stage.run(
        "crossrefs",
        lambda: crossrefs.parse_time_refs(doc, line_df, toc_df, registry, doc_id, links=links),
        CROSS_REF_DF.empty(),
    )
    if eager_refs:
        more = stage.run("crossrefs_eager", lambda: crossrefs.extract_references(line_df, doc_id), None)
        if more is not None:
            xref = pd.concat([xref, more], ignore_index=True)

    return DocTables(
        doc_id=doc_id,
        line_df=LINE_DF.conform(line_df),
        page_df=PAGE_DF.conform(page_df),
        toc_df=TOC_DF.conform(toc_df),
        object_registry=_conform(OBJECT_REGISTRY, registry),
        cell_df=_conform(CELL_DF, cells),
        cross_ref_df=CROSS_REF_DF.conform(xref),
    )


#: Each schema's empty frame (its columns and pandas dtypes), built once.
_EMPTY: dict[str, pd.DataFrame] = {}


def _conform(spec, df: pd.DataFrame) -> pd.DataFrame:
    """``spec.conform(df)``, or ``df`` itself when it already is what conform returns.

    The objects stage conforms its registry and cell table itself (a failure there stays in the
    isolated "objects" stage); conforming them again was a pyarrow round trip (~10 ms) that gives
    back equal frames: the schema's columns in order, a 0..n-1 index and the schema's pandas dtypes
    (no schema column is ``object``, so equal dtypes mean equal values after the round trip).
    """
    empty = _EMPTY.get(spec.name)
    if empty is None:
        empty = _EMPTY.setdefault(spec.name, spec.empty())
    if (
        list(df.columns) == list(empty.columns)
        and df.dtypes.equals(empty.dtypes)
        and isinstance(df.index, pd.RangeIndex)
        and df.index.start == 0
        and df.index.step == 1
    ):
        return df
    return spec.conform(df)


class _Stages:
    """Run one structure stage; a stage that raises is logged, recorded and replaced by its fallback.

    One stage failing on an odd document (a NaN number in the appendix pass) must not lose
    the pages, lines and every other table: the failure is kept in the manifest's
    ``stage_errors`` ({stage: "ExcType: message"}) and the stage's table stays empty.
    """

    def __init__(self, errors: dict[str, str]) -> None:
        self.errors = errors

    def run(self, name: str, fn, fallback):
        try:
            return fn()
        except Exception as exc:  # noqa: BLE001 - isolation is the point
            log.warning("stage %s failed (%s: %s); its table is left empty", name, type(exc).__name__, exc)
            self.errors[name] = f"{type(exc).__name__}: {exc}"
            return fallback


def _empty_toc(line_df: pd.DataFrame) -> pd.DataFrame:
    """What a failed toc stage leaves: no sections, and the role columns later stages read."""
    for col in ("role", "section_id", "object_key"):
        if col not in line_df.columns:
            line_df[col] = "body" if col == "role" else None
    return TOC_DF.empty()


def _pdf_labels(doc) -> list[str] | None:
    """The PDF's /PageLabels per physical page, or None when it has none.

    Each label is what ``doc[i].get_label()`` gives, computed as it does (the sorted label rules,
    ``pymupdf.utils.get_label_pno``) from one read of the rules, without loading every page and
    reading the label tree again for each (~0.1 ms a page).
    """
    try:
        if not doc.get_page_labels():
            return None
        raw = getattr(doc, "_get_page_labels", None)
        if raw is None:  # (a PyMuPDF without it: page by page)
            return [doc[i].get_label() for i in range(doc.page_count)]
        import pymupdf.utils

        rules = sorted(raw())
        return [pymupdf.utils.get_label_pno(i, rules) for i in range(doc.page_count)]
    except Exception:  # a broken label tree is not worth failing the parse
        return None
