"""Page furniture and printed page labels, decided over the whole document.

- ``page_number``: a lone number ("12", "iv", "Page 3", "- 7 -", "3 of 9") in the top or
  bottom band of the page, with nothing between it and the page edge.
- ``header`` / ``footer``: text in the top / bottom band that repeats, digits
  normalised, on several pages (running heads, "VerDate ... Frm 00003" print lines).
  Rotated text beside the text area (arXiv and Federal Register margin stamps) is
  already ``header`` from :mod:`lines`: margin furniture, not content.
- ``footnote``: a run of lines at the bottom of a column in a smaller size than the
  column's own text, starting with a marker ("10 A flight control...", "*Equal ...").
- ``printed_label``: read off the page-number lines (and numbers at the end of running
  heads); accepted when at least two pages agree on the same offset to the physical
  page (a sequence), filled between two agreeing pages (``label_source='inferred'``),
  else the PDF's /PageLabels when they agree with the printed numbers (``pdf_labels``).
- ``image_only``: images but no text beyond furniture: the content needs OCR.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

import numpy as np
import pandas as pd

from docintel.parsing import footnotes, linecols
from docintel.parsing.footnotes import _argsort_desc_like_pandas  # noqa: F401 - its home was here
from docintel.text import roman_value, to_roman

#: Share of the page height that counts as the top / bottom band.
BAND = 0.12
_ROMAN = re.compile(r"^(?=[ivxlcdm]+$)m{0,3}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$", re.I)
_PAGE_NO = re.compile(
    r"^(?:page\s+)?[-–—]?\s*(?P<n>\d{1,5}|[ivxlcdm]{1,7})\s*[-–—]?(?:\s+of\s+\d{1,5})?$", re.I
)
_EDGE_NO = re.compile(r"(?:^(?P<a>\d{1,5})\s)|(?:\s(?P<b>\d{1,5})$)")
FURNITURE = ("header", "footer", "page_number")
#: A page mostly covered by images with less own text than this is an image page.
IMAGE_PAGE_CHARS = 600


def _norm(text: str) -> str:
    t = re.sub(r"\d+", "#", text.lower())
    t = " ".join("#" if _ROMAN.match(w) else w for w in t.split())
    return t


def _label_value(token: str) -> tuple[str, int] | None:
    """('arabic'|'roman'|'ROMAN', value) of a page-number token."""
    if token.isdigit():
        return "arabic", int(token)
    v = roman_value(token)
    if v is None:
        return None
    return ("ROMAN" if token.isupper() else "roman"), v


def mark_furniture(
    line_df: pd.DataFrame,
    page_df: pd.DataFrame,
    *,
    pdf_labels: list[str] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Mark header/footer/page_number/footnote lines; fill printed_label, label_source, image_only.

    ``pdf_labels``: the PDF's /PageLabels per physical page (index 0 = page 1), if any.
    """
    line_df = line_df.copy()
    page_df = page_df.copy()
    page_df["printed_label"] = None
    page_df["label_source"] = None
    if line_df.empty:
        _image_only(line_df, page_df)
        return line_df, page_df
    heights = dict(zip(page_df["page"], page_df["height"], strict=False))
    role = line_df["role"].to_numpy(copy=True)
    h = line_df["page"].map(heights).astype(float)
    flat = ~line_df.get("_rot", pd.Series(False, index=line_df.index)).fillna(False).astype(bool)
    top = flat & (line_df["y1"] <= BAND * h)
    bottom = flat & (line_df["y0"] >= (1 - BAND) * h)
    n_pages = int(page_df["n_lines"].fillna(0).gt(0).sum())

    # Repeated text in the bands: running heads and print lines.
    zone = pd.Series(None, index=line_df.index, dtype=object)
    zone[top] = "top"
    zone[bottom] = "bottom"
    in_band = zone.notna()
    # only the band lines' keys are ever read: the others are left blank, not normalised
    band = in_band.to_numpy(dtype=bool)
    texts = linecols.tolist(line_df["text"])  # (a plain list: iterating the Arrow-backed column is slow)
    norm: dict[str, str] = {}  # a running head repeats its text: each distinct text normalised once
    key_list = [
        (norm[t] if t in norm else norm.setdefault(t, _norm(t))) if b else ""
        for t, b in zip(texts, band, strict=True)
    ]
    # pages per (zone, key) of the band lines, grouped on a frame of those three columns only
    at = np.flatnonzero(band)
    per_key = pd.DataFrame(
        {
            "zone": zone.to_numpy()[at],
            "key": [key_list[k] for k in at.tolist()],
            "page": line_df["page"].to_numpy()[at],
        }
    )
    pages_per_key = per_key.groupby(["zone", "key"])["page"].nunique()
    min_repeat = max(2, int(0.3 * n_pages + 0.5))
    repeated = {k for k, v in pages_per_key.items() if v >= min_repeat}

    candidates: dict[int, list[tuple[int, str, int]]] = defaultdict(list)  # page -> (priority, token, idx)
    # plain arrays read once (per-row .at lookups and per-line page filters were this stage's cost)
    pages = line_df["page"].astype(int).to_numpy()
    y0s = line_df["y0"].to_numpy(dtype=float)
    y1s = line_df["y1"].to_numpy(dtype=float)
    flat_pos = np.flatnonzero(flat.to_numpy(dtype=bool))
    flat_by_page: dict = {}
    zones = zone.tolist()
    labels = line_df.index
    for k in np.flatnonzero(in_band.to_numpy(dtype=bool)):
        text = str(texts[k]).strip()
        z = zones[k]
        m = _PAGE_NO.match(text)
        if m and _label_value(m.group("n")) and _at_edge(k, z, pages, y0s, y1s, flat_pos, flat_by_page):
            role[k] = "page_number"
            candidates[int(pages[k])].append((0, m.group("n"), labels[k]))
        elif (z, key_list[k]) in repeated:
            role[k] = "header" if z == "top" else "footer"
            e = _EDGE_NO.search(text)
            if e:
                candidates[int(pages[k])].append((1, e.group("a") or e.group("b"), labels[k]))
    _running_head_rows(line_df, role, flat.to_numpy(dtype=bool), heights, candidates, texts)
    footnotes.mark_footnotes(line_df, texts, role)
    line_df["role"] = role
    _labels(page_df, candidates, pdf_labels)
    _image_only(line_df, page_df)
    return line_df, page_df


