"""OCR for image-only pages, through PyMuPDF's own Tesseract integration.

A page flagged ``image_only`` by :mod:`furniture` (raster images, no own text
beyond furniture) is read again from ``page.get_textpage_ocr(full=False)``:
PyMuPDF keeps the page's legible digital text (the running head, the printed
page number, margin stamps stay exact, so printed labels stay right), blanks it,
renders the rest at :data:`DPI` and has Tesseract recognise it. The merged text
page then goes through the same line pipeline as the fast path
(:func:`lines.extract_page_lines`), so columns, reading order and roles
(list items, tables, furniture) follow the same heuristics; text recognised in
a picture that shares the page with digital text is ``figure_text`` (a figure's
content, as the labels of vector figures are), a scanned page's text is not.

Recognised lines are marked ``parse_method='ocr'`` (digital lines on the page
keep ``fast``) and their typography is neutralised: Tesseract's GlyphLessFont
sizes are guesses from the glyph boxes (7 to 12 pt within one paragraph) and
it reports no weight, so an OCR line gets the document's body size and never
looks larger or bolder than the text around it: recognised text of a figure
body never becomes a heading. The page keeps ``image_only=True`` (it has no
text layer there) and its ``escalation_signals`` say ``image_only: ocr``.

Recognised lines that read as noise (:func:`looks_like_noise`: mostly letter runs no
language spells, "eee—SSCSCSCsés") are dropped before they reach the index. PyMuPDF's OCR
text page carries no Tesseract confidence, and asking Tesseract again for its per-word
confidences would double the OCR time, so the filter judges the text itself.

Only image-only pages are OCR'd and Tesseract is looked up only when a
document has one, so text-only documents parse exactly as before.
"""

from __future__ import annotations

import functools
import itertools
import logging
import os
import re
import shutil
import time

import pandas as pd

log = logging.getLogger(__name__)

OCR_MODES = ("auto", "never")
#: Render resolution for recognition: ~2.5 s for a US-letter page, small print still legible.
DPI = 200
LANGUAGE = "eng"
#: The invisible font Tesseract's PDF renderer writes recognised text in.
OCR_FONT = "GlyphLessFont"
#: A picture covering this share of the page is a scanned page, not a figure among text.
SCAN_COVERAGE = 0.7
INSTALL_HINT = "apt-get install tesseract-ocr tesseract-ocr-eng"


def tesseract_on_path() -> bool:
    """Cheap check (no subprocess) used in the cache key: installing Tesseract re-parses."""
    return bool(shutil.which("tesseract") or os.environ.get("TESSDATA_PREFIX"))


@functools.lru_cache(maxsize=1)
def tessdata() -> str | None:
    """Tesseract's language-data folder with the English model, None when OCR is unavailable."""
    if not tesseract_on_path():
        return None
    import pymupdf

    try:
        # pymupdf 2.0 asks `tesseract --list-langs` (or TESSDATA_PREFIX) for the folder
        path = pymupdf.get_tessdata()
    except Exception:
        return None
    if not path or not os.path.isfile(os.path.join(path, f"{LANGUAGE}.traineddata")):
        return None
    return path


def cache_token(mode: str) -> str:
    """The OCR part of the cache key: the mode, and for ``auto`` whether Tesseract is there."""
    if mode != "auto":
        return mode
    return "auto" if tesseract_on_path() else "auto-unavailable"


def ocr_page_lines(page, page_no: int, *, image_boxes=None) -> tuple[list[dict], dict, dict]:
    """Lines of one page read from its OCR text page: (rows, signals, page dict).

    Rows are :func:`lines.extract_page_lines` rows; recognised ones carry
    ``parse_method='ocr'``. Raises when Tesseract fails (the caller keeps the
    page as it was).
    """
    from docintel.parsing.lines import _fast_flags, extract_page_lines

    tp = page.get_textpage_ocr(
        flags=_fast_flags(), language=LANGUAGE, dpi=DPI, full=False, tessdata=tessdata()
    )
    rows, sig = extract_page_lines(page, page_no, image_boxes=image_boxes, textpage=tp)
    kept = [r for r in rows if r["parse_method"] != "ocr" or not looks_like_noise(r["text"])]
    if len(kept) < len(rows):
        for i, r in enumerate(kept, start=1):
            r["line"] = i
        sig.update(
            n_lines=len(kept),
            n_chars=sum(len(r["text"].replace(" ", "")) for r in kept),
            n_words=sum(len(r["text"].split()) for r in kept),
            n_noise=len(rows) - len(kept),
        )
        rows = kept
    _mark_picture_text(rows, image_boxes or [], float(page.rect.width * page.rect.height))
    return rows, sig, sig.pop("_page_dict")