#: A page's top row counts as a running head down to this share of the page height.
HEAD_ROW_BAND = 0.2
#: A bold top row this many points under the median text size is a running head, not a heading
#: (set by hand: LaTeX running heads are 9 pt over 10-11 pt text).
SMALL_HEAD_PT = 1.0


def _running_head_rows(
    line_df: pd.DataFrame,
    role: np.ndarray,
    flat: np.ndarray,
    heights: dict,
    candidates: dict,
    texts: list | None = None,
) -> None:
    """A page's top row holding a page number at one end and plain text: a running head.

    "Optimized Table Tokenization ...      9" of a journal page sits below the fixed top band
    when the page has wide margins, and one page alone cannot show it repeating. The row
    must be the first on the page, in plain type no larger than the document's text (bold only
    when smaller than the text), with
    the number set apart at the row's left or right end.
    """
    body = float(line_df["size"].median())
    bold = line_df["bold"].fillna(False).astype(bool).to_numpy() if "bold" in line_df else None
    # whole-frame columns once; each page takes its rows by position (no per-page pandas work)
    x0s, y0s, x1s, y1s, sizes = (line_df[c].to_numpy(dtype=float) for c in ("x0", "y0", "x1", "y1", "size"))
    texts = linecols.tolist(line_df["text"]) if texts is None else texts
    labels = line_df.index
    for page, ix in line_df.groupby("page").indices.items():
        ix = ix[flat[ix]]
        if len(ix) < 3:
            continue
        top = ix[y0s[ix].argmin()]
        y1_top, size = float(y1s[top]), float(sizes[top])
        in_row = np.abs(y1s[ix] - y1_top) <= 0.35 * size
        row = ix[in_row]
        row = row[_argsort_like_pandas(x0s[row])]
        h = float(heights.get(page, 0) or 0)
        if len(row) < 2 or not h or _nanmax(y1s[row]) > HEAD_ROW_BAND * h or _nanmax(sizes[row]) > body + 0.5:
            continue
        # a bold row may be a heading beside a number, unless it is set smaller than the text
        # (the running head "1.2. METRISCHE RÄUME   7" of LaTeX notes): headings are not small
        if bold is not None and bold[ix[in_row]].any() and _nanmax(sizes[row]) > body - SMALL_HEAD_PT:
            continue
        below = ix[~in_row]
        if len(below) and _nanmin(y0s[below]) < _nanmax(y1s[row]) + 0.6 * size:
            continue
        for end, nxt, right in ((row[-1], row[-2], True), (row[0], row[1], False)):
            m = _PAGE_NO.match(str(texts[end]).strip())
            gap = x0s[end] - x1s[nxt] if right else x0s[nxt] - x1s[end]
            if m and _label_value(m.group("n")) and gap >= 2 * size:
                role[end] = "page_number"
                candidates[int(page)].append((0, m.group("n"), labels[end]))
                for other in row:
                    if other != end:
                        role[other] = "header"
                break


def _argsort_like_pandas(v: np.ndarray) -> np.ndarray:
    """Positions of ``v`` in ascending order exactly as ``DataFrame.sort_values`` orders them."""
    idx = np.arange(len(v))
    nan = np.isnan(v)
    return np.concatenate([idx[~nan][v[~nan].argsort(kind="quicksort")], idx[nan]])


def _nanmax(v: np.ndarray) -> float:
    """``Series.max()``: NaN skipped, NaN when there is nothing else."""
    v = v[~np.isnan(v)]
    return float(v.max()) if len(v) else float("nan")


def _nanmin(v: np.ndarray) -> float:
    """``Series.min()``: NaN skipped, NaN when there is nothing else."""
    v = v[~np.isnan(v)]
    return float(v.min()) if len(v) else float("nan")


def _at_edge(
    k: int,
    z: str,
    pages: np.ndarray,
    y0s: np.ndarray,
    y1s: np.ndarray,
    flat_pos: np.ndarray,
    flat_by_page: dict,
) -> bool:
    """Nothing but same-row text lies between line ``k`` (a position) and the page edge of its band.

    ``flat_by_page`` memoises the positions of each page's horizontal lines (and, under ``None``,
    the pages of all of them).
    """
    p = int(pages[k])
    if p not in flat_by_page:
        fp = flat_by_page.get(None)
        if fp is None:  # the flat lines' pages, and whether they never decrease (reading order)
            fpages = pages[flat_pos]
            fp = flat_by_page[None] = (fpages, bool((np.diff(fpages) >= 0).all()))
        if fp[1]:  # one run of positions per page: found by bisection, not by a scan of every line
            lo, hi = np.searchsorted(fp[0], p, "left"), np.searchsorted(fp[0], p, "right")
            flat_by_page[p] = flat_pos[lo:hi]
        else:
            flat_by_page[p] = flat_pos[fp[0] == p]
    same = flat_by_page[p]
    y0, y1 = y0s[k], y1s[k]
    if z == "top":
        return not bool((y1s[same] < y0 + 0.3 * (y1 - y0)).any())
    return not bool((y0s[same] > y1 - 0.3 * (y1 - y0)).any())


def _labels(page_df: pd.DataFrame, candidates: dict, pdf_labels: list[str] | None) -> None:
    """Accept printed labels that form a sequence; fill gaps between agreeing pages."""
    parsed: dict[int, tuple[str, int, str, int]] = {}  # page -> (style, value, token, priority)
    for page, cands in candidates.items():
        for prio, token, _i in sorted(cands, key=lambda c: c[0]):
            lv = _label_value(token)
            if lv:
                parsed[page] = (lv[0], lv[1], token, prio)
                break
    support = Counter((s, v - p) for p, (s, v, _t, _pr) in parsed.items())
    accepted = {
        p: (s, v, t)
        for p, (s, v, t, prio) in parsed.items()
        if support[(s, v - p)] >= 2 or (prio == 0 and len(parsed) <= 2)
    }
    first = min(accepted, default=None)
    for p, (s, v, t, prio) in parsed.items():
        # a lone roman number on a page-number line before the body's numbering: front matter
        # ("ii" on the contents page) counts from the first sheet, so it cannot exceed the page
        if (
            p not in accepted
            and first is not None
            and p < first
            and s.lower() == "roman"
            and prio == 0
            and v <= p
        ):
            accepted[p] = (s, v, t)
    labels: dict[int, tuple[str, str]] = {p: (t, "printed") for p, (s, v, t) in accepted.items()}
    pages = sorted(int(p) for p in page_df["page"])
    known = sorted(accepted)
    for p in pages:
        if p in labels:
            continue
        before = [k for k in known if k < p]
        after = [k for k in known if k > p]
        if before and after:
            (s0, v0, _), (s1, v1, _) = accepted[before[-1]], accepted[after[0]]
            if s0 == s1 and v0 - before[-1] == v1 - after[0]:
                v = v0 + (p - before[-1])
                text = str(v) if s0 == "arabic" else to_roman(v, s0 == "ROMAN")
                labels[p] = (text, "inferred")
    if pdf_labels and _plausible(pdf_labels, accepted):
        for p in pages:
            if p not in labels and p - 1 < len(pdf_labels) and pdf_labels[p - 1]:
                labels[p] = (pdf_labels[p - 1], "pdf_labels")
    page_df["printed_label"] = [labels.get(int(p), (None, None))[0] for p in page_df["page"]]
    page_df["label_source"] = [labels.get(int(p), (None, None))[1] for p in page_df["page"]]