_LETTERS = re.compile(r"[^\W\d_]+")
_VOWEL = re.compile(r"[aeiouy]")
_TRIPLE = re.compile(r"(.)\1\1")
_ROMAN = re.compile(r"[ivxlcdm]+")
#: A recognised line is noise when more than this share of its letters is in implausible words.
NOISE_SHARE = 0.5


def _plausible_word(word: str) -> bool:
    """A letter run a language could spell: a roman numeral, a word of an uncased script
    (CJK, Hangul, Arabic ...), or one with a plausible case pattern, no letter three times
    in a row and, for a longer ASCII word, a vowel (a short one may be an abbreviation)."""
    low = word.lower()
    if len(word) <= 2 or _ROMAN.fullmatch(low) or low == word.upper():
        return True
    if _TRIPLE.search(low) or not _case_ok(word):
        return False
    return len(word) <= 4 or not word.isascii() or bool(_VOWEL.search(low))


def _case_ok(word: str) -> bool:
    """lower, UPPER, UPPERs, Capitalised, CamelCase (GoogLeNet, FedRAMP): at most five case
    changes, and no run of three capitals going on in lower case ("SSCSCSCsés")."""
    if word.islower() or word.isupper() or (word[-1] == "s" and word[:-1].isupper()):
        return True
    runs = [(upper, len(list(g))) for upper, g in itertools.groupby(word, key=str.isupper)]
    caps_then_lower = any(
        u and n >= 3 and not u2 and n2 >= 2 for (u, n), (u2, n2) in itertools.pairwise(runs)
    )
    return len(runs) <= 6 and not caps_then_lower


def looks_like_noise(text: str) -> bool:
    """True for an OCR line that is recognition noise rather than text: symbols only, or
    most of its letters in words no language spells. Numbers, short words, acronyms and
    ordinary prose pass; judged on the line's text alone, the same for every document."""
    chars = text.replace(" ", "")
    if not chars:
        return True
    words = [w for w in _LETTERS.findall(text) if len(w) > 2]
    if not words:
        return len(chars) >= 3 and not any(c.isalnum() for c in chars)
    letters = sum(len(w) for w in words)
    bad = sum(len(w) for w in words if not _plausible_word(w))
    return bad > NOISE_SHARE * letters


def _mark_picture_text(rows: list[dict], boxes: list[tuple], page_area: float) -> None:
    """Recognised text inside a picture placed among the page's text is ``figure_text``.

    Like the labels of a vector figure, it is the figure's content, not the page's prose
    (retrieval leaves figure text out of evidence; the caption stays a caption once
    objects are built). A picture covering most of the page is a scanned page: its
    text keeps the fast-path roles.
    """
    pictures = [b for b in boxes if (b[2] - b[0]) * (b[3] - b[1]) < SCAN_COVERAGE * page_area]
    for r in rows:
        if r["parse_method"] != "ocr" or r.get("_margin"):
            continue
        cx, cy = (r["x0"] + r["x1"]) / 2, (r["y0"] + r["y1"]) / 2
        if any(b[0] <= cx <= b[2] and b[1] <= cy <= b[3] for b in pictures):
            r["role"] = "figure_text"


def _body_size(marked: pd.DataFrame, ocr_rows: list[dict]) -> float:
    """The document's body size from its digital text; the OCR median when it has none (a scan).

    ``marked``: the digital lines with furniture marked (a running head is not body text).
    """
    body = marked[marked["role"] == "body"] if len(marked) else marked
    if len(body):
        weights = body.groupby(body["size"].round(1))["text"].apply(lambda s: int(s.str.len().sum()))
        return float(weights.idxmax())
    sizes = sorted(r["size"] for r in ocr_rows if r["parse_method"] == "ocr")
    return float(sizes[len(sizes) // 2]) if sizes else 10.0


def ocr_image_only_pages(
    doc, raw_lines: pd.DataFrame, marked_lines: pd.DataFrame, marked_pages: pd.DataFrame, *, mode: str
) -> tuple[pd.DataFrame, dict[int, dict]]:
    """OCR the pages ``marked_pages`` flags ``image_only``; return (raw lines, per-page results).

    ``raw_lines``: the document's lines before furniture marking; the OCR'd pages'
    rows are replaced. ``marked_lines``: the same lines after furniture marking (for
    the body size recognised lines are set in). The per-page results hold ``spans`` (the OCR page dict, for
    heading features), ``seconds`` and the new line counts. With no image-only
    page, ``mode='never'`` or no Tesseract (one warning per document), nothing changes.
    """
    pages = [int(p) for p in marked_pages.loc[marked_pages["image_only"].fillna(False), "page"]]
    if mode == "never" or not pages:
        return raw_lines, {}
    if tessdata() is None:
        log.warning(
            "%d image-only page(s) %s not OCR'd: Tesseract is not installed (%s)",
            len(pages),
            pages,
            INSTALL_HINT,
        )
        return raw_lines, {}
    from docintel.parsing import signals

    done: dict[int, dict] = {}
    new_rows: list[dict] = []
    for p in pages:
        t0 = time.perf_counter()
        page = doc[p - 1]
        try:
            boxes = signals.page_signals(page, p)["_image_boxes"]
            rows, sig, page_dict = ocr_page_lines(page, p, image_boxes=boxes)
        except Exception as exc:  # a failed recognition leaves the page flagged, never fails the parse
            log.warning("page %d: OCR failed (%s); the page stays image-only", p, exc)
            continue
        if not any(r["parse_method"] == "ocr" for r in rows):
            continue  # nothing recognised: keep the page's original lines
        new_rows += rows
        done[p] = {
            "page_dict": page_dict,
            "seconds": time.perf_counter() - t0,
            "n_lines": sig["n_lines"],
            "n_chars": sig["n_chars"],
            "n_words": sig["n_words"],
            "n_ocr_lines": sum(1 for r in rows if r["parse_method"] == "ocr"),
            "n_noise": sig.get("n_noise", 0),
        }
    if not done:
        return raw_lines, {}
    kept = raw_lines[~raw_lines["page"].isin(list(done))] if len(raw_lines) else raw_lines
    body = _body_size(marked_lines, new_rows)
    for r in new_rows:
        if r["parse_method"] == "ocr":
            r.update(size=body, bold=False, italic=False, font=OCR_FONT, _marker=False)
    merged = pd.concat([kept, pd.DataFrame(new_rows)], ignore_index=True)
    merged = merged.sort_values(["page", "line"], kind="stable").reset_index(drop=True)
    log.info("OCR'd %d image-only page(s): %s", len(done), sorted(done))
    return merged, done


def mark_ocr_pages(page_df: pd.DataFrame, done: dict[int, dict], base_signals: dict[int, str | None]) -> None:
    """page_df rows of OCR'd pages: parse_method ``ocr``, still ``image_only``, the reason said.

    ``base_signals``: each page's escalation signals before furniture marking (the
    second furniture pass saw text on the page and called its images unread).
    """
    for i in page_df.index:
        p = int(page_df.at[i, "page"])
        if p not in done:
            continue
        info = done[p]
        page_df.at[i, "parse_method"] = "ocr"
        page_df.at[i, "image_only"] = True
        for k in ("n_lines", "n_chars", "n_words"):
            page_df.at[i, k] = info[k]
        page_df.at[i, "parse_seconds"] = float(page_df.at[i, "parse_seconds"] or 0.0) + info["seconds"]
        note = (
            f"image_only: ocr ({float(page_df.at[i, 'image_coverage'] or 0):.0%} of the page is raster images; "
            f"{info['n_ocr_lines']} lines read by OCR (Tesseract, {DPI} dpi), may contain recognition errors"
            + (f"; {info['n_noise']} noise lines dropped" if info.get("n_noise") else "")
            + ")"
        )
        prev = base_signals.get(p)
        page_df.at[i, "escalation_signals"] = f"{prev}; {note}" if isinstance(prev, str) and prev else note