def _plausible(pdf_labels: list[str], accepted: dict) -> bool:
    """/PageLabels are trusted when they match the printed numbers (or say more than the index)."""
    if accepted:
        agree = sum(
            1 for p, (_s, _v, t) in accepted.items() if p - 1 < len(pdf_labels) and pdf_labels[p - 1] == t
        )
        return agree >= 0.8 * len(accepted)
    # Nothing printed to check them against: labels that restart within one style (an arXiv
    # appendix numbered 1, 2, ... again, with no number on the page) describe no printed page.
    nums = [int(lab) for lab in pdf_labels if lab and lab.isdigit()]
    if any(b < a for a, b in zip(nums, nums[1:], strict=False)):
        return False
    return any(lab and lab != str(i + 1) for i, lab in enumerate(pdf_labels))


def _chars_per_page(lines: pd.DataFrame) -> pd.Series:
    """Non-space characters of the lines per page (the page's groupby sum, without a Python call per group)."""
    if lines.empty:
        return lines.groupby("page")["text"].apply(lambda s: sum(len(t.replace(" ", "")) for t in s))
    per_page: dict = {}
    for p, t in zip(lines["page"].tolist(), lines["text"].tolist(), strict=True):
        per_page[p] = per_page.get(p, 0) + len(t) - t.count(" ")
    return pd.Series(per_page, dtype="int64")


def _image_only(line_df: pd.DataFrame, page_df: pd.DataFrame) -> None:
    """Flag pages whose content is essentially raster images, so empty text is never silent.

    A page is ``image_only`` when it has images and at most furniture text, or when images
    cover a quarter of it and its own text is no more than a caption-sized note
    (a figure page with "(4) In the Operating Procedures chapter..." above the picture).
    """
    n_images = page_df["n_images"].fillna(0)
    # a page without images is never image_only whatever its text: only pages with images count
    # their characters (most pages have none: no per-line pass, no frame filter, for them)
    with_images = page_df["page"][(n_images > 0).to_numpy()]
    if line_df.empty:
        content = pd.Series(dtype=float)
    elif not len(with_images):
        content = pd.Series(dtype="int64")
    else:
        keep = ~line_df["role"].isin(FURNITURE).to_numpy() & line_df["page"].isin(with_images).to_numpy()
        content = _chars_per_page(line_df[keep])
    coverage = page_df["image_coverage"].fillna(0.0)
    chars = page_df["page"].map(content).fillna(0)
    page_df["image_only"] = (n_images > 0) & (
        (chars < 20) | ((coverage >= 0.25) & (chars < IMAGE_PAGE_CHARS))
    )
    has_signals = "escalation_signals" in page_df.columns
    done, values = [], []  # set at once: one .at per page into the Arrow column was slow
    for i, only, cov in zip(page_df.index, page_df["image_only"].tolist(), coverage.tolist(), strict=True):
        note = None
        if only:
            note = f"image_only: {cov:.0%} of the page is raster images; their text needs OCR"
        elif cov >= 0.05:
            note = f"raster_images: {cov:.0%} of the page; text inside them is not extracted"
        if note:
            if not has_signals:  # the first note makes the column (as .at does)
                page_df.at[i, "escalation_signals"] = note
                has_signals = True
                continue
            prev = page_df.at[i, "escalation_signals"]
            done.append(i)
            values.append(f"{prev}; {note}" if isinstance(prev, str) and prev else note)
    if done:
        page_df.loc[done, "escalation_signals"] = values
